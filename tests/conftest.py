"""Shared test setup."""

import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

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


# On the other supported Pythons (.ci/other-pythons sets this to 0.2), each property
# test draws that share of its examples (at least MIN_EXAMPLES): what a property run
# there looks for is whether the code works on that interpreter, which any example
# shows, while the search of the inputs (which an interpreter does not change) is
# done in full on the default one. Every test still runs on every Python.
EXAMPLES_SHARE = float(os.environ.get("PLAYGROUND_EXAMPLES_SHARE", "1"))
MIN_EXAMPLES = 10


def pytest_collection_modifyitems(config, items):
    if EXAMPLES_SHARE >= 1:
        return
    from hypothesis import settings

    for item in items:
        test = getattr(item, "obj", None)
        given = getattr(test, "_hypothesis_internal_use_settings", None)
        if given is None or getattr(test, "_playground_examples_shared", False):
            continue  # not a property test, or one already scaled (parametrized)
        fewer = max(MIN_EXAMPLES, round(given.max_examples * EXAMPLES_SHARE))
        if fewer < given.max_examples:
            test._hypothesis_internal_use_settings = settings(given, max_examples=fewer)
        test._playground_examples_shared = True


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


REFERENCE_PYTHON = os.environ.get("PLAYGROUND_REFERENCE_PYTHON") or sys.executable


class AnotherProcess:
    """tests/fork_server.py: scripts run as `python -c` would, in another process with
    another hash seed (a fresh fork for each), without an interpreter started for each.

    `run(script, *argv, input=None)` waits for the answer; `submit` returns at once
    with a function to call for it, so the test can do its own part meanwhile."""

    def __init__(self) -> None:
        ours = os.environ.get("PYTHONHASHSEED", "random")
        # a seed other than ours: if ours is random, any fixed one is another
        self.hash_seed = str(int(ours) + 1) if ours.isdigit() else "1"
        self.process = subprocess.Popen(
            # .venv's interpreter under make test's other Pythons (.ci/other-pythons)
            [REFERENCE_PYTHON, str(Path(__file__).with_name("fork_server.py"))],
            cwd=Path(__file__).resolve().parents[1],
            env={**os.environ, "PYTHONHASHSEED": self.hash_seed},
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
        )
        self.sent = 0
        self.answers: dict[int, dict] = {}
        self.pending = b""

    def submit(self, script: str, *argv: str, input: str | None = None):
        self.sent += 1
        number = self.sent
        request = {"id": number, "script": script, "argv": list(argv), "input": input}
        self.process.stdin.write(json.dumps(request).encode() + b"\n")
        self.process.stdin.flush()
        return lambda: self._answer(number)

    def run(self, script: str, *argv: str, input: str | None = None):
        return self.submit(script, *argv, input=input)()

    def _answer(self, number: int, seconds: float = 120) -> subprocess.CompletedProcess:
        deadline = time.monotonic() + seconds
        while number not in self.answers:
            if b"\n" not in self.pending:
                left = deadline - time.monotonic()
                ready, _, _ = select.select([self.process.stdout], [], [], max(left, 0))
                if not ready:
                    raise TimeoutError(f"no answer from the fork server in {seconds} s")
                chunk = os.read(self.process.stdout.fileno(), 1 << 16)
                if not chunk:
                    raise RuntimeError(
                        f"the fork server exited ({self.process.wait()})"
                    )
                self.pending += chunk
                continue
            line, self.pending = self.pending.split(b"\n", 1)
            reply = json.loads(line)
            self.answers[reply.pop("id")] = reply
        reply = self.answers.pop(number)
        return subprocess.CompletedProcess(
            ["fork_server"], reply["returncode"], reply["stdout"], reply["stderr"]
        )

    def close(self) -> None:
        self.process.stdin.close()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


@pytest.fixture(scope="session")
def another_process():
    """One process for the session's cross-process checks (see AnotherProcess)."""
    process = AnotherProcess()
    yield process
    process.close()
