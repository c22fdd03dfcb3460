"""graph-traversal: paths as pointers (a traversal) and paths as joins (recursive SQL).

One question, a pattern in a small Cypher subset (`pattern.py`), is answered three
ways side by side: the lab's own traversal reading each node's list of edges
(`traverse.py`), the same question as a `WITH RECURSIVE` query run for real on a
routes table in SQLite (`sql.py`), and networkx's functions (`nxengine.py`). The
traversal's cost is the edges it touched; the join's is an index lookup per row per
round, each into the whole table: grow the graph 10× and the first stays while the
second grows.

Choices made here, so the lab says what it does:

- Three graphs (`graphs.py`): the course's 8 airports and 13 routes, a generated
  network of 400 airports (hubs with 80 destinations; one network per seed), the
  airline's 6 services. Growing adds nine times as many nodes with their own edges,
  leaving from the new nodes only, so a question from an old node reads the same
  edges. Changing the graph or its size reopens every airport.
- A closed airport is barred from every path of every engine (as a NONE on every
  node would bar it) until "Reopen every airport"; at least one stays open.
- A question the traversal cannot finish within its work limit (edges touched) is
  refused, and nothing changes. The SQL has its own limit (rows the recursion
  produced): past it the SQL column says it was stopped, and the other two answer.
- The graph drawn is laid out in the browser by d3-force from the lab's seed.
"""

import dataclasses
import functools
import math

from simulators.engine.declaration import ActionError
from simulators.engine.i18n import gettext_noop as _
from simulators.engine.lab import Lab
from simulators.engine.ledger import Shared
from simulators.labs.graph_traversal import closures, nxengine, sql
from simulators.labs.graph_traversal.declaration import (
    ACTIONS,
    COURSE,
    DEFAULT_QUESTION,
    GraphTraversalCost,
    ask_pattern,
)
from simulators.labs.graph_traversal.graphs import (
    ROUTES,
    SERVICES,
    Graph,
    graph_of,
    packed,
)
from simulators.labs.graph_traversal.pattern import parse
from simulators.labs.graph_traversal.query import Avoid, Query
from simulators.labs.graph_traversal.tour import TOUR
from simulators.labs.graph_traversal.traverse import WORK_LIMIT, WorkLimit, traverse

SQL_WORK_LIMIT = 100_000  # rows the recursion may produce
ROUNDS_SHOWN = 40  # the SQL's rounds the snapshot lists (a runaway has thousands)
PATHS_SHOWN = 60
ENDS_SHOWN = 300
RANK_SHOWN = 10
DEFAULT_SERVICE_QUESTION = "auth_stops"


@functools.lru_cache(maxsize=8)
def _minutes_of(graph: Graph) -> dict[tuple[str, str], int]:
    return {(a, b): m for a, b, m in graph.named()}


def forget_graphs() -> None:
    """Drop every graph this process made, and its SQLite and networkx copies: what
    a replay in a fresh process starts from (`GraphTraversalLab.forget_caches`)."""
    graph_of.cache_clear()
    packed.cache_clear()
    _minutes_of.cache_clear()
    sql.forget()
    nxengine.forget()


def path_minutes(graph: Graph, path: tuple[str, ...]) -> int:
    """The minutes of a path's edges, summed."""
    minutes = _minutes_of(graph)
    return sum(minutes[(a, b)] for a, b in zip(path, path[1:], strict=False))


def _at(column: int, code: str, template: str, **params) -> ActionError:
    """A refusal that points at a column of the pattern."""
    return ActionError(code, template, "pattern", column=column, **params)


def _check_name(graph: Graph, prop: str, value, column: int) -> None:
    """Refuse a node named by the wrong property, or by a name the graph lacks."""
    if prop != graph.prop:
        raise _at(
            column,
            "wrong_property",
            _("column %(column)s: a node here is named by %(prop)s, not %(not)s"),
            prop=graph.prop,
            **{"not": prop},
        )
    if value not in graph.index:
        template = (
            _("column %(column)s: no airport named %(name)s in this graph")
            if graph.kind == "airport"
            else _("column %(column)s: no service named %(name)s in this graph")
        )
        raise _at(column, "unknown_node", template, name=value)


class Frozen(Shared):
    """A question's answer as the snapshot shows it, never changed once made.

    Held as a shared part, a checkpoint refers to it by key instead of carrying its
    few kilobytes (the depths' edges, the paths, the SQL), and the same answer asked
    again is stored once: 50,000 actions of checkpoints fit the history's budget
    (docs/benchmarks.md, graph-traversal's seek).
    """

    __slots__ = ("data", "part_key")

    def __init__(self, data: dict) -> None:
        self.data = data
        self.part_key: bytes | None = None

    def __reduce__(self):
        return (Frozen, (self.data,))


