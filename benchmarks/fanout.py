"""Classroom fan-out (issue 4): one host acting, hundreds of students watching.

`python -m benchmarks.fanout [--quick] [--markdown] [--lab quorum|hash-placement]
[--only a,b,c,big,restart] [--pairs N] [--profile DIR] [--memory DIR] [--gc DIR]
[--trace DIR]`; also part of `python -m benchmarks` (skip it with `--no-fanout`).

Each run starts fresh server processes on loopback; every client (one host per room
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
burst of warm-up students per server process, which makes it load the room and fill
its thread and connection pools: one-off costs).

Runs go in rounds: in each, a floor run just before (a) and another just before (b),
so each pair meets the same spell of a shared machine; a ratio target is the median of
the pairs' ratios (at least `timing.MIN_PAIRS`), printed with its lowest and highest.
Latency, memory and connect targets are judged on the median run, the worst shown;
every frame must arrive in every run. Also, in rounds of their own: 1,000 students at
2 Hz (one room after a floor run, and 5 rooms of 200 together) on one daphne; and once,
a restart: kill -9 the daphne, start it on the same var dir and port, and the students
reconnect as the page does (backoff with jitter) and must resynchronise. Other work
shares the cores: each run records the load average and the CPU other processes used
while the hosts acted, and the output sums both up.
"""

import argparse
import asyncio
import contextlib
import dataclasses
import gc
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
from benchmarks.timing import MIN_PAIRS, Paired, machine_busy_seconds, machine_load

ACTIONS = {
    # a cheap change of state: the skew of node A's clock (about 1.7 KB frames)
    "quorum": lambda i: ("set_skew", {"node": "A", "skew_ms": (i * 37) % 10001 - 5000}),
    # a key lookup: cheap, but every frame carries the lab's whole snapshot (~27 KB)
    "hash-placement": lambda i: ("lookup", {"key": f"k{i}"}),
}
DRAIN_SECONDS = 15  # how long after the last action frames may still arrive


WARM_PER_PROCESS = 10


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
    load: str = ""  # machine_load() at the end of the acting window
    load_1m: float = 0.0
    client_cpu: float = 0.0  # this process (every client) over the acting window
    others: float = 0.0  # CPU seconds of everything else on the machine, same window

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
    def others_cores(self) -> float:
        """How many cores other work kept busy while the hosts acted, on average."""
        return self.others / self.window if self.window else 0.0

    @property
    def first_burst(self) -> float:
        return self.bursts[0] if self.bursts else float("inf")

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
    # Warm-up: the first students on each process make it load the room's replica and
    # open its layer, database and Redis connections (pools that grow with how many
    # join at once, up to their bound, once per process whatever the class size): a
    # burst of WARM_PER_PROCESS each. Memory per connection is measured over the other
    # students (the slope, not the one-off).
    warm = students[: WARM_PER_PROCESS * len(procs)]
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
    gc.collect()  # the clients' garbage of the connecting, not in the window
    busy_start, client_start = machine_busy_seconds(), time.process_time()
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
    result.client_cpu = time.process_time() - client_start
    ours = result.cpu + result.client_cpu + (result.redis_cpu or 0.0)
    result.others = max(0.0, machine_busy_seconds() - busy_start - ours)
    result.load = machine_load()
    result.load_1m = os.getloadavg()[0]

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
        result.load = machine_load()
        for s in students:
            s.stopped = True
        for task in keepers:
            task.cancel()
        _drop(students, [host, host2])
    finally:
        restarted.stop()
    return result


# -- the report ---------------------------------------------------------------------


