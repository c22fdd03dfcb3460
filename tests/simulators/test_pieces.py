"""Loops in C done in pieces (simulators/engine/pieces.py) give what one call gives.

Each helper is checked against the single call it replaces, on sizes around the piece
(none, one, one short of a piece, a piece, one over, several and a remainder), with
repeated values, and for `counted` the keys in the same order too (a Counter lists
what it saw first, first).
"""

import random
from array import array
from collections import Counter

import pytest

from simulators.engine.pieces import (
    PIECE,
    SORT_AT_ONCE,
    array_of,
    counted,
    counted_pairs,
    emptied,
    mapped,
    sorted_ints,
)

SIZES = (0, 1, PIECE - 1, PIECE, PIECE + 1, 3 * PIECE + 17)


def numbers(size: int, seed: int = 1, top: int = 2**32) -> list[int]:
    draw = random.Random(seed).randrange
    values = [draw(top) for _ in range(size)]
    return values + values[: size // 3]  # some twice


@pytest.mark.parametrize("size", SIZES)
def test_mapped_is_list_of_map(size):
    values = numbers(size)
    assert mapped(str, values) == list(map(str, values))
    assert mapped(str, iter(values)) == list(map(str, values))
    assert mapped((7).__rmod__, array("I", values)) == [v % 7 for v in values]


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("typecode", ["I", "q"])
def test_array_of_is_the_array(size, typecode):
    values = numbers(size)
    assert array_of(typecode, values) == array(typecode, values)
    assert array_of(typecode, iter(values)) == array(typecode, values)
    assert array_of(typecode, (v for v in values)).typecode == typecode


@pytest.mark.parametrize("size", SIZES)
def test_counted_is_the_counter_keys_in_the_same_order(size):
    values = numbers(size)
    for key in (None, (12).__rmod__, (5).__rmod__):
        expected = Counter(values if key is None else map(key, values))
        got = counted(values, key)
        assert got == expected
        assert list(got.items()) == list(expected.items())
        assert list(counted(array("I", values), key).items()) == list(expected.items())


@pytest.mark.parametrize("size", SIZES)
def test_counted_pairs_is_the_counter_of_zip(size):
    values = numbers(size)
    others = random.Random(2).choices(range(5), k=len(values))
    expected = Counter(
        zip(map((4).__rmod__, values), map((5).__rmod__, values), strict=True)
    )
    got = counted_pairs(values, values, (4).__rmod__, (5).__rmod__)
    assert list(got.items()) == list(expected.items())
    plain = Counter(zip(values, others, strict=True))
    assert list(counted_pairs(values, others).items()) == list(plain.items())


def test_counted_pairs_refuses_sequences_of_different_lengths():
    with pytest.raises(ValueError):
        counted_pairs([1, 2, 3], [1, 2])


@pytest.mark.parametrize(
    "size", [*SIZES, SORT_AT_ONCE, SORT_AT_ONCE + 1, 100_003, 2 * SORT_AT_ONCE + 5]
)
def test_sorted_ints_is_sorted(size):
    values = numbers(size, seed=size)
    assert sorted_ints(values) == sorted(values)
    assert sorted_ints(array("I", values)) == sorted(values)
    assert sorted_ints(iter(values)) == sorted(values)


def test_sorted_ints_sorts_bunched_values_and_any_width():
    bunched = [5, 3, 2**32 - 1, *range(7, 7 + SORT_AT_ONCE * 2, 3)][::-1]
    assert sorted_ints(bunched) == sorted(bunched)
    small = numbers(SORT_AT_ONCE + 99, top=2**16)
    assert sorted_ints(small, bits=16) == sorted(small)
    assert sorted_ints([0] * (SORT_AT_ONCE + 1)) == [0] * (SORT_AT_ONCE + 1)


@pytest.mark.parametrize("bad", [-1, 2**32])
def test_sorted_ints_refuses_a_value_out_of_range(bad):
    values = [*numbers(SORT_AT_ONCE + 1), bad]
    with pytest.raises(ValueError):
        sorted_ints(values)


@pytest.mark.parametrize("size", SIZES)
def test_emptied_empties_the_list(size):
    values = numbers(size)
    emptied(values)
    assert values == []
