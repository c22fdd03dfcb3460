"""Redis Cluster's hash slots: CRC16 (XMODEM, as Redis Cluster uses it) modulo 16,384,
with hash tags. (MurmurHash3, for mod N, the ring and hash-range partitions, is the
engine's: simulators/engine/hashing.py.)
"""

from binascii import crc_hqx
from collections.abc import Sequence

from simulators.engine.hashing import every_piece

REDIS_SLOTS = 16384


def hash_tag(key: str) -> str:
    """The part of `key` Redis Cluster hashes: the text inside the first `{…}`, if any.

    Only a non-empty tag counts: `{}` and an unclosed `{` leave the whole key hashed.
    """
    start = key.find("{")
    if start == -1:
        return key
    end = key.find("}", start + 1)
    if end == -1 or end == start + 1:
        return key
    return key[start + 1 : end]


def redis_slot(key: str) -> int:
    """The Redis Cluster slot of `key`: CRC16 of its hash tag, modulo 16,384."""
    return crc_hqx(hash_tag(key).encode("utf-8"), 0) % REDIS_SLOTS


def redis_slots(keys: Sequence[str]) -> list[int]:
    """redis_slot() of every key, in order; with no `{` in any key, no tag search."""
    if not every_piece(keys, _untagged):
        return list(map(redis_slot, keys))  # a Python function: not one long call
    crc = crc_hqx
    return [crc(key.encode("utf-8"), 0) % REDIS_SLOTS for key in keys]


def _untagged(text: str) -> bool:
    return "{" not in text
