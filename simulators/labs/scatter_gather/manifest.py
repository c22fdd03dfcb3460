"""scatter-gather: what the site, the sweeps and the benchmarks know of it."""

import random

from simulators.engine.i18n import gettext_noop as _
from simulators.labs.manifest import CostPlan, LabManifest
from simulators.labs.scatter_gather.lab import ScatterGatherLab

# a short script: replayed in other processes to the same digest
EXAMPLE = (
    ("query_by_key", {"flight_id": 42}),
    ("set_shards", {"count": 16}),
    ("slow_shard", {"shard": 3, "factor": 12}),
    ("query_scatter", {}),
    ("measure", {"count": 500}),
    ("board", {"airport": "LAX", "placement": "origin_time"}),
    ("index_query", {"kind": "global", "column": "destination", "value": "JFK"}),
)


def random_action(rng: random.Random):
    """One typical action, drawn with `rng` (benchmarks/seek.py's long histories)."""
    return rng.choice(
        [
            ("query_by_key", {"flight_id": rng.randint(1, 500)}),
            ("query_scatter", {}),
            ("set_shards", {"count": rng.randint(1, 64)}),
            (
                "slow_shard",
                {"shard": rng.randint(0, 7), "factor": rng.randint(1, 20)},
            ),
            ("board", {"airport": "LAX", "placement": "origin_time"}),
            (
                "index_query",
                {"kind": "global", "column": "destination", "value": "JFK"},
            ),
        ]
    )


# (what, the actions before, the actions timed): benchmarks/replay_costs.py
COST_CASES = (
    ("make the lab", [], []),
    ("query by key", [], [("query_by_key", {"flight_id": 7})]),
    (
        "query without the key, 64 shards",
        [("set_shards", {"count": 64})],
        [("query_scatter", {})],
    ),
    (
        "measure 20,000 queries, a shard slowed",
        [("slow_shard", {"shard": 3, "factor": 10})],
        [("measure", {"count": 20_000})],
    ),
    (
        "departures board by flight_id, 64 shards",
        [("set_shards", {"count": 64})],
        [("board", {"airport": "LAX", "placement": "flight_id"})],
    ),
)

# the states at which its actions are heaviest: benchmarks/gil_holds.py
HEAVY_CASES = (
    (
        "measure 20,000 queries, 64 shards, one slowed",
        [("set_shards", {"count": 64}), ("slow_shard", {"shard": 3, "factor": 50})],
        [("measure", {"count": 20_000})],
    ),
)

# how tests/simulators/test_measured_costs.py measures its declared costs
COST_PLAN = CostPlan(
    samples={"value": ("JFK", "LAX", "N10003", "XXX", "ORD")},
    heaviest=(
        (
            ("set_shards", {"count": 64}),
            ("slow_shard", {"shard": 63, "factor": 50}),
            ("measure", {"count": 20_000}),
            ("query_scatter", {}),
            ("board", {"airport": "LAX", "placement": "flight_id"}),
            ("index_query", {"kind": "local", "column": "origin", "value": "LAX"}),
        ),
    ),
    examples=10,
    length=6,
)

MANIFEST = LabManifest(
    lab=ScatterGatherLab,
    chapter=1,
    order=3,
    title=_("Routing by key, or asking everyone"),
    promise=_(
        "One shard answers a query by key; a query without it waits "
        "for the slowest of them all."
    ),
    primary="query_by_key",
    sweep=("query_scatter", "measure"),
    example=EXAMPLE,
    random_action=random_action,
    cost_cases=COST_CASES,
    heavy_cases=HEAVY_CASES,
    cost_plan=COST_PLAN,
)
