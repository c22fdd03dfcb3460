"""hash-placement at a million keys: lookups against bare hashing and a peer; moves.

The floor is bare MurmurHash3 of every key (the faster of a Python loop and a map); a
lookup is hashing the keys with our own `murmur_many` and finding each key's shard
with `shard_for_many`, so its ratio to the floor is everything our placement adds. The
peer is uhashring, a maintained consistent-hashing package, asked for the same keys on
a ring of the same shards and virtual nodes.
"""

from binascii import crc_hqx
from itertools import repeat

import mmh3
from uhashring import HashRing

from benchmarks.timing import Row, against_floor, median, medians, time_once
from simulators.airline import Airline
from simulators.labs.hash_placement.hashing import (
    REDIS_SLOTS,
    murmur,
    murmur_many,
    redis_slots,
)
from simulators.labs.hash_placement.keyset import KeySet
from simulators.labs.hash_placement.lab import HashPlacementLab
from simulators.labs.hash_placement.placements import (
    ModPlacement,
    PartitionPlacement,
    RingPlacement,
)

SHARDS = ["A", "B", "C", "D"]
LOOKUP_TARGET = 2.0  # × the floor
PEER_TARGET = 1.0  # × the peer
REBALANCE_TARGET_S = 2.0


def bare_hashes(keys: list[str]) -> list[int]:
    """A floor: MurmurHash3 (x86, 32-bit, seed 0, unsigned) of every key, in a loop."""
    hash_ = mmh3.hash
    return [hash_(key, 0, False) for key in keys]


def bare_hashes_mapped(keys: list[str]) -> list[int]:
    """The same floor with the loop in C (map): usually the faster of the two."""
    return list(map(mmh3.hash, keys, repeat(0), repeat(False)))


def bare_crc16(keys: list[str]) -> list[int]:
    """The floor for Redis slots: CRC16 (XMODEM) of every key's UTF-8 bytes."""
    crc = crc_hqx
    return [crc(key.encode("utf-8"), 0) for key in keys]


def lookup_rows(keys: list[str], repeat: int) -> list[Row | str]:
    """Finding the shard of every key: floor, our three schemes, and the peer."""
    mod = ModPlacement(SHARDS)
    partitions = PartitionPlacement.dealt(1024, "murmur3", SHARDS)
    slots = PartitionPlacement.dealt(REDIS_SLOTS, "crc16", SHARDS)
    ring16, ring256 = RingPlacement(SHARDS, 16), RingPlacement(SHARDS, 256)
    _check_batches_agree(keys[:20_000], mod, partitions, slots, ring16, ring256)
    peer_md5 = HashRing(nodes=SHARDS, vnodes=16)
    peer16 = HashRing(nodes=SHARDS, vnodes=16, hash_fn=_peer_murmur)
    peer256 = HashRing(nodes=SHARDS, vnodes=256, hash_fn=_peer_murmur)
    floors = {
        "floor loop": lambda: bare_hashes(keys),
        "floor map": lambda: bare_hashes_mapped(keys),
    }
    cases = {
        "murmur_many": lambda: list(murmur_many(keys)),
        "crc16 floor": lambda: bare_crc16(keys),
        "mod": lambda: mod.shard_for_many(murmur_many(keys)),
        "partitions": lambda: partitions.shard_for_many(murmur_many(keys)),
        "slots": lambda: slots.shard_for_many((), redis_slots(keys)),
        "ring16": lambda: ring16.shard_for_many(murmur_many(keys)),
        "ring256": lambda: ring256.shard_for_many(murmur_many(keys)),
        "ring16 one by one": lambda: [ring16.shard_for(murmur(k), 0) for k in keys],
        "peer md5": lambda: list(map(peer_md5.get_node, keys)),
        "peer16": lambda: list(map(peer16.get_node, keys)),
        "peer256": lambda: list(map(peer256.get_node, keys)),
    }
    t, to_floor = against_floor(floors, cases, repeat)
    crc16_floor = {"crc16 floor": cases["crc16 floor"]}
    _, to_crc16 = against_floor(crc16_floor, {"slots": cases["slots"]}, repeat)
    n = len(keys)

    def row(what, case, target=None, ratio=None, versus="floor"):
        ratio = to_floor.get(case, 1.0) if ratio is None else ratio
        passed = None if target is None else ratio <= target
        goal = "" if target is None else f"≤ {target:g}× {versus}"
        return Row(what, t[case], n, f"{ratio:.2f}× {versus}", goal, passed)

    def versus_peer(what, ours, peer):
        ratio = t[ours].cpu / t[peer].cpu
        return row(what, ours, PEER_TARGET, ratio, "peer")

    floor = min(t["floor loop"].cpu, t["floor map"].cpu)
    return [
        f"Lookups of {n:,} keys (4 shards): hash the key, find its shard",
        row(
            "floor: bare mmh3.hash of every key, Python loop",
            "floor loop",
            ratio=t["floor loop"].cpu / floor,
        ),
        row(
            "floor: bare mmh3.hash of every key, map",
            "floor map",
            ratio=t["floor map"].cpu / floor,
        ),
        row("murmur_many: the floor + lone-surrogate guard", "murmur_many"),
        row("floor for slots: bare CRC16 of every key", "crc16 floor"),
        row("mod N lookup", "mod"),
        row("partition lookup (1,024 murmur3 partitions)", "partitions", LOOKUP_TARGET),
        row("Redis slot lookup (16,384 CRC16 slots)", "slots"),
        row(
            "Redis slot lookup against its own floor",
            "slots",
            LOOKUP_TARGET,
            to_crc16["slots"],
            "CRC16 floor",
        ),
        row("ring lookup (16 vnodes)", "ring16", LOOKUP_TARGET),
        row("ring lookup (256 vnodes)", "ring256", LOOKUP_TARGET),
        row("ring lookup one key at a time (16 vnodes)", "ring16 one by one"),
        row("peer: uhashring get_node (md5, 16 vnodes)", "peer md5"),
        row("peer: uhashring get_node (mmh3, 16 vnodes)", "peer16"),
        row("peer: uhashring get_node (mmh3, 256 vnodes)", "peer256"),
        versus_peer("ours vs peer: ring (16) / uhashring md5", "ring16", "peer md5"),
        versus_peer("ours vs peer: ring (16) / uhashring mmh3", "ring16", "peer16"),
        versus_peer("ours vs peer: ring (256) / uhashring mmh3", "ring256", "peer256"),
    ]


