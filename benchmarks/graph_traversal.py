"""graph-traversal: the lab's traversal against networkx on 100,000-edge networks,
and the same question as recursive SQL in SQLite.

Both networks come from the lab's own generator (`generated_routes`):

- for "everything within three edges of the largest hub": 2,000 airports (hubs of a
  few hundred destinations) grown 6× as the lab grows a graph, 12,000 airports and
  about 95,000 routes, the hubs' corner reachable from them and the rest not. The
  lab's breadth-first expansion against `nx.single_source_shortest_path_length`
  with `cutoff=3` (the same airports and fewest edges, checked first). On a network
  that the hub reaches whole within three edges networkx's loop stops once every
  node is reached; the lab's does not (a store does not know it has reached
  everything, and the edges a traversal reads must not depend on the rest of the
  graph), so there they would not read the same edges;
- for shortest paths: 12,000 airports in one connected network, about 95,000
  routes, 200 seeded random pairs; the lab's bidirectional search against
  `nx.shortest_path` (networkx's bidirectional breadth-first search), the same
  lengths checked first;
- the recursive SQL of the first question in SQLite: reported, no target (the
  course's form: UNION of (airport, stops), an index lookup per row per round).

Run alone: `python -m benchmarks.graph_traversal [--pairs P]`.
"""

import argparse
import sys

import networkx as nx

from benchmarks.timing import MIN_PAIRS, Row, medians, paired_rows, render
from simulators.engine.rng import SplitMix, derive_seed
from simulators.labs.graph_traversal import sql
from simulators.labs.graph_traversal.graphs import Graph, generated_routes, grown
from simulators.labs.graph_traversal.query import Hop, NodePattern, Query
from simulators.labs.graph_traversal.traverse import traverse

TARGET = 1.5
AIRPORTS, SPOKE_TRIES, GROWTH = 2_000, 20, 6
PAIRS = 200
NO_LIMIT = 10**9


def network() -> tuple[Graph, nx.DiGraph, str]:
    """The benchmark's network, as the lab holds it and as networkx does; its hub."""
    graph = grown(base(), 1, GROWTH)
    digraph = nx.DiGraph()
    digraph.add_nodes_from(graph.names)
    digraph.add_edges_from((a, b) for a, b, _ in graph.named())
    degrees = graph.degree_out()
    hub = graph.names[max(range(len(degrees)), key=degrees.__getitem__)]
    return graph, digraph, hub


def base() -> Graph:
    """The hubs' corner of the network: every airport reaches every other."""
    return generated_routes(1, AIRPORTS, SPOKE_TRIES)


def question(start: str, end: str | None, shortest: bool, most: int | None) -> Query:
    ends = NodePattern("b", None, "code" if end else None, end, 1)
    return Query(
        text="",
        path_var="p" if shortest else None,
        shortest=shortest,
        reverse=False,
        nodes=(NodePattern("a", None, "code", start, 1), ends),
        hops=(Hop(None, "ROUTE", 1, most, 1),),
    )


def connected() -> tuple[Graph, nx.DiGraph]:
    """12,000 airports in one network: every airport reaches every other."""
    graph = generated_routes(1, 12_000, SPOKE_TRIES)
    digraph = nx.DiGraph()
    digraph.add_edges_from((a, b) for a, b, _ in graph.named())
    return graph, digraph


def random_pairs(graph: Graph, count: int = PAIRS) -> list[tuple[str, str]]:
    """Seeded pairs of different airports."""
    rng = SplitMix(derive_seed(1, "benchmarks.graph-traversal.pairs"))
    names = graph.names
    pairs = []
    while len(pairs) < count:
        a = names[int(rng.random() * len(names))]
        b = names[int(rng.random() * len(names))]
        if a != b:
            pairs.append((a, b))
    return pairs


def traversal_rows(pairs: int = MIN_PAIRS) -> list[Row | str]:
    graph, digraph, hub = network()
    within = question(hub, None, False, 3)
    ours = traverse(within, graph, work_limit=NO_LIMIT)
    theirs = nx.single_source_shortest_path_length(digraph, hub, cutoff=3)
    # networkx lists the hub itself at 0 edges; the pattern lists it where a path
    # first comes back to it (two edges: out to a spoke and back)
    del theirs[hub]
    if {k: v for k, v in ours.answer.ends.items() if k != hub} != theirs:
        raise AssertionError("the expansion and networkx disagree")
    rows = paired_rows(
        f"graph-traversal: within three edges of {hub} ({len(graph.edges):,} routes, "
        f"{len(theirs):,} airports reached, {ours.touched:,} edges touched)",
        "the lab's expansion / nx.single_source_shortest_path_length(cutoff=3)",
        lambda: traverse(within, graph, work_limit=NO_LIMIT),
        lambda: nx.single_source_shortest_path_length(digraph, hub, cutoff=3),
        ours.touched,
        TARGET,
        pairs,
    )
    whole, whole_nx = connected()
    chosen = random_pairs(whole)
    asked = [question(a, b, True, None) for a, b in chosen]
    for query, (a, b) in zip(asked, chosen, strict=True):
        mine = traverse(query, whole, work_limit=NO_LIMIT).answer.paths
        path = nx.shortest_path(whole_nx, a, b)
        if len(mine[0]) != len(path):
            raise AssertionError(f"{a}→{b}: {mine[0]} and networkx's {path}")

    def ours_shortest():
        for query in asked:
            traverse(query, whole, work_limit=NO_LIMIT)

    def nx_shortest():
        for a, b in chosen:
            nx.shortest_path(whole_nx, a, b)

    rows += paired_rows(
        f"graph-traversal: shortest paths between {PAIRS} random pairs "
        f"({len(whole.edges):,} routes, one network)",
        "the lab's shortestPath / nx.shortest_path (both bidirectional)",
        ours_shortest,
        nx_shortest,
        PAIRS,
        TARGET,
        pairs,
    )
    run = sql.run(within, graph, work_limit=NO_LIMIT)
    timing = medians({"sql": lambda: sql.run(within, graph, work_limit=NO_LIMIT)}, 3)
    rows += [
        f"graph-traversal: the same question as recursive SQL in {run.engine}",
        Row(
            f"WITH RECURSIVE, {len(run.rows_per_round)} rounds, "
            f"{sum(run.rows_per_round):,} rows, {sum(run.lookups_per_round):,} "
            "index lookups (reported, no target)",
            timing["sql"],
            sum(run.rows_per_round),
        ),
    ]
    return rows


def rows(repeat: int, keys: int) -> list[Row | str]:
    """graph-traversal's rows of `make bench` (benchmarks/__main__.py finds them by the
    lab's slug): expansion and shortest paths against networkx, the recursive SQL."""
    return traversal_rows(repeat)


def browser_rows(repeat: int) -> list:
    """Its rows measured in Chromium: the large networks settling
    (benchmarks/browser_graph_fps.py)."""
    from benchmarks.browser_graph_fps import graph_fps_rows

    return graph_fps_rows(repeat)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.graph_traversal")
    parser.add_argument("--pairs", type=int, default=MIN_PAIRS)
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args(argv)
    rows = traversal_rows(args.pairs)
    print(render(rows, markdown=args.markdown))
    return 1 if any(isinstance(r, Row) and r.passed is False for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
