"""The timeline in moments: what a person did, with the clock's ticks that follow it."""

import contextlib
import dataclasses
import json
import pickle

from channels.testing import WebsocketCommunicator
from hypothesis import given, settings
from hypothesis import strategies as st

from playground import history as history_module
from playground.asgi import application
from playground.history import MOMENTS_SENT, History
from playground.links import make_link, read_link, replay_link
from simulators.engine.declaration import ActionError
from simulators.labs import LABS

ORIGIN = [(b"origin", b"http://127.0.0.1")]
TICK = ("advance", {"ms": 5})


def ticks(count):
    return [TICK] * count


# write, its deliveries; cut A-B, a few ticks; a read and its reply
WRITE_CUT_READ = [
    ("write", {"w": "ONE", "coordinator": "A"}),
    *ticks(30),
    ("cut_link", {"link": "A-B"}),
    *ticks(4),
    ("read", {"r": "ONE", "coordinator": "A"}),
    *ticks(30),
]
WRITE, CUT, READ = 0, 31, 36
END = len(WRITE_CUT_READ)


def quorum(steps, seed=3):
    timeline = History(LABS["quorum"], seed)
    for name, args in steps:
        timeline.apply(name, args)
    return timeline


def scanned(timeline):
    """The moments of the branch, found the slow way."""
    starts = timeline.lab_class.starts_moment
    return [i for i, e in enumerate(timeline.actions) if starts(e.name)]


def test_a_moment_starts_at_each_persons_action_and_not_at_a_tick():
    timeline = quorum(WRITE_CUT_READ)
    assert timeline.as_dict() == {
        "cursor": END,
        "length": END,
        "moments": [WRITE, CUT, READ],
        "moments_skipped": 0,
        "moments_total": 3,
        "forks": [],
    }


def test_a_step_is_a_moment_and_play_pause_and_speed_are_not():
    timeline = quorum(
        [
            ("pause", {}),
            ("write", {"w": "ONE", "coordinator": "A"}),
            ("set_speed", {"speed": 100}),
            ("step", {}),
            ("step", {}),
            ("play", {}),
            *ticks(3),
        ]
    )
    assert timeline.moments == [1, 3, 4]


def test_which_actions_start_a_moment_is_the_labs_declaration():
    """`ActionSpec.moment`, not a list of names: a lab whose healing were a setting."""
    quorum_lab = LABS["quorum"]
    heal = dataclasses.replace(quorum_lab.action_spec("heal_all"), moment=False)

    class QuietHealing(quorum_lab):
        actions = tuple(heal if a.name == "heal_all" else a for a in quorum_lab.actions)

    timeline = History(QuietHealing, 3)
    for name, args in [WRITE_CUT_READ[0], ("heal_all", {}), TICK, WRITE_CUT_READ[36]]:
        timeline.apply(name, args)
    assert timeline.moments == [0, 3]
    assert quorum([("heal_all", {})]).moments == [0]  # the lab itself: a moment


def test_every_action_of_a_lab_without_a_clock_is_a_moment():
    timeline = History(LABS["hash-placement"], 1)
    for _ in range(3):
        timeline.apply("add_shard", {})
    assert timeline.as_dict()["moments"] == [0, 1, 2]


def test_seeking_moves_the_cursor_not_the_moments():
    timeline = quorum(WRITE_CUT_READ)
    for to in (READ, 0, CUT + 2, END):
        timeline.apply("seek", {"to": to})
        assert timeline.as_dict()["moments"] == [WRITE, CUT, READ]


def test_acting_in_the_past_drops_the_moments_after_the_cursor():
    timeline = quorum(WRITE_CUT_READ)
    timeline.apply("seek", {"to": READ})  # just before the read
    timeline.apply("write", {"w": "ALL", "coordinator": "C"})
    assert timeline.moments == [WRITE, CUT, READ]  # the write where the read was
    assert timeline.length == READ + 1
    timeline.apply("seek", {"to": CUT + 2})  # between the cut's ticks
    timeline.apply("advance", {"ms": 7})  # even a tick forks: it is not a moment
    assert timeline.moments == [WRITE, CUT] == scanned(timeline)
    assert [f["at"] for f in timeline.forks] == [READ, CUT + 2]


def test_a_copy_keeps_its_own_moments():
    timeline = quorum(WRITE_CUT_READ)
    twin = timeline.copy()
    twin.apply("seek", {"to": CUT})
    twin.apply("heal_all", {})
    assert twin.moments == [WRITE, CUT]
    assert timeline.moments == [WRITE, CUT, READ]
    timeline.apply("read", {"r": "ALL", "coordinator": "B"})
    assert twin.moments == [WRITE, CUT]


def test_a_pickled_history_keeps_its_moments_and_goes_on_keeping_them():
    """The replay worker hands histories back pickled."""
    timeline = quorum(WRITE_CUT_READ)
    back = pickle.loads(pickle.dumps(timeline, protocol=5))
    assert back.as_dict() == timeline.as_dict()
    back.apply("seek", {"to": READ})
    back.apply("heal_all", {})
    assert back.moments == [WRITE, CUT, READ] == scanned(back)


