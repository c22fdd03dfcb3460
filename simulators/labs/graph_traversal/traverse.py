"""The lab's own engine: a pattern answered by following edges, depth by depth.

Each node keeps its edges in a list (`graphs.Graph`), so one hop is reading a list:
the cost of a traversal is the edges it reads ("touched"), whatever the size of the
rest of the graph. The start is found once by its name (one index lookup; a named
end is a second); after that, only lists.

Three ways to expand, as a graph store plans them:

- **ends** (`Query.distinct_ends`: "everything within three edges of LAX"): breadth
  first, each node expanded once, at the depth it was first reached;
- **paths**: every path that fits, grown one edge at a time; a path that fails a
  condition is dropped before it grows, and no path uses one relationship twice
  (Cypher's rule: it may pass a node twice);
- **shortest** (`shortestPath`): breadth first from both ends at once, the smaller
  frontier first, stopping at the first depth where they meet (as Neo4j's
  bidirectional search does).

Every expansion is held by `work_limit` edges touched: past it the traversal stops
with `WorkLimit`, and the lab refuses the question (nothing changes).
"""

from collections.abc import Callable
from dataclasses import dataclass, field

from simulators.labs.graph_traversal.graphs import Graph
from simulators.labs.graph_traversal.query import Answer, Query

WORK_LIMIT = 200_000  # edges touched by one question
EDGES_SHOWN = 400  # edges a depth lists for the drawing (the counts are whole)

# what happened to an edge that was read
GROWN = "grown"  # the path goes on along it (or the node is new: "ends")
FOUND = "found"  # it completes a path that fits (or reaches a new end)
SEEN = "seen"  # "ends": its node was reached at an earlier depth
REUSED = "reused"  # "paths": the path has used this relationship already
AVOIDED = "avoided"  # its node is one the pattern avoids (or a closed airport)
FAILED = "failed"  # the edge fails the pattern's condition (minutes < 200)
MET = "met"  # "shortest": the two searches meet here
OUTCOMES = (GROWN, FOUND, SEEN, REUSED, AVOIDED, FAILED, MET)


class WorkLimit(Exception):
    """The question touched more than the work limit's edges."""

    def __init__(self, touched: int, depth: int) -> None:
        super().__init__(touched, depth)
        self.touched = touched
        self.depth = depth


@dataclass(slots=True)
class Depth:
    """One round of the expansion: the nodes it grew from and the edges it read."""

    depth: int
    side: str  # "start", or "end" for the search that comes back from the end
    frontier: list[int]
    touched: int = 0
    counts: dict[str, int] = field(default_factory=dict)
    edges: list[tuple[int, int, str]] = field(default_factory=list)
    # the edges worked out when asked (`shown`), for a depth read by a plain loop
    later: Callable[[], list[tuple[int, int, str]]] | None = None

    def shown(self) -> list[tuple[int, int, str]]:
        """The first `EDGES_SHOWN` edges read, with what happened to each."""
        if self.later is not None:
            self.edges, self.later = self.later(), None
        return self.edges

    def note(self, a: int, b: int, outcome: str) -> None:
        self.touched += 1
        self.counts[outcome] = self.counts.get(outcome, 0) + 1
        if len(self.edges) < EDGES_SHOWN:
            self.edges.append((a, b, outcome))

    def as_dict(self, names: list[str]) -> dict:
        return {
            "depth": self.depth,
            "side": self.side,
            "frontier": [names[n] for n in sorted(self.frontier)[:EDGES_SHOWN]],
            "frontier_size": len(self.frontier),
            "touched": self.touched,
            "counts": {k: self.counts[k] for k in OUTCOMES if k in self.counts},
            "edges": [[names[a], names[b], o] for a, b, o in self.shown()],
        }


@dataclass
class Traversal:
    """What the traversal found and what it cost."""

    mode: str  # "ends", "paths" or "shortest"
    answer: Answer
    depths: list[Depth]
    lookups: int  # index lookups: the named nodes, found by their names

    @property
    def touched(self) -> int:
        return sum(d.touched for d in self.depths)


