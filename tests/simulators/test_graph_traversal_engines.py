"""graph-traversal's other two engines: the recursive SQL and networkx.

The course's answers on its route and service graphs, what the SQL's rounds cost, and
properties over random small graphs against a brute-force list of Cypher's paths
(trails: no edge twice, nodes may repeat) written here, apart from the engines.
"""

import time

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from simulators.labs.graph_traversal import nxengine, sql
from simulators.labs.graph_traversal.graphs import (
    Graph,
    course_routes,
    course_services,
    generated_routes,
    grown,
)
from simulators.labs.graph_traversal.query import (
    Answer,
    Avoid,
    EdgeCondition,
    Hop,
    NodePattern,
    Query,
)
from simulators.labs.graph_traversal.traverse import traverse

# --- building questions --------------------------------------------------------------


def ask(
    start: str,
    least: int = 1,
    most: int | None = 1,
    end: str | None = None,
    *,
    prop: str = "code",
    path_var: str | None = "p",
    reverse: bool = False,
    avoid=(),
    conditions=(),
    shortest: bool = False,
    hops: tuple[tuple[int, int | None], ...] | None = None,
) -> Query:
    """A Query as the parser would make it: `hops` splits the range over a chain."""
    ranges = hops or ((least, most),)
    first = NodePattern("a", None, prop, start, 1)
    middle = [NodePattern(None, None, None, None, 9) for _ in ranges[1:]]
    last = NodePattern("b", None, prop if end else None, end, 20)
    return Query(
        text="(generated in a test)",
        path_var=path_var,
        shortest=shortest,
        reverse=reverse,
        nodes=(first, *middle, last),
        hops=tuple(Hop("r", None, lo, hi, 5) for lo, hi in ranges),
        avoid=tuple(Avoid(prop, name, 1) for name in avoid),
        conditions=tuple(EdgeCondition("minutes", op, v, 1) for op, v in conditions),
    )


def within(start: str, most: int | None, **how) -> Query:
    """Each end once: `(a {code: start})-[*1..most]->(b)`, nothing naming the path."""
    return ask(start, 1, most, None, path_var=None, **how)


# --- the brute force -----------------------------------------------------------------


def trails(graph: Graph, query: Query) -> list[tuple[str, ...]]:
    """Every walk from the start that uses no edge twice, fits the avoid list and the
    conditions, and has at most max_total edges (the zero-edge one included)."""
    named = graph.named()
    steps: dict[str, list[tuple[str, int, int]]] = {}
    for number, (a, b, minutes) in enumerate(named):
        here, there = (b, a) if query.reverse else (a, b)
        steps.setdefault(here, []).append((there, minutes, number))
    avoided = {a.value for a in query.avoid}
    start, top = query.start.value, query.max_total
    if start in avoided:
        return []
    found = [(start,)]

    def extend(path: tuple[str, ...], used: frozenset) -> None:
        if top is not None and len(path) - 1 >= top:
            return
        for there, minutes, number in steps.get(path[-1], []):
            if number in used or there in avoided:
                continue
            if not all(c.holds(minutes) for c in query.conditions):
                continue
            longer = (*path, there)
            found.append(longer)
            extend(longer, used | {number})

    extend((start,), frozenset())
    return found


def fitting(graph: Graph, query: Query) -> list[tuple[str, ...]]:
    """The trails the pattern matches: long enough, ending at the end if it is named."""
    end = query.end.value
    return [
        p
        for p in trails(graph, query)
        if len(p) - 1 >= query.min_total and end in (None, p[-1])
    ]


def brute(graph: Graph, query: Query) -> Answer:
    """The answer by the lab's rules, from the brute-force list."""
    paths = fitting(graph, query)
    if query.distinct_ends:
        ends: dict[str, int] = {}
        for path in paths:
            if len(path) > 1:
                ends[path[-1]] = min(ends.get(path[-1], len(path)), len(path) - 1)
        return Answer([], dict(sorted(ends.items())))
    if query.shortest and paths:
        fewest = min(len(p) for p in paths)
        return Answer.of_paths([min(p for p in paths if len(p) == fewest)])
    return Answer.of_paths(paths)


def simple(paths) -> list[tuple[str, ...]]:
    return [p for p in paths if len(set(p)) == len(p)]


def trails_per_length(graph: Graph, query: Query) -> list[int]:
    """How many trails of 1, 2, … edges leave the start (what each round produces)."""
    counts: dict[int, int] = {}
    for path in trails(graph, query):
        if len(path) > 1:
            counts[len(path) - 1] = counts.get(len(path) - 1, 0) + 1
    return [counts[k] for k in sorted(counts)]


