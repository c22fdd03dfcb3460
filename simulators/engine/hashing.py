"""MurmurHash3, the hash the labs place keys with (hash-placement's mod N, ring and
hash-range partitions; range-splits' hashed keys; scatter-gather's and
cache-stampede's shards): 32-bit, unsigned, seed 0, over a key's UTF-8 bytes."""

from collections.abc import Iterator, Sequence
from itertools import repeat

import mmh3

from simulators.engine.pieces import PIECE

HASH_SPACE = 2**32


def murmur(key: str) -> int:
    """MurmurHash3 x86 32-bit of the key's UTF-8 bytes, seed 0, as 0 … 2³²−1."""
    # bytes, not str: mmh3 5.3 crashes the process on a str holding a lone surrogate
    return mmh3.hash(key.encode("utf-8"), 0, False)


def murmur_many(keys: Sequence[str]) -> Iterator[int]:
    """murmur() of every key, in order, computed as the iterator is read.

    Read it a piece at a time (`array_of`, a Python loop) where it is long: one call
    into C that reads it all (`list`) holds the GIL for as long (issue 29).
    """
    if not every_piece(keys, str.isascii):
        return map(murmur, keys)
    # an ASCII str is its own UTF-8, which mmh3 reads directly; map keeps the loop in C
    return map(mmh3.hash, keys, repeat(0), repeat(False))


def every_piece(keys: Sequence[str], test) -> bool:
    """Whether `test` holds for the keys joined, tried `PIECE` keys at a time (one
    join of a million keys is one long call into C)."""
    return all(
        test("".join(keys[start : start + PIECE]))
        for start in range(0, len(keys), PIECE)
    )
