"""Classroom fan-out (issue 4): one host acting, hundreds of students watching.

`python -m benchmarks.fanout [--quick] [--markdown] [--lab quorum|hash-placement]
[--only a,b,c,big,restart] [--profile DIR] [--memory DIR] [--gc DIR]`; also part of
`python -m benchmarks` (skip it with `--no-fanout`).

Each case runs in fresh server processes on loopback; every client (one host per room
and the students) runs in this one process on asyncio, so they share one clock:
- (a) one daphne, SQLite, the in-memory layer;
- (b) two daphnes, PostgreSQL (a throwaway database) and the Redis layer, the students
  split across both, the host on the first;
- (c) the floor: a plain `websockets` server that `broadcast()`s frames of the same size
  (`benchmarks.fanout_floor`), nothing else.
A class is made as a teacher makes one (a private room, `start_class`, a host socket
that claims it); the students connect in a burst. The host then acts on a fixed
schedule; each student checks every frame's seq (no gap, no duplicate) and records
action-to-screen latency: its receive time minus the host's send time. Server CPU and
memory come from /proc of the server processes only; memory per connection is the
servers' RSS after the students connected minus before, over the students (after one
warm-up student per server process, which makes it load the room: a one-off cost).
Also: 1,000 students at 2 Hz (one room, and 5 rooms of 200 together) on one daphne,
and a restart: kill -9 the daphne, start it on the same var dir and port, and the
students reconnect as the page does (backoff with jitter) and must resynchronise.
The machine's load average is printed with the results: other work shares the cores.
"""

import argparse
import asyncio
import contextlib
import dataclasses
import json
import os
import platform
import statistics
import sys
import time
from dataclasses import dataclass, field

from benchmarks import fanout_servers as servers
from benchmarks.fanout_clients import (
    Host,
    Student,
    Tally,
    connect_all,
    open_class,
    quiet,
)

ACTIONS = {
    # a cheap change of state: the skew of node A's clock (about 1.7 KB frames)
    "quorum": lambda i: ("set_skew", {"node": "A", "skew_ms": (i * 37) % 10001 - 5000}),
    # a key lookup: cheap, but every frame carries the lab's whole snapshot (~27 KB)
    "hash-placement": lambda i: ("lookup", {"key": f"k{i}"}),
}
DRAIN_SECONDS = 15  # how long after the last action frames may still arrive


def frame_bytes(slug: str, count: int = 40) -> int:
    """Mean size of whole-snapshot frames (the floor's when (a), (b) did not run)."""
    from simulators.labs import LABS

    lab = LABS[slug](seed=1)
    sizes = []
    for i in range(count):
        name, args = ACTIONS[slug](i)
        events = lab.apply(name, args)
        frame = {
            "type": "frame",
            "seq": i + 1,
            "t_ms": getattr(lab, "now_ms", 0),
            "ref": f"h0a{i}",
            "by": "m-12345678",
            "action": {"name": name, "args": args},
            "events": events,
            "snapshot": lab.snapshot(),
            "metrics": lab.metrics(),
            "digest": lab.digest(),
        }
        sizes.append(len(json.dumps(frame, separators=(",", ":"))))
    return round(statistics.mean(sizes))


@dataclass
class Result:
    """One case: who watched, what arrived, how fast, what the servers spent."""

    case: str
    students: int
    rooms: int
    rate: float
    seconds: float
    processes: int
    bursts: list[float] = field(default_factory=list)
    connect_failures: int = 0
    latencies: list[float] = field(default_factory=list)
    firsts: list[float] = field(default_factory=list)  # per frame: first student
    lasts: list[float] = field(default_factory=list)  # per frame: last student
    expected: int = 0
    delivered: int = 0
    gaps: int = 0
    dups: int = 0
    lost: int = 0
    window: float = 0.0
    cpu: float = 0.0
    connect_cpu: float = 0.0
    redis_cpu: float | None = None
    rss_before: int = 0
    rss_after: int = 0
    warm: int = 0  # students connected before memory was first read
    rss_end: int = 0
    frame_bytes: float = 0.0
    host_errors: dict = field(default_factory=dict)
    load: str = ""

    def percentile(self, q: float, values: list[float] | None = None) -> float:
        """The q-quantile of latencies (of all by default), in milliseconds."""
        values = self.latencies if values is None else values
        if not values:
            return float("nan")
        ordered = sorted(values)
        return 1000 * ordered[min(len(ordered) - 1, int(q * len(ordered)))]

    @property
    def p50(self) -> float:
        return self.percentile(0.50)

    @property
    def p99(self) -> float:
        return self.percentile(0.99)

    def spread(self) -> str:
        """Per frame, when its first and its last student got it: p50s, then p99s."""
        first, last = self.firsts, self.lasts
        return (
            f"{self.percentile(0.5, first):.0f} / {self.percentile(0.5, last):.0f}, "
            f"{self.percentile(0.99, first):.0f} / {self.percentile(0.99, last):.0f}"
        )

    @property
    def delivered_share(self) -> float:
        return self.delivered / self.expected if self.expected else 0.0

    @property
    def fps(self) -> float:
        return self.delivered / self.window if self.window else 0.0

    @property
    def kb_per_connection(self) -> float:
        counted = max(1, self.students - self.warm)
        return (self.rss_after - self.rss_before) / 1024 / counted

    @property
    def clean(self) -> bool:
        """Every owed frame arrived, once, in order."""
        return (
            self.expected > 0
            and self.delivered == self.expected
            and not (self.gaps or self.dups or self.lost or self.connect_failures)
        )


