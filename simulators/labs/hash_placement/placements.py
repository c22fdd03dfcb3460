"""Three ways to place keys on shards, and what moves when the table changes.

Every placement answers the same three questions: which shard holds a key, how many
keys each shard holds, and which keys move (and between which shards) when the placement
is replaced by another. Counting works on aggregates (keys sorted by hash, keys per
partition) so that a million keys rebalance in well under a second.

A placement never changes once made (a change makes a new one), and it pickles small,
as what it was made from, since a lab's checkpoints hold it: the ring as its shards and
virtual nodes (its tokens are made again, or found in a cache), a partition table
compressed. What is derived from it (the batch lookup tables) is not pickled.
"""

import zlib
from array import array
from bisect import bisect_left, bisect_right
from collections import Counter
from collections.abc import Iterable
from functools import cached_property, lru_cache

from simulators.engine.hashing import HASH_SPACE, murmur_many
from simulators.engine.pieces import counted, counted_pairs, mapped
from simulators.labs.hash_placement.keyset import KeySet
from simulators.labs.hash_placement.steps import StepLookup

Moves = tuple[
    int, dict[str, int], dict[str, int]
]  # moved, sent by shard, received by shard


def moves_from_pairs(pairs: Counter) -> Moves:
    """Sum (old shard, new shard) → count into moved, sent and received."""
    moved, sent, received = 0, Counter(), Counter()
    for (old, new), count in pairs.items():
        if old != new and count:
            moved += count
            sent[old] += count
            received[new] += count
    return moved, dict(sorted(sent.items())), dict(sorted(received.items()))


class ModPlacement:
    """Shard number = hash(key) mod N: no table, so a new N moves almost everything."""

    scheme = "mod"

    def __init__(self, shards: list[str]) -> None:
        self.shards = list(shards)

    def __reduce__(self):
        return (ModPlacement, (self.shards,))

    def shard_for(self, key_hash: int, slot: int) -> str:
        """The shard holding a key with this hash."""
        return self.shards[key_hash % len(self.shards)]

    def shard_for_many(
        self, hashes: Iterable[int], slots: Iterable[int] | None = None
    ) -> list[str]:
        """The shard of each key, given every key's hash."""
        shards, n = self.shards, len(self.shards)
        return [shards[h % n] for h in hashes]

    def tally(self, keys: KeySet) -> dict[str, int]:
        """Keys held by each shard."""
        counts = counted(keys.hashes, len(self.shards).__rmod__)
        return {name: counts.get(i, 0) for i, name in enumerate(self.shards)}

    def moves_to(self, new: "ModPlacement", keys: KeySet) -> Moves:
        """Keys whose shard differs between this placement and `new`."""
        old_n, new_n = len(self.shards), len(new.shards)
        pairs = counted_pairs(keys.hashes, keys.hashes, old_n.__rmod__, new_n.__rmod__)
        named = Counter()
        for (old, new_index), count in pairs.items():
            named[(self.shards[old], new.shards[new_index])] += count
        return moves_from_pairs(named)

    def describe(self) -> dict:
        """The placement as snapshot data."""
        return {"shard_count": len(self.shards)}


