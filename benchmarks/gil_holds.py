"""The longest single GIL hold of every lab's heavy actions (issue 29).

The server runs every lab's actions in threads of the daphne process (heavy ones in a
heavy lane thread of their own: playground/rooms/work.py). CPython switches threads
every 5 ms, but only between bytecodes: one long call into C (`sorted()` of a million
ints, `json.dumps` of a huge state, a collection of a big heap) holds the GIL for its
whole length, and for that long the event loop and every other room stand still. So no
heavy action may hold it for more than `TARGET_MS` at a time.

For every built lab (`simulators/labs/__init__.py` BUILT) this drives a fresh History
to each of `CASES`' states (its manifest's `heavy_cases`: the steps before, with a
frame after each as a room makes it), then does the timed steps as a room does:
`History.apply` (with its checkpoint, taken by pickling, labelled apart), the frame's
snapshot, its encoding and patch (playground/rooms/wire.py, playground/delta.py),
metrics and digest. A watcher thread meanwhile sleeps 1 ms in a loop: the longest gap
between two of its wake-ups, less the 1 ms asked for, is the longest single hold,
charged to the phase it overlapped most (a gap mostly inside a garbage collection is
marked `gc`). Pure Python shows up as about 5-6 ms (the switch interval); more than
that is one C call, or a collection. On a shared machine a gap also opens when neither
thread gets a core: a gap counts only as long as the working thread's CPU time in it.

Every action whose declared cost (`History.cost_of` + the frame) can reach
`PLAYGROUND_HEAVY_UNITS` has a case at its declared maxima, after the state that makes
it heavy (`HEAVY_ACTIONS` works them out from the cost models: by the declaration, or
along the manifest's cost plan and cost cases; tests/server/test_gil_holds.py checks
the cases cover them). Labs with no heavy action have their dearest one, for
comparison. A busy machine only makes gaps longer, never shorter: each case runs
`--repeat` times from scratch, and the table shows the least of the runs' longest
holds (what the code itself holds) and the worst.
`--calls MS` runs each case once more under a profile hook and lists the built-in
calls that took longer than MS, and where: what to cut into pieces.

Run: `python -m benchmarks.gil_holds [--lab slug] [--repeat R] [--markdown]
[--calls MS]`; it exits 1 when a heavy case held the GIL over the target in every run.
"""

import argparse
import gc
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "playground.settings")
django.setup()

from django.conf import settings  # noqa: E402

from playground.delta import frame_body  # noqa: E402
from playground.history import Entry, History  # noqa: E402
from playground.rooms.wire import encode  # noqa: E402
from simulators.engine.declaration import ActionError  # noqa: E402
from simulators.labs import BUILT, LABS, REGISTRY  # noqa: E402

TARGET_MS = 50  # the longest hold a heavy action may make (issue 29)
TICK = 0.001  # the watcher's sleep
SHOWN_MS = 3.0  # gaps shorter than this are the watcher's own jitter: not kept
PHASES = (
    "apply",
    "checkpoint",
    "snapshot",
    "encode",
    "frame_body",
    "metrics",
    "digest",
)


def heavy_actions(manifest, units: int) -> tuple[str, ...]:
    """The lab's actions whose declared cost with its frame can reach `units`, read
    from its cost model alone (nothing runs): by their declaration (`ActionSpec.cost`),
    or in a state along its cost plan's `heaviest` histories or its `cost_cases` (a
    million keys, 120,000 writes, a read rate of 5,000 a second), less those its
    manifest says `never_heavy`. In the order the lab declares them."""
    lab = manifest.lab
    heavy = {spec.name for spec in lab.actions if spec.cost + lab.frame_cost >= units}
    plan = manifest.cost_plan
    histories = [*(plan.heaviest if plan else ())]
    histories += [(*before, *timed) for _what, before, timed in manifest.cost_cases]
    for steps in histories:
        costs = lab.cost_model(lab)
        for name, args in steps:
            try:
                if costs.cost_of(name, args) + costs.frame() >= units:
                    heavy.add(name)
            except ActionError:
                continue  # refused: costs nothing, changes nothing
    return tuple(
        spec.name
        for spec in lab.actions
        if spec.name in heavy and spec.name not in manifest.never_heavy
    )


# Each built lab's actions whose declared cost can reach PLAYGROUND_HEAVY_UNITS: some
# only in a state (a million keys, 120,000 writes, a log of 200,000 records, the
# grown graph, a read rate of 5,000 a second)
HEAVY_ACTIONS = {
    manifest.slug: heavy_actions(manifest, settings.PLAYGROUND_HEAVY_UNITS)
    for manifest in REGISTRY.built
}

