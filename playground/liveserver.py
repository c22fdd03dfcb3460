"""Live daphne processes, a throwaway PostgreSQL database, headless Chromium's settings.

Shared by the browser tests, the durability and multi-process tests, and the browser
benchmark: they need the real server (the websocket included) on a free loopback port,
with its own SQLite file, or with the PostgreSQL and Redis a deployment uses.
"""

import asyncio
import atexit
import json
import os
import secrets
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import closing, contextmanager
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlencode

ROOT = Path(__file__).resolve().parents[1]
# Debian's chromium-headless-shell first: Chromium's own headless build (Blink and V8 as
# in `chromium`, without the desktop browser around them), the one Playwright itself
# runs headless. On this 2-core machine it drew the same pages for two thirds of the
# CPU time, which took the browser tests from 15 to 11 minutes (docs/architecture.md,
# "The test suite"); Debian's full `chromium` where it is not installed.
CHROMIUM_PATHS = (
    "/usr/bin/chromium-headless-shell",
    "/usr/bin/chromium",
    "/usr/bin/chromium-browser",
)
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
# The machine's PostgreSQL (trust authentication); a test session makes its own
# database there and drops it at the end.
POSTGRES_ADMIN_URL = os.environ.get(
    "PLAYGROUND_TEST_POSTGRES", "postgresql://127.0.0.1:5432/test"
)
# daphne's own cap on what one websocket message may be (its default is 1 MiB): no
# message of the protocol comes near it, and playground/inbound.py refuses anything
# over PLAYGROUND_MAX_MESSAGE_BYTES (64 KiB) anyway; the Makefile passes the same
DAPHNE_LIMITS = [
    "--websocket-max-message-size",
    str(256 * 1024),
    "--websocket-max-frame-size",
    str(256 * 1024),
]
APPLICATION = "playground.asgi:application"


def chromium_path() -> str | None:
    """Debian's headless Chromium (or its full one) if present, else None (Playwright
    then uses its own)."""
    for path in CHROMIUM_PATHS:
        if shutil.which(path):
            return path
    return None


