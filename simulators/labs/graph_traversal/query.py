"""A parsed pattern: what the pattern box's Cypher subset says, as data.

The parser (`pattern.py`) makes a `Query`; the three engines answer it: the lab's own
traversal (`traverse.py`), the recursive SQL (`sql.py`) and networkx (`nxengine.py`).
Every query the parser accepts can be answered by all three.

The subset, in words:

    [MATCH] [p =] [shortestPath(] (a:Label {prop: 'value'}) -[r:TYPE*min..max]-> (b)
        [)] …
        [WHERE condition [AND condition …]] [RETURN anything]

- The path starts at one named node: its property map names it (`{code: 'LAX'}`,
  `{name: 'auth'}`). Only the first and the last node may carry a property map; nodes
  between may have a variable and a label.
- Relationships all point the same way: `-[…]->` (along the edges) or `<-[…]-`
  (against them: the reverse traversal). `*` alone is unbounded, `*2` exactly two,
  `*..3` one to three, `*1..` one or more; no `*` is exactly one.
- Conditions: `NONE(n IN nodes(p) WHERE n.code = 'ORD')` (no node of the path is ORD,
  the start and the end included), `ALL(r IN relationships(p) WHERE r.minutes < 200)`,
  and the course's shorthand `r.minutes < 200` where `r` is the pattern's only
  relationship: both say every edge on the way has that property.
- Cypher's own rule: a path never uses one relationship twice (it may pass a node
  twice).
- `shortestPath(…)`: the path with the fewest edges, one relationship, both ends named.
"""

from dataclasses import dataclass

# the largest bound a relationship may name (`*1..8`); `*` alone is unbounded and is
# held by the work limit instead
MAX_HOPS = 8
COMPARISONS = ("<", "<=", ">", ">=", "=", "<>")


@dataclass(frozen=True)
class NodePattern:
    """`(var:Label {prop: 'value'})`: `prop`/`value` are None for an open node."""

    var: str | None
    label: str | None
    prop: str | None
    value: str | None
    column: int  # 1-based column of its "(" in the text, for errors found later


@dataclass(frozen=True)
class Hop:
    """`-[var:TYPE*min..max]->`; `max_hops` None is unbounded (`*`)."""

    var: str | None
    rel_type: str | None
    min_hops: int
    max_hops: int | None
    column: int


@dataclass(frozen=True)
class Avoid:
    """`NONE(n IN nodes(p) WHERE n.prop = 'value')`."""

    prop: str
    value: str
    column: int


@dataclass(frozen=True)
class EdgeCondition:
    """Every edge on the way has `prop op value` (`minutes < 200`)."""

    prop: str
    op: str  # one of COMPARISONS
    value: int
    column: int

    def holds(self, number: int) -> bool:
        """Whether an edge whose property is `number` passes."""
        op, value = self.op, self.value
        if op == "<":
            return number < value
        if op == "<=":
            return number <= value
        if op == ">":
            return number > value
        if op == ">=":
            return number >= value
        if op == "=":
            return number == value
        return number != value


@dataclass(frozen=True)
class Query:
    """A whole pattern. `nodes` has one more entry than `hops`."""

    text: str
    path_var: str | None
    shortest: bool
    reverse: bool  # `<-[…]-`: the edges are followed against their direction
    nodes: tuple[NodePattern, ...]
    hops: tuple[Hop, ...]
    avoid: tuple[Avoid, ...] = ()
    conditions: tuple[EdgeCondition, ...] = ()
    returns: str | None = None  # the RETURN clause's text, shown, not interpreted

    @property
    def start(self) -> NodePattern:
        return self.nodes[0]

    @property
    def end(self) -> NodePattern:
        return self.nodes[-1]

    @property
    def min_total(self) -> int:
        """The fewest edges a path of this pattern has."""
        return sum(h.min_hops for h in self.hops)

    @property
    def max_total(self) -> int | None:
        """The most edges a path has; None when a relationship is unbounded."""
        if any(h.max_hops is None for h in self.hops):
            return None
        return sum(h.max_hops for h in self.hops)  # type: ignore[misc]

    @property
    def distinct_ends(self) -> bool:
        """Whether the answer is each end node once (RETURN DISTINCT x), not each path.

        So when nothing names the path (no `p =`), there is one relationship starting
        at one edge (`*1..n`, `*`), and the end is open: "everything within three
        edges of LAX". Each node is then expanded once, breadth first, as Neo4j's
        pruning expand does.
        """
        return (
            self.path_var is None
            and not self.shortest
            and len(self.hops) == 1
            and self.hops[0].min_hops == 1
            and self.end.prop is None
        )


@dataclass
class Answer:
    """What an engine answers: every path (`paths`), or each end once (`ends`).

    `paths` are node names from the start, sorted by (length, names); empty for a
    `distinct_ends` query. `ends` maps each end node's name to the fewest edges of a
    path to it that fits the pattern (for every kind of query).
    """

    paths: list[tuple[str, ...]]
    ends: dict[str, int]

    @classmethod
    def of_paths(cls, paths) -> "Answer":
        """The answer made of these paths: sorted, with their ends."""
        ordered = sorted(
            dict.fromkeys(tuple(p) for p in paths), key=lambda p: (len(p), p)
        )
        ends: dict[str, int] = {}
        for path in ordered:
            ends.setdefault(path[-1], len(path) - 1)
        return cls(ordered, dict(sorted(ends.items())))
