"""The clients of the fan-out benchmark: a host that acts, students that watch.

All run in this one process on asyncio (`websockets`), so host and students share a
clock: a frame's latency is the student's receive time minus the host's send time of
the action it carries (matched by `ref`). Students never decode a frame's JSON: its
sequence number and ref are read from the fixed prefix the server writes
(`{"type":"frame","seq":N,"t_ms":T,"ref":...`), its digest from the end, so 1,000
sockets fit on one core beside the server.
"""

import asyncio
import contextlib
import json
import random
import re
import time

from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake

FRAME = re.compile(
    rb'\{"type":"frame","seq":(\d+),"t_ms":-?\d+,"ref":(?:null|"([^"]*)")'
)
DIGEST = re.compile(rb'"digest":"([0-9a-f]*)"\}$')
HELLO = b'{"type":"hello"'
BACKOFF_FIRST = (
    1.0  # static/js/socket.js: 1 s, doubling, at most 10 s, half of it jitter
)
BACKOFF_MAX = 10.0
CONNECT_ERRORS = (OSError, InvalidHandshake, ConnectionClosed, TimeoutError)


def options(url: str) -> dict:
    """What a browser on the page would send: its Origin; no compression, no pings."""
    origin = "http://" + url.split("://", 1)[1].split("/", 1)[0]
    return {
        "origin": origin,
        "compression": None,
        "ping_interval": None,
        "open_timeout": 30,
        "close_timeout": 1,
        "max_size": 4 * 2**20,
    }


class Tally:
    """What every socket of one run saw: send times by ref, and latencies."""

    def __init__(self) -> None:
        self.sent: dict[bytes, float] = {}
        self.latencies: list[float] = []
        self.spans: dict[bytes, list[float]] = {}  # ref: [first, last] latency
        self.frame_bytes = 0
        self.frame_count = 0


class Student:
    """A watching socket that checks every frame's seq (no gap, no duplicate)."""

    def __init__(self, tally: Tally, url: str) -> None:
        self.tally = tally
        self.url = url
        self.ws = None
        self.task: asyncio.Task | None = None
        self.hello_seq = -1  # the first hello's seq: frames are owed from there
        self.last = -1
        self.digest = b""
        self.frames = 0
        self.gaps = 0
        self.dups = 0
        self.others = 0
        self.hellos: list[tuple[float, int, str]] = []
        self.bad_resyncs = 0
        self.closed = False
        self.stopped = False

    async def open(self) -> None:
        """Connect and wait for the hello (messages before it are counted, not read)."""
        self.ws = await connect(self.url, **options(self.url))
        while True:
            raw = await self.ws.recv(decode=False)
            if raw.startswith(HELLO):
                self.on_hello(raw)
                return
            self.others += 1

    def on_hello(self, raw: bytes) -> None:
        message = json.loads(raw)
        seq, digest = message["seq"], message.get("digest") or ""
        if self.last >= 0:  # a resync: never behind, and the same state at equal seq
            if seq < self.last or (seq == self.last and digest.encode() != self.digest):
                self.bad_resyncs += 1
        else:
            self.hello_seq = seq
        self.hellos.append((time.perf_counter(), seq, digest))
        self.last = seq
        self.digest = digest.encode()

    def start(self) -> None:
        self.task = asyncio.get_running_loop().create_task(self.read())

    async def read(self) -> None:
        ws, tally = self.ws, self.tally
        sent, latencies, spans = tally.sent, tally.latencies, tally.spans
        try:
            while True:
                raw = await ws.recv(decode=False)
                match = FRAME.match(raw)
                if match is None:
                    if raw.startswith(HELLO):
                        self.on_hello(raw)
                    else:
                        self.others += 1
                    continue
                now = time.perf_counter()
                seq = int(match[1])
                if seq <= self.last:
                    self.dups += 1
                    continue
                if seq != self.last + 1:
                    self.gaps += seq - self.last - 1
                self.frames += 1
                self.last = seq
                tail = DIGEST.search(raw, max(0, len(raw) - 90))
                self.digest = tail[1] if tail else b""
                ref = match[2]
                if ref is not None:
                    start = sent.get(ref)
                    if start is not None:
                        latency = now - start
                        latencies.append(latency)
                        span = spans.get(ref)
                        if span is None:
                            spans[ref] = [latency, latency]
                        else:
                            span[1] = latency
                tally.frame_bytes += len(raw)
                tally.frame_count += 1
        except ConnectionClosed:
            self.closed = True

    async def keep(self) -> None:
        """Read; when the socket drops, reconnect as the page does (backoff, jitter)."""
        attempt = 0
        while not self.stopped:
            await self.read()
            if self.stopped:
                return
            while not self.stopped:
                ceiling = min(BACKOFF_MAX, BACKOFF_FIRST * 2**attempt)
                await asyncio.sleep(ceiling / 2 + random.random() * ceiling / 2)
                attempt += 1
                try:
                    await self.open()
                except CONNECT_ERRORS:
                    continue
                attempt = 0
                self.closed = False
                break

    async def close(self) -> None:
        self.stopped = True
        if self.ws is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.ws.close(), 2)
        if self.task is not None:
            self.task.cancel()


