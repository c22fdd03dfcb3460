"""quorum: what the site, the sweeps and the benchmarks know of it."""

import random

from simulators.engine.i18n import gettext_noop as _
from simulators.labs.manifest import CostPlan, LabManifest
from simulators.labs.quorum.lab import QuorumLab

LADDER = "0,-1,-5,-20,-100,-1000"  # lost writes against skew
WRITE = ("write", {"w": "ALL", "coordinator": "A"})
SETTLE = ("advance", {"ms": 60_000})

# a short script: replayed in other processes to the same digest
EXAMPLE = (
    ("write", {"w": "ONE", "coordinator": "A"}),
    ("cut_link", {"link": "A-C"}),
    ("advance", {"ms": 30}),
    ("read", {"r": "ONE", "coordinator": "C"}),
    ("set_skew", {"node": "B", "skew_ms": -250}),
    ("write", {"w": "QUORUM", "coordinator": "B"}),
    ("advance", {"ms": 500}),
    ("heal_all", {}),
    ("advance", {"ms": 500}),
    ("run_trials", {"count": 100}),
    ("skew_ladder", {"node": "B", "ladder": "0,-5,-250", "count": 100}),
)


def random_action(rng: random.Random):
    """One typical action, drawn with `rng` (benchmarks/seek.py's long histories)."""
    return rng.choice(
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


# (what, the actions before, the actions timed): benchmarks/replay_costs.py
COST_CASES = (
    ("write to all and deliver", [], [WRITE, SETTLE]),
    (
        "read from all and deliver",
        [WRITE, SETTLE],
        [("read", {"r": "ALL", "coordinator": "B"}), SETTLE],
    ),
    (
        "heal after writes held for a stopped node, and deliver",
        [("stop_node", {"node": "C"}), WRITE, SETTLE, WRITE, SETTLE],
        [("restart_node", {"node": "C"}), SETTLE],
    ),
    ("count 5,000 trials", [], [("run_trials", {"count": 5_000})]),
    (
        "replay a trial",
        [("run_trials", {"count": 100})],
        [("replay_trial", {"index": 7})],
    ),
    (
        "lost writes against skew: 6 skews × 1,000 trials",
        [],
        [("skew_ladder", {"node": "A", "ladder": LADDER, "count": 1000})],
    ),
)

# eight rungs, the most a ladder has
LADDER_LONGEST = "0,-1,-5,-20,-100,-1000,-3000,-5000"

# the states at which its actions are heaviest: benchmarks/gil_holds.py
HEAVY_CASES = (
    ("count 5,000 trials", [], [("run_trials", {"count": 5_000})]),
    (
        "count 5,000 trials, 5 copies on 5 nodes, sloppy",
        [
            ("set_copies", {"copies": 5}),
            ("set_nodes", {"nodes": 5}),
            ("set_sloppy", {"on": True}),
        ],
        [("run_trials", {"count": 5_000})],
    ),
    (
        "lost writes against skew: 8 skews × 1,000 trials",
        [],
        [("skew_ladder", {"node": "A", "ladder": LADDER_LONGEST, "count": 1_000})],
    ),
)

NODES = ("A", "B", "C", "D", "E", "auto", "F")

# how tests/simulators/test_measured_costs.py measures its declared costs
COST_PLAN = CostPlan(
    samples={
        "coordinator": NODES,
        "link": ("A-B", "A-C", "B-C", "C-D", "D-E", "A-E", "B-A", "X-Y"),
        "node": NODES,
        "group": ("A", "B", "C", "A,B", "C,D", "A,B,C", "E", "A,B,C,D,E"),
        "ladder": (
            "0,-1,-5,-20,-100,-1000",
            "0,-1,-2,-3,-5,-100,-1000,-5000",
            "0",
            "5000, -5000",
            "x",
        ),
    },
    heaviest=(
        (
            ("set_copies", {"copies": 5}),
            ("set_nodes", {"nodes": 5}),
            ("set_sloppy", {"on": True}),
            ("run_trials", {"count": 5_000}),
            ("replay_trial", {"index": 4_999}),
            SETTLE,
        ),
        (
            ("set_copies", {"copies": 5}),
            (
                "skew_ladder",
                {
                    "node": "A",
                    "ladder": "0,-1,-2,-3,-5,-100,-1000,-5000",
                    "count": 1000,
                },
            ),
        ),
        (
            ("set_copies", {"copies": 5}),
            ("stop_node", {"node": "E"}),
            *[("write", {"w": "ONE", "coordinator": "A"}), SETTLE] * 3,
            ("split", {"group": "A,B"}),
            ("restart_node", {"node": "E"}),
            ("heal_all", {}),
            ("read", {"r": "ALL", "coordinator": "C"}),
            SETTLE,
        ),
    ),
    examples=10,
    length=6,
    budget=1_000_000,
)

MANIFEST = LabManifest(
    lab=QuorumLab,
    chapter=2,
    order=2,
    title=_("N, W, R and reads that miss the write"),
    promise=_(
        "Cut a link and find the read that returns the old value, then the "
        "quorum that never does."
    ),
    primary="write",
    sweep=("write", "read"),
    example=EXAMPLE,
    random_action=random_action,
    cost_cases=COST_CASES,
    heavy_cases=HEAVY_CASES,
    cost_plan=COST_PLAN,
    network=True,
    embed_height=680,  # holds the stage and the first action
)
