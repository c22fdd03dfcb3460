"""Which closure cuts the most connections: trips of at most one stop, counted.

A connection is a trip from one open node to another with a direct route or one stop
on the way. Closing a node ends the trips that start or end there ("to or from"),
and the trips between others whose only stop it was ("through"). Counted for every
open node at once: for each pair without a direct route, the stops that join them.
"""

from simulators.labs.graph_traversal.graphs import Graph

CUT_SHOWN = 200  # pairs of the top closure the snapshot lists for the drawing
# a one-stop trip with more than one stop between (any one of them keeps it)
SEVERAL = -1


def connections(graph: Graph, barred: set[int]) -> tuple[set[int], dict[int, int]]:
    """The open trips as numbers `a * n + b`, and for the one-stop trips with no
    direct route, the stop between when there is one, else `SEVERAL`.

    A number per trip, not a list of its stops: the grown graph has hundreds of
    thousands of such trips, and as many lists made the garbage collector walk them
    all, more than once, holding the GIL for a second (issue 29)."""
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
        row = a * n
        for m, _m1, _e1 in out[a]:
            if m in barred or m == a:
                continue
            for b, _m2, _e2 in out[m]:
                if b in (a, m) or b in barred:
                    continue
                key = row + b
                if key not in direct:
                    stops[key] = SEVERAL if key in stops else m
    return direct, stops


def rank(graph: Graph, barred: set[int]) -> list[tuple[str, int, int]]:
    """Every open node as (name, trips to or from it, trips only through it), the
    most cut first (then by name)."""
    n = len(graph.names)
    direct, stops = connections(graph, barred)
    ends = [0] * n
    through = [0] * n
    for key in direct:
        ends[key // n] += 1
        ends[key % n] += 1
    for key, via in stops.items():
        ends[key // n] += 1
        ends[key % n] += 1
        if via != SEVERAL:
            through[via] += 1
    names = graph.names
    rows = [(names[i], ends[i], through[i]) for i in range(n) if i not in barred]
    return sorted(rows, key=lambda r: (-(r[1] + r[2]), r[0]))


def cut_by(graph: Graph, barred: set[int], node: int) -> list[tuple[str, str]]:
    """The trips between other nodes that closing `node` ends (its only stop)."""
    n = len(graph.names)
    _direct, stops = connections(graph, barred)
    names = graph.names
    cut = [
        (names[key // n], names[key % n]) for key, via in stops.items() if via == node
    ]
    return sorted(cut)