# Actions whose declaration says more than they can reach: (lab, action): why
NEVER_HEAVY = {
    (manifest.slug, name): why
    for manifest in REGISTRY.built
    for name, why in manifest.never_heavy.items()
}

# (lab, what, the steps before, the steps timed): every built lab's `heavy_cases`
# (simulators/labs/<lab>/manifest.py), in the course's order
CASES = [
    (manifest.slug, what, list(before), list(timed))
    for manifest in REGISTRY.built
    for what, before, timed in manifest.heavy_cases
]


@dataclass
class Watch:
    """A thread that sleeps `TICK` in a loop, and the phases the main thread ran.

    `gaps` are the (start, end, hold) of the watcher's sleeps that took `SHOWN_MS`
    longer than asked (the hold: that, or the worker's CPU time in the gap if less);
    `phases` the (label, start, end) of the main thread's work, flat (a
    nested phase closes its parent's stretch and reopens it after); `collections`
    the (start, end) of the garbage collector's runs.
    """

    gaps: list = field(default_factory=list)
    phases: list = field(default_factory=list)
    collections: list = field(default_factory=list)
    _stack: list = field(default_factory=list)
    _opened: float = 0.0
    _gc_start: float = 0.0
    _stop: threading.Event = field(default_factory=threading.Event)

    def _watch(self, worker: int) -> None:
        clock, worker_cpu = time.perf_counter, time.pthread_getcpuclockid(worker)
        last, last_cpu = clock(), time.clock_gettime(worker_cpu)
        while not self._stop.is_set():
            time.sleep(TICK)
            now, cpu = clock(), time.clock_gettime(worker_cpu)
            # the worker ran (held the GIL) for at most `cpu - last_cpu` of the gap:
            # a gap in which the machine ran neither thread is not a hold
            held = min(now - last - TICK, cpu - last_cpu)
            if held * 1_000 > SHOWN_MS:
                self.gaps.append((last, now, held))
            last, last_cpu = now, cpu

    def _gc(self, event: str, info: dict) -> None:
        if event == "start":
            self._gc_start = time.perf_counter()
        else:
            self.collections.append((self._gc_start, time.perf_counter()))

    @contextmanager
    def running(self) -> Iterator["Watch"]:
        thread = threading.Thread(
            target=self._watch,
            args=(threading.get_ident(),),
            name="gil-watch",
            daemon=True,
        )
        gc.callbacks.append(self._gc)
        thread.start()
        try:
            yield self
        finally:
            self._stop.set()
            thread.join()
            gc.callbacks.remove(self._gc)

    @contextmanager
    def phase(self, label: str) -> Iterator[None]:
        now = time.perf_counter()
        if self._stack:
            self.phases.append((self._stack[-1], self._opened, now))
        self._stack.append(label)
        self._opened = now
        try:
            yield
        finally:
            now = time.perf_counter()
            self.phases.append((self._stack.pop(), self._opened, now))
            self._opened = now

    def holds(self) -> dict[str, tuple[float, bool]]:
        """The longest gap charged to each phase, in ms, and whether it was mostly a
        garbage collection."""
        out: dict[str, tuple[float, bool]] = {}
        for start, end, held in self.gaps:
            label, most = None, 0.0
            for name, a, b in self.phases:
                overlap = min(end, b) - max(start, a)
                if overlap > most:
                    label, most = name, overlap
            if label is None:
                continue
            held *= 1_000
            in_gc = sum(
                max(0.0, min(end, b) - max(start, a)) for a, b in self.collections
            )
            if held > out.get(label, (0.0, False))[0]:
                out[label] = (held, in_gc * 1_000 > held / 2)
        return out


class ProbedHistory(History):
    """A History whose checkpoints are timed as a phase of their own."""

    watch: Watch

    def _checkpoint(self, position, lab) -> None:
        with self.watch.phase("checkpoint"):
            super()._checkpoint(position, lab)

    def _to_store(self, entry) -> None:
        with self.watch.phase("checkpoint"):
            super()._to_store(entry)


def frame(history: History, entry: Entry, events: list, before, watch: Watch):
    """Make the frame a room makes after an action (playground/rooms/room.py), each
    part a phase; the snapshot it carries, and the frame's length encoded."""
    lab = history.lab
    with watch.phase("snapshot"):
        snapshot = lab.snapshot()
    with watch.phase("encode"):
        text = encode(snapshot)
    with watch.phase("frame_body"):
        body = frame_body(before, snapshot, text)
    with watch.phase("metrics"):
        metrics = lab.metrics()
    with watch.phase("digest"):
        digest = lab.digest()
    with watch.phase("encode"):
        text = encode(
            {
                "type": "frame",
                "seq": entry.seq,
                "action": {"name": entry.name, "args": entry.args},
                "events": events,
                "timeline": history.as_dict(),
                **body,
                "metrics": metrics,
                "digest": digest,
            }
        )
    return snapshot, len(text)


