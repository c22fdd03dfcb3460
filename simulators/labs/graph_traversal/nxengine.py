"""networkx's own answer to the lab's question, and the Python that asks it.

The graph becomes an `nx.DiGraph` with the names as nodes and `minutes` on each edge
(`to_nx`). The question is then one networkx call, on a view of the graph when the
pattern reverses the edges (`G.reverse(copy=False)`) or drops some of them (a node to
avoid, a condition on the minutes: `nx.subgraph_view`):

- each end once: `nx.single_source_shortest_path_length(G, "LAX", cutoff=3)`, a
  breadth-first search; the start is an end too only when an edge comes back into it
  from a node close enough (a cycle of at most `cutoff` edges);
- the fewest edges: `nx.shortest_path(G, "LAX", "SEA")`, a bidirectional breadth-first
  search: one of the shortest paths, not necessarily the one the other engines pick;
- every path: `nx.all_simple_paths(G, "LAX", "JFK", cutoff=3)`. networkx lists
  *simple* paths (no node twice, as its documentation says); Cypher's paths only never
  use an edge twice, so those that pass a node twice are not in networkx's list
  (`NxRun.simple_only`).

The paths search is run on a view that counts the edges it reads and is stopped past
a work limit (an unbounded `*` on a large graph has more simple paths than can be
listed); the breadth-first searches read each edge once and need none.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import TYPE_CHECKING

from simulators.labs.graph_traversal.graphs import Graph
from simulators.labs.graph_traversal.query import Answer, Query
from simulators.labs.graph_traversal.sql import graph_key

if TYPE_CHECKING:
    import networkx as nx
else:

    class _Later:
        """networkx, imported when a question first asks it: importing it reads
        its installed backends' metadata, which brings in `socket` (and 0.3 s),
        and the simulators import nothing networked (tests/simulators/
        test_determinism.py); networkx never uses the network here."""

        def __getattr__(self, name: str):
            import networkx

            globals()["nx"] = networkx
            return getattr(networkx, name)

    nx = _Later()

CACHED_GRAPHS = 4
WORK_LIMIT = 100_000  # edges the paths search may read (under a second)
PYTHON_OPS = {"=": "==", "<>": "!="}

_cache: OrderedDict = OrderedDict()
_cache_lock = threading.Lock()


def forget() -> None:
    """Drop the networkx copies of every graph (a fresh process has none)."""
    with _cache_lock:
        _cache.clear()


def to_nx(graph: Graph, key=None) -> nx.DiGraph:
    """The graph as a networkx DiGraph (names as nodes, `minutes` on the edges).

    The last few graphs are kept (by `key`, or the graph's whole contents): do not
    change the one handed out.
    """
    key = graph_key(graph) if key is None else key
    with _cache_lock:
        found = _cache.get(key)
        if found is not None:
            _cache.move_to_end(key)
            return found
    G = nx.DiGraph()
    G.add_nodes_from(graph.names)
    G.add_edges_from((a, b, {"minutes": m}) for a, b, m in graph.named())
    with _cache_lock:
        G = _cache.setdefault(key, G)
        _cache.move_to_end(key)
        while len(_cache) > CACHED_GRAPHS:
            _cache.popitem(last=False)
    return G


@dataclass
class NxRun:
    """networkx's answer, the Python that asked for it, and what networkx cannot say.

    `simple_only`: a paths query, answered with networkx's simple paths (Cypher's paths
    that pass a node twice are missing). `stopped`: the paths search read more than
    the work limit of edges; `answer` is then empty, and not the answer.
    """

    answer: Answer
    call: str
    simple_only: bool = False
    stopped: bool = False
    edges_read: int = 0  # by the paths search (the breadth-first ones are not metered)


class _Stop(Exception):
    pass


class _Meter:
    """A node filter that lets everything through and counts what it is asked."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.read = 0

    def __call__(self, node) -> bool:
        self.read += 1
        if self.read > self.limit:
            raise _Stop
        return True


def _quote(name: str) -> str:
    return '"' + name.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _names(query: Query, graph: Graph) -> tuple[str, str | None]:
    start = query.start.value
    end = query.end.value if len(query.nodes) > 1 else None
    if start is None:
        raise ValueError("the pattern's first node must be named")
    for name in (start, end):
        if name is not None and name not in graph.index:
            raise ValueError(f"no node {name!r} in the graph")
    return start, end


