"""Memory per idle socket, and memory given back after they close (issue 29, item 4).

`python -m benchmarks.idle_sockets [--sockets N] [--labs quorum,hash-placement]
[--after S] [--markdown]`

For each lab, a fresh daphne (SQLite, in-memory layer) on loopback: its VmRSS 1 s after
it listens (idle), then N sockets open to the lab one after another (each a private
room of its own, as N visitors' tabs; they come from 127.0.0.x addresses in turn and
the server allows any number of rooms an address, so the per-address limits do not
refuse them), each waiting for its `hello`; 2 s later the RSS again (connected): the
difference over N is the memory of one idle socket with its room. Then every socket
closes, and the RSS is read every second for `--after` seconds (the private rooms leave
memory `PLAYGROUND_PRIVATE_IDLE_SECONDS` after their last socket, set to 2 s here, so
what is still held after that is memory not given back).
"""

import argparse
import asyncio
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from playground.liveserver import (
    ROOT,
    Daphne,
    LiveSocket,
    migrate,
    server_env,
    start_daphne,
)

IDLE_EVICT_S = 2
ENV = {
    "PLAYGROUND_ROOMS_PER_ADDRESS": "1000000/minute",
    "PLAYGROUND_PRIVATE_IDLE_SECONDS": str(IDLE_EVICT_S),
    # the caps of issue 29 above what is measured here
    "PLAYGROUND_MAX_SOCKETS": "100000",
    "PLAYGROUND_MAX_ROOMS": "100000",
}


@dataclass
class Run:
    """One lab's N idle sockets on one fresh server."""

    lab: str
    sockets: int
    idle_mb: float = 0.0
    connected_mb: float = 0.0
    quiet_mb: float = 0.0  # after `--quiet` seconds with nothing sent
    after_mb: list[float] = field(default_factory=list)
    open_s: float = 0.0

    @property
    def per_socket_kb(self) -> float:
        return (self.connected_mb - self.idle_mb) * 1024 / self.sockets

    def text(self) -> str:
        tail = " → ".join(
            f"{mb:.0f}" for mb in self.after_mb[:: max(1, len(self.after_mb) // 6)]
        )
        quiet = ""
        if self.quiet_mb:
            per_socket = (self.quiet_mb - self.idle_mb) * 1024 / self.sockets
            quiet = f", {self.quiet_mb:.0f} MB quiet ({per_socket:.0f} KB a socket)"
        return (
            f"{self.lab}: {self.sockets} sockets in {self.open_s:.1f} s; RSS "
            f"{self.idle_mb:.0f} idle → {self.connected_mb:.0f} MB connected "
            f"({self.per_socket_kb:.0f} KB a socket){quiet}; after closing: {tail} "
            f"(last {self.after_mb[-1]:.0f} MB)"
        )


async def measure(
    server: Daphne, lab: str, sockets: int, after_s: float, quiet_s: float = 0
) -> Run:
    run = Run(lab, sockets)
    await asyncio.sleep(1)
    run.idle_mb = server.rss_mb()
    opened: list[LiveSocket] = []
    started = time.monotonic()
    for i in range(sockets):
        socket = await LiveSocket.open(server, lab, source=f"127.0.0.{10 + i % 200}")
        await socket.next("hello", timeout=60)
        opened.append(socket)
    run.open_s = time.monotonic() - started
    await asyncio.sleep(2)
    run.connected_mb = server.rss_mb()
    if quiet_s:
        await asyncio.sleep(quiet_s)
        run.quiet_mb = server.rss_mb()
    await asyncio.gather(*(s.close() for s in opened))
    for _ in range(int(after_s)):
        await asyncio.sleep(1)
        run.after_mb.append(server.rss_mb())
    return run


def one(
    lab: str, sockets: int, after_s: float, extra: dict, quiet_s: float, root: Path
) -> Run:
    with tempfile.TemporaryDirectory() as var:
        env = server_env(Path(var), **{**ENV, **extra})
        migrate(env, root=root)
        server = start_daphne(Path(var), env, root=root)
        try:
            return asyncio.run(measure(server, lab, sockets, after_s, quiet_s))
        finally:
            server.stop()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.idle_sockets")
    parser.add_argument("--sockets", type=int, default=300)
    parser.add_argument("--labs", default="quorum,hash-placement")
    parser.add_argument("--after", type=float, default=20)
    parser.add_argument(
        "--quiet",
        type=float,
        default=0,
        help="seconds to wait, connected and silent, before reading the RSS again",
    )
    parser.add_argument(
        "--env", action="append", default=[], help="NAME=VALUE for the server"
    )
    parser.add_argument(
        "--root", type=Path, default=ROOT, help="another checkout's code to serve"
    )
    args = parser.parse_args(argv)
    extra = dict(item.split("=", 1) for item in args.env)
    for lab in args.labs.split(","):
        run = one(lab, args.sockets, args.after, extra, args.quiet, args.root)
        print(run.text(), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