class GraphTraversalLab(Lab):
    """A route graph, a pattern, and three engines that answer it."""

    slug = "graph-traversal"
    actions = ACTIONS
    tour = TOUR
    stress = (
        ("set_graph", {"graph": "large"}),
        ("set_grown", {"on": True}),
        ("rank_closures", {}),
        ("course_query", {"question": "within_three"}),
        ("set_graph", {"graph": "services"}),
        ("set_graph", {"graph": "routes"}),
    )
    cost_model = GraphTraversalCost
    creation_cost = 150  # 100 µs as `make bench` measures it
    frame_cost = 3_000

    # the host gives the database the SQL runs on (`sql.run`'s `database`): the
    # playground's PostgreSQL when it has one (playground/graph_sql.py), else None,
    # the lab's own in-memory SQLite; the state is the same on both
    hosted = ("sql_database",)

    @classmethod
    def forget_caches(cls) -> None:
        forget_graphs()

    def __init__(self, seed: int = 0, sql_database=None, **options) -> None:
        super().__init__(seed, **options)
        self.sql_database = sql_database
        self.which = ROUTES
        self.grown = False
        self.index_on = True
        self.pattern = COURSE[DEFAULT_QUESTION]
        self.closed: tuple[str, ...] = ()
        self._question: Frozen | None = None
        self.before: dict | None = None  # the question's costs before a change of size
        self.ranking: dict | None = None
        self.dependents: list | None = None

    @property
    def question(self) -> dict | None:
        """The question asked now, as the snapshot shows it (None before one)."""
        return None if self._question is None else self._question.data

    @question.setter
    def question(self, data: dict | None) -> None:
        self._question = None if data is None else Frozen(data)

    @property
    def graph(self) -> Graph:
        return graph_of(self.seed, self.which, self.grown)

    # ----- asking ---------------------------------------------------------------------
    def _check(self, query: Query, graph: Graph) -> None:
        """Refuse what this graph cannot answer, pointing at the pattern's column."""
        for node in query.nodes:
            if node.label is not None and node.label != graph.label:
                raise _at(
                    node.column,
                    "wrong_label",
                    _("column %(column)s: the nodes here are :%(label)s, not :%(not)s"),
                    label=graph.label,
                    **{"not": node.label},
                )
            if node.prop is not None:
                _check_name(graph, node.prop, node.value, node.column)
        for hop in query.hops:
            if hop.rel_type is not None and hop.rel_type != graph.rel_type:
                raise _at(
                    hop.column,
                    "wrong_type",
                    _("column %(column)s: the edges here are :%(type)s, not :%(not)s"),
                    type=graph.rel_type,
                    **{"not": hop.rel_type},
                )
        for avoid in query.avoid:
            _check_name(graph, avoid.prop, avoid.value, avoid.column)
        for condition in query.conditions:
            if condition.prop != "minutes" or not graph.weighted:
                raise _at(
                    condition.column,
                    "no_property",
                    _("column %(column)s: the edges here have no property %(name)s"),
                    name=condition.prop,
                )
        if query.shortest and query.min_total != 1:
            raise ActionError(
                "shortest_from_one",
                _("shortestPath counts from one edge: write [:ROUTE*] or [:ROUTE*..n]"),
                "pattern",
            )
        if query.shortest and query.start.value == query.end.value:
            raise ActionError(
                "same_ends",
                _("shortestPath needs two different ends"),
                "pattern",
            )

    def _barred(self, query: Query, graph: Graph, closed: tuple[str, ...]) -> Query:
        """The query with the closed airports barred, as every engine sees it."""
        extra = tuple(Avoid(graph.prop, name, 0) for name in closed)
        return dataclasses.replace(query, avoid=query.avoid + extra) if extra else query

    def _answer(
        self,
        text: str,
        graph: Graph,
        path_check: bool = True,
        closed: tuple[str, ...] | None = None,
    ) -> dict:
        """Ask all three engines; the question as the snapshot shows it.

        Raises ActionError before anything changes.
        """
        query = parse(text)
        self._check(query, graph)
        closed = self.closed if closed is None else closed
        asked = self._barred(query, graph, closed)
        try:
            ours = traverse(asked, graph, work_limit=WORK_LIMIT)
        except WorkLimit as stop:
            raise ActionError(
                "work_limit",
                _(
                    "the traversal read %(touched)s edges, past the lab's limit of "
                    "%(limit)s, by depth %(depth)s: bound the depth, e.g. *1..3"
                ),
                "pattern",
                touched=f"{stop.touched:,}",
                limit=f"{WORK_LIMIT:,}",
                depth=stop.depth,
            ) from None
        joined = sql.run(
            asked,
            graph,
            index=self.index_on,
            path_check=path_check,
            work_limit=SQL_WORK_LIMIT,
            database=self.sql_database,
        )
        networkx = nxengine.answer(asked, graph, work_limit=WORK_LIMIT)
        question = self._describe(
            text, query, graph, ours, joined, networkx, path_check
        )
        question["query"]["closed"] = list(closed)
        # which database ran the SQL and its plan: the event's, never the state's
        # (the state is the same on SQLite and on PostgreSQL)
        self._ran_on = {"engine": joined.engine, "plan": joined.plan[:12]}
        return question

    def _describe(self, text, query, graph, ours, joined, networkx, path_check) -> dict:
        answer = ours.answer
        names = graph.names
        lost = networkx.stopped
        if ours.mode == "ends":
            sql_agrees = None if joined.stopped else joined.answer.ends == answer.ends
            nx_agrees = networkx.answer.ends == answer.ends
            revisits = 0
        elif ours.mode == "shortest":
            length = [len(p) for p in answer.paths]
            sql_agrees = (
                None
                if joined.stopped
                else [len(p) for p in joined.answer.paths] == length
            )
            nx_agrees = [len(p) for p in networkx.answer.paths] == length
            revisits = 0
        else:
            simple = [p for p in answer.paths if len(set(p)) == len(p)]
            revisits = len(answer.paths) - len(simple)
            sql_agrees = None if joined.stopped else joined.answer.paths == answer.paths
            nx_agrees = networkx.answer.paths == simple
        size = len(graph.edges)
        rounds_lookups = sum(joined.lookups_per_round)
        return {
            "pattern": text,
            "query": {
                "mode": ours.mode,
                "start": query.start.value,
                "end": query.end.value,
                "least": query.min_total,
                "most": query.max_total,
                "reverse": query.reverse,
                "avoid": [a.value for a in query.avoid],
                "closed": [],  # set by _answer
                "conditions": [[c.prop, c.op, c.value] for c in query.conditions],
                "returns": query.returns,
            },
            "traversal": {
                "touched": ours.touched,
                "lookups": ours.lookups,
                "depths": [d.as_dict(names) for d in ours.depths],
                "path_count": len(answer.paths),
                "paths": [
                    [list(p), path_minutes(graph, p) if graph.weighted else None]
                    for p in answer.paths[:PATHS_SHOWN]
                ],
                "end_count": len(answer.ends),
                "ends": [[n, d] for n, d in list(answer.ends.items())[:ENDS_SHOWN]],
                "revisits": revisits,
            },
            "sql": {
                "text": joined.sql,
                "index": self.index_on,
                "path_check": path_check,
                "stopped": joined.stopped,
                "limit": SQL_WORK_LIMIT,
                "rounds": len(joined.rows_per_round),
                "rows_per_round": list(joined.rows_per_round[:ROUNDS_SHOWN]),
                "lookups_per_round": list(joined.lookups_per_round[:ROUNDS_SHOWN]),
                "rows_read_per_round": list(joined.rows_read_per_round[:ROUNDS_SHOWN]),
                "rows": sum(joined.rows_per_round),
                "lookups": rounds_lookups,
                # a B-tree lookup compares its key about log2(rows) times
                "comparisons": rounds_lookups * math.ceil(math.log2(max(size, 2))),
                "rows_read": sum(joined.rows_read_per_round),
                "answer_count": (
                    len(joined.answer.ends)
                    if ours.mode == "ends"
                    else len(joined.answer.paths)
                ),
                "agrees": sql_agrees,
            },
            "networkx": {
                "call": networkx.call,
                "answer_count": (
                    len(networkx.answer.ends)
                    if ours.mode == "ends"
                    else len(networkx.answer.paths)
                ),
                "paths": [list(p) for p in networkx.answer.paths[:PATHS_SHOWN]],
                "agrees": None if lost else nx_agrees,
                "stopped": lost,
                "simple_only": ours.mode == "paths",
            },
            "table_rows": size,
        }

    def _ask(self, text: str, graph: Graph | None = None, **how) -> list[dict]:
        graph = graph or self.graph
        question = self._answer(text, graph, **how)
        self.pattern = text
        self.question = question
        self.before = None
        return self._question_event()

    def do_run(self, pattern: str) -> list[dict]:
        return self._ask(pattern)

    def do_course_query(self, question: str) -> list[dict]:
        text = COURSE[question]
        wanted = SERVICES if question == DEFAULT_SERVICE_QUESTION else None
        if wanted is None and self.which == SERVICES:
            wanted = ROUTES
        if wanted is None or wanted == self.which:
            return self._ask(text)
        graph = graph_of(self.seed, wanted, self.grown)
        question_ = self._answer(text, graph, closed=())
        events = self._switch(wanted, self.grown)
        self.pattern, self.question = text, question_
        return [*events, *self._question_event()]

    def _question_event(self) -> list[dict]:
        q = self.question
        assert q is not None
        ran_on = self.__dict__.pop("_ran_on", {})
        return [
            {
                **ran_on,
                "type": "question",
                "pattern": q["pattern"],
                "mode": q["query"]["mode"],
                "touched": q["traversal"]["touched"],
                "found": q["traversal"]["path_count"] or q["traversal"]["end_count"],
                "sql_rows": q["sql"]["rows"],
                "sql_stopped": q["sql"]["stopped"],
            }
        ]

    def do_ask(
        self, start: str, end: str, depth: int, avoid: str, shortest: bool
    ) -> list[dict]:
        graph = self.graph
        for name, value in (("start", start), ("end", end), ("avoid", avoid)):
            if value and value.strip() not in graph.index:
                raise ActionError(
                    "unknown_node",
                    _("no node named %(name)s in this graph"),
                    name,
                    name=value.strip(),
                )
        if shortest and not end.strip():
            raise ActionError(
                "no_end", _("the shortest path needs an end to reach"), "end"
            )
        args = {
            "start": start,
            "end": end,
            "depth": depth,
            "avoid": avoid,
            "shortest": shortest,
        }
        return self._ask(ask_pattern(args, self.which))

    def do_drop_path_check(self) -> list[dict]:
        events = self._ask(self.pattern, path_check=False)
        return events

    # ----- the graph ------------------------------------------------------------------
    def _switch(self, which: str, grown: bool) -> list[dict]:
        self.which, self.grown = which, grown
        self.closed = ()
        self.ranking = None
        self.dependents = None
        self.question = None
        self.before = None  # set again by a change of size, after the switch
        graph = self.graph
        return [
            {
                "type": "graph",
                "which": which,
                "grown": grown,
                "nodes": len(graph.names),
                "edges": len(graph.edges),
            }
        ]

    def do_set_graph(self, graph: str) -> list[dict]:
        if graph == self.which:
            return []
        new = graph_of(self.seed, graph, self.grown)
        old_kind = self.graph.kind
        text = self.pattern
        if new.kind != old_kind:
            text = COURSE[DEFAULT_QUESTION if new.kind == "airport" else "auth_stops"]
        try:  # a new graph: every airport open
            question = self._answer(text, new, closed=())
        except ActionError:
            question = None  # the pattern does not fit the new graph: asked later
        events = self._switch(graph, self.grown)
        self.pattern, self.question = text, question
        return events + (self._question_event() if question else [])

    def do_set_grown(self, on: bool) -> list[dict]:
        if on == self.grown:
            return []
        new = graph_of(self.seed, self.which, on)
        before = self.question
        question = None
        if before is not None:
            try:
                question = self._answer(self.pattern, new, closed=())
            except ActionError:
                question = None
        events = self._switch(self.which, on)
        self.question = question
        if before is not None and question is not None:
            self.before = self._costs(before)
        return events + (self._question_event() if question else [])

    @staticmethod
    def _costs(question: dict) -> dict:
        sql_ = question["sql"]
        return {
            "table_rows": question["table_rows"],
            "touched": question["traversal"]["touched"],
            "lookups": sql_["lookups"],
            "comparisons": sql_["comparisons"],
            "rows_read": sql_["rows_read"],
            "rows": sql_["rows"],
        }

    def do_set_index(self, on: bool) -> list[dict]:
        if on == self.index_on:
            return []
        self.index_on = on
        if self.question is None:
            return [{"type": "index", "on": on}]
        try:
            question = self._answer(self.pattern, self.graph)
        except ActionError:
            self.index_on = not on
            raise
        self.question = question
        return [{"type": "index", "on": on}, *self._question_event()]

    # ----- closures -------------------------------------------------------------------
    def _barred_ids(self, graph: Graph) -> set[int]:
        return {graph.index[name] for name in self.closed}

    def do_close_airport(self, code: str) -> list[dict]:
        graph = self.graph
        code = code.strip()
        if code not in graph.index:
            raise ActionError(
                "unknown_node",
                _("no node named %(name)s in this graph"),
                "code",
                name=code,
            )
        if code in self.closed:
            raise ActionError(
                "already_closed", _("%(name)s is closed already"), "code", name=code
            )
        if len(self.closed) + 1 >= len(graph.names):
            raise ActionError(
                "all_closed",
                _("at least one node must stay open: %(name)s is the last"),
                "code",
                name=code,
            )
        barred = self._barred_ids(graph)
        cut = closures.cut_by(graph, barred, graph.index[code])
        ends = closures.rank(graph, barred)
        lost = next(row for row in ends if row[0] == code)
        closed = (*self.closed, code)
        question = None
        if self.question is not None:
            try:
                question = self._answer(self.pattern, graph, closed=closed)
            except ActionError:
                question = None
        self.closed = closed
        self.question = question
        self.ranking = {
            "node": code,
            "rows": [list(lost)],
            "cut": [list(p) for p in cut[: closures.CUT_SHOWN]],
            "cut_count": len(cut),
            "ranked": False,
        }
        event = {
            "type": "closed",
            "node": code,
            "ends": lost[1],
            "through": lost[2],
        }
        return [event, *(self._question_event() if question else [])]

    def do_reopen_all(self) -> list[dict]:
        if not self.closed:
            raise ActionError("none_closed", _("nothing is closed"))
        self.closed = ()
        self.ranking = None
        if self.question is not None:
            self.question = self._answer(self.pattern, self.graph)
        return [{"type": "reopened"}]

    def do_rank_closures(self) -> list[dict]:
        graph = self.graph
        barred = self._barred_ids(graph)
        rows = closures.rank(graph, barred)
        top = rows[0]
        cut = closures.cut_by(graph, barred, graph.index[top[0]])
        self.ranking = {
            "node": top[0],
            "rows": [list(r) for r in rows[:RANK_SHOWN]],
            "cut": [list(p) for p in cut[: closures.CUT_SHOWN]],
            "cut_count": len(cut),
            "ranked": True,
        }
        return [{"type": "ranked", "top": top[0], "lost": top[1] + top[2]}]

    # ----- services -------------------------------------------------------------------
    def do_most_depended(self) -> list[dict]:
        graph = self.graph
        if graph.kind != "service":
            raise ActionError(
                "not_services",
                _("show the airline's services first: this asks about services"),
            )
        rows = []
        for name in graph.names:
            text = (
                f"MATCH (:Service {{name: '{name}'}})<-[:DEPENDS_ON*]-(d) "
                "RETURN DISTINCT d"
            )
            found = traverse(parse(text), graph).answer.ends
            direct = len(graph.into[graph.index[name]])
            rows.append([name, len([n for n in found if n != name]), direct])
        rows.sort(key=lambda r: (-r[1], -r[2], r[0]))
        self.dependents = rows[:RANK_SHOWN]
        top = rows[0]
        return [{"type": "most_depended", "name": top[0], "dependents": top[1]}]

    # ----- what is shown --------------------------------------------------------------
    def snapshot(self) -> dict:
        graph = self.graph
        degrees = graph.degree_out()
        hub = max(range(len(degrees)), key=lambda i: (degrees[i], -i))
        return {
            "graph": {
                "which": self.which,
                "grown": self.grown,
                "kind": graph.kind,
                "label": graph.label,
                "rel": graph.rel_type,
                "prop": graph.prop,
                "weighted": graph.weighted,
                "node_count": len(graph.names),
                "edge_count": len(graph.edges),
                "hub": graph.names[hub],
                "hub_degree": degrees[hub],
                **packed(graph),
            },
            "layout_seed": self.seed,
            "pattern": self.pattern,
            # the course's question whose pattern is the one asked, if any
            "course": next(
                (k for k, v in COURSE.items() if self.question and v == self.pattern),
                None,
            ),
            "index": self.index_on,
            "closed": list(self.closed),
            "question": self.question,
            "before": self.before,
            "closures": self.ranking,
            "dependents": self.dependents,
            "limits": {"edges": WORK_LIMIT, "rows": SQL_WORK_LIMIT},
        }

    def metrics(self) -> dict:
        q = self.question
        return {
            "nodes": len(self.graph.names),
            "edges": len(self.graph.edges),
            "edges_touched": q["traversal"]["touched"] if q else None,
            "sql_rows": q["sql"]["rows"] if q else None,
            "sql_lookups": q["sql"]["lookups"] if q else None,
            "closed": len(self.closed),
        }
