"""Who gets into a class and who may vote (issue 29): the class's size, the lobby, a
removed member's address, unique names, one vote a person, and a flood cleared at once.

In-process, as tests/server/test_classroom.py (whose helpers these use); an address is
set on a socket's scope where the rule is about addresses.
"""

import asyncio
import json
import threading
import time
from datetime import timedelta
from urllib.parse import quote

import pytest
from channels.testing import WebsocketCommunicator
from django.utils import timezone
from test_classroom import (
    ORIGIN,
    SLUG,
    Member,
    close_all,
    host,
    start_class,
    student,
)

from playground.asgi import application
from playground.models import Answer, RoomRecord
from playground.models import Member as MemberRow
from playground.rooms import classes, registry

ADDRESS = "10.9.9.9"


async def arrive(started: dict, query: str = "", address: str = "10.0.0.1") -> Member:
    """A socket into the class from `address`; nothing read yet."""
    path = f"/ws/labs/{SLUG}/?room={started['room']}" + (f"&{query}" if query else "")
    communicator = WebsocketCommunicator(application, path, headers=ORIGIN)
    communicator.scope["client"] = (address, 40000)
    connected, _ = await communicator.connect()
    assert connected
    return Member(communicator)


async def joined(started: dict, query: str = "", address: str = "10.0.0.1") -> Member:
    member = await arrive(started, query, address)
    member.hello = await member.next("hello")
    return member


async def first(member: Member) -> dict:
    """The first message that is not about who watches."""
    while True:
        message = json.loads(await member.ws.receive_from(timeout=5))
        member.inbox.append(message)
        if message["type"] not in ("presence", "roster"):
            return message


def rows(**where):
    return list(MemberRow.objects.filter(**where).order_by("pk"))


# -- the size of a class --


async def test_throwaway_joins_do_not_spend_a_latecomers_place(settings):
    """Before: 30-60 throwaway joins (fresh tokens) from one address made a real
    latecomer get `too_many_members` for up to an hour. Now the class counts who is
    present: joins that leave again take no place."""
    settings.PLAYGROUND_CLASS_SIZE = 5
    owner, started, _ = await start_class()
    teacher = await host(started)
    for n in range(40):
        passer = await joined(started, f"client=throwaway-{n:010d}")
        await passer.leave()
    await asyncio.sleep(0.05)
    late = await joined(started, "name=Late&client=latecomer-0123456789")
    assert late.hello["role"] == "student"
    await close_all(owner, teacher, late)


async def test_a_join_under_the_size_is_never_refused_and_one_past_it_waits(settings):
    settings.PLAYGROUND_CLASS_SIZE = 3
    owner, started, _ = await start_class()
    teacher = await host(started)
    ana = await joined(started, "name=Ana")
    ben = await joined(started, "name=Ben&client=ben-token-0123456789")
    cleo = await arrive(started, "name=Cleo")
    refused = await first(cleo)
    assert refused["code"] == "class_full" and "3 people" in refused["message"]
    await cleo.closed_with(4503)  # come back later: the page retries by itself
    # a member the class knows comes back even when it is full
    await ben.leave()
    dan = await joined(started, "name=Dan")  # Ben's place
    ben = await joined(started, "name=Ben&client=ben-token-0123456789")
    assert ben.hello["role"] == "student"
    # the host makes the class bigger: the next one gets in
    await teacher.send(type="door", ref="d", size=10)
    door = await teacher.next("door")
    assert (door["size"], door["approval"], door["version"]) == (10, False, 1)
    cleo = await joined(started, "name=Cleo")
    assert cleo.hello["role"] == "student"
    record = await asyncio.to_thread(RoomRecord.objects.get, pk=started["room"])
    assert record.class_size == 10
    await close_all(owner, teacher, ana, ben, dan, cleo)


# -- the lobby --


async def test_with_approval_on_a_new_student_waits_until_the_host_lets_them_in():
    owner, started, _ = await start_class()
    teacher = await host(started)
    ana = await joined(started, "name=Ana")  # in before the switch: stays in
    await teacher.send(type="door", approval=True)
    assert (await teacher.next("door"))["approval"] is True
    ben = await arrive(started, "name=Ben")
    waiting = await first(ben)
    assert waiting["type"] == "waiting" and waiting["reason"] == "approval"
    assert waiting["name"] == "Ben" and "host" in waiting["message"]
    lobby = await teacher.next("lobby", lambda m: m["members"])
    [entry] = lobby["members"]
    assert (entry["name"], entry["flagged"]) == ("Ben", False)
    assert not ben.of("hello")
    # the host approves: Ben gets his hello and is in
    await teacher.send(type="approve", ref="a", member=entry["id"])
    approved = await teacher.next("approved")
    assert approved == {"type": "approved", "ref": "a", "members": [entry["id"]]}
    hello = await ben.next("hello")
    assert hello["member"] == entry["id"] and hello["role"] == "student"
    assert teacher.of("lobby")[-1]["members"] == []  # said before the reply
    row = await asyncio.to_thread(MemberRow.objects.get, member=entry["id"])
    assert (row.state, row.approved) == ("member", True)
    await close_all(owner, teacher, ana, ben)


