"""cache-stampede: what the site, the sweeps and the benchmarks know of it."""

import random

from simulators.engine.i18n import gettext_noop as _
from simulators.labs.cache_stampede.lab import CacheStampedeLab
from simulators.labs.manifest import CostPlan, LabManifest

# a short script: replayed in other processes to the same digest
EXAMPLE = (
    ("make_hot", {"airport": "JFK", "share": 60}),
    ("set_cache_servers", {"count": 3}),
    ("advance", {"ms": 700}),
    ("update_flight", {"airport": "LAX", "delete_on_write": False}),
    ("fill_memory", {"mb": 60}),
    ("set_ttl", {"ttl_ms": 300}),
    ("set_beta", {"beta": "0.5"}),
    ("advance", {"ms": 900}),
)


def random_action(rng: random.Random):
    """One typical action, drawn with `rng` (benchmarks/seek.py's long histories)."""
    return rng.choice(
        [
            ("advance", {"ms": rng.randint(5, 80)}),
            ("advance", {"ms": rng.randint(5, 80)}),
            ("advance", {"ms": rng.randint(5, 80)}),
            ("set_rate", {"rate": rng.choice([100, 1_000, 2_000])}),
            ("set_ttl", {"ttl_ms": rng.choice([380, 2_000, 30_000])}),
            ("set_strategy", {"strategy": rng.choice(["plain", "lock"])}),
            (
                "update_flight",
                {"airport": "LAX", "delete_on_write": rng.random() < 0.5},
            ),
            ("fill_memory", {"mb": rng.randint(1, 64)}),
        ]
    )


# (what, the actions before, the actions timed): benchmarks/replay_costs.py
COST_CASES = (
    ("make the lab", [], []),
    (
        "five seconds of 1,000 reads a second through four lanes",
        [],
        [("advance", {"ms": 60_000})],
    ),
    (
        "a tenth of a second at 5,000 reads a second, lifetime 0",
        [("set_rate", {"rate": 5_000}), ("set_ttl", {"ttl_ms": 0})],
        [("advance", {"ms": 100})],
    ),
    (
        "jump 30 s to just before expiry",
        [("advance", {"ms": 700})],
        [("skip_to_expiry", {})],
    ),
    (
        "five seconds at 5,000 reads a second, 2 s queries, lifetime 0",
        [
            ("set_rate", {"rate": 5_000}),
            ("set_query_time", {"query_ms": 2_000}),
            ("set_ttl", {"ttl_ms": 0}),
        ],
        [("advance", {"ms": 60_000})],
    ),
    (
        "jump 60 s at 5,000 reads a second",
        [
            ("set_ttl", {"ttl_ms": 60_000}),
            ("set_rate", {"rate": 5_000}),
            ("advance", {"ms": 1_000}),
        ],
        [("skip_to_expiry", {})],
    ),
    (
        "fill 1,024 MB of memory",
        [("set_memory", {"mb": 1_024})],
        [("fill_memory", {"mb": 1_024})],
    ),
    ("watch another strategy", [], [("set_strategy", {"strategy": "lock"})]),
)

SETTLE = ("advance", {"ms": 60_000})
FAST = (("set_rate", {"rate": 5_000}), ("set_ttl", {"ttl_ms": 60_000}))

# the states at which its actions are heaviest: benchmarks/gil_holds.py
HEAVY_CASES = (
    (
        "jump to just before expiry, 5,000 reads a second, lifetime 60 s",
        [*FAST, ("advance", {"ms": 700})],
        [("skip_to_expiry", {})],
    ),
    (
        "five seconds of 5,000 reads a second",
        list(FAST),
        [("advance", {"ms": 60_000})],
    ),
    (
        # any action's frame is heavy here (10,000 queries waiting, as declared)
        "make SFO hot, 5,000 reads a second, 2 s queries, one connection, lifetime 0",
        [
            ("set_rate", {"rate": 5_000}),
            ("set_query_time", {"query_ms": 2_000}),
            ("set_db_limit", {"limit": 1}),
            ("set_ttl", {"ttl_ms": 0}),
            SETTLE,
        ],
        [("make_hot", {"airport": "SFO", "share": 0})],
    ),
)

# how tests/simulators/test_measured_costs.py measures its declared costs
COST_PLAN = CostPlan(
    samples={"beta": ("1", "0.25", "10", "0.0001", "x")},
    heaviest=(
        (
            ("set_rate", {"rate": 5_000}),
            ("set_query_time", {"query_ms": 2_000}),
            ("set_db_limit", {"limit": 64}),
            ("set_ttl", {"ttl_ms": 60_000}),
            SETTLE,
            ("skip_to_expiry", {}),
            SETTLE,
        ),
        (
            ("set_rate", {"rate": 5_000}),
            ("set_query_time", {"query_ms": 2_000}),
            ("set_db_limit", {"limit": 1}),
            ("set_ttl", {"ttl_ms": 0}),
            SETTLE,
            ("make_hot", {"airport": "SFO", "share": 0}),
            SETTLE,
        ),
        (
            ("set_memory", {"mb": 1_024}),
            ("fill_memory", {"mb": 1_024}),
            ("set_memory", {"mb": 1}),
            ("set_rate", {"rate": 5_000}),
            SETTLE,
        ),
    ),
    examples=10,
    length=6,
    budget=2_000_000,
)

MANIFEST = LabManifest(
    lab=CacheStampedeLab,
    chapter=3,
    order=1,
    title=_("Cache-aside, expiry and the thundering herd"),
    promise=_(
        "Let the departures board expire under load and see twenty "
        "identical queries hit the database."
    ),
    primary="skip_to_expiry",
    sweep=("skip_to_expiry", "set_strategy"),
    example=EXAMPLE,
    random_action=random_action,
    cost_cases=COST_CASES,
    heavy_cases=HEAVY_CASES,
    cost_plan=COST_PLAN,
)
