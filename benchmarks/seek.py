"""Seeking in a 10,000-action history (issue 5: under 100 ms to any point).

For each lab, a seeded script of 10,000 accepted actions is applied to a
`playground.history.History`; then 200 seeks to seeded random points are timed (wall
clock, this process), for several checkpoint spacings. The spacing is declared work,
not a count or a time: a checkpoint (a pickled copy of the lab) is taken whenever the
actions applied since the last one declare `CHECKPOINT_WORK` units of replay work
(about a microsecond each), so a seek replays at most about that much work after
unpickling the nearest checkpoint. The row shows the p50, p99 and worst seek,
the checkpoints kept and their bytes; the spacing the playground uses is the one marked.
Seek times are CPU time of this process (what other work on a shared machine does not
inflate); the worst wall-clock seek is shown beside them.

Run alone: `python -m benchmarks.seek [--quick]`.
"""

import argparse
import os
import random
import statistics
import sys
import time

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "playground.settings")
django.setup()

from benchmarks.timing import Row, Timing, render  # noqa: E402
from playground import history as history_module  # noqa: E402
from playground.history import History  # noqa: E402
from playground.store import Entry  # noqa: E402
from simulators.engine.declaration import ActionError  # noqa: E402
from simulators.labs import LABS  # noqa: E402

ACTIONS = 10_000
SEEKS = 200
TARGET_MS = 100.0
SPACINGS = (5_000, 20_000, 50_000)  # declared work units (~µs)


def script(slug: str, rng: random.Random):
    """An endless seeded stream of (action, args) typical of the lab."""
    while True:
        if slug == "hash-placement":
            yield rng.choice(
                [
                    ("lookup", {"key": f"N{rng.randint(10000, 99999)}"}),
                    ("add_shard", {}),
                    ("remove_shard", {"shard": rng.choice("ABCDEFGHIJKL")}),
                    ("set_vnodes", {"vnodes": rng.randint(1, 256)}),
                    (
                        "mark_hot",
                        {"key": "N12345", "share_percent": rng.randint(1, 99)},
                    ),
                ]
            )
        elif slug == "quorum":
            yield rng.choice(
                [
                    (
                        "write",
                        {"w": rng.choice(["ONE", "QUORUM"]), "coordinator": "auto"},
                    ),
                    (
                        "read",
                        {"r": rng.choice(["ONE", "QUORUM"]), "coordinator": "auto"},
                    ),
                    ("advance", {"ms": rng.randint(5, 80)}),
                    ("advance", {"ms": rng.randint(5, 80)}),
                    ("cut_link", {"link": rng.choice(["A-B", "A-C", "B-C"])}),
                    ("heal_all", {}),
                ]
            )
        else:
            yield rng.choice(
                [
                    (
                        "book",
                        {
                            "server": rng.choice("ABC"),
                            "passenger": "P0000001",
                            "mode": rng.choice(["majority", "anyway"]),
                        },
                    ),
                    ("board", {"node": rng.choice("ABC"), "mode": "anyway"}),
                    ("advance", {"ms": rng.randint(10, 200)}),
                    ("split", {"group": rng.choice("ABC")}),
                    ("heal_all", {}),
                ]
            )


def build(slug: str, count: int) -> History:
    rng = random.Random(11)
    timeline = History(LABS[slug], 11)
    stream = script(slug, rng)
    while timeline.length < count:
        name, args = next(stream)
        try:
            timeline.apply(name, args, Entry(0, name, args))
        except ActionError:
            continue
    return timeline


def measure(slug: str, spacing: int, count: int, seeks: int) -> tuple[list, History]:
    history_module.CHECKPOINT_WORK = spacing
    timeline = build(slug, count)
    rng = random.Random(3)
    times, walls = [], []
    for _ in range(seeks):
        to = rng.randint(0, count)
        cpu, wall = time.process_time(), time.perf_counter()
        timeline.apply("seek", {"to": to})
        times.append(1000 * (time.process_time() - cpu))
        walls.append(1000 * (time.perf_counter() - wall))
    return times, walls, timeline


def seek_rows(count: int = ACTIONS, seeks: int = SEEKS) -> list:
    used = history_module.CHECKPOINT_WORK
    rows: list = [f"Seek in a {count:,}-action history ({seeks} seeded seeks)"]
    for slug in sorted(LABS):
        for spacing in SPACINGS:
            times, walls, timeline = measure(slug, spacing, count, seeks)
            ordered = sorted(times)
            p99 = ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]
            kept = len(timeline._indexes)
            size = sum(len(p) for p in timeline._pickles.values())
            mark = " (used)" if spacing == used else ""
            rows.append(
                Row(
                    f"{slug}, a checkpoint per {spacing:,} units of work{mark}: "
                    f"{kept} checkpoints, {size / 1e6:.1f} MB",
                    Timing(sum(times) / 1000, sum(walls) / 1000),
                    None,
                    f"p50 {statistics.median(times):.1f} ms, p99 {p99:.1f} ms, "
                    f"worst {ordered[-1]:.1f} ms (wall worst {max(walls):.1f})",
                    f"< {TARGET_MS:g} ms",
                    ordered[-1] < TARGET_MS,
                )
            )
    history_module.CHECKPOINT_WORK = used
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.seek")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args(argv)
    rows = seek_rows(1_000, 50) if args.quick else seek_rows()
    print(render(rows, markdown=args.markdown))
    return 0 if all(isinstance(r, str) or r.passed for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
