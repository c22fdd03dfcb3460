"""Timing and reporting: medians of repeated runs, and one table of results.

Each run is timed twice over: CPU seconds of this process (`time.process_time`), which
other work on a shared machine does not inflate, and wall-clock seconds, which is what a
user waits. Ratios between cases use CPU time; on an idle machine the two agree, since
everything measured runs on one thread.
"""

import gc
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Timing:
    """CPU and wall-clock seconds of one case (a median when it summarises runs)."""

    cpu: float
    wall: float


def time_once(work: Callable[[], object]) -> Timing:
    """How long one call of `work` takes, the garbage collector paused (as timeit)."""
    gc.collect()
    gc.disable()
    try:
        cpu, wall = time.process_time(), time.perf_counter()
        work()
        return Timing(time.process_time() - cpu, time.perf_counter() - wall)
    finally:
        gc.enable()


def median(runs: list[Timing]) -> Timing:
    """The median CPU time and the median wall time of several runs."""
    return Timing(
        statistics.median(r.cpu for r in runs), statistics.median(r.wall for r in runs)
    )


def medians(cases: dict[str, Callable[[], object]], repeat: int) -> dict[str, Timing]:
    """Median timing of each case over `repeat` rounds, the cases taking turns."""
    runs: dict[str, list[Timing]] = {name: [] for name in cases}
    for _ in range(repeat):
        for name, work in cases.items():
            runs[name].append(time_once(work))
    return {name: median(times) for name, times in runs.items()}


@dataclass(frozen=True)
class Row:
    """One line of the results table."""

    what: str
    timing: Timing
    keys: int | None = None
    ratio: str = ""
    target: str = ""
    passed: bool | None = None

    def cells(self) -> list[str]:
        """The row as table cells."""
        cpu_ns = (
            "" if self.keys is None else f"{1e9 * self.timing.cpu / self.keys:,.0f}"
        )
        verdict = {None: "", True: "PASS", False: "MISS"}[self.passed]
        return [
            self.what,
            f"{self.timing.cpu:.3f}",
            f"{self.timing.wall:.3f}",
            cpu_ns,
            self.ratio,
            self.target,
            verdict,
        ]


@dataclass(frozen=True)
class FpsRow:
    """One line of frame timing in a browser, in the same table's columns.

    "wall s" holds the animation window; "ratio" holds mean fps, the 95th percentile of
    the frame time and the share of frames longer than one 60 Hz frame (16.7 ms).
    """

    what: str
    window_s: float
    frames: int
    fps: float
    p95_ms: float
    slow_share: float
    target: str = ""
    passed: bool | None = None
    note: str = ""

    def cells(self) -> list[str]:
        """The row as table cells."""
        verdict = {None: "", True: "PASS", False: "MISS"}[self.passed]
        return [
            f"{self.what}; {self.frames} frames",
            "",
            f"{self.window_s:.3f}",
            "",
            f"{self.fps:.1f} fps, p95 {self.p95_ms:.1f} ms, "
            f"{self.slow_share:.0%} > 16.7 ms",
            self.target,
            verdict,
        ]


HEADER = ["measurement", "cpu s", "wall s", "cpu ns/item", "ratio", "target", "result"]


def render(rows: list[Row | FpsRow | str], markdown: bool) -> str:
    """The table as aligned text or as Markdown; a str row is a section title."""
    blank = [""] * (len(HEADER) - 1)
    body = [[f"**{r}**", *blank] if isinstance(r, str) else r.cells() for r in rows]
    if markdown:
        align = ["---", *["---:"] * 4, "---", "---"]
        return "\n".join([_md(HEADER), _md(align), *map(_md, body)])
    plain = [[c.strip("*") for c in cells] for cells in body]
    widths = [max(len(r[i]) for r in [HEADER, *plain]) for i in range(len(HEADER))]
    lines = [_plain(HEADER, widths), "  ".join("-" * w for w in widths)]
    for cells, row in zip(plain, rows, strict=True):
        lines.append(cells[0] if isinstance(row, str) else _plain(cells, widths))
    return "\n".join(lines)


