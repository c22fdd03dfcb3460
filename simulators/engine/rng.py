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


class SplitMix:
    """SplitMix64 (Steele, Lea, Flood 2014): a generator whose whole state is one
    64-bit number, for a lab that draws as it runs and is checkpointed often (a
    `random.Random` carries 2.5 KB of state into every checkpoint)."""

    __slots__ = ("state",)

    def __init__(self, seed: int) -> None:
        self.state = seed & MASK64

    def __getstate__(self) -> int:
        return self.state

    def __setstate__(self, state: int) -> None:
        self.state = state

    def random(self) -> float:
        """A float in [0, 1), 53 random bits."""
        z = self.state = (self.state + 0x9E3779B97F4A7C15) & MASK64
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        return ((z ^ (z >> 31)) >> 11) * 2.0**-53


MASK64 = 2**64 - 1
