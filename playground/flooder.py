"""A message flood against a live server, for tests/attacks and benchmarks/flood.py.

Each flooder is one socket sending the same 60 KB `ping` as fast as the connection
takes it; when the server closes it, it connects again (as an attacker would) until
the flood ends. Everything the server sends back is read and its error codes kept, so
a caller can check what came before a close. The server's memory is sampled meanwhile.
"""

import asyncio
import json
import time
from dataclasses import dataclass, field

from websockets.exceptions import ConnectionClosed

from playground.liveserver import Daphne, LiveSocket

FRAME_BYTES = 60_000


@dataclass
class Ending:
    """How one flooding connection ended, and the error codes it got before."""

    close_code: int | None
    by_server: bool
    errors: list[str]


@dataclass
class Flood:
    """Sockets flooding one server until `seconds` pass or `stop` is set."""

    server: Daphne
    sockets: int
    seconds: float
    frame_bytes: int = FRAME_BYTES
    slug: str = "quorum"
    frames: int = 0
    endings: list[Ending] = field(default_factory=list)
    stop: asyncio.Event = field(default_factory=asyncio.Event)

    async def run(self) -> "Flood":
        """Flood with every socket at once; return when all have stopped."""
        pad = "a" * (self.frame_bytes - len('{"type":"ping","pad":""}'))
        frame = json.dumps({"type": "ping", "pad": pad})
        deadline = time.monotonic() + self.seconds
        ender = asyncio.create_task(self._end_at(deadline))
        await asyncio.gather(*(self._flooder(frame) for _ in range(self.sockets)))
        ender.cancel()
        return self

    def closed_by_server(self) -> list[Ending]:
        return [e for e in self.endings if e.by_server]

    async def _end_at(self, deadline: float) -> None:
        await asyncio.sleep(max(0.0, deadline - time.monotonic()))
        self.stop.set()

    async def _flooder(self, frame: str) -> None:
        while not self.stop.is_set():
            socket = await LiveSocket.open(self.server, self.slug)
            errors: list[str] = []
            reader = asyncio.create_task(_read_errors(socket, errors))
            try:
                while not self.stop.is_set():
                    await socket.ws.send(frame)
                    self.frames += 1
                    # websockets' send returns without yielding while the kernel
                    # takes the bytes: let the other sockets (and a bystander) run
                    await asyncio.sleep(0)
            except ConnectionClosed:
                pass
            by_server = socket.ws.close_code is not None
            if not by_server:
                socket.ws.transport.abort()  # no goodbye: it would only time the drain
            await asyncio.wait([reader], timeout=5)
            reader.cancel()
            self.endings.append(Ending(socket.ws.close_code, by_server, errors))


async def _read_errors(socket: LiveSocket, errors: list[str]) -> None:
    """Read everything the server sends; keep the error codes."""
    try:
        async for text in socket.ws:
            message = json.loads(text)
            if message.get("type") == "error":
                errors.append(message["code"])
    except ConnectionClosed:
        pass


@dataclass
class Memory:
    """A server's resident memory, sampled every `every_s` until stopped."""

    server: Daphne
    every_s: float = 0.1
    samples: list[tuple[float, float]] = field(default_factory=list)

    async def watch(self, stop: asyncio.Event, give_up_mb: float | None = None):
        """Sample until `stop`; set it first if memory passes `give_up_mb`."""
        started = time.monotonic()
        while not stop.is_set():
            rss = self.server.rss_mb()
            self.samples.append((time.monotonic() - started, rss))
            if give_up_mb is not None and rss > give_up_mb:
                stop.set()
                return
            await asyncio.sleep(self.every_s)

    def peak_after(self, seconds: float) -> float:
        """The most memory seen from `seconds` into the watch on."""
        return max(rss for t, rss in self.samples if t >= seconds)
