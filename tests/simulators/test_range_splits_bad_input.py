"""range-splits' bad input: each refused with a code, the digest left as it was."""

import pytest

from simulators.engine import ActionError
from simulators.labs import LABS

W = {"kind": "uniform", "count": 100, "rate": 100}
REFUSED = [
    ("set_thresholds", {"max_keys": 0, "max_writes": 2_500}, "out_of_range"),
    ("set_thresholds", {"max_keys": 10**12, "max_writes": 2_500}, "out_of_range"),
    ("set_thresholds", {"max_keys": 1_000, "max_writes": 0}, "out_of_range"),
    ("set_thresholds", {"max_keys": 1_000, "max_writes": 10**9}, "out_of_range"),
    ("set_thresholds", {"max_keys": "1000", "max_writes": 2_500}, "bad_type"),
    ("move_slice", {"policy": "size", "slice": 0, "shard": "Z"}, "no_shard"),
    ("move_slice", {"policy": "size", "slice": 77, "shard": "B"}, "no_slice"),
    ("move_slice", {"policy": "both", "slice": 0, "shard": "B"}, "bad_choice"),
    ("split_now", {"policy": "size", "slice": 99}, "no_slice"),
    ("split_now", {"policy": "size", "slice": -1}, "out_of_range"),
    ("range_query", {"low": "N12399", "high": "N12300"}, "reversed_range"),
    ("range_query", {"low": "", "high": "N12300"}, "empty"),
    ("range_query", {"low": "N1", "high": "N" * 33}, "too_long"),
    ("write", {**W, "rate": 20_001}, "out_of_range"),
    ("write", {**W, "rate": 0}, "out_of_range"),
    ("write", {**W, "rate": -5}, "out_of_range"),
    ("write", {**W, "count": 0}, "out_of_range"),
    ("write", {**W, "count": 60_001}, "out_of_range"),
    ("write", {**W, "kind": "random"}, "bad_choice"),
    ("write", {"kind": "uniform", "count": 100}, "missing_argument"),
    ("add_shard", {"shard": "E"}, "unknown_argument"),
]


def fresh(seed=1, **options):
    lab = LABS["range-splits"](seed=seed, **options)
    lab.apply("write", {"kind": "skewed", "count": 3_000, "rate": 1_000})
    return lab


@pytest.mark.parametrize(("action", "args", "code"), REFUSED)
def test_bad_input_is_refused_and_changes_nothing(action, args, code):
    lab = fresh()
    before = lab.digest()
    with pytest.raises(ActionError) as error:
        lab.apply(action, args)
    assert error.value.code == code
    assert error.value.message
    assert lab.digest() == before


@pytest.mark.parametrize(
    "options",
    [{"shards": 0}, {"shards": 9}, {"max_keys": 0}, {"max_writes": 10**9}],
)
def test_bad_options_are_refused(options):
    with pytest.raises(ActionError) as error:
        LABS["range-splits"](seed=1, **options)
    assert error.value.code == "out_of_range"


def test_the_ninth_shard_the_last_writes_and_a_single_key_are_refused_whole():
    lab = LABS["range-splits"](seed=1, shards=8)
    before = lab.digest()
    with pytest.raises(ActionError) as error:
        lab.apply("add_shard", {})
    assert error.value.code == "too_many_shards"
    assert lab.digest() == before
    for _ in range(2):
        lab.apply("write", {"kind": "timestamps", "count": 60_000, "rate": 20_000})
    before = lab.digest()
    with pytest.raises(ActionError) as error:
        lab.apply("write", {"kind": "uniform", "count": 1, "rate": 1})
    assert error.value.code == "too_many_writes"
    assert "120,000" in error.value.message
    assert lab.digest() == before
    one = LABS["range-splits"](seed=1)
    one.apply("write", {"kind": "uniform", "count": 1, "rate": 1})
    before = one.digest()
    with pytest.raises(ActionError) as error:
        one.apply("split_now", {"policy": "size", "slice": 0})
    assert error.value.code == "cannot_split"
    assert one.digest() == before
