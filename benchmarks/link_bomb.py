"""The link bomb (issue 9): a bystander's wait while sockets open heavy links, hang up.

`python -m benchmarks.link_bomb [--seconds S] [--root DIR] [--markdown]`; also part of
`python -m benchmarks` (skip it with `--no-flood`).

Eight attacking sockets, each from an address of its own (127.0.1.1 to 127.0.1.8, so
that no one address's allowance stops them), open over and over for S seconds (20 by
default) a link that
is heavy to replay (a million keys loaded, then two shards added: about 4 s of declared
work, under the 6 s a link may take) and hang up 0.3 s later. A newcomer (the
bystander) opens a quorum lab every 2 s from 2 s in and times its `hello`, then the
frame of one action; the peer in the same run is the same bystander against the same
server with nobody attacking. The server's RSS is read every 0.1 s. `--root` serves the
code of another checkout instead (how the "before" rows of docs/benchmarks.md were
measured, on the commit before the replay lanes).
"""

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from websockets.exceptions import WebSocketException

from benchmarks.fanout import TargetRow
from benchmarks.fanout_servers import load_average, server_env
from benchmarks.flood import bystanders
from benchmarks.timing import render
from playground.flooder import Memory
from playground.history import Entry
from playground.links import make_link
from playground.liveserver import ROOT, LiveSocket, migrate, start_daphne

ATTACKERS = 8
HANG_UP_S = 0.3
HEAVY = [
    ("load_keys", {"kind": "registration", "count": 1_000_000}),
    ("add_shard", {}),
    ("add_shard", {}),
]
BOUND_S = 1.0


@dataclass
class Bomb:
    """What one run saw: the bystander's waits, quiet and under attack, and memory."""

    root: str
    seconds: float
    quiet: list[tuple[float, float]] = field(default_factory=list)
    attacked: list[tuple[float, float]] = field(default_factory=list)
    opened: int = 0  # attacking sockets opened
    refused: int = 0  # attacking sockets the server did not even accept in 10 s
    idle_mb: float = 0.0
    peak_mb: float = 0.0
    after_mb: float = 0.0

    def worst(self, waits) -> float:
        return max((max(w) for w in waits), default=float("nan"))

    def median(self, waits) -> float:
        return statistics.median(max(w) for w in waits) if waits else float("nan")


def heavy_link() -> str:
    entries = [Entry(n, name, args) for n, (name, args) in enumerate(HEAVY, 1)]
    return make_link("hash-placement", 1, entries, len(entries))


async def attack(
    server, link: str, source: str, stop: asyncio.Event, bomb: Bomb
) -> None:
    """Open the heavy link and hang up, again and again, until `stop`."""
    while not stop.is_set():
        try:
            socket = await LiveSocket.open(server, "hash-placement", source, link=link)
        except (OSError, TimeoutError, WebSocketException):
            bomb.refused += 1  # a server too busy even to shake hands (before)
            continue
        bomb.opened += 1
        await asyncio.sleep(HANG_UP_S)
        await socket.close()


async def run(seconds: float, root: Path) -> Bomb:
    bomb = Bomb(str(root), seconds)
    with tempfile.TemporaryDirectory() as var_dir:
        env = server_env(Path(var_dir))
        migrate(env, root=root)
        server = start_daphne(Path(var_dir), env, root=root)
        try:
            await asyncio.sleep(1)
            bomb.idle_mb = server.rss_mb()
            quiet = asyncio.Event()
            asyncio.get_running_loop().call_later(seconds / 2, quiet.set)
            bomb.quiet = await bystanders(server, quiet)
            stop = asyncio.Event()
            memory = Memory(server)
            watching = asyncio.create_task(memory.watch(stop))
            link = heavy_link()
            attackers = [
                asyncio.create_task(attack(server, link, f"127.0.1.{n}", stop, bomb))
                for n in range(1, ATTACKERS + 1)
            ]
            asyncio.get_running_loop().call_later(seconds, stop.set)
            bomb.attacked = await bystanders(server, stop)
            await asyncio.gather(*attackers, watching)
            bomb.peak_mb = max(rss for _, rss in memory.samples)
            began = time.monotonic()
            while time.monotonic() - began < 5:
                await asyncio.sleep(0.5)
            bomb.after_mb = server.rss_mb()
        finally:
            server.stop()
    return bomb


def describe(bomb: Bomb) -> str:
    quiet, attacked = bomb.quiet, bomb.attacked
    return (
        f"bystander's slower of hello and action: quiet median "
        f"{1000 * bomb.median(quiet):.0f} ms, worst {1000 * bomb.worst(quiet):.0f} ms; "
        f"under attack median {1000 * bomb.median(attacked):.0f} ms, worst "
        f"{1000 * bomb.worst(attacked):.0f} ms ({len(attacked)} newcomers); "
        f"{bomb.opened} heavy links opened and dropped ({bomb.refused} not "
        f"accepted); RSS {bomb.idle_mb:.0f} idle → "
        f"peak {bomb.peak_mb:.0f} → {bomb.after_mb:.0f} MB 5 s after"
    )


def rows(bomb: Bomb) -> list:
    worst = bomb.worst(bomb.attacked)
    ratio = worst / bomb.worst(bomb.quiet) if bomb.quiet else float("nan")
    return [
        f"Link bomb: {ATTACKERS} sockets open a heavy link and hang up "
        f"(load average {load_average()})",
        TargetRow(
            "link bomb, bystander",
            f"{describe(bomb)}; worst under attack / worst quiet {ratio:.1f}×",
            f"bystander < {BOUND_S:g} s",
            bool(worst < BOUND_S),
        ),
    ]


def link_bomb_rows(seconds: float = 20.0) -> list:
    """The run, as rows of the benchmark table."""
    return rows(asyncio.run(run(seconds, ROOT)))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.link_bomb")
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--root", type=Path, default=ROOT)
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args(argv)
    table = rows(asyncio.run(run(args.seconds, args.root)))
    print(render(table, markdown=args.markdown))
    return 1 if any(getattr(r, "passed", None) is False for r in table) else 0


if __name__ == "__main__":
    sys.exit(main())
