"""`python -m benchmarks`: every benchmark as one table.

Sections: hash-placement lookups, placing and rebalancing (against bare hashing, a
plain bisect, numpy and uhashring, paired); range-splits' boundary table at a million
writes, scatter-gather's 10,000 simulated queries at N = 64 and cache-stampede's
simulated minute under each refill strategy (each against the plainest loop,
paired); graph-traversal's expansion and shortest paths on 100,000-edge networks
against networkx (paired), and its recursive SQL in SQLite; the network engine
against SimPy (paired);
the quorum counter; replication's 100,000 writes and a failover against the bare
event engine; two-phase-commit's 10,000 bank transfers against the bare
engine (paired); the history checker on a 100-operation quorum history; seek and
cold load at 1,000, 10,000 and 50,000 actions for every lab; the browser's p95 frame
time at 1x and 4x CPU slow-down (hash-placement's dots,
200 messages, range-splits' slices, cache-stampede's herd, graph-traversal's large
networks settling); the bytes an embed
transfers before it is drawn; each lab's first drawing at 150 ms round trip,
modulepreload on and off; the classroom fan-out (one host, hundreds of students on
websockets, paired with a floor);
declared replay costs against measured ones; the longest single GIL hold of every lab's
heavy actions; the server's memory under a message flood and a bystander's wait under
a link bomb and under every lab's heaviest work.

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
import os
import platform
import sys

from benchmarks.cache_stampede import stampede_rows
from benchmarks.gil_holds import gil_rows
from benchmarks.graph_traversal import traversal_rows
from benchmarks.hash_placement import lookup_rows, placing_rows, rebalance_rows
from benchmarks.history_checker import bank_rows, checker_rows
from benchmarks.network_engine import engine_rows, quorum_rows
from benchmarks.range_splits import range_rows
from benchmarks.replay_costs import cost_rows
from benchmarks.replication import replication_rows
from benchmarks.scatter_gather import scatter_rows
from benchmarks.seek import seek_rows
from benchmarks.timing import render
from benchmarks.two_phase_commit import two_phase_rows
from simulators.airline import Airline


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
    keys = Airline(1).keys("registration", args.keys)
    rows = [
        *lookup_rows(keys, args.repeat),
        *placing_rows(args.keys, args.repeat),
        *rebalance_rows(args.keys, args.repeat),
        *range_rows(args.keys, args.repeat),
        *scatter_rows(10_000, args.repeat),
        *stampede_rows(args.repeat),
        *traversal_rows(args.repeat),
        *engine_rows(args.repeat),
        *replication_rows(args.repeat),
        *quorum_rows(args.repeat),
        *two_phase_rows(10_000, args.repeat),
        *checker_rows(args.repeat),
        *bank_rows(args.repeat),
        *seek_rows(),
        *cost_rows(args.repeat),
    ]
    if not args.no_gil:
        rows += gil_rows(min(args.repeat, 3))
    if not args.no_browser:
        from benchmarks.browser_fps import browser_rows
        from benchmarks.browser_graph_fps import graph_fps_rows
        from benchmarks.browser_network_fps import network_rows
        from benchmarks.browser_range_fps import range_fps_rows
        from benchmarks.browser_stampede_fps import stampede_fps_rows
        from benchmarks.embed_transfer import table_rows
        from benchmarks.first_drawing import first_drawing_rows

        rows += browser_rows(args.repeat)
        rows += network_rows(args.repeat)
        rows += range_fps_rows(args.repeat)
        rows += stampede_fps_rows(args.repeat)
        rows += graph_fps_rows(args.repeat)
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
