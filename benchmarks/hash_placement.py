"""hash-placement at a million keys: lookups against bare hashing and peers; moves.

The floor is bare MurmurHash3 of every key (the faster of a Python loop and a map); a
lookup is hashing the keys with our own `murmur_many` and finding each key's shard
with `shard_for_many`, so its ratio to the floor is everything our placement adds.

The ring is then set against peers that answer the same question, batch with batch
and one key at a time with one key at a time:

- a plain `bisect` over the sorted token list (owners listed once more at the end, for
  the wrap past the top token): a list comprehension over all the hashes for a batch;
  one key at a time, `owners[bisect_left(tokens, mmh3.hash(key, 0, False))]` inlined
  in the caller's loop (no call per key but `mmh3.hash` and `bisect_left`
  themselves). It is the floor any ring lookup in Python should be compared with;
- numpy's `searchsorted` over the tokens as an array, for a batch (when numpy is
  installed: the `bench` extra brings it), the hashes read into an array and the
  owners taken back out as the same list of names;
- uhashring, a maintained consistent-hashing package, one `get_node` call per key (it
  has no batch call) on a ring of the same shards and virtual nodes, given `mmh3.hash`
  itself as its hash (or its default md5).

Every ratio with a target is the median of interleaved pairs (`timing.paired`: both
sides warmed, the order alternating A-B-B-A), printed with its spread; the plain
bisect and numpy peers are checked to give exactly our owners before anything is
timed.
"""

from binascii import crc_hqx
from bisect import bisect_left
from itertools import repeat

import mmh3
from uhashring import HashRing

from benchmarks.timing import (
    MIN_PAIRS,
    Paired,
    Recorded,
    Row,
    machine_load,
    median,
    medians,
    paired,
    time_once,
)
from simulators.airline import Airline
from simulators.engine.hashing import murmur, murmur_many
from simulators.labs.hash_placement.hashing import REDIS_SLOTS, redis_slots
from simulators.labs.hash_placement.keyset import KeySet
from simulators.labs.hash_placement.lab import HashPlacementLab
from simulators.labs.hash_placement.placements import (
    ModPlacement,
    PartitionPlacement,
    RingPlacement,
)

try:
    import numpy
except ImportError:  # the bench extra installs it; without it the row says so
    numpy = None

SHARDS = ["A", "B", "C", "D"]
LOOKUP_TARGET = 2.0  # × the floor
# A batch lookup must not be slower than a plain batch bisect (the bucket table is
# why it exists), nor slower than numpy's searchsorted by more than this factor.
BISECT_BATCH_TARGET = 1.0
NUMPY_TARGET = 1.2
# One key at a time, ours (hash with the lone-surrogate guard, then the placement's
# scheme-generic `shard_for`) may cost up to twice a bare bisect inlined in the loop,
# and must beat uhashring's `get_node`.
BISECT_ONE_TARGET = 2.0
PEER_TARGET = 1.0  # × uhashring
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


def bisect_table(ring: RingPlacement) -> tuple[list[int], list[str]]:
    """A ring's tokens, ascending, and their owners with the first listed again at the
    end: `owners[bisect_left(tokens, h)]` is the shard of hash `h`, past the top too."""
    return list(ring.positions), [*ring.owners, ring.owners[0]]


def bisect_batch(keys: list[str], tokens: list[int], owners: list[str]) -> list[str]:
    """The plain batch bisect: every key's mmh3 hash (in C), then its token."""
    hashes = map(mmh3.hash, keys, repeat(0), repeat(False))
    return [owners[bisect_left(tokens, h)] for h in hashes]


def bisect_each(keys: list[str], tokens: list[int], owners: list[str]) -> list[str]:
    """The plain lookup one key at a time, inlined in the caller's loop: no call per
    key but `mmh3.hash` and `bisect_left` themselves (names bound locally)."""
    hash_, find = mmh3.hash, bisect_left
    return [owners[find(tokens, hash_(key, 0, False))] for key in keys]


def numpy_table(ring: RingPlacement):
    """`bisect_table` as numpy arrays: tokens as uint32, owners as the same names."""
    tokens, owners = bisect_table(ring)
    return numpy.array(tokens, dtype=numpy.uint32), numpy.array(owners, dtype=object)


def numpy_batch(keys: list[str], tokens, owners) -> list[str]:
    """The batch lookup with numpy: hashes into an array, `searchsorted`, owners out
    again as a list of names (what `shard_for_many` returns)."""
    hashes = numpy.fromiter(
        map(mmh3.hash, keys, repeat(0), repeat(False)), numpy.uint32, len(keys)
    )
    return owners.take(numpy.searchsorted(tokens, hashes)).tolist()


def lookup_rows(keys: list[str], repeat: int) -> list[Row | str]:
    """Finding the shard of every key: against the floor, then against peers."""
    return [*floor_rows(keys, repeat), *peer_rows(keys, repeat)]


