"""graph-traversal: what LABS.md and the issue say the lab must show, pinned.

LAX→JFK is 320 minutes direct and 380 via DEN; within three edges of LAX are SFO,
DEN, DFW, JFK (one edge) and SEA, ORD, ATL (two); the fewest stops to SEA is 2, via
SFO; four routes of up to three edges reach JFK without ORD; postgres is the service
most depended on (3). The three engines agree; a traversal's cost is the edges it
touches, which growing the graph does not change, while the join's cost grows.
Independent checks here use networkx directly and brute force of the test's own.
"""

import networkx as nx
import pytest

from simulators.labs.graph_traversal import GraphTraversalLab
from simulators.labs.graph_traversal.closures import rank
from simulators.labs.graph_traversal.declaration import COURSE
from simulators.labs.graph_traversal.graphs import (
    HUB_DESTINATIONS,
    HUBS,
    course_routes,
    graph_of,
)

SEEDS = (0, 1, 7)


def ask(question: str, seed: int = 0, lab: GraphTraversalLab | None = None):
    lab = lab or GraphTraversalLab(seed=seed)
    lab.apply("course_query", {"question": question})
    return lab, lab.snapshot()["question"]


def paths_of(question: dict) -> list[tuple[list[str], int | None]]:
    return [(path, minutes) for path, minutes in question["traversal"]["paths"]]


@pytest.mark.parametrize("seed", SEEDS)
def test_lax_to_jfk_is_320_direct_and_380_via_den(seed):
    _, direct = ask("direct", seed)
    assert paths_of(direct) == [(["LAX", "JFK"], 320)]
    _, one_stop = ask("one_stop", seed)
    assert paths_of(one_stop) == [(["LAX", "DEN", "JFK"], 380)]


def test_everything_within_three_edges_of_lax():
    _, question = ask("within_three")
    ends = dict(question["traversal"]["ends"])
    assert ends == {
        "SFO": 1,
        "DEN": 1,
        "DFW": 1,
        "JFK": 1,
        "SEA": 2,
        "ORD": 2,
        "ATL": 2,
    }
    depths = question["traversal"]["depths"]
    assert [d["frontier"] for d in depths] == [
        ["LAX"],
        ["DEN", "DFW", "JFK", "SFO"],
        ["ATL", "ORD", "SEA"],
    ]
    # networkx, asked directly by the test
    reach = nx.single_source_shortest_path_length(_digraph(), "LAX", cutoff=3)
    del reach["LAX"]
    assert reach == ends


def test_the_fewest_stops_to_sea_is_two_via_sfo():
    _, question = ask("fewest_to_sea")
    assert paths_of(question) == [(["LAX", "SFO", "SEA"], 210)]
    assert question["query"]["mode"] == "shortest"
    sides = [d["side"] for d in question["traversal"]["depths"]]
    assert sides == ["start", "end"]  # from both ends, meeting at SFO
    assert question["traversal"]["touched"] == 5


def test_the_routes_that_avoid_ord():
    _, question = ask("avoid_ord")
    assert [p for p, _ in paths_of(question)] == [
        ["LAX", "JFK"],
        ["LAX", "DEN", "JFK"],
        ["LAX", "DFW", "ATL", "JFK"],
        ["LAX", "SFO", "DEN", "JFK"],
    ]
    avoided = [
        edge
        for depth in question["traversal"]["depths"]
        for edge in depth["edges"]
        if edge[2] == "avoided"
    ]
    assert ["DEN", "ORD", "avoided"] in avoided  # dropped at ORD, before it grew


def test_every_leg_under_200_minutes():
    _, question = ask("under_200")
    assert paths_of(question) == [
        (["LAX", "DEN", "ORD", "JFK"], 430),
        (["LAX", "DFW", "ATL", "JFK"], 465),
    ]


def test_what_stops_if_auth_stops_and_postgres_is_most_depended_on():
    lab, question = ask("auth_stops")
    assert dict(question["traversal"]["ends"]) == {"booking-api": 1, "web": 2}
    assert lab.snapshot()["graph"]["which"] == "services"
    lab.apply("most_depended", {})
    rows = lab.snapshot()["dependents"]
    assert rows[0] == ["postgres", 3, 2]
    # redis has 3 dependents too (auth, booking-api, web), one of them direct: the
    # tie is broken by direct dependents, and shown
    assert rows[1] == ["redis", 3, 1]


@pytest.mark.parametrize("question", sorted(COURSE))
def test_the_three_engines_agree_on_every_course_question(question):
    _, asked = ask(question)
    assert asked["sql"]["agrees"] is True
    assert asked["networkx"]["agrees"] is True
    assert asked["sql"]["stopped"] is False


@pytest.mark.parametrize("question", sorted(COURSE))
def test_growing_the_graph_keeps_the_traversal_and_grows_the_join(question):
    lab, before = ask(question)
    lab.apply("set_grown", {"on": True})
    after = lab.snapshot()["question"]
    assert after["traversal"]["touched"] == before["traversal"]["touched"]
    assert after["traversal"]["depths"] == before["traversal"]["depths"]
    assert after["table_rows"] == 10 * before["table_rows"]
    assert after["sql"]["lookups"] == before["sql"]["lookups"]
    assert after["sql"]["comparisons"] > before["sql"]["comparisons"]
    assert lab.snapshot()["before"]["touched"] == before["traversal"]["touched"]
    lab.apply("set_index", {"on": False})
    unindexed = lab.snapshot()["question"]["sql"]
    # with no index every round reads the whole table, ten times larger now
    assert all(r >= after["table_rows"] for r in unindexed["rows_read_per_round"])
    lab.apply("set_grown", {"on": False})
    small = lab.snapshot()["question"]["sql"]
    assert unindexed["rows_read"] > 8 * small["rows_read"]


