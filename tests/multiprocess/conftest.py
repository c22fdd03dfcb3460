"""Two daphne processes serving the same rooms: PostgreSQL for the log, Redis between.

The session gets its own PostgreSQL database (created on the machine's server at
127.0.0.1:5432 as a copy of a migrated template, dropped at the end) and a Redis
database number of its own, so these tests never touch a developer's data. Nothing
here is mocked: if PostgreSQL or Redis cannot be reached the tests are skipped, saying
why, except under CI (CI=true), where that is a failure.
"""

import os
from contextlib import ExitStack

import pytest

from playground.liveserver import (
    POSTGRES_ADMIN_URL,
    migrate,
    reachable,
    server_env,
    start_daphne,
    throwaway_postgres,
)

# Redis databases 0-15 exist by default; this one is for these tests only.
REDIS_URL = os.environ.get("PLAYGROUND_TEST_REDIS_URL", "redis://127.0.0.1:6379/11")


def pytest_collection_modifyitems(items):
    for item in items:
        if "tests/multiprocess/" in str(item.fspath):
            item.add_marker(pytest.mark.multiprocess)


def _unavailable(reason: str) -> None:
    if os.environ.get("CI") == "true":
        pytest.fail(f"{reason} (CI=true: the multi-process tests must run)")
    pytest.skip(reason)


@pytest.fixture(scope="session")
def services():
    """Check Redis answers before anything starts (PostgreSQL: see database_url)."""
    if not reachable("127.0.0.1", 6379):
        _unavailable("no Redis on 127.0.0.1:6379 (run .ci/ensure-redis)")


@pytest.fixture(scope="session")
def database_url(services):
    """A throwaway PostgreSQL database for this session (dropped at the end)."""
    import psycopg

    with ExitStack() as stack:
        try:
            url = stack.enter_context(
                throwaway_postgres(POSTGRES_ADMIN_URL, migrated=True)
            )
        except psycopg.Error as error:
            _unavailable(
                f"no PostgreSQL for the multi-process tests at {POSTGRES_ADMIN_URL} "
                f"(trust authentication, a database to connect to): {error}"
            )
        yield url


@pytest.fixture(scope="session")
def cluster_env(database_url, tmp_path_factory):
    """The environment every server process of the session shares."""
    var_dir = tmp_path_factory.mktemp("multiprocess")
    env = server_env(var_dir, DATABASE_URL=database_url, REDIS_URL=REDIS_URL)
    migrate(env)
    return var_dir, env


@pytest.fixture
def pair(cluster_env):
    """Two daphne processes on the same database and Redis; both stopped after."""
    var_dir, env = cluster_env
    servers = []
    try:
        for name in ("a", "b"):
            servers.append(start_daphne(var_dir, env, name=name))
        yield servers
    finally:
        for server in servers:
            server.kill()


@pytest.fixture
def lease_holder():
    """The pid of the process holding a room's clock lease in Redis, or None."""
    import redis

    def holder(room_id: str) -> int | None:
        client = redis.Redis.from_url(REDIS_URL)
        try:
            value = client.get(f"playground:clock:{room_id}")
        finally:
            client.close()
        return int(value.decode().split("-")[0]) if value else None

    return holder


@pytest.fixture
def log_rows(database_url):
    """Read a room's stored log straight from PostgreSQL: [(seq, name, args)]."""
    import psycopg

    def read(room_id: str) -> list[tuple]:
        with psycopg.connect(database_url) as connection:
            return connection.execute(
                "SELECT seq, name, args FROM playground_logrecord "
                "WHERE room_id = %s ORDER BY seq",
                (room_id,),
            ).fetchall()

    return read