# --- the course's answers ------------------------------------------------------------

ROUTES = course_routes()
SERVICES = course_services()


def test_direct_and_one_stop_via_den():
    direct = sql.run(ask("LAX", 1, 1, "JFK"), ROUTES)
    assert direct.answer.paths == [("LAX", "JFK")]
    assert direct.minutes == {("LAX", "JFK"): 320}
    two = sql.run(ask("LAX", 2, 2, "JFK"), ROUTES)
    assert two.answer.paths == [("LAX", "DEN", "JFK")]
    assert two.minutes == {("LAX", "DEN", "JFK"): 380}
    assert nxengine.answer(ask("LAX", 2, 2, "JFK"), ROUTES).answer == two.answer
    chained = sql.run(ask("LAX", end="JFK", hops=((1, 1), (1, 1))), ROUTES)
    assert chained.answer == two.answer


WITHIN_THREE = {"SFO": 1, "DEN": 1, "DFW": 1, "JFK": 1, "SEA": 2, "ORD": 2, "ATL": 2}


def test_within_three_edges_of_lax():
    run = sql.run(within("LAX", 3), ROUTES)
    assert run.answer.ends == WITHIN_THREE and run.answer.paths == []
    assert "GROUP BY airport" in run.sql
    assert nxengine.answer(within("LAX", 3), ROUTES).answer.ends == WITHIN_THREE
    assert brute(ROUTES, within("LAX", 3)).ends == WITHIN_THREE


def test_shortest_to_sea_goes_via_sfo():
    query = ask("LAX", 1, None, "SEA", path_var=None, shortest=True)
    assert sql.run(query, ROUTES).answer.paths == [("LAX", "SFO", "SEA")]
    networkx = nxengine.answer(query, ROUTES)
    assert networkx.answer.paths == [("LAX", "SFO", "SEA")]
    assert networkx.call == 'nx.shortest_path(G, "LAX", "SEA")'


def test_shortest_ties_go_to_the_smallest_names():
    graph = Graph.from_names(
        "airport", [("A", "C", 1), ("C", "D", 1), ("A", "B", 9), ("B", "D", 9)]
    )
    query = ask("A", 1, None, "D", shortest=True)
    assert sql.run(query, graph).answer.paths == [("A", "B", "D")]
    assert len(nxengine.answer(query, graph).answer.paths[0]) == 3


def test_up_to_three_to_jfk_avoiding_ord():
    query = ask("LAX", 1, 3, "JFK", avoid=["ORD"])
    expected = [
        ("LAX", "JFK"),
        ("LAX", "DEN", "JFK"),
        ("LAX", "DFW", "ATL", "JFK"),
        ("LAX", "SFO", "DEN", "JFK"),
    ]
    run = sql.run(query, ROUTES)
    assert sorted(run.answer.paths) == sorted(expected)
    assert "r.destination <> 'ORD'" in run.sql and "destination <> 'ORD'" in run.sql
    networkx = nxengine.answer(query, ROUTES)
    assert sorted(networkx.answer.paths) == sorted(expected)
    assert 'filter_node=lambda n: n != "ORD"' in networkx.call


def test_every_edge_under_200_minutes():
    query = ask("LAX", 1, 3, "JFK", conditions=[("<", 200)])
    expected = [("LAX", "DEN", "ORD", "JFK"), ("LAX", "DFW", "ATL", "JFK")]
    run = sql.run(query, ROUTES)
    assert run.answer.paths == expected
    assert run.sql.count("minutes < 200") == 2  # the anchor and the recursion
    assert nxengine.answer(query, ROUTES).answer.paths == expected


def test_services_reverse():
    auth = within("auth", None, prop="name", reverse=True)
    assert sql.run(auth, SERVICES).answer.ends == {"booking-api": 1, "web": 2}
    assert nxengine.answer(auth, SERVICES).answer.ends == {"booking-api": 1, "web": 2}
    postgres = within("postgres", None, prop="name", reverse=True)
    run = sql.run(postgres, SERVICES)
    assert set(run.answer.ends) == {"booking-api", "payments", "web"}
    assert "r.destination = walk.service" in run.sql and "minutes" not in run.sql
    assert nxengine.answer(postgres, SERVICES).answer.ends == run.answer.ends
    assert "G.reverse(copy=False)" in nxengine.answer(postgres, SERVICES).call


