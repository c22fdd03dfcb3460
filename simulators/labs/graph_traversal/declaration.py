"""What the graph-traversal lab lets a user choose and do, declared as data."""

from simulators.engine.cost import CostModel
from simulators.engine.declaration import ActionError, ActionSpec, Param
from simulators.engine.i18n import gettext_noop as _
from simulators.labs.graph_traversal.graphs import GRAPHS, LARGE, ROUTES, SERVICES
from simulators.labs.graph_traversal.query import MAX_HOPS

MAX_PATTERN = 400  # characters in the pattern box
# the course's questions, as the buttons that fill the pattern box and run it
COURSE = {
    "direct": (
        "MATCH (lax:Airport {code: 'LAX'})-[r:ROUTE]->(jfk:Airport {code: 'JFK'})"
    ),
    "one_stop": (
        "MATCH p = (lax:Airport {code: 'LAX'})-[:ROUTE]->(via:Airport)"
        "-[:ROUTE]->(jfk:Airport {code: 'JFK'})"
    ),
    "within_three": (
        "MATCH (lax:Airport {code: 'LAX'})-[:ROUTE*1..3]->(x:Airport) "
        "RETURN DISTINCT x.code"
    ),
    "fewest_to_sea": (
        "MATCH p = shortestPath((:Airport {code: 'LAX'})-[:ROUTE*]->"
        "(:Airport {code: 'SEA'}))"
    ),
    "avoid_ord": (
        "MATCH p = (:Airport {code: 'LAX'})-[:ROUTE*1..3]->(:Airport {code: 'JFK'}) "
        "WHERE NONE(n IN nodes(p) WHERE n.code = 'ORD')"
    ),
    "under_200": (
        "MATCH p = (:Airport {code: 'LAX'})-[r:ROUTE*1..3]->(:Airport {code: 'JFK'}) "
        "WHERE r.minutes < 200"
    ),
    "auth_stops": (
        "MATCH (:Service {name: 'auth'})<-[:DEPENDS_ON*1..]-(d:Service) "
        "RETURN DISTINCT d.name"
    ),
}
COURSE_LABELS = (
    _("LAX → JFK direct"),
    _("LAX → JFK, one stop"),
    _("Within 3 edges of LAX"),
    _("Fewest stops to SEA"),
    _("LAX → JFK avoiding ORD"),
    _("LAX → JFK, every leg under 200 min"),
    _("What stops if auth stops"),
)
DEFAULT_QUESTION = "one_stop"

# Replay costs in work units, about a microsecond each (simulators/engine/cost.py),
# measured as `make bench` does (benchmarks/replay_costs.py). A question runs three
# engines; on the small graphs it takes a few ms, on the 400 airports (grown or not)
# what the recursive SQL produces decides, up to its work limit (100,000 rows, about
# 0.3-0.45 s): a path of unknown depth, a shortest path (the SQL cannot stop at the
# first arrival) or three edges and more from a hub reach it. GraphTraversalCost
# charges each question by its graph and its pattern, parsed, not run.
SMALL_QUESTION = 5_000  # 2-4 ms on 8 airports or 6 services, or 10× those
LARGE_BY_DEPTH = {1: 20_000, 2: 80_000}  # 400 or 4,000 airports: the SQL's rows
LARGE_DEEP = 300_000  # three edges and more, or unbounded: the SQL's limit
RUNAWAY = 450_000  # the SQL without its path check, run to its limit
GRAPH_COST = {  # making the graph (cached per process, but not in a fresh replay)
    (ROUTES, False): 300,
    (ROUTES, True): 3_000,
    (SERVICES, False): 300,
    (SERVICES, True): 2_000,
    (LARGE, False): 30_000,
    (LARGE, True): 700_000,  # 0.1 s to make, 0.2-0.4 s into SQLite and networkx
}
CLOSURE_COST = {  # ranking every closure: each node's trips of up to one stop
    (ROUTES, False): 500,
    (ROUTES, True): 3_000,
    (SERVICES, False): 500,
    (SERVICES, True): 3_000,
    (LARGE, False): 60_000,
    (LARGE, True): 800_000,
}
MOST_QUESTION = RUNAWAY

