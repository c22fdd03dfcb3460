"""Snapshot deltas: patching the old snapshot gives the new one, exactly."""

import copy
import json

from hypothesis import given, settings
from hypothesis import strategies as st

from playground.delta import diff, frame_body, patch
from simulators.labs import LABS

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | st.text(max_size=3),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.sampled_from("abcd"), inner, max_size=4)
    ),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(json_values, json_values)
def test_patching_the_old_value_gives_the_new_one(old, new):
    operations = diff(old, new)
    result = patch(copy.deepcopy(old), json.loads(json.dumps(operations)))
    assert json.dumps(result, sort_keys=True) == json.dumps(new, sort_keys=True)


def test_equal_values_need_no_operations_and_types_are_kept():
    assert diff({"a": [1, 2]}, {"a": [1, 2]}) == []
    assert diff({"a": 1}, {"a": True}) == [["s", ["a"], True]]
    assert diff({"a": 1, "b": 2}, {"a": 1}) == [["d", ["b"]]]


def _body(lab, action, args):
    before = lab.snapshot()
    lab.apply(action, args)
    after = lab.snapshot()
    text = json.dumps(after, separators=(",", ":"))
    return before, after, text, frame_body(before, after, text)


def test_a_small_change_sends_a_patch_much_smaller_than_its_snapshot():
    lab = LABS["quorum"](seed=1)
    lab.apply("write", {"w": "default", "coordinator": "auto"})
    lab.apply("advance", {"ms": 2_000})
    # a link cut: one flag in a snapshot of about 2 KB
    before, after, text, body = _body(lab, "cut_link", {"link": "A-B"})
    assert len(json.dumps(body["patch"])) < 0.1 * len(text)
    assert patch(copy.deepcopy(before), body["patch"]) == after
    before, after, text, body = _body(lab, "advance", {"ms": 5})
    assert len(json.dumps(body["patch"])) < 0.1 * len(text)
    assert patch(copy.deepcopy(before), body["patch"]) == after
    # a write changes about half of it (messages in flight, the history and the
    # checker's diagram, whose lists grow and are sent whole): whichever form the frame
    # takes, it gives the snapshot after
    before, after, text, body = _body(
        lab, "write", {"w": "default", "coordinator": "auto"}
    )
    given = body.get("snapshot") or patch(copy.deepcopy(before), body["patch"])
    assert given == after


def test_a_change_to_most_of_the_snapshot_sends_it_whole():
    lab = LABS["hash-placement"](seed=1)
    _, after, _, body = _body(lab, "add_shard", {})  # mod N moves 4 keys in 5
    assert body == {"snapshot": after}
    before, after, _, body = _body(lab, "mark_hot", {"key": "N1", "share_percent": 9})
    assert patch(copy.deepcopy(before), body["patch"]) == after


def test_the_first_frame_and_large_changes_carry_the_whole_snapshot():
    assert frame_body(None, {"a": 1}, '{"a":1}') == {"snapshot": {"a": 1}}
    old, new = {"a": list(range(50))}, {"a": list(range(60))}
    text = json.dumps(new)
    assert frame_body(old, new, text) == {"snapshot": new}