def _room_urls(server, slug: str, room: str, floor: bool) -> str:
    if floor:
        return f"{server.ws}/?room={room}"
    return f"{server.ws}/ws/labs/{slug}/?room={room}"


async def run_class(
    case: str,
    procs: list,
    *,
    floor: bool,
    slug: str,
    per_room: int,
    rooms: int = 1,
    rate: float,
    seconds: float,
    batch: int = 200,
) -> Result:
    """One class run: rooms with a host each, students in bursts, the hosts act."""
    result = Result(case, per_room * rooms, rooms, rate, seconds, len(procs))
    tally = Tally()
    first = procs[0]
    redis = None if floor or len(procs) == 1 else servers.redis_pid()
    hosts: list[Host] = []
    room_ids: list[str] = []
    for k in range(rooms):
        if floor:
            room, secret = f"r{k}", None
            host_url = f"{first.ws}/?room={room}&host=1"
        else:
            room, secret = await open_class(first.ws, slug)
            host_url = _room_urls(first, slug, room, False) + "&name=Host"
        host = Host(tally, host_url, f"h{k}a")
        await host.open(secret)
        hosts.append(host)
        room_ids.append(room)
    students: list[Student] = []
    by_room: list[list[Student]] = []
    for room in room_ids:
        members = []
        for i in range(per_room):
            url = _room_urls(procs[i % len(procs)], slug, room, floor)
            members.append(Student(tally, url + ("" if floor else f"&name=S{i}")))
        by_room.append(members)
        students.extend(members)
    # Warm-up: the first student on each process makes it load the room's replica and
    # open its layer connections, once per process whatever the class size. Memory per
    # connection is measured over the other students (the slope, not the one-off).
    warm = students[: len(procs)]
    elapsed, failures = await connect_all(warm)
    result.connect_failures += len(failures)
    for student in warm:
        if student.ws is not None and student.hello_seq >= 0:
            student.start()
    await asyncio.sleep(0.5)
    for p in procs:
        p.snapshot()
    rss_before = sum(p.rss() for p in procs)
    cpu_start = sum(p.cpu() for p in procs)
    result.warm = len(warm)
    for start in range(len(warm), len(students), batch):
        group = students[start : start + batch]
        elapsed, failures = await connect_all(group)
        result.bursts.append(elapsed)
        result.connect_failures += len(failures)
        for student in group:
            if student.ws is not None and student.hello_seq >= 0:
                student.start()
    await quiet(students)
    await asyncio.sleep(0.5)
    result.rss_before = rss_before
    result.rss_after = sum(p.rss() for p in procs)
    for p in procs:
        p.snapshot()
    cpu_window = sum(p.cpu() for p in procs)
    result.connect_cpu = cpu_window - cpu_start
    redis_start = servers.cpu_seconds(redis) if redis else None

    count = round(rate * seconds)
    action = ACTIONS[slug]
    begin = time.perf_counter()
    await asyncio.gather(*(h.act(rate, count, action) for h in hosts))
    deadline = time.perf_counter() + DRAIN_SECONDS
    while time.perf_counter() < deadline:
        hosts_done = all(h.acked + sum(h.errors.values()) >= count for h in hosts)
        if hosts_done and all(
            s.last >= h.last
            for h, group in zip(hosts, by_room, strict=True)
            for s in group
        ):
            break
        await asyncio.sleep(0.05)
    result.window = time.perf_counter() - begin
    result.cpu = sum(p.cpu() for p in procs) - cpu_window
    result.rss_end = sum(p.rss() for p in procs)
    if redis:
        result.redis_cpu = servers.cpu_seconds(redis) - redis_start
    result.load = servers.load_average()

    result.latencies = tally.latencies
    result.firsts = [first for first, _ in tally.spans.values()]
    result.lasts = [last for _, last in tally.spans.values()]
    result.frame_bytes = tally.frame_bytes / max(1, tally.frame_count)
    for host, group in zip(hosts, by_room, strict=True):
        for code, n in host.errors.items():
            result.host_errors[code] = result.host_errors.get(code, 0) + n
        for s in group:
            if s.hello_seq < 0:
                continue
            owed = host.last - s.hello_seq
            result.expected += owed
            result.delivered += s.frames
            result.gaps += s.gaps
            result.dups += s.dups
            result.lost += s.gaps + max(0, host.last - s.last)
    _drop(students, hosts)
    return result


