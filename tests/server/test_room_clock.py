"""The room clock: a playing room turns real time into logged `advance` actions.

A tiny clocked lab (defined here, registered only for these tests) sends one message
over a simulated link; the room must move virtual time while the message flies, stop
when nothing is scheduled, and stay silent while paused. Replaying the room's log must
reach the same digest.
"""

import copy
import json

import pytest
from channels.testing import WebsocketCommunicator

from playground.asgi import application
from playground.delta import patch
from playground.rooms import registry
from simulators.engine import ActionSpec, ClockedLab, Latency, Network, make_rng
from simulators.engine.clocked import PLAYBACK_ACTIONS
from simulators.labs import LABS

ORIGIN = [(b"origin", b"http://127.0.0.1")]


class PingLab(ClockedLab):
    """Two nodes and one link with a fixed 40 ms latency."""

    slug = "ping-test"
    actions = (*PLAYBACK_ACTIONS, ActionSpec("ping", "Ping"))

    def __init__(self, seed=0, **options):
        super().__init__(seed, **options)
        self.arrived = 0
        self.network = Network(
            self.queue,
            make_rng(seed, "network"),
            ["A", "B"],
            [("A", "B", Latency(40))],
            on_message=self._arrive,
        )

    def _arrive(self, message):
        self.arrived += 1

    def handle(self, event):
        self.network._handle(event)

    def collect_events(self):
        return self.network.take_events()

    def do_ping(self):
        self.network.send("A", "B", "ping")
        return self.collect_events()

    def snapshot(self):
        return {
            "playback": self.playback(),
            "network": self.network.snapshot(),
            "arrived": self.arrived,
        }

    def metrics(self):
        return {"arrived": self.arrived}


@pytest.fixture
def ping_lab(monkeypatch):
    monkeypatch.setitem(LABS, PingLab.slug, PingLab)
    return PingLab


async def open_room():
    communicator = WebsocketCommunicator(
        application, f"/ws/labs/{PingLab.slug}/", headers=ORIGIN
    )
    connected, _ = await communicator.connect()
    assert connected
    while True:
        message = json.loads(await communicator.receive_from(timeout=5))
        if message["type"] == "hello":
            HELD[id(communicator)] = message["snapshot"]
            return communicator, message


async def act(communicator, action, args=None, ref="c1"):
    await communicator.send_json_to(
        {"type": "action", "ref": ref, "action": action, "args": args or {}}
    )


async def nothing_but_presence(communicator, seconds=0.4):
    """True when only presence messages (or nothing) arrive for `seconds`."""
    while not await communicator.receive_nothing(timeout=seconds):
        message = json.loads(await communicator.receive_from())
        if message["type"] != "presence":
            return False
    return True


# The snapshot each test client holds: frames may carry a patch against it.
HELD: dict[int, dict] = {}


async def frames_until(communicator, done, timeout=5):
    frames = []
    while True:
        message = json.loads(await communicator.receive_from(timeout=timeout))
        if message["type"] != "frame":
            continue
        if "patch" in message:
            held = copy.deepcopy(HELD[id(communicator)])
            message["snapshot"] = patch(held, message["patch"])
        HELD[id(communicator)] = message["snapshot"]
        frames.append(message)
        if done(message):
            return frames


async def test_a_room_advances_time_by_itself_until_the_message_arrives(ping_lab):
    """Alive at once: nobody presses Play; time runs while something is in flight."""
    communicator, hello = await open_room()
    assert hello["t_ms"] == 0
    assert {"play", "pause", "step", "set_speed", "advance"} <= {
        a["name"] for a in hello["declaration"]["actions"]
    }
    await act(communicator, "set_speed", {"speed": 1000})
    await act(communicator, "ping")
    frames = await frames_until(communicator, lambda f: f["snapshot"]["arrived"] == 1)
    ticks = [f for f in frames if f["action"]["name"] == "advance"]
    assert ticks, "the room clock sent no advance"
    assert all(f["ref"] is None for f in ticks)
    times = [f["t_ms"] for f in frames]
    assert times == sorted(times) and times[-1] >= 40
    # Nothing is scheduled any more: time stands still and no more frames come.
    assert await nothing_but_presence(communicator)
    room = registry.get(hello["room"])
    assert room.clock.ticker is None
    assert room.replay().digest() == frames[-1]["digest"]
    await communicator.disconnect()


async def test_a_paused_room_sends_no_ticks_and_step_jumps_to_the_arrival(ping_lab):
    communicator, hello = await open_room()
    assert hello["snapshot"]["playback"]["playing"] is True  # alive at once...
    await act(communicator, "pause")  # ...until someone pauses to step
    await act(communicator, "ping")
    await frames_until(communicator, lambda f: f["action"]["name"] == "ping")
    assert await nothing_but_presence(communicator)
    await act(communicator, "step")
    (frame,) = await frames_until(communicator, lambda f: True)
    assert frame["t_ms"] == 40 and frame["snapshot"]["arrived"] == 1
    assert frame["snapshot"]["playback"]["playing"] is False
    await act(communicator, "step", ref="c2")
    error = json.loads(await communicator.receive_from(timeout=5))
    assert error["type"] == "error" and error["code"] == "nothing_scheduled"
    assert error["ref"] == "c2"
    await communicator.disconnect()


async def test_pausing_stops_the_clock_mid_flight(ping_lab):
    communicator, hello = await open_room()
    await act(communicator, "set_speed", {"speed": 100})  # 40 ms takes 0.4 s
    await act(communicator, "play")
    await act(communicator, "ping")
    await frames_until(communicator, lambda f: f["action"]["name"] == "advance")
    await act(communicator, "pause")
    paused = await frames_until(communicator, lambda f: f["action"]["name"] == "pause")
    at = paused[-1]["t_ms"]
    assert 0 < at < 40 and paused[-1]["snapshot"]["arrived"] == 0
    assert await nothing_but_presence(communicator)
    await communicator.disconnect()


@pytest.mark.parametrize("ms", [0, -5, 60_001, 1.5, "10"])
async def test_advance_out_of_bounds_is_refused(ping_lab, ms):
    communicator, hello = await open_room()
    await act(communicator, "advance", {"ms": ms})
    error = json.loads(await communicator.receive_from(timeout=5))
    assert error["type"] == "error" and error["field"] == "ms"
    await communicator.disconnect()
