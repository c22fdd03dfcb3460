"""Message floods (issue 9): the server's memory, and a bystander's wait, under a flood.

`python -m benchmarks.flood [--seconds S] [--sockets 4,8] [--markdown]`; also part of
`python -m benchmarks` (skip it with `--no-flood`).

For 4 and then 8 sockets, each case in a fresh server process on loopback: the sockets
send 60 KB `ping` frames as fast as the connection takes them for S seconds (10 by
default), reconnecting when the server closes them (playground/flooder.py). The
server's VmRSS is read every 0.1 s: idle (1 s after it listens), warm (1 s into the
flood, once the first frames and connections have been allocated for), the peak after
that, and 3 s after the flood. A newcomer (the bystander) opens a socket every 2 s
from 2 s into the flood and times its `hello`, then the frame of one action; the worst
is shown. The peer in the same run is the floor: the same daphne serving a bare ASGI
app that only `await receive()`s (benchmarks/flood_floor.py). A flood whose server
grew 3 GB is stopped early (the code before playground/inbound.py got there).
"""

import argparse
import asyncio
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from benchmarks.fanout import TargetRow
from benchmarks.fanout_servers import load_average, server_env
from benchmarks.timing import render
from playground.flooder import Flood, Memory
from playground.inbound import CLOSE_FLOODING
from playground.liveserver import APPLICATION, migrate, round_trip, start_daphne

FLOOR = "benchmarks.flood_floor:application"
WARM_UP_S = 1.0
BYSTANDER_EVERY_S = 2.0
AFTER_S = 3.0
GROWTH_BOUND_MB = 50
GIVE_UP_MB = 3000
GIVE_UP_S = 30.0


@dataclass
class Case:
    """One flood against one server: memory, the bystanders' waits, the closes."""

    server: str
    sockets: int
    seconds: float
    frames: int = 0
    idle_mb: float = 0.0
    warm_mb: float = 0.0
    peak_mb: float = 0.0
    after_mb: float = 0.0
    waits: list[tuple[float, float]] = field(default_factory=list)
    closed: int = 0  # connections the server closed with 4429
    stopped_early: bool = False

    @property
    def growth_mb(self) -> float:
        return max(self.peak_mb, self.after_mb) - self.warm_mb

    def worst(self) -> tuple[float, float]:
        """The slowest hello and the slowest action of the bystanders, in ms."""
        if not self.waits:
            return float("nan"), float("nan")
        return tuple(1000 * max(w[i] for w in self.waits) for i in (0, 1))


async def run_case(server_name: str, app: str, sockets: int, seconds: float) -> Case:
    """One flood against a fresh server serving `app`."""
    case = Case(server_name, sockets, seconds)
    with tempfile.TemporaryDirectory() as var_dir:
        env = server_env(Path(var_dir))
        migrate(env)
        server = start_daphne(Path(var_dir), env, app=app, name=server_name[:5])
        try:
            await asyncio.sleep(1)
            case.idle_mb = server.rss_mb()
            flood = Flood(server, sockets, seconds)
            memory = Memory(server)
            watching = asyncio.create_task(
                memory.watch(flood.stop, case.idle_mb + GIVE_UP_MB)
            )
            flooding = asyncio.create_task(flood.run())
            case.waits = await bystanders(server, flood.stop)
            await flooding
            await watching
            await asyncio.sleep(AFTER_S)
            case.after_mb = server.rss_mb()
        finally:
            server.stop()
    case.frames = flood.frames
    case.warm_mb = next(rss for t, rss in memory.samples if t >= WARM_UP_S)
    case.peak_mb = memory.peak_after(WARM_UP_S)
    case.closed = sum(e.close_code == CLOSE_FLOODING for e in flood.endings)
    case.stopped_early = memory.samples[-1][1] > case.idle_mb + GIVE_UP_MB
    return case


