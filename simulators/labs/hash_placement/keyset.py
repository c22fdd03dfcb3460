"""A set of keys reduced to what placement needs: each key's hash, computed once.

A key set never changes once made (the lab replaces it whole), so it is `Shared`: a
checkpoint of the lab refers to it by key instead of copying its hashes
(playground/checkpoints.py), and every lab restored from a checkpoint shares it.

Its hashes are arrays of 4-byte numbers, never lists of Python ints (32 bytes each, and
8 more for the list's pointer): 10,000 keys take 80 KB, not 430 KB. And the labs of one
process that use the same keys (the same airline seed, kind and count: every fresh lab
on the default seed) share one key set (`KeySet.of`), made once: a page opened by a
thousand visitors holds the hashes once, not a thousand times (issue 29).
"""

import threading
import weakref
from array import array
from bisect import bisect_left

from simulators.airline import Airline
from simulators.engine.hashing import HASH_SPACE, murmur_many
from simulators.engine.ledger import Shared
from simulators.engine.pieces import array_of, counted, emptied, sorted_ints
from simulators.labs.hash_placement.hashing import REDIS_SLOTS, redis_slots


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
        # made (and the lists on the way freed) in pieces, each a short call into C,
        # so that no step holds the GIL for long (simulators/engine/pieces.py)
        keys = self._keys()
        self.hashes = array_of("I", murmur_many(keys))
        emptied(keys)
        ordered = sorted_ints(self.hashes)
        self.sorted_hashes = array_of("I", ordered)
        emptied(ordered)
        self._slots: array | None = None
        self._slot_counts: list[int] | None = None
        self._range_counts: dict[int, list[int]] = {}

    @classmethod
    def of(cls, airline: Airline, kind: str, count: int) -> "KeySet":
        """The key set of these keys: the one another lab of this process already
        holds (with the same airline seed), or a new one.

        Sharing changes nothing a lab can see: a key set never changes, and its lazy
        caches are the same whoever fills them."""
        key = (airline.seed, kind, count)
        with _made_lock:
            found = _made.get(key)
        if found is not None:
            return found
        made = cls(airline, kind, count)
        with _made_lock:
            return _made.setdefault(key, made)

    def __getstate__(self) -> tuple:
        # arrays pickle as their bytes: 8 bytes a key, a fraction of a list's pickle
        return (self.airline, self.kind, self.count, self.hashes, self.sorted_hashes)

    def __setstate__(self, state: tuple) -> None:
        self.airline, self.kind, self.count, self.hashes, self.sorted_hashes = state
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
            keys = self._keys()
            slots = redis_slots(keys)
            emptied(keys)
            self._slots = array_of("H", slots)
            emptied(slots)
        return self._slots

    def slot_counts(self) -> list[int]:
        """Keys in each of the 16,384 Redis slots."""
        if self._slot_counts is None:
            counts = counted(self.slots())
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


# the key sets labs of this process hold, by (airline seed, kind, count); one goes when
# no lab refers to it any more
_made: "weakref.WeakValueDictionary[tuple, KeySet]" = weakref.WeakValueDictionary()
_made_lock = threading.Lock()
