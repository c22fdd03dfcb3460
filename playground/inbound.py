"""What a websocket client may send, decided as its frames arrive, before Channels.

daphne puts every frame a client sends in an unbounded queue per socket, and a Channels
consumer takes several event-loop turns per message while daphne's reader adds about
one frame per turn: a client sending as fast as it can fills that queue faster than the
consumer empties it (four sockets of 60 KB frames took the server from 72 to 745 MB in
10 s, never given back; docs/benchmarks.md). Here one task per socket empties daphne's
queue as fast as frames arrive (a `get` on a non-empty queue does not even yield),
decides each frame in constant time and lets a dropped frame go at once; the consumer
is handed at most a burst's worth of frames. The limits (docs/protocol.md): a token
bucket of `PLAYGROUND_MESSAGES_PER_SECOND` (bursts of twice that), `too_large` for a
frame over `PLAYGROUND_MAX_MESSAGE_BYTES`, and 4429 for a client that keeps flooding.
"""

import asyncio
import json
import logging
import time
from collections.abc import Callable

from django.conf import settings
from django.utils import translation
from django.utils.translation import gettext, ngettext

from playground.language import of_scope

CLOSE_FLOODING = 4429
# A flooding second is one in which a socket had twice its rate of messages dropped
# (it sent three times the limit) or a MiB of them (large frames cost the server per
# byte to unmask, check and decode, even dropped); five in a row close it. A page
# sends one small message per click or key, throttles drags to five a second
# (history-bar.js), and a held key repeats about 30 times a second: it never drops
# 40 messages, nor a MiB, in a second. A reconnecting class is many sockets with a
# bucket each, and a socket sends nothing before its hello. A burst of a thousand in
# one second (tests/server/test_classroom.py) is only rate-limited. Not higher: a
# server reading many flooders at once takes fewer frames from each (eight sockets of
# 60 KB frames got 50 to 200 a second each through on the shared 2-core machine).
FLOOD_DROPS_PER_RATE = 2
FLOOD_BYTES_PER_SECOND = 1024 * 1024
FLOOD_SECONDS = 5
log = logging.getLogger(__name__)