class PartitionPlacement:
    """Keys hash to a fixed partition; a small table maps partitions to shards.

    With `hash_fn="murmur3"` partition p is the p-th equal slice of the 32-bit hash
    range; with `"crc16"` it is the Redis Cluster slot: CRC16(key or hash tag) mod
    16,384.
    """

    scheme = "partitions"

    def __init__(self, count: int, hash_fn: str, owners: list[str]) -> None:
        if len(owners) != count:
            raise ValueError("one owner per partition")
        self.count = count
        self.hash_fn = hash_fn
        self.owners = owners

    def __reduce__(self):
        # the table as each partition's owner's place among the owners, a byte each
        # (for up to 256 owners), compressed: a few hundred bytes for 1,024 partitions
        # where the list of names took 2 bytes a partition
        names = tuple(dict.fromkeys(self.owners))
        place = {name: i for i, name in enumerate(names)}
        width = "B" if len(names) <= 256 else "I"
        places = array(width, map(place.__getitem__, self.owners))
        packed = zlib.compress(places.tobytes())
        return (_unpacked_partitions, (self.count, self.hash_fn, names, width, packed))

    @classmethod
    def dealt(cls, count: int, hash_fn: str, shards: list[str]) -> "PartitionPlacement":
        """Partitions dealt to shards in contiguous, nearly equal runs."""
        n = len(shards)
        return cls(count, hash_fn, [shards[p * n // count] for p in range(count)])

    def partition_of(self, key_hash: int, slot: int) -> int:
        """The partition a key with this hash (or Redis slot) falls in."""
        if self.hash_fn == "crc16":
            return slot
        return (key_hash * self.count) >> 32

    def shard_for(self, key_hash: int, slot: int) -> str:
        """The shard holding a key with this hash."""
        return self.owners[self.partition_of(key_hash, slot)]

    def shard_for_many(
        self, hashes: Iterable[int], slots: Iterable[int] | None = None
    ) -> list[str]:
        """The shard of each key, given every key's hash (and, for CRC16, its slot)."""
        if self.hash_fn == "crc16":
            if slots is None:
                raise ValueError("Redis Cluster slots are needed for CRC16 partitions")
            return mapped(self.owners.__getitem__, slots)
        return self._lookup.owners_of(hashes)

    @cached_property
    def _lookup(self) -> StepLookup:
        # partition p starts at the first hash h with (h * count) >> 32 == p
        count = self.count
        edges = [-(-p * HASH_SPACE // count) for p in range(1, count)]
        return StepLookup(edges, self.owners)

    def partition_counts(self, keys: KeySet) -> list[int]:
        """Keys in each partition."""
        if self.hash_fn == "crc16":
            return keys.slot_counts()
        return keys.range_counts(self.count)

    def tally(self, keys: KeySet) -> dict[str, int]:
        """Keys held by each shard, in shard order (as the other schemes list them)."""
        totals = Counter()
        for owner, count in zip(self.owners, self.partition_counts(keys), strict=True):
            totals[owner] += count
        return {shard: totals[shard] for shard in sorted(totals)}

    def partitions_of(self, shard: str) -> list[int]:
        """The partitions a shard owns, in order."""
        return [p for p, owner in enumerate(self.owners) if owner == shard]

    def with_shard_added(
        self, shard: str, shards_before: list[str]
    ) -> "PartitionPlacement":
        """Give the new shard whole partitions, one from each existing shard in turn."""
        owned = {s: self.partitions_of(s) for s in shards_before}
        target = self.count // (len(shards_before) + 1)
        owners = list(self.owners)
        taken = 0
        while taken < target:
            progressed = False
            for donor in shards_before:
                if taken == target:
                    break
                if len(owned[donor]) > target:
                    owners[owned[donor].pop()] = shard
                    taken += 1
                    progressed = True
            if not progressed:
                break
        return PartitionPlacement(self.count, self.hash_fn, owners)

    def with_shard_removed(
        self, shard: str, remaining: list[str]
    ) -> "PartitionPlacement":
        """Give the removed shard's partitions to the remaining shards, fewest first."""
        load = {s: len(self.partitions_of(s)) for s in remaining}
        owners = list(self.owners)
        for p in self.partitions_of(shard):
            heir = min(remaining, key=lambda s: (load[s], remaining.index(s)))
            owners[p] = heir
            load[heir] += 1
        return PartitionPlacement(self.count, self.hash_fn, owners)

    def moves_to(self, new: "PartitionPlacement", keys: KeySet) -> Moves:
        """Keys whose shard differs; with the count kept, whole partitions move."""
        if (self.count, self.hash_fn) == (new.count, new.hash_fn):
            pairs = Counter()
            counts = self.partition_counts(keys)
            for old, fresh, count in zip(self.owners, new.owners, counts, strict=True):
                pairs[(old, fresh)] += count
            return moves_from_pairs(pairs)
        return moves_from_pairs(
            counted_pairs(self.key_owners(keys), new.key_owners(keys))
        )

    def key_owners(self, keys: KeySet) -> list[str]:
        """The shard of every key, in key order."""
        slots = keys.slots() if self.hash_fn == "crc16" else None
        return self.shard_for_many(keys.hashes, slots)

    def describe(self) -> dict:
        """The placement as snapshot data: the table as runs of one owner."""
        runs = []
        for p, owner in enumerate(self.owners):
            if runs and runs[-1][2] == owner and runs[-1][1] == p:
                runs[-1][1] = p + 1
            else:
                runs.append([p, p + 1, owner])
        return {"count": self.count, "hash": self.hash_fn, "runs": runs}


def _unpacked_partitions(
    count: int, hash_fn: str, names: tuple[str, ...], width: str, packed: bytes
) -> PartitionPlacement:
    """The table `PartitionPlacement.__reduce__` packed."""
    places = array(width, zlib.decompress(packed))
    # a dict's __getitem__ is a fast call where a tuple's is not: 16,384 in 0.3 ms
    owners = list(map(dict(enumerate(names)).__getitem__, places))
    return PartitionPlacement(count, hash_fn, owners)


@lru_cache(maxsize=128)
def ring_tokens(
    shards: tuple[str, ...], vnodes: int
) -> tuple[tuple[int, ...], tuple[str, ...]]:
    """Every token of a ring, ascending, and the shard of each (ties by shard name).

    Made again whenever a ring is unpickled (a checkpoint holds only its shards and
    virtual nodes): 3,072 tokens in about 1.5 ms, or a cache hit.
    """
    names = sorted(shards)
    tokens = list(murmur_many([f"{s}#vnode{i}" for s in names for i in range(vnodes)]))
    # a stable sort of tokens listed by shard name breaks ties by shard name
    order = sorted(range(len(tokens)), key=tokens.__getitem__)
    return tuple(tokens[i] for i in order), tuple(names[i // vnodes] for i in order)


class RingPlacement:
    """A consistent-hash ring: each shard owns the arcs ending at its virtual nodes."""

    scheme = "ring"

    def __init__(self, shards: list[str], vnodes: int) -> None:
        self.shards = list(shards)
        self.vnodes = vnodes
        positions, owners = ring_tokens(tuple(self.shards), vnodes)
        self.positions = list(positions)
        self.owners = list(owners)

    def __reduce__(self):
        return (RingPlacement, (self.shards, self.vnodes))

    def token_for(self, key_hash: int) -> int:
        """Index of the first token at or after the hash, wrapping past the top."""
        i = bisect_left(self.positions, key_hash)
        return 0 if i == len(self.positions) else i

    def shard_for(self, key_hash: int, slot: int) -> str:
        """The shard holding a key with this hash."""
        return self.owners[self.token_for(key_hash)]

    def shard_for_many(
        self, hashes: Iterable[int], slots: Iterable[int] | None = None
    ) -> list[str]:
        """The shard of each key, given every key's hash."""
        return self._lookup.owners_of(hashes)

    @cached_property
    def _lookup(self) -> StepLookup:
        # a key belongs to the first token at or after its hash, wrapping to the first
        edges = [t + 1 for t in self.positions]
        return StepLookup(edges, [*self.owners, self.owners[0]])

    def owner_at(self, position: int) -> str:
        """The shard owning the hash value `position`."""
        return self.owners[self.token_for(position)]

    def arcs(self, boundaries: list[int], keys: KeySet):
        """(closing boundary, keys in the arc ending there) for each arc in turn."""
        ordered = keys.sorted_hashes
        below_first = bisect_right(ordered, boundaries[0])
        above_last = len(ordered) - bisect_right(ordered, boundaries[-1])
        yield boundaries[0], below_first + above_last
        for low, high in zip(boundaries, boundaries[1:], strict=False):
            yield high, bisect_right(ordered, high) - bisect_right(ordered, low)

    def tally(self, keys: KeySet) -> dict[str, int]:
        """Keys held by each shard."""
        totals = Counter({s: 0 for s in self.shards})
        for end, count in self.arcs(self.positions, keys):
            totals[self.owner_at(end)] += count
        return dict(totals)

    def moves_to(self, new: "RingPlacement", keys: KeySet) -> Moves:
        """Keys whose owner differs, counted arc by arc over both rings' tokens."""
        boundaries = sorted(set(self.positions) | set(new.positions))
        pairs = Counter()
        for end, count in self.arcs(boundaries, keys):
            pairs[(self.owner_at(end), new.owner_at(end))] += count
        return moves_from_pairs(pairs)

    def describe(self) -> dict:
        """The ring as snapshot data: every token and its shard."""
        return {
            "vnodes": self.vnodes,
            "tokens": [
                [t, s] for t, s in zip(self.positions, self.owners, strict=True)
            ],
        }