def floor_rows(keys: list[str], repeat: int) -> list[Row | str]:
    """Our three schemes' batch lookups against bare hashing, paired."""
    mod = ModPlacement(SHARDS)
    partitions = PartitionPlacement.dealt(1024, "murmur3", SHARDS)
    slots = PartitionPlacement.dealt(REDIS_SLOTS, "crc16", SHARDS)
    ring16, ring256 = RingPlacement(SHARDS, 16), RingPlacement(SHARDS, 256)
    _check_batches_agree(keys[:20_000], mod, partitions, slots, ring16, ring256)
    n, pairs, runs = len(keys), max(repeat, MIN_PAIRS), Recorded()
    floor = runs.fastest(
        runs.cpu("floor loop", lambda: bare_hashes(keys)),
        runs.cpu("floor map", lambda: bare_hashes_mapped(keys)),
    )
    crc16_floor = runs.cpu("crc16 floor", lambda: bare_crc16(keys))
    cases = {
        "murmur_many": (lambda: list(murmur_many(keys)), floor),
        "mod": (lambda: mod.shard_for_many(murmur_many(keys)), floor),
        "partitions": (lambda: partitions.shard_for_many(murmur_many(keys)), floor),
        "slots": (lambda: slots.shard_for_many((), redis_slots(keys)), crc16_floor),
        "ring16": (lambda: ring16.shard_for_many(murmur_many(keys)), floor),
        "ring256": (lambda: ring256.shard_for_many(murmur_many(keys)), floor),
    }
    ratio = {
        name: paired(runs.cpu(name, work), peer, pairs)
        for name, (work, peer) in cases.items()
    }

    def row(what, name, versus="floor", target=None):
        return _row(what, runs.timing(name), n, ratio.get(name), versus, target)

    return [
        f"Lookups of {n:,} keys (4 shards): hash the key, find its shard "
        f"({machine_load()})",
        row("floor: bare mmh3.hash of every key, Python loop", "floor loop"),
        row("floor: bare mmh3.hash of every key, map", "floor map"),
        row("murmur_many: the floor + lone-surrogate guard", "murmur_many"),
        row("floor for slots: bare CRC16 of every key", "crc16 floor"),
        row("mod N lookup", "mod"),
        row(
            "partition lookup (1,024 murmur3 partitions)",
            "partitions",
            "floor",
            LOOKUP_TARGET,
        ),
        row(
            "Redis slot lookup (16,384 CRC16 slots)",
            "slots",
            "CRC16 floor",
            LOOKUP_TARGET,
        ),
        row("ring lookup (16 vnodes)", "ring16", "floor", LOOKUP_TARGET),
        row("ring lookup (256 vnodes)", "ring256", "floor", LOOKUP_TARGET),
    ]


def peer_rows(keys: list[str], repeat: int) -> list[Row | str]:
    """The ring against a plain bisect, numpy and uhashring: batch against batch, one
    key at a time against one key at a time; every ratio the median of pairs."""
    ring16 = RingPlacement(SHARDS, 16)
    tokens, owners = bisect_table(ring16)
    arrays = None if numpy is None else numpy_table(ring16)
    _check_peers_agree(keys[:20_000], ring16, arrays)
    # One key at a time on rings that never made their batch table, as the lab's
    # rings (it calls only `shard_for` on them): in CPython 3.11 the table, cached in
    # the instance's __dict__, makes every later attribute read on it slower.
    single16, single256 = RingPlacement(SHARDS, 16), RingPlacement(SHARDS, 256)
    uhash_md5 = HashRing(nodes=SHARDS, vnodes=16)
    # mmh3.hash itself as the hash (signed, its default: a ring only orders hashes)
    uhash16 = HashRing(nodes=SHARDS, vnodes=16, hash_fn=mmh3.hash)
    uhash256 = HashRing(nodes=SHARDS, vnodes=256, hash_fn=mmh3.hash)
    n, pairs, runs = len(keys), max(repeat, MIN_PAIRS), Recorded()
    batch = runs.cpu("ours batch", lambda: ring16.shard_for_many(murmur_many(keys)))
    one = runs.cpu("ours one", lambda: [single16.shard_for(murmur(k), 0) for k in keys])
    one256 = runs.cpu(
        "ours one 256", lambda: [single256.shard_for(murmur(k), 0) for k in keys]
    )
    peers = {
        "bisect batch": (batch, lambda: bisect_batch(keys, tokens, owners)),
        "bisect one": (one, lambda: bisect_each(keys, tokens, owners)),
        "uhashring": (one, lambda: _get_nodes(uhash16, keys)),
        "uhashring md5": (one, lambda: _get_nodes(uhash_md5, keys)),
        "uhashring 256": (one256, lambda: _get_nodes(uhash256, keys)),
    }
    if arrays is not None:
        peers["numpy"] = (batch, lambda: numpy_batch(keys, *arrays))
    ratio = {
        name: paired(ours, runs.cpu(name, work), pairs)
        for name, (ours, work) in peers.items()
    }

    def peer(what, name):
        return Row(what, runs.timing(name), n)

    def ours(what, name, peer_name, versus, target, strict=False):
        timing = runs.timing(name)
        return _row(what, timing, n, ratio[peer_name], versus, target, strict)

    rows: list[Row | str] = [
        f"Ring lookups of {n:,} keys against peers, 16 vnodes ({machine_load()})",
        peer("peer: plain bisect, batch (one list comprehension)", "bisect batch"),
    ]
    if arrays is None:
        rows.append("(numpy is not installed: `pip install -e .[bench]` brings it)")
    else:
        rows.append(peer("peer: numpy searchsorted, batch", "numpy"))
    rows.append(
        ours(
            "ours: ring batch (shard_for_many) / plain bisect batch",
            "ours batch",
            "bisect batch",
            "bisect",
            BISECT_BATCH_TARGET,
        )
    )
    if arrays is not None:
        rows.append(
            ours(
                "ours: ring batch / numpy searchsorted batch",
                "ours batch",
                "numpy",
                "numpy",
                NUMPY_TARGET,
            )
        )
    rows += [
        peer(
            "peer: plain bisect, one key at a time (inlined in the loop)", "bisect one"
        ),
        peer("peer: uhashring get_node (mmh3)", "uhashring"),
        peer("peer: uhashring get_node (md5, its default hash)", "uhashring md5"),
        peer("peer: uhashring get_node (mmh3, 256 vnodes)", "uhashring 256"),
        ours(
            "ours: one key at a time (shard_for(murmur(key))) / plain bisect",
            "ours one",
            "bisect one",
            "bisect",
            BISECT_ONE_TARGET,
        ),
        ours(
            "ours: one key at a time / uhashring get_node (mmh3)",
            "ours one",
            "uhashring",
            "uhashring",
            PEER_TARGET,
            strict=True,
        ),
        ours(
            "ours: one key at a time / uhashring get_node (md5)",
            "ours one",
            "uhashring md5",
            "uhashring",
            PEER_TARGET,
            strict=True,
        ),
        ours(
            "ours: one key at a time (256 vnodes) / uhashring (mmh3, 256)",
            "ours one 256",
            "uhashring 256",
            "uhashring",
            PEER_TARGET,
            strict=True,
        ),
    ]
    return rows


