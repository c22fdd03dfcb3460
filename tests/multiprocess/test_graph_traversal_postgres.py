"""graph-traversal's generated SQL on PostgreSQL: the same text, the same answers.

The routes go into a TEMP table of a throwaway database (the `database_url` fixture:
skipped when there is no PostgreSQL, a failure under CI=true); each question's SQL,
generated once for both, must answer on PostgreSQL what it answers on SQLite, round
by round. Only the database is needed, no daphne server.
"""

import random

import pytest

from simulators.labs.graph_traversal import sql
from simulators.labs.graph_traversal.graphs import (
    Graph,
    course_routes,
    course_services,
)
from simulators.labs.graph_traversal.query import (
    Avoid,
    EdgeCondition,
    Hop,
    NodePattern,
    Query,
)


def ask(start, least=1, most=1, end=None, *, prop="code", path_var="p", **how):
    """A Query as the parser makes one (one relationship)."""
    first = NodePattern("a", None, prop, start, 1)
    last = NodePattern("b", None, prop if end else None, end, 20)
    return Query(
        text="(generated in a test)",
        path_var=path_var,
        shortest=how.get("shortest", False),
        reverse=how.get("reverse", False),
        nodes=(first, last),
        hops=(Hop("r", None, least, most, 5),),
        avoid=tuple(Avoid(prop, n, 1) for n in how.get("avoid", ())),
        conditions=tuple(
            EdgeCondition("minutes", op, v, 1) for op, v in how.get("conditions", ())
        ),
    )


@pytest.fixture(scope="module")
def postgres(database_url):
    import psycopg

    with psycopg.connect(database_url, autocommit=True) as connection:
        yield connection


def fill(connection, graph: Graph) -> None:
    """The graph as a TEMP `routes` table with the same two indexes as SQLite's."""
    connection.execute("DROP TABLE IF EXISTS routes")
    connection.execute(
        "CREATE TEMP TABLE routes (origin TEXT, destination TEXT, minutes INTEGER)"
    )
    with connection.cursor() as cursor:
        cursor.executemany("INSERT INTO routes VALUES (%s, %s, %s)", graph.named())
    connection.execute("CREATE INDEX routes_origin ON routes (origin)")
    connection.execute("CREATE INDEX routes_destination ON routes (destination)")
    connection.execute("ANALYZE routes")


def same_on_both(connection, graph: Graph, query: Query, **how) -> sql.SqlRun:
    on_postgres = sql.run(query, graph, connection=connection, **how)
    on_sqlite = sql.run(query, graph, **how)
    assert on_postgres.engine.startswith("PostgreSQL")
    assert on_postgres.sql == on_sqlite.sql
    assert on_postgres.stopped == on_sqlite.stopped
    assert on_postgres.answer == on_sqlite.answer, on_sqlite.sql
    assert on_postgres.minutes == on_sqlite.minutes
    if not on_sqlite.stopped:
        assert on_postgres.rows_per_round == on_sqlite.rows_per_round
        assert on_postgres.lookups_per_round == on_sqlite.lookups_per_round
    return on_postgres


def test_the_course_questions_on_postgres(postgres):
    routes = course_routes()
    fill(postgres, routes)
    questions = [
        ask("LAX", 1, 1, "JFK"),
        ask("LAX", 2, 2, "JFK"),
        ask("LAX", 1, 3, path_var=None),
        ask("LAX", 1, None, "SEA", path_var=None, shortest=True),
        ask("LAX", 1, 3, "JFK", avoid=["ORD"]),
        ask("LAX", 1, 3, "JFK", conditions=[("<", 200)]),
        ask("LAX", 1, None),
        ask("JFK", 1, 3, path_var=None, reverse=True, avoid=["DEN", "SFO"]),
    ]
    for query in questions:
        same_on_both(postgres, routes, query)
    within = same_on_both(postgres, routes, ask("LAX", 1, 3, path_var=None))
    assert within.answer.ends["SEA"] == 2
    assert any("Recursive Union" in line for line in within.plan)
    runaway = same_on_both(postgres, routes, ask("LAX", 1, None), path_check=False)
    assert runaway.stopped and runaway.walk_rows == sql.WORK_LIMIT + 1

    services = course_services()
    fill(postgres, services)
    auth = ask("auth", 1, None, prop="name", path_var=None, reverse=True)
    assert same_on_both(postgres, services, auth).answer.ends == {
        "booking-api": 1,
        "web": 2,
    }


def test_random_graphs_on_postgres(postgres):
    rng = random.Random(20250101)
    for _ in range(6):
        names = "ABCDEF"[: rng.randint(3, 6)]
        pairs = {(rng.choice(names), rng.choice(names)) for _ in range(10)}
        graph = Graph.from_names(
            "airport", [(a, b, rng.randint(60, 300)) for a, b in sorted(pairs)]
        )
        fill(postgres, graph)
        for _ in range(8):
            start, end = rng.choice(graph.names), rng.choice(graph.names)
            how = {
                "reverse": rng.random() < 0.5,
                "avoid": rng.sample(graph.names, rng.randint(0, 1)),
                "conditions": [("<", rng.randint(100, 300))]
                if rng.random() < 0.4
                else [],
            }
            most = rng.choice([1, 2, 3, 4, None])
            kind = rng.choice(["ends", "paths", "shortest"])
            if kind == "ends":
                query = ask(start, 1, most, path_var=None, **how)
            elif kind == "shortest":
                query = ask(start, 1, most, end, path_var=None, shortest=True, **how)
            else:
                query = ask(
                    start, rng.randint(0, 2), most, rng.choice([end, None]), **how
                )
            same_on_both(postgres, graph, query)


SCRIPT = [
    ("course_query", {"question": "one_stop"}),
    ("course_query", {"question": "within_three"}),
    ("course_query", {"question": "fewest_to_sea"}),
    ("close_airport", {"code": "DEN"}),
    ("set_index", {"on": False}),
    ("drop_path_check", {}),
    ("set_grown", {"on": True}),
    ("course_query", {"question": "auth_stops"}),
]


def play(lab) -> list[list[dict]]:
    return [lab.apply(name, args) for name, args in SCRIPT]


def test_the_lab_runs_its_sql_on_the_playgrounds_postgres(database_url, settings):
    """With DATABASE_URL naming PostgreSQL the lab's SQL runs there: the same state
    (digest) as on SQLite; only the engine its events name differs."""
    import dj_database_url

    from playground import graph_sql
    from simulators.labs.graph_traversal import GraphTraversalLab

    settings.DATABASES = {"default": dj_database_url.parse(database_url)}
    given = graph_sql.lab_arguments(GraphTraversalLab)
    assert given == {"sql_database": graph_sql.postgres_routes}
    on_postgres = GraphTraversalLab(seed=3, **given)
    postgres_events = play(on_postgres)
    on_sqlite = GraphTraversalLab(seed=3)
    sqlite_events = play(on_sqlite)
    assert on_postgres.digest() == on_sqlite.digest()
    engines = {
        event["engine"].split()[0]
        for events in postgres_events
        for event in events
        if event["type"] == "question"
    }
    assert engines == {"PostgreSQL"}
    assert {
        event["engine"].split()[0]
        for events in sqlite_events
        for event in events
        if event["type"] == "question"
    } == {"SQLite"}
