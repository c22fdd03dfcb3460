"""graph-traversal's recursive SQL on PostgreSQL, when DATABASE_URL names one.

The lab runs its generated SQL on an in-memory SQLite by default. When the
playground's own database is PostgreSQL (several processes: docs/architecture.md),
the playground makes the lab with `sql_database=postgres_routes` (`lab_arguments`,
used by playground/history.py for every lab it makes): a connection of its own to
that database, in which each
graph lives in a TEMP `routes` table (its session's alone: nothing is written to
the playground's tables), loaded again only when the graph or its index changes.
The answers are the same on both (tests/multiprocess/test_graph_traversal_postgres.py);
only the engine named beside the SQL differs.
"""

import threading
from contextlib import contextmanager

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

_lock = threading.Lock()
_state: dict = {"connection": None, "loaded": None}


def _connect():
    import psycopg

    db = settings.DATABASES["default"]
    return psycopg.connect(
        dbname=db["NAME"],
        user=db.get("USER") or None,
        password=db.get("PASSWORD") or None,
        host=db.get("HOST") or None,
        port=db.get("PORT") or None,
        autocommit=True,
    )


def _load(connection, graph, index: bool) -> None:
    connection.execute("DROP TABLE IF EXISTS routes")
    connection.execute(
        "CREATE TEMP TABLE routes (origin TEXT, destination TEXT, minutes INTEGER)"
    )
    load = "COPY routes (origin, destination, minutes) FROM STDIN"
    with connection.cursor() as cursor, cursor.copy(load) as copy:
        for row in graph.named():
            copy.write_row(row)
    if index:
        connection.execute("CREATE INDEX routes_origin ON routes (origin)")
        connection.execute("CREATE INDEX routes_destination ON routes (destination)")
    connection.execute("ANALYZE routes")


@contextmanager
def postgres_routes(graph, index: bool):
    """A PostgreSQL connection whose TEMP `routes` table holds `graph`."""
    with _lock:
        connection = _state["connection"]
        if connection is None or connection.closed:
            connection = _state["connection"] = _connect()
            _state["loaded"] = None
        wanted = (graph.recipe or id(graph), len(graph.edges), index)
        if _state["loaded"] != wanted:
            _load(connection, graph, index)
            _state["loaded"] = wanted
        yield connection


def lab_arguments(lab_class) -> dict:
    """What the playground gives a lab besides its options (`Lab.hosted`): the
    database graph-traversal's SQL runs on, this PostgreSQL when the playground's
    database is one (none otherwise: the lab's own in-memory SQLite)."""
    if "sql_database" not in lab_class.hosted:
        return {}
    try:
        engine = settings.DATABASES["default"]["ENGINE"]
    except ImproperlyConfigured:  # a process without the playground's settings
        return {}
    if engine == "django.db.backends.postgresql":
        return {"sql_database": postgres_routes}
    return {}
