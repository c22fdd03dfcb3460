"""rate-limit-race: what the site, the sweeps and the benchmarks know of it."""

import random

from simulators.engine.i18n import gettext_noop as _
from simulators.labs.manifest import CostPlan, LabManifest
from simulators.labs.rate_limit_race.lab import RateLimitRaceLab

# a short script: replayed in other processes to the same digest
EXAMPLE = (
    ("set_clients", {"count": 3}),
    ("shuffle", {}),
    ("step", {}),
    ("every_ordering", {}),
    ("run_all", {}),
    ("set_mode", {"mode": "incr_then_expire"}),
    ("set_admitted", {"count": 0}),
    ("shuffle", {}),
    ("step", {}),
    ("crash_client", {"client": "A"}),
    ("run_all", {}),
    ("pass_time", {"seconds": 61}),
    ("new_request", {"count": 120}),
)


def random_action(rng: random.Random):
    """One typical action, drawn with `rng` (benchmarks/seek.py's long histories)."""
    return rng.choice(
        [
            ("step", {}),
            ("step", {}),
            ("step", {}),
            ("run_all", {}),
            ("reset", {}),
            ("shuffle", {}),
            ("every_ordering", {}),
            (
                "set_mode",
                {"mode": rng.choice(["read_check_write", "incr", "lua"])},
            ),
            ("set_clients", {"count": rng.randint(2, 3)}),
            ("set_admitted", {"count": rng.choice([0, 98, 99])}),
            ("crash_client", {"client": rng.choice("AB")}),
            ("pass_time", {"seconds": rng.choice([1, 61])}),
            ("new_request", {"count": rng.randint(1, 20)}),
        ]
    )


# (what, the actions before, the actions timed): benchmarks/replay_costs.py
COST_CASES = (
    ("make the lab", [], []),
    ("one step", [], [("step", {})]),
    ("run all, four clients", [("set_clients", {"count": 4})], [("run_all", {})]),
    ("every ordering, two clients (20)", [], [("every_ordering", {})]),
    (
        "every ordering, three clients (1,680)",
        [("set_clients", {"count": 3})],
        [("every_ordering", {})],
    ),
    (
        "every ordering, four clients of INCR (2,520)",
        [("set_mode", {"mode": "incr"}), ("set_clients", {"count": 4})],
        [("every_ordering", {})],
    ),
    (
        "set an order, four clients",
        [("set_clients", {"count": 4})],
        [("set_order", {"order": "D1 C1 B1 A1 D2 C2 B2 A2 D3 C3 B3 A3"})],
    ),
    ("shuffle, four clients", [("set_clients", {"count": 4})], [("shuffle", {})]),
    (
        "crash a client after its INCR, then a minute",
        [("set_mode", {"mode": "incr_then_expire"}), ("set_admitted", {"count": 0})],
        [
            ("step", {}),
            ("crash_client", {"client": "A"}),
            ("pass_time", {"seconds": 61}),
        ],
    ),
    ("200 more requests", [("run_all", {})], [("new_request", {"count": 200})]),
)

# the states at which its actions are heaviest (none is heavy: its dearest, for
# comparison): benchmarks/gil_holds.py
HEAVY_CASES = (
    (
        "every ordering, four clients of INCR (2,520 orderings)",
        [("set_mode", {"mode": "incr"}), ("set_clients", {"count": 4})],
        [("every_ordering", {})],
    ),
)

# declared heavier than any state a case plays makes it (benchmarks/gil_holds.py)
NEVER_HEAVY = {
    "every_ordering": (
        "declares 70,300 at most, but the most orderings a case that plays has is "
        "2,520 (four clients of INCR: 18,440 units)"
    ),
}

# how tests/simulators/test_measured_costs.py measures its declared costs
COST_PLAN = CostPlan(
    samples={
        "order": (
            "A1 B1 A2 B2 A3 B3",
            "D1 C1 B1 A1 D2 C2 B2 A2 D3 C3 B3 A3",
            "A1 A2 A3",
            "Z9",
        ),
        "client": ("A", "B", "D", "Z"),
    },
    heaviest=(
        (
            ("set_clients", {"count": 4}),
            ("every_ordering", {}),
            ("set_mode", {"mode": "incr"}),
            ("every_ordering", {}),
            ("new_request", {"count": 200}),
            ("run_all", {}),
            ("pass_time", {"seconds": 3_600}),
        ),
    ),
    examples=15,
    length=6,
)

MANIFEST = LabManifest(
    lab=RateLimitRaceLab,
    chapter=3,
    order=2,
    title=_("Read, check, write versus one atomic step"),
    promise=_("Interleave two clients step by step and admit the 101st request."),
    primary="step",
    sweep=("run_all", "every_ordering"),
    example=EXAMPLE,
    random_action=random_action,
    cost_cases=COST_CASES,
    heavy_cases=HEAVY_CASES,
    never_heavy=NEVER_HEAVY,
    cost_plan=COST_PLAN,
)
