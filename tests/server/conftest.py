"""Server tests use the database: rooms and their logs are stored."""

import pytest


def pytest_collection_modifyitems(items):
    for item in items:
        if "tests/server/" in str(item.fspath) and not item.get_closest_marker(
            "django_db"
        ):
            # transaction=True: rooms write from worker threads, outside the test's
            # transaction, so each test starts from an empty, really committed database
            item.add_marker(pytest.mark.django_db(transaction=True))


@pytest.fixture(autouse=True)
def fresh_rate_limits():
    """Every test starts with nothing counted against its (one, made-up) address."""
    from playground.ratelimits import rate_limits

    rate_limits.reset()
    yield
    rate_limits.reset()
