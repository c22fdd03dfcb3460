"""The graphs the lab traverses: the course's routes, a generated network, services.

A `Graph` keeps nodes as numbers in the order of their names, so every list of
neighbours is sorted by name and every traversal visits them in one order in every
process. Each node keeps its outgoing and incoming edges as lists (index-free
adjacency: following an edge is reading the next item of a list), each edge as
`(other end, minutes, edge number)`.
"""

import functools
import math
from dataclasses import dataclass, field

from simulators.engine.ledger import Shared
from simulators.engine.rng import SplitMix, derive_seed

ROUTES, LARGE, SERVICES = "routes", "large", "services"
GRAPHS = (ROUTES, LARGE, SERVICES)
GROWTH = 10  # "grow the graph 10×"

# The course's route graph (chapter 5): directed routes with their minutes. LAX→JFK is
# 320 direct and 380 via DEN; within three edges of LAX are SFO DEN DFW JFK (one edge)
# and SEA ORD ATL (two); the fewest stops to SEA is 2, via SFO; four routes of up to
# three edges reach JFK without ORD. DEN and ORD serve each other (a cycle).
COURSE_ROUTES = (
    ("LAX", "JFK", 320),
    ("LAX", "SFO", 85),
    ("LAX", "DEN", 140),
    ("LAX", "DFW", 185),
    ("SFO", "SEA", 125),
    ("SFO", "DEN", 150),
    ("DEN", "JFK", 240),
    ("DEN", "ORD", 150),
    ("DFW", "ATL", 130),
    ("ATL", "JFK", 150),
    ("ORD", "JFK", 140),
    ("ORD", "DEN", 165),
    ("SEA", "ORD", 245),
)
# the course's airline services; an edge is "depends on"
COURSE_SERVICES = (
    ("web", "booking-api"),
    ("booking-api", "auth"),
    ("booking-api", "payments"),
    ("booking-api", "postgres"),
    ("auth", "redis"),
    ("payments", "postgres"),
)
# the generated network's hubs: the course's airports, each with about 80 destinations
HUBS = ("ATL", "ORD", "DEN", "DFW", "LAX", "JFK", "SFO", "SEA")
LARGE_AIRPORTS = 400
HUB_DESTINATIONS = 80
SPOKE_ROUTES = 12  # tries at a route to another spoke nearby, from each spoke

Edge = tuple[int, int, int]  # (other end, minutes, edge number)


@dataclass(eq=False)
class Graph(Shared):
    """Nodes by name, edges with minutes (0 where the graph has none).

    A graph never changes once made. One made by `graph_of` is pickled as its recipe
    (seed, which, grown) and comes back from that cache, so a checkpoint of the lab
    refers to it instead of holding its edges.
    """

    kind: str  # "airport" or "service"
    names: list[str]
    edges: list[tuple[int, int, int]]  # (origin, destination, minutes), by number
    weighted: bool = True
    recipe: tuple | None = None
    part_key: bytes | None = field(default=None, repr=False)
    index: dict[str, int] = field(init=False)
    out: list[list[Edge]] = field(init=False)
    into: list[list[Edge]] = field(init=False)

    def __post_init__(self) -> None:
        self.index = {name: i for i, name in enumerate(self.names)}
        self.out = [[] for _ in self.names]
        self.into = [[] for _ in self.names]
        for number, (a, b, minutes) in enumerate(self.edges):
            self.out[a].append((b, minutes, number))
            self.into[b].append((a, minutes, number))
        for lists in (self.out, self.into):
            for edges in lists:
                edges.sort()

    def __reduce_ex__(self, protocol):
        if self.recipe is not None:
            return (graph_of, self.recipe)
        return super().__reduce_ex__(protocol)

    @classmethod
    def from_names(
        cls, kind: str, named: list[tuple[str, str, int]], weighted: bool = True
    ) -> "Graph":
        """A graph from `(origin, destination, minutes)` by name; nodes sorted."""
        names = sorted(dict.fromkeys(n for a, b, _ in named for n in (a, b)))
        index = {name: i for i, name in enumerate(names)}
        edges = sorted((index[a], index[b], m) for a, b, m in named)
        return cls(kind, names, edges, weighted)

    @property
    def label(self) -> str:
        return "Airport" if self.kind == "airport" else "Service"

    @property
    def rel_type(self) -> str:
        return "ROUTE" if self.kind == "airport" else "DEPENDS_ON"

    @property
    def prop(self) -> str:
        """The property that names a node: `code` for airports, `name` for services."""
        return "code" if self.kind == "airport" else "name"

    def named(self) -> list[tuple[str, str, int]]:
        """Every edge as `(origin, destination, minutes)` by name, in edge order."""
        names = self.names
        return [(names[a], names[b], m) for a, b, m in self.edges]

    def degree_out(self) -> list[int]:
        return [len(edges) for edges in self.out]


def course_routes() -> Graph:
    return Graph.from_names("airport", list(COURSE_ROUTES))


def course_services() -> Graph:
    named = [(a, b, 0) for a, b in COURSE_SERVICES]
    return Graph.from_names("service", named, weighted=False)


def _codes(rng: SplitMix, count: int, taken: set[str]) -> list[str]:
    """`count` new three-letter codes, none of them in `taken` (which grows)."""
    letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    codes = []
    while len(codes) < count:
        code = "".join(letters[int(rng.random() * 26)] for _ in range(3))
        if code not in taken:
            taken.add(code)
            codes.append(code)
    return codes


