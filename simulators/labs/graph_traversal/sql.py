"""The same question as a recursive SQL query, run for real on a `routes` table.

`generate` writes the query the course writes by hand (chapter 5): a `WITH RECURSIVE`
walk that starts with the routes leaving the start and joins `routes` again once a
round, one edge longer each time. The walk keeps the edges it used as a string
(`,LAX>DEN,DEN>ORD,`): Cypher's rule that a path never uses one relationship twice is
the `NOT LIKE` check on it, and it is also what ends the recursion on a graph with a
cycle. Without it (`path_check=False`, the course's runaway) `UNION ALL` walks the
cycle for ever; `run` stops it at a work limit (rows produced: counted by a function
called on each on SQLite, by a LIMIT on PostgreSQL, which hands rows on as it makes
them).

The SQL is the same text on SQLite and on PostgreSQL (`||`, `LIKE`, no `instr`); names
and numbers are parameters, never formatted into it. `run` executes it on an
in-memory SQLite database of its own (`load`), or on any DB-API connection holding a
`routes(origin, destination, minutes)` table (PostgreSQL through psycopg: the caller
connects, this module never does).

Node names must not hold `,`, `>`, `%`, `_` or a backslash: the first two separate
the path string, the others are `LIKE`'s wildcards and escape. SQLite's `LIKE` ignores
case, so `run` turns on `case_sensitive_like` on a SQLite connection.
"""

import sqlite3
import threading
from collections import Counter, OrderedDict
from dataclasses import dataclass

from simulators.labs.graph_traversal.graphs import Graph
from simulators.labs.graph_traversal.query import COMPARISONS, Answer, Query

RESERVED = frozenset(",>%_\\")
CACHED_GRAPHS = 4  # loaded databases kept (each with and without its indexes)
WORK_LIMIT = 100_000  # rows of the walk a run produces at most
INDENT = "    "

_cache: OrderedDict = OrderedDict()
_cache_lock = threading.Lock()


def forget() -> None:
    """Drop the SQLite copies of every graph (a fresh process has none)."""
    with _cache_lock:
        _cache.clear()


def graph_key(graph: Graph) -> tuple:
    """What identifies a graph's contents exactly (hashing 25k edges takes ~2 ms)."""
    return (graph.kind, graph.weighted, tuple(graph.names), tuple(graph.edges))


# --- the database --------------------------------------------------------------------


def _connect(graph: Graph, index: bool) -> sqlite3.Connection:
    """A new in-memory database holding the graph as `routes`."""
    connection = sqlite3.connect(":memory:", check_same_thread=False)
    connection.execute(
        "CREATE TABLE routes (origin TEXT, destination TEXT, minutes INTEGER)"
    )
    connection.executemany("INSERT INTO routes VALUES (?, ?, ?)", graph.named())
    if index:
        connection.execute("CREATE INDEX routes_origin ON routes (origin)")
        connection.execute("CREATE INDEX routes_destination ON routes (destination)")
    connection.execute("ANALYZE")
    connection.commit()
    return connection


def _loaded(graph: Graph, index: bool, key=None) -> tuple[sqlite3.Connection, object]:
    """The cached database for this graph (loaded on first use) and its lock."""
    entry_key = (graph_key(graph) if key is None else key, index)
    with _cache_lock:
        entry = _cache.get(entry_key)
        if entry is not None:
            _cache.move_to_end(entry_key)
            return entry
    _check_names(graph)
    entry = (_connect(graph, index), threading.Lock())
    with _cache_lock:
        entry = _cache.setdefault(entry_key, entry)
        _cache.move_to_end(entry_key)
        while len(_cache) > 2 * CACHED_GRAPHS:
            _cache.popitem(last=False)  # closed when its last user lets go
    return entry


def load(graph: Graph, index: bool = True, key=None) -> sqlite3.Connection:
    """An in-memory SQLite database with the graph as
    `routes(origin TEXT, destination TEXT, minutes INTEGER)` (minutes 0 for services)
    and, with `index`, the indexes `routes_origin` and `routes_destination`.

    Shared: the last few graphs' databases are kept (by `key`, or the graph's whole
    contents) and handed out again, so do not close or change it.
    """
    return _loaded(graph, index, key)[0]


def _check_names(graph: Graph) -> None:
    for name in graph.names:
        if RESERVED.intersection(name):
            raise ValueError(f"the SQL walk cannot hold a node named {name!r}")


# --- the query -----------------------------------------------------------------------


