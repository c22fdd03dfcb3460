"""Links: a history turned into text and back gives the same state, in any process."""

import base64
import json
import random
import zlib

import pytest
from channels.testing import WebsocketCommunicator
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from random_actions import random_args

from playground.asgi import application
from playground.history import History, replayed
from playground.links import (
    MAX_ACTIONS,
    SHORT_LINK_CHARS,
    LinkError,
    check_cost,
    link_cost,
    make_link,
    read_link,
    replay_link,
)
from playground.store import Entry
from simulators.engine.declaration import ActionError
from simulators.labs import LABS

ORIGIN = [(b"origin", b"http://127.0.0.1")]


def random_history(slug: str, seed: int, count: int) -> History:
    """A history of up to `count` accepted actions (refused ones are skipped)."""
    rng = random.Random(seed)
    lab_class = LABS[slug]
    specs = [
        s
        for s in lab_class.actions
        if s.name not in ("load_keys", "run_trials", "reset", "set_copies")
    ]
    timeline = History(lab_class, seed)
    for _ in range(count):
        spec = rng.choice(specs)
        args = random_args(spec, rng)
        try:
            timeline.apply(spec.name, args, Entry(0, spec.name, args))
        except ActionError:
            continue
        if rng.random() < 0.1 and timeline.length:
            timeline.apply("seek", {"to": rng.randint(0, timeline.length)})
    return timeline


OPEN_LINKS = """
import json, sys
import django, os
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "playground.settings")
django.setup()
from playground.links import read_link, replay_link
out = []
for link in json.loads(sys.stdin.read()):
    entries, history = replay_link(*read_link(link))
    out.append(history.lab.digest())
print(json.dumps(out))
"""


@pytest.mark.parametrize("slug", sorted(LABS))
def test_random_histories_round_trip_through_a_link_in_a_fresh_process(
    another_process, slug
):
    """Each link is opened in the session's other process (another hash seed, a
    fresh fork for each) while this one makes the next."""
    answers, here = [], []
    for seed in range(12):
        history = random_history(slug, seed, 30)
        link = make_link(slug, history.seed, history.actions, history.cursor)
        answers.append(another_process.submit(OPEN_LINKS, input=json.dumps([link])))
        here.append(history.lab.digest())
    there = []
    for answer in answers:
        done = answer()
        assert done.returncode == 0, done.stderr
        there.extend(json.loads(done.stdout))
    assert there == here


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(sorted(LABS)), st.integers(0, 2**40), st.integers(0, 25))
def test_any_history_round_trips_in_this_process(slug, seed, count):
    timeline = random_history(slug, seed, count)
    link = make_link(slug, seed, timeline.actions, timeline.cursor)
    entries, again = replay_link(*read_link(link))
    assert again.lab.digest() == timeline.lab.digest()
    # the one replay a link gets is the replay of the log its room stores
    assert replayed(slug, seed, entries).lab.digest() == again.lab.digest()
    # consecutive advances are merged, so the link's history may be shorter; the
    # cursor is at the end exactly when it was
    assert again.length <= timeline.length
    assert (again.cursor == again.length) == (timeline.cursor == timeline.length)


def test_merged_advances_reach_the_same_state():
    timeline = History(LABS["quorum"], 4)
    timeline.apply("write", {"w": "ONE", "coordinator": "A"})
    for _ in range(40):
        timeline.apply("advance", {"ms": 7})
    link = make_link("quorum", 4, timeline.actions, timeline.cursor)
    slug, seed, steps, cursor = read_link(link)
    assert steps == [
        ("write", {"w": "ONE", "coordinator": "A"}),
        ("advance", {"ms": 280}),
    ]
    _, again = replay_link(slug, seed, steps, cursor)
    assert again.lab.digest() == timeline.lab.digest()


def test_fifty_hash_placement_actions_fit_in_a_short_link():
    rng = random.Random(5)
    timeline = History(LABS["hash-placement"], 5)
    done = 0
    while done < 50:
        name, args = rng.choice(
            [
                ("add_shard", {}),
                ("remove_shard", {"shard": rng.choice("ABCDEFGH")}),
                ("set_vnodes", {"vnodes": rng.randint(1, 256)}),
                ("set_partitions", {"partitions": rng.choice([16, 256, 1024, 16384])}),
                ("lookup", {"key": f"N{rng.randint(10000, 99999)}"}),
                (
                    "mark_hot",
                    {
                        "key": f"P{rng.randint(0, 9999999):07d}",
                        "share_percent": rng.randint(1, 99),
                    },
                ),
            ]
        )
        try:
            timeline.apply(name, args, Entry(0, name, args))
        except ActionError:
            continue
        done += 1
    link = make_link("hash-placement", 5, timeline.actions, timeline.cursor)
    url = f"http://127.0.0.1:8000/labs/hash-placement/#link={link}"
    assert len(url) <= SHORT_LINK_CHARS, len(url)


