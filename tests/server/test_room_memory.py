"""What a room keeps in memory, and when it lets it go (issue 29, item 4).

The frames kept for resuming are bounded in bytes; a quiet room lets them go; a private
room left open and unused rests (its lab, log and frames leave memory) and wakes, the
same to the digest, on the next message; memory freed by rooms that left is given back.
"""

import asyncio
import ctypes.util
import json
import time
import weakref
from collections import deque
from pathlib import Path

import pytest
from channels.testing import WebsocketCommunicator

from playground.asgi import application
from playground.rooms import memory, registry
from playground.rooms.memory import FrameBuffer, upkeep

ORIGIN = [(b"origin", b"http://127.0.0.1")]


async def next_of(communicator, kind, timeout=5):
    while True:
        message = json.loads(await communicator.receive_from(timeout=timeout))
        if message["type"] == kind:
            return message


async def opened(path):
    communicator = WebsocketCommunicator(application, path, headers=ORIGIN)
    connected, _ = await communicator.connect()
    assert connected
    return communicator, await next_of(communicator, "hello")


async def act(communicator, action, args, ref):
    """Its frame, once the room is done with it (the frame goes out before the
    room stores the checkpoint the action took, if it took one)."""
    await communicator.send_json_to(
        {"type": "action", "ref": ref, "action": action, "args": args}
    )
    frame = await next_of(communicator, "frame")
    # this test's rooms: a room an earlier test left in the registry has a drainer of
    # that test's event loop, cancelled when the loop closed, and awaiting it raised
    # CancelledError here (when tests/simulators had run first in the same process)
    loop = asyncio.get_running_loop()
    for room in list(registry.rooms.values()):
        if room.drainer is not None and room.drainer.get_loop() is loop:
            await room.drainer
    return frame


def rest_now(room, settings) -> bool:
    """Two looks over the rooms, the quiet time apart: the room rests (if it may)."""
    upkeep.seen.clear()
    now = time.monotonic()
    upkeep.sweep(now)
    upkeep.sweep(now + settings.PLAYGROUND_PRIVATE_REST_SECONDS + 1)
    return memory.resting(room)


# -- frames ----------------------------------------------------------------------------


def test_the_frame_buffer_keeps_the_newest_frames_within_its_bytes():
    frames = FrameBuffer(maxlen=256, most_bytes=1000)
    for seq in range(1, 11):
        frames.append((seq, "x" * 300))
    assert [seq for seq, _ in frames] == [8, 9, 10]
    assert frames.bytes == 900
    frames.append((11, "y" * 5000))  # one frame over the budget: the newest stays
    assert [seq for seq, _ in frames] == [11]
    assert frames.bytes == 5000
    frames.clear()
    assert not frames and frames.bytes == 0


def test_the_frame_buffer_keeps_at_most_its_number_of_frames():
    frames = FrameBuffer(deque([(1, "a"), (2, "b")]), maxlen=3, most_bytes=10**6)
    frames.extend([(3, "c"), (4, "d")])
    assert [seq for seq, _ in frames] == [2, 3, 4]
    assert frames.bytes == 3


async def test_a_held_room_keeps_its_frames_within_the_budget(settings):
    settings.PLAYGROUND_FRAME_BUFFER_BYTES = 4000
    communicator, hello = await opened("/ws/labs/hash-placement/")
    room = registry.rooms[hello["room"]]
    assert isinstance(room.frames, FrameBuffer)
    for n in range(12):
        await act(communicator, "lookup", {"key": f"N1000{n}"}, f"c{n}")
    assert 0 < room.frames.bytes <= max(4000, len(room.frames[-1][1]))
    assert sum(len(text) for _, text in room.frames) == room.frames.bytes
    await communicator.disconnect()


async def test_a_quiet_room_lets_its_frames_go_and_a_reconnect_still_resumes(settings):
    communicator, hello = await opened("/ws/labs/hash-placement/")
    room = registry.rooms[hello["room"]]
    frame = await act(communicator, "add_shard", {}, "c1")
    assert room.frames
    settings.PLAYGROUND_PRIVATE_REST_SECONDS = 0  # frames only
    upkeep.seen.clear()
    now = time.monotonic()
    upkeep.sweep(now)
    upkeep.sweep(now + memory.FRAMES_QUIET_SECONDS + 1)
    assert not room.frames
    assert room._last_snapshot is None  # the next frame is whole, not a patch
    assert not memory.resting(room)
    whole = await act(communicator, "add_shard", {}, "c2")
    assert "snapshot" in whole and "patch" not in whole
    frame = await act(communicator, "lookup", {"key": "N12345"}, "c3")
    assert "patch" in frame  # and the ones after are patches again
    await communicator.disconnect()
    path = f"/ws/labs/hash-placement/?room={room.id}&since={frame['seq']}"
    again = WebsocketCommunicator(application, path, headers=ORIGIN)
    await again.connect()
    resumed = await next_of(again, "resumed")
    assert resumed["seq"] == frame["seq"]
    await again.disconnect()


# -- resting and waking ----------------------------------------------------------------


