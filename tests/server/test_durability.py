"""Nothing acknowledged is lost: rooms come back from their log, to the same digest.

First in-process: a room that leaves memory (idle eviction) is rebuilt from the stored
log. Then for real: a daphne process is killed with SIGKILL in the middle of a run, a
new one starts on the same SQLite file, and every frame a client received is still
there, with the digest an in-process replay of the same actions reaches.
"""

import asyncio
import json
import time

import pytest
from channels.testing import WebsocketCommunicator
from websockets.exceptions import ConnectionClosed

from playground.asgi import application
from playground.liveserver import LiveSocket, migrate, server_env, start_daphne
from playground.rooms import registry
from simulators.labs import LABS

ORIGIN = [(b"origin", b"http://127.0.0.1")]
SLUG = "hash-placement"


ACTIONS = []
for i in range(60):
    if i % 3 == 0:
        ACTIONS.append(("set_vnodes", {"vnodes": 1 + (i * 37) % 256}))
    elif i % 3 == 1:
        ACTIONS.append(("mark_hot", {"key": f"key-{i}", "share_percent": 1 + i}))
    elif i % 9 == 2:
        ACTIONS.append(("add_shard", {}))
    else:
        ACTIONS.append(("load_keys", {"kind": "booking", "count": 1000 + i}))


def replay(slug, seed, actions):
    """The digest a fresh lab reaches after `actions`, in this process."""
    lab = LABS[slug](seed=seed)
    for name, args in actions:
        lab.apply(name, args)
    return lab.digest()


# -- in-process: eviction -----------------------------------------------------------


class Socket:
    """A WebsocketCommunicator that keeps what it received."""

    def __init__(self, communicator):
        self.ws = communicator
        self.inbox = []

    async def next(self, kind, where=lambda m: True):
        while True:
            message = json.loads(await self.ws.receive_from(timeout=5))
            self.inbox.append(message)
            if message["type"] == kind and where(message):
                return message

    async def send(self, **message):
        await self.ws.send_json_to(message)


async def enter(slug=SLUG, query=""):
    path = f"/ws/labs/{slug}/" + (f"?{query}" if query else "")
    communicator = WebsocketCommunicator(application, path, headers=ORIGIN)
    connected, _ = await communicator.connect()
    assert connected
    socket = Socket(communicator)
    return socket, await socket.next("hello")


async def wait_evicted(room_id, seconds=2.0):
    deadline = time.monotonic() + seconds
    while registry.get(room_id) is not None:
        assert time.monotonic() < deadline, f"room {room_id} was not evicted"
        await asyncio.sleep(0.01)


async def test_an_evicted_room_comes_back_from_its_log(settings):
    settings.PLAYGROUND_ROOM_IDLE_SECONDS = 0
    settings.PLAYGROUND_PRIVATE_IDLE_SECONDS = 0
    owner, hello = await enter(query="seed=9")
    room_id = hello["room"]
    for action, args in ACTIONS[:6]:
        await owner.send(type="action", action=action, args=args)
        last = await owner.next("frame")
    before = registry.get(room_id)
    await owner.ws.disconnect()
    await wait_evicted(room_id)

    again, hello = await enter(query=f"room={room_id}")
    assert hello["room"] == room_id
    assert hello["seq"] == last["seq"] == 6
    assert hello["digest"] == last["digest"]
    assert hello["seed"] == 9
    after = registry.get(room_id)
    assert after is not before  # rebuilt, not the old object
    assert after.lab.digest() == replay(SLUG, 9, ACTIONS[:6])
    # and it goes on from there
    await again.send(type="action", action="add_shard", args={})
    assert (await again.next("frame"))["seq"] == 7
    await again.ws.disconnect()


async def test_an_evicted_class_keeps_its_mode_and_question(settings):
    settings.PLAYGROUND_ROOM_IDLE_SECONDS = 0
    settings.PLAYGROUND_PRIVATE_IDLE_SECONDS = 0
    owner, _ = await enter()
    await owner.send(type="start_class")
    started = await owner.next("class_started")
    await owner.ws.disconnect()
    host, _ = await enter(query=f"room={started['room']}&name=Teacher")
    await host.send(type="claim_host", secret=started["secret"])
    await host.next("role")
    await host.send(type="control", mode="everyone")
    await host.next("control")
    # Ana is in the class when the question opens: she may answer it
    ana, hello = await enter(query=f"room={started['room']}&name=Ana")
    await host.send(type="ask", text="Which shard?", choices=["A", "B"])
    await host.next("question")
    await ana.send(type="answer", question=1, value=1)
    await ana.next("answered")
    await ana.send(type="action", action="add_shard", args={})
    frame = await ana.next("frame")
    await host.ws.disconnect()
    await ana.ws.disconnect()
    await wait_evicted(started["room"])

    ben, hello = await enter(query=f"room={started['room']}&name=Ben")
    assert hello["role"] == "student"
    assert hello["seq"] == frame["seq"]
    assert hello["digest"] == frame["digest"]
    assert hello["class"]["control"]["mode"] == "everyone"
    assert hello["class"]["question"]["number"] == 1
    assert hello["class"]["question"]["revealed"] is False
    # the host secret still works, and the stored answer still counts
    await ben.send(type="claim_host", secret=started["secret"])
    role = await ben.next("role")
    assert role["class"]["question"]["answered"] == 1
    await ben.ws.disconnect()


