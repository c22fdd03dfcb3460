"""replication: what the site, the sweeps and the benchmarks know of it."""

import random

from simulators.engine.i18n import gettext_noop as _
from simulators.labs.manifest import CostPlan, LabManifest
from simulators.labs.replication.lab import ReplicationLab

SETTLE = ("advance", {"ms": 60_000})
R_FAR = {"server": "C", "mode": "async", "place": "ocean"}

# a short script: replayed in other processes to the same digest
EXAMPLE = (
    ("set_replica", {"server": "B", "mode": "sync", "place": "region"}),
    ("write", {"client": "ana"}),
    ("read", {"client": "ana", "row": "email", "server": "C"}),
    ("burst", {"count": 300}),
    ("advance", {"ms": 30}),
    ("take_down", {"server": "C", "ms": 500}),
    ("set_read_your_writes", {"fix": "retry"}),
    ("write", {"client": "ben"}),
    ("read", {"client": "ben", "row": "email", "server": "B"}),
    ("advance", {"ms": 700}),
    ("kill_primary", {}),
    ("promote", {"server": "C"}),
    ("restart", {"server": "A"}),
    ("set_acks", {"acks": "majority"}),
    ("write", {"client": "ana"}),
    ("advance", {"ms": 400}),
)


def random_action(rng: random.Random):
    """One typical action, drawn with `rng` (benchmarks/seek.py's long histories)."""
    return rng.choice(
        [
            ("write", {"client": rng.choice(["ana", "ben"])}),
            (
                "read",
                {
                    "client": "ana",
                    "row": "email",
                    "server": rng.choice(["primary", "B"]),
                },
            ),
            ("burst", {"count": rng.randint(1, 50)}),
            ("advance", {"ms": rng.randint(5, 80)}),
            ("advance", {"ms": rng.randint(5, 80)}),
            (
                "set_read_your_writes",
                {"fix": rng.choice(["off", "primary_after_write"])},
            ),
        ]
    )


# (what, the actions before, the actions timed): benchmarks/replay_costs.py
COST_CASES = (
    ("make the lab", [], []),
    ("change an email and deliver it", [], [("write", {"client": "ana"}), SETTLE]),
    (
        "a burst of 2,000 records, shipped and applied",
        [],
        [("burst", {"count": 2_000}), SETTLE],
    ),
    (
        "a burst of 2,000 records on 20,000 held, and its checkpoint",
        [("burst", {"count": 2_000})] * 10,
        [("burst", {"count": 2_000})],
    ),
    (
        "kill the primary and promote, 20,000 records",
        [*[("burst", {"count": 2_000})] * 10, ("set_replica", R_FAR)],
        [("kill_primary", {}), ("promote", {"server": "C"}), SETTLE],
    ),
    (
        "bring the old primary back, 20,000 records",
        [
            *[("burst", {"count": 2_000})] * 10,
            ("set_replica", R_FAR),
            ("kill_primary", {}),
            ("promote", {"server": "C"}),
        ],
        [("restart", {"server": "A"}), SETTLE],
    ),
)

BURSTS = (("burst", {"count": 2_000}),) * 100  # a log of 200,000 records

# the states at which its actions are heaviest: benchmarks/gil_holds.py
HEAVY_CASES = (
    (
        "a burst of 2,000 writes, 3 replicas",
        [("set_replicas", {"replicas": 3})],
        [("burst", {"count": 2000}), ("burst", {"count": 2000})],
    ),
    (
        "kill the primary and promote, 200,000 records",
        [*BURSTS, ("set_replica", R_FAR), SETTLE],
        [("kill_primary", {}), ("promote", {"server": "C"}), SETTLE],
    ),
    (
        "bring the old primary back, 200,000 records",
        [
            *BURSTS,
            ("set_replica", R_FAR),
            SETTLE,
            ("kill_primary", {}),
            ("promote", {"server": "C"}),
        ],
        [("restart", {"server": "A"}), SETTLE],
    ),
)

# how tests/simulators/test_measured_costs.py measures its declared costs
COST_PLAN = CostPlan(
    samples={"server": ("A", "B", "C", "D", "Z")},
    heaviest=(
        (
            ("set_replicas", {"replicas": 3}),
            ("set_replica", {"server": "D", "mode": "async", "place": "ocean"}),
            *[("burst", {"count": 2_000})] * 5,
            ("take_down", {"server": "C", "ms": 30_000}),
            ("kill_primary", {}),
            ("promote", {"server": "D"}),
            SETTLE,
            ("restart", {"server": "A"}),
            SETTLE,
        ),
    ),
    examples=10,
    length=6,
)

MANIFEST = LabManifest(
    lab=ReplicationLab,
    chapter=2,
    order=1,
    title=_("Primary, replicas, lag and failover"),
    promise=_(
        "Ship the write-ahead log, read from a lagging replica, promote "
        "one, and count the writes lost."
    ),
    primary="write",
    sweep=("burst", "read"),
    example=EXAMPLE,
    random_action=random_action,
    cost_cases=COST_CASES,
    heavy_cases=HEAVY_CASES,
    cost_plan=COST_PLAN,
    network=True,
)