async def test_an_unused_private_room_rests_and_the_next_action_wakes_it(settings):
    communicator, hello = await opened("/ws/labs/hash-placement/?seed=5")
    room = registry.rooms[hello["room"]]
    await act(communicator, "add_shard", {}, "c1")
    await act(communicator, "set_vnodes", {"vnodes": 32}, "c2")
    assert rest_now(room, settings)
    assert room.log == [] and not room.frames and room.lab is None
    assert room.seq == 2 and room.members  # who is in it, and where it is, stay
    # the tab comes back: the next action finds the lab as it was, transparently
    frame = await act(communicator, "lookup", {"key": "N12345"}, "c3")
    assert frame["seq"] == 3 and frame["ref"] == "c3"
    assert not memory.resting(room)
    assert [entry.seq for entry in room.log] == [1, 2, 3]
    # the same digest as a room that never rested
    other, _ = await opened("/ws/labs/hash-placement/?seed=5")
    await act(other, "add_shard", {}, "d1")
    await act(other, "set_vnodes", {"vnodes": 32}, "d2")
    twin = await act(other, "lookup", {"key": "N12345"}, "d3")
    assert twin["digest"] == frame["digest"]
    await other.disconnect()
    await communicator.disconnect()


async def test_a_resting_room_wakes_for_a_second_tab_and_for_a_resume(settings):
    first, hello = await opened("/ws/labs/quorum/?seed=2")
    room = registry.rooms[hello["room"]]
    frame = await act(first, "pause", {}, "c1")
    assert rest_now(room, settings)
    # another tab on the same room: its hello is the state the room was in
    second, hello_2 = await opened(f"/ws/labs/quorum/?room={room.id}")
    assert hello_2["seq"] == frame["seq"]
    assert hello_2["digest"] == frame["digest"]
    assert rest_now(room, settings)
    # the first tab reconnects after a drop: resumed, nothing missed
    await first.disconnect()
    path = f"/ws/labs/quorum/?room={room.id}&since={frame['seq']}"
    again = WebsocketCommunicator(application, path, headers=ORIGIN)
    await again.connect()
    assert (await next_of(again, "resumed"))["seq"] == frame["seq"]
    assert not memory.resting(room)
    # and a link of it is the room's history
    assert rest_now(room, settings)
    await again.send_json_to({"type": "get_link", "ref": "l1"})
    link = await next_of(again, "link")
    assert link["link"]
    for communicator in (second, again):
        await communicator.disconnect()


async def test_a_class_room_never_rests(settings):
    communicator, hello = await opened("/ws/labs/quorum/")
    await communicator.send_json_to({"type": "start_class", "ref": "s1"})
    started = await next_of(communicator, "class_started")
    room = await registry.load(started["room"])
    assert room.is_class
    assert not rest_now(room, settings)
    assert room.lab is not None
    await communicator.disconnect()


async def test_a_room_that_is_used_does_not_rest(settings):
    communicator, hello = await opened("/ws/labs/hash-placement/")
    room = registry.rooms[hello["room"]]
    upkeep.seen.clear()
    now = time.monotonic()
    upkeep.sweep(now)
    await act(communicator, "add_shard", {}, "c1")  # the log grew meanwhile
    upkeep.sweep(now + settings.PLAYGROUND_PRIVATE_REST_SECONDS + 1)
    assert not memory.resting(room)
    await communicator.disconnect()


def test_a_resting_history_used_without_the_lock_says_so():
    with pytest.raises(RuntimeError, match="without taking its lock"):
        memory.RESTING.apply("add_shard", {}, None)
    assert memory.RESTING.lab is None and memory.RESTING.at_end


# -- memory given back -----------------------------------------------------------------


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


async def test_reclaiming_gives_freed_memory_back_to_the_system():
    if memory.reclaim.trim is None:
        pytest.skip("no glibc malloc_trim here")
    # what rooms that left look like to malloc: large frame texts freed, with small
    # things that stay (over 512 bytes: malloc's too, not Python's) between them, so
    # the heap cannot just shrink from its top
    frames, stays = [], []
    for n in range(4000):
        frames.append(f"{n:08d}" * 2500)  # 20 KB
        stays.append(f"{n:08d}" * 80)  # 640 bytes
    full = rss_mb()
    frames.clear()
    freed = rss_mb()
    await memory.reclaim.run()
    after = rss_mb()
    assert full - freed < 20, (full, freed)  # freed, but kept by malloc
    assert freed - after > 40, (full, freed, after)  # given back by the trim
    assert len(stays) == 4000


async def test_a_room_leaving_memory_lets_go_of_its_lab_at_once():
    """Not when a full collection next finds its cycles (room, clock, presence,
    relay): evicting it drops its history, log and frames."""
    communicator, hello = await opened("/ws/labs/hash-placement/?seed=4")
    frame = await act(communicator, "add_shard", {}, "c1")
    room = registry.rooms[hello["room"]]
    lab = weakref.ref(room.lab)
    await communicator.disconnect()
    room.evict_handle.cancel()
    room.evict_handle = None
    registry._evict(room.id)
    assert room.id not in registry.rooms
    assert memory.resting(room) and room.log == [] and not room.frames
    assert lab() is None  # freed now, not at the next full collection
    # the next visitor rebuilds it from the database, as before
    again, hello = await opened(f"/ws/labs/hash-placement/?room={room.id}")
    assert hello["seq"] == 1 and hello["digest"] == frame["digest"]
    await again.disconnect()


def test_malloc_trim_is_glibc_s():
    trim = memory._malloc_trim()
    if trim is None:
        pytest.skip("no glibc here")
    assert isinstance(trim(0), int)
    assert ctypes.util.find_library("c")