class _Text:
    """SQL lines with their `?` parameters, in the order they appear."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.params: list = []

    def add(self, line: str, *params) -> None:
        assert line.count("?") == len(params)
        self.lines.append(line)
        self.params.extend(params)

    def where(self, indent: str, conditions: list[tuple[str, tuple]]) -> None:
        """`WHERE a` then `  AND b` lines (nothing when there are no conditions)."""
        for i, (condition, params) in enumerate(conditions):
            word = "WHERE " if i == 0 else "  AND "
            self.add(indent + word + condition, *params)


def _names(query: Query, graph: Graph) -> tuple[str, str | None]:
    """The start's and the end's names (None: an open end); ValueError if unknown."""
    start = query.start.value
    end = query.end.value if len(query.nodes) > 1 else None
    for name in (start, end):
        if name is not None and name not in graph.index:
            raise ValueError(f"no node {name!r} in the graph")
    if start is None:
        raise ValueError("the pattern's first node must be named")
    return start, end


def _not_in(column: str, names: list[str]) -> tuple[str, tuple]:
    if len(names) == 1:
        return f"{column} <> ?", tuple(names)
    marks = ", ".join("?" for _ in names)
    return f"{column} NOT IN ({marks})", tuple(names)


def _edge_conditions(query: Query, prefix: str) -> list[tuple[str, tuple]]:
    """`minutes < ?` for each condition on the edges (`r.minutes` in the join)."""
    found = []
    for condition in query.conditions:
        if condition.prop != "minutes" or condition.op not in COMPARISONS:
            raise ValueError(f"no edge property {condition.prop!r} {condition.op}")
        found.append((f"{prefix}minutes {condition.op} ?", (condition.value,)))
    return found


@dataclass(frozen=True)
class _Shape:
    """The words one query's SQL uses."""

    node: str  # the walk's column of the node reached: airport / service
    near: str  # the routes column matched to where the walk is
    far: str  # the column stepped to
    weighted: bool
    rel: str  # for the comment on the path check

    @classmethod
    def of(cls, query: Query, graph: Graph) -> "_Shape":
        near, far = (
            ("destination", "origin") if query.reverse else ("origin", "destination")
        )
        airports = graph.kind == "airport"
        node = "airport" if airports else "service"
        return cls(
            node, near, far, graph.weighted, "route" if airports else "dependency"
        )


def _walk(
    query: Query,
    graph: Graph,
    path_check: bool,
    lean: bool = False,
    tally: bool = False,
) -> _Text:
    """The `WITH RECURSIVE walk(…) AS (…)` part.

    `lean` leaves out the path and the minutes (for counting a walk that has no path
    check: its path strings only grow, and copying them would be most of the work);
    `tally` adds a column calling the function `tally(stops, node)` on every row
    produced (SQLite's counting, `_count_sqlite`).
    """
    start, end = _names(query, graph)
    shape = _Shape.of(query, graph)
    avoid = sorted(dict.fromkeys(a.value for a in query.avoid))
    columns = [shape.node, "stops"]
    first = [shape.far, "1"]
    step = [f"r.{shape.far}", "walk.stops + 1"]
    if not lean:
        columns.append("path")
        first.append("',' || origin || '>' || destination || ','")
        step.append("walk.path || r.origin || '>' || r.destination || ','")
        if shape.weighted:
            columns.append("minutes")
            first.append("minutes")
            step.append("walk.minutes + r.minutes")
    if tally:
        columns.append("tally")
        first.append(f"tally(1, {shape.far})")
        step.append(f"tally(walk.stops + 1, r.{shape.far})")
    text = _Text()
    text.add(f"WITH RECURSIVE walk({', '.join(columns)}) AS (")
    text.add(f"{INDENT}SELECT {', '.join(first)}")
    anchor = [(f"{shape.near} = ?", (start,))]
    if start in avoid:
        anchor.append(_not_in(shape.near, avoid))
    if avoid:
        anchor.append(_not_in(shape.far, avoid))
    anchor += _edge_conditions(query, "")
    if len(anchor) == 1:
        text.add(f"{INDENT}FROM routes WHERE {anchor[0][0]}", *anchor[0][1])
    else:
        text.add(f"{INDENT}FROM routes")
        text.where(INDENT, anchor)
    text.add("  UNION ALL")
    # the course's layout: the node and the stops, then one line for each column
    lines = [", ".join(step[:2]), *step[2:]]
    for k, line in enumerate(lines):
        lead = f"{INDENT}SELECT " if k == 0 else f"{INDENT}       "
        text.add(lead + line + ("," if k < len(lines) - 1 else ""))
    text.add(f"{INDENT}FROM walk JOIN routes r ON r.{shape.near} = walk.{shape.node}")
    text.where(INDENT, _recursive_conditions(query, shape, avoid, end, path_check))
    text.add(")")
    return text


