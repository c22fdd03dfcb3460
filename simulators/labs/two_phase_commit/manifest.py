"""two-phase-commit: what the site, the sweeps and the benchmarks know of it."""

import random

from simulators.engine.i18n import gettext_noop as _
from simulators.labs.manifest import CostPlan, LabManifest
from simulators.labs.two_phase_commit.lab import TwoPhaseCommitLab

SETTLE = ("advance", {"ms": 60_000})

# a short script: replayed in other processes to the same digest
EXAMPLE = (
    ("book", {"seat": "12A"}),
    ("advance", {"ms": 200}),
    ("crash_between_phases", {"point": "after_decision"}),
    ("book", {"seat": "12B"}),
    ("advance", {"ms": 100}),
    ("set_fare", {"seat": "12B", "fare": 99}),
    ("advance", {"ms": 900}),
    ("recover_server", {"node": "coordinator"}),
    ("start_bank", {}),
    ("advance", {"ms": 300}),
    ("crash_server", {"node": "bookings"}),
    ("advance", {"ms": 600}),
    ("recover_server", {"node": "bookings"}),
    ("set_mode", {"mode": "independent"}),
    ("advance", {"ms": 5_000}),
)


def random_action(rng: random.Random):
    """One typical action, drawn with `rng` (benchmarks/seek.py's long histories)."""
    return rng.choice(
        [
            ("book", {"seat": rng.choice(["12A", "12B", "12C", "12D"])}),
            ("set_fare", {"seat": "12A", "fare": rng.randint(50, 500)}),
            (
                "transfer",
                {
                    "source": rng.randint(1, 4),
                    "target": rng.randint(5, 8),
                    "amount": rng.randint(1, 5),
                },
            ),
            ("read_accounts", {}),
            ("advance", {"ms": rng.randint(10, 200)}),
            ("advance", {"ms": rng.randint(10, 200)}),
            (
                "crash_server",
                {"node": rng.choice(["coordinator", "flights", "bookings"])},
            ),
            (
                "recover_server",
                {"node": rng.choice(["coordinator", "flights", "bookings"])},
            ),
            ("crash_between_phases", {"point": "after_decision"}),
        ]
    )


# (what, the actions before, the actions timed): benchmarks/replay_costs.py
COST_CASES = (
    ("make the lab", [], []),
    ("book a seat on both shards and deliver", [], [("book", {"seat": "12A"}), SETTLE]),
    (
        "the whole bank workload, 200 operations",
        [],
        [("start_bank", {}), ("advance", {"ms": 60_000})],
    ),
    (
        "recover the coordinator, its decision sent again",
        [
            ("crash_between_phases", {"point": "after_decision"}),
            ("book", {"seat": "12A"}),
            SETTLE,
        ],
        [("recover_server", {"node": "coordinator"}), SETTLE],
    ),
)

# the states at which its actions are heaviest: benchmarks/gil_holds.py
HEAVY_CASES = (
    (
        "the bank workload, then a long advance",
        [],
        [("start_bank", {}), SETTLE, SETTLE],
    ),
)

# how tests/simulators/test_measured_costs.py measures its declared costs
COST_PLAN = CostPlan(
    samples={"node": ("coordinator", "flights", "bookings", "client", "x")},
    heaviest=(
        (
            ("start_bank", {}),
            SETTLE,
            SETTLE,
            ("set_mode", {"mode": "independent"}),
            ("start_bank", {}),
            SETTLE,
        ),
        (
            ("crash_between_phases", {"point": "after_decision"}),
            ("book", {"seat": "12A"}),
            SETTLE,
            ("recover_server", {"node": "coordinator"}),
            SETTLE,
        ),
    ),
    examples=10,
    length=6,
)

MANIFEST = LabManifest(
    lab=TwoPhaseCommitLab,
    chapter=2,
    order=4,
    title=_("The seat and the booking on two shards"),
    promise=_(
        "Crash the coordinator between prepare and commit and watch the "
        "locks stay held."
    ),
    primary="book",
    sweep=("book", "set_fare"),
    example=EXAMPLE,
    random_action=random_action,
    cost_cases=COST_CASES,
    heavy_cases=HEAVY_CASES,
    cost_plan=COST_PLAN,
    network=True,
)
