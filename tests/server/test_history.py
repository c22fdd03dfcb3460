"""Time travel: seek shows the state after k actions; acting in the past forks."""

import contextlib
import json

import pytest
from channels.testing import WebsocketCommunicator
from hypothesis import given, settings
from hypothesis import strategies as st

from playground import history as history_module
from playground.asgi import application
from playground.history import History
from simulators.engine.declaration import ActionError
from simulators.labs import LABS

ORIGIN = [(b"origin", b"http://127.0.0.1")]

QUORUM_STEPS = [
    ("write", {"w": "ONE", "coordinator": "A"}),
    ("advance", {"ms": 20}),
    ("cut_link", {"link": "A-C"}),
    ("read", {"r": "ONE", "coordinator": "C"}),
    ("advance", {"ms": 300}),
    ("set_skew", {"node": "B", "skew_ms": 40}),
    ("write", {"w": "QUORUM", "coordinator": "B"}),
    ("advance", {"ms": 500}),
    ("heal_all", {}),
    ("advance", {"ms": 100}),
]


def digest_after(slug, steps, seed=3):
    lab = LABS[slug](seed=seed)
    for name, args in steps:
        lab.apply(name, args)
    return lab.digest()


def test_seeking_shows_exactly_the_state_after_k_actions(monkeypatch):
    monkeypatch.setattr(history_module, "CHECKPOINT_WORK", 0)  # one per action
    timeline = History(LABS["quorum"], 3)
    for name, args in QUORUM_STEPS:
        timeline.apply(name, args)
    for k in (0, 3, 7, 1, 10, 5, 10):
        events = timeline.apply("seek", {"to": k})
        assert events[0]["type"] == "seeked" and events[0]["to"] == k
        assert timeline.cursor == k
        assert timeline.lab.digest() == digest_after("quorum", QUORUM_STEPS[:k])


def test_seek_to_k_then_to_the_end_equals_never_seeking():
    timeline = History(LABS["hash-placement"], 1)
    steps = [("add_shard", {}), ("set_vnodes", {"vnodes": 40}), ("add_shard", {})]
    for name, args in steps:
        timeline.apply(name, args)
    end = timeline.lab.digest()
    timeline.apply("seek", {"to": 1})
    timeline.apply("seek", {"to": 3})
    assert timeline.lab.digest() == end == digest_after("hash-placement", steps, 1)


def test_acting_in_the_past_forks_and_keeps_the_old_branch():
    timeline = History(LABS["hash-placement"], 1)
    for _ in range(3):
        timeline.apply("add_shard", {})
    timeline.apply("seek", {"to": 1})
    events = timeline.apply("set_vnodes", {"vnodes": 64})
    assert events[0] == {
        "type": "forked",
        "fork": 1,
        "at": 1,
        "left_behind": 2,
        "at_moment": 1,
        "moments_left_behind": 2,
    }
    assert (timeline.cursor, timeline.length) == (2, 2)
    assert timeline.as_dict()["forks"] == [
        {"id": 1, "at": 1, "length": 3, "at_moment": 1, "moments": 3}
    ]
    assert [e.name for e in timeline.forks[0]["actions"]] == ["add_shard"] * 3
    expected = [("add_shard", {}), ("set_vnodes", {"vnodes": 64})]
    assert timeline.lab.digest() == digest_after("hash-placement", expected, 1)


def test_a_refused_action_in_the_past_forks_nothing():
    timeline = History(LABS["hash-placement"], 1)
    timeline.apply("add_shard", {})
    timeline.apply("seek", {"to": 0})
    with pytest.raises(ActionError):
        timeline.apply("set_vnodes", {"vnodes": -1})
    assert (timeline.cursor, timeline.length, timeline.forks) == (0, 1, [])