def _recursive_conditions(
    query: Query, shape: _Shape, avoid: list[str], end: str | None, path_check: bool
) -> list[tuple[str, tuple]]:
    """What a walk must satisfy to grow by one more edge."""
    conditions: list[tuple[str, tuple]] = []
    if query.max_total is not None:
        conditions.append(("walk.stops < ?", (query.max_total,)))
    if path_check:
        used = "'%,' || r.origin || '>' || r.destination || ',%'"
        check = f"walk.path NOT LIKE {used}   -- no {shape.rel} twice"
        conditions.append((check, ()))
    if avoid:
        conditions.append(_not_in(f"r.{shape.far}", avoid))
    conditions += _edge_conditions(query, "r.")
    if query.shortest and end is not None:
        # the fewest edges: a walk that has reached the end (with edges enough) is done
        if query.min_total <= 1:
            conditions.append((f"walk.{shape.node} <> ?", (end,)))
        else:
            stop = f"NOT (walk.{shape.node} = ? AND walk.stops >= ?)"
            conditions.append((stop, (end, query.min_total)))
    return conditions


def _final(query: Query, graph: Graph) -> _Text:
    """The SELECT that reads the answer from the walk."""
    _, end = _names(query, graph)
    shape = _Shape.of(query, graph)
    text = _Text()
    if query.distinct_ends:
        node = shape.node
        text.add(f"SELECT {node}, MIN(stops) AS stops FROM walk GROUP BY {node};")
        return text
    minutes = ", minutes" if shape.weighted else ""
    conditions = []
    if end is not None:
        conditions.append((f"{shape.node} = ?", (end,)))
    if query.min_total > 1:
        conditions.append(("stops >= ?", (query.min_total,)))
    order = " ORDER BY stops" if query.shortest else ""
    if len(conditions) <= 1:
        where = f" WHERE {conditions[0][0]}" if conditions else ""
        params = conditions[0][1] if conditions else ()
        text.add(f"SELECT path, stops{minutes} FROM walk{where}{order};", *params)
    else:
        text.add(f"SELECT path, stops{minutes} FROM walk")
        text.where("", conditions)
        text.lines[-1] += order + ";"
    return text


def generate(
    query: Query, graph: Graph, *, path_check: bool = True
) -> tuple[str, tuple]:
    """The query's SQL (with `?` parameters, SQLite's style) and its parameters.

    `to_pyformat` renders it for psycopg, `inline` with the values written in.
    """
    walk, final = _walk(query, graph, path_check), _final(query, graph)
    return "\n".join(walk.lines + final.lines), tuple(walk.params + final.params)


def to_pyformat(sql: str) -> str:
    """The SQL with psycopg's `%s` placeholders (and its literal `%` doubled)."""
    return sql.replace("%", "%%").replace("?", "%s")


def inline(sql: str, params: tuple) -> str:
    """The SQL as the course prints it: each `?` replaced by its value, for reading."""
    pieces = sql.split("?")
    assert len(pieces) == len(params) + 1
    out = [pieces[0]]
    for value, piece in zip(params, pieces[1:], strict=True):
        literal = str(value) if isinstance(value, int) else _quoted(value)
        out += [literal, piece]
    return "".join(out)


