"""The ledger: an append-only record whose settled blocks checkpoints share."""

import pickle

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simulators.engine.canonical import Chain
from simulators.engine.ledger import BLOCK, Block, Ledger


def filled(count: int, settled: int) -> Ledger:
    ledger = Ledger()
    for item in range(count):
        ledger.append(item)
    ledger.settle(settled)
    return ledger


@settings(max_examples=60, deadline=None)
@given(
    st.integers(0, BLOCK**2 * 2 + 100),
    st.floats(0, 1),
    st.lists(st.integers(-(10**6), 10**6), max_size=20),
)
def test_it_reads_like_the_list_it_was_given(count, fraction, probes):
    settled = int(count * fraction)
    ledger = filled(count, settled)
    items = list(range(count))
    assert len(ledger) == count
    assert ledger.settled == settled
    assert list(ledger) == items
    for probe in probes:
        if -count <= probe < count:
            assert ledger[probe] == items[probe]
        else:
            with pytest.raises(IndexError):
                ledger[probe]
    assert ledger[-40:] == items[-40:]
    assert ledger.last(40) == items[-40:]
    assert ledger[settled:] == items[settled:]
    assert ledger.bisect(count // 2, key=lambda x: x) == count // 2


def test_settled_items_are_sealed_into_nested_blocks_and_the_rest_stay_open():
    ledger = filled(BLOCK**2 + 3 * BLOCK + 5, BLOCK**2 + 3 * BLOCK + 1)
    top = list(ledger._blocks())
    assert [block.level for block in top] == [1, 0, 0, 0]
    assert len(ledger._tail) == 5  # one settled item waits for its block to fill
    assert all(isinstance(block.items, tuple) for block in top)


def test_a_ledger_cannot_settle_more_than_it_holds():
    ledger = filled(3, 0)
    with pytest.raises(ValueError):
        ledger.settle(4)


def test_blocks_pickle_as_their_items_and_level_without_a_key():
    block = Block((1, 2, 3), 0)
    block.part_key = b"k" * 16
    copy = pickle.loads(pickle.dumps(block))
    assert (copy.items, copy.level, copy.part_key) == ((1, 2, 3), 0, None)


def test_a_chain_depends_on_every_value_and_their_order():
    one, two, three = Chain(), Chain(), Chain()
    for chain, values in ((one, [1, 2]), (two, [1, 2]), (three, [2, 1])):
        for value in values:
            chain.add({"v": value})
    assert one.hex == two.hex != three.hex
    assert one.count == 2
    assert pickle.loads(pickle.dumps(one)).hex == one.hex
