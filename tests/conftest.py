"""Shared test setup."""

import shutil
import tempfile

import pytest


@pytest.hookimpl(trylast=True)
def pytest_configure(config):
    """Compile the catalogues and collect the static files once, before any test
    module is imported: servestatic serves them from STATIC_ROOT (the test client's
    requests), and importing playground.asgi refuses to start on files that are not
    collected."""
    from django.conf import settings
    from django.core.management import call_command

    from playground.catalogues import compile_stale

    compile_stale()  # the Chinese and Thai catalogues, as `make install` compiles them
    config.playground_static_root = tempfile.mkdtemp(prefix="playground-static-")
    settings.STATIC_ROOT = config.playground_static_root
    call_command("collectstatic", interactive=False, verbosity=0)


def pytest_unconfigure(config):
    root = getattr(config, "playground_static_root", None)
    if root:
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(scope="session")
def django_db_modify_db_settings(
    django_db_modify_db_settings_parallel_suffix, tmp_path_factory
):
    """Test SQLite in a file, not Django's shared-cache memory database.

    Rooms write from worker threads. In shared-cache memory, two threads that write
    at once fail at once ("database table is locked": SQLite's busy timeout does not
    cover shared-cache table locks), where the real file database waits its turn. A
    file per session, under pytest's temporary directory, also keeps sessions that
    run side by side apart.
    """
    from django.conf import settings

    database = settings.DATABASES["default"]
    if database["ENGINE"] == "django.db.backends.sqlite3":
        path = tmp_path_factory.mktemp("db") / "test.sqlite3"
        database.setdefault("TEST", {})["NAME"] = str(path)