def _drop(students: list[Student], hosts: list[Host]) -> None:
    """Cut every socket at once (a goodbye each would only time the leaving)."""
    for client in [*students, *hosts]:
        if client.task is not None:
            client.task.cancel()
        if client.ws is not None:
            client.ws.transport.abort()


@dataclass
class Restart:
    """The restart case: how long until every student had a fresh, right hello."""

    students: int
    connect_failures: int = 0
    start_seconds: float = 0.0  # kill -9 to the new daphne listening
    resync_seconds: float = float("nan")  # kill -9 to the last student's hello
    resynced: int = 0
    bad_resyncs: int = 0
    states: int = 0  # distinct (seq, digest) among the fresh hellos
    gaps: int = 0
    dups: int = 0
    lost: int = 0
    frames_after: int = 0
    load: str = ""

    @property
    def clean(self) -> bool:
        return (
            self.resynced == self.students
            and not (self.bad_resyncs or self.gaps or self.dups or self.lost)
            and self.states == 1
            and self.connect_failures == 0
        )


async def run_restart(procs, env, var_dir, *, slug: str, students_n: int, rate: float):
    """Kill -9 the daphne while the host acts; start it again; students must resync."""
    server = procs[0]
    result = Restart(students_n)
    tally = Tally()
    room, secret = await open_class(server.ws, slug)
    url = _room_urls(server, slug, room, False)
    host = Host(tally, url + "&name=Host", "h0a")
    await host.open(secret)
    students = [Student(tally, f"{url}&name=S{i}") for i in range(students_n)]
    _, failures = await connect_all(students)
    result.connect_failures = len(failures)
    keepers = [asyncio.create_task(s.keep()) for s in students if s.hello_seq >= 0]
    await quiet(students)
    acting = asyncio.create_task(host.act(rate, round(rate * 4), ACTIONS[slug]))
    await asyncio.sleep(2)  # mid-stream
    killed = time.perf_counter()
    server.kill()
    with contextlib.suppress(Exception):  # the host's socket died with the server
        await acting
    restarted = servers.start_daphne(
        "daphne-restarted", env, var_dir, port=server.port, wait=False
    )
    try:
        await asyncio.to_thread(servers.wait_for_port, server.port, restarted.process)
        result.start_seconds = time.perf_counter() - killed
        deadline = killed + 30
        while time.perf_counter() < deadline:
            if all(len(s.hellos) >= 2 for s in students):
                break
            await asyncio.sleep(0.05)
        fresh = [s.hellos[1] for s in students if len(s.hellos) >= 2]
        result.resynced = len(fresh)
        if fresh:
            result.resync_seconds = max(t for t, _, _ in fresh) - killed
        result.states = len({(seq, digest) for _, seq, digest in fresh})
        # the class goes on: a new host socket acts; every frame must follow the hello
        host2 = Host(tally, url + "&name=Host", "h1a")
        await host2.open(secret)
        marks = {id(s): s.frames for s in students}
        count = round(rate * 2)
        await host2.act(rate, count, ACTIONS[slug])
        deadline = time.perf_counter() + DRAIN_SECONDS
        while time.perf_counter() < deadline:
            if host2.acked >= count and all(s.last >= host2.last for s in students):
                break
            await asyncio.sleep(0.05)
        for s in students:
            result.bad_resyncs += s.bad_resyncs
            result.gaps += s.gaps
            result.dups += s.dups
            result.lost += max(0, host2.last - s.last)
            result.frames_after += s.frames - marks[id(s)]
        result.load = servers.load_average()
        for s in students:
            s.stopped = True
        for task in keepers:
            task.cancel()
        _drop(students, [host, host2])
    finally:
        restarted.stop()
    return result