# -- for real: kill -9 of a daphne process -------------------------------------------


@pytest.fixture
def var_dir(tmp_path):
    migrate(server_env(tmp_path))
    return tmp_path


async def open_live(server, **query) -> LiveSocket:
    return await LiveSocket.open(server, SLUG, **query)


async def test_a_killed_process_loses_nothing_it_acknowledged(var_dir):
    env = server_env(var_dir)
    server = start_daphne(var_dir, env, name="first")
    try:
        client = await open_live(server, seed=4)
        hello = await client.next("hello")
        room_id = hello["room"]
        # 30 actions sent at once (within the burst of 40): many are in flight
        # when the process dies, some stored and not yet acknowledged
        for action, args in ACTIONS[:30]:
            await client.send(type="action", action=action, args=args)
        while client.acked < 10:
            await client.next("frame")
        server.kill()
        with pytest.raises(ConnectionClosed):
            while True:
                await client.next("frame")
        acked = client.acked
        assert 10 <= acked < 30, "the kill came too late to be mid-run"
        for frame in client.frames:  # every frame is the replay at its seq
            assert frame["digest"] == replay(SLUG, 4, ACTIONS[: frame["seq"]])
    finally:
        server.kill()

    server = start_daphne(var_dir, env, name="second")
    try:
        again = await open_live(server, room=room_id)
        hello = await again.next("hello")
        assert hello["room"] == room_id, server.log()
        assert acked <= hello["seq"] <= 30, "an acknowledged action was lost"
        assert hello["digest"] == replay(SLUG, 4, ACTIONS[: hello["seq"]])
        stored = hello["seq"]

        # a quiet moment: every action acknowledged, then kill -9 again
        for action, args in ACTIONS[stored : stored + 5]:
            await again.send(type="action", action=action, args=args)
            await again.next("frame")
        acked = again.acked
        assert acked == stored + 5
    finally:
        server.kill()

    server = start_daphne(var_dir, env, name="third")
    try:
        last = await open_live(server, room=room_id)
        hello = await last.next("hello")
        assert hello["seq"] == acked
        assert hello["digest"] == replay(SLUG, 4, ACTIONS[:acked])
        assert hello["digest"] == again.frames[-1]["digest"]
        await last.close()
        # a client that saw everything resumes with nothing to catch up
        resumed = await open_live(server, room=room_id, since=acked)
        message = await resumed.next("resumed")
        assert message["seq"] == acked
        await resumed.close()
    finally:
        server.stop()


async def test_a_class_survives_a_killed_process(var_dir):
    env = server_env(var_dir)
    server = start_daphne(var_dir, env, name="first")
    try:
        owner = await open_live(server)
        await owner.next("hello")
        await owner.send(type="start_class")
        started = await owner.next("class_started")
        host = await open_live(server, room=started["room"], name="Teacher")
        await host.next("hello")
        await host.send(type="claim_host", secret=started["secret"])
        await host.next("role")
        await host.send(type="control", mode="everyone")
        await host.next("control")
        await host.send(type="action", action="add_shard", args={})
        frame = await host.next("frame")
    finally:
        server.kill()

    server = start_daphne(var_dir, env, name="second")
    try:
        ana = await open_live(server, room=started["room"], name="Ana")
        hello = await ana.next("hello")
        assert hello["kind"] == "class" and hello["role"] == "student"
        assert hello["seq"] == frame["seq"]
        assert hello["digest"] == frame["digest"]
        assert hello["class"]["control"]["mode"] == "everyone"
        assert hello["class"]["code"] == started["code"]
        await ana.send(type="action", action="add_shard", args={})
        assert (await ana.next("frame"))["seq"] == frame["seq"] + 1
        await ana.send(type="claim_host", secret=started["secret"])
        assert (await ana.next("role"))["role"] == "host"
    finally:
        server.stop()