PATTERN = Param(
    "pattern",
    _("Pattern"),
    "text",
    default=COURSE[DEFAULT_QUESTION],
    max_length=MAX_PATTERN,
    help=_(
        "A Cypher pattern: (a {code: 'LAX'})-[:ROUTE*1..3]->(b), shortestPath(…), "
        "WHERE NONE(n IN nodes(p) WHERE n.code = 'ORD'), WHERE r.minutes < 200."
    ),
    current="pattern",
)
QUESTION = Param(
    "question",
    _("Question"),
    "choice",
    default=DEFAULT_QUESTION,
    choices=tuple(COURSE),
    choice_labels=COURSE_LABELS,
    help=_("One of the course's questions: it fills the pattern box and runs."),
)
GRAPH = Param(
    "graph",
    _("Graph"),
    "choice",
    default=ROUTES,
    choices=GRAPHS,
    choice_labels=(
        _("The course's 8 airports"),
        _("A network of 400 airports"),
        _("The airline's services"),
    ),
    current="graph.which",
)
START = Param(
    "start",
    _("From"),
    "text",
    default="LAX",
    max_length=40,
    help=_("The airport (or service) the paths start at."),
)
END = Param(
    "end",
    _("To"),
    "text",
    default="JFK",
    max_length=40,
    help=_("Where the paths end; leave it empty for everywhere."),
    blank=True,
)
DEPTH = Param(
    "depth",
    _("Most edges"),
    "int",
    default=3,
    minimum=1,
    maximum=MAX_HOPS,
    presets=(1, 2, 3),
)
AVOID = Param(
    "avoid",
    _("Avoid"),
    "text",
    default="",
    max_length=40,
    help=_("A node no path may pass through; leave it empty to avoid nothing."),
    blank=True,
)
SHORTEST = Param(
    "shortest",
    _("Fewest edges only"),
    "bool",
    default=False,
    help=_("Only the shortest path (shortestPath), from both ends at once."),
)
CODE = Param(
    "code",
    _("Airport"),
    "text",
    default="ORD",
    max_length=40,
    help=_("Its routes stop: no path passes through it until it reopens."),
)
GROWN = Param("on", _("On"), "bool", default=False, current="graph.grown")
INDEXED = Param("on", _("On"), "bool", default=True, current="index")

ACTIONS = (
    ActionSpec(
        "course_query",
        _("Ask the course's question"),
        (QUESTION,),
        help=_("Fill the pattern box with one of the course's queries and run it."),
        primary=True,
        cost=MOST_QUESTION,  # charged by graph and pattern
    ),
    ActionSpec(
        "run",
        _("Run the pattern"),
        (PATTERN,),
        help=_(
            "The lab follows the pattern edge by edge, runs the same question as "
            "recursive SQL, and asks networkx."
        ),
        primary=True,
        cost=MOST_QUESTION,  # charged by graph and pattern
    ),
    ActionSpec(
        "ask",
        _("Ask without typing"),
        (START, END, DEPTH, AVOID, SHORTEST),
        help=_("Builds the pattern from these fields and runs it."),
        cost=MOST_QUESTION,  # charged by graph and pattern
    ),
    ActionSpec(
        "set_graph",
        _("Show another graph"),
        (GRAPH,),
        primary=True,
        cost=max(GRAPH_COST.values()),  # charged by graph
    ),
    ActionSpec(
        "set_grown",
        _("Grow the graph 10×"),
        (GROWN,),
        help=_(
            "Nine times as many nodes again, elsewhere, with routes of their own: "
            "the join reads a table ten times larger, the traversal the same edges."
        ),
        cost=MOST_QUESTION,  # charged by graph and pattern: the question again
    ),
    ActionSpec(
        "set_index",
        _("Index the routes table"),
        (INDEXED,),
        help=_(
            "With an index on routes(origin) each round of the SQL looks its rows "
            "up; without one it reads the whole table every round."
        ),
        cost=MOST_QUESTION,  # charged by graph and pattern: the question again
    ),
    ActionSpec(
        "drop_path_check",
        _("Run the SQL without its path check"),
        help=_(
            "UNION ALL with nothing to stop a cycle: the recursion runs until the "
            "lab's work limit stops it."
        ),
        cost=MOST_QUESTION,  # charged by graph and pattern
    ),
    ActionSpec(
        "close_airport",
        _("Close an airport"),
        (CODE,),
        cost=max(CLOSURE_COST.values()),  # charged by graph
    ),
    ActionSpec(
        "reopen_all",
        _("Reopen every airport"),
        cost=max(CLOSURE_COST.values()),  # charged by graph
    ),
    ActionSpec(
        "rank_closures",
        _("Which closure cuts the most?"),
        help=_(
            "Close each node in turn and count the trips of at most one stop that "
            "no longer exist."
        ),
        cost=max(CLOSURE_COST.values()),  # charged by graph
    ),
    ActionSpec(
        "most_depended",
        _("Which service is most depended on?"),
        help=_("Every service's dependents, found by reverse traversal, ranked."),
        cost=2_000,
    ),
)