def _row(what, timing, n, ratio: Paired | None, versus, target=None, strict=False):
    """A row whose ratio is a paired median, printed with its spread; with a target,
    the median must be at most it (below it when `strict`)."""
    if ratio is None:
        return Row(what, timing, n)
    cell = f"{ratio.text()} {versus}"
    if target is None:
        return Row(what, timing, n, cell)
    passed = ratio.median < target if strict else ratio.median <= target
    goal = f"{'<' if strict else '≤'} {target:g}× {versus}"
    return Row(what, timing, n, cell, goal, passed)


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


def _get_nodes(ring: HashRing, keys: list[str]) -> list[str]:
    """uhashring one key at a time, its method bound once, as a caller's loop would."""
    get_node = ring.get_node
    return [get_node(key) for key in keys]


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


def _check_peers_agree(keys, ring: RingPlacement, arrays) -> None:
    """The plain bisect and numpy peers place every key where our ring does."""
    ours = ring.shard_for_many(murmur_many(keys))
    tokens, owners = bisect_table(ring)
    answers = {
        "plain bisect, batch": bisect_batch(keys, tokens, owners),
        "plain bisect, one key at a time": bisect_each(keys, tokens, owners),
    }
    if arrays is not None:
        answers["numpy"] = numpy_batch(keys, *arrays)
    for name, answer in answers.items():
        if answer != ours:
            raise AssertionError(f"the {name} peer disagrees with our ring")


def rows(repeat: int, keys: int) -> list[Row | str]:
    """hash-placement's rows of `make bench` (benchmarks/__main__.py finds them by the
    lab's slug): lookups, placing and rebalancing, on `keys` keys."""
    found = Airline(1).keys("registration", keys)
    return [
        *lookup_rows(found, repeat),
        *placing_rows(keys, repeat),
        *rebalance_rows(keys, repeat),
    ]


def browser_rows(repeat: int) -> list:
    """Its rows measured in Chromium: the dots moving (benchmarks/browser_fps.py)."""
    from benchmarks.browser_fps import browser_rows as dots

    return dots(repeat)


def main(argv: list[str] | None = None) -> int:
    """`python -m benchmarks.hash_placement`: the lookup rows alone."""
    import argparse

    from benchmarks.timing import render

    parser = argparse.ArgumentParser(prog="python -m benchmarks.hash_placement")
    parser.add_argument("--keys", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=MIN_PAIRS)
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args(argv)
    keys = Airline(1).keys("registration", args.keys)
    rows = lookup_rows(keys, args.repeat)
    print(render(rows, markdown=args.markdown))
    return 1 if any(not isinstance(r, str) and r.passed is False for r in rows) else 0


if __name__ == "__main__":
    raise SystemExit(main())