def test_the_large_network_has_hubs_of_about_80_destinations():
    graph = graph_of(0, "large", False)
    assert 2_000 <= len(graph.edges) <= 5_000
    for hub in HUBS:
        assert len(graph.out[graph.index[hub]]) == HUB_DESTINATIONS
    grown = graph_of(0, "large", True)
    assert len(grown.edges) == 10 * len(graph.edges)


def test_an_unbounded_union_all_runs_away_and_is_stopped():
    lab = GraphTraversalLab(seed=0)
    lab.apply("run", {"pattern": "MATCH p = (a:Airport {code: 'LAX'})-[:ROUTE*]->(x)"})
    bounded = lab.snapshot()["question"]["sql"]
    assert bounded["stopped"] is False and bounded["agrees"] is True
    lab.apply("drop_path_check", {})
    runaway = lab.snapshot()["question"]["sql"]
    assert runaway["stopped"] is True
    assert runaway["path_check"] is False
    assert runaway["rows"] > runaway["limit"] - 1


def test_the_closure_that_cuts_the_most_connections():
    lab = GraphTraversalLab(seed=0)
    lab.apply("rank_closures", {})
    ranking = lab.snapshot()["closures"]
    expected = _closure_losses(_digraph())
    best = max(expected.values())
    assert ranking["node"] == min(n for n, lost in expected.items() if lost == best)
    for name, ends, through in ranking["rows"]:
        assert ends + through == expected[name]


def test_a_closed_airport_is_barred_from_every_engine():
    lab, _ = ask("within_three")
    lab.apply("close_airport", {"code": "DEN"})
    question = lab.snapshot()["question"]
    ends = dict(question["traversal"]["ends"])
    # ORD is now three edges away, through SFO and SEA
    assert "DEN" not in ends and ends["ORD"] == 3
    assert question["sql"]["agrees"] and question["networkx"]["agrees"]
    lab.apply("close_airport", {"code": "SFO"})
    ends = dict(lab.snapshot()["question"]["traversal"]["ends"])
    assert "SEA" not in ends and "ORD" not in ends  # SEA's only route in is SFO's
    lab.apply("reopen_all", {})
    assert dict(lab.snapshot()["question"]["traversal"]["ends"])["ORD"] == 2


def _digraph() -> nx.DiGraph:
    graph = nx.DiGraph()
    for a, b, minutes in course_routes().named():
        graph.add_edge(a, b, minutes=minutes)
    return graph


def _closure_losses(graph: nx.DiGraph) -> dict[str, int]:
    """For every node: the trips of at most one stop that its closure ends."""

    def trips(g):
        return {
            (a, b)
            for a in g
            for b, d in nx.single_source_shortest_path_length(g, a, cutoff=2).items()
            if b != a and d >= 1
        }

    everything = trips(graph)
    return {
        node: len(everything - trips(nx.restricted_view(graph, [node], [])))
        for node in graph
    }


def test_closure_ranking_matches_networkx_on_the_large_network():
    graph = graph_of(3, "large", False)
    digraph = nx.DiGraph()
    digraph.add_edges_from((a, b) for a, b, _ in graph.named())
    rows = {name: ends + through for name, ends, through in rank(graph, set())}
    everything = _trips(digraph)
    for hub in ("ATL", "ORD"):
        without = _trips(nx.restricted_view(digraph, [hub], []))
        assert rows[hub] == everything - without


def _trips(graph) -> int:
    """Trips of at most one stop, counted by networkx."""
    return sum(
        sum(
            1
            for b, d in nx.single_source_shortest_path_length(graph, a, 2).items()
            if b != a and d >= 1
        )
        for a in graph
    )


@pytest.mark.parametrize(
    "change",
    [
        ("set_grown", {"on": True}),
        ("set_graph", {"graph": "large"}),
        ("course_query", {"question": "auth_stops"}),
    ],
)
def test_a_new_graph_is_asked_with_every_airport_open(change):
    lab, _ = ask("within_three")
    lab.apply("close_airport", {"code": "DEN"})
    lab.apply(*change)
    shown = lab.snapshot()
    assert shown["closed"] == []
    assert shown["question"]["query"]["closed"] == []
    assert "DEN" not in shown["question"]["sql"]["text"]


def test_the_snapshot_names_the_course_question_asked():
    lab, _ = ask("under_200")
    assert lab.snapshot()["course"] == "under_200"
    lab.apply("run", {"pattern": "MATCH (a {code: 'SFO'})-[:ROUTE*1..2]->(x)"})
    assert lab.snapshot()["course"] is None


def test_the_largest_graph_fits_one_websocket_message():
    """daphne sends at most 256 KiB a message (the Makefile's
    --websocket-max-message-size): the 4,000 airports with a question must fit."""
    from playground.rooms.wire import encode

    lab = GraphTraversalLab(seed=0)
    lab.apply("set_graph", {"graph": "large"})
    lab.apply("set_grown", {"on": True})
    lab.apply("run", {"pattern": "MATCH p = (a {code: 'ATL'})-[:ROUTE*1..2]->(x)"})
    assert len(encode(lab.snapshot())) < 200 * 1024