def question_cost(which: str, pattern: str, path_check: bool = True) -> int:
    """The declared cost of asking `pattern` on graph `which` (parsed, not run)."""
    from simulators.labs.graph_traversal.pattern import parse

    if not path_check:
        return RUNAWAY
    if which != LARGE:
        return SMALL_QUESTION
    try:
        query = parse(pattern)
    except ActionError:
        return SMALL_QUESTION  # refused before anything runs
    most = query.max_total
    if query.shortest or most is None:
        return LARGE_DEEP
    return LARGE_BY_DEPTH.get(most, LARGE_DEEP)


class GraphTraversalCost(CostModel):
    """Declared costs of a graph-traversal history: a question costs by its graph and
    its pattern; changing the graph, its size, its index or its closures asks the
    current question again.

    The scale is (graph, grown, the current pattern).
    """

    def __init__(self, lab_class) -> None:
        super().__init__(lab_class)
        self.scale = (ROUTES, False, COURSE[DEFAULT_QUESTION])

    def charge(self, spec, args: dict) -> int:
        which, grown, pattern = self.scale
        name = spec.name
        if name == "set_graph":
            self.scale = (args["graph"], grown, pattern)
            return GRAPH_COST[args["graph"], grown] + question_cost(
                args["graph"], pattern
            )
        if name == "set_grown":
            self.scale = (which, args["on"], pattern)
            return GRAPH_COST[which, args["on"]] + question_cost(which, pattern)
        if name in ("course_query", "run", "ask"):
            if name == "course_query":
                pattern = COURSE[args["question"]]
                if args["question"] == "auth_stops":
                    which = SERVICES
                elif which == SERVICES:
                    which = ROUTES
            elif name == "run":
                pattern = args["pattern"]
            else:
                pattern = ask_pattern(args, which)
            moved = (which, grown) != self.scale[:2]
            self.scale = (which, grown, pattern)
            return question_cost(which, pattern) + (
                GRAPH_COST[which, grown] if moved else 0
            )
        if name == "drop_path_check":
            return question_cost(which, pattern, path_check=False)
        if name in ("close_airport", "reopen_all", "rank_closures"):
            return CLOSURE_COST[which, grown] + question_cost(which, pattern)
        if name == "set_index":
            return question_cost(which, pattern)
        return spec.cost


def ask_pattern(args: dict, which: str) -> str:
    """The pattern `ask` builds from its fields, in the graph's words."""
    label, rel, prop = (
        ("Service", "DEPENDS_ON", "name")
        if which == SERVICES
        else ("Airport", "ROUTE", "code")
    )
    start, end, avoid = (args[k].strip() for k in ("start", "end", "avoid"))
    head = f"(:{label} {{{prop}: '{start}'}})"
    tail = f"(:{label} {{{prop}: '{end}'}})" if end else "(x)"
    if args["shortest"]:
        text = f"MATCH p = shortestPath({head}-[:{rel}*]->{tail})"
    elif not end and not avoid:
        text = f"MATCH {head}-[:{rel}*1..{args['depth']}]->{tail} RETURN DISTINCT x"
    else:
        text = f"MATCH p = {head}-[:{rel}*1..{args['depth']}]->{tail}"
    if avoid:
        text += f" WHERE NONE(n IN nodes(p) WHERE n.{prop} = '{avoid}')"
    return text