script = st.lists(
    st.one_of(
        st.tuples(
            st.just("advance"), st.fixed_dictionaries({"ms": st.integers(1, 30)})
        ),
        st.tuples(
            st.just("write"),
            st.fixed_dictionaries({"w": st.just("ONE"), "coordinator": st.just("A")}),
        ),
        st.tuples(
            st.just("read"),
            st.fixed_dictionaries({"r": st.just("ALL"), "coordinator": st.just("B")}),
        ),
        st.tuples(st.sampled_from(["pause", "play", "step", "heal_all"]), st.just({})),
        st.tuples(st.just("seek"), st.fixed_dictionaries({"to": st.integers(0, 25)})),
    ),
    max_size=25,
)


@settings(max_examples=60, deadline=None)
@given(script)
def test_the_moments_kept_as_actions_come_are_those_of_the_branch(steps):
    history_module.CHECKPOINT_WORK, saved = 0, history_module.CHECKPOINT_WORK
    try:
        timeline = History(LABS["quorum"], 2)
        for name, args in steps:
            with contextlib.suppress(ActionError):
                timeline.apply(name, args)
            assert timeline.moments == scanned(timeline), steps
        copied = pickle.loads(pickle.dumps(timeline.copy()))
        assert copied.as_dict() == timeline.as_dict()
    finally:
        history_module.CHECKPOINT_WORK = saved


def test_a_long_ticking_history_sends_a_bounded_list_around_the_cursor():
    steps = []
    for _ in range(1_000):
        steps += [("read", {"r": "ONE", "coordinator": "A"}), *ticks(9)]
    timeline = quorum(steps)
    shown = timeline.as_dict()
    assert (shown["length"], shown["moments_total"]) == (10_000, 1_000)
    # at the end: the last ones
    assert shown["moments"] == list(range(8_000, 10_000, 10))
    assert shown["moments_skipped"] == 800
    assert len(json.dumps(shown)) < 2_000
    # in the middle: as many before the cursor as after it
    timeline.apply("seek", {"to": 5_003})  # within the moment that starts at 5,000
    shown = timeline.as_dict()
    assert len(shown["moments"]) == MOMENTS_SENT
    assert shown["moments_skipped"] == 501 - MOMENTS_SENT // 2
    before = [at for at in shown["moments"] if at < 5_003]
    assert len(before) == MOMENTS_SENT // 2 and before[-1] == 5_000
    # near the start: the first ones
    timeline.apply("seek", {"to": 3})
    shown = timeline.as_dict()
    assert (shown["moments_skipped"], shown["moments"][0]) == (0, 0)
    assert len(shown["moments"]) == MOMENTS_SENT


def test_a_link_taken_just_before_the_read_opens_just_before_the_read():
    """Links merge ticks; the room they open has the same moments, in the same place."""
    timeline = quorum(WRITE_CUT_READ)
    timeline.apply("seek", {"to": READ})
    link = make_link("quorum", 3, timeline.actions, timeline.cursor)
    slug, seed, steps, cursor = read_link(link)
    _, opened = replay_link(slug, seed, steps, cursor)
    assert opened.length < timeline.length  # the ticks were merged
    shown = opened.as_dict()
    assert shown["moments_total"] == 3
    assert shown["cursor"] == shown["moments"][2]  # just before the read
    assert opened.lab.digest() == timeline.lab.digest()


async def test_hello_and_every_frame_carry_the_moments():
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
    assert hello["timeline"]["moments"] == []
    assert hello["timeline"]["moments_total"] == 0
    for ref in ("a", "b"):
        await communicator.send_json_to(
            {"type": "action", "ref": ref, "action": "add_shard", "args": {}}
        )
        frame = await next_of("frame")
    assert frame["timeline"]["moments"] == [0, 1]
    await communicator.disconnect()


async def test_a_class_started_mid_story_shows_its_students_the_same_moments():
    async def connect(query):
        communicator = WebsocketCommunicator(
            application, f"/ws/labs/quorum/?{query}", headers=ORIGIN
        )
        await communicator.connect()
        return communicator

    async def next_of(communicator, kind):
        while True:
            message = json.loads(await communicator.receive_from(timeout=5))
            if message["type"] == kind:
                return message

    teacher = await connect("seed=3")
    await next_of(teacher, "hello")
    for action, args in [("pause", {}), *WRITE_CUT_READ[:8]]:
        await teacher.send_json_to({"type": "action", "action": action, "args": args})
        frame = await next_of(teacher, "frame")
    assert frame["timeline"]["moments"] == [1]  # the write; not the pause, nor ticks
    await teacher.send_json_to({"type": "start_class", "ref": "s"})
    started = await next_of(teacher, "class_started")
    ana = await connect(f"room={started['room']}&name=Ana")
    hello = await next_of(ana, "hello")
    assert hello["timeline"] == frame["timeline"]
    await teacher.disconnect()
    await ana.disconnect()


def test_a_fork_counts_what_it_leaves_in_moments_not_ticks():
    timeline = History(LABS["quorum"], 2)
    timeline.apply("write", {"w": "ALL", "coordinator": "A"})
    for _ in range(30):
        timeline.apply("advance", {"ms": 5})  # the clock's ticks: no moments
    timeline.apply("read", {"r": "ALL", "coordinator": "B"})
    for _ in range(30):
        timeline.apply("advance", {"ms": 5})
    timeline.apply("seek", {"to": 31})  # just before the read
    events = timeline.apply("heal_all", {})
    forked = events[0]
    assert (forked["left_behind"], forked["moments_left_behind"]) == (31, 1)
    assert forked["at_moment"] == 1
    (fork,) = timeline.as_dict()["forks"]
    assert (fork["length"], fork["moments"], fork["at_moment"]) == (62, 2, 1)