def run_case(
    slug: str, before: list, timed: list, hook: Callable | None = None
) -> tuple[dict, int, int]:
    """One run from scratch: the longest hold of each phase of the timed steps, the
    most any of them declared (with its frame), and the longest frame they made.
    `hook(watch)` is called as the timed steps begin."""
    for lab in BUILT:  # graphs and rings are made once per process: start as a
        lab.forget_caches()  # replay does
    gc.collect()  # the last run's labs, and what only they held, go
    watch = Watch()
    history = ProbedHistory(LABS[slug], 1)
    history.watch = watch
    seq = 0
    snapshot = None
    for name, args in before:  # not watched: no phase is open
        seq += 1
        entry = Entry(seq, name, args)
        events = history.apply(name, args, entry)
        snapshot, _chars = frame(history, entry, events, snapshot, watch)
    watch.phases.clear()
    declared = longest = 0
    gc.collect()
    with watch.running():
        if hook is not None:
            hook(watch)
        for name, args in timed:
            declared = max(
                declared, history.cost_of(name, args) + history.costs.frame()
            )
            seq += 1
            entry = Entry(seq, name, args)
            with watch.phase("apply"):
                events = history.apply(name, args, entry)
            snapshot, chars = frame(history, entry, events, snapshot, watch)
            longest = max(longest, chars)
        if hook is not None:
            sys.setprofile(None)
    return watch.holds(), declared, longest


class CallTimer:
    """A profile hook (`sys.setprofile`) noting every call of a built-in function
    that took more than `least_ms` of this thread's CPU time with no Python code run
    inside it (one hold), with the phase it ran in and the line that called it. It
    sees C functions and methods (`sorted`, `str.join`, `Counter`'s counting), not
    types called (`list(...)`, `array(...)`), nor a collection; and a call that lets
    the GIL go inside (sqlite3 running a statement, hashing a long buffer) shows up
    as one: the watcher's table says what was held."""

    def __init__(self, watch: Watch, least_ms: float) -> None:
        self.watch = watch
        self.least = least_ms / 1_000
        self.open: list[list] = []  # [start, function, caller, ran Python inside]
        self.found: list[tuple[float, str, str, str]] = []

    def __call__(self, frame, event: str, arg) -> None:
        if event == "c_call":
            self.open.append([time.thread_time(), arg, frame, False])
        elif event == "call":  # Python code runs inside every open C call
            for call in self.open:
                call[3] = True
        elif event in ("c_return", "c_exception") and self.open:
            start, function, caller, interrupted = self.open.pop()
            spent = time.thread_time() - start
            if spent > self.least and not interrupted:
                phase = self.watch._stack[-1] if self.watch._stack else "?"
                where = caller.f_code.co_filename
                for root in sys.path:
                    if root and where.startswith(root):
                        where = os.path.relpath(where, root)
                        break
                name = getattr(function, "__qualname__", repr(function))
                self.found.append(
                    (spent * 1_000, phase, name, f"{where}:{caller.f_lineno}")
                )


def timed_calls(slug: str, before: list, timed: list, least_ms: float) -> list:
    """One more run, profiled: the built-in calls longer than `least_ms`."""
    timer: list[CallTimer] = []

    def hook(watch: Watch) -> None:
        timer.append(CallTimer(watch, least_ms))
        sys.setprofile(timer[0])

    try:
        run_case(slug, before, timed, hook)
    finally:
        sys.setprofile(None)
    return timer[0].found


@dataclass
class Result:
    slug: str
    what: str
    declared: int
    frame_chars: int  # the longest frame of the timed steps, encoded
    least: dict[str, float]  # the least of the runs' longest holds, by phase
    worst: dict[str, float]  # the most
    gc: dict[str, bool]  # whether it was mostly a collection (in most runs)
    calls: list = field(default_factory=list)


def probe(
    slug: str, what: str, before: list, timed: list, repeat: int, calls: float
) -> Result:
    runs = [run_case(slug, before, timed) for _ in range(repeat)]
    least, worst, marked = {}, {}, {}
    for phase in PHASES:
        values = [r[0].get(phase, (0.0, False)) for r in runs]
        least[phase] = min(v[0] for v in values)
        worst[phase] = max(v[0] for v in values)
        marked[phase] = sum(v[1] for v in values) * 2 > len(values)
    found = timed_calls(slug, before, timed, calls) if calls else []
    return Result(slug, what, runs[0][1], runs[0][2], least, worst, marked, found)


