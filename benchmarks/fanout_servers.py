"""Server processes for the fan-out benchmark, and what they cost.

Each case gets fresh processes: one daphne on a temporary SQLite (in-memory layer), two
daphnes sharing a throwaway PostgreSQL database and a Redis layer, or the plain
`websockets` floor (`benchmarks.fanout_floor`). CPU seconds and resident memory are read
from /proc, so only the server processes count, never the clients.

The database is made once per benchmark process and copied for each case (the SQLite
file with the var dir, PostgreSQL as `CREATE DATABASE ... TEMPLATE`): as fresh as
migrating each time, seconds faster, which counts when every case runs five times.
Every student connects from 127.0.0.1, so the servers allow one address to add any
number of members to a class (`CLASS_ENV`).
"""

import atexit
import contextlib
import os
import secrets
import shutil
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
# A class holds PLAYGROUND_CLASS_SIZE members at once (100 unless the host sets more,
# up to PLAYGROUND_ROOM_MEMBER_CAP); the benchmark's classes are bigger, so the servers
# start with a size as large as the room cap allows: it measures the fan-out, not that.
CLASS_ENV = {"PLAYGROUND_CLASS_SIZE": "1000000"}


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
    for mode in ("cpu", "memory", "gc", "trace"):  # under benchmarks.fanout_profile
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
        _started([server])
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


_PREPARED: dict[str, object] = {}
ADMIN = f"{POSTGRES} dbname=test"


def _prepared_var_dir() -> Path:
    """A var dir migrated (SQLite) with its static files collected, made once per
    process (removed at exit); each case runs on a copy of it. Collected again when a
    source static file changed since (daphne refuses to start on stale ones)."""
    if "var" not in _PREPARED:
        holder = tempfile.TemporaryDirectory(prefix="fanout-prepared-")
        _PREPARED["holder"] = holder  # removed when the process exits
        var_dir = Path(holder.name) / "var"
        var_dir.mkdir()
        _PREPARED["var"] = var_dir
        _PREPARED["collected"] = None
    var_dir = _PREPARED["var"]
    collected = _PREPARED["collected"]
    if collected is None or _newest_static() >= collected:
        _PREPARED["collected"] = time.time()
        migrate(server_env(var_dir))  # type: ignore[arg-type]
    return var_dir  # type: ignore[return-value]


def _newest_static() -> float:
    """When a file of the source static folder was last modified."""
    newest = 0.0
    for folder, _, names in os.walk(ROOT / "static"):
        for name in names:
            with contextlib.suppress(OSError):  # deleted meanwhile
                newest = max(newest, os.stat(os.path.join(folder, name)).st_mtime)
    return newest


def fresh_var_dir(parent: str) -> Path:
    """A fresh var dir under `parent` (replacing one made before): a copy of the
    prepared one."""
    var_dir = Path(parent) / "var"
    if var_dir.exists():
        shutil.rmtree(var_dir)
    shutil.copytree(_prepared_var_dir(), var_dir)
    return var_dir


def _postgres_url(name: str) -> str:
    return f"postgresql://postgres@127.0.0.1:5432/{name}"


def _template_database() -> str:
    """A PostgreSQL database migrated once per process (dropped at exit), which each
    Redis case copies."""
    if "template" not in _PREPARED:
        import psycopg

        name = f"fanout_template_{secrets.token_hex(4)}"
        with psycopg.connect(ADMIN, autocommit=True) as connection:
            connection.execute(f'CREATE DATABASE "{name}"')
        atexit.register(_drop_database, name)
        with tempfile.TemporaryDirectory(prefix="fanout-") as parent:
            var_dir = fresh_var_dir(parent)
            migrate(server_env(var_dir, _postgres_url(name)))
        _PREPARED["template"] = name
    return _PREPARED["template"]  # type: ignore[return-value]


def _drop_database(name: str) -> None:
    import psycopg

    with psycopg.connect(ADMIN, autocommit=True) as connection:
        connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _started(servers: list[Server]) -> list[Server]:
    """Wait until every server (started with wait=False) listens; stop all if one
    fails, and say why (the end of its log)."""
    for server in servers:
        try:
            wait_for_port(server.port, server.process)
        except RuntimeError as error:
            for other in servers:
                other.stop()
            lines = server.log.read_text(errors="replace").splitlines()[-5:]
            tail = "\n".join(f"    {line}" for line in lines)
            raise RuntimeError(
                f"{server.name}: {error}; its log ends:\n{tail}"
            ) from None
    return servers


def _up(start):
    """`start()` (servers, env, var dir) once its servers listen; once more if they
    did not: a port taken between `free_port` and the bind, or a static file edited
    meanwhile (the prepared var dir is collected again) should not end a long run."""
    try:
        servers, env, var_dir = start()
        return _started(servers), env, var_dir
    except RuntimeError as error:
        print(f"# a server did not start; once more. {error}", flush=True)
        servers, env, var_dir = start()
        return _started(servers), env, var_dir


@contextmanager
def single_daphne():
    """(a) one daphne, SQLite in a temporary var dir, in-memory layer."""
    with tempfile.TemporaryDirectory(prefix="fanout-") as parent:

        def start():
            var_dir = fresh_var_dir(parent)
            env = {**server_env(var_dir), **CLASS_ENV}
            return [start_daphne("daphne", env, var_dir, wait=False)], env, var_dir

        servers, env, var_dir = _up(start)
        try:
            yield servers, env, var_dir
        finally:
            servers[0].stop()


@contextmanager
def redis_pair():
    """(b) two daphnes sharing a throwaway PostgreSQL database and a Redis layer."""
    import psycopg

    template = _template_database()
    name = f"fanout_{secrets.token_hex(4)}"
    with psycopg.connect(ADMIN, autocommit=True) as connection:
        connection.execute(f'CREATE DATABASE "{name}" TEMPLATE "{template}"')
        # the copy went through the WAL (PostgreSQL 15's default strategy): flush it
        # now, or its checkpoint lands in the measured window and stalls commits
        connection.execute("CHECKPOINT")
    servers: list[Server] = []
    try:
        with tempfile.TemporaryDirectory(prefix="fanout-") as parent:

            def start():
                var_dir = fresh_var_dir(parent)
                env = {
                    **server_env(var_dir, _postgres_url(name), REDIS_URL),
                    **CLASS_ENV,
                }
                servers[:] = [
                    start_daphne(f"daphne{index}", env, var_dir, wait=False)
                    for index in (1, 2)
                ]
                return servers, env, var_dir

            _, env, var_dir = _up(start)
            yield servers, env, var_dir
    finally:
        for server in servers:
            server.stop()
        _flush_redis()
        _drop_database(name)


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