async def test_the_host_turns_a_waiting_student_away_for_good():
    owner, started, _ = await start_class()
    teacher = await host(started)
    await teacher.send(type="door", approval=True)
    await teacher.next("door")
    token = "client=mallory-token-0123456789"
    mallory = await arrive(started, f"name=Mallory&{token}")
    await first(mallory)
    entry = (await teacher.next("lobby", lambda m: m["members"]))["members"][0]
    await teacher.send(type="turn_away", ref="t", member=entry["id"])
    assert (await teacher.next("turned_away"))["member"] == entry["id"]
    await mallory.closed_with(4403)
    assert mallory.of("error")[-1]["code"] == "turned_away"
    again = await arrive(started, token)
    assert (await first(again))["code"] == "turned_away"
    await again.closed_with(4403)
    await close_all(owner, teacher)


async def test_a_student_who_stops_waiting_leaves_the_lobby_and_all_can_be_approved():
    owner, started, _ = await start_class()
    teacher = await host(started)
    await teacher.send(type="door", approval=True)
    await teacher.next("door")
    waiting = []
    for name in ("Ana", "Ben", "Cleo"):
        member = await arrive(started, f"name={name}")
        await first(member)
        waiting.append(member)
    await teacher.next("lobby", lambda m: len(m["members"]) == 3)
    await waiting[0].leave()  # Ana gives up
    lobby = await teacher.next("lobby", lambda m: len(m["members"]) == 2)
    assert [m["name"] for m in lobby["members"]] == ["Ben", "Cleo"]
    await teacher.send(type="approve", ref="all", all=True)
    assert len((await teacher.next("approved"))["members"]) == 2
    for member in waiting[1:]:
        assert (await member.next("hello"))["role"] == "student"
    await close_all(owner, teacher, *waiting[1:])


async def test_the_lobby_and_the_size_survive_a_restart(monkeypatch):
    """Stored, not only held: a process that loads the class anew (a restart, or
    another process) has the size, the switch and who waits; a student waiting in a
    process that missed the word sees their approval in the database."""
    monkeypatch.setattr(classes, "LOBBY_RECHECK_SECONDS", 0.2)
    owner, started, _ = await start_class()
    teacher = await host(started)
    await teacher.send(type="door", size=12, approval=True)
    await teacher.next("door")
    ben = await arrive(started, "name=Ben")
    await first(ben)
    await teacher.next("lobby", lambda m: m["members"])
    await close_all(teacher, owner)
    registry.rooms.pop(started["room"])  # this process forgets the class
    # the host on a new device: in the lobby too, until the secret lets them in
    again = await arrive(started, "name=Teacher", "10.2.2.2")
    assert (await first(again))["type"] == "waiting"
    await again.send(type="claim_host", ref="h", secret=started["secret"])
    assert (await again.next("hello"))["role"] == "student"
    info = (await again.next("role"))["class"]
    assert (info["door"]["size"], info["door"]["approval"]) == (12, True)
    assert [m["name"] for m in info["lobby"]] == ["Ben"]
    await again.send(type="approve", member=info["lobby"][0]["id"])
    await again.next("approved")
    assert (await ben.next("hello"))["role"] == "student"
    await close_all(again, ben)


async def test_a_lobby_read_that_lands_late_does_not_put_the_approved_back(monkeypatch):
    """A waiting host's page reads the lobby as it arrives; the secret lets it in at
    once. When that first read lands after the approval's own (threads finish in any
    order), the host's first view of the class listed itself as still waiting (seen
    once in a fresh clone's run). The waiter's read is held back here to force it."""
    owner, started, _ = await start_class()
    teacher = await host(started)
    await teacher.send(type="door", size=12, approval=True)
    await teacher.next("door")
    await close_all(teacher)
    reads = []
    read_it = threading.Event()
    lobby, approve = classes.store.lobby, classes.store.approve

    def late_first(room_id):
        seen = lobby(room_id)
        if seen and not reads:  # the read that sees the host waiting: held back
            reads.append(seen)
            read_it.set()
            time.sleep(0.4)
        return seen

    def after_that_read(*args):
        read_it.wait(5)  # the approval comes after the host was seen waiting
        return approve(*args)

    monkeypatch.setattr(classes.store, "lobby", late_first)
    monkeypatch.setattr(classes.store, "approve", after_that_read)
    again = await arrive(started, "name=Teacher", "10.2.2.2")
    assert (await first(again))["type"] == "waiting"
    await again.send(type="claim_host", ref="h", secret=started["secret"])
    info = (await again.next("role"))["class"]
    assert len(reads) == 1  # the late read saw the host waiting
    assert info["lobby"] == []
    await close_all(again, owner)