def _view(query: Query, G: nx.DiGraph) -> tuple[nx.DiGraph, list[str], str]:
    """The graph the call runs on (reversed, restricted), the lines defining it, and
    its name in the call."""
    lines, base, name = [], G, "G"
    if query.reverse:
        base = G.reverse(copy=False)
        lines.append("R = G.reverse(copy=False)")
        name = "R"
    avoid = sorted(dict.fromkeys(a.value for a in query.avoid))
    conditions = query.conditions
    if not avoid and not conditions:
        return base, lines, name
    shown = []
    if avoid:
        if len(avoid) == 1:
            shown.append(f"filter_node=lambda n: n != {_quote(avoid[0])}")
        else:
            listed = ", ".join(_quote(a) for a in avoid)
            shown.append(f"filter_node=lambda n: n not in {{{listed}}}")
    if conditions:
        tests = " and ".join(
            f'{name}[a][b]["minutes"] {PYTHON_OPS.get(c.op, c.op)} {c.value}'
            for c in conditions
        )
        shown.append(f"filter_edge=lambda a, b: {tests}")
    lines.append(f"H = nx.subgraph_view({name}, {', '.join(shown)})")
    barred = set(avoid)

    def node_ok(node) -> bool:
        return node not in barred

    def edge_ok(a, b) -> bool:
        minutes = base[a][b]["minutes"]
        return all(c.holds(minutes) for c in conditions)

    H = nx.subgraph_view(base, filter_node=node_ok, filter_edge=edge_ok)
    return H, lines, "H"


def answer(
    query: Query, graph: Graph, *, work_limit: int = WORK_LIMIT, key=None
) -> NxRun:
    """networkx's answer to the query (ValueError for a name not in the graph)."""
    start, end = _names(query, graph)
    H, lines, name = _view(query, to_nx(graph, key))
    if query.distinct_ends:
        return _ends(query, H, lines, name, start)
    if query.shortest:
        return _shortest(query, H, lines, name, start, end)
    return _paths(query, H, lines, name, start, end, work_limit)


def _ends(query, H, lines, name, start) -> NxRun:
    """Each end once with its fewest edges: breadth first from the start."""
    top = query.max_total
    cutoff = "" if top is None else f", cutoff={top}"
    lines = [
        *lines,
        f"nx.single_source_shortest_path_length({name}, {_quote(start)}{cutoff})",
    ]
    call = "\n".join(lines)
    if start not in H:
        return NxRun(Answer([], {}), call)
    found = nx.single_source_shortest_path_length(H, start, cutoff=top)
    ends = {node: edges for node, edges in found.items() if node != start}
    # the start itself: a cycle back into it, the shortest through its in-edges
    back = [found[u] + 1 for u in H.pred[start] if u in found]
    if back and (top is None or min(back) <= top):
        ends[start] = min(back)
    return NxRun(Answer([], dict(sorted(ends.items()))), call)


def _shortest(query, H, lines, name, start, end) -> NxRun:
    """One path with the fewest edges (the one networkx finds)."""
    top, least = query.max_total, query.min_total
    s, e = _quote(start), _quote(end)
    if least > 1:  # not Cypher's shortestPath (0 or 1); the simple paths long enough
        run = _paths(query, H, lines, name, start, end, WORK_LIMIT)
        fewest = run.answer.paths[:1]  # sorted by (length, names)
        call = f"{run.call}  # the shortest with at least {least} edges"
        return NxRun(Answer.of_paths(fewest), call, True, run.stopped, run.edges_read)
    if start == end:  # a cycle: the shortest paths out, and an edge back in
        lines += [
            f"paths = nx.single_source_shortest_path({name}, {s})",
            f"min((paths[u] + [{s}] for u in {name}.pred[{s}] if u in paths), key=len)",
        ]
    else:
        lines.append(f"nx.shortest_path({name}, {s}, {e})")
    call = "\n".join(lines)
    if start not in H or end not in H:
        return NxRun(Answer([], {}), call)
    if start == end and least == 0:
        return NxRun(Answer.of_paths([(start,)]), call)
    if start == end:
        paths = nx.single_source_shortest_path(H, start)
        back = [[*paths[u], start] for u in H.pred[start] if u in paths]
        if not back:
            return NxRun(Answer([], {}), call)
        found = min(back, key=len)
    else:
        try:
            found = nx.shortest_path(H, start, end)
        except nx.NetworkXNoPath:
            return NxRun(Answer([], {}), call)
    if top is not None and len(found) - 1 > top:
        return NxRun(Answer([], {}), call)
    return NxRun(Answer.of_paths([found]), call)


def _paths(query, H, lines, name, start, end, work_limit) -> NxRun:
    """Every simple path that fits: networkx's all_simple_paths, metered."""
    top, least = query.max_total, query.min_total
    s, cutoff = _quote(start), ("" if top is None else f", cutoff={top}")
    if end is None:  # every node the paths can end at: those within reach
        lines = [
            *lines,
            f"ends = nx.single_source_shortest_path_length({name}, {s}{cutoff})",
        ]
    target = _quote(end) if end is not None else "ends"
    call = "\n".join([*lines, f"nx.all_simple_paths({name}, {s}, {target}{cutoff})"])
    if start not in H or (end is not None and end not in H):
        return NxRun(Answer([], {}), call, simple_only=True)
    meter = _Meter(work_limit)
    counted = nx.subgraph_view(H, filter_node=meter)
    if end is None:
        targets = list(nx.single_source_shortest_path_length(H, start, cutoff=top))
    else:
        targets = end
    try:
        paths = [
            tuple(path)
            for path in nx.all_simple_paths(counted, start, targets, cutoff=top)
            if len(path) - 1 >= least
        ]
    except _Stop:
        return NxRun(Answer([], {}), call, True, True, meter.read)
    return NxRun(Answer.of_paths(paths), call, True, False, meter.read)
