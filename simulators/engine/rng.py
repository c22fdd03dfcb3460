"""Seeded randomness: every random choice in a lab comes from a stream derived here."""

import hashlib
import random

SEED_MAX = 2**53 - 1  # the largest integer a browser's JSON keeps exactly


def derive_seed(seed: int, stream: str) -> int:
    """A 64-bit seed for the named stream, the same in every process."""
    data = f"{seed}:{stream}".encode()
    return int.from_bytes(hashlib.sha256(data).digest()[:8], "big")


def make_rng(seed: int, stream: str) -> random.Random:
    """An independent `random.Random` for one named purpose inside a lab."""
    return random.Random(derive_seed(seed, stream))