# -- a removed member's address --


async def test_after_a_removal_new_members_from_that_address_wait_for_the_host():
    """Before: a removed member came straight back with a fresh client token."""
    owner, started, _ = await start_class()
    teacher = await host(started)
    friend = await joined(started, "name=Friend&client=friend-token-01234567", ADDRESS)
    prank = await joined(started, "name=Prank&client=prank-token-0123456789", ADDRESS)
    await teacher.send(type="remove_member", ref="r", member=prank.id)
    await teacher.next("removed")
    await prank.closed_with(4403)
    # a fresh token from the same address: the lobby, said so
    fresh = await arrive(started, "name=Prank2&client=fresh-token-0123456789", ADDRESS)
    waiting = await first(fresh)
    assert waiting["type"] == "waiting" and waiting["reason"] == "flagged"
    lobby = await teacher.next("lobby", lambda m: m["members"])
    assert lobby["members"][0]["flagged"] is True
    # a member the class already knew from that address comes back as before
    await friend.leave()
    friend = await joined(started, "client=friend-token-01234567", ADDRESS)
    assert friend.hello["role"] == "student"
    # another address is not affected
    other = await joined(started, "name=Other", "10.1.1.1")
    assert other.hello["role"] == "student"
    # the address is not stored, only a keyed hash of it
    stored = await asyncio.to_thread(lambda: [r.address for r in rows()])
    assert all(len(a) == 64 and "10.9" not in a for a in stored if a)
    await close_all(owner, teacher, friend, other, fresh)


# -- names --


async def test_names_are_made_unique_and_the_hosts_are_kept_for_the_host():
    owner, started, _ = await start_class()
    teacher = await host(started, "Teacher")  # a host may use the word
    assert teacher.inbox[-1]["role"] == "host"
    ana = await student(started, "Ana")
    ana2 = await student(started, "ana")
    assert (ana.hello["name"], ana2.hello["name"]) == ("Ana", "ana 2")
    for name in ("Teacher", "teacher", "The Host", "主持人", "李老师", "ครู", "อาจารย์"):
        sneaky = await student(started, name)
        assert sneaky.hello["name"].startswith(("Student", "学生", "นักเรียน")), name
        await sneaky.leave()
    names = await asyncio.to_thread(
        lambda: [r.name for r in rows(room_id=started["room"], host=True)]
    )
    assert names == ["Teacher"]
    await close_all(owner, teacher, ana, ana2)


async def test_a_students_page_that_names_itself_as_the_host_does_not_become_it():
    owner, started, _ = await start_class()
    teacher = await host(started, "Ms Okafor")
    copy = await student(started, "ms okafor")
    assert copy.hello["name"].startswith("Student")
    await close_all(owner, teacher, copy)


# -- one vote a person --


async def test_a_member_who_joined_after_the_question_opened_cannot_vote():
    """Before: a fresh client token was a new member with a vote: 60 votes in 1.6 s
    from one person."""
    owner, started, _ = await start_class()
    teacher = await host(started)
    ana = await student(started, "Ana")
    await teacher.send(type="ask", text="How many?", choices=None)
    await ana.next("question")
    for n in range(5):
        stuffer = await joined(started, f"client=stuffer-token-{n:06d}")
        await stuffer.send(type="answer", ref="v", question=1, value=n)
        refused = await stuffer.next("error")
        assert (refused["code"], refused["ref"]) == ("not_a_voter", "v")
        assert "next one" in refused["message"]
        await stuffer.leave()
    await ana.send(type="answer", question=1, value=7)
    await ana.next("answered")
    assert (await teacher.next("answers"))["answered"] == 1
    stored = await asyncio.to_thread(Answer.objects.count)
    assert stored == 1
    await close_all(owner, teacher, ana)


async def test_a_student_the_host_approves_may_answer_the_open_question():
    owner, started, _ = await start_class()
    teacher = await host(started)
    await teacher.send(type="ask", text="How many?", choices=None)
    await teacher.next("question")
    await teacher.send(type="door", approval=True)
    await teacher.next("door")
    ben = await arrive(started, "name=Ben")
    await first(ben)
    entry = (await teacher.next("lobby", lambda m: m["members"]))["members"][0]
    await teacher.send(type="approve", member=entry["id"])
    await ben.next("hello")
    await ben.send(type="answer", question=1, value=3)
    await ben.next("answered")
    await close_all(owner, teacher, ben)


# -- a flood cleared at once --


