"""A live daphne and a headless Chromium for the browser tests.

daphne runs as a subprocess on a free loopback port with its own SQLite file; Chromium
is Debian's (or Playwright's own where that is what `make test` installed). Playwright's
sync API keeps an event loop running, so browser tests live in their own modules and
never mix with async tests.
"""

import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM_PATHS = ("/usr/bin/chromium", "/usr/bin/chromium-browser")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def free_port() -> int:
    """A TCP port nobody listens on right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_for_port(port: int, process: subprocess.Popen, seconds: float = 30) -> None:
    """Block until something accepts connections on the port."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"daphne exited with {process.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"daphne did not listen on {port} within {seconds} s")


@pytest.fixture(scope="session")
def live_server_url(tmp_path_factory):
    """The base URL of a daphne serving the playground, for the whole session."""
    var_dir = tmp_path_factory.mktemp("var")
    env = {**os.environ, "PLAYGROUND_VAR_DIR": str(var_dir), "DEBUG": "true"}
    env.pop("DATABASE_URL", None)
    env.pop("REDIS_URL", None)
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput"],
        cwd=ROOT,
        env=env,
        check=True,
        capture_output=True,
    )
    port = free_port()
    log_path = var_dir / "daphne.log"
    with open(log_path, "wb") as log:
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "daphne",
                "-b",
                "127.0.0.1",
                "-p",
                str(port),
                "playground.asgi:application",
            ],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    try:
        wait_for_port(port, process)
        yield f"http://127.0.0.1:{port}"
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def chromium_path() -> str | None:
    """Debian's Chromium if present, else None (Playwright then uses its own)."""
    for path in CHROMIUM_PATHS:
        if shutil.which(path):
            return path
    return None


@pytest.fixture(scope="module")
def browser():
    """One headless Chromium per test module."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        path = chromium_path()
        try:
            launched = playwright.chromium.launch(
                executable_path=path, headless=True, args=CHROMIUM_ARGS
            )
        except Exception as error:
            if os.environ.get("CI") == "true":
                raise
            pytest.skip(f"no headless Chromium could be started here: {error}")
        yield launched
        launched.close()


@pytest.fixture
def page(browser):
    """A fresh page that records console errors and page errors."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    new_page = context.new_page()
    new_page.console_errors = []
    new_page.on(
        "console",
        lambda m: new_page.console_errors.append(m.text) if m.type == "error" else None,
    )
    new_page.on("pageerror", lambda e: new_page.console_errors.append(str(e)))
    yield new_page
    context.close()
