"""A set of keys reduced to what placement needs: each key's hash, computed once.

A key set never changes once made (the lab replaces it whole), so it is `Shared`: a
checkpoint of the lab refers to it by key instead of copying its hashes
(playground/checkpoints.py), and every lab restored from a checkpoint shares it.
"""

from array import array
from bisect import bisect_left
from collections import Counter

from simulators.airline import Airline
from simulators.engine.ledger import Shared
from simulators.labs.hash_placement.hashing import (
    HASH_SPACE,
    REDIS_SLOTS,
    murmur_many,
    redis_slots,
)


class KeySet(Shared):
    """The first `count` keys of one kind, as hashes; the key strings are not kept.

    The hash of a key never changes, so it is computed once here; every placement only
    reads these arrays. Redis slots and per-partition counts are computed on first use:
    they depend on the keys alone, so a shared key set may fill them at any time. Its
    pickle holds the keys' identity and hashes only, never those caches nor `part_key`,
    so the same keys pickle to the same bytes in any process.
    """

    def __init__(self, airline: Airline, kind: str, count: int) -> None:
        self.part_key: bytes | None = None
        self.airline = airline
        self.kind = kind
        self.count = count
        hashes = list(murmur_many(self._keys()))
        self.hashes = array("I", hashes)
        self.sorted_hashes = sorted(hashes)
        self._slots: array | None = None
        self._slot_counts: list[int] | None = None
        self._range_counts: dict[int, list[int]] = {}

    def __getstate__(self) -> tuple:
        # arrays pickle as their bytes: 8 bytes a key, a fraction of a list's pickle
        ordered = array("I", self.sorted_hashes)
        return (self.airline, self.kind, self.count, self.hashes, ordered)

    def __setstate__(self, state: tuple) -> None:
        self.airline, self.kind, self.count, self.hashes, ordered = state
        self.sorted_hashes = ordered.tolist()
        self.part_key = None
        self._slots = None
        self._slot_counts = None
        self._range_counts = {}

    def _keys(self) -> list[str]:
        return self.airline.keys(self.kind, self.count)

    def key(self, index: int) -> str:
        """The index-th key's text (made again from the generator)."""
        return self.airline.key(self.kind, index)

    def slots(self) -> array:
        """Every key's Redis Cluster slot, in key order."""
        if self._slots is None:
            self._slots = array("H", redis_slots(self._keys()))
        return self._slots

    def slot_counts(self) -> list[int]:
        """Keys in each of the 16,384 Redis slots."""
        if self._slot_counts is None:
            counts = Counter(self.slots())
            self._slot_counts = [counts.get(s, 0) for s in range(REDIS_SLOTS)]
        return self._slot_counts

    def range_counts(self, partitions: int) -> list[int]:
        """Keys in each of `partitions` equal slices of the hash range."""
        if partitions not in self._range_counts:
            ordered = self.sorted_hashes
            starts = [
                bisect_left(ordered, -(-p * HASH_SPACE // partitions))
                for p in range(partitions + 1)
            ]
            self._range_counts[partitions] = [
                b - a for a, b in zip(starts, starts[1:], strict=False)
            ]
        return self._range_counts[partitions]