async def test_the_host_clears_everyone_who_joined_since_the_question_opened():
    owner, started, _ = await start_class()
    teacher = await host(started)
    ana = await student(started, "Ana")
    await teacher.send(type="ask", text="Which?", choices=["A", "B"])
    await ana.next("question")
    await ana.send(type="answer", question=1, value=0)
    await ana.next("answered")
    flood = [await joined(started, f"name=F{n}") for n in range(6)]
    await teacher.send(type="clear", ref="c", question=1)
    cleared = await teacher.next("cleared")
    assert cleared["ref"] == "c"
    assert sorted(cleared["members"]) == sorted(m.id for m in flood)
    for member in flood:
        await member.closed_with(4403)
        assert member.of("error")[-1]["code"] == "removed"
    # Ana and the host stay, and so does Ana's vote
    await ana.send(type="ping", ref="p")
    await ana.next("pong")
    await teacher.send(type="reveal", question=1)
    shown = await ana.next("question", lambda m: m["revealed"])
    assert shown["voters"] == 1
    # nothing more to clear: an empty list, not an error
    await teacher.send(type="clear", ref="c2", question=1)
    assert (await teacher.next("cleared"))["members"] == []
    await close_all(owner, teacher, ana)


async def test_the_host_clears_the_last_minutes_with_their_answers():
    owner, started, _ = await start_class()
    teacher = await host(started)
    await teacher.send(type="ask", text="How many?", choices=None)
    await teacher.next("question")
    early = await student(started, "Early")
    half_an_hour_ago = timezone.now() - timedelta(minutes=30)
    await asyncio.to_thread(
        MemberRow.objects.filter(member=early.id).update, joined_at=half_an_hour_ago
    )
    late = await student(started, "Late")
    await teacher.send(type="clear", ref="c", minutes=5)
    assert (await teacher.next("cleared"))["members"] == [late.id]
    await late.closed_with(4403)
    await close_all(owner, teacher, early)


@pytest.mark.parametrize(
    ("message", "code"),
    [
        ({"type": "door", "size": 0}, "bad_size"),
        ({"type": "door", "size": 100_000}, "bad_size"),
        ({"type": "door", "size": "40"}, "bad_size"),
        ({"type": "door", "size": True}, "bad_size"),
        ({"type": "door", "approval": "yes"}, "bad_approval"),
        ({"type": "door", "approval": 1}, "bad_approval"),
        ({"type": "door", "size": 4, "extra": 1}, "unknown_field"),
        ({"type": "approve", "member": "nobody"}, "bad_member"),
        ({"type": "approve"}, "bad_member"),
        ({"type": "approve", "all": True, "member": "m-0123456789ab"}, "bad_member"),
        ({"type": "approve", "all": False}, "bad_member"),
        ({"type": "approve", "member": "m-0123456789ab"}, "no_such_member"),
        ({"type": "turn_away", "member": 7}, "bad_member"),
        ({"type": "turn_away", "member": "m-0123456789ab"}, "no_such_member"),
        ({"type": "clear"}, "bad_since"),
        ({"type": "clear", "question": 1, "minutes": 5}, "bad_since"),
        ({"type": "clear", "minutes": 0}, "bad_since"),
        ({"type": "clear", "minutes": 100_000}, "bad_since"),
        ({"type": "clear", "minutes": "5"}, "bad_since"),
        ({"type": "clear", "question": True}, "bad_since"),
        ({"type": "clear", "question": 9}, "no_open_question"),
    ],
)
async def test_a_bad_door_lobby_or_clear_message_is_refused(message, code):
    owner, started, _ = await start_class()
    teacher = await host(started)
    await teacher.send(**message, ref="x")
    error = await teacher.next("error")
    assert (error["code"], error["ref"]) == (code, "x"), error
    assert error["message"]
    record = await asyncio.to_thread(RoomRecord.objects.get, pk=started["room"])
    assert (record.class_size, record.approval, record.door_version) == (0, False, 0)
    await close_all(owner, teacher)


async def test_a_removed_or_cleared_address_does_not_lock_out_the_whole_world():
    # the hash is keyed: the same address in another class is not flagged there
    owner, started, _ = await start_class()
    teacher = await host(started)
    prank = await joined(started, "name=P&client=prank-token-0123456789", "10.7.7.7")
    await teacher.send(type="remove_member", member=prank.id)
    await teacher.next("removed")
    owner2, started2, _ = await start_class()
    other = await joined(started2, "name=Q", "10.7.7.7")
    assert other.hello["role"] == "student"
    await close_all(owner, teacher, owner2, other)


async def test_quoted_names_round_trip():
    owner, started, _ = await start_class()
    name = "Zoë & <Li>"
    member = await joined(started, f"name={quote(name)}")
    assert member.hello["name"] == name
    await close_all(owner, member)
