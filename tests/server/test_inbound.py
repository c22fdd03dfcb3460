"""The inbound limits (playground/inbound.py) on a fake socket and a fake clock.

No server and no consumer: frames go into a queue as daphne's would, a stand-in
application takes what the middleware hands it (or stalls), and the clock only moves
when a test moves it, so the flood close is checked in milliseconds.
"""

import asyncio
import json

from playground.inbound import CLOSE_FLOODING, InboundLimits

FRAME = {"type": "websocket.receive", "text": '{"type":"ping"}'}


class Clock:
    """A monotonic clock that moves only when told."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class Socket:
    """One websocket through InboundLimits: daphne's queue in, the app's view out."""

    def __init__(self, clock: Clock, send=None) -> None:
        self.clock = clock
        self.incoming: asyncio.Queue = asyncio.Queue()
        self.sent: list[dict] = []
        self.got: list[dict] = []
        self.reading = asyncio.Event()
        self.reading.set()
        middleware = InboundLimits(self.app, clock)
        scope = {"type": "websocket", "path": "/ws/labs/quorum/"}
        reply = send or self.send
        self.task = asyncio.create_task(middleware(scope, self.incoming.get, reply))

    async def app(self, scope, receive, send) -> None:
        """The consumer's stand-in: takes messages while `reading` is set."""
        self.app_send = send
        while True:
            await self.reading.wait()
            message = await receive()
            self.got.append(message)
            if message["type"] == "websocket.disconnect":
                return

    async def send(self, message: dict) -> None:
        self.sent.append(message)

    async def frames(self, count: int, every_s: float = 0.0, frame=FRAME) -> None:
        """`count` frames from the client, `every_s` apart on the clock."""
        for _ in range(count):
            self.incoming.put_nowait(frame)
            self.clock.now += every_s
            await settle()

    def passed(self) -> int:
        return sum(m["type"] == "websocket.receive" for m in self.got)

    def errors(self, code: str | None = None) -> list[dict]:
        texts = [m["text"] for m in self.sent if m["type"] == "websocket.send"]
        errors = [json.loads(t) for t in texts]
        return [e for e in errors if code is None or e["code"] == code]

    def closes(self) -> list[dict]:
        return [m for m in self.sent if m["type"] == "websocket.close"]

    async def end(self) -> None:
        self.reading.set()
        self.incoming.put_nowait({"type": "websocket.disconnect", "code": 1000})
        await asyncio.wait_for(self.task, 1)


async def settle() -> None:
    """Let every task that can run, run."""
    for _ in range(5):
        await asyncio.sleep(0)


async def opened() -> Socket:
    socket = Socket(Clock())
    socket.incoming.put_nowait({"type": "websocket.connect"})
    await settle()
    return socket


async def test_a_burst_of_forty_passes_and_the_rest_are_dropped_with_one_warning():
    socket = await opened()
    await socket.frames(100)
    assert socket.passed() == 40
    [warning] = socket.errors()
    assert warning["code"] == "rate_limited"
    assert warning["ref"] is None
    assert "at most 20 messages a second; 1 was ignored" in warning["message"]
    assert not socket.closes()
    await socket.end()


async def test_tokens_come_back_at_twenty_a_second():
    socket = await opened()
    await socket.frames(40)
    socket.clock.now += 0.5
    await socket.frames(15)
    assert socket.passed() == 50
    socket.clock.now += 10  # the bucket holds a burst at most, however long the pause
    await socket.frames(45)
    assert socket.passed() == 90
    await socket.end()


async def test_the_rate_warning_comes_once_a_second_and_counts_what_was_ignored():
    socket = await opened()
    await socket.frames(40)
    await socket.frames(300, every_s=0.01)  # 100 a second for 2.99 s
    assert socket.passed() == 40 + 59
    warnings = [e["message"] for e in socket.errors("rate_limited")]
    assert len(warnings) == 3
    counts = [int(m.split("; ")[1].split()[0]) for m in warnings]
    assert counts[0] == 1 and counts[0] < counts[1] < counts[2] < 300 - 59
    await socket.end()


async def test_a_frame_over_64_kib_is_refused_and_never_reaches_the_consumer():
    socket = await opened()
    await socket.frames(1, frame={"type": "websocket.receive", "text": "x" * 65537})
    euro = {"type": "websocket.receive", "text": "€" * 22000}  # 66,000 bytes
    await socket.frames(1, frame=euro)
    await socket.frames(1, frame={"type": "websocket.receive", "bytes": b"x" * 65537})
    assert socket.passed() == 0
    refusals = socket.errors("too_large")
    assert len(refusals) == 3
    assert "at most 64 KiB" in refusals[0]["message"]
    await socket.frames(1, frame={"type": "websocket.receive", "text": "x" * 65536})
    await socket.frames(1, frame={"type": "websocket.receive", "text": "é" * 32768})
    assert socket.passed() == 2
    await socket.end()


async def test_five_seconds_of_flooding_close_the_socket_after_an_error():
    socket = await opened()
    await socket.frames(40)
    await socket.frames(980, every_s=0.005)  # 200 a second for 4.9 s
    assert not socket.closes()
    await socket.frames(40, every_s=0.005)  # into the sixth second
    [close] = socket.closes()
    assert close["code"] == CLOSE_FLOODING == 4429
    flooding = socket.errors("flooding")
    assert len(flooding) == 1
    assert "far more than 20 messages a second for 5 seconds" in flooding[0]["message"]
    error, last = socket.sent[-2:]  # the error first, then the close
    assert (json.loads(error["text"])["code"], last) == ("flooding", close)
    passed, sent = socket.passed(), len(socket.sent)
    await socket.frames(500, every_s=0.01)  # what still arrives is dropped unread
    assert (socket.passed(), len(socket.sent)) == (passed, sent)
    await socket.end()