def _checks(query: Query, graph: Graph, closed: tuple[int, ...]):
    """The nodes no path may enter, and the test an edge's minutes must pass."""
    barred = set(closed)
    for avoid in query.avoid:
        if avoid.value in graph.index:
            barred.add(graph.index[avoid.value])
    conditions = query.conditions

    def passes(minutes: int) -> bool:
        return all(c.holds(minutes) for c in conditions)

    return barred, (passes if conditions else None)


def traverse(
    query: Query,
    graph: Graph,
    closed: tuple[int, ...] = (),
    work_limit: int = WORK_LIMIT,
) -> Traversal:
    """Answer `query` on `graph`, closed nodes barred; `WorkLimit` past the limit.

    The names in the query are the graph's (the lab checks them first).
    """
    start = graph.index[query.start.value]  # type: ignore[index]
    barred, passes = _checks(query, graph, closed)
    if query.shortest:
        return _shortest(query, graph, start, barred, passes, work_limit)
    if query.distinct_ends:
        return _ends(query, graph, start, barred, passes, work_limit)
    return _paths(query, graph, start, barred, passes, work_limit)


def _targets(graph: Graph, reverse: bool) -> list[list[int]]:
    """Each node's neighbours alone (no minutes, no edge numbers): the fast loops."""
    key = "_into_targets" if reverse else "_out_targets"
    cached = graph.__dict__.get(key)
    if cached is None:
        lists = graph.into if reverse else graph.out
        cached = [[b for b, _m, _e in edges] for edges in lists]
        graph.__dict__[key] = cached
    return cached


def _ends(query, graph, start, barred, passes, work_limit) -> Traversal:
    """Breadth first, each node expanded once: the ends and their fewest edges.

    The first `EDGES_SHOWN` edges of a depth are read one by one with what happened
    to each; the rest, when nothing is barred and no condition holds them, by a loop
    as plain as networkx's own (their outcomes are counted from its results).
    """
    lists = graph.into if query.reverse else graph.out
    targets = _targets(graph, query.reverse)
    plain = not barred and passes is None
    most = query.max_total
    seen = {start}
    levels: list[list[int]] = []  # the nodes first reached at each depth
    back: int | None = None  # the depth at which a path came back to the start
    frontier = [] if start in barred else [start]
    depths: list[Depth] = []
    touched = 0
    depth = 0
    while frontier and (most is None or depth < most):
        depth += 1
        round_ = Depth(depth, "start", frontier)
        grown: list[int] = []
        quick = 0  # edges read by the plain loop
        if plain:
            quick = _plain_depth(targets, frontier, seen, grown, round_.edges)
        else:  # every edge read one by one: barred nodes, conditions
            for a in frontier:
                for b, minutes, _number in lists[a]:
                    if b in barred:
                        outcome = AVOIDED
                    elif passes is not None and not passes(minutes):
                        outcome = FAILED
                    elif b not in seen:
                        seen.add(b)
                        grown.append(b)
                        outcome = GROWN
                    elif b == start and back is None:
                        back = depth
                        outcome = FOUND
                    else:
                        outcome = SEEN
                    round_.note(a, b, outcome)
                touched += len(lists[a])
                if touched > work_limit:
                    raise WorkLimit(touched, depth)
        touched += quick
        if touched > work_limit:
            raise WorkLimit(touched, depth)
        if quick:
            del round_.edges[EDGES_SHOWN:]
            _count(round_, GROWN, len(grown))
            _count(round_, SEEN, quick - len(grown))
            round_.touched = quick
        depths.append(round_)
        levels.append(grown)
        frontier = grown
    if plain and depths:
        back = _return(graph, query.reverse, start, levels, depths)
    # the ends depth by depth, in the order they were reached
    names = graph.names
    ends = {names[n]: d for d, nodes in enumerate(levels, start=1) for n in nodes}
    if back is not None:
        ends[names[start]] = back
    return Traversal("ends", Answer([], ends), depths, lookups=1)