@pytest.mark.parametrize(
    "args, code",
    [
        ({"to": 4}, "out_of_range"),
        ({"to": -1}, "out_of_range"),
        ({"to": 10**12}, "out_of_range"),
        ({"to": 1.5}, "bad_type"),
        ({"to": True}, "bad_type"),
        ({"to": "1"}, "bad_type"),
        ({}, "bad_args"),
        ({"to": 1, "x": 2}, "bad_args"),
        ([1], "bad_args"),
    ],
)
def test_a_bad_seek_is_refused_and_changes_nothing(args, code):
    timeline = History(LABS["hash-placement"], 1)
    for _ in range(3):
        timeline.apply("add_shard", {})
    before = timeline.lab.digest()
    with pytest.raises(ActionError) as caught:
        timeline.apply("seek", args)
    assert caught.value.code == code
    assert (timeline.cursor, timeline.lab.digest()) == (3, before)


steps = st.lists(
    st.one_of(
        st.tuples(st.just("add_shard"), st.just({})),
        st.tuples(
            st.just("set_vnodes"), st.fixed_dictionaries({"vnodes": st.integers(1, 9)})
        ),
        st.tuples(st.just("seek"), st.fixed_dictionaries({"to": st.integers(0, 12)})),
    ),
    max_size=12,
)


@settings(max_examples=40, deadline=None)
@given(steps)
def test_the_state_is_always_the_replay_of_the_branch_up_to_the_cursor(script):
    history_module.CHECKPOINT_WORK, saved = 0, history_module.CHECKPOINT_WORK
    try:
        timeline = History(LABS["hash-placement"], 2)
        for name, args in script:
            with contextlib.suppress(ActionError):
                timeline.apply(name, args)
            assert timeline.lab.digest() == timeline.replay().digest()
    finally:
        history_module.CHECKPOINT_WORK = saved


async def test_seek_over_the_socket_and_a_seek_past_the_end():
    communicator = WebsocketCommunicator(
        application, "/ws/labs/hash-placement/", headers=ORIGIN
    )
    await communicator.connect()

    async def next_of(kind):
        while True:
            message = json.loads(await communicator.receive_from(timeout=5))
            if message["type"] == kind:
                return message

    hello = await next_of("hello")
    assert hello["timeline"] == {
        "cursor": 0,
        "length": 0,
        "moments": [],
        "moments_skipped": 0,
        "moments_total": 0,
        "forks": [],
    }
    for ref in ("a", "b"):
        await communicator.send_json_to(
            {"type": "action", "ref": ref, "action": "add_shard", "args": {}}
        )
        await next_of("frame")
    await communicator.send_json_to(
        {"type": "action", "ref": "s", "action": "seek", "args": {"to": 1}}
    )
    frame = await next_of("frame")
    assert frame["timeline"]["cursor"] == 1
    assert frame["timeline"]["length"] == 2
    assert frame["digest"] == digest_after("hash-placement", [("add_shard", {})], 0)
    await communicator.send_json_to(
        {"type": "action", "ref": "x", "action": "seek", "args": {"to": 3}}
    )
    error = await next_of("error")
    assert (error["code"], error["ref"]) == ("out_of_range", "x")
    assert "0 to 2" in error["message"]
    await communicator.disconnect()


def test_an_action_declares_the_checkpoint_pickled_after_it():
    # replication's log: a checkpoint pickles every record it holds, and the action
    # after which one is taken declares it; a replay's declared work counts them too
    lab_class = LABS["replication"]
    timeline = History(lab_class, 1)
    burst = ("burst", {"count": 2_000})
    for _ in range(5):
        timeline.apply(*burst)
    charge = timeline._charge(*burst)
    timeline.costs.scale = timeline._scales[timeline.cursor]
    assert charge >= history_module.CHECKPOINT_WORK  # one is due after it
    declared = timeline.cost_of(*burst)
    assert declared == charge + timeline.costs.checkpoint()
    assert timeline.costs.checkpoint() > 2 * 12_000  # 12,000 records after it
    small = ("set_acks", {"acks": "majority"})
    assert timeline.cost_of(*small) == timeline._charge(*small)  # none due
    steps = [burst] * 6
    charges = History(lab_class, 1)
    total = charges.costs.start()
    for step in steps:
        total += charges.cost_of(*step)
        charges.apply(*step)
    assert history_module.declared_work(lab_class, steps) == total
