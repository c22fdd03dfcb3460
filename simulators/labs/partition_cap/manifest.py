"""partition-cap: what the site, the sweeps and the benchmarks know of it."""

import random

from simulators.engine.i18n import gettext_noop as _
from simulators.labs.manifest import CostPlan, LabManifest
from simulators.labs.partition_cap.lab import PartitionCapLab

SETTLE = ("advance", {"ms": 60_000})

# a short script: replayed in other processes to the same digest
EXAMPLE = (
    ("split", {"group": "C"}),
    ("set_skew", {"node": "C", "skew_ms": 300}),
    ("book", {"server": "A", "passenger": "P0000001", "mode": "anyway"}),
    ("book", {"server": "C", "passenger": "P0000002", "mode": "anyway"}),
    ("board", {"node": "C", "mode": "anyway"}),
    ("advance", {"ms": 50}),
    ("heal_all", {}),
    ("advance", {"ms": 2000}),
)


def random_action(rng: random.Random):
    """One typical action, drawn with `rng` (benchmarks/seek.py's long histories)."""
    return rng.choice(
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


# (what, the actions before, the actions timed): benchmarks/replay_costs.py
COST_CASES = (
    (
        "book on a split network and deliver",
        [("split", {"group": "A"})],
        [("book", {"server": "A", "passenger": "P0000001", "mode": "anyway"}), SETTLE],
    ),
    (
        "heal and exchange versions",
        [
            ("split", {"group": "A"}),
            ("book", {"server": "A", "passenger": "P0000001", "mode": "anyway"}),
            SETTLE,
        ],
        [("heal_all", {}), SETTLE],
    ),
    (
        "restart a server that missed a booking",
        [
            ("stop_node", {"node": "C"}),
            ("book", {"server": "A", "passenger": "P0000001", "mode": "anyway"}),
            SETTLE,
        ],
        [("restart_node", {"node": "C"}), SETTLE],
    ),
)

# the states at which its actions are heaviest (none is heavy: its dearest, for
# comparison): benchmarks/gil_holds.py
HEAVY_CASES = (
    (
        "heal after a split with bookings, and deliver",
        [
            ("split", {"group": "A"}),
            *[
                (
                    "book",
                    {"server": s, "passenger": f"P000000{i + 1}", "mode": "anyway"},
                )
                for i, s in enumerate("ABCAB")
            ],
            SETTLE,
        ],
        [("heal_all", {}), SETTLE],
    ),
)

SERVERS = ("A", "B", "C", "D", "E", "Z")

# how tests/simulators/test_measured_costs.py measures its declared costs
COST_PLAN = CostPlan(
    samples={
        "server": SERVERS,
        "node": SERVERS,
        "passenger": ("P0000001", "P0000006", "P9"),
        "group": ("A", "C", "A,B", "AB", "D,E", "Q"),
        "link": ("A-C", "A-B", "B-C", "D-E", "A-Z"),
    },
    heaviest=(
        (
            ("reset", {"servers": 5}),
            ("split", {"group": "A,B"}),
            *[
                ("book", {"server": s, "passenger": p, "mode": "anyway"})
                for s, p in zip("ABCDE", ["P0000001", "P0000002"] * 3, strict=False)
            ],
            ("set_conflict_rule", {"rule": "siblings"}),
            SETTLE,
            ("heal_all", {}),
            SETTLE,
        ),
    ),
    examples=10,
    length=6,
)

MANIFEST = LabManifest(
    lab=PartitionCapLab,
    chapter=2,
    order=3,
    title=_("The last seat during a network partition"),
    promise=_(
        "Sell flight 7's last seat on both sides of a split and decide who "
        "keeps it after healing."
    ),
    primary="book",
    sweep=("book", "split"),
    example=EXAMPLE,
    random_action=random_action,
    cost_cases=COST_CASES,
    heavy_cases=HEAVY_CASES,
    cost_plan=COST_PLAN,
    network=True,
)