def forge(payload) -> str:
    data = json.dumps(payload).encode()
    return "1." + base64.urlsafe_b64encode(zlib.compress(data)).rstrip(b"=").decode()


def test_bad_links_are_refused_with_a_clear_reason():
    good = make_link("hash-placement", 1, [Entry(1, "add_shard", {})], 1)
    cases = {
        good[: len(good) // 2]: "damaged_link",
        good + "x": "damaged_link",
        "9." + good[2:]: "unknown_version",
        "": "bad_link",
        "1.!!!!": "damaged_link",
        forge({"l": "no-such", "s": 1, "a": [], "c": 0}): "unknown_lab",
        forge({"l": "hash-placement", "s": -1, "a": [], "c": 0}): "damaged_link",
        forge({"l": "hash-placement", "s": 1, "a": [], "c": 3}): "damaged_link",
        forge({"l": "hash-placement", "s": 1, "a": [[7]], "c": 0}): "damaged_link",
        forge({"l": "hash-placement", "s": 1, "a": [], "c": 0, "x": 1}): "damaged_link",
        forge(
            {
                "l": "hash-placement",
                "s": 1,
                "a": [["add_shard"]] * (MAX_ACTIONS + 1),
                "c": 0,
            }
        ): "too_many_actions",
        "1." + base64.urlsafe_b64encode(zlib.compress(b"[" * 3_000_000)).decode(): (
            "damaged_link"
        ),
        "x" * 70_000: "link_too_long",
    }
    for link, code in cases.items():
        with pytest.raises(LinkError) as caught:
            read_link(link)
        assert caught.value.code == code, (link[:40], caught.value.code)


def packed(text: str) -> str:
    """A version-1 link of any JSON text, as make_link encodes one."""
    data = zlib.compress(text.encode(), 9)
    return "1." + base64.urlsafe_b64encode(data).rstrip(b"=").decode()


@pytest.mark.parametrize(
    "text",
    [
        "[" * 100_000 + "]" * 100_000,  # past the recursion limit
        '{"a":' * 100_000 + "1" + "}" * 100_000,
        '{"l":"quorum","s":0,"a":[["pause",' + '{"x":' * 30 + "1" + "}" * 30 + "]],"
        '"c":0}',  # within the recursion limit, but no link nests like this
        '{"l":"quorum","s":' + "9" * 5_000 + ',"a":[],"c":0}',  # past int()'s limit
    ],
    ids=["arrays", "objects", "args", "digits"],
)
def test_a_link_nested_too_deep_or_with_a_huge_number_is_damaged(text):
    with pytest.raises(LinkError) as caught:
        read_link(packed(text))
    assert caught.value.code == "damaged_link"


def test_a_forged_step_is_refused_by_the_lab_with_its_own_sentence():
    billion = forge(
        {
            "l": "hash-placement",
            "s": 1,
            "a": [["load_keys", {"kind": "booking", "count": 10**9}]],
            "c": 1,
        }
    )
    with pytest.raises(LinkError) as caught:
        replay_link(*read_link(billion))
    assert caught.value.code == "bad_step"
    assert "step 1" in caught.value.message and "1,000,000" in caught.value.message
    seek = forge({"l": "hash-placement", "s": 1, "a": [["seek", {"to": 0}]], "c": 1})
    with pytest.raises(LinkError):
        replay_link(*read_link(seek))


async def test_a_link_opened_over_the_socket_gives_the_same_state():
    async def connect():
        communicator = WebsocketCommunicator(
            application, "/ws/labs/quorum/?seed=9", headers=ORIGIN
        )
        await communicator.connect()
        return communicator

    async def next_of(communicator, kind):
        while True:
            message = json.loads(await communicator.receive_from(timeout=5))
            if message["type"] == kind:
                return message

    first = await connect()
    await next_of(first, "hello")
    for ref, action, args in [
        ("a", "write", {"w": "ONE", "coordinator": "B"}),
        ("b", "advance", {"ms": 90}),
        ("c", "seek", {"to": 1}),
    ]:
        await first.send_json_to(
            {"type": "action", "ref": ref, "action": action, "args": args}
        )
        frame = await next_of(first, "frame")
    await first.send_json_to({"type": "get_link", "ref": "l"})
    link = await next_of(first, "link")
    assert link["chars"] == len(link["link"]) < SHORT_LINK_CHARS

    second = await connect()
    await next_of(second, "hello")
    await second.send_json_to({"type": "open_link", "link": link["link"]})
    hello = await next_of(second, "hello")
    assert hello["digest"] == frame["digest"]
    assert hello["timeline"] == {
        "cursor": 1,
        "length": 2,
        "moments": [0],  # the write; the clock's tick is not a moment
        "moments_skipped": 0,
        "moments_total": 1,
        "forks": [],
    }
    assert hello["room"] != frame.get("room")

    await second.send_json_to({"type": "open_link", "ref": "z", "link": "1.broken"})
    error = await next_of(second, "error")
    assert (error["code"], error["ref"], error["field"]) == ("bad_link", "z", "link")
    assert "damaged" in error["message"]
    await second.send_json_to({"type": "get_link", "fork": 3})
    assert (await next_of(second, "error"))["code"] == "no_such_fork"
    await first.disconnect()
    await second.disconnect()


# Made by version 1 on 2026-11-30. Every later version of the playground must still open
# it as exactly this: change the decoder of a new version, never this one's.
VERSION_1_LINK = (
    "1.eNqrVspRslLKSCzO0C3ISUxOzU3NK1HSUSpWsjLUUUpUsoqOVkpMSYkvzkgsSlGKjdVRSgbK"
    "1AIA0FIQlg"
)


def test_a_version_1_link_keeps_opening_as_it_did():
    assert read_link(VERSION_1_LINK) == ("hash-placement", 1, [("add_shard", {})], 1)
    entries, _ = replay_link(*read_link(VERSION_1_LINK))
    assert [(e.seq, e.name, e.args) for e in entries] == [(1, "add_shard", {})]


def test_the_labs_own_refusal_is_translated_with_the_rest():
    link = forge(
        {"l": "hash-placement", "s": 1, "a": [["set_shards", {"count": 99}]], "c": 1}
    )
    with pytest.raises(LinkError) as caught:
        replay_link(*read_link(link))
    error = caught.value
    assert error.code == "bad_step" and error.cause.code == "out_of_range"

    def gettext(text):  # a "translation" that marks whatever went through it
        return f"«{text}»"

    said = error.translated(gettext)
    assert said.startswith("«step 1 of this link cannot be done: «")
    assert said.endswith("12»»")  # the lab's own sentence was translated too


async def test_a_short_link_in_the_socket_address_opens_its_room_at_once():
    steps = [
        Entry(1, "write", {"w": "ONE", "coordinator": "A"}),
        Entry(2, "advance", {"ms": 30}),
    ]
    link = make_link("quorum", 6, steps, 2)
    timeline = History(LABS["quorum"], 6)
    for entry in steps:
        timeline.apply(entry.name, entry.args, entry)
    communicator = WebsocketCommunicator(
        application, f"/ws/labs/quorum/?link={link}", headers=ORIGIN
    )
    await communicator.connect()
    first = json.loads(await communicator.receive_from(timeout=5))
    assert first["type"] == "hello", "one hello: no throwaway room first"
    assert first["digest"] == timeline.lab.digest()
    assert first["timeline"]["cursor"] == first["timeline"]["length"] == 2
    await communicator.disconnect()

    for bad, words in (("1.broken", "damaged"), (link, "another lab")):
        communicator = WebsocketCommunicator(
            application, f"/ws/labs/hash-placement/?link={bad}", headers=ORIGIN
        )
        await communicator.connect()
        error = json.loads(await communicator.receive_from(timeout=5))
        assert (error["type"], error["code"], error["ref"]) == (
            "error",
            "bad_link",
            "link",
        )
        assert words in error["message"]
        hello = json.loads(await communicator.receive_from(timeout=5))
        assert hello["type"] == "hello" and hello["seq"] == 0
        await communicator.disconnect()


async def test_a_link_is_replayed_once_and_its_room_stores_what_it_replayed(
    monkeypatch,
):
    """Before: every step was applied twice (once to check the link, once to build
    the room). Now the one checked replay is the room's."""
    # cheap enough to be replayed in this process (a heavy one goes to a worker)
    steps = [Entry(n, "lookup", {"key": f"N{n}"}) for n in range(1, 4)]
    link = make_link("hash-placement", 2, steps, 3)
    applied = []
    real_apply = LABS["hash-placement"].apply

    def counting(lab, name, args):
        applied.append(name)
        return real_apply(lab, name, args)

    monkeypatch.setattr(LABS["hash-placement"], "apply", counting)
    communicator = WebsocketCommunicator(
        application, f"/ws/labs/hash-placement/?link={link}", headers=ORIGIN
    )
    await communicator.connect()
    hello = json.loads(await communicator.receive_from(timeout=5))
    await communicator.disconnect()
    assert applied == ["lookup"] * 3
    assert hello["seq"] == 3 and hello["timeline"]["length"] == 3


def test_a_links_cost_is_added_up_before_anything_is_replayed():
    million = ["load_keys", {"kind": "registration", "count": 1_000_000}]
    bomb = forge({"l": "hash-placement", "s": 1, "a": [million] * 30, "c": 30})
    slug, _, steps, _ = read_link(bomb)
    units = link_cost(slug, steps)
    assert units > 80_000_000  # 30 loads of a million keys: over a minute of work
    with pytest.raises(LinkError) as caught:
        check_cost(slug, steps)
    assert caught.value.code == "link_too_heavy"
    assert f"about {units / 1e6:,.1f} s" in caught.value.message
    assert "at most 6.0 s" in caught.value.message
    one = forge({"l": "hash-placement", "s": 1, "a": [million], "c": 1})
    assert check_cost(*read_link(one)[::2]) < 6_000_000
    # a step that is not an action of the lab is named before any cost is counted
    bad = forge({"l": "quorum", "s": 1, "a": [["write", {"w": "ALL"}]], "c": 1})
    with pytest.raises(LinkError) as caught:
        link_cost(*read_link(bad)[::2])
    assert caught.value.code == "bad_step" and "step 1" in caught.value.message


async def test_a_moment_too_heavy_to_open_is_not_handed_out_as_a_link(settings):
    settings.PLAYGROUND_LINK_BUDGET_UNITS = 30_000  # less than one shard added
    communicator = WebsocketCommunicator(
        application, "/ws/labs/hash-placement/", headers=ORIGIN
    )
    await communicator.connect()
    await communicator.receive_from(timeout=5)  # hello
    await communicator.send_json_to(
        {"type": "action", "action": "add_shard", "args": {}}
    )
    await communicator.receive_from(timeout=5)  # its frame
    await communicator.send_json_to({"type": "get_link", "ref": "l"})
    refused = {"type": "presence"}
    while refused["type"] == "presence":
        refused = json.loads(await communicator.receive_from(timeout=5))
    await communicator.disconnect()
    assert (refused["type"], refused["code"], refused["ref"]) == (
        "error",
        "link_too_heavy",
        "l",
    )
    assert "cannot be shared" in refused["message"]


async def test_what_lies_after_the_cursor_is_left_out_when_only_the_moment_fits(
    settings,
):
    # a fresh lab declares 40,500 units, each shard added 11,500: the whole branch
    # (two shards) is too heavy, the moment before them is not
    settings.PLAYGROUND_LINK_BUDGET_UNITS = 44_000
    communicator = WebsocketCommunicator(
        application, "/ws/labs/hash-placement/", headers=ORIGIN
    )
    await communicator.connect()

    async def answer(kind):
        while True:
            message = json.loads(await communicator.receive_from(timeout=5))
            if message["type"] in (kind, "error"):
                return message

    await answer("hello")
    for step in (
        {"action": "add_shard", "args": {}},
        {"action": "add_shard", "args": {}},
        {"action": "seek", "args": {"to": 0}},
    ):
        await communicator.send_json_to({"type": "action", **step})
        await answer("frame")
    await communicator.send_json_to({"type": "get_link", "ref": "l"})
    link = await answer("link")
    await communicator.disconnect()
    assert link["trimmed"] is True
    assert read_link(link["link"]) == ("hash-placement", 0, [], 0)