def test_unbounded_terminates_with_the_path_check_and_runs_away_without():
    everything = ask("LAX", 1, None)
    checked = sql.run(everything, ROUTES)
    assert not checked.stopped
    assert checked.answer == brute(ROUTES, everything)
    began = time.perf_counter()
    runaway = sql.run(everything, ROUTES, path_check=False, work_limit=100_000)
    assert time.perf_counter() - began < 2  # well under one second here
    assert runaway.stopped and runaway.walk_rows == 100_001
    assert runaway.answer == Answer([], {})
    assert "NOT LIKE" not in runaway.sql and "UNION ALL" in runaway.sql
    # on a graph with no cycle the runaway ends by itself
    services = sql.run(within("web", None, prop="name"), SERVICES, path_check=False)
    assert not services.stopped


def test_rounds_count_trails_and_lookups():
    query = within("LAX", 3)
    run = sql.run(query, ROUTES)
    per_length = trails_per_length(ROUTES, query)
    assert run.rows_per_round == per_length == [4, 5, 6]
    assert run.lookups_per_round == [1, *per_length[:-1]]
    size = len(ROUTES.edges)
    assert run.rows_read_per_round == [size, size + 4, size + 5]
    # a round that finds nothing is still a round: the last rows were looked up
    services = sql.run(within("postgres", None, prop="name", reverse=True), SERVICES)
    assert services.rows_per_round == [2, 2, 1, 0]
    assert services.lookups_per_round == [1, 2, 2, 1]


@pytest.fixture(scope="module")
def large_pair():
    small = generated_routes(0)
    return small, grown(small, 0)


@pytest.mark.parametrize("which", ["course", "generated"])
def test_growing_the_graph_tenfold(which, large_pair):
    small = ROUTES if which == "course" else large_pair[0]
    large = grown(ROUTES, 0) if which == "course" else large_pair[1]
    assert len(large.edges) == 10 * len(small.edges)
    query = within("LAX", 3)
    before = sql.run(query, small, index=False)
    after = sql.run(query, large, index=False)
    assert after.answer == before.answer
    assert after.rows_per_round == before.rows_per_round
    assert after.lookups_per_round == before.lookups_per_round
    previous = [0, *before.rows_per_round[:-1]]  # each round reads those again
    tables = [
        read - rows
        for read, rows in zip(before.rows_read_per_round, previous, strict=True)
    ]
    grown_tables = [
        read - rows
        for read, rows in zip(after.rows_read_per_round, previous, strict=True)
    ]
    assert tables == [len(small.edges)] * 3
    assert grown_tables == [10 * t for t in tables]
    indexed = sql.run(query, large)
    assert indexed.answer == before.answer
    assert indexed.lookups_per_round == before.lookups_per_round
    assert nxengine.answer(query, large).answer == before.answer


def test_a_branching_walk_stops_at_the_rows_it_produced(large_pair):
    began = time.perf_counter()
    run = sql.run(ask("LAX", 1, None), large_pair[1], work_limit=20_000)
    assert time.perf_counter() - began < 2
    assert run.stopped and run.walk_rows == sum(run.rows_per_round) == 20_001
    assert run.rows_per_round[:3] == [80, 888, 17201]


def test_plans_with_and_without_the_index():
    query = within("LAX", 3)
    indexed = sql.run(query, ROUTES, index=True)
    bare = sql.run(query, ROUTES, index=False)
    assert any("USING INDEX routes_origin" in line for line in indexed.plan)
    assert any("SCAN routes" in line for line in bare.plan)
    assert not any("routes_origin" in line for line in bare.plan)
    assert bare.answer == indexed.answer and bare.sql == indexed.sql
    assert indexed.engine.startswith("SQLite 3.")


def test_load_is_cached_and_indexed():
    first = sql.load(ROUTES)
    assert sql.load(course_routes()) is first  # the same contents, the same database
    names = {row[0] for row in first.execute("SELECT name FROM sqlite_master")}
    assert {"routes", "routes_origin", "routes_destination"} <= names
    assert first.execute("SELECT COUNT(*) FROM routes").fetchone() == (13,)
    bare = sql.load(ROUTES, index=False)
    assert bare is not first
    assert "routes_origin" not in {
        row[0] for row in bare.execute("SELECT name FROM sqlite_master")
    }


