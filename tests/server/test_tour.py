"""The guided tour over the websocket: in the declaration, and run by a class's host.

In-process (Channels' WebsocketCommunicator) with the SQLite test database, in the style
of test_classroom.py: a teacher's private room starts a class, a host claims it, and
students join.
"""

import asyncio
import json
from urllib.parse import quote

import pytest
from channels.testing import WebsocketCommunicator

from playground import i18n
from playground.asgi import application
from playground.models import RoomRecord
from playground.rooms import registry
from simulators.labs import LABS

ORIGIN = [(b"origin", b"http://127.0.0.1")]
SLUG = "hash-placement"
STEPS = [step.id for step in LABS[SLUG].tour]


class Member:
    """One socket in a room: sends messages, and keeps everything it received."""

    def __init__(self, communicator: WebsocketCommunicator) -> None:
        self.ws = communicator
        self.inbox: list[dict] = []
        self.hello: dict = {}

    async def send(self, **message) -> None:
        await self.ws.send_json_to(message)

    async def next(self, kind: str, timeout: float = 5) -> dict:
        """The next message of `kind`; earlier ones stay in inbox."""
        while True:
            message = json.loads(await self.ws.receive_from(timeout=timeout))
            self.inbox.append(message)
            if message["type"] == kind:
                return message

    async def drain(self, quiet: float = 0.15) -> list[dict]:
        """Everything that arrives until nothing has for `quiet` seconds."""
        got = []
        while not await self.ws.receive_nothing(timeout=quiet):
            message = json.loads(await self.ws.receive_from(timeout=1))
            self.inbox.append(message)
            got.append(message)
        return got

    async def leave(self) -> None:
        await self.ws.disconnect()


async def enter(query: str = "", slug: str = SLUG) -> Member:
    path = f"/ws/labs/{slug}/" + (f"?{query}" if query else "")
    communicator = WebsocketCommunicator(application, path, headers=ORIGIN)
    connected, _ = await communicator.connect()
    assert connected
    member = Member(communicator)
    member.hello = await member.next("hello")
    return member


async def start_class() -> tuple[Member, dict]:
    """A teacher's private room, and a class started from it."""
    owner = await enter("seed=5")
    await owner.send(type="start_class", ref="s1")
    return owner, await owner.next("class_started")


async def student(started: dict, name: str = "Ana") -> Member:
    return await enter(f"room={started['room']}&name={quote(name)}")


async def host(started: dict) -> Member:
    member = await student(started, "Teacher")
    await member.send(type="claim_host", ref="h", secret=started["secret"])
    assert (await member.next("role"))["role"] == "host"
    return member


async def stored_step(room_id: str) -> tuple[str, int]:
    record = await asyncio.to_thread(RoomRecord.objects.get, pk=room_id)
    return record.tour_step, record.tour_version


async def close_all(*members: Member) -> None:
    for member in members:
        await member.leave()


# -- the declaration -------------------------------------------------------------


@pytest.mark.parametrize("slug", sorted(LABS))
async def test_hello_carries_the_labs_tour_in_its_declaration(slug):
    owner = await enter(slug=slug)
    declaration = owner.hello["declaration"]
    assert set(declaration) == {"lab", "options", "actions", "tour", "words"}
    assert declaration["tour"] == LABS[slug].declaration()["tour"]
    assert 3 <= len(declaration["tour"]) <= 6
    await close_all(owner)


def test_the_tours_words_are_translated_with_the_rest(monkeypatch):
    monkeypatch.setattr(i18n, "gettext", lambda text: f"«{text}»")
    sent = i18n.translate_declaration(LABS["quorum"].declaration())
    for step, declared in zip(sent["tour"], LABS["quorum"].tour, strict=True):
        assert step["say"] == f"«{declared.say}»"
        assert step["notice"] == f"«{declared.notice}»"
        assert step["id"] == declared.id  # ids are not words: links name them
        assert step["show_me"]["action"] == declared.show_me[0]


# -- a host runs the tour for everyone -------------------------------------------


async def test_a_host_runs_the_tour_and_every_member_is_shown_the_step():
    owner, started = await start_class()
    teacher = await host(started)
    ana = await student(started)
    assert ana.hello["class"]["tour"] is None
    await teacher.send(type="tour", ref="t1", step="remove-shard")
    for member in (teacher, ana):
        shown = await member.next("tour")
        assert shown == {"type": "tour", "step": "remove-shard", "version": 1}
    assert await stored_step(started["room"]) == ("remove-shard", 1)
    # a late joiner sees the step in its hello
    ben = await student(started, "Ben")
    assert ben.hello["class"]["tour"] == "remove-shard"
    await teacher.send(type="tour", ref="t2", step="lookup")
    for member in (teacher, ana, ben):
        assert (await member.next("tour"))["step"] == "lookup"
    await close_all(owner, teacher, ana, ben)