def placing_rows(count: int, repeat: int) -> list[Row | str]:
    """Placing every key under each scheme: build the KeySet, then count per shard."""
    airline = Airline(1)
    schemes = {
        "mod N": ModPlacement(SHARDS),
        "1,024 partitions": PartitionPlacement.dealt(1024, "murmur3", SHARDS),
        "16,384 Redis slots (CRC16 of every key too)": PartitionPlacement.dealt(
            REDIS_SLOTS, "crc16", SHARDS
        ),
        "ring, 16 vnodes": RingPlacement(SHARDS, 16),
    }

    def place(placement):
        return lambda: placement.tally(KeySet(airline, "registration", count))

    cases = {"keyset": lambda: KeySet(airline, "registration", count)}
    cases.update({name: place(p) for name, p in schemes.items()})
    t = medians(cases, repeat)
    rows: list[Row | str] = [
        f"Placing {count:,} keys (4 shards)",
        Row("KeySet: generate, hash and sort the keys", t["keyset"], count),
    ]
    for name in schemes:
        rows.append(Row(f"place under {name}", t[name], count))
    return rows


def rebalance_rows(count: int, repeat: int) -> list[Row | str]:
    """A fifth shard added to a lab of `count` keys, with the metrics recomputed."""
    rows: list[Row | str] = [f"Rebalancing {count:,} keys: add a fifth shard"]
    for partitions, label in [(1024, "1,024 partitions"), (REDIS_SLOTS, "Redis slots")]:
        times = []
        for _ in range(repeat):
            lab = HashPlacementLab(seed=1, key_count=count, partitions=partitions)
            lab.metrics()  # the opening snapshot: keys already placed, as in the app

            def add_shard(lab=lab):
                lab.apply("add_shard", {})
                return lab.metrics()

            times.append(time_once(add_shard))
        timing = median(times)
        rows.append(
            Row(
                f"add_shard + metrics, all three schemes ({label})",
                timing,
                count,
                target=f"< {REBALANCE_TARGET_S:g} s wall",
                passed=timing.wall < REBALANCE_TARGET_S,
            )
        )
    return rows


def _peer_murmur(key: str) -> int:
    return mmh3.hash(key, 0, False)


def _check_batches_agree(keys, *placements) -> None:
    """The batch lookups give what one-key lookups give (and warm their tables)."""
    hashes = bare_hashes(keys)
    slots = redis_slots(keys)
    for placement in placements:
        one_by_one = [
            placement.shard_for(h, s) for h, s in zip(hashes, slots, strict=True)
        ]
        if placement.shard_for_many(hashes, slots) != one_by_one:
            raise AssertionError(f"batch lookup disagrees in {placement.scheme}")