class RateLimit:
    """A token bucket: `rate` messages a second, bursts of twice that."""

    def __init__(self, rate: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.rate = rate
        self.burst = 2 * rate
        self.clock = clock
        self.tokens = float(self.burst)
        self.stamp = clock()
        self.dropped = 0

    def allow(self) -> bool:
        """Take a token if there is one; count the message as dropped otherwise."""
        now = self.clock()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        self.dropped += 1
        return False


class OncePerSecond:
    """At most one warning a second: a flood is not answered with a flood."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.warned_at: float | None = None

    def ready(self) -> bool:
        """Whether a warning may go now (then the next one waits a second)."""
        now = self.clock()
        if self.warned_at is None or now - self.warned_at >= 1.0:
            self.warned_at = now
            return True
        return False


class FloodMeter:
    """Flooding seconds in a row: seconds (since the socket opened) of many drops."""

    def __init__(
        self, per_second: int, bytes_per_second: int, clock: Callable[[], float]
    ) -> None:
        self.per_second = per_second
        self.bytes_per_second = bytes_per_second
        self.clock = clock
        self.window = clock()
        self.count = 0
        self.bytes = 0
        self.streak = 0

    def dropped(self, size: int) -> int:
        """Count one dropped message of `size` bytes; the flooding seconds in a row."""
        now = self.clock()
        ended = int(now - self.window)
        if ended:
            # a streak needs back-to-back flooding seconds: one without, or a
            # second with no drop at all (ended > 1), starts it again
            many = self.count >= self.per_second or self.bytes >= self.bytes_per_second
            self.streak = self.streak + 1 if many and ended == 1 else 0
            self.window += ended
            self.count = self.bytes = 0
        self.count += 1
        self.bytes += size
        return self.streak


class Inbox:
    """One socket's inbound side: what the consumer gets, and what is dropped."""

    def __init__(self, send, clock: Callable[[], float] = time.monotonic) -> None:
        rate = settings.PLAYGROUND_MESSAGES_PER_SECOND
        self.send_out = send  # daphne's
        self.limit = RateLimit(rate, clock)
        self.flood = FloodMeter(
            FLOOD_DROPS_PER_RATE * rate, FLOOD_BYTES_PER_SECOND, clock
        )
        self.max_bytes = settings.PLAYGROUND_MAX_MESSAGE_BYTES
        self.rate_warning = OncePerSecond(clock)
        self.busy_warning = OncePerSecond(clock)
        # the consumer's frames, a burst's worth at most (connect and disconnect
        # always go in): a client within the rate loses nothing unless its consumer
        # stalls for seconds, and a socket holds at most 40 × 64 KiB (2.5 MiB) here
        self.waiting: asyncio.Queue = asyncio.Queue()
        self.most_waiting = self.limit.burst
        self.busy_dropped = 0
        self.closed = False

    async def receive(self) -> dict:
        """The consumer's `receive`."""
        return await self.waiting.get()

    async def send(self, message: dict) -> None:
        """The consumer's `send`: nothing goes out once this closed the socket.

        daphne raises for a send on a closing socket, and the consumer would still be
        answering the frames it had taken.
        """
        if not self.closed:
            await self.send_out(message)

    async def read(self, receive) -> None:
        """Take every message from daphne as it comes, until the socket is gone."""
        while True:
            message = await receive()
            kind = message["type"]
            if kind == "websocket.receive":
                await self.take(message)
                continue
            self.waiting.put_nowait(message)
            if kind == "websocket.disconnect":
                return

    async def take(self, message: dict) -> None:
        """Decide one frame: pass it on, or drop it (and say so, now and then)."""
        if self.closed:
            return  # closed for flooding: what still arrives is dropped unread
        if not self.limit.allow():
            await self.over_limit(message)
        elif _size(message) > self.max_bytes:
            await self.send_error(
                "too_large",
                gettext("a message may be at most %(size)s KiB")
                % {"size": self.max_bytes // 1024},
            )
        elif self.waiting.qsize() >= self.most_waiting:
            await self.busy()
        else:
            self.waiting.put_nowait(message)

    async def over_limit(self, message: dict) -> None:
        """A frame over the rate: dropped; a warning a second; a long flood closes."""
        if self.flood.dropped(_size(message, exact=False)) >= FLOOD_SECONDS:
            await self.close_for_flooding()
        elif self.rate_warning.ready():
            await self.send_error(
                "rate_limited",
                ngettext(
                    "slow down: at most %(rate)s messages a second; "
                    "%(dropped)s was ignored",
                    "slow down: at most %(rate)s messages a second; "
                    "%(dropped)s were ignored",
                    self.limit.dropped,
                )
                % {"rate": self.limit.rate, "dropped": self.limit.dropped},
            )

    async def close_for_flooding(self) -> None:
        """Say why, close with 4429, and let the frames still waiting go."""
        await self.send_error(
            "flooding",
            gettext(
                "this connection sent far more than %(rate)s messages a second "
                "for %(seconds)s seconds and is closed"
            )
            % {"rate": self.limit.rate, "seconds": FLOOD_SECONDS},
        )
        await self.say({"type": "websocket.close", "code": CLOSE_FLOODING})
        self.closed = True
        kept = []
        while not self.waiting.empty():
            message = self.waiting.get_nowait()
            if message["type"] != "websocket.receive":
                kept.append(message)
        for message in kept:
            self.waiting.put_nowait(message)

    async def busy(self) -> None:
        """A frame within the rate while the consumer is a burst behind: dropped."""
        self.busy_dropped += 1
        if self.busy_warning.ready():
            await self.send_error(
                "busy",
                ngettext(
                    "the server is still busy with your earlier messages; "
                    "%(dropped)s was ignored",
                    "the server is still busy with your earlier messages; "
                    "%(dropped)s were ignored",
                    self.busy_dropped,
                )
                % {"dropped": self.busy_dropped},
            )

    async def send_error(self, code: str, message: str) -> None:
        """An `error` as the consumer sends it (no ref: the frame was not read)."""
        payload = {"type": "error", "code": code, "message": message, "ref": None}
        # compact ASCII JSON, as rooms.encode; this module imports nothing of the
        # rooms' (a benchmark reads its close code without setting Django up)
        text = json.dumps(payload, separators=(",", ":"))
        await self.say({"type": "websocket.send", "text": text})

    async def say(self, message: dict) -> None:
        """Send from here; a socket that is already closing is left to close."""
        try:
            await self.send_out(message)
        except Exception:  # daphne's autobahn raises Disconnected once it closes
            self.closed = True

    def reader_done(self, task: asyncio.Task) -> None:
        """If reading failed, end the consumer too rather than leave it waiting."""
        if task.cancelled() or task.exception() is None:
            return
        log.error("reading a websocket failed", exc_info=task.exception())
        self.waiting.put_nowait({"type": "websocket.disconnect", "code": 1011})


class InboundLimits:
    """ASGI middleware: every websocket's frames go through an `Inbox` first."""

    def __init__(self, app, clock: Callable[[], float] = time.monotonic) -> None:
        self.app = app
        self.clock = clock

    async def __call__(self, scope, receive, send):
        if scope["type"] != "websocket":
            return await self.app(scope, receive, send)
        inbox = Inbox(send, self.clock)
        # its warnings in the socket's language (the task keeps the one active here)
        with translation.override(of_scope(scope)):
            reader = asyncio.create_task(inbox.read(receive))
        reader.add_done_callback(inbox.reader_done)
        try:
            return await self.app(scope, inbox.receive, inbox.send)
        finally:
            reader.cancel()


def _size(message: dict, exact: bool = True) -> int:
    """A frame's size in bytes (text as UTF-8, as it came over the wire).

    Not `exact`: a text's length in characters, a lower bound read in constant time."""
    data = message.get("bytes")
    if data is not None:
        return len(data)
    text = message.get("text") or ""
    if not exact or text.isascii():
        return len(text)
    return len(text.encode("utf-8", "replace"))
