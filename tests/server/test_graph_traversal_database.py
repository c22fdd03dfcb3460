"""graph-traversal's SQL runs on the playground's PostgreSQL when it has one: the
playground gives the lab its database as an argument (`Lab.hosted`), for every lab it
makes, instead of flipping a switch in the lab's module."""

import pytest

from playground import graph_sql
from playground.history import History, new_lab
from simulators.labs import LABS

POSTGRES = {
    "ENGINE": "django.db.backends.postgresql",
    "NAME": "playground",
    "HOST": "127.0.0.1",
}


def test_on_sqlite_every_lab_is_made_without_a_database(settings):
    settings.DATABASES = {
        "default": {"ENGINE": "django.db.backends.sqlite3", "NAME": ":memory:"}
    }
    for lab_class in LABS.values():
        assert graph_sql.lab_arguments(lab_class) == {}
    assert new_lab(LABS["graph-traversal"], 2).sql_database is None


def test_on_postgres_graph_traversal_is_made_with_it_and_no_other_lab(settings):
    settings.DATABASES = {"default": POSTGRES}
    for slug, lab_class in LABS.items():
        given = graph_sql.lab_arguments(lab_class)
        if slug == "graph-traversal":
            assert given == {"sql_database": graph_sql.postgres_routes}
        else:
            assert given == {}, slug
    # every lab a history makes: the first, and the fresh one a replay starts from
    history = History(LABS["graph-traversal"], 5)  # nothing asked: no connection
    assert history.lab.sql_database is graph_sql.postgres_routes
    assert history.replay().sql_database is graph_sql.postgres_routes


@pytest.mark.parametrize("slug", ["graph-traversal", "quorum"])
def test_a_lab_refuses_an_argument_it_does_not_host(slug):
    if slug == "graph-traversal":
        assert LABS[slug](seed=1, sql_database=None).sql_database is None
    else:
        with pytest.raises(Exception, match="sql_database"):
            LABS[slug](seed=1, sql_database=None)