def test_generated_sql_takes_its_values_as_parameters():
    text, params = sql.generate(ask("LAX", 1, 3, "JFK", avoid=["ORD"]), ROUTES)
    assert "LAX" not in text and "JFK" not in text and "ORD" not in text
    assert params == ("LAX", "ORD", 3, "ORD", "JFK")
    assert text.count("?") == len(params)
    pg = sql.to_pyformat(text)
    assert pg.count("%s") == len(params) and "'%%,'" in pg
    shown = sql.inline(text, params)
    assert "origin = 'LAX'" in shown and "walk.stops < 3" in shown


def test_unknown_names_are_refused():
    with pytest.raises(ValueError):
        sql.generate(ask("XXX", 1, 3), ROUTES)
    with pytest.raises(ValueError):
        nxengine.answer(ask("LAX", 1, 3, "XXX"), ROUTES)


def test_networkx_lists_simple_paths_only():
    query = ask("LAX", 1, 4, "JFK")
    trails_found = sql.run(query, ROUTES).answer.paths
    networkx = nxengine.answer(query, ROUTES)
    assert networkx.simple_only
    assert networkx.answer.paths == simple(trails_found)
    assert len(networkx.answer.paths) < len(trails_found)  # DEN→ORD→DEN→JFK is not
    assert ("LAX", "DEN", "ORD", "DEN", "JFK") in trails_found


def test_networkx_counts_the_start_only_on_a_cycle():
    den = nxengine.answer(within("DEN", 3), ROUTES)
    assert den.answer.ends == {"DEN": 2, "JFK": 1, "ORD": 1}
    assert nxengine.answer(within("DEN", 1), ROUTES).answer.ends == {"JFK": 1, "ORD": 1}
    assert sql.run(within("DEN", 3), ROUTES).answer.ends == den.answer.ends


def test_networkx_is_stopped_on_a_runaway(large_pair):
    run = nxengine.answer(ask("LAX", 1, None, "SEA"), large_pair[0], work_limit=5_000)
    assert run.stopped and run.answer == Answer([], {})


# --- properties over random small graphs ---------------------------------------------

NAMES = "ABCDEFG"
PROPERTY = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)


@st.composite
def graphs(draw, most_nodes: int = len(NAMES), least_edges: int = 2) -> Graph:
    """Up to seven nodes and twelve edges (loops allowed), minutes or none."""
    count = draw(st.integers(2, most_nodes))
    names = NAMES[:count]
    pairs = st.tuples(st.sampled_from(names), st.sampled_from(names))
    edges = draw(st.lists(pairs, min_size=least_edges, max_size=12, unique=True))
    weighted = draw(st.booleans())
    minutes = st.integers(60, 300) if weighted else st.just(0)
    named = [(a, b, draw(minutes)) for a, b in edges]
    return Graph.from_names("airport" if weighted else "service", named, weighted)


@st.composite
def questions(draw, graph: Graph) -> Query:
    """A question of any kind the lab asks, about this graph."""
    names = graph.names
    start = draw(st.sampled_from(names))
    some = st.lists(st.sampled_from([*names, "ZZ"]), min_size=1, max_size=2)
    minutes = sorted({m for _, _, m in graph.edges})
    value = st.one_of(st.sampled_from(minutes), st.integers(50, 310))
    condition = st.tuples(st.sampled_from(["<", "<=", ">", ">=", "=", "<>"]), value)
    how = {
        "prop": graph.prop,
        "reverse": draw(st.booleans()),
        "avoid": draw(st.one_of(st.just([]), st.just([]), some)),
        "conditions": draw(st.lists(condition, max_size=1)),
    }
    kind = draw(st.sampled_from(["ends", "paths", "paths", "shortest", "chain"]))
    most = draw(st.one_of(st.integers(1, 5), st.integers(1, 5), st.none()))
    if kind == "ends":
        return within(start, most, **how)
    end = draw(st.sampled_from(names))
    if kind == "shortest":
        least = draw(st.integers(0, 1))
        return ask(start, least, most, end, shortest=True, path_var=None, **how)
    end = draw(st.one_of(st.none(), st.just(end)))
    if kind == "chain":
        first = draw(st.integers(0, 2))
        return ask(start, end=end, hops=((first, first + 1), (1, most)), **how)
    least = draw(st.integers(0, 3))
    return ask(start, least, None if most is None else max(most, least), end, **how)