async def test_a_mib_of_large_frames_a_second_for_five_seconds_also_closes():
    socket = await opened()
    large = {"type": "websocket.receive", "text": "x" * 60_000}
    await socket.frames(40, frame=large)
    await socket.frames(196, every_s=1 / 40, frame=large)  # 20 over the rate: 1.2 MB/s
    assert not socket.closes()
    await socket.frames(10, every_s=1 / 40, frame=large)
    assert [m["code"] for m in socket.closes()] == [CLOSE_FLOODING]
    assert socket.errors()[-1]["code"] == "flooding"


async def test_large_frames_at_half_a_mib_over_the_rate_stay_open():
    socket = await opened()
    large = {"type": "websocket.receive", "text": "x" * 60_000}
    await socket.frames(900, every_s=1 / 30, frame=large)  # 10 over the rate, 30 s
    assert not socket.closes()
    await socket.end()


async def test_after_a_flood_close_waiting_frames_go_and_the_consumer_is_muted():
    socket = await opened()
    socket.reading.clear()
    await socket.frames(1040, every_s=0.005)  # a burst waits; 5.2 s at 200 a second
    assert [m["code"] for m in socket.closes()] == [CLOSE_FLOODING]
    sent = len(socket.sent)
    await socket.app_send({"type": "websocket.send", "text": '{"type":"pong"}'})
    assert len(socket.sent) == sent  # daphne would raise: the socket is closing
    socket.incoming.put_nowait({"type": "websocket.disconnect", "code": 4429})
    socket.reading.set()
    await asyncio.wait_for(socket.task, 1)
    assert socket.passed() == 1  # the frame it held; the waiting ones were let go
    assert socket.got[-1]["type"] == "websocket.disconnect"


async def test_a_warning_to_a_socket_already_closing_does_not_stop_the_reading():
    async def closing(message):
        raise ConnectionError("Attempt to send on a closed protocol")

    socket = Socket(Clock(), send=closing)
    socket.incoming.put_nowait({"type": "websocket.connect"})
    await socket.frames(60)  # 20 over the burst: the rate_limited warning fails
    await socket.end()
    assert socket.passed() == 40
    assert socket.got[-1] == {"type": "websocket.disconnect", "code": 1000}


async def test_a_thousand_in_a_second_then_a_normal_pace_stays_open():
    socket = await opened()
    await socket.frames(1000, every_s=0.001)
    await socket.frames(20, every_s=0.5)
    assert not socket.closes()
    assert socket.passed() == 40 + 19 + 20
    await socket.end()


async def test_twice_the_rate_for_a_minute_is_limited_but_never_closed():
    socket = await opened()
    await socket.frames(2400, every_s=1 / 40)
    assert not socket.closes()
    assert 40 + 1180 <= socket.passed() <= 40 + 1200
    assert len(socket.errors("rate_limited")) >= 50  # one a second, once dropping
    await socket.end()


async def test_flooding_with_a_pause_every_four_seconds_stays_open():
    socket = await opened()
    for _ in range(4):
        await socket.frames(800, every_s=0.005)  # 4 s at 200 a second
        socket.clock.now += 1.5  # a second with no message at all
    assert not socket.closes()
    assert socket.errors("rate_limited")
    await socket.end()


async def test_a_stalled_consumer_has_at_most_a_burst_waiting():
    socket = await opened()
    socket.reading.clear()
    await socket.frames(100, every_s=0.05)  # within the rate: 20 a second
    assert socket.errors("rate_limited") == []
    busy = socket.errors("busy")
    assert len(busy) in (3, 4)  # once a second over 3 s of dropping
    assert "1 was ignored" in busy[0]["message"]  # the first warning: one dropped
    socket.reading.set()
    await settle()
    assert socket.passed() == 1 + 40  # the one in the consumer's hands, and a burst
    await socket.frames(5, every_s=0.05)
    assert socket.passed() == 46
    await socket.end()


async def test_connect_and_disconnect_reach_a_full_consumer():
    socket = Socket(Clock())
    socket.reading.clear()
    socket.incoming.put_nowait({"type": "websocket.connect"})
    await socket.frames(45)
    socket.incoming.put_nowait({"type": "websocket.disconnect", "code": 1001})
    await settle()
    socket.reading.set()
    await asyncio.wait_for(socket.task, 1)
    kinds = [m["type"] for m in socket.got]
    # the connect took one of the burst's places; the disconnect needs none
    assert kinds == ["websocket.connect"] + ["websocket.receive"] * 39 + [
        "websocket.disconnect"
    ]


async def test_a_failed_read_ends_the_consumer_instead_of_leaving_it_waiting():
    async def broken():
        raise RuntimeError("the socket's queue broke")

    got = []

    async def app(scope, receive, send):
        got.append(await receive())

    await asyncio.wait_for(InboundLimits(app)({"type": "websocket"}, broken, None), 1)
    assert got == [{"type": "websocket.disconnect", "code": 1011}]


async def test_http_passes_through_untouched():
    seen = []

    async def app(scope, receive, send):
        seen.append((scope, receive, send))

    scope, receive, send = {"type": "http"}, object(), object()
    await InboundLimits(app)(scope, receive, send)
    assert seen == [(scope, receive, send)]
