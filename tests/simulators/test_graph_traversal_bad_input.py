"""graph-traversal: bad input refused with a code and a reason, the digest unchanged."""

import pytest

from simulators.engine import ActionError
from simulators.labs.graph_traversal import GraphTraversalLab
from simulators.labs.graph_traversal.declaration import MAX_PATTERN

LAX = "(a:Airport {code: 'LAX'})"

REFUSED = [
    # the pattern box
    ("run", {"pattern": "MATCH (a:Airport {code: 'LAX'}-[:ROUTE]->(b)"}, "bad_pattern"),
    ("run", {"pattern": "MATCH (a {code: 'LAX'})-[:ROUTE]-(b)"}, "bad_pattern"),
    ("run", {"pattern": "DROP TABLE routes"}, "bad_pattern"),
    ("run", {"pattern": "MATCH (a {code: 'LAX'}); DROP TABLE routes"}, "bad_pattern"),
    ("run", {"pattern": f"MATCH {LAX}-[:ROUTE*0..3]->(x)"}, "depth_zero"),
    ("run", {"pattern": f"MATCH {LAX}-[:ROUTE*1..12]->(x)"}, "too_deep"),
    ("run", {"pattern": "   "}, "empty"),
    ("run", {"pattern": "x" * (MAX_PATTERN + 1)}, "too_long"),
    ("run", {"pattern": 7}, "bad_type"),
    ("run", {}, "missing_argument"),
    # names the graph does not have
    (
        "run",
        {"pattern": "MATCH (a:Airport {code: 'XYZ'})-[:ROUTE]->(b)"},
        "unknown_node",
    ),
    (
        "run",
        {"pattern": "MATCH (a:Airport {code: 'LAX\\'; DROP TABLE routes; --'})-->(b)"},
        None,  # refused one way or another: never run as SQL
    ),
    (
        "run",
        {"pattern": "MATCH (a:Service {code: 'LAX'})-[:ROUTE]->(b)"},
        "wrong_label",
    ),
    (
        "run",
        {"pattern": "MATCH (a:Airport {name: 'LAX'})-[:ROUTE]->(b)"},
        "wrong_property",
    ),
    ("run", {"pattern": f"MATCH {LAX}-[:DEPENDS_ON]->(b)"}, "wrong_type"),
    (
        "run",
        {
            "pattern": f"MATCH p = {LAX}-[:ROUTE*1..3]->(b) WHERE NONE(n IN nodes(p) "
            "WHERE n.code = 'QQQ')"
        },
        "unknown_node",
    ),
    (
        "run",
        {"pattern": f"MATCH p = {LAX}-[r:ROUTE*1..3]->(b) WHERE r.seats < 200"},
        "no_property",
    ),
    (
        "run",
        {
            "pattern": f"MATCH p = shortestPath({LAX}-[:ROUTE*]->"
            "(:Airport {code: 'LAX'}))"
        },
        "same_ends",
    ),
    # the course's buttons and the graph
    ("course_query", {"question": "nonsense"}, "bad_choice"),
    ("set_graph", {"graph": "everything"}, "bad_choice"),
    ("set_grown", {"on": "yes"}, "bad_type"),
    # asking without typing
    (
        "ask",
        {"start": "XYZ", "end": "", "depth": 3, "avoid": "", "shortest": False},
        "unknown_node",
    ),
    (
        "ask",
        {"start": "LAX", "end": "", "depth": 0, "avoid": "", "shortest": False},
        "out_of_range",
    ),
    (
        "ask",
        {"start": "LAX", "end": "", "depth": 9, "avoid": "", "shortest": False},
        "out_of_range",
    ),
    (
        "ask",
        {"start": "LAX", "end": "", "depth": 3, "avoid": "", "shortest": True},
        "no_end",
    ),
    (
        "ask",
        {"start": "", "end": "JFK", "depth": 3, "avoid": "", "shortest": False},
        "empty",
    ),
    # closures
    ("close_airport", {"code": "XYZ"}, "unknown_node"),
    ("close_airport", {"code": ""}, "empty"),
    ("close_airport", {"code": "lax"}, "unknown_node"),
    ("reopen_all", {}, "none_closed"),
    ("most_depended", {}, "not_services"),
]


def codes_of(error: ActionError) -> str:
    return error.code


@pytest.mark.parametrize(("action", "args", "code"), REFUSED)
def test_refused_and_nothing_changed(action, args, code):
    lab = GraphTraversalLab(seed=4)
    lab.apply("course_query", {"question": "within_three"})
    before = lab.digest()
    with pytest.raises(ActionError) as refused:
        lab.apply(action, args)
    if code is not None:
        assert refused.value.code == code
    assert refused.value.message
    assert lab.digest() == before


def test_a_parse_error_names_its_column():
    lab = GraphTraversalLab(seed=0)
    with pytest.raises(ActionError) as refused:
        lab.apply("run", {"pattern": "MATCH (a {code: 'LAX'})-[:ROUTE*1..3]=>(b)"})
    assert refused.value.params["column"] == 38  # the "=" after "]"
    assert "38" in refused.value.message


def test_an_unknown_airport_names_its_column():
    lab = GraphTraversalLab(seed=0)
    with pytest.raises(ActionError) as refused:
        lab.apply(
            "run", {"pattern": "MATCH (a {code: 'LAX'})-[:ROUTE]->(b {code: 'XYZ'})"}
        )
    assert refused.value.code == "unknown_node"
    assert refused.value.params["column"] == 35


def test_unbounded_on_the_large_graph_is_held_by_the_work_limit():
    lab = GraphTraversalLab(seed=0)
    lab.apply("set_graph", {"graph": "large"})
    before = lab.digest()
    with pytest.raises(ActionError) as refused:
        lab.apply(
            "run", {"pattern": "MATCH p = (a:Airport {code: 'ATL'})-[:ROUTE*]->(x)"}
        )
    assert refused.value.code == "work_limit"
    assert lab.digest() == before


def test_closing_every_airport_is_refused():
    lab = GraphTraversalLab(seed=0)
    names = ["ATL", "DEN", "DFW", "JFK", "LAX", "ORD", "SEA"]
    for name in names:
        lab.apply("close_airport", {"code": name})
    before = lab.digest()
    with pytest.raises(ActionError) as refused:
        lab.apply("close_airport", {"code": "SFO"})
    assert refused.value.code == "all_closed"
    assert lab.digest() == before
    with pytest.raises(ActionError) as again:
        lab.apply("close_airport", {"code": "ORD"})
    assert again.value.code == "already_closed"