def _quoted(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


# --- running it ----------------------------------------------------------------------


@dataclass
class SqlRun:
    """One run of the generated SQL and what it cost, round by round.

    When the walk was `stopped` (it produced more than the work limit of rows) the
    answer query is not run: `answer` is then empty, and not the answer.

    Round k is the recursion's k-th step: `rows_per_round[k-1]` rows of k edges,
    `lookups_per_round[k-1]` index lookups made for it (1 for the start, then one
    per row of round k−1 joined again), and `rows_read_per_round[k-1]` the rows a
    round reads with no index (the whole table, then the previous round's rows: a
    hash join, PostgreSQL's plan without one; SQLite builds an automatic index
    instead, EXPLAIN says so).
    """

    sql: str  # as shown: the values written in
    statement: str  # as run: with the connection's placeholders
    params: tuple
    answer: Answer  # empty when stopped
    minutes: dict[tuple[str, ...], int]  # each path's minutes summed (paths queries)
    rows: list[tuple]  # the answer query's rows, sorted
    rows_per_round: list[int]
    lookups_per_round: list[int]
    rows_read_per_round: list[int]
    walk_rows: int  # rows the walk produced (work_limit + 1 when stopped)
    stopped: bool
    plan: list[str]
    engine: str
    index: bool
    path_check: bool


def _is_sqlite(connection) -> bool:
    return isinstance(connection, sqlite3.Connection)


def _engine(connection) -> str:
    """The database and its version, asked of the connection: `SQLite 3.40.1`."""
    cursor = connection.cursor()
    if _is_sqlite(connection):
        cursor.execute("SELECT sqlite_version()")
        return f"SQLite {cursor.fetchone()[0]}"
    cursor.execute("SELECT version()")
    return " ".join(str(cursor.fetchone()[0]).split()[:2])


def _plan(connection, statement: str, params: tuple) -> list[str]:
    """EXPLAIN QUERY PLAN (SQLite, as an indented tree) or EXPLAIN (PostgreSQL)."""
    cursor = connection.cursor()
    if not _is_sqlite(connection):
        cursor.execute("EXPLAIN " + statement, params)
        return [str(row[0]) for row in cursor.fetchall()]
    cursor.execute("EXPLAIN QUERY PLAN " + statement, params)
    depth: dict[int, int] = {0: -1}
    lines = []
    for node, parent, _unused, detail in cursor.fetchall():
        depth[node] = depth.get(parent, -1) + 1
        lines.append("  " * depth[node] + detail)
    return lines


def _nodes(path: str, reverse: bool) -> tuple[str, ...]:
    """`,LAX>DEN,DEN>JFK,` as the nodes walked: (LAX, DEN, JFK)."""
    edges = [step.split(">") for step in path.strip(",").split(",")]
    if reverse:
        return (edges[0][1], *(origin for origin, _ in edges))
    return (edges[0][0], *(destination for _, destination in edges))


def _count_walk(
    connection, query: Query, graph: Graph, path_check: bool, work_limit: int
) -> tuple[Counter, Counter]:
    """Run the walk once, counting the rows it produces, until it ends or has produced
    more than work_limit rows: its rows per number of stops, and how many of them
    stand at the end (for shortest's pruning)."""
    if _is_sqlite(connection):
        return _count_sqlite(connection, query, graph, path_check, work_limit)
    return _count_limited(connection, query, graph, path_check, work_limit)


def _count_limited(connection, query, graph, path_check, work_limit):
    """Count with a LIMIT: PostgreSQL hands each row on as the recursion produces
    it, so the LIMIT stops a walk that would never end."""
    walk = _walk(query, graph, path_check, lean=not path_check)
    node = _Shape.of(query, graph).node
    _, end = _names(query, graph)
    text = _Text()
    text.lines, text.params = list(walk.lines), list(walk.params)
    if query.shortest and end is not None:
        arrived = f"SUM(CASE WHEN {node} = ? THEN 1 ELSE 0 END)"
        text.add(f"SELECT stops, COUNT(*), {arrived}", end)
    else:
        text.add("SELECT stops, COUNT(*), 0")
    text.add(
        f"FROM (SELECT stops, {node} FROM walk LIMIT ?) AS counted", work_limit + 1
    )
    text.add("GROUP BY stops;")
    sql = "\n".join(text.lines)
    if not _is_sqlite(connection):
        sql = to_pyformat(sql)
    cursor = connection.cursor()
    cursor.execute(sql, tuple(text.params))
    per_round: Counter = Counter()
    at_end: Counter = Counter()
    for stops, rows, arrived in cursor.fetchall():
        per_round[int(stops)] = int(rows)
        at_end[int(stops)] = int(arrived)
    return per_round, at_end


class _Enough(Exception):
    """Raised inside SQLite by `tally` to end a walk past the work limit."""


def _count_sqlite(connection, query, graph, path_check, work_limit):
    """Count with a function called on every row the recursion produces.

    SQLite hands a row on only when it takes it from its queue, and by then it has
    queued that row's successors: a LIMIT on what comes out would let a walk branching
    twentyfold produce twenty times the limit. `tally` counts what goes in.
    """
    _, end = _names(query, graph)
    per_round: Counter = Counter()
    at_end: Counter = Counter()
    produced = 0

    def tally(stops: int, node: str) -> int:
        nonlocal produced
        produced += 1
        per_round[stops] += 1
        if node == end:
            at_end[stops] += 1
        if produced > work_limit:
            raise _Enough
        return 1

    walk = _walk(query, graph, path_check, lean=not path_check, tally=True)
    sql = "\n".join([*walk.lines, "SELECT SUM(tally) FROM walk;"])
    connection.create_function("tally", 2, tally)
    try:
        connection.execute(sql, tuple(walk.params)).fetchall()
    except sqlite3.OperationalError:
        if produced <= work_limit:
            raise
    finally:
        connection.create_function("tally", 2, None)
    return per_round, at_end


def _rounds(
    query: Query, graph: Graph, per_round: Counter, at_end: Counter, stopped: bool
) -> tuple[list[int], list[int], list[int]]:
    """Rows, index lookups and rows read without an index, for each round run."""
    top = query.max_total

    def joined(k: int) -> int:  # rows of round k the recursion joins again
        if top is not None and k >= top:
            return 0
        pruned = at_end[k] if query.shortest and k >= query.min_total else 0
        return per_round[k] - pruned

    rows, lookups, read = [per_round[1]], [1], [len(graph.edges)]
    k = 1
    while joined(k) > 0 and (not stopped or per_round[k + 1] > 0):
        k += 1
        rows.append(per_round[k])
        lookups.append(joined(k - 1))
        read.append(len(graph.edges) + per_round[k - 1])
    return rows, lookups, read


# where `run` goes without a connection of its own: None for this module's SQLite,
# or a function (graph, index) → a context manager of a connection whose `routes`
# table holds the graph (the playground's PostgreSQL: playground/graph_sql.py)
def run(
    query: Query,
    graph: Graph,
    *,
    index: bool = True,
    path_check: bool = True,
    work_limit: int = WORK_LIMIT,
    connection=None,
    key=None,
    database=None,
) -> SqlRun:
    """Generate the query's SQL, run it, and count its rounds.

    Without `connection` or `database`, on this module's own in-memory SQLite copy
    of the graph (with or without its indexes: `index`); with a `connection`, on its
    `routes` table (`index` is then the caller's business); with a `database`, a
    function `database(graph, index)` that gives a context manager of such a
    connection holding the graph (the playground's PostgreSQL:
    playground/graph_sql.py). The walk is run once, counted by rounds, and stopped
    past `work_limit` rows; then, unless stopped, the shown query for its rows.
    """
    if connection is not None:
        return _run(query, graph, connection, index, path_check, work_limit)
    if database is not None:
        with database(graph, index) as connection:
            return _run(query, graph, connection, index, path_check, work_limit)
    connection, lock = _loaded(graph, index, key)
    with lock:
        return _run(query, graph, connection, index, path_check, work_limit)


def _run(query, graph, connection, index, path_check, work_limit) -> SqlRun:
    if _is_sqlite(connection):
        connection.execute("PRAGMA case_sensitive_like = ON")
    _check_names(graph)
    sql, params = generate(query, graph, path_check=path_check)
    statement = sql if _is_sqlite(connection) else to_pyformat(sql)
    per_round, at_end = _count_walk(connection, query, graph, path_check, work_limit)
    walked = sum(per_round.values())
    stopped = walked > work_limit
    rows_per_round, lookups, read = _rounds(query, graph, per_round, at_end, stopped)
    answer, minutes, rows = Answer([], {}), {}, []
    if not stopped:
        cursor = connection.cursor()
        cursor.execute(statement, params)
        rows = sorted(tuple(row) for row in cursor.fetchall())
        answer, minutes = _answer(query, graph, rows)
    return SqlRun(
        sql=inline(sql, params),
        statement=statement,
        params=params,
        answer=answer,
        minutes=minutes,
        rows=rows,
        rows_per_round=rows_per_round,
        lookups_per_round=lookups,
        rows_read_per_round=read,
        walk_rows=walked,
        stopped=stopped,
        plan=_plan(connection, statement, params),
        engine=_engine(connection),
        index=index,
        path_check=path_check,
    )


def _answer(
    query: Query, graph: Graph, rows: list[tuple]
) -> tuple[Answer, dict[tuple[str, ...], int]]:
    """The Answer from the answer query's rows (sorted here, not by the database).

    A path of no edges (`*0..`) is the start alone; the walk starts at one edge, so it
    is added here. shortestPath's tie rule: among the paths with the fewest edges, the
    smallest sequence of node names (what a breadth-first search visiting neighbours
    in name order finds first).
    """
    if query.distinct_ends:
        ends = {str(node): int(stops) for node, stops in rows}
        return Answer([], dict(sorted(ends.items()))), {}
    start, end = _names(query, graph)
    minutes: dict[tuple[str, ...], int] = {}
    for row in rows:
        path = _nodes(row[0], query.reverse)
        minutes[path] = int(row[2]) if len(row) > 2 else 0
    avoided = {a.value for a in query.avoid}
    if query.min_total == 0 and start not in avoided and end in (None, start):
        minutes[(start,)] = 0
    paths = list(minutes)
    if query.shortest and paths:
        fewest = min(len(p) for p in paths)
        chosen = min(p for p in paths if len(p) == fewest)
        minutes = {chosen: minutes[chosen]}
        paths = [chosen]
    return Answer.of_paths(paths), minutes