class Host:
    """The acting socket: claims the class, then sends actions on a fixed schedule."""

    def __init__(self, tally: Tally, url: str, prefix: str) -> None:
        self.tally = tally
        self.url = url
        self.prefix = prefix
        self.ws = None
        self.task: asyncio.Task | None = None
        self.acked = 0  # frames carrying our refs
        self.last = -1
        self.errors: dict[str, int] = {}
        self.sent = 0

    async def open(self, secret: str | None) -> None:
        self.ws = await connect(self.url, **options(self.url))
        await _until(self.ws, "hello")
        if secret is not None:
            await self.ws.send(json.dumps({"type": "claim_host", "secret": secret}))
            message = await _until(self.ws, "role", "error")
            if message["type"] != "role":
                raise RuntimeError(f"claim_host refused: {message}")
        self.task = asyncio.get_running_loop().create_task(self.read())

    async def read(self) -> None:
        own = self.prefix.encode()
        try:
            while True:
                raw = await self.ws.recv(decode=False)
                match = FRAME.match(raw)
                if match is not None:
                    self.last = int(match[1])
                    if match[2] is not None and match[2].startswith(own):
                        self.acked += 1
                elif raw.startswith(b'{"type":"error"'):
                    code = json.loads(raw).get("code", "?")
                    self.errors[code] = self.errors.get(code, 0) + 1
        except ConnectionClosed:
            pass

    async def act(self, rate: float, count: int, action) -> None:
        """Send `count` actions at `rate` a second (on schedule, never bunched)."""
        start = time.perf_counter() + 0.05
        for i in range(count):
            delay = start + i / rate - time.perf_counter()
            if delay > 0:
                await asyncio.sleep(delay)
            name, args = action(i)
            ref = f"{self.prefix}{i}"
            text = json.dumps(
                {"type": "action", "ref": ref, "action": name, "args": args}
            )
            self.tally.sent[ref.encode()] = time.perf_counter()
            await self.ws.send(text)
            self.sent += 1

    async def close(self) -> None:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.ws.close(), 2)
        if self.task is not None:
            self.task.cancel()


async def _until(ws, *types: str) -> dict:
    """The next message of one of `types` (others are skipped)."""
    while True:
        raw = await ws.recv(decode=False)
        if raw.startswith(b'{"type":"frame"'):
            continue
        message = json.loads(raw)
        if message.get("type") in types:
            return message


async def open_class(ws_base: str, slug: str) -> tuple[str, str]:
    """A class room made as a teacher makes one: a private room, then `start_class`."""
    url = f"{ws_base}/ws/labs/{slug}/?seed=1"
    async with connect(url, **options(url)) as ws:
        await _until(ws, "hello")
        await ws.send(json.dumps({"type": "start_class", "ref": "s"}))
        message = await _until(ws, "class_started", "error")
        if message["type"] != "class_started":
            raise RuntimeError(f"start_class refused: {message}")
        return message["room"], message["secret"]


async def connect_all(students: list[Student]) -> tuple[float, list[BaseException]]:
    """Open every socket at once (a burst); seconds until the last hello, failures."""
    start = time.perf_counter()
    results = await asyncio.gather(
        *(s.open() for s in students), return_exceptions=True
    )
    elapsed = time.perf_counter() - start
    failures = [r for r in results if isinstance(r, BaseException)]
    return elapsed, failures


async def quiet(students: list[Student], still: float = 0.5, most: float = 30) -> None:
    """Wait until no socket has received anything for `still` seconds."""
    deadline = time.perf_counter() + most
    seen = -1
    while time.perf_counter() < deadline:
        now = sum(s.others + s.frames for s in students)
        if now == seen:
            return
        seen = now
        await asyncio.sleep(still)