def _md(cells: list[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def _plain(cells: list[str], widths: list[int]) -> str:
    first = cells[0].ljust(widths[0])
    rest = [c.rjust(w) for c, w in zip(cells[1:], widths[1:], strict=True)]
    return "  ".join([first, *rest]).rstrip()


@dataclass(frozen=True)
class Paired:
    """A ratio measured as interleaved pairs (`paired`: both sides warmed, the order
    alternating A-B-B-A).

    `ratios` are case/peer, one per pair, in the order they ran; the verdict uses
    their median, and the spread (lowest and highest) is printed beside it, so a
    reader sees whether a pass rests on a stall of one side.
    """

    ratios: tuple[float, ...]

    @property
    def median(self) -> float:
        return statistics.median(self.ratios)

    def text(self) -> str:
        """`0.41x (0.38-0.47, 5 pairs)`."""
        low, high = min(self.ratios), max(self.ratios)
        return f"{self.median:.2f}x ({low:.2f}-{high:.2f}, {len(self.ratios)} pairs)"


MIN_PAIRS = 5
# Calls of each side before the first timed one: CPython 3.11 specializes a function's
# bytecode only from its 8th call, so a side whose loop is one call a run (a bare
# engine's `run_until`) would otherwise be timed cold in the first pairs while a side
# that calls its loop several times a run is timed warm (two-phase-commit read 2.0x
# cold, 2.4x warm).
WARM_UP = 8


class Measure:
    """One side of a pair: `work`, and `measure`, which runs it once and returns what
    that run cost (seconds, or any cost where smaller is better).

    It counts its runs, so that `warm` can bring it to `WARM_UP` runs before its
    first timed one however many pairings it takes part in."""

    def __init__(self, work: Callable[[], object], measure: Callable[[], float]):
        self.work, self._measure, self.runs = work, measure, 0

    def __call__(self) -> float:
        self.runs += 1
        return self._measure()

    def warm(self, runs: int = WARM_UP) -> None:
        """Run the work, untimed, until it has run `runs` times in all."""
        while self.runs < runs:
            self.runs += 1
            self.work()


def cpu_of(work: Callable[[], object]) -> Measure:
    """A measure of `work` for `paired`: the CPU seconds of one call (`time_once`)."""
    return Measure(work, lambda: time_once(work).cpu)


def warm(side: Callable[[], float], runs: int = WARM_UP) -> None:
    """Bring one side of a pair to `runs` calls: a `Measure` (or anything with a
    `warm` method) runs its work untimed; a bare callable is called and its result
    dropped, `runs` times."""
    if hasattr(side, "warm"):
        side.warm(runs)
    else:
        for _ in range(runs):
            side()


def paired(
    case: Callable[[], float], peer: Callable[[], float], pairs: int = MIN_PAIRS
) -> Paired:
    """The ratio case/peer as `pairs` pairs (at least MIN_PAIRS); each side returns
    the measure of its run (seconds, or any cost where smaller is better).

    Both sides are warmed first (`WARM_UP` calls each, the peer's first), and the
    order alternates A-B-B-A: pair 0 runs the peer then the case, pair 1 the case
    then the peer, and so on, so neither side always runs first (after the other's
    garbage, in the other's caches, on the machine's fresher or staler moment)."""
    warm(peer)
    warm(case)
    ratios = []
    for i in range(max(pairs, MIN_PAIRS)):
        if i % 2 == 0:
            before = peer()
            ratios.append(case() / before)
        else:
            after = case()
            ratios.append(after / peer())
    return Paired(tuple(ratios))


def machine_load() -> str:
    """How busy the machine was: the 1-minute load average against its cores."""
    import os

    one, five, _ = os.getloadavg()
    return f"load {one:.1f} (5 min {five:.1f}) on {os.cpu_count()} cores"


VSYNC_MS = 1000 / 60
# requestAnimationFrame timestamps are vsync-aligned, give or take a fraction of a
# millisecond: a frame on time measures 16.5-16.8 ms, one vsync late 33.2-33.4 ms.
VSYNC_JITTER_MS = 0.5


def nearest_rank(values: list[float], share: float) -> float:
    """The `share` percentile of `values` by nearest rank (0.95: the p95)."""
    import math

    ordered = sorted(values)
    rank = math.ceil(round(share * len(ordered), 9))
    return ordered[max(1, min(len(ordered), rank)) - 1]


@dataclass(frozen=True)
class FrameRun:
    """The frame intervals (ms) of one browser run: its frame rate and its p95."""

    intervals: tuple[float, ...]
    window_ms: float

    @property
    def fps(self) -> float:
        span = sum(self.intervals)
        return 1000 * len(self.intervals) / span if span else 0.0

    @property
    def p95_ms(self) -> float:
        return nearest_rank(list(self.intervals), 0.95)

    @property
    def slow_share(self) -> float:
        """The share of frames longer than one 60 Hz frame (beyond the jitter)."""
        slow = sum(1 for ms in self.intervals if ms > VSYNC_MS + VSYNC_JITTER_MS)
        return slow / len(self.intervals) if self.intervals else 0.0


@dataclass(frozen=True)
class FrameRuns:
    """Repeated browser runs of one scenario at one CPU slow-down, as a table row.

    The verdict is the median of the runs' p95 frame times against `frames` vsync
    intervals of 60 Hz (1: 16.7 ms, 2: 33 ms), allowing the timestamps' jitter;
    the spread of the runs (lowest-highest) is printed beside the median.
    `valid` is False when the scenario was not what it claims (the row then fails).
    """

    what: str
    throttle: float
    runs: tuple[FrameRun, ...]
    frames: int = 1
    valid: bool = True

    @property
    def target_ms(self) -> float:
        return self.frames * VSYNC_MS

    @property
    def p95_ms(self) -> float:
        """The runs' median p95 (of an even count, the higher of the middle two)."""
        return statistics.median_high(r.p95_ms for r in self.runs)

    @property
    def fps(self) -> float:
        return statistics.median(r.fps for r in self.runs)

    @property
    def passed(self) -> bool:
        return self.valid and self.p95_ms <= self.target_ms + VSYNC_JITTER_MS

    def spread(self) -> str:
        """Every run's p95 and fps, in the order they ran."""
        return ", ".join(f"{r.p95_ms:.1f} ms/{r.fps:.1f} fps" for r in self.runs)

    def cells(self) -> list[str]:
        """The row as table cells: "wall s" holds the median window."""
        p95s = [r.p95_ms for r in self.runs]
        fps = [r.fps for r in self.runs]
        slow = statistics.median(r.slow_share for r in self.runs)
        frames = statistics.median(len(r.intervals) + 1 for r in self.runs)
        window = statistics.median(r.window_ms for r in self.runs) / 1000
        ranges = len(self.runs) > 1
        return [
            f"{self.what}, CPU {self.throttle:g}×; {frames:.0f} frames",
            "",
            f"{window:.3f}",
            "",
            f"p95 {self.p95_ms:.1f} ms"
            + (f" ({min(p95s):.1f}–{max(p95s):.1f})" if ranges else "")
            + f", {self.fps:.1f} fps"
            + (f" ({min(fps):.1f}–{max(fps):.1f})" if ranges else "")
            + f", {slow:.0%} > 16.7 ms",
            f"p95 ≤ {self.target_ms:.1f} ms",
            "PASS" if self.passed else "MISS",
        ]


def machine_busy_seconds() -> float:
    """CPU seconds all the machine's cores have been busy since boot, summed: every
    column of /proc/stat's `cpu` line but idle and iowait (steal counts as busy: the
    host ran something else). The difference over a window, less what the benchmark's
    own processes used, is the work of others; 0.0 where there is no /proc/stat."""
    import os

    try:
        with open("/proc/stat") as file:
            ticks = [int(f) for f in file.readline().split()[1:9]]
    except (OSError, ValueError):
        return 0.0
    idle, iowait = ticks[3], ticks[4]
    return (sum(ticks) - idle - iowait) / os.sysconf("SC_CLK_TCK")


class Recorded:
    """Every run of named works, kept for rows, while `paired` reads their CPU time.

    `recorded.cpu(name, work)` is a measure for `paired`: it times one call of `work`
    with `time_once`, keeps the timing under `name` and returns its CPU seconds; a
    work measured in several pairings keeps all its runs (its untimed warm-up runs are
    not kept). `timing(name)` is the median.
    """

    def __init__(self) -> None:
        self.runs: dict[str, list[Timing]] = {}

    def cpu(self, name: str, work: Callable[[], object]) -> Measure:
        """A measure of `work` for `paired`, recording each timed run under `name`."""

        def measure() -> float:
            timing = time_once(work)
            self.runs.setdefault(name, []).append(timing)
            return timing.cpu

        return Measure(work, measure)

    def fastest(self, *measures: Callable[[], float]) -> Measure:
        """A measure that runs each of `measures` in turn and returns the least:
        a floor with several variants, the fastest counting.
        Warming it warms each variant."""
        return _Fastest(measures)

    def timing(self, name: str) -> Timing:
        """The median timing of every run recorded under `name`."""
        return median(self.runs[name])


class _Fastest(Measure):
    """The least of several measures' runs, as one measure (`Recorded.fastest`)."""

    def __init__(self, measures: tuple[Callable[[], float], ...]) -> None:
        self.measures = measures
        super().__init__(
            lambda: [getattr(m, "work", m)() for m in measures],
            lambda: min(measure() for measure in measures),
        )

    def warm(self, runs: int = WARM_UP) -> None:
        for measure in self.measures:
            warm(measure, runs)


def paired_rows(
    title: str,
    what: str,
    case: Callable[[], object],
    peer: Callable[[], object],
    items: int,
    target: float,
    pairs: int = MIN_PAIRS,
) -> list[Row | str]:
    """A section of one row: `case` over `peer` in CPU time as pairs (`paired`: both
    sides warmed, A-B-B-A), the median case timing beside it, passed when the median
    ratio is at most `target`; the title ends with the machine's load."""
    timings: list[Timing] = []

    def timed_case() -> float:
        timings.append(time_once(case))
        return timings[-1].cpu

    ratio = paired(Measure(case, timed_case), cpu_of(peer), pairs)
    middle = sorted(timings, key=lambda t: t.cpu)[len(timings) // 2]
    passed = ratio.median <= target
    row = Row(what, middle, items, ratio.text(), f"≤ {target:g}x", passed)
    return [f"{title} ({machine_load()})", row]
