"""Message floods (issue 9): sockets sending 60 KB frames as fast as they can.

Before playground/inbound.py the frames a socket sent piled up in daphne's queue faster
than the consumer took them: four sockets took the server from 72 MB to over 700 MB in
ten seconds, never given back (docs/benchmarks.md). Now the server must stay within
50 MB of where it was a second into the flood, close each flooder with 4429 after
telling it why, and serve a newcomer its hello and an action within a second meanwhile.
A flood that passes 300 MB of growth is stopped at once: the old server failed here
without taking the machine's memory with it.
"""

import asyncio

import pytest
from websockets.exceptions import ConnectionClosed

from playground.flooder import Flood, Memory
from playground.inbound import CLOSE_FLOODING
from playground.liveserver import LiveSocket

FLOOD_SECONDS = 8  # the server closes a flooder after about 5 s; it then reconnects
WARM_UP_SECONDS = 1.0
BYSTANDER_AFTER_SECONDS = 2.0
GROWTH_BOUND_MB = 50
GIVE_UP_MB = 300


@pytest.mark.parametrize("sockets", [4, 8])
async def test_a_flood_of_60_kb_frames_keeps_memory_flat_and_serves_a_bystander(
    serve, bystander, sockets
):
    server = serve()
    idle_mb = server.rss_mb()
    flood = Flood(server, sockets, FLOOD_SECONDS)
    memory = Memory(server)
    watching = asyncio.create_task(memory.watch(flood.stop, idle_mb + GIVE_UP_MB))
    flooding = asyncio.create_task(flood.run())
    await asyncio.sleep(BYSTANDER_AFTER_SECONDS)
    hello_s, action_s = await bystander(server)
    await flooding
    await watching
    warm_mb = _at(memory, WARM_UP_SECONDS)
    peak_mb = memory.peak_after(WARM_UP_SECONDS)
    await asyncio.sleep(0.5)
    after_mb = server.rss_mb()
    numbers = (
        f"RSS idle {idle_mb:.0f}, warm {warm_mb:.0f}, peak {peak_mb:.0f}, "
        f"after {after_mb:.0f} MB; {flood.frames} frames; bystander hello "
        f"{hello_s:.2f} s, action {action_s:.2f} s"
    )
    print(numbers)
    assert peak_mb - warm_mb <= GROWTH_BOUND_MB, numbers
    assert after_mb - warm_mb <= GROWTH_BOUND_MB, numbers
    assert hello_s < 1 and action_s < 1, numbers
    closed = flood.closed_by_server()  # each flooder once: it reconnects for 3 s
    assert len(closed) == sockets, (numbers, flood.endings)
    for ending in closed:
        assert ending.close_code == CLOSE_FLOODING, ending
        assert ending.errors[-1:] == ["flooding"], ending
        # what it heard on the way: over the rate, or busy (its room still opening on
        # a loaded machine, or a burst behind): two sources, each once a second
        assert set(ending.errors) <= {"rate_limited", "busy", "flooding"}, ending
        assert ending.errors.count("busy") <= 2 * FLOOD_SECONDS, ending
    log = server.log_path.read_text(errors="replace")
    assert "Exception inside application" not in log, server.log()


async def test_a_message_over_64_kib_is_refused_and_the_socket_stays_open(server):
    socket = await LiveSocket.open(server, "quorum")
    await socket.next("hello")
    await socket.ws.send('{"type":"ping","pad":"' + "a" * 100_000 + '"}')
    refusal = await socket.next("error")
    assert refusal["code"] == "too_large"
    await socket.send(type="ping", ref="p")
    assert (await socket.next("pong"))["ref"] == "p"
    await socket.close()


async def test_daphne_cuts_a_message_over_256_kib_with_1009(server):
    socket = await LiveSocket.open(server, "quorum")
    await socket.next("hello")
    await socket.ws.send("a" * (256 * 1024 + 1))
    with pytest.raises(ConnectionClosed):
        await socket.next("pong", timeout=5)
    # 1009 is in daphne's close frame; 1006 when its reset beat the frame here (the
    # connection is cut either way, where the middleware would have said too_large)
    assert socket.ws.close_code in (1009, 1006)


def _at(memory: Memory, seconds: float) -> float:
    """The first sample at or after `seconds` into the flood."""
    return next(rss for t, rss in memory.samples if t >= seconds)