@dataclass
class Case:
    """Every run of one case; for (a), (b) and the room of 1,000, the floor run just
    before each of its runs (one pair each)."""

    name: str
    runs: list[Result] = field(default_factory=list)
    floors: list[Result] = field(default_factory=list)

    @property
    def label(self) -> str:
        r = self.runs[0]
        return f"{r.students} students @ {r.rate:g} Hz, {self.name}"

    def values(self, name: str) -> list[float]:
        return [getattr(r, name) for r in self.runs]

    @property
    def p99(self) -> float:
        """The median of the runs' p99s: what the latency target is judged on."""
        return statistics.median(self.values("p99"))

    @property
    def median_run(self) -> Result:
        """The run whose p99 is the median (the lower middle of an even count)."""
        ordered = sorted(self.runs, key=lambda r: r.p99)
        return ordered[(len(ordered) - 1) // 2]

    @property
    def paired(self) -> Paired | None:
        """Each run's p99 over its floor run's p99, one ratio a pair."""
        if not self.floors or len(self.floors) != len(self.runs):
            return None
        pairs = zip(self.runs, self.floors, strict=True)
        return Paired(tuple(_ratio(r.p99, f.p99) for r, f in pairs))

    @property
    def clean(self) -> bool:
        return all(r.clean for r in self.runs)

    def total(self, name: str) -> int:
        return sum(getattr(r, name) for r in self.runs)

    @property
    def delivered_share(self) -> float:
        expected = self.total("expected")
        return self.total("delivered") / expected if expected else 0.0


def _ratio(case: float, floor: float) -> float:
    return case / floor if floor else float("inf")


def spread(values: list[float], digits: int = 0) -> str:
    """`14 (12–48)`: the median, then the lowest and the highest (one value alone)."""
    if len(values) == 1:
        return f"{values[0]:.{digits}f}"
    mid, low, high = statistics.median(values), min(values), max(values)
    return f"{mid:.{digits}f} ({low:.{digits}f}–{high:.{digits}f})"


def machine_summary(cases: list[Case]) -> str:
    """How busy the machine was while the hosts acted, over every run."""
    runs = [r for case in cases for r in case.runs]
    if not runs:
        return machine_load()
    loads, others = [r.load_1m for r in runs], [r.others_cores for r in runs]
    return (
        f"1-min load {spread(loads, 1)} on {os.cpu_count()} cores, sampled at the end "
        f"of each of {len(runs)} runs; other processes kept {spread(others, 1)} cores "
        "busy while the hosts acted"
    )


@dataclass(frozen=True)
class CaseRow:
    """A measured case (medians of its runs), in `python -m benchmarks`' columns."""

    case: Case

    passed = None

    def cells(self) -> list[str]:
        runs = self.case.runs
        per_frame = [1e9 * r.cpu / r.delivered for r in runs if r.delivered]
        return [
            f"fan-out {self.case.name}",
            f"{statistics.median(r.cpu for r in runs):.3f}",
            f"{statistics.median(r.window for r in runs):.3f}",
            f"{statistics.median(per_frame):,.0f}" if per_frame else "",
            f"p50 {statistics.median(self.case.values('p50')):.0f} / p99 "
            f"{spread(self.case.values('p99'))} ms, {self.case.delivered_share:.2%}, "
            f"{len(runs)} runs",
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


def case_table(cases: list[Case], markdown: bool) -> str:
    """One line a case: the median of its runs, (lowest–highest) beside it."""
    header = [
        "case",
        "runs",
        "students",
        "rate",
        "frame",
        "p50 ms",
        "p99 ms",
        "per frame: 1st / last student p50, p99 ms (median run)",
        "delivered (all runs)",
        "frames/s",
        "server CPU s (core %)",
        "RSS MB: before → connected → end (median run)",
        "KB/conn",
        "1st burst s",
        "others' cores",
        "load (1 min)",
    ]
    rows = []
    for case in cases:
        r, runs = case.median_run, case.runs
        cpu_s = statistics.median(x.cpu for x in runs)
        share = statistics.median(x.cpu / x.window for x in runs if x.window)
        cpu = f"{cpu_s:.1f} ({100 * share:.0f}%)"
        if r.redis_cpu is not None:
            redis = statistics.median(x.redis_cpu or 0.0 for x in runs)
            cpu += f" + Redis {redis:.1f}"
        delivered = f"{case.delivered_share:.2%}"
        faults = [case.total(n) for n in ("gaps", "dups", "lost", "connect_failures")]
        if any(faults):
            delivered += " (gaps {}, dups {}, lost {}, failed connects {})".format(
                *faults
            )
        errors: dict = {}
        for x in runs:
            for code, n in x.host_errors.items():
                errors[code] = errors.get(code, 0) + n
        if errors:
            delivered += f" host errors {errors}"
        rows.append(
            [
                case.name,
                str(len(runs)),
                f"{r.students:,}" + (f" in {r.rooms} rooms" if r.rooms > 1 else ""),
                f"{r.rate:g} Hz × {r.seconds:g} s",
                f"{statistics.mean(case.values('frame_bytes')) / 1024:.1f} KB",
                spread(case.values("p50")),
                spread(case.values("p99")),
                r.spread(),
                delivered,
                f"{statistics.median(case.values('fps')):,.0f}",
                cpu,
                f"{r.rss_before / 2**20:.0f} → {r.rss_after / 2**20:.0f} → "
                f"{r.rss_end / 2**20:.0f}",
                spread(case.values("kb_per_connection"), 1),
                spread(case.values("first_burst"), 2),
                spread(case.values("others_cores"), 1),
                spread(case.values("load_1m"), 1),
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


def _median_worst(values: list[float], unit: str, digits: int = 0) -> str:
    """`14 ms, median of 5 runs (worst 48 ms)`; one run: `14 ms, 1 run`."""
    mid = statistics.median(values)
    if len(values) == 1:
        return f"{mid:.{digits}f} {unit}, 1 run"
    worst = max(values)
    return (
        f"{mid:.{digits}f} {unit}, median of {len(values)} runs "
        f"(worst {worst:.{digits}f} {unit})"
    )


def targets(
    main: list[Case], big: list[Case], restart: Restart | None, quick: bool
) -> list[TargetRow]:
    """PASS/MISS against issue 4's targets (in --quick, against the same numbers).

    Ratios are the median of the paired runs' ratios (at least MIN_PAIRS pairs for a
    verdict), their spread beside it; p99, memory and the connect burst are judged on
    the median of the runs, the worst shown; delivery must hold in every run.
    """
    rows = []
    for case in main:
        label = case.label
        rows.append(
            TargetRow(
                label,
                "p99 " + _median_worst(case.values("p99"), "ms"),
                f"{label}: p99 < 100 ms",
                case.p99 < 100,
            )
        )
        paired = case.paired
        if paired is not None:
            floor_p99 = statistics.median(f.p99 for f in case.floors)
            enough = len(paired.ratios) >= MIN_PAIRS
            rows.append(
                TargetRow(
                    label,
                    f"p99 over the floor's p99, paired: {paired.text()}; "
                    f"median p99 {case.p99:.0f} ms vs floor {floor_p99:.0f} ms",
                    f"{label}: within 3× of the floor"
                    + (
                        "" if enough else f" (fewer than {MIN_PAIRS} pairs: no verdict)"
                    ),
                    paired.median <= 3 if enough else None,
                )
            )
        rows.append(
            TargetRow(
                label,
                f"{case.total('delivered'):,} of {case.total('expected'):,} "
                f"({case.delivered_share:.2%}) in {len(case.runs)} runs, "
                f"gaps {case.total('gaps')}, dups {case.total('dups')}",
                f"{label}: 100% delivered, in order",
                case.clean,
            )
        )
        bursts = case.values("first_burst")
        failures = case.total("connect_failures")
        students = case.runs[0].students
        rows.append(
            TargetRow(
                label,
                f"{min(200, students)} connects in "
                + _median_worst(bursts, "s", 2)
                + f"; {failures} failed",
                f"{label}: a burst of 200 connects within 2 s, none failing",
                statistics.median(bursts) < 2 and failures == 0,
            )
        )
        kbs = case.values("kb_per_connection")
        rows.append(
            TargetRow(
                label,
                _median_worst(kbs, "KB", 1) + " per connection",
                f"{label}: < 50 KB server memory per connection",
                statistics.median(kbs) < 50,
            )
        )
    for case in big:
        label = case.label
        rows.append(
            TargetRow(
                label,
                "p99 "
                + _median_worst(case.values("p99"), "ms")
                + f"; {case.total('delivered'):,} of {case.total('expected'):,}, "
                f"lost {case.total('lost')}, dups {case.total('dups')}",
                f"{label}: p99 < 500 ms, no lost frame",
                case.p99 < 500 and case.clean,
            )
        )
        if case.paired is not None:
            rows.append(
                TargetRow(
                    label,
                    f"p99 over the floor's p99, paired: {case.paired.text()}",
                    f"{label}: against the floor (shown; no target)",
                    None,
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
                f"dups {restart.dups}, lost {restart.lost}; 1 run",
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
    pairs: int  # rounds: in each, a floor run just before (a), another before (b)
    big: int
    big_rooms: int
    big_rate: float
    big_seconds: float
    big_runs: int  # rounds of: floor, one room, several rooms
    restart: int
    quick: bool = False


FULL = Plan(
    students=200,
    seconds=10,
    rate=10,
    pairs=MIN_PAIRS,
    big=1000,
    big_rooms=5,
    big_rate=2,
    big_seconds=10,
    big_runs=3,
    restart=200,
)
QUICK = Plan(
    students=50,
    seconds=5,
    rate=10,
    pairs=2,
    big=100,
    big_rooms=2,
    big_rate=2,
    big_seconds=5,
    big_runs=1,
    restart=50,
    quick=True,
)
WARM_UP = {"per_room": 10, "rate": 10, "seconds": 3}  # also measures the frame size


PARTS = ("a", "b", "c", "big", "restart")


async def run_all(
    plan: Plan, slug: str, say, parts: tuple[str, ...] = PARTS
) -> tuple[list[Case], list[TargetRow]]:
    """The cases of `parts` in rounds (each floor run just before its case); every
    case's runs and the verdicts."""
    size = frame_bytes(slug)
    say(
        f"# {slug}: whole-snapshot frames of {size:,} bytes; {plan.students} students, "
        f"{plan.pairs} round(s) of {plan.seconds:g} s runs; {machine_load()}"
    )

    async def run(case: Case, cluster, tag: str, floor=False, **kwargs) -> Result:
        with cluster as (procs, _, _):
            result = await run_class(case.name, procs, floor=floor, slug=slug, **kwargs)
        case.runs.append(result)
        paired = ""
        if len(case.floors) == len(case.runs):
            paired = f", {_ratio(result.p99, case.floors[-1].p99):.2f}× the floor"
        say(
            f"#   {tag} {case.name}: p50 {result.p50:.0f} / p99 {result.p99:.0f} ms"
            f"{paired}, {result.delivered_share:.2%} delivered, "
            f"CPU {result.cpu:.1f} s, others {result.others_cores:.1f} cores, "
            f"{result.load}"
        )
        return result

    if {"a", "b", "c", "big"} & set(parts):
        # a warm-up run, not counted: the floor then sends frames of the size the
        # playground really sends (snapshot patches or not)
        warm = Case("warm-up (not counted)")
        await run(warm, servers.single_daphne(), "warm-up:", **WARM_UP)
        if warm.runs[0].frame_bytes:
            size = round(warm.runs[0].frame_bytes)
        say(f"# the floor sends {size:,}-byte frames, as the playground did")

    small = {"per_room": plan.students, "rate": plan.rate, "seconds": plan.seconds}
    a = Case("(a) in-memory layer, 1 daphne") if "a" in parts else None
    b = Case("(b) Redis layer, 2 daphnes") if "b" in parts else None
    c = Case("(c) floor: websockets.broadcast()") if "c" in parts else None
    clusters = [(a, servers.single_daphne), (b, servers.redis_pair)]
    for i in range(plan.pairs if a or b or c else 0):
        tag = f"{i + 1}/{plan.pairs}"
        for case, cluster in clusters:
            if case is None:
                continue
            if c is not None:
                case.floors.append(
                    await run(c, servers.floor(size), tag, True, **small)
                )
            await run(case, cluster(), tag, **small)
        if a is None and b is None and c is not None:
            await run(c, servers.floor(size), tag, True, **small)

    big = {"rate": plan.big_rate, "seconds": plan.big_seconds}
    one = Case("one room, in-memory, 1 daphne")
    rooms = Case(f"{plan.big_rooms} rooms, in-memory, 1 daphne")
    big_floor = Case("one room, floor")
    for i in range(plan.big_runs if "big" in parts else 0):
        tag = f"{i + 1}/{plan.big_runs}"
        one.floors.append(
            await run(
                big_floor, servers.floor(size), tag, True, per_room=plan.big, **big
            )
        )
        await run(one, servers.single_daphne(), tag, per_room=plan.big, **big)
        await run(
            rooms,
            servers.single_daphne(),
            tag,
            per_room=plan.big // plan.big_rooms,
            rooms=plan.big_rooms,
            **big,
        )

    restart = None
    if "restart" in parts:
        with servers.single_daphne() as (procs, env, var_dir):
            restart = await run_restart(
                procs, env, var_dir, slug=slug, students_n=plan.restart, rate=plan.rate
            )
        say(
            f"#   restart: {restart.resynced} resynced in "
            f"{restart.resync_seconds:.1f} s, {restart.load}"
        )
    main = [x for x in (a, b) if x is not None and x.runs]
    bigs = [x for x in (one, rooms) if x.runs]
    cases = [x for x in (a, b, c, one, rooms, big_floor) if x is not None and x.runs]
    return cases, targets(main, bigs, restart, plan.quick)


def fanout_rows(quick: bool = False, slug: str = "quorum") -> list:
    """Rows for `python -m benchmarks`: each case, then each target's verdict."""
    plan = QUICK if quick else FULL
    cases, rows = asyncio.run(run_all(plan, slug, lambda s: print(s, flush=True)))
    title = f"Classroom fan-out ({slug}; {machine_summary(cases)})"
    return [title, *(CaseRow(c) for c in cases), *rows]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.fanout")
    parser.add_argument(
        "--quick", action="store_true", help="50 students, 2 rounds of 5 s runs"
    )
    parser.add_argument("--markdown", action="store_true")
    parser.add_argument("--lab", choices=sorted(ACTIONS), default="quorum")
    parser.add_argument("--students", type=int, help="students in (a), (b), (c)")
    parser.add_argument("--seconds", type=float, help="how long the hosts act")
    parser.add_argument(
        "--pairs",
        type=int,
        help=f"rounds of (a), (b) each after a floor run (default {FULL.pairs}; "
        f"fewer than {MIN_PAIRS}: no verdicts)",
    )
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
    parser.add_argument(
        "--trace",
        metavar="DIR",
        help="time each action's steps in each daphne into DIR (read with "
        "`python -m benchmarks.fanout_profile read DIR`)",
    )
    args = parser.parse_args(argv)
    if args.pairs is not None and args.pairs < 1:
        parser.error("--pairs must be positive")
    folders = (
        ("CPU", args.profile),
        ("MEMORY", args.memory),
        ("GC", args.gc),
        ("TRACE", args.trace),
    )
    for mode, folder in folders:
        if folder:
            os.makedirs(folder, exist_ok=True)
            os.environ[f"FANOUT_{mode}_DIR"] = os.path.abspath(folder)
    plan = QUICK if args.quick else FULL
    pairs = args.pairs or plan.pairs
    plan = dataclasses.replace(
        plan,
        students=args.students or plan.students,
        restart=args.students or plan.restart,
        seconds=args.seconds or plan.seconds,
        pairs=pairs,
        # no verdicts: not the plan the targets are set for
        quick=plan.quick or bool(args.students or args.seconds) or pairs < MIN_PAIRS,
    )
    print(
        f"# Python {platform.python_version()}, {os.cpu_count()} CPUs; "
        f"before: {machine_load()}; {'quick' if args.quick else 'full'} run",
        flush=True,
    )
    started = time.perf_counter()
    parts = tuple(p.strip() for p in args.only.split(",") if p.strip())
    if not set(parts) <= set(PARTS):
        parser.error(f"--only takes {','.join(PARTS)}")
    say = lambda s: print(s, flush=True)  # noqa: E731
    cases, rows = asyncio.run(run_all(plan, args.lab, say, parts))
    print()
    print(case_table(cases, args.markdown))
    print()
    print(target_table(rows, args.markdown))
    print(f"\n# machine: {machine_summary(cases)}")
    print(f"# {time.perf_counter() - started:.0f} s in all; after: {machine_load()}")
    return 1 if any(r.passed is False for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
