"""The attack suite: cheap hostile requests against a live daphne, and their bounds.

Every test here plays an attacker on the loopback interface only, bounded in time and
in the number of sockets it opens, and asserts what the server promises while it runs:
a bystander still gets `hello` and an answer to an action within a second, memory stays
within its bound, limits hold, and no input gets a 500 or a socket closed with 1011.
Each server here is its own daphne on its own SQLite file, so an attack never leaves
anything behind for another test.

`PLAYGROUND_ATTACK_ROOT=<another checkout>` serves that checkout's code to the same
attacks: how each attack was shown to succeed against the code before its fix.
"""

import os
from pathlib import Path

import pytest

from playground.liveserver import (
    ROOT,
    Daphne,
    migrate,
    round_trip,
    server_env,
    start_daphne,
)


def pytest_collection_modifyitems(items):
    for item in items:
        if "tests/attacks/" in str(item.fspath):
            item.add_marker(pytest.mark.attack)


def start(var_dir: Path, args: tuple[str, ...] = (), **env: str | None) -> Daphne:
    """A migrated daphne on its own SQLite file in `var_dir` (extra `env` on top, and
    more of daphne's options in `args`)."""
    environment = server_env(var_dir, **env)
    root = Path(os.environ.get("PLAYGROUND_ATTACK_ROOT", ROOT))
    migrate(environment, root=root)
    return start_daphne(var_dir, environment, root=root, args=args)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """One daphne for a test module's attacks (stopped after; its files are kept)."""
    daphne = start(tmp_path_factory.mktemp("attack"))
    yield daphne
    daphne.stop()


@pytest.fixture
def serve(tmp_path_factory):
    """`serve(**env)`: a daphne of this test's own, with settings in `env` (and
    `args=(...)`: more of daphne's options)."""
    started = []

    def make(args: tuple[str, ...] = (), **env: str | None) -> Daphne:
        daphne = start(tmp_path_factory.mktemp("attack"), args, **env)
        started.append(daphne)
        return daphne

    yield make
    for daphne in started:
        daphne.stop()


@pytest.fixture
def bystander():
    """`await bystander(server)`: seconds a newcomer waits for hello, then a frame."""
    return round_trip