# -- the report ---------------------------------------------------------------------


@dataclass(frozen=True)
class CaseRow:
    """A measured case, in the columns of `python -m benchmarks`' table."""

    result: Result

    passed = None

    def cells(self) -> list[str]:
        r = self.result
        per_frame = 1e9 * r.cpu / r.delivered if r.delivered else 0
        return [
            f"fan-out {r.case}",
            f"{r.cpu:.3f}",
            f"{r.window:.3f}",
            f"{per_frame:,.0f}",
            f"p50 {r.p50:.0f} / p99 {r.p99:.0f} ms, {r.delivered_share:.2%}",
            "",
            "",
        ]


@dataclass(frozen=True)
class TargetRow:
    what: str
    measured: str
    target: str
    passed: bool | None

    def cells(self) -> list[str]:
        verdict = {None: "", True: "PASS", False: "MISS"}[self.passed]
        target = self.target.removeprefix(f"{self.what}: ")
        return [self.what, "", "", "", self.measured, target, verdict]


def case_table(results: list[Result], markdown: bool) -> str:
    header = [
        "case",
        "students",
        "rate",
        "frame",
        "p50 ms",
        "p99 ms",
        "per frame: 1st / last student p50, p99 ms",
        "delivered",
        "frames/s",
        "server CPU s (core %)",
        "RSS MB: before → connected → end",
        "KB/conn",
        "burst s",
        "load avg",
    ]
    rows = []
    for r in results:
        cpu = f"{r.cpu:.1f} ({100 * r.cpu / r.window:.0f}%)"
        if r.redis_cpu is not None:
            cpu += f" + Redis {r.redis_cpu:.1f}"
        delivered = f"{r.delivered_share:.2%}"
        if r.gaps or r.dups or r.lost or r.connect_failures:
            delivered += (
                f" (gaps {r.gaps}, dups {r.dups}, lost {r.lost}, "
                f"failed connects {r.connect_failures})"
            )
        if r.host_errors:
            delivered += f" host errors {r.host_errors}"
        rows.append(
            [
                r.case,
                f"{r.students:,}" + (f" in {r.rooms} rooms" if r.rooms > 1 else ""),
                f"{r.rate:g} Hz × {r.seconds:g} s",
                f"{r.frame_bytes / 1024:.1f} KB",
                f"{r.p50:.0f}",
                f"{r.p99:.0f}",
                r.spread(),
                delivered,
                f"{r.fps:,.0f}",
                cpu,
                f"{r.rss_before / 2**20:.0f} → {r.rss_after / 2**20:.0f} → "
                f"{r.rss_end / 2**20:.0f}",
                f"{r.kb_per_connection:.1f}",
                " / ".join(f"{b:.2f}" for b in r.bursts[:5])
                + (" …" if len(r.bursts) > 5 else ""),
                r.load,
            ]
        )
    return _table(header, rows, markdown)


def target_table(rows: list[TargetRow], markdown: bool) -> str:
    verdicts = {None: "", True: "PASS", False: "MISS"}
    return _table(
        ["target", "measured", "result"],
        [[r.target, r.measured, verdicts[r.passed]] for r in rows],
        markdown,
    )


def _table(header: list[str], rows: list[list[str]], markdown: bool) -> str:
    if markdown:
        lines = [header, ["---"] * len(header), *rows]
        return "\n".join("| " + " | ".join(cells) + " |" for cells in lines)
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    lines = [header, ["-" * w for w in widths], *rows]
    return "\n".join(
        "  ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True)).rstrip()
        for cells in lines
    )


