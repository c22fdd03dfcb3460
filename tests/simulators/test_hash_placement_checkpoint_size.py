"""A hash-placement checkpoint is a few KB, whatever the keys and the past (issue 11).

The key set is a shared part (a checkpoint refers to it by key), the ring pickles as
its shards and virtual nodes, the partition table compressed; a lab restored from a
checkpoint goes on exactly as one replayed from scratch, and the lab it was taken
from is left as it was.
"""

import pickle
import random

import pytest

from playground.checkpoints import Parts, closure, key_of, pickle_part
from simulators.engine.declaration import ActionError
from simulators.labs.hash_placement.keyset import KeySet
from simulators.labs.hash_placement.placements import (
    ModPlacement,
    PartitionPlacement,
    RingPlacement,
)

BOUND = 4 * 1024  # bytes; default options take about 0.7 to 1.4 KB


def seeded_actions(rng: random.Random):
    """An endless stream of actions, as benchmarks/seek.py's script() draws them."""
    while True:
        yield rng.choice(
            [
                ("lookup", {"key": f"N{rng.randint(10000, 99999)}"}),
                ("add_shard", {}),
                ("remove_shard", {"shard": rng.choice("ABCDEFGHIJKL")}),
                ("set_vnodes", {"vnodes": rng.randint(1, 256)}),
                ("mark_hot", {"key": "N12345", "share_percent": rng.randint(1, 99)}),
            ]
        )


def apply_some(lab, stream, count: int) -> list[tuple[str, dict]]:
    """Apply the next `count` actions the lab accepts; return them."""
    applied = []
    while len(applied) < count:
        name, args = next(stream)
        try:
            lab.apply(name, args)
        except ActionError:
            continue
        applied.append((name, args))
    return applied


def checkpoint_size(lab) -> int:
    return len(Parts().dumps(lab)[0])


def test_a_checkpoint_is_a_few_kb_however_many_actions_came_before(new_lab):
    lab = new_lab(11)  # default options: 10,000 keys, 4 shards, 1,024 partitions
    stream = seeded_actions(random.Random(11))
    apply_some(lab, stream, 50)
    after_50 = checkpoint_size(lab)
    apply_some(lab, stream, 450)
    after_500 = checkpoint_size(lab)
    assert after_50 < BOUND
    assert after_500 < BOUND
    assert abs(after_500 - after_50) < 1024


def test_the_key_set_is_the_one_part_a_checkpoint_refers_to(new_lab):
    lab = new_lab(3, key_count=100_000)
    data, keys = Parts().dumps(lab)
    assert keys == (key_of(lab.keys),)
    assert len(data) < BOUND  # 400 KB of hashes are not in it


@pytest.mark.parametrize("partitions", [1024, 16384])
def test_a_restored_lab_goes_on_as_one_replayed_from_scratch(new_lab, partitions):
    options = {"key_count": 2_000, "partitions": partitions}
    stream = seeded_actions(random.Random(partitions))
    lab = new_lab(5, **options)
    before = apply_some(lab, stream, 40)
    lab.metrics()  # fills the tallies and the key set's caches before the checkpoint
    parts = Parts()
    data, _ = parts.dumps(lab)
    digest = lab.digest()

    restored = parts.loads(data)
    assert restored.keys is lab.keys  # the part is shared, not copied
    after = apply_some(restored, stream, 40)

    replayed = new_lab(5, **options)
    for name, args in before + after:
        replayed.apply(name, args)
    assert restored.digest() == replayed.digest()
    assert lab.digest() == digest  # the shared key set was not changed
    assert parts.loads(data).digest() == digest


def test_a_lab_restored_from_stored_parts_is_the_same_lab(new_lab):
    lab = new_lab(8, key_count=3_000, key_kind="booking")
    apply_some(lab, seeded_actions(random.Random(8)), 30)
    parts = Parts()
    data, keys = parts.dumps(lab)
    # another process: the parts come as their pickles, as a room's store holds them
    elsewhere = Parts()
    elsewhere.stored = closure([parts.objects[k] for k in keys], lambda key: False)
    elsewhere.hold(keys)
    restored = elsewhere.loads(data)
    assert restored.keys is not lab.keys
    assert restored.keys.part_key == lab.keys.part_key
    assert restored.digest() == lab.digest()
    assert restored.keys.sorted_hashes == lab.keys.sorted_hashes


def test_a_key_set_pickles_the_same_whatever_its_caches_and_key(new_lab):
    keys = new_lab(4, key_count=2_000).keys
    fresh = pickle_part(keys)[0]
    keys.slots(), keys.slot_counts(), keys.range_counts(16), key_of(keys)
    assert pickle_part(keys)[0] == fresh
    assert b"part_key" not in fresh
    copy = pickle.loads(fresh)
    assert copy.part_key is None
    assert isinstance(copy, KeySet)
    assert (copy.kind, copy.count, copy.hashes) == (keys.kind, keys.count, keys.hashes)
    assert copy.slot_counts() == keys.slot_counts()


@pytest.mark.parametrize(
    "placement",
    [
        ModPlacement(list("ABCDEFGHIJKL")),
        RingPlacement(list("ABCDEFGHIJKL"), 256),
        PartitionPlacement.dealt(16384, "crc16", list("ABCDEFGHIJKL")),
        PartitionPlacement(3, "murmur3", [f"shard{i}" for i in (0, 299, 7)]),
        PartitionPlacement.dealt(1024, "murmur3", [f"s{i}" for i in range(300)]),
    ],
    ids=["mod", "ring", "slots", "three", "300-owners"],
)
def test_placements_pickle_small_and_come_back_the_same(placement):
    placement.shard_for_many([1, 2**31, 2**32 - 1], [0, 1, 2])  # fills _lookup
    data = pickle.dumps(placement, protocol=5)
    copy = pickle.loads(data)
    assert type(copy) is type(placement)
    assert copy.describe() == placement.describe()
    assert vars(copy).keys() <= vars(placement).keys() - {"_lookup"}
    if len(placement.describe().get("runs", ())) < 20:
        assert len(data) < 300