def free_port() -> int:
    """A TCP port nobody listens on right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def reachable(host: str, port: int, seconds: float = 1.0) -> bool:
    """Whether something accepts TCP connections at host:port."""
    try:
        with socket.create_connection((host, port), timeout=seconds):
            return True
    except OSError:
        return False


def server_env(var_dir: Path, **extra: str | None) -> dict:
    """The environment of a server on `var_dir`, configured as in production (DEBUG
    off, the secret key kept in `var_dir`): SQLite and no Redis unless `extra` sets
    DATABASE_URL or REDIS_URL (a value of None removes a variable)."""
    env = {**os.environ, "PLAYGROUND_VAR_DIR": str(var_dir)}
    env.setdefault("MALLOC_ARENA_MAX", "2")  # as `make run` starts daphne
    env.pop("DEBUG", None)
    env.pop("PLAYGROUND_STATIC_ROOT", None)  # its own, under var_dir
    env.pop("DATABASE_URL", None)
    env.pop("REDIS_URL", None)
    for name, value in extra.items():
        if value is None:
            env.pop(name, None)
        else:
            env[name] = str(value)
    return env


def migrate(env: dict, root: Path = ROOT) -> None:
    """What `make run` does before it starts daphne, for the server `env` describes
    (with the code of the checkout at `root`): create or update the tables of its
    database, and collect its static files (gzipped) into its STATIC_ROOT.

    `manage.py migrate` and `collectstatic` run once a process for each checkout, into
    a template (`migrated_template`): a new SQLite file is a copy of the template's, a
    PostgreSQL database made by `throwaway_postgres(migrated=True)` was created from a
    migrated template database, and the static files are copied. Only a database that
    already holds something (or another kind of database) runs `migrate` itself."""
    var_dir = Path(env.get("PLAYGROUND_VAR_DIR") or Path(root) / "var")
    static_root = Path(env.get("PLAYGROUND_STATIC_ROOT") or var_dir / "staticfiles")
    template = migrated_template(root)
    shutil.copytree(template / "staticfiles", static_root, dirs_exist_ok=True)
    url = env.get("DATABASE_URL")
    if url is not None and url in _FROM_TEMPLATE:
        return
    database = var_dir / "playground.sqlite3"
    if url is None and (not database.exists() or database.stat().st_size == 0):
        var_dir.mkdir(parents=True, exist_ok=True)
        copy_sqlite(template / "playground.sqlite3", database)
        return
    manage(["migrate"], env=env, root=root)


# checkout -> a var folder migrated on SQLite, with the static files collected: made
# the first time a process needs it, removed when the process exits
_TEMPLATES: dict[Path, Path] = {}
# the PostgreSQL databases this process created from a migrated template
_FROM_TEMPLATE: set[str] = set()


def migrated_template(root: Path = ROOT) -> Path:
    """A var folder of this process's, for the code at `root`, where `manage.py
    migrate` and `collectstatic` ran: its playground.sqlite3 and staticfiles/ are what
    every new server's would be."""
    root = Path(root).resolve()
    if root not in _TEMPLATES:
        folder = Path(tempfile.mkdtemp(prefix="playground-template-"))
        atexit.register(shutil.rmtree, folder, ignore_errors=True)
        commands = (["migrate"], ["collectstatic", "--verbosity", "0"])
        manage(*commands, env=server_env(folder), root=root)
        _TEMPLATES[root] = folder
    return _TEMPLATES[root]


def copy_sqlite(source: Path, target: Path) -> None:
    """Copy a SQLite database, whatever its write-ahead log holds (the backup API)."""
    with (
        closing(sqlite3.connect(source)) as reading,
        closing(sqlite3.connect(target)) as writing,
    ):
        reading.backup(writing)


# `manage.py` for several commands in one process (Django set up once)
MANAGE = """
import json, os, sys
import django
from django.core.management import call_command
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "playground.settings")
django.setup()
for command in json.loads(sys.argv[1]):
    call_command(*command, "--noinput")
"""


def manage(*commands: list[str], env: dict, root: Path = ROOT) -> None:
    """Run `manage.py <command> --noinput` for each of `commands`, in that order, in
    one process for the server `env` describes."""
    done = subprocess.run(
        [sys.executable, "-c", MANAGE, json.dumps(commands)],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        names = ", ".join(command[0] for command in commands)
        raise RuntimeError(f"{names} failed:\n{done.stdout}\n{done.stderr}")


@dataclass
class Daphne:
    """One running daphne process."""

    process: subprocess.Popen
    port: int
    log_path: Path
    scheme: str = "http"  # "https" when it serves TLS (and HTTP/2)

    @property
    def pid(self) -> int:
        return self.process.pid

    @property
    def url(self) -> str:
        return f"{self.scheme}://127.0.0.1:{self.port}"

    @property
    def origin(self) -> str:
        """The Origin header a browser on this server's pages would send."""
        return self.url

    def ws_url(self, slug: str, **query) -> str:
        """The websocket address of a lab with a query (None values left out)."""
        pairs = {k: v for k, v in query.items() if v is not None}
        tail = f"?{urlencode(pairs)}" if pairs else ""
        scheme = "wss" if self.scheme == "https" else "ws"
        return f"{scheme}://127.0.0.1:{self.port}/ws/labs/{slug}/{tail}"

    def kill(self) -> None:
        """kill -9: no clean-up of any kind, as when a machine loses the process."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
        self.process.wait()

    def stop(self, seconds: float = 10) -> None:
        stop_process(self.process, seconds)

    def rss_mb(self) -> float:
        """The process's resident memory now, in MB (from /proc)."""
        for line in Path(f"/proc/{self.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        raise RuntimeError(f"no VmRSS for process {self.pid}")

    def log(self) -> str:
        """What the process wrote so far (for assertion messages)."""
        try:
            return self.log_path.read_text(errors="replace")[-4000:]
        except OSError:
            return ""


class LiveSocket:
    """A websocket client of a live server that keeps every frame it received.

    The frames received are what the server acknowledged: each was sent only after
    its action was stored.
    """

    def __init__(self, ws) -> None:
        self.ws = ws
        self.frames: list[dict] = []
        self.inbox: list[dict] = []

    @classmethod
    async def open(
        cls, server: Daphne, slug: str, source: str | None = None, **query
    ) -> "LiveSocket":
        """A socket to a lab; `source` is the loopback address it comes from (any of
        127.0.0.0/8: another address, to the server's limits, than 127.0.0.1)."""
        from websockets.asyncio.client import connect

        ws = await connect(
            server.ws_url(slug, **query),
            additional_headers={"Origin": server.origin},
            open_timeout=10,
            max_size=2**24,
            # read on, whatever is left unread: with websockets' default (16 messages)
            # a socket that stopped reading, as a class's host that hears every
            # student arrive does, no longer read the server's close frame either, and
            # close() waited out its 10 s timeout
            max_queue=None,
            local_addr=(source, 0) if source else None,
        )
        return cls(ws)

    async def send(self, **message) -> None:
        await self.ws.send(json.dumps(message))

    async def next(self, kind: str, where=lambda m: True, timeout: float = 10) -> dict:
        """The next message of `kind` (matching `where`), keeping the ones before."""
        async with asyncio.timeout(timeout):
            while True:
                message = json.loads(await self.ws.recv())
                self.inbox.append(message)
                if message["type"] == "frame":
                    self.frames.append(message)
                if message["type"] == kind and where(message):
                    return message

    @property
    def acked(self) -> int:
        """The last sequence number this socket received a frame for."""
        return self.frames[-1]["seq"] if self.frames else 0

    async def close(self) -> None:
        await self.ws.close()


async def round_trip(server: Daphne, slug: str = "quorum") -> tuple[float, float]:
    """Seconds a newcomer waits for `hello`, then for the frame of one action.

    The newcomer comes from another address (127.0.0.2) than the attacks of the
    tests and benchmarks (127.0.0.1): someone else, whom no limit of theirs touches."""
    started = time.monotonic()
    socket = await LiveSocket.open(server, slug, source=BYSTANDER_ADDRESS)
    try:
        await socket.next("hello", timeout=30)
        hello_s = time.monotonic() - started
        started = time.monotonic()
        await socket.send(type="action", ref="b1", action="pause", args={})
        await socket.next("frame", lambda m: m.get("ref") == "b1", timeout=30)
        return hello_s, time.monotonic() - started
    finally:
        await socket.close()


BYSTANDER_ADDRESS = "127.0.0.2"


def start_daphne(
    var_dir: Path,
    env: dict | None = None,
    port: int | None = None,
    name: str = "",
    app: str = APPLICATION,
    root: Path = ROOT,
    tls: tuple[Path, Path] | None = None,
    args: tuple[str, ...] = (),
) -> Daphne:
    """Start daphne (already migrated) with `env`; return once it listens.

    `app` is another ASGI application to serve instead (a benchmark's floor); `root`
    another checkout to serve the code of (a benchmark's run of an earlier commit);
    `tls` a (private key, certificate) pair to serve HTTPS with, and HTTP/2 where
    Twisted's http2 extra (h2) is installed; `args` more of daphne's options (such as
    `--proxy-headers`)."""
    env = env if env is not None else server_env(var_dir)
    port = port or free_port()
    log_path = Path(var_dir) / f"daphne{'-' + name if name else ''}-{port}.log"
    if tls:
        key, certificate = tls
        where = ["-e", f"ssl:{port}:interface=127.0.0.1:privateKey={key}"]
        where[-1] += f":certKey={certificate}"
    else:
        where = ["-b", "127.0.0.1", "-p", str(port)]
    with open(log_path, "ab") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "daphne", *where, *DAPHNE_LIMITS, *args, app],
            cwd=root,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    try:
        wait_for_port(port, process)
    except BaseException:
        stop_process(process)
        raise
    return Daphne(process, port, log_path, "https" if tls else "http")


@contextmanager
def live_daphne(var_dir: Path) -> Iterator[str]:
    """Migrate a fresh SQLite in `var_dir`, serve under daphne, yield the base URL."""
    env = server_env(var_dir)
    migrate(env)
    server = start_daphne(var_dir, env)
    try:
        yield server.url
    finally:
        server.stop()


@contextmanager
def throwaway_postgres(
    admin_url: str = POSTGRES_ADMIN_URL, migrated: bool = False, root: Path = ROOT
) -> Iterator[str]:
    """A new PostgreSQL database; yields its URL and drops it afterwards.

    Empty, or with `migrated` a copy (CREATE DATABASE ... TEMPLATE) of a database that
    `manage.py migrate` ran in once this process for the code at `root`, which
    `migrate` then leaves as it is. `admin_url` names an existing database to connect
    to while creating and dropping (a database cannot drop itself). Raises OSError-like
    psycopg errors when the server cannot be reached: callers decide whether that
    skips or fails.
    """
    import psycopg

    name = f"playground_{secrets.token_hex(6)}"
    template = postgres_template(admin_url, root) if migrated else None
    copy_of = f' TEMPLATE "{template}"' if template else ""
    with psycopg.connect(admin_url, autocommit=True, connect_timeout=5) as admin:
        admin.execute(f'CREATE DATABASE "{name}"{copy_of}')
    url = f"{admin_url.rsplit('/', 1)[0]}/{name}"
    if migrated:
        _FROM_TEMPLATE.add(url)
    try:
        yield url
    finally:
        _FROM_TEMPLATE.discard(url)
        drop_postgres(admin_url, name)


# (admin URL, checkout) -> the migrated template database this process made there
_POSTGRES_TEMPLATES: dict[tuple[str, Path], str] = {}


def postgres_template(admin_url: str, root: Path = ROOT) -> str:
    """The name of a database of this process's where `manage.py migrate` ran for the
    code at `root` (made the first time, dropped when the process exits)."""
    import psycopg

    key = (admin_url, Path(root).resolve())
    if key not in _POSTGRES_TEMPLATES:
        name = f"playground_template_{secrets.token_hex(6)}"
        with psycopg.connect(admin_url, autocommit=True, connect_timeout=5) as admin:
            admin.execute(f'CREATE DATABASE "{name}"')
        atexit.register(drop_postgres, admin_url, name)
        url = f"{admin_url.rsplit('/', 1)[0]}/{name}"
        env = server_env(migrated_template(root), DATABASE_URL=url)
        manage(["migrate"], env=env, root=root)
        _POSTGRES_TEMPLATES[key] = name
    return _POSTGRES_TEMPLATES[key]


def drop_postgres(admin_url: str, name: str) -> None:
    """Drop database `name` (whoever is still connected to it)."""
    import psycopg

    with psycopg.connect(admin_url, autocommit=True, connect_timeout=5) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def stop_process(process: subprocess.Popen, seconds: float = 10) -> None:
    """Terminate a server process; kill it if it has not exited after `seconds`."""
    if process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(timeout=seconds)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def wait_for_port(port: int, process: subprocess.Popen, seconds: float = 30) -> None:
    """Return once `process` listens on `port`; RuntimeError if it exits or is late."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"daphne exited with {process.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"daphne did not listen on {port} within {seconds} s")


def watch_errors(page, *, console: bool = True):
    """Collect a Playwright page's script errors (and console errors) in
    `page.console_errors`, for tests to assert it stays empty; returns the page.

    `console=False` keeps only uncaught script errors: for a page that is expected to
    log failed connections (its server was killed on purpose).
    """
    page.console_errors = []
    if console:
        page.on(
            "console",
            lambda m: page.console_errors.append(m.text) if m.type == "error" else None,
        )
    page.on("pageerror", lambda e: page.console_errors.append(str(e)))
    return page


def save_screenshot(target, name: str) -> None:
    """Save a screenshot of `target` (a Playwright page or locator) as `name`.png in
    the folder PLAYGROUND_SCREENSHOTS names, for a person to look at; without that
    variable, nothing (no test compares them, and each costs a paint and a PNG)."""
    folder = os.environ.get("PLAYGROUND_SCREENSHOTS")
    if not folder:
        return
    Path(folder).mkdir(parents=True, exist_ok=True)
    target.screenshot(path=str(Path(folder) / f"{name}.png"))


# True once the lab has drawn (its first frame) and every d3 transition and finite CSS
# animation in the lab that was running at the first call with this token has ended:
# what a person sees once the drawing has come to rest. Transitions started later (a
# playing lab's next frames) are not waited for; nor is the tour's ring, outside the
# lab, whose pulse draws the eye for 3.6 s and moves nothing of the lab's.
AT_REST = """(token) => {
  const root = document.getElementById("lab");
  if (!root?.dataset.drawn) return false;
  const nodes = [...root.querySelectorAll("*")];
  const ids = (node) => Object.keys(node.__transition ?? {}).map(Number);
  if (globalThis.__atRest?.token !== token) {
    globalThis.__atRest = {
      token,
      transition: Math.max(0, ...nodes.flatMap(ids)),
      animations: document.getAnimations().filter(
        (a) =>
          a.effect?.getComputedTiming().iterations !== Infinity &&
          root.contains(a.effect?.target ?? null),
      ),
    };
  }
  const { transition, animations } = globalThis.__atRest;
  return (
    !nodes.some((node) => ids(node).some((id) => id <= transition)) &&
    animations.every((a) => a.playState !== "running")
  );
}"""


def wait_until_still(page, timeout: float = 30_000) -> None:
    """Return once the lab on `page` has drawn, and what its drawing was moving when
    this was called (or at its first drawing) has come to rest."""
    page.wait_for_function(
        AT_REST, arg=secrets.token_hex(4), polling="raf", timeout=timeout
    )


# What a returning context must forget for its next test to be a new visitor
CLEARED = (
    "cookies,local_storage,session_storage,indexeddb,cache_storage,service_workers"
)


class KeptContext:
    """A browser context kept from one test to the next, whose pages are new visitors'.

    A page of its own stays open on the site (its favicon), so the context's renderer
    stays: a lab page opened in a new context cost 0.9 core-seconds, in a kept one 0.45
    (the renderer's compiled scripts and parsed styles, the context's HTTP cache, a
    returning reader's). Before each new page the context's cookies, permissions and
    everything the site stored (local and session storage, IndexedDB, caches, service
    workers) are cleared; the page takes its own init scripts and routes with it when it
    closes. What would outlive it is the context's: a test that installs the clock
    (`page.clock` is the context's) or adds a context's init script makes a context of
    its own."""

    def __init__(self, browser, url: str, **options) -> None:
        """`options` are the context's own (`new_context`'s), e.g. bypass_csp."""
        self.url = url
        self.context = browser.new_context(
            **{"viewport": {"width": 1280, "height": 900}, **options}
        )
        self.keeper = self.context.new_page()
        self.keeper.goto(f"{url}/static/img/favicon.svg")
        self.cdp = self.context.new_cdp_session(self.keeper)

    def new_page(self, viewport: dict | None = None, reduced_motion: str | None = None):
        """A new visitor's page (recording console and page errors), at `viewport`,
        preferring reduced motion where `reduced_motion` is "reduce". A page the last
        test left open in the context (one it opened itself) is closed first."""
        for left in self.context.pages:
            if left is not self.keeper:
                left.close()
        self.context.clear_cookies()
        self.context.clear_permissions()
        self.cdp.send(
            "Storage.clearDataForOrigin",
            {"origin": self.url, "storageTypes": CLEARED},
        )
        page = watch_errors(self.context.new_page())
        if viewport:
            page.set_viewport_size(viewport)
        if reduced_motion:
            page.emulate_media(reduced_motion=reduced_motion)
        return page

    def close(self) -> None:
        self.context.close()


def click_link(link) -> None:
    """Click a network link (`g.net-link`'s locator, in a page or a frame) on the middle
    of its line, where a person aims: the group's box also holds the latency label
    beside the line, and its centre (where Playwright clicks an element) can fall
    between them, on the drawing's backdrop."""
    at = link.evaluate(
        """g => {
          g.scrollIntoView({ block: "nearest", inline: "nearest" });
          const box = g.getBoundingClientRect();
          const line = g.querySelector(".link-hit").getBoundingClientRect();
          return { x: line.left + line.width / 2 - box.left,
                   y: line.top + line.height / 2 - box.top };
        }"""
    )
    box = link.bounding_box()  # in the page's viewport, across frames
    assert box, "the link is not on the screen"
    link.page.mouse.click(box["x"] + at["x"], box["y"] + at["y"])


def next_frames(page, count: int = 2) -> None:
    """Return once `page` has rendered `count` more frames: what a resize or a scroll
    sets off (resize events, ResizeObservers, their redrawing) has run by then."""
    page.evaluate(
        """(count) => new Promise((done) => {
          const step = (left) =>
            left ? requestAnimationFrame(() => step(left - 1)) : done();
          step(count);
        })""",
        count,
    )


# Which pixels of a 2D canvas are painted, as [how many, a hash of which].
CANVAS_PRINT = """(selector) => {
  const canvas = document.querySelector(selector);
  const data = canvas.getContext("2d")
    .getImageData(0, 0, canvas.width, canvas.height).data;
  let painted = 0, hash = 0;
  for (let i = 3; i < data.length; i += 4) {
    if (data[i]) { painted++; hash = (hash * 31 + i) >>> 0; }
  }
  return [painted, hash];
}"""


def canvas_print(page, selector: str) -> list[int]:
    """The painted pixels of the canvas `selector`: it changes when its dots move."""
    return page.evaluate(CANVAS_PRINT, selector)


def wait_until_canvas_changes(page, selector: str, timeout: float = 30_000) -> None:
    """Return once the canvas `selector` is painted otherwise than it is now."""
    page.wait_for_function(
        f"""([selector, before]) =>
          JSON.stringify(({CANVAS_PRINT})(selector)) !== JSON.stringify(before)""",
        arg=[selector, canvas_print(page, selector)],
        polling="raf",
        timeout=timeout,
    )