def targets(
    main: list[tuple[Result, Result | None]],
    big: list[Result],
    restart: Restart | None,
    quick: bool,
) -> list[TargetRow]:
    """PASS/MISS against issue 4's targets (in --quick, against the same numbers)."""
    rows = []
    for result, floor in main:
        label = f"{result.students} students @ {result.rate:g} Hz, {result.case}"
        rows.append(
            TargetRow(
                label,
                f"p99 {result.p99:.0f} ms",
                f"{label}: p99 < 100 ms",
                result.p99 < 100,
            )
        )
        if floor is not None:
            ratio = result.p99 / floor.p99 if floor.p99 else float("inf")
            rows.append(
                TargetRow(
                    label,
                    f"p99 {result.p99:.0f} ms vs floor {floor.p99:.0f} ms: "
                    f"{ratio:.1f}×",
                    f"{label}: within 3× of the floor",
                    ratio <= 3,
                )
            )
        rows.append(
            TargetRow(
                label,
                f"{result.delivered:,} of {result.expected:,} "
                f"({result.delivered_share:.2%}), gaps {result.gaps}, "
                f"dups {result.dups}",
                f"{label}: 100% delivered, in order",
                result.clean,
            )
        )
        first = result.bursts[0] if result.bursts else float("inf")
        rows.append(
            TargetRow(
                label,
                f"{min(200, result.students)} connects in {first:.2f} s, "
                f"{result.connect_failures} failed",
                f"{label}: a burst of 200 connects within 2 s, none failing",
                first < 2 and result.connect_failures == 0,
            )
        )
        rows.append(
            TargetRow(
                label,
                f"{result.kb_per_connection:.1f} KB per connection",
                f"{label}: < 50 KB server memory per connection",
                result.kb_per_connection < 50,
            )
        )
    for result in big:
        label = f"{result.students} students @ {result.rate:g} Hz, {result.case}"
        rows.append(
            TargetRow(
                label,
                f"p99 {result.p99:.0f} ms; {result.delivered:,} of "
                f"{result.expected:,}, lost {result.lost}, dups {result.dups}",
                f"{label}: p99 < 500 ms, no lost frame",
                result.p99 < 500 and result.clean,
            )
        )
    if restart is not None:
        label = f"restart, {restart.students} students"
        rows.append(
            TargetRow(
                label,
                f"{restart.resynced} resynced in {restart.resync_seconds:.1f} s after "
                f"kill -9 (daphne listening after {restart.start_seconds:.1f} s); "
                f"{restart.states} state(s); wrong hellos {restart.bad_resyncs}; "
                f"then {restart.frames_after:,} frames, gaps {restart.gaps}, "
                f"dups {restart.dups}, lost {restart.lost}",
                f"{label}: all resynchronised within 10 s, no gap, no duplicate",
                restart.clean and restart.resync_seconds < 10,
            )
        )
    if quick:  # short runs: shown, but no verdict is claimed
        rows = [
            TargetRow(r.what, r.measured, r.target + " (quick)", None) for r in rows
        ]
    return rows


# -- running it ---------------------------------------------------------------------


@dataclass
class Plan:
    students: int
    seconds: float
    rate: float
    big: int
    big_rooms: int
    big_rate: float
    restart: int
    quick: bool = False


FULL = Plan(
    students=200, seconds=30, rate=10, big=1000, big_rooms=5, big_rate=2, restart=200
)
QUICK = Plan(
    students=50,
    seconds=5,
    rate=10,
    big=100,
    big_rooms=2,
    big_rate=2,
    restart=50,
    quick=True,
)


PARTS = ("a", "b", "c", "big", "restart")


