"""Checkpoints refer to shared parts by key; parts live while checkpoints need them."""

import pickle

from playground.checkpoints import Parts, closure, key_of, part_key, pickle_part
from playground.history import History
from simulators.engine.ledger import BLOCK, Ledger
from simulators.labs import LABS


class Holder:
    """A stand-in lab: a ledger and a little state of its own."""

    def __init__(self, count: int) -> None:
        self.ledger = Ledger()
        for item in range(count):
            self.ledger.append(("item", item))
        self.ledger.settle(count)
        self.note = "own state"


def test_a_checkpoint_holds_references_not_the_settled_items():
    small, large = Holder(BLOCK * 2), Holder(BLOCK * BLOCK * 3)
    small_data, _ = Parts().dumps(small)
    large_data, keys = Parts().dumps(large)
    assert len(large_data) < len(small_data) + 200
    assert len(pickle.dumps(large)) > 50 * len(large_data)
    assert len(keys) == 3  # three blocks of the second level, referred to by key


def test_a_restored_lab_shares_the_parts_and_reads_like_the_original():
    parts = Parts()
    lab = Holder(BLOCK * 5 + 7)
    data, keys = parts.dumps(lab)
    restored = parts.loads(data)
    assert list(restored.ledger) == list(lab.ledger)
    assert restored.ledger._levels[0][0] is lab.ledger._levels[0][0]
    assert restored.note == lab.note


def test_parts_are_counted_and_released_with_the_last_checkpoint_that_needs_them():
    parts = Parts()
    lab = Holder(BLOCK * 2)
    _, first = parts.dumps(lab)
    _, second = parts.dumps(lab)
    assert first == second and all(parts.counts[k] == 2 for k in first)
    parts.release(first)
    assert all(k in parts.objects for k in first)
    parts.release(second)
    assert not parts.objects and not parts.counts


def test_a_part_key_is_the_digest_of_its_own_pickle_and_nested_parts_are_keys():
    lab = Holder(BLOCK * BLOCK)
    top = lab.ledger._levels[1][0]
    data, inner = pickle_part(top)
    assert key_of(top) == part_key(data)
    assert len(inner) == BLOCK  # the blocks below, as references
    stored = closure([top], lambda key: False)
    assert len(stored) == BLOCK + 1
    # from the stored pickles alone, a fresh Parts rebuilds the same items
    parts = Parts()
    parts.stored = stored
    assert list(parts.part(key_of(top)).items[3].items) == [
        ("item", i) for i in range(3 * BLOCK, 4 * BLOCK)
    ]
    # what the room already stored is not stored again
    assert closure([top], lambda key: True) == {}


def test_a_history_copy_shares_settled_blocks_and_goes_its_own_way():
    timeline = History(LABS["quorum"], 3)
    steps = [
        ("write", {"w": "ONE", "coordinator": "A"}),
        ("read", {"r": "ONE", "coordinator": "C"}),
        ("advance", {"ms": 500}),
    ]
    for _ in range(100):
        for name, args in steps:
            timeline.apply(name, args)
    twin = timeline.copy()
    assert twin.lab.digest() == timeline.lab.digest()
    assert twin.lab.cluster.ops._levels[0][0] is timeline.lab.cluster.ops._levels[0][0]
    twin.apply("read", {"r": "ALL", "coordinator": "B"})
    assert twin.lab.digest() != timeline.lab.digest()
    again = History(LABS["quorum"], 3)
    for _ in range(100):
        for name, args in steps:
            again.apply(name, args)
    assert again.lab.digest() == timeline.lab.digest()  # the original is unchanged
