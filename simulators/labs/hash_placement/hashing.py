"""The hash functions the placement schemes use.

MurmurHash3 (32-bit, unsigned) for mod N, the ring and hash-range partitions; CRC16
(XMODEM, as Redis Cluster uses it) modulo 16,384 for Redis Cluster slots, with hash
tags.
"""

from binascii import crc_hqx
from collections.abc import Iterator, Sequence
from itertools import repeat

import mmh3

from simulators.engine.pieces import PIECE

HASH_SPACE = 2**32
REDIS_SLOTS = 16384


def murmur(key: str) -> int:
    """MurmurHash3 x86 32-bit of the key's UTF-8 bytes, seed 0, as 0 … 2³²−1."""
    # bytes, not str: mmh3 5.3 crashes the process on a str holding a lone surrogate
    return mmh3.hash(key.encode("utf-8"), 0, False)


def murmur_many(keys: Sequence[str]) -> Iterator[int]:
    """murmur() of every key, in order, computed as the iterator is read.

    Read it a piece at a time (`array_of`, a Python loop) where it is long: one call
    into C that reads it all (`list`) holds the GIL for as long (issue 29).
    """
    if not _every_piece(keys, str.isascii):
        return map(murmur, keys)
    # an ASCII str is its own UTF-8, which mmh3 reads directly; map keeps the loop in C
    return map(mmh3.hash, keys, repeat(0), repeat(False))


def _every_piece(keys: Sequence[str], test) -> bool:
    """Whether `test` holds for the keys joined, tried `PIECE` keys at a time (one
    join of a million keys is one long call into C)."""
    return all(
        test("".join(keys[start : start + PIECE]))
        for start in range(0, len(keys), PIECE)
    )


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
    if not _every_piece(keys, _untagged):
        return list(map(redis_slot, keys))  # a Python function: not one long call
    crc = crc_hqx
    return [crc(key.encode("utf-8"), 0) % REDIS_SLOTS for key in keys]


def _untagged(text: str) -> bool:
    return "{" not in text
