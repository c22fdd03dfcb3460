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


def against_floor(
    floors: dict[str, Callable[[], object]],
    cases: dict[str, Callable[[], object]],
    repeat: int,
) -> tuple[dict[str, Timing], dict[str, float]]:
    """Median timing of every floor and case, and each case's median ratio to the floor.

    In every round each floor variant is timed just before each case and the fastest
    counts, so a slow spell of a shared machine weighs on both sides of a ratio alike.
    """
    runs: dict[str, list[Timing]] = {name: [] for name in [*floors, *cases]}
    ratios: dict[str, list[float]] = {name: [] for name in cases}
    for _ in range(repeat):
        for name, work in cases.items():
            floor = min(_timed(runs, f, floors[f]).cpu for f in floors)
            ratios[name].append(_timed(runs, name, work).cpu / floor)
    timings = {name: median(times) for name, times in runs.items()}
    return timings, {name: statistics.median(r) for name, r in ratios.items()}


def _timed(runs: dict[str, list[Timing]], name: str, work: Callable[[], object]):
    timing = time_once(work)
    runs[name].append(timing)
    return timing


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
    """A ratio measured as interleaved pairs: each case run just after its peer.

    `ratios` are case/peer, one per pair; the verdict uses their median, and the
    spread (lowest and highest) is printed beside it, so a reader sees whether a
    pass rests on a stall of one side.
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


def paired(
    case: Callable[[], float], peer: Callable[[], float], pairs: int = MIN_PAIRS
) -> Paired:
    """Run `peer` then `case` `pairs` times (at least MIN_PAIRS); each returns the
    measure of its run (seconds, or any cost where smaller is better)."""
    ratios = []
    for _ in range(max(pairs, MIN_PAIRS)):
        before = peer()
        ratios.append(case() / before)
    return Paired(tuple(ratios))


def machine_load() -> str:
    """How busy the machine was: the 1-minute load average against its cores."""
    import os

    one, five, _ = os.getloadavg()
    return f"load {one:.1f} (5 min {five:.1f}) on {os.cpu_count()} cores"
