"""Bad input at the simulator: each refused with a code, the digest left as it was."""

import pytest

from simulators.engine import ActionError

REFUSED = [
    ("set_shards", {"count": 0}, "out_of_range"),
    ("set_shards", {"count": 13}, "out_of_range"),
    ("set_shards", {"count": 1_000_000_000}, "out_of_range"),
    ("set_shards", {"count": -4}, "out_of_range"),
    ("set_shards", {"count": "4"}, "bad_type"),
    ("set_shards", {"count": True}, "bad_type"),
    ("set_shards", {"count": 4.0}, "bad_type"),
    ("set_shards", {"count": None}, "bad_type"),
    ("set_shards", {}, "missing_argument"),
    ("set_shards", {"count": 5, "shards": 5}, "unknown_argument"),
    ("set_shards", [5], "bad_args"),
    ("set_shards", None, "bad_args"),
    ("set_shards", "count=5", "bad_args"),
    ("set_vnodes", {"vnodes": -1}, "out_of_range"),
    ("set_vnodes", {"vnodes": 0}, "out_of_range"),
    ("set_vnodes", {"vnodes": 257}, "out_of_range"),
    ("set_vnodes", {"vnodes": False}, "bad_type"),
    ("set_partitions", {"partitions": "1024"}, "bad_choice"),
    ("set_partitions", {"partitions": 1000}, "bad_choice"),
    ("set_partitions", {"partitions": 1024.0}, "bad_choice"),
    ("load_keys", {"kind": "registration", "count": 10**12}, "out_of_range"),
    ("load_keys", {"kind": "registration", "count": 0}, "out_of_range"),
    ("load_keys", {"kind": "registration", "count": 1_000_001}, "out_of_range"),
    ("load_keys", {"kind": "aircraft", "count": 10}, "bad_choice"),
    ("load_keys", {"kind": "registration"}, "missing_argument"),
    ("remove_shard", {"shard": "Z"}, "no_such_shard"),
    ("remove_shard", {"shard": "a"}, "no_such_shard"),
    ("remove_shard", {"shard": "ABC"}, "too_long"),
    ("remove_shard", {"shard": ""}, "empty"),
    ("remove_shard", {"shard": 1}, "bad_type"),
    ("remove_shard", {}, "missing_argument"),
    ("add_shard", {"shard": "E"}, "unknown_argument"),
    ("add_shard", [], "bad_args"),
    ("lookup", {"key": ""}, "empty"),
    ("lookup", {"key": "   "}, "empty"),
    ("lookup", {"key": "N" * 65}, "too_long"),
    ("lookup", {"key": 12345}, "bad_type"),
    ("lookup", {"key": "\ud800"}, "bad_text"),
    ("mark_hot", {"key": "N12345", "share_percent": 0}, "out_of_range"),
    ("mark_hot", {"key": "N12345", "share_percent": 100}, "out_of_range"),
    ("mark_hot", {"key": "N12345", "share_percent": "50"}, "bad_type"),
    ("mark_hot", {"key": "N1\udfff", "share_percent": 50}, "bad_text"),
    ("mark_hot", {"key": "N12345"}, "missing_argument"),
    ("clear_hot", {"now": True}, "unknown_argument"),
    ("fly", {}, "unknown_action"),
    ("", {}, "unknown_action"),
    (None, {}, "unknown_action"),
    ("do_add_shard", {}, "unknown_action"),
]


@pytest.fixture(scope="module")
def lab(new_lab):
    """One lab shared by every refusal: none of them may change it."""
    lab = new_lab(2, key_count=20_000, partitions=16384)
    lab.apply("add_shard", {})
    lab.apply("mark_hot", {"key": "N12345", "share_percent": 30})
    return lab


@pytest.mark.parametrize(("name", "args", "code"), REFUSED)
def test_a_bad_action_is_refused_with_a_reason_and_changes_nothing(
    lab, name, args, code
):
    before = lab.digest()
    with pytest.raises(ActionError) as caught:
        lab.apply(name, args)
    error = caught.value
    assert error.code == code
    assert error.message and error.message[0].isalpha()
    assert lab.digest() == before


def test_the_last_shard_cannot_be_removed(new_lab):
    lab = new_lab(1, key_count=1000, shards=1)
    before = lab.digest()
    with pytest.raises(ActionError) as caught:
        lab.apply("remove_shard", {"shard": "A"})
    assert (caught.value.code, caught.value.field) == ("last_shard", "shard")
    assert lab.digest() == before


def test_no_shard_can_be_added_past_twelve(new_lab):
    lab = new_lab(1, key_count=1000, shards=11)
    lab.apply("add_shard", {})
    before = lab.digest()
    with pytest.raises(ActionError) as caught:
        lab.apply("add_shard", {})
    assert caught.value.code == "too_many_shards"
    assert lab.digest() == before
    assert lab.snapshot()["shards"] == list("ABCDEFGHIJKL")


def test_a_refused_action_leaves_the_lab_working(new_lab, check_invariants):
    lab = new_lab(1, key_count=5000)
    for name, args, _ in REFUSED:
        with pytest.raises(ActionError):
            lab.apply(name, args)
    lab.apply("add_shard", {})
    lab.apply("remove_shard", {"shard": "B"})
    check_invariants(lab)