def _plain_depth(targets, frontier, seen, grown, shown) -> int:
    """One depth with nothing barred, as plain as networkx's own loop; the first
    `EDGES_SHOWN` edges kept for the drawing. Returns the edges read.

    Each node is expanded once, so a depth reads at most the graph's edges: the
    work limit is checked once the depth is read, and a return to the start is found
    afterwards, from the start's own edges (`_return`). Unlike networkx's loop this
    one does not stop once every node is reached: a store does not know that it
    has, and the edges a depth reads must not depend on the size of the rest of
    the graph.
    """
    done = 0  # frontier nodes expanded with their edges kept
    for a in frontier:
        done += 1
        for b in targets[a]:
            if b not in seen:
                seen.add(b)
                grown.append(b)
                shown.append((a, b, GROWN))
            else:
                shown.append((a, b, SEEN))
        if len(shown) >= EDGES_SHOWN:
            break
    for a in frontier[done:]:
        for b in targets[a]:
            if b not in seen:
                seen.add(b)
                grown.append(b)
    return sum(map(len, map(targets.__getitem__, frontier)))


def _return(graph: Graph, reverse: bool, start: int, levels, depths) -> int | None:
    """The depth at which a path first comes back to the start, found from the
    nodes that lead to it; that edge is counted as found, not seen."""
    leads = {b for b, _m, _e in (graph.out if reverse else graph.into)[start]}
    if not leads:
        return None
    back = 1 if start in leads else None
    for depth, nodes in enumerate(levels[: len(depths) - 1], start=2):
        if back is not None:
            break
        if any(n in leads for n in nodes):
            back = depth
    if back is not None:
        round_ = depths[back - 1]
        round_.counts[SEEN] -= 1
        if not round_.counts[SEEN]:
            del round_.counts[SEEN]
        _count(round_, FOUND, 1)
        for i, (a, b, outcome) in enumerate(round_.edges):
            if b == start and outcome == SEEN:
                round_.edges[i] = (a, b, FOUND)
                break
    return back


def _count(round_: Depth, outcome: str, number: int) -> None:
    if number:
        round_.counts[outcome] = round_.counts.get(outcome, 0) + number


def _paths(query, graph, start, barred, passes, work_limit) -> Traversal:
    """Every trail that fits, grown one edge at a time, depth by depth."""
    lists = graph.into if query.reverse else graph.out
    least, most = query.min_total, query.max_total
    end = None if query.end.value is None else graph.index[query.end.value]
    found: list[tuple[int, ...]] = []
    # a path: (nodes, relationships used)
    frontier: list[tuple[tuple[int, ...], tuple[int, ...]]] = []
    if start not in barred:
        frontier.append(((start,), ()))
    depths: list[Depth] = []
    touched = 0
    depth = 0
    while frontier and (most is None or depth < most):
        depth += 1
        round_ = Depth(depth, "start", sorted({nodes[-1] for nodes, _ in frontier}))
        grown = []
        for nodes, used in frontier:
            a = nodes[-1]
            for b, minutes, number in lists[a]:
                if number in used:
                    outcome = REUSED
                elif b in barred:
                    outcome = AVOIDED
                elif passes is not None and not passes(minutes):
                    outcome = FAILED
                else:
                    path = (*nodes, b)
                    fits = depth >= least and (end is None or b == end)
                    if fits:
                        found.append(path)
                    if most is None or depth < most:
                        grown.append((path, (*used, number)))
                    outcome = FOUND if fits else GROWN
                round_.note(a, b, outcome)
            touched += len(lists[a])
            if touched > work_limit:
                raise WorkLimit(touched, depth)
        depths.append(round_)
        frontier = grown
    names = graph.names
    answer = Answer.of_paths(tuple(names[n] for n in path) for path in found)
    return Traversal("paths", answer, depths, lookups=1 if end is None else 2)


