"""Nothing left behind: rooms per address, stored rooms pruned, idle rooms evicted."""

import asyncio
import json
from datetime import timedelta

from channels.testing import WebsocketCommunicator
from django.core.management import call_command
from django.utils import timezone

from playground import store
from playground.asgi import application
from playground.models import Answer, LogRecord, Member, Question, RoomRecord
from playground.rooms import registry

ORIGIN = [(b"origin", b"http://127.0.0.1")]


async def first_messages(path: str, count: int) -> list[dict]:
    communicator = WebsocketCommunicator(application, path, headers=ORIGIN)
    await communicator.connect()
    got = []
    for _ in range(count):
        output = await communicator.receive_output(timeout=5)
        if output["type"] == "websocket.close":
            got.append({"type": "closed", "code": output.get("code")})
            break
        got.append(json.loads(output["text"]))
    await communicator.disconnect()
    return got


async def test_one_address_opens_only_so_many_rooms_a_minute(settings):
    """Before: every page view stored a room, without any limit."""
    settings.PLAYGROUND_ROOMS_PER_ADDRESS = "3/minute"
    for _ in range(3):
        (hello,) = await first_messages("/ws/labs/quorum/", 1)
        assert hello["type"] == "hello"
    refused, closed = await first_messages("/ws/labs/quorum/", 2)
    assert refused["code"] == "too_many_rooms"
    assert closed == {"type": "closed", "code": 4503}  # the page tries again later
    stored = await asyncio.to_thread(RoomRecord.objects.count)
    assert stored == 3
    # a room that exists already opens whatever the count
    room = (await asyncio.to_thread(RoomRecord.objects.first)).id
    (hello,) = await first_messages(f"/ws/labs/quorum/?room={room}", 1)
    assert hello["room"] == room


def make_room(kind=RoomRecord.PRIVATE, *, opened_days_ago=None, ended_days_ago=None):
    record, _ = store.create_room("quorum", 1, kind=kind)
    now = timezone.now()
    fields = {}
    if opened_days_ago is not None:
        fields["opened_at"] = now - timedelta(days=opened_days_ago)
    if ended_days_ago is not None:
        fields["closes_at"] = now - timedelta(days=ended_days_ago)
    RoomRecord.objects.filter(pk=record.pk).update(**fields)
    LogRecord.objects.create(room=record, seq=1, name="play", args={})
    return record.pk


def test_prune_rooms_deletes_what_nobody_will_come_back_to(settings, capsys):
    settings.PLAYGROUND_ROOM_KEEP_DAYS = 30
    stale = make_room(opened_days_ago=31)
    recent = make_room(opened_days_ago=29)
    over = make_room(RoomRecord.CLASS, ended_days_ago=31)
    just_over = make_room(RoomRecord.CLASS, ended_days_ago=1)
    question = Question.objects.create(room_id=over, number=1, text="?", choices=[])
    Answer.objects.create(question=question, member="m-1", value=1)
    Member.objects.create(room_id=over, member="m-1")
    never_opened = make_room()
    RoomRecord.objects.filter(pk=never_opened).update(
        opened_at=None, created_at=timezone.now() - timedelta(days=40)
    )

    call_command("prune_rooms")
    assert "Deleted 2 private rooms" in capsys.readouterr().out
    left = set(RoomRecord.objects.values_list("id", flat=True))
    assert left == {recent, just_over}
    assert LogRecord.objects.filter(room_id__in=[stale, over]).count() == 0
    assert not Answer.objects.exists() and not Member.objects.exists()

    call_command("prune_rooms", "--days", "0")
    assert not RoomRecord.objects.exists()


def test_opening_a_stored_room_keeps_it(settings):
    room = make_room(opened_days_ago=31)
    store.touch(room)
    call_command("prune_rooms")
    assert RoomRecord.objects.filter(pk=room).exists()


async def test_a_room_nobody_watches_leaves_memory(settings):
    settings.PLAYGROUND_PRIVATE_IDLE_SECONDS = 0
    (hello,) = await first_messages("/ws/labs/quorum/", 1)
    for _ in range(50):
        if registry.get(hello["room"]) is None:
            break
        await asyncio.sleep(0.02)
    assert registry.get(hello["room"]) is None