async def test_the_host_ends_the_tour_for_everyone_with_null():
    owner, started = await start_class()
    teacher = await host(started)
    ana = await student(started)
    await teacher.send(type="tour", ref="t1", step="add-shard")
    await ana.next("tour")
    await teacher.send(type="tour", ref="t2", step=None)
    assert await ana.next("tour") == {"type": "tour", "step": None, "version": 2}
    assert await stored_step(started["room"]) == ("", 2)
    ben = await student(started, "Ben")
    assert ben.hello["class"]["tour"] is None
    await close_all(owner, teacher, ana, ben)


async def test_the_step_outlives_the_room_leaving_memory():
    owner, started = await start_class()
    teacher = await host(started)
    await teacher.send(type="tour", ref="t1", step="hot-key")
    await teacher.next("tour")
    await close_all(owner, teacher)
    await asyncio.sleep(0.05)  # the leaving is handled
    registry._evict(started["room"])
    assert registry.get(started["room"]) is None
    ana = await student(started)  # the class is rebuilt from what is stored
    assert ana.hello["class"]["tour"] == "hot-key"
    await close_all(ana)


# -- refusals: an error each, nothing changed ------------------------------------


async def refused_and_unchanged(member, others, started, message, code) -> dict:
    """`member` sends `message`: an error with `code`, and nobody is shown a step."""
    await member.send(**message, ref="x")
    error = await member.next("error")
    assert error["code"] == code, error
    assert error["ref"] == "x"
    assert await stored_step(started["room"]) == ("", 0)
    assert registry.get(started["room"]).classroom.tour_step == ""
    for someone in (member, *others):
        await someone.drain()
        assert not [m for m in someone.inbox if m["type"] == "tour"]
    return error


async def test_a_student_may_not_run_the_tour():
    owner, started = await start_class()
    teacher = await host(started)
    await teacher.send(type="control", mode="everyone")  # even when everyone drives
    await teacher.next("control")
    ana = await student(started)
    error = await refused_and_unchanged(
        ana, [teacher], started, {"type": "tour", "step": "add-shard"}, "not_host"
    )
    assert "host" in error["message"]
    await close_all(owner, teacher, ana)


async def test_a_private_room_has_no_class_to_run_a_tour_for():
    owner = await enter()
    await owner.send(type="tour", ref="x", step="add-shard")
    error = await owner.next("error")
    assert error["code"] == "not_host"
    await close_all(owner)


async def test_an_unknown_step_is_refused_naming_the_steps_there_are():
    owner, started = await start_class()
    teacher = await host(started)
    ana = await student(started)
    error = await refused_and_unchanged(
        teacher, [ana], started, {"type": "tour", "step": "fly-away"}, "no_such_step"
    )
    assert error["field"] == "step"
    assert error["message"] == (
        "this lab's tour has no step 'fly-away'; it has " + ", ".join(STEPS)
    )
    # a step of another lab's tour is no step of this one
    await refused_and_unchanged(
        teacher, [ana], started, {"type": "tour", "step": "cut-a-c"}, "no_such_step"
    )
    # a long id is not sent back whole
    error = await refused_and_unchanged(
        teacher, [ana], started, {"type": "tour", "step": "x" * 5000}, "no_such_step"
    )
    assert len(error["message"]) < 200
    await close_all(owner, teacher, ana)


@pytest.mark.parametrize(
    ("message", "code"),
    [
        ({"type": "tour"}, "bad_step"),
        ({"type": "tour", "step": 3}, "bad_step"),
        ({"type": "tour", "step": True}, "bad_step"),
        ({"type": "tour", "step": ["add-shard"]}, "bad_step"),
        ({"type": "tour", "step": {"id": "add-shard"}}, "bad_step"),
        ({"type": "tour", "step": "add-shard", "version": 9}, "unknown_field"),
    ],
)
async def test_a_tour_message_of_the_wrong_shape_is_refused(message, code):
    owner, started = await start_class()
    teacher = await host(started)
    ana = await student(started)
    error = await refused_and_unchanged(teacher, [ana], started, message, code)
    if code == "bad_step":
        assert error["field"] == "step"
        assert error["message"] == (
            "step must be the id of a step of this lab's tour, or null"
        )
    await close_all(owner, teacher, ana)
