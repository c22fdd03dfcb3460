"""graph-traversal: what the site, the sweeps and the benchmarks know of it."""

import random

from simulators.engine.i18n import gettext_noop as _
from simulators.labs.graph_traversal.lab import GraphTraversalLab
from simulators.labs.manifest import LabManifest

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
)
