"""Server processes for the fan-out benchmark, and what they cost.

Each case gets fresh processes: one daphne on a temporary SQLite (in-memory layer), two
daphnes sharing a throwaway PostgreSQL database and a Redis layer, or the plain
`websockets` floor (`benchmarks.fanout_floor`). CPU seconds and resident memory are read
from /proc, so only the server processes count, never the clients.
"""

import os
import secrets
import signal
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from playground.liveserver import DAPHNE_LIMITS, free_port, migrate, wait_for_port
from playground.liveserver import server_env as live_env

ROOT = Path(__file__).resolve().parents[1]
TICKS = os.sysconf("SC_CLK_TCK")
PAGE = os.sysconf("SC_PAGE_SIZE")
POSTGRES = os.environ.get("FANOUT_POSTGRES", "host=127.0.0.1 port=5432 user=postgres")
REDIS_DB = int(os.environ.get("FANOUT_REDIS_DB", "11"))  # this benchmark's own db
REDIS_URL = f"redis://127.0.0.1:6379/{REDIS_DB}"


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds a process has used so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS  # utime, stime


def rss_bytes(pid: int) -> int:
    """A process's resident memory now."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    return 0


def load_average() -> str:
    """The 1, 5 and 15 minute load averages."""
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def redis_pid() -> int | None:
    """The Redis server's pid, to count its CPU in the Redis case (None if unknown)."""
    try:
        import redis

        info = redis.Redis(host="127.0.0.1", port=6379).info("server")
        pid = int(info["process_id"])
        cpu_seconds(pid)
        return pid
    except Exception:
        return None


@dataclass
class Server:
    """One server process on a loopback port."""

    name: str
    port: int
    process: subprocess.Popen
    log: Path

    @property
    def pid(self) -> int:
        return self.process.pid

    @property
    def ws(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    def cpu(self) -> float:
        return cpu_seconds(self.pid)

    def rss(self) -> int:
        return rss_bytes(self.pid)

    def stop(self, seconds: float = 10) -> None:
        """Terminate; kill if still running after `seconds`."""
        if self.process.poll() is not None:
            return
        self.process.terminate()
        try:
            self.process.wait(timeout=seconds)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()

    def snapshot(self) -> None:
        """Ask a daphne under tracemalloc (`--memory`) for a heap snapshot."""
        if os.environ.get("FANOUT_MEMORY_DIR"):
            self.process.send_signal(signal.SIGUSR1)
            time.sleep(3)

    def kill(self) -> None:
        """kill -9, as a crash would."""
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()


def server_env(var_dir: Path, database_url: str = "", redis_url: str = "") -> dict:
    """The environment of a production-like server: DEBUG off, our own var dir."""
    return live_env(
        var_dir,
        DATABASE_URL=database_url or None,
        REDIS_URL=redis_url or None,
    )


def start_daphne(
    name: str, env: dict, var_dir: Path, port: int | None = None, wait: bool = True
) -> Server:
    """daphne serving the playground on a loopback port (a free one by default)."""
    port = port or free_port()
    log = Path(var_dir) / f"{name}.log"
    command = [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port)]
    for mode in (
        "cpu",
        "memory",
        "gc",
    ):  # the same daphne under benchmarks.fanout_profile
        folder = os.environ.get(f"FANOUT_{mode.upper()}_DIR")
        if folder:
            out = Path(folder) / f"{name}-{port}"
            command = [sys.executable, "-m", "benchmarks.fanout_profile", mode]
            command += [str(out), "-b", "127.0.0.1", "-p", str(port)]
    with open(log, "ab") as out_file:
        process = subprocess.Popen(
            [*command, *DAPHNE_LIMITS, "playground.asgi:application"],
            cwd=ROOT,
            env=env,
            stdout=out_file,
            stderr=subprocess.STDOUT,
        )
    server = Server(name, port, process, log)
    if wait:
        wait_for_port(port, process)
    return server


def start_floor(var_dir: Path, frame_bytes: int) -> Server:
    """The plain `websockets` broadcast server (the floor) in its own process."""
    port = free_port()
    log = Path(var_dir) / "floor.log"
    with open(log, "ab") as out_file:
        process = subprocess.Popen(
            [sys.executable, "-m", "benchmarks.fanout_floor", str(port)]
            + [str(frame_bytes)],
            cwd=ROOT,
            stdout=out_file,
            stderr=subprocess.STDOUT,
        )
    server = Server("floor", port, process, log)
    wait_for_port(port, process)
    return server


@contextmanager
def single_daphne():
    """(a) one daphne, SQLite in a temporary var dir, in-memory layer."""
    with tempfile.TemporaryDirectory(prefix="fanout-") as var_dir:
        env = server_env(Path(var_dir))
        migrate(env)
        server = start_daphne("daphne", env, Path(var_dir))
        try:
            yield [server], env, Path(var_dir)
        finally:
            server.stop()


@contextmanager
def redis_pair():
    """(b) two daphnes sharing a throwaway PostgreSQL database and a Redis layer."""
    import psycopg

    name = f"fanout_{secrets.token_hex(4)}"
    admin = f"{POSTGRES} dbname=test"
    with psycopg.connect(admin, autocommit=True) as connection:
        connection.execute(f'CREATE DATABASE "{name}"')
    servers: list[Server] = []
    try:
        with tempfile.TemporaryDirectory(prefix="fanout-") as var_dir:
            env = server_env(
                Path(var_dir), f"postgresql://postgres@127.0.0.1:5432/{name}", REDIS_URL
            )
            migrate(env)
            for index in (1, 2):
                servers.append(start_daphne(f"daphne{index}", env, Path(var_dir)))
            yield servers, env, Path(var_dir)
    finally:
        for server in servers:
            server.stop()
        _flush_redis()
        with psycopg.connect(admin, autocommit=True) as connection:
            connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _flush_redis() -> None:
    """Empty the benchmark's own Redis db (channel groups outlive their processes)."""
    try:
        import redis

        redis.Redis.from_url(REDIS_URL).flushdb()
    except Exception:
        pass


@contextmanager
def floor(frame_bytes: int):
    """(c) the floor: `websockets.broadcast()` of frames of the same size."""
    with tempfile.TemporaryDirectory(prefix="fanout-") as var_dir:
        server = start_floor(Path(var_dir), frame_bytes)
        try:
            yield [server], None, Path(var_dir)
        finally:
            server.stop()