async def run_all(
    plan: Plan, slug: str, say, parts: tuple[str, ...] = PARTS
) -> tuple[list[Result], list[TargetRow]]:
    """The cases of `parts`, in that order; their results and verdicts."""
    results: list[Result] = []
    size = frame_bytes(slug)
    say(f"# {slug}: whole-snapshot frames of {size:,} bytes; {plan.students} students")

    def done(result: Result) -> Result:
        say(
            f"#   {result.case}: p50 {result.p50:.0f} / p99 {result.p99:.0f} ms, "
            f"{result.delivered_share:.2%} delivered, CPU {result.cpu:.1f} s, "
            f"load {result.load}"
        )
        results.append(result)
        return result

    async def case(name, cluster, floor=False, **kwargs) -> Result:
        with cluster as (procs, _, _):
            return done(await run_class(name, procs, floor=floor, slug=slug, **kwargs))

    small = {"per_room": plan.students, "rate": plan.rate, "seconds": plan.seconds}
    big = {"rate": plan.big_rate, "seconds": plan.seconds}
    a = b = c = None
    if "a" in parts:
        a = await case(
            "(a) in-memory layer, 1 daphne", servers.single_daphne(), **small
        )
    if "b" in parts:
        b = await case("(b) Redis layer, 2 daphnes", servers.redis_pair(), **small)
    # the floor sends frames of the size the playground really sent (patches or not)
    seen = [r.frame_bytes for r in (a, b) if r is not None and r.frame_bytes]
    if seen:
        size = round(statistics.mean(seen))
        say(f"# the floor sends {size:,}-byte frames, as (a) and (b) did")
    if "c" in parts:
        c = await case(
            "(c) floor: websockets.broadcast()", servers.floor(size), True, **small
        )
    bigs = []
    if "big" in parts:
        bigs.append(
            await case(
                "one room, in-memory, 1 daphne",
                servers.single_daphne(),
                per_room=plan.big,
                **big,
            )
        )
        bigs.append(
            await case(
                f"{plan.big_rooms} rooms, in-memory, 1 daphne",
                servers.single_daphne(),
                per_room=plan.big // plan.big_rooms,
                rooms=plan.big_rooms,
                **big,
            )
        )
        await case(
            "one room, floor", servers.floor(size), True, per_room=plan.big, **big
        )
    restart = None
    if "restart" in parts:
        with servers.single_daphne() as (procs, env, var_dir):
            restart = await run_restart(
                procs, env, var_dir, slug=slug, students_n=plan.restart, rate=plan.rate
            )
        say(
            f"#   restart: {restart.resynced} resynced in "
            f"{restart.resync_seconds:.1f} s, load {restart.load}"
        )
    main = [(r, c) for r in (a, b) if r is not None]
    return results, targets(main, bigs, restart, plan.quick)


def fanout_rows(quick: bool = False, slug: str = "quorum") -> list:
    """Rows for `python -m benchmarks`: each case, then each target's verdict."""
    plan = QUICK if quick else FULL
    results, rows = asyncio.run(run_all(plan, slug, lambda s: print(s, flush=True)))
    title = f"Classroom fan-out ({slug}; load average {servers.load_average()})"
    return [title, *(CaseRow(r) for r in results), *rows]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.fanout")
    parser.add_argument("--quick", action="store_true", help="5 s runs, 50 students")
    parser.add_argument("--markdown", action="store_true")
    parser.add_argument("--lab", choices=sorted(ACTIONS), default="quorum")
    parser.add_argument("--students", type=int, help="students in (a), (b), (c)")
    parser.add_argument("--seconds", type=float, help="how long the hosts act")
    parser.add_argument(
        "--only",
        default=",".join(PARTS),
        help="comma-separated cases to run, of " + ",".join(PARTS),
    )
    parser.add_argument(
        "--profile", metavar="DIR", help="run each daphne under cProfile into DIR"
    )
    parser.add_argument(
        "--memory",
        metavar="DIR",
        help="run each daphne under tracemalloc; heap snapshots into DIR",
    )
    parser.add_argument(
        "--gc", metavar="DIR", help="log each daphne's garbage collections into DIR"
    )
    args = parser.parse_args(argv)
    folders = (("CPU", args.profile), ("MEMORY", args.memory), ("GC", args.gc))
    for mode, folder in folders:
        if folder:
            os.makedirs(folder, exist_ok=True)
            os.environ[f"FANOUT_{mode}_DIR"] = os.path.abspath(folder)
    plan = QUICK if args.quick else FULL
    plan = dataclasses.replace(
        plan,
        students=args.students or plan.students,
        restart=args.students or plan.restart,
        seconds=args.seconds or plan.seconds,
        quick=plan.quick or bool(args.students or args.seconds),  # no verdicts
    )
    print(
        f"# Python {platform.python_version()}, {os.cpu_count()} CPUs; "
        f"load average before: {servers.load_average()}; "
        f"{'quick' if args.quick else 'full'} run",
        flush=True,
    )
    started = time.perf_counter()
    parts = tuple(p.strip() for p in args.only.split(",") if p.strip())
    if not set(parts) <= set(PARTS):
        parser.error(f"--only takes {','.join(PARTS)}")
    say = lambda s: print(s, flush=True)  # noqa: E731
    results, rows = asyncio.run(run_all(plan, args.lab, say, parts))
    print()
    print(case_table(results, args.markdown))
    print()
    print(target_table(rows, args.markdown))
    print(
        f"\n# {time.perf_counter() - started:.0f} s in all; "
        f"load average after: {servers.load_average()}"
    )
    return 1 if any(r.passed is False for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
