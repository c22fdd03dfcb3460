"""`python -m benchmarks`: every benchmark as one table.

Each built lab's own rows first, in the course's order: a lab's benchmarks are the
module named after it, `benchmarks/<slug with underscores>.py`, found by convention
from the registry (`lab_modules`), whose `rows(repeat, keys)` gives its rows and whose
`browser_rows(repeat)`, if it has one, what is measured of it in Chromium. Today:
hash-placement's lookups, placing and rebalancing (against bare hashing, a plain
bisect, numpy and uhashring, paired); range-splits' boundary table at a million writes,
scatter-gather's 10,000 simulated queries at N = 64 and cache-stampede's simulated
minute under each refill strategy (each against the plainest loop, paired);
replication's 100,000 writes and a failover against the bare event engine; the quorum
counter; two-phase-commit's 10,000 bank transfers against the bare engine (paired);
graph-traversal's expansion and shortest paths on 100,000-edge networks against
networkx (paired), and its recursive SQL in SQLite. A lab without a module of its own
is in the rows every lab has. Then: the network engine against SimPy (paired); the
history checker on a 100-operation quorum history and on a bank run; seek and cold
load at 1,000, 10,000 and 50,000 actions for every lab; declared replay costs against
measured ones; the longest single GIL hold of every lab's heavy actions; the browser's
p95 frame time at 1x and 4x CPU slow-down (hash-placement's dots, range-splits'
slices, the quorum lab's 200 messages, cache-stampede's herd, graph-traversal's large
networks settling); the bytes an embed transfers before it is drawn; each lab's first
drawing at 150 ms round trip, modulepreload on and off; the classroom fan-out (one
host, hundreds of students on websockets, paired with a floor); the server's memory
under a message flood and a bystander's wait under a link bomb and under every lab's
heaviest work.

Options: `--keys N` (default 1,000,000), `--repeat R` (default 5, the median is shown),
`--markdown` (print the table as Markdown, as docs/benchmarks.md holds it),
`--no-browser` (skip what is measured in headless Chromium: frame rates, embed bytes,
first drawings),
`--no-fanout` (skip the classroom fan-out of `python -m benchmarks.fanout`, which
takes minutes), `--no-flood` (skip the message flood of `python -m benchmarks.flood`,
the link bomb of `python -m benchmarks.link_bomb` and the heavy work of `python -m
benchmarks.heavy_work`, about three minutes), `--no-gil`
(skip the longest GIL hold of every lab's heavy actions, `python -m
benchmarks.gil_holds`, about ten minutes).
"""

import argparse
import importlib
import importlib.util
import os
import platform
import sys
from types import ModuleType

from benchmarks.gil_holds import gil_rows
from benchmarks.history_checker import bank_rows, checker_rows
from benchmarks.network_engine import engine_rows
from benchmarks.replay_costs import cost_rows
from benchmarks.seek import seek_rows
from benchmarks.timing import render
from simulators.labs import REGISTRY


def lab_modules() -> dict[str, ModuleType]:
    """slug: the lab's own benchmark module (`benchmarks/<slug with underscores>.py`),
    for every built lab that has one, in the course's order. Such a module gives
    `rows(repeat, keys)` (`keys`: `--keys`, the size of the benchmarks that scale) and
    may give `browser_rows(repeat)`."""
    found = {}
    for manifest in REGISTRY.built:
        name = f"benchmarks.{manifest.slug.replace('-', '_')}"
        if importlib.util.find_spec(name) is None:
            continue  # the rows every lab has are its rows
        module = importlib.import_module(name)
        if not callable(getattr(module, "rows", None)):
            raise TypeError(
                f"{name} is {manifest.slug}'s: it gives no rows(repeat, keys)"
            )
        found[manifest.slug] = module
    return found


def main(argv: list[str] | None = None) -> int:
    """Run every benchmark and print one table; exit 1 if a target was missed."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks")
    parser.add_argument("--keys", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--markdown", action="store_true")
    parser.add_argument(
        "--no-browser", action="store_true", help="skip the Chromium frame-rate rows"
    )
    parser.add_argument(
        "--no-fanout", action="store_true", help="skip the classroom fan-out rows"
    )
    parser.add_argument(
        "--no-flood", action="store_true", help="skip the message flood rows"
    )
    parser.add_argument(
        "--no-gil", action="store_true", help="skip the GIL holds (about 10 minutes)"
    )
    args = parser.parse_args(argv)
    if args.repeat < 1 or args.keys < 1:
        parser.error("--keys and --repeat must be positive")

    print(
        f"# Python {platform.python_version()} on {platform.machine()}, "
        f"{os.cpu_count()} CPUs; {args.keys:,} keys; median of {args.repeat} runs",
        flush=True,
    )
    labs = lab_modules()
    rows = [
        row for module in labs.values() for row in module.rows(args.repeat, args.keys)
    ]
    rows += [
        *engine_rows(args.repeat),
        *checker_rows(args.repeat),
        *bank_rows(args.repeat),
        *seek_rows(),
        *cost_rows(args.repeat),
    ]
    if not args.no_gil:
        rows += gil_rows(min(args.repeat, 3))
    if not args.no_browser:
        from benchmarks.embed_transfer import table_rows
        from benchmarks.first_drawing import first_drawing_rows

        for module in labs.values():
            if hasattr(module, "browser_rows"):
                rows += module.browser_rows(args.repeat)
        rows += table_rows(min(args.repeat, 3))
        rows += first_drawing_rows(args.repeat)
    if not args.no_fanout:
        from benchmarks.fanout import fanout_rows

        rows += fanout_rows()
    if not args.no_flood:
        from benchmarks.flood import flood_rows
        from benchmarks.heavy_work import heavy_work_rows
        from benchmarks.link_bomb import link_bomb_rows

        rows += flood_rows()
        rows += link_bomb_rows()
        rows += heavy_work_rows()
    print(render(rows, markdown=args.markdown))
    missed = [r for r in rows if not isinstance(r, str) and r.passed is False]
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