@PROPERTY
@given(data=st.data())
def test_sql_and_networkx_agree_with_the_brute_force(data):
    graph = data.draw(graphs())
    query = data.draw(questions(graph))
    expected = brute(graph, query)
    run = sql.run(query, graph)
    assert not run.stopped
    assert run.answer == expected, run.sql
    if not query.shortest:
        assert [n for n in run.rows_per_round if n] == trails_per_length(graph, query)
    networkx = nxengine.answer(query, graph)
    if query.distinct_ends:
        assert networkx.answer == expected, networkx.call
    elif query.shortest:
        lengths = [len(p) for p in networkx.answer.paths]
        assert lengths == [len(p) for p in expected.paths], networkx.call
    else:
        assert networkx.answer.paths == simple(expected.paths), networkx.call


@settings(PROPERTY, max_examples=60)
@given(graph=graphs(most_nodes=5, least_edges=8), data=st.data())
def test_shortest_ties_go_to_the_smallest_names_always(graph, data):
    """Dense graphs, where several paths are the shortest: the smallest names win."""
    start, end = (
        data.draw(st.sampled_from(graph.names)),
        data.draw(st.sampled_from(graph.names)),
    )
    query = ask(start, 1, None, end, prop=graph.prop, shortest=True)
    assert sql.run(query, graph).answer == brute(graph, query)


# -- the lab's own traversal, against the other two and the brute force ------------


@PROPERTY
@given(data=st.data())
def test_the_traversal_agrees_with_sql_networkx_and_the_brute_force(data):
    graph = data.draw(graphs())
    query = data.draw(questions(graph))
    assume(query.min_total >= 1)  # the parser refuses *0 (depth_zero)
    assume(not query.shortest or query.start.value != query.end.value)  # same_ends
    expected = brute(graph, query)
    ours = traverse(query, graph)
    run = sql.run(query, graph)
    networkx = nxengine.answer(query, graph)
    if query.shortest:
        length = [len(p) for p in expected.paths]
        assert [len(p) for p in ours.answer.paths] == length
        assert [len(p) for p in run.answer.paths] == length
        assert [len(p) for p in networkx.answer.paths] == length
        assert set(ours.answer.paths) <= set(fitting(graph, query))
    elif query.distinct_ends:
        assert ours.answer.ends == expected.ends == run.answer.ends
        assert networkx.answer.ends == expected.ends
    else:
        assert ours.answer == expected == run.answer
        assert networkx.answer.paths == simple(ours.answer.paths)


OTHERS = "QRSTUVW"


@PROPERTY
@given(data=st.data())
def test_what_a_traversal_touches_does_not_depend_on_the_rest_of_the_graph(data):
    """A graph and the same graph beside another one that no edge joins to it:
    every question from the first reads the same edges, depth by depth."""
    graph = data.draw(graphs())
    query = data.draw(questions(graph))
    assume(query.min_total >= 1)
    assume(not query.shortest or query.start.value != query.end.value)
    extra = data.draw(
        st.lists(
            st.tuples(
                st.sampled_from(OTHERS), st.sampled_from(OTHERS), st.integers(60, 300)
            ),
            min_size=1,
            max_size=30,
            unique_by=lambda e: e[:2],
        )
    )
    both = Graph.from_names(graph.kind, [*graph.named(), *extra], graph.weighted)
    alone = traverse(query, graph)
    beside = traverse(query, both)
    assert alone.touched == beside.touched
    assert [d.as_dict(graph.names) for d in alone.depths] == [
        d.as_dict(both.names) for d in beside.depths
    ]
    assert alone.answer == beside.answer


def test_the_database_the_sql_runs_on_is_the_labs_argument_not_a_switch():
    """`sql_database` (given by the host: the playground's PostgreSQL) reaches the
    lab's SQL, and only that lab's; the state is the same with it and without."""
    from contextlib import contextmanager

    from simulators.labs.graph_traversal import GraphTraversalLab

    asked = []

    @contextmanager
    def own_database(graph, index):
        asked.append((len(graph.edges), index))
        yield sql.load(graph, index)  # a SQLite of its own would do as well

    steps = [
        ("course_query", {"question": "avoid_ord"}),
        ("set_index", {"on": False}),
        ("course_query", {"question": "within_three"}),
    ]
    hosted = GraphTraversalLab(seed=4, sql_database=own_database)
    alone = GraphTraversalLab(seed=4)
    for name, args in steps:
        hosted.apply(name, args)
        alone.apply(name, args)  # between the two: a switch would leak over
    # asked with the index, then again without it (set_index asks again), then on
    assert [index for _edges, index in asked] == [True, False, False]
    assert hosted.digest() == alone.digest()
    assert GraphTraversalLab.hosted == ("sql_database",)
    assert not hasattr(sql, "use_database")
