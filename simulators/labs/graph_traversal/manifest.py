"""graph-traversal: what the site, the sweeps and the benchmarks know of it."""

import random

from simulators.engine.i18n import gettext_noop as _
from simulators.labs.graph_traversal.lab import GraphTraversalLab
from simulators.labs.manifest import CostPlan, LabManifest

# a short script: replayed in other processes to the same digest
EXAMPLE = (
    ("course_query", {"question": "avoid_ord"}),
    ("set_graph", {"graph": "large"}),
    (
        "run",
        {"pattern": "MATCH p = (a {code: 'ATL'})-[:ROUTE*1..2]->(b {code: 'SEA'})"},
    ),
    ("close_airport", {"code": "DEN"}),
    ("rank_closures", {}),
    ("set_grown", {"on": True}),
    ("course_query", {"question": "within_three"}),
    ("set_index", {"on": False}),
    ("course_query", {"question": "auth_stops"}),
    ("most_depended", {}),
)


def random_action(rng: random.Random):
    """One typical action, drawn with `rng` (benchmarks/seek.py's long histories)."""
    return rng.choice(
        [
            (
                "course_query",
                {
                    "question": rng.choice(
                        ["one_stop", "within_three", "avoid_ord", "under_200"]
                    )
                },
            ),
            (
                "ask",
                {
                    "start": rng.choice(["LAX", "SFO", "DFW"]),
                    "end": rng.choice(["", "JFK", "ORD"]),
                    "depth": rng.randint(1, 4),
                    "avoid": rng.choice(["", "DEN"]),
                    "shortest": False,
                },
            ),
            ("close_airport", {"code": rng.choice(["DEN", "ORD", "ATL"])}),
            ("set_index", {"on": rng.random() < 0.5}),
            ("rank_closures", {}),
        ]
    )


# (what, the actions before, the actions timed): benchmarks/replay_costs.py
COST_CASES = (
    ("make the lab", [], []),
    (
        "a course question (8 airports)",
        [],
        [("course_query", {"question": "avoid_ord"})],
    ),
    (
        "within three edges of ATL (400 airports)",
        [("set_graph", {"graph": "large"})],
        [("run", {"pattern": "MATCH (a {code: 'ATL'})-[:ROUTE*1..3]->(x)"})],
    ),
    (
        "within three edges of ATL, grown (4,000 airports)",
        [("set_graph", {"graph": "large"}), ("set_grown", {"on": True})],
        [("run", {"pattern": "MATCH (a {code: 'ATL'})-[:ROUTE*1..3]->(x)"})],
    ),
    (
        "paths of up to 2 edges from ATL, grown",
        [("set_graph", {"graph": "large"}), ("set_grown", {"on": True})],
        [("run", {"pattern": "MATCH p = (a {code: 'ATL'})-[:ROUTE*1..2]->(x)"})],
    ),
    ("show the 400 airports", [], [("set_graph", {"graph": "large"})]),
    (
        "grow the 400 airports 10×",
        [("set_graph", {"graph": "large"})],
        [("set_grown", {"on": True})],
    ),
    (
        "rank every closure, grown (4,000 airports)",
        [("set_graph", {"graph": "large"}), ("set_grown", {"on": True})],
        [("rank_closures", {})],
    ),
    (
        "the SQL without its path check (runs to the limit)",
        [("run", {"pattern": "MATCH p = (a {code: 'LAX'})-[:ROUTE*]->(x)"})],
        [("drop_path_check", {})],
    ),
    (
        "the service most depended on",
        [("course_query", {"question": "auth_stops"})],
        [("most_depended", {})],
    ),
)

LARGE = ("set_graph", {"graph": "large"})
GROWN = ("set_grown", {"on": True})
DEEP = "MATCH p = (a {code: 'ATL'})-[:ROUTE*1..3]->(x)"