def _minutes(a: tuple[float, float], b: tuple[float, float]) -> int:
    """Flying time between two places on the made-up map: 30 minutes plus the way."""
    return 30 + round(math.dist(a, b) / 8)


def generated_routes(
    seed: int, airports: int = LARGE_AIRPORTS, spoke_routes: int = SPOKE_ROUTES
) -> Graph:
    """A hub-and-spoke network: the course's airports as hubs with about 80
    destinations each (there and back), spokes joined to one to three hubs and to a
    few other spokes near them. Seeded: one network per seed."""
    rng = SplitMix(derive_seed(seed, "graph-traversal.large"))
    taken = set(HUBS)
    spokes = _codes(rng, airports - len(HUBS), taken)
    place = {code: (rng.random() * 2600, rng.random() * 1400) for code in HUBS}
    place.update({code: (rng.random() * 2600, rng.random() * 1400) for code in spokes})
    routes: dict[tuple[str, str], int] = {}

    def serve(a: str, b: str) -> None:
        routes[(a, b)] = routes[(b, a)] = _minutes(place[a], place[b])

    for a in HUBS:
        for b in HUBS:
            if a < b:
                serve(a, b)
    per_hub = {hub: 0 for hub in HUBS}
    for i, spoke in enumerate(spokes):
        # each spoke gets a first hub in turn, so every hub has its share
        first = HUBS[i % len(HUBS)]
        serve(spoke, first)
        per_hub[first] += 1
    target = HUB_DESTINATIONS - (len(HUBS) - 1)
    for hub in HUBS:
        while per_hub[hub] < target:
            spoke = spokes[int(rng.random() * len(spokes))]
            if (spoke, hub) not in routes:
                serve(spoke, hub)
                per_hub[hub] += 1
    for spoke in spokes:
        for _ in range(spoke_routes):
            other = spokes[int(rng.random() * len(spokes))]
            near = math.dist(place[spoke], place[other]) < 700
            if other != spoke and near:
                routes[(spoke, other)] = _minutes(place[spoke], place[other])
    named = [(a, b, m) for (a, b), m in sorted(routes.items())]
    return Graph.from_names("airport", named)


def grown(graph: Graph, seed: int, factor: int = GROWTH) -> Graph:
    """The graph with (factor − 1) times as many new nodes and edges again.

    The new nodes and their edges are elsewhere: no new edge touches an old node, so
    whatever starts from an old node, along its edges or against them, touches the
    same edges as before. The table is 10× larger; a traversal from LAX is not.
    """
    rng = SplitMix(derive_seed(seed, f"graph-traversal.grow:{len(graph.names)}"))
    taken = set(graph.names)
    old = graph.named()
    new_nodes = _codes(rng, len(graph.names) * (factor - 1), taken)
    if graph.kind == "service":
        new_nodes = [f"svc-{code.lower()}" for code in new_nodes]
    wanted = len(old) * (factor - 1)
    routes: dict[tuple[str, str], int] = {}
    everyone = new_nodes

    def minutes() -> int:
        return 60 + int(rng.random() * 300) if graph.weighted else 0

    for node in new_nodes:  # each new node leads somewhere
        other = everyone[int(rng.random() * len(everyone))]
        if other != node:
            routes[(node, other)] = minutes()
    while len(routes) < wanted:
        a = new_nodes[int(rng.random() * len(new_nodes))]
        b = everyone[int(rng.random() * len(everyone))]
        if a != b and (a, b) not in routes:
            routes[(a, b)] = minutes()
    named = [*old, *((a, b, m) for (a, b), m in sorted(routes.items()))]
    return Graph.from_names(graph.kind, named, graph.weighted)


@functools.lru_cache(maxsize=8)
def graph_of(seed: int, which: str, grown_: bool) -> Graph:
    """The lab's graph `which` (`GRAPHS`), grown 10× or not: made once per process."""
    if which == ROUTES:
        graph = course_routes()
    elif which == SERVICES:
        graph = course_services()
    else:
        graph = generated_routes(seed)
    if grown_:
        graph = grown(graph, seed)
    graph.recipe = (seed, which, grown_)
    return graph


MINUTES_SENT = 5_000  # graphs with at most this many edges send their minutes


def base36(number: int, width: int) -> str:
    """`number` in base 36, `width` digits (0-9 then a-z), zeros in front."""
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    out = []
    for _ in range(width):
        number, digit = divmod(number, 36)
        out.append(digits[digit])
    return "".join(reversed(out))


@functools.lru_cache(maxsize=8)
def packed(graph: Graph) -> dict:
    """The graph as a few strings for the browser (docs/protocol.md), small enough
    for one websocket message with 25,000 edges (about 100 KB):

    - `nodes`: the names, separated by spaces (a node's number is its place);
    - `edges`: for each node in turn, its destinations' numbers in base 36, `width`
      digits each, run together; the nodes' lists separated by spaces;
    - `minutes`: the same lists of each edge's minutes, 2 digits each, or "" for a
      graph of more than `MINUTES_SENT` edges (drawn without them).
    """
    width = 1
    while 36**width < max(len(graph.names), 2):
        width += 1
    edges = " ".join(
        "".join(base36(b, width) for b, _m, _e in out) for out in graph.out
    )
    minutes = ""
    if len(graph.edges) <= MINUTES_SENT:
        minutes = " ".join(
            "".join(base36(min(m, 36**2 - 1), 2) for _b, m, _e in out)
            for out in graph.out
        )
    return {
        "nodes": " ".join(graph.names),
        "edges": edges,
        "minutes": minutes,
        "width": width,
    }
