"""Properties of partition-cap over random seeds and random action sequences.

Hypothesis prints the falsifying seed and actions, which replay the same run.
"""

import contextlib

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from simulators.engine import ActionError
from simulators.labs.partition_cap import PartitionCapLab

PROPERTY = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
SERVERS = "ABCDE"
LINKS = [f"{a}-{b}" for i, a in enumerate(SERVERS) for b in SERVERS[i + 1 :]]


def _action(name, **args):
    return name, args


server = st.sampled_from(SERVERS)
mode = st.sampled_from(("majority", "anyway"))
actions = st.one_of(
    st.builds(
        lambda s, p, m: _action("book", server=s, passenger=p, mode=m),
        server,
        st.sampled_from(["P0000001", "P0000002", "P0000003"]),
        mode,
    ),
    st.builds(lambda s, m: _action("board", node=s, mode=m), server, mode),
    st.builds(
        lambda g: _action("split", group=",".join(g)),
        st.lists(server, min_size=1, max_size=3, unique=True),
    ),
    st.builds(lambda lk: _action("cut_link", link=lk), st.sampled_from(LINKS)),
    st.builds(lambda lk: _action("heal_link", link=lk), st.sampled_from(LINKS)),
    st.just(("heal_all", {})),
    st.builds(lambda s: _action("stop_node", node=s), server),
    st.builds(lambda s: _action("restart_node", node=s), server),
    st.builds(
        lambda s, ms: _action("set_skew", node=s, skew_ms=ms),
        server,
        st.integers(-2000, 2000),
    ),
    st.builds(
        lambda r: _action("set_conflict_rule", rule=r),
        st.sampled_from(("lww", "app", "siblings")),
    ),
    st.builds(lambda ms: _action("advance", ms=ms), st.integers(1, 900)),
    st.just(("step", {})),
)
runs = st.fixed_dictionaries(
    {
        "seed": st.integers(0, 2**53 - 1),
        "servers": st.sampled_from((3, 4, 5)),
        "rule": st.sampled_from(("lww", "app", "siblings")),
        "actions": st.lists(actions, max_size=30),
    }
)


def play(run, lab=None):
    """Apply every action; refused ones are skipped. Returns (lab, every event)."""
    lab = lab or PartitionCapLab(seed=run["seed"], servers=run["servers"])
    if run["rule"] != lab.rule:
        lab.apply("set_conflict_rule", {"rule": run["rule"]})
    events = []
    for name, args in run["actions"]:
        with contextlib.suppress(ActionError):
            events.extend(lab.apply(name, args))
    return lab, events


def settle(lab, events):
    for _ in range(500):
        if lab.next_due_ms() is None:
            return
        events.extend(lab.apply("advance", {"ms": 1000}))
    raise AssertionError("the lab never went quiet")


@PROPERTY
@given(runs)
def test_same_seed_same_actions_same_digest(run):
    first, first_events = play(run)
    second, second_events = play(run)
    assert first.digest() == second.digest()
    assert first_events == second_events


@PROPERTY
@given(runs)
def test_messages_on_a_cut_link_never_arrive(run):
    lab, events = play(run)
    events.extend(lab.apply("heal_all", {}))
    settle(lab, events)
    up = {link: True for link in lab.network.links}
    doomed: dict[int, bool] = {}
    route: dict[int, str] = {}
    for event in events:
        kind = event["type"]
        if kind == "reset":
            up = {link: True for link in lab.network.links}
            doomed, route = {}, {}
        elif kind == "link_cut":
            up[event["link"]] = False
            for mid, link in route.items():
                if link == event["link"]:
                    doomed[mid] = True
        elif kind == "link_healed":
            up[event["link"]] = True
        elif kind == "message_sent":
            a, b = sorted((event["from"], event["to"]))
            route[event["id"]] = f"{a}-{b}"
            if not up[route[event["id"]]]:
                doomed[event["id"]] = True
        elif kind == "message_delivered":
            assert not doomed.get(event["id"]), event


@PROPERTY
@given(runs)
def test_after_heal_all_and_enough_time_every_copy_is_equal(run):
    lab, events = play(run)
    for node in lab.servers:
        lab.apply("restart_node", {"node": node})
    lab.apply("heal_all", {})
    settle(lab, events)
    assert lab.converged(), lab.snapshot()["copies"]
    assert lab.snapshot()["converged"]
    assert all(lock is None for lock in lab.locks.values()), lab.locks
    # every booking a client was told about is on every copy, or listed as vanished
    held = lab.bookings_held()
    vanished = {v["booking"] for v in lab.vanished}
    for op in lab.ops:
        if op["result"] == "booked":
            assert (op["booking"]["id"] in held) != (op["booking"]["id"] in vanished)
    for booking in held.values():
        assert booking["copies"] == lab.servers


@PROPERTY
@given(runs)
def test_refused_bookings_leave_no_trace_and_majority_alone_never_conflicts(run):
    majority_only = {
        **run,
        "actions": [
            (name, {**args, "mode": "majority"}) if name == "book" else (name, args)
            for name, args in run["actions"]
        ],
    }
    lab, events = play(majority_only)
    lab.apply("heal_all", {})
    for node in lab.servers:
        lab.apply("restart_node", {"node": node})
    settle(lab, events)
    assert lab.metrics()["conflicts"] == 0
    assert lab.metrics()["vanished"] == 0
    booked = [op["booking"]["id"] for op in lab.ops if op["result"] == "booked"]
    assert sorted(lab.bookings_held()) == sorted(booked)
    assert len(booked) <= 1


SCRIPT = """
import json, sys
from simulators.labs.partition_cap import PartitionCapLab
lab = PartitionCapLab(seed=7)
for name, args in json.loads(sys.argv[1]):
    lab.apply(name, args)
print(lab.digest())
"""
STORY = [
    ("set_skew", {"node": "C", "skew_ms": -300}),
    ("split", {"group": "C"}),
    ("book", {"server": "A", "passenger": "P0000001", "mode": "anyway"}),
    ("advance", {"ms": 120}),
    ("book", {"server": "C", "passenger": "P0000002", "mode": "anyway"}),
    ("book", {"server": "C", "passenger": "P0000003", "mode": "majority"}),
    ("advance", {"ms": 900}),
    ("heal_all", {}),
    ("advance", {"ms": 900}),
]


def test_the_same_story_gives_the_same_digest_in_another_process(another_process):
    import json

    elsewhere = another_process.submit(SCRIPT, json.dumps(STORY))
    lab = PartitionCapLab(seed=7)
    for name, args in STORY:
        lab.apply(name, args)
    done = elsewhere()
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == lab.digest()