# the states at which its actions are heaviest: benchmarks/gil_holds.py
HEAVY_CASES = (
    ("show the 400 airports", [], [LARGE]),
    ("grow the 400 airports 10×", [LARGE], [GROWN]),
    ("show the 400 airports, grown", [GROWN], [LARGE]),
    (
        "paths of up to 3 edges from ATL, grown",
        [LARGE, GROWN],
        [("run", {"pattern": DEEP})],
    ),
    (
        "a course question on the grown graph",
        [LARGE, GROWN],
        [("course_query", {"question": "within_three"})],
    ),
    (
        "fewest stops, asked, grown",
        [LARGE, GROWN],
        [
            (
                "ask",
                {
                    "start": "LAX",
                    "end": "SEA",
                    "depth": 8,
                    "avoid": "",
                    "shortest": True,
                },
            )
        ],
    ),
    (
        "drop the index, grown",
        [LARGE, GROWN, ("run", {"pattern": DEEP})],
        [("set_index", {"on": False})],
    ),
    (
        "the SQL without its path check, grown",
        [LARGE, GROWN, ("run", {"pattern": DEEP})],
        [("drop_path_check", {})],
    ),
    (
        "close ATL, then reopen every airport, grown",
        [LARGE, GROWN],
        [("close_airport", {"code": "ATL"}), ("reopen_all", {})],
    ),
    (
        "rank every closure, grown",
        [LARGE, GROWN],
        [("rank_closures", {})],
    ),
)

CODES = ("LAX", "ATL", "JFK", "ORD", "SEA", "DEN", "A0001")


def pattern_samples(count: int = 400, seed: int = 30) -> tuple[str, ...]:
    """`count` different patterns for `run`, drawn with a seeded rng from the shapes
    the lab's parser takes (a path or not, shortestPath, a start, an end or none,
    hop ranges from one edge to any, a node to avoid, a time limit, DISTINCT) and
    some it refuses (an unknown airport, a range it does not take)."""
    rng = random.Random(seed)
    found: dict[str, None] = {}
    for _attempt in range(count * 20):
        if len(found) == count:
            break
        path, shortest, distinct = (rng.random() < 0.5 for _flip in range(3))
        start = rng.choice(CODES)
        end = rng.choice(("", "JFK", "SEA", "BOS"))
        hops = rng.choice(("", "*", "*1..", "*1..2", "*1..3", "*2..5", "*1..8", "*8"))
        avoid = rng.choice(("", "", "ORD", "DEN"))
        minutes = rng.choice((0, 0, 200, 10_000))
        if shortest:
            shape = (
                f"shortestPath((a {{code: '{start}'}})-[:ROUTE*]->"
                f"(b {{code: '{end}'}}))"
            )
        else:
            to = f"(b {{code: '{end}'}})" if end else "(x)"
            shape = f"(a {{code: '{start}'}})-[r:ROUTE{hops}]->{to}"
        pattern = f"MATCH {'p = ' if path or avoid else ''}{shape}"
        if avoid:
            pattern += f" WHERE NONE(n IN nodes(p) WHERE n.code = '{avoid}')"
        elif minutes:
            pattern += f" WHERE r.minutes < {minutes}"
        if distinct and not end:
            pattern += " RETURN DISTINCT x"
        found[pattern] = None
    return tuple(found)


# how tests/simulators/test_measured_costs.py measures its declared costs
COST_PLAN = CostPlan(
    samples={
        "pattern": pattern_samples(),
        "start": CODES,
        "end": ("", "JFK", "SEA", "auth"),
        "avoid": ("", "ORD", "DEN"),
        "code": CODES,
    },
    heaviest=(
        (
            LARGE,
            GROWN,
            ("run", {"pattern": "MATCH p = (a {code: 'ATL'})-[:ROUTE*1..8]->(x)"}),
            ("set_index", {"on": False}),
            ("drop_path_check", {}),
            ("close_airport", {"code": "ATL"}),
            ("rank_closures", {}),
        ),
        (
            LARGE,
            GROWN,
            (
                "run",
                {"pattern": "MATCH (a {code: 'ATL'})-[:ROUTE*]->(x) RETURN DISTINCT x"},
            ),
            (
                "run",
                {
                    "pattern": "MATCH p = shortestPath((a {code: 'LAX'})"
                    "-[:ROUTE*]->(b {code: 'BOS'}))"
                },
            ),
            (
                "ask",
                {
                    "start": "ATL",
                    "end": "",
                    "depth": 8,
                    "avoid": "ORD",
                    "shortest": False,
                },
            ),
        ),
    ),
    examples=8,
    length=5,
    budget=2_500_000,
)


MANIFEST = LabManifest(
    lab=GraphTraversalLab,
    chapter=5,
    order=1,
    title=_("Paths as pointers, paths as joins"),
    promise=_(
        "Expand from LAX depth by depth and compare it with the same path "
        "as recursive SQL."
    ),
    primary="course_query",
    sweep=("course_query", "run"),
    example=EXAMPLE,
    random_action=random_action,
    cost_cases=COST_CASES,
    heavy_cases=HEAVY_CASES,
    cost_plan=COST_PLAN,
)
