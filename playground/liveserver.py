"""A live daphne in a subprocess and headless Chromium's settings.

Shared by the browser tests and the browser benchmark: both need the real server (the
websocket included) on a free loopback port, with its own SQLite file.
"""

import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
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


def chromium_path() -> str | None:
    """Debian's Chromium if present, else None (Playwright then uses its own)."""
    for path in CHROMIUM_PATHS:
        if shutil.which(path):
            return path
    return None


def free_port() -> int:
    """A TCP port nobody listens on right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextmanager
def live_daphne(var_dir: Path) -> Iterator[str]:
    """Migrate a fresh SQLite in `var_dir`, serve under daphne, yield the base URL."""
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
    with open(Path(var_dir) / "daphne.log", "wb") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port)]
            + ["playground.asgi:application"],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    try:
        _wait_for_port(port, process)
        yield f"http://127.0.0.1:{port}"
    finally:
        stop_process(process)


def stop_process(process: subprocess.Popen, seconds: float = 10) -> None:
    """Terminate a server process; kill it if it has not exited after `seconds`."""
    process.terminate()
    try:
        process.wait(timeout=seconds)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def _wait_for_port(port: int, process: subprocess.Popen, seconds: float = 30) -> None:
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
