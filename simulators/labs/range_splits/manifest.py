"""range-splits: what the site, the sweeps and the benchmarks know of it."""

import random

from simulators.engine.i18n import gettext_noop as _
from simulators.labs.manifest import CostPlan, LabManifest
from simulators.labs.range_splits.lab import RangeSplitsLab

IDS = ("write", {"kind": "uniform", "count": 60_000, "rate": 5_000})
STAMPS = ("write", {"kind": "timestamps", "count": 60_000, "rate": 20_000})
REGS = ("write", {"kind": "skewed", "count": 60_000, "rate": 5_000})

# a short script: replayed in other processes to the same digest
EXAMPLE = (
    ("write", {"kind": "timestamps", "count": 300, "rate": 2_000}),
    ("write", {"kind": "skewed", "count": 200, "rate": 500}),
    ("range_query", {"low": "N12300", "high": "N12399"}),
    ("set_thresholds", {"max_keys": 150, "max_writes": 2_500}),
    ("split_now", {"policy": "load", "slice": 0}),
    ("move_slice", {"policy": "size", "slice": 1, "shard": "C"}),
    ("add_shard", {}),
    ("write", {"kind": "uniform", "count": 400, "rate": 5_000}),
)


def random_action(rng: random.Random):
    """One typical action, drawn with `rng` (benchmarks/seek.py's long histories)."""
    policy = rng.choice(["size", "load"])
    return rng.choice(
        [
            (
                "write",
                {
                    "kind": rng.choice(["uniform", "timestamps", "skewed"]),
                    "count": rng.randint(1, 4),
                    "rate": rng.randint(100, 5_000),
                },
            ),
            ("range_query", {"low": "N12300", "high": "N12399"}),
            (
                "move_slice",
                {
                    "policy": policy,
                    "slice": rng.randint(0, 20),
                    "shard": rng.choice("ABCD"),
                },
            ),
            ("split_now", {"policy": policy, "slice": rng.randint(0, 20)}),
            (
                "set_thresholds",
                {"max_keys": rng.randint(100, 2_000), "max_writes": 2_500},
            ),
        ]
    )


# (what, the actions before, the actions timed): benchmarks/replay_costs.py
COST_CASES = (
    ("make the lab", [], []),
    ("write 60,000 ids", [], [IDS]),
    ("write 60,000 timestamps", [], [STAMPS]),
    (
        "write 60,000 ids at one a second",
        [],
        [("write", {"kind": "uniform", "count": 60_000, "rate": 1})],
    ),
    (
        "write one key, 60,000 held",
        [IDS],
        [("write", {"kind": "uniform", "count": 1, "rate": 10})],
    ),
    ("write 60,000 registrations after 60,000 ids", [IDS], [REGS]),
    ("add a shard, 120,000 keys", [IDS, REGS], [("add_shard", {})]),
    (
        "split above 100 keys, 60,000 keys",
        [IDS],
        [("set_thresholds", {"max_keys": 100, "max_writes": 2_500})],
    ),
    (
        "raise the size threshold (nothing splits), 60,000 keys",
        [IDS, ("set_thresholds", {"max_keys": 500, "max_writes": 2_500})],
        [("set_thresholds", {"max_keys": 900, "max_writes": 2_500})],
    ),
    (
        "range query, 120,000 keys",
        [IDS, REGS],
        [("range_query", {"low": "N1", "high": "N3"})],
    ),
)

# the states at which its actions are heaviest: benchmarks/gil_holds.py
HEAVY_CASES = (
    ("write 60,000 ids", [], [IDS]),
    (
        "write 60,000 ids at one a second",
        [],
        [("write", {"kind": "uniform", "count": 60_000, "rate": 1})],
    ),
    ("write 60,000 timestamps", [], [STAMPS]),
    ("write 60,000 registrations after 60,000 ids", [IDS], [REGS]),
    ("add a shard, 120,000 keys", [IDS, REGS], [("add_shard", {})]),
    (
        "split above 100 keys, 120,000 keys",
        [IDS, REGS],
        [("set_thresholds", {"max_keys": 100, "max_writes": 100})],
    ),
    (
        "range query over everything, 120,000 keys",
        [IDS, REGS],
        [("range_query", {"low": "0", "high": "z"})],
    ),
)

SHARD_NAMES = ("A", "B", "C", "D", "E", "L", "Z", "")

# how tests/simulators/test_measured_costs.py measures its declared costs
COST_PLAN = CostPlan(
    samples={
        "shard": SHARD_NAMES,
        "low": ("", "A", "N1", "N12300", "T", "\uffff"),
        "high": ("", "N12399", "N3", "Z", "\uffff" * 32),
    },
    heaviest=(
        (
            *[
                ("write", {"kind": kind, "count": 60_000, "rate": 20_000})
                for kind in ("uniform", "timestamps", "skewed")
            ],
            ("set_thresholds", {"max_keys": 100, "max_writes": 100}),
            ("add_shard", {}),
            ("range_query", {"low": "", "high": "\uffff" * 32}),
            ("split_now", {"policy": "size", "slice": 0}),
        ),
    ),
    examples=10,
    length=6,
)

MANIFEST = LabManifest(
    lab=RangeSplitsLab,
    chapter=1,
    order=2,
    title=_("Range splits and hot shards"),
    promise=_(
        "Split sorted slices as they grow, and see why timestamp keys pile "
        "every write onto one shard."
    ),
    primary="write",
    sweep=("write", "range_query"),
    example=EXAMPLE,
    random_action=random_action,
    cost_cases=COST_CASES,
    heavy_cases=HEAVY_CASES,
    cost_plan=COST_PLAN,
)