async def bystanders(server, stop: asyncio.Event) -> list[tuple[float, float]]:
    """A newcomer's round trip every 2 s until `stop`, from 2 s in; one that waited
    `GIVE_UP_S` is counted as having waited that long (the code before issue 9 made
    newcomers wait minutes)."""
    waits = []
    started = time.monotonic()
    while True:
        due = started + BYSTANDER_EVERY_S * (len(waits) + 1)
        try:
            await asyncio.wait_for(stop.wait(), max(0.0, due - time.monotonic()))
            return waits
        except TimeoutError:
            pass
        try:
            async with asyncio.timeout(GIVE_UP_S):
                waits.append(await round_trip(server))
        except TimeoutError:
            waits.append((GIVE_UP_S, GIVE_UP_S))


async def run_all(sockets: list[int], seconds: float, say) -> list[Case]:
    """Each socket count against the playground, then against the floor."""
    cases = []
    for count in sockets:
        for name, app in (("playground", APPLICATION), ("floor: bare ASGI app", FLOOR)):
            case = await run_case(name, app, count, seconds)
            say(f"#   {case.sockets} sockets, {case.server}: {describe(case)}")
            cases.append(case)
    return cases


def describe(case: Case) -> str:
    """One case's numbers in a sentence."""
    hello, action = case.worst()
    early = " (stopped early)" if case.stopped_early else ""
    return (
        f"RSS {case.idle_mb:.0f} idle → "
        f"{case.warm_mb:.0f} at 1 s → peak {case.peak_mb:.0f} → {case.after_mb:.0f} "
        f"MB 3 s after{early}; {case.frames / case.seconds:,.0f} frames/s; bystander "
        f"hello {hello:.0f} ms, action {action:.0f} ms (worst of {len(case.waits)}); "
        f"{case.closed} closed with 4429"
    )


def rows(cases: list[Case]) -> list:
    """Rows for `python -m benchmarks`: the playground's against their targets."""
    out = [f"Message flood, 60 KB frames (load average {load_average()})"]
    for case in cases:
        what = f"flood, {case.sockets} sockets, {case.server}"
        if case.server != "playground":
            out.append(TargetRow(what, describe(case), "", None))
            continue
        hello, action = case.worst()
        passed = case.growth_mb <= GROWTH_BOUND_MB and max(hello, action) < 1000
        target = f"RSS within {GROWTH_BOUND_MB} MB after 1 s; bystander < 1 s"
        out.append(TargetRow(what, describe(case), target, passed))
    return out


def case_table(cases: list[Case]) -> str:
    """The cases as the Markdown table docs/benchmarks.md holds."""
    lines = [
        "| server | sockets | frames/s sent | RSS MB: idle → 1 s → peak → 3 s after "
        "| growth after 1 s | bystander worst hello / action | closed with 4429 |",
        "| --- | ---: | ---: | --- | ---: | --- | ---: |",
    ]
    for case in cases:
        hello, action = case.worst()
        early = " (stopped)" if case.stopped_early else ""
        lines.append(
            f"| {case.server} | {case.sockets} | {case.frames / case.seconds:,.0f} | "
            f"{case.idle_mb:.0f} → {case.warm_mb:.0f} → {case.peak_mb:.0f}{early} → "
            f"{case.after_mb:.0f} | {case.growth_mb:+.0f} MB | {hello:.0f} / "
            f"{action:.0f} ms | {case.closed} |"
        )
    return "\n".join(lines)


def flood_rows(seconds: float = 10.0, sockets: tuple[int, ...] = (4, 8)) -> list:
    """Every case, as rows of the benchmark table."""
    return rows(measure(seconds, sockets))


def measure(seconds: float, sockets: tuple[int, ...]) -> list[Case]:
    """Every case, saying each as it ends."""
    return asyncio.run(run_all(list(sockets), seconds, lambda s: print(s, flush=True)))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.flood")
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--sockets", default="4,8", help="socket counts, e.g. 4,8")
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args(argv)
    sockets = tuple(int(n) for n in args.sockets.split(","))
    cases = measure(args.seconds, sockets)
    table = rows(cases)
    print(render(table, markdown=args.markdown))
    if args.markdown:
        print(f"\n{case_table(cases)}")
    return 1 if any(getattr(r, "passed", None) is False for r in table) else 0


if __name__ == "__main__":
    sys.exit(main())