def _shortest(query, graph, start, barred, passes, work_limit) -> Traversal:
    """Breadth first from both ends, the smaller frontier first, until they meet.

    The search stops at the first edge that joins the two searches (as networkx's
    and Neo4j's bidirectional searches do): of the shortest paths, the one through
    that edge is returned. Every edge read is noted until `EDGES_SHOWN` a depth;
    when nothing is barred the rest are read by a plain loop and counted.
    """
    end = graph.index[query.end.value]  # type: ignore[index]
    forward = graph.into if query.reverse else graph.out
    backward = graph.out if query.reverse else graph.into
    names = graph.names
    depths: list[Depth] = []
    if start in barred or end in barred:
        return Traversal("shortest", Answer([], {}), depths, lookups=2)
    plain = not barred and passes is None
    targets = {
        "start": _targets(graph, query.reverse),
        "end": _targets(graph, not query.reverse),
    }
    # node → the node it was reached from (None at either end)
    before: dict[int, int | None] = {start: None}
    after: dict[int, int | None] = {end: None}
    front, back = [start], [end]
    ahead = behind = 0  # depths searched from the start, from the end
    touched = 0
    most = query.max_total
    meeting: int | None = None
    while front and back and meeting is None:
        if most is not None and ahead + behind >= most:
            break
        if len(front) <= len(back):
            side, mine, theirs, frontier = "start", before, after, front
            ahead += 1
        else:
            side, mine, theirs, frontier = "end", after, before, back
            behind += 1
        round_ = Depth(ahead if side == "start" else behind, side, frontier)
        grown: list[int] = []
        if plain:
            meeting = _plain_meet(targets[side], frontier, mine, theirs, grown, round_)
        else:
            lists = forward if side == "start" else backward
            meeting = _checked_meet(
                lists, frontier, mine, theirs, grown, round_, barred, passes
            )
        touched += round_.touched
        if touched > work_limit:
            raise WorkLimit(touched, ahead + behind)
        depths.append(round_)
        if side == "start":
            front = grown
        else:
            back = grown
    if meeting is None:
        return Traversal("shortest", Answer([], {}), depths, lookups=2)
    head: list[int] = []
    at: int | None = meeting
    while at is not None:
        head.append(at)
        at = before[at]
    tail: list[int] = []
    at = after[meeting]
    while at is not None:
        tail.append(at)
        at = after[at]
    best = tuple(names[n] for n in [*reversed(head), *tail])
    answer = Answer([best], {best[-1]: len(best) - 1})
    return Traversal("shortest", answer, depths, lookups=2)


def _meet(targets, frontier, mine, theirs, grown) -> tuple[int | None, int | None]:
    """The plain loop of `_plain_meet`: (where the sides meet, from which node)."""
    for a in frontier:
        for b in targets[a]:
            if b not in mine:
                mine[b] = a
                grown.append(b)
                if b in theirs:
                    return b, a
    return None, None


def _plain_meet(targets, frontier, mine, theirs, grown, round_: Depth) -> int | None:
    """One depth of one side with nothing barred; the node where the sides meet.

    The loop is as plain as networkx's; which edges grew the search and which found
    a node seen is worked out afterwards, only if the drawing asks (`Depth.shown`):
    an edge a → b grew the search when b was first reached from a.
    """
    meeting, at = _meet(targets, frontier, mine, theirs, grown)
    expanded = frontier if at is None else frontier[: frontier.index(at) + 1]
    read = sum(map(len, map(targets.__getitem__, expanded)))
    met = meeting is not None
    round_.counts = {
        k: v
        for k, v in (
            (MET, int(met)),
            (GROWN, len(grown) - met),
            (SEEN, read - len(grown)),
        )
        if v
    }
    round_.touched = read

    def shown() -> list[tuple[int, int, str]]:
        edges = []
        for a in frontier:
            for b in targets[a]:
                if b == meeting and mine[b] == a:
                    edges.append((a, b, MET))
                    return edges
                edges.append((a, b, GROWN if mine.get(b) == a else SEEN))
                if len(edges) >= EDGES_SHOWN:
                    return edges
        return edges

    round_.later = shown
    return meeting


def _tally(round_: Depth, grown: list[int], read: int, met: bool) -> None:
    """The counts of a plain depth: every edge read grew a node or found one seen.

    A depth that met stops at the meeting edge: the edges after it in its node's
    list were not read (they are counted as read: the list was fetched whole).
    """
    _count(round_, MET, 1 if met else 0)
    _count(round_, GROWN, len(grown) - (1 if met else 0))
    _count(round_, SEEN, read - len(grown))
    round_.touched = read


def _checked_meet(
    lists, frontier, mine, theirs, grown, round_: Depth, barred, passes
) -> int | None:
    """One depth of one side, every edge checked and noted."""
    for a in frontier:
        for b, minutes, _number in lists[a]:
            if b in barred:
                outcome = AVOIDED
            elif passes is not None and not passes(minutes):
                outcome = FAILED
            elif b in mine:
                outcome = SEEN
            else:
                mine[b] = a
                grown.append(b)
                outcome = MET if b in theirs else GROWN
            round_.note(a, b, outcome)
            if outcome == MET:
                return b
    return None