def missing_cases() -> list[str]:
    """Heavy actions (HEAVY_ACTIONS) that no case does: `lab: action`."""
    done = {(slug, name) for slug, _what, _before, timed in CASES for name, _ in timed}
    return [
        f"{slug}: {name}"
        for slug, names in HEAVY_ACTIONS.items()
        for name in names
        if (slug, name) not in done
    ]


def over(result: Result) -> bool:
    """Whether a heavy case held the GIL longer than the target in every run."""
    heavy = result.declared >= settings.PLAYGROUND_HEAVY_UNITS
    return heavy and max(result.least.values()) > TARGET_MS


def render(results: list[Result], markdown: bool) -> str:
    heavy = settings.PLAYGROUND_HEAVY_UNITS
    head = (
        "lab",
        "action (declared units; longest frame)",
        "phase",
        "longest hold (ms)",
        "worst",
        "",
    )
    rows = []
    for r in results:
        weight = "" if r.declared >= heavy else ", not heavy"
        size = f"{r.frame_chars / 1_000:,.0f} kB frame"
        what = f"{r.what} ({r.declared:,}{weight}; {size})"
        if not any(r.worst.values()):
            rows.append((r.slug, what, "every", "-", "-", ""))
        for phase in PHASES:
            if r.worst[phase] == 0.0:
                continue  # nothing longer than the watcher's jitter in any run
            held = r.least[phase]
            flag = "OVER" if held > TARGET_MS else ""
            if r.gc[phase]:
                flag = (flag + " gc").strip()
            rows.append(
                (r.slug, what, phase, f"{held:.1f}", f"{r.worst[phase]:.1f}", flag)
            )
    if markdown:
        lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        lines += ["| " + " | ".join(row) + " |" for row in rows]
        return "\n".join(lines)
    widths = [max(len(str(x[i])) for x in [head, *rows]) for i in range(len(head))]
    return "\n".join(
        "  ".join(str(x).ljust(w) for x, w in zip(row, widths, strict=True)).rstrip()
        for row in [head, *rows]
    )


@dataclass(frozen=True)
class HoldRow:
    """One case's longest hold, in the columns of `make bench`'s table ("ratio"
    holds the hold, its phase and the worst run's)."""

    result: Result

    def cells(self) -> list[str]:
        r = self.result
        phase = max(PHASES, key=lambda p: (r.least[p], r.worst[p]))
        heavy = r.declared >= settings.PLAYGROUND_HEAVY_UNITS
        verdict = {None: "", True: "PASS", False: "MISS"}[
            (not over(r)) if heavy else None
        ]
        return [
            f"{r.slug}: {r.what} (declares {r.declared:,})",
            "",
            "",
            "",
            f"{r.least[phase]:.1f} ms in {phase} (worst run {r.worst[phase]:.1f})",
            f"≤ {TARGET_MS} ms" if heavy else "",
            verdict,
        ]


def gil_rows(repeat: int) -> list:
    """Every case as a row of `make bench`'s table, under a title."""
    rows: list = [
        f"longest single GIL hold of each lab's heavy actions (least of {repeat} runs)"
    ]
    for lab in BUILT:
        for slug, what, before, timed in CASES:
            if slug == lab.slug:
                rows.append(HoldRow(probe(slug, what, before, timed, repeat, 0.0)))
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.gil_holds")
    parser.add_argument("--lab", choices=[lab.slug for lab in BUILT])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--markdown", action="store_true")
    parser.add_argument(
        "--calls",
        type=float,
        default=0.0,
        metavar="MS",
        help="also list the built-in calls that took longer than MS (one more run)",
    )
    args = parser.parse_args(argv)
    if args.repeat < 1:
        parser.error("--repeat must be positive")
    missing = missing_cases()
    if missing:
        print("heavy actions without a case: " + ", ".join(missing), file=sys.stderr)
        return 2
    results = []
    for lab in BUILT:  # in BUILT's order, every built lab
        if args.lab and lab.slug != args.lab:
            continue
        for slug, what, before, timed in CASES:
            if slug == lab.slug:
                result = probe(slug, what, before, timed, args.repeat, args.calls)
                results.append(result)
                print(f"# {slug}: {what}", file=sys.stderr, flush=True)
    print(
        f"# longest single GIL hold (ms): the least of {args.repeat} runs, and the "
        f"worst; target {TARGET_MS} ms; phases shown when over {SHOWN_MS:g} ms"
    )
    print(render(results, args.markdown))
    for r in results:
        for spent, phase, name, where in r.calls:
            print(f"# {r.slug}: {r.what}: {phase}: {name} {spent:.1f} ms at {where}")
    return 1 if any(over(r) for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
