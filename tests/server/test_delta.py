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


def _whole_then_measured(old, new, text):
    """What `frame_body` sends, worked out the long way: the whole diff, measured."""
    operations = diff(old, new)
    if not operations:
        return {"patch": []}
    size = len(json.dumps(operations, separators=(",", ":")))
    return {"patch": operations} if size <= 0.5 * len(text) else {"snapshot": new}


@settings(max_examples=300, deadline=None)
@given(json_values, json_values)
def test_a_frame_is_what_the_whole_diff_measured_would_make(old, new):
    old, new = {"v": old}, {"v": new}
    text = json.dumps(new, separators=(",", ":"))
    assert frame_body(old, new, text) == _whole_then_measured(old, new, text)


def test_a_patch_too_long_to_send_is_not_worked_out_to_its_end(monkeypatch):
    """After a seek far away most of a snapshot changes (cache-stampede's charts:
    2,700 operations, a patch six times the snapshot's size, worked out and thrown
    away in 5-9 ms per frame at 10,000-50,000 actions): the diff stops once the patch
    could no longer be sent."""
    from playground import delta

    old = {"lanes": [[i, i] for i in range(2_000)]}
    new = {"lanes": [[i + 1, i + 2] for i in range(2_000)]}
    text = json.dumps(new, separators=(",", ":"))
    calls = []
    whole = delta.diff

    def counted(*args, **kwargs):
        calls.append(1)
        return whole(*args, **kwargs)

    monkeypatch.setattr(delta, "diff", counted)
    operations = delta.diff(old, new)  # the whole patch: 4,000 operations
    assert len(json.dumps(operations)) > 4 * len(text)
    to_the_end, calls[:] = len(calls), []
    assert frame_body(old, new, text) == {"snapshot": new}
    # it could take half the snapshot's characters: a ninth of the whole patch
    assert len(calls) < to_the_end / 4, (len(calls), to_the_end)
