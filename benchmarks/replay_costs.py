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
from simulators.labs import LABS  # noqa: E402
from simulators.labs.graph_traversal.lab import forget_graphs  # noqa: E402
from simulators.labs.hash_placement.placements import ring_tokens  # noqa: E402

HIGH, LOW = 1.5, 0.2  # a declaration outside this band of the measured cost misses
MILLION = ("load_keys", {"kind": "registration", "count": 1_000_000})
LADDER = "0,-1,-5,-20,-100,-1000"  # quorum's lost writes against skew
WRITE = ("write", {"w": "ALL", "coordinator": "A"})
SETTLE = ("advance", {"ms": 60_000})
IDS = ("write", {"kind": "uniform", "count": 60_000, "rate": 5_000})
STAMPS = ("write", {"kind": "timestamps", "count": 60_000, "rate": 20_000})
REGS = ("write", {"kind": "skewed", "count": 60_000, "rate": 5_000})
R_FAR = {"server": "C", "mode": "async", "place": "ocean"}

# (lab, what, the steps before, the steps timed)
CASES = [
    ("hash-placement", "make the lab (10,000 keys)", [], []),
    ("hash-placement", "load a million keys", [], [MILLION]),
    ("hash-placement", "add a shard, 1M keys", [MILLION], [("add_shard", {})]),
    (
        "hash-placement",
        "remove a shard, 1M keys",
        [MILLION],
        [("remove_shard", {"shard": "D"})],
    ),
    (
        "hash-placement",
        "set 12 shards, 1M keys",
        [MILLION],
        [("set_shards", {"count": 12})],
    ),
    (
        "hash-placement",
        "256 virtual nodes, 1M keys",
        [MILLION],
        [("set_vnodes", {"vnodes": 256})],
    ),
    (
        "hash-placement",
        "16,384 CRC16 slots, 1M keys",
        [MILLION],
        [("set_partitions", {"partitions": 16_384})],
    ),
    (
        "hash-placement",
        "256 partitions, 1M keys",
        [MILLION],
        [("set_partitions", {"partitions": 256})],
    ),
    ("hash-placement", "look a key up", [], [("lookup", {"key": "N12345"})]),
    ("range-splits", "make the lab", [], []),
    ("range-splits", "write 60,000 ids", [], [IDS]),
    ("range-splits", "write 60,000 timestamps", [], [STAMPS]),
    (
        "range-splits",
        "write 60,000 ids at one a second",
        [],
        [("write", {"kind": "uniform", "count": 60_000, "rate": 1})],
    ),
    (
        "range-splits",
        "write one key, 60,000 held",
        [IDS],
        [("write", {"kind": "uniform", "count": 1, "rate": 10})],
    ),
    ("range-splits", "write 60,000 registrations after 60,000 ids", [IDS], [REGS]),
    ("range-splits", "add a shard, 120,000 keys", [IDS, REGS], [("add_shard", {})]),
    (
        "range-splits",
        "split above 100 keys, 60,000 keys",
        [IDS],
        [("set_thresholds", {"max_keys": 100, "max_writes": 2_500})],
    ),
    (
        "range-splits",
        "raise the size threshold (nothing splits), 60,000 keys",
        [IDS, ("set_thresholds", {"max_keys": 500, "max_writes": 2_500})],
        [("set_thresholds", {"max_keys": 900, "max_writes": 2_500})],
    ),
    (
        "range-splits",
        "range query, 120,000 keys",
        [IDS, REGS],
        [("range_query", {"low": "N1", "high": "N3"})],
    ),
    ("scatter-gather", "make the lab", [], []),
    ("scatter-gather", "query by key", [], [("query_by_key", {"flight_id": 7})]),
    (
        "scatter-gather",
        "query without the key, 64 shards",
        [("set_shards", {"count": 64})],
        [("query_scatter", {})],
    ),
    (
        "scatter-gather",
        "measure 20,000 queries, a shard slowed",
        [("slow_shard", {"shard": 3, "factor": 10})],
        [("measure", {"count": 20_000})],
    ),
    (
        "scatter-gather",
        "departures board by flight_id, 64 shards",
        [("set_shards", {"count": 64})],
        [("board", {"airport": "LAX", "placement": "flight_id"})],
    ),
    ("quorum", "write to all and deliver", [], [WRITE, SETTLE]),
    (
        "quorum",
        "read from all and deliver",
        [WRITE, SETTLE],
        [("read", {"r": "ALL", "coordinator": "B"}), SETTLE],
    ),
    (
        "quorum",
        "heal after writes held for a stopped node, and deliver",
        [("stop_node", {"node": "C"}), WRITE, SETTLE, WRITE, SETTLE],
        [("restart_node", {"node": "C"}), SETTLE],
    ),
    ("quorum", "count 5,000 trials", [], [("run_trials", {"count": 5_000})]),
    (
        "quorum",
        "replay a trial",
        [("run_trials", {"count": 100})],
        [("replay_trial", {"index": 7})],
    ),
    (
        "quorum",
        "lost writes against skew: 6 skews × 1,000 trials",
        [],
        [("skew_ladder", {"node": "A", "ladder": LADDER, "count": 1000})],
    ),
    ("replication", "make the lab", [], []),
    (
        "replication",
        "change an email and deliver it",
        [],
        [("write", {"client": "ana"}), SETTLE],
    ),
    (
        "replication",
        "a burst of 2,000 records, shipped and applied",
        [],
        [("burst", {"count": 2_000}), SETTLE],
    ),
    (
        "replication",
        "a burst of 2,000 records on 20,000 held, and its checkpoint",
        [("burst", {"count": 2_000})] * 10,
        [("burst", {"count": 2_000})],
    ),
    (
        "replication",
        "kill the primary and promote, 20,000 records",
        [*[("burst", {"count": 2_000})] * 10, ("set_replica", R_FAR)],
        [("kill_primary", {}), ("promote", {"server": "C"}), SETTLE],
    ),
    (
        "replication",
        "bring the old primary back, 20,000 records",
        [
            *[("burst", {"count": 2_000})] * 10,
            ("set_replica", R_FAR),
            ("kill_primary", {}),
            ("promote", {"server": "C"}),
        ],
        [("restart", {"server": "A"}), SETTLE],
    ),
    ("cache-stampede", "make the lab", [], []),
    (
        "cache-stampede",
        "five seconds of 1,000 reads a second through four lanes",
        [],
        [("advance", {"ms": 60_000})],
    ),
    (
        "cache-stampede",
        "a tenth of a second at 5,000 reads a second, lifetime 0",
        [("set_rate", {"rate": 5_000}), ("set_ttl", {"ttl_ms": 0})],
        [("advance", {"ms": 100})],
    ),
    (
        "cache-stampede",
        "jump 30 s to just before expiry",
        [("advance", {"ms": 700})],
        [("skip_to_expiry", {})],
    ),
    (
        "cache-stampede",
        "five seconds at 5,000 reads a second, 2 s queries, lifetime 0",
        [
            ("set_rate", {"rate": 5_000}),
            ("set_query_time", {"query_ms": 2_000}),
            ("set_ttl", {"ttl_ms": 0}),
        ],
        [("advance", {"ms": 60_000})],
    ),
    (
        "cache-stampede",
        "jump 60 s at 5,000 reads a second",
        [
            ("set_ttl", {"ttl_ms": 60_000}),
            ("set_rate", {"rate": 5_000}),
            ("advance", {"ms": 1_000}),
        ],
        [("skip_to_expiry", {})],
    ),
    (
        "cache-stampede",
        "fill 1,024 MB of memory",
        [("set_memory", {"mb": 1_024})],
        [("fill_memory", {"mb": 1_024})],
    ),
    (
        "cache-stampede",
        "watch another strategy",
        [],
        [("set_strategy", {"strategy": "lock"})],
    ),
    ("graph-traversal", "make the lab", [], []),
    (
        "graph-traversal",
        "a course question (8 airports)",
        [],
        [("course_query", {"question": "avoid_ord"})],
    ),
    (
        "graph-traversal",
        "within three edges of ATL (400 airports)",
        [("set_graph", {"graph": "large"})],
        [("run", {"pattern": "MATCH (a {code: 'ATL'})-[:ROUTE*1..3]->(x)"})],
    ),
    (
        "graph-traversal",
        "within three edges of ATL, grown (4,000 airports)",
        [("set_graph", {"graph": "large"}), ("set_grown", {"on": True})],
        [("run", {"pattern": "MATCH (a {code: 'ATL'})-[:ROUTE*1..3]->(x)"})],
    ),
    (
        "graph-traversal",
        "paths of up to 2 edges from ATL, grown",
        [("set_graph", {"graph": "large"}), ("set_grown", {"on": True})],
        [("run", {"pattern": "MATCH p = (a {code: 'ATL'})-[:ROUTE*1..2]->(x)"})],
    ),
    (
        "graph-traversal",
        "show the 400 airports",
        [],
        [("set_graph", {"graph": "large"})],
    ),
    (
        "graph-traversal",
        "grow the 400 airports 10×",
        [("set_graph", {"graph": "large"})],
        [("set_grown", {"on": True})],
    ),
    (
        "graph-traversal",
        "rank every closure, grown (4,000 airports)",
        [("set_graph", {"graph": "large"}), ("set_grown", {"on": True})],
        [("rank_closures", {})],
    ),
    (
        "graph-traversal",
        "the SQL without its path check (runs to the limit)",
        [("run", {"pattern": "MATCH p = (a {code: 'LAX'})-[:ROUTE*]->(x)"})],
        [("drop_path_check", {})],
    ),
    (
        "graph-traversal",
        "the service most depended on",
        [("course_query", {"question": "auth_stops"})],
        [("most_depended", {})],
    ),
    ("rate-limit-race", "make the lab", [], []),
    ("rate-limit-race", "one step", [], [("step", {})]),
    (
        "rate-limit-race",
        "run all, four clients",
        [("set_clients", {"count": 4})],
        [("run_all", {})],
    ),
    (
        "rate-limit-race",
        "every ordering, two clients (20)",
        [],
        [("every_ordering", {})],
    ),
    (
        "rate-limit-race",
        "every ordering, three clients (1,680)",
        [("set_clients", {"count": 3})],
        [("every_ordering", {})],
    ),
    (
        "rate-limit-race",
        "every ordering, four clients of INCR (2,520)",
        [("set_mode", {"mode": "incr"}), ("set_clients", {"count": 4})],
        [("every_ordering", {})],
    ),
    (
        "rate-limit-race",
        "set an order, four clients",
        [("set_clients", {"count": 4})],
        [("set_order", {"order": "D1 C1 B1 A1 D2 C2 B2 A2 D3 C3 B3 A3"})],
    ),
    (
        "rate-limit-race",
        "shuffle, four clients",
        [("set_clients", {"count": 4})],
        [("shuffle", {})],
    ),
    (
        "rate-limit-race",
        "crash a client after its INCR, then a minute",
        [("set_mode", {"mode": "incr_then_expire"}), ("set_admitted", {"count": 0})],
        [
            ("step", {}),
            ("crash_client", {"client": "A"}),
            ("pass_time", {"seconds": 61}),
        ],
    ),
    (
        "rate-limit-race",
        "200 more requests",
        [("run_all", {})],
        [("new_request", {"count": 200})],
    ),
    (
        "partition-cap",
        "book on a split network and deliver",
        [("split", {"group": "A"})],
        [("book", {"server": "A", "passenger": "P0000001", "mode": "anyway"}), SETTLE],
    ),
    (
        "partition-cap",
        "heal and exchange versions",
        [
            ("split", {"group": "A"}),
            ("book", {"server": "A", "passenger": "P0000001", "mode": "anyway"}),
            SETTLE,
        ],
        [("heal_all", {}), SETTLE],
    ),
    (
        "partition-cap",
        "restart a server that missed a booking",
        [
            ("stop_node", {"node": "C"}),
            ("book", {"server": "A", "passenger": "P0000001", "mode": "anyway"}),
            SETTLE,
        ],
        [("restart_node", {"node": "C"}), SETTLE],
    ),
    ("two-phase-commit", "make the lab", [], []),
    (
        "two-phase-commit",
        "book a seat on both shards and deliver",
        [],
        [("book", {"seat": "12A"}), SETTLE],
    ),
    (
        "two-phase-commit",
        "the whole bank workload, 200 operations",
        [],
        [("start_bank", {}), ("advance", {"ms": 60_000})],
    ),
    (
        "two-phase-commit",
        "recover the coordinator, its decision sent again",
        [
            ("crash_between_phases", {"point": "after_decision"}),
            ("book", {"seat": "12A"}),
            SETTLE,
        ],
        [("recover_server", {"node": "coordinator"}), SETTLE],
    ),
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
        forget_graphs()  # graphs are made once per process: start as a replay does
        history = History(lab_class, 1)
        for name, args in before:
            history.apply(name, args)
        shown(history.lab)
        ring_tokens.cache_clear()
        if timed:
            declared, runs = 0, []
            for name, args in timed:
                declared += history.cost_of(name, args)  # in the state it meets
                runs.append(time_once(partial(framed, history, name, args)))
        else:
            declared = history.costs.start()
            runs = [time_once(lambda: shown(lab_class(seed=1)))]
        cpu.append(sum(r.cpu for r in runs))
        wall.append(sum(r.wall for r in runs))
    return Timing(statistics.median(cpu), statistics.median(wall)), declared


def cost_rows(repeat: int) -> list[Row | str]:
    """One row per case: measured / declared, with the band it must fall in."""
    rows: list[Row | str] = [
        "declared replay costs: measured CPU time / declared cost (1 unit = 1 µs)"
    ]
    for slug, what, before, timed in CASES:
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
