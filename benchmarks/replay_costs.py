"""Declared replay costs against what actions take (simulators/engine/cost.py).

Every action declares its cost in work units of about a microsecond; links are refused,
and heavy work is sent to lanes of its own, by those declarations alone. Here each case
is set up in a fresh lab, caches emptied (as a new process meets it), then its action is
timed with the metrics every frame computes (hash-placement counts keys per shard
lazily, when they are first asked for: the work an action causes lands there), CPU
time of this process, median of the runs, and divided by what it declared in that
state (`History.cost_of`: with the checkpoint pickled after it when one is due).
tests/simulators/test_measured_costs.py checks the same bound on histories hypothesis
draws over every action's declared ranges. A ratio near 1 is an honest declaration;
above 1.5 the declaration is too low (a link could pass the budget while taking longer),
below 0.2 needlessly high (a link is refused that would open fast).

Run alone: `python -m benchmarks.replay_costs [--repeat R]`.
"""

import argparse
import os
import statistics
import sys
from functools import partial

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "playground.settings")
django.setup()

from benchmarks.timing import Row, Timing, render, time_once  # noqa: E402
from playground.history import History  # noqa: E402
from simulators.labs import LABS, REGISTRY  # noqa: E402

HIGH, LOW = 1.5, 0.2  # a declaration outside this band of the measured cost misses


def cases() -> list[tuple[str, str, list, list]]:
    """(lab, what, the steps before, the steps timed): every lab's `cost_cases`, from
    its manifest (simulators/labs/<lab>/manifest.py), in the course's order."""
    return [
        (manifest.slug, what, list(before), list(timed))
        for manifest in REGISTRY.built
        for what, before, timed in manifest.cost_cases
    ]


def shown(lab) -> None:
    """What every frame of the lab computes: its metrics (hash-placement's per-shard
    counts are made there, lazily, once per change of placement)."""
    lab.metrics()


def framed(history: History, name: str, args: dict) -> None:
    """Apply an action as a room does: then its frame's snapshot and metrics."""
    history.apply(name, args)
    shown(history.lab)


def measure(slug: str, before: list, timed: list, repeat: int) -> tuple[Timing, int]:
    """The median time of the timed steps (or of making the lab), and their cost."""
    lab_class = LABS[slug]
    cpu, wall, declared = [], [], 0
    for _ in range(repeat):
        # graphs and rings are made once per process (`Lab.forget_caches`): start as
        # a replay in a new process does
        lab_class.forget_caches()
        history = History(lab_class, 1)
        for name, args in before:
            history.apply(name, args)
        shown(history.lab)
        if timed:
            declared, runs = 0, []
            for name, args in timed:
                declared += history.cost_of(name, args)  # in the state it meets
                runs.append(time_once(partial(framed, history, name, args)))
        else:
            declared = history.costs.start()
            lab_class.forget_caches()  # a new process makes its first lab cold
            runs = [time_once(lambda: shown(lab_class(seed=1)))]
        cpu.append(sum(r.cpu for r in runs))
        wall.append(sum(r.wall for r in runs))
    return Timing(statistics.median(cpu), statistics.median(wall)), declared


def cost_rows(repeat: int) -> list[Row | str]:
    """One row per case: measured / declared, with the band it must fall in."""
    rows: list[Row | str] = [
        "declared replay costs: measured CPU time / declared cost (1 unit = 1 µs)"
    ]
    for slug, what, before, timed in cases():
        timing, declared = measure(slug, before, timed, repeat)
        ratio = timing.cpu / (declared * 1e-6)
        rows.append(
            Row(
                f"{slug}: {what} (declares {declared:,})",
                timing,
                None,
                f"{ratio:.2f}",
                f"{LOW:g}–{HIGH:g}",
                LOW <= ratio <= HIGH,
            )
        )
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.replay_costs")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args(argv)
    rows = cost_rows(args.repeat)
    print(render(rows, markdown=args.markdown))
    return 1 if any(isinstance(r, Row) and r.passed is False for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
