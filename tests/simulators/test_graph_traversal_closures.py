"""graph-traversal ranks closures with a number per one-stop trip (issue 29).

`connections` kept the stops between each pair without a direct route as a list of
their own: on the grown graph hundreds of thousands of lists, which the garbage
collector walked, more than once, holding the GIL for up to a second. It now keeps the
one stop, or `SEVERAL`. `old_connections` is the list version as it was: the ranking
and the trips a closure cuts come out exactly the same, on every graph of the lab,
with airports closed, and where two routes join the same pair (the same stop twice).
"""

import pytest

from simulators.labs.graph_traversal import closures
from simulators.labs.graph_traversal.graphs import (
    GRAPHS,
    LARGE,
    Graph,
    graph_of,
)


def old_connections(graph: Graph, barred: set[int]):
    n = len(graph.names)
    direct: set[int] = set()
    stops: dict[int, list[int]] = {}
    out = graph.out
    for a in range(n):
        if a in barred:
            continue
        for b, _m, _e in out[a]:
            if b not in barred and b != a:
                direct.add(a * n + b)
    for a in range(n):
        if a in barred:
            continue
        for m, _m1, _e1 in out[a]:
            if m in barred or m == a:
                continue
            for b, _m2, _e2 in out[m]:
                if b in (a, m) or b in barred:
                    continue
                key = a * n + b
                if key not in direct:
                    stops.setdefault(key, []).append(m)
    return direct, stops


def old_rank(graph: Graph, barred: set[int]):
    n = len(graph.names)
    direct, stops = old_connections(graph, barred)
    ends, through = [0] * n, [0] * n
    for key in direct:
        ends[key // n] += 1
        ends[key % n] += 1
    for key, via in stops.items():
        ends[key // n] += 1
        ends[key % n] += 1
        if len(via) == 1:
            through[via[0]] += 1
    names = graph.names
    rows = [(names[i], ends[i], through[i]) for i in range(n) if i not in barred]
    return sorted(rows, key=lambda r: (-(r[1] + r[2]), r[0]))


def old_cut_by(graph: Graph, barred: set[int], node: int):
    n = len(graph.names)
    _direct, stops = old_connections(graph, barred)
    names = graph.names
    return sorted(
        (names[key // n], names[key % n]) for key, via in stops.items() if via == [node]
    )


def same(graph: Graph, barred: set[int], cuts: int = 3) -> None:
    direct, stops = closures.connections(graph, barred)
    old_direct, old_stops = old_connections(graph, barred)
    assert direct == old_direct
    assert stops == {
        key: via[0] if len(via) == 1 else closures.SEVERAL
        for key, via in old_stops.items()
    }
    ranking = closures.rank(graph, barred)
    assert ranking == old_rank(graph, barred)
    for name, _ends, _through in ranking[:cuts]:
        node = graph.index[name]
        assert closures.cut_by(graph, barred, node) == old_cut_by(graph, barred, node)


@pytest.mark.parametrize("which", GRAPHS)
@pytest.mark.parametrize("grown", [False, True])
def test_closures_rank_as_they_did(which, grown):
    graph = graph_of(1, which, grown)
    if which == LARGE and grown:  # 4,000 airports: once, with one closed
        same(graph, {len(graph.names) // 2}, cuts=1)
        return
    same(graph, set())
    same(graph, {0, len(graph.names) // 2})


def test_two_routes_to_one_stop_are_not_one_stop_only():
    # A reaches C through B on two routes, and through D: never "only through B"
    graph = Graph.from_names(
        "airport",
        [
            ("A", "B", 60),
            ("A", "B", 90),
            ("B", "C", 60),
            ("A", "D", 60),
            ("D", "C", 60),
            ("E", "B", 60),
            ("E", "B", 70),
        ],
    )
    same(graph, set())
    same(graph, {graph.index["D"]})
