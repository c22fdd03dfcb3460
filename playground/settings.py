"""Settings, read from the environment, with safe defaults for the embedded mode.

Embedded (the default): SQLite in ./var and the in-memory channel layer, nothing else to
run. At scale: DATABASE_URL (PostgreSQL) and REDIS_URL (channels_redis).
"""

import os
from pathlib import Path

import dj_database_url
from csp.constants import NONCE, NONE, SELF

from playground.secret_key import secret_key

BASE_DIR = Path(__file__).resolve().parent.parent


def env_flag(name: str, default: bool) -> bool:
    """Read a yes/no environment variable."""
    value = os.environ.get(name)
    if value is None:
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


# Off unless asked for (`DEBUG=true make run`): the debug pages show tracebacks,
# settings and every route to anyone who can make a request fail.
DEBUG = env_flag("DEBUG", False)
VAR_DIR = Path(os.environ.get("PLAYGROUND_VAR_DIR", BASE_DIR / "var"))
VAR_DIR.mkdir(parents=True, exist_ok=True)
SECRET_KEY = secret_key(os.environ.get("SECRET_KEY"), VAR_DIR / "secret_key")
ALLOWED_HOSTS = [
    h.strip()
    for h in os.environ.get("ALLOWED_HOSTS", "127.0.0.1,localhost,[::1]").split(",")
    if h.strip()
]

INSTALLED_APPS = [
    "daphne",
    "django.contrib.contenttypes",
    "django.contrib.staticfiles",
    "channels",
    "csp",
    "playground",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "csp.middleware.CSPMiddleware",
    "playground.language.LanguageMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "playground.urls"
ASGI_APPLICATION = "playground.asgi.application"

# Other roots of lab folders, laid out as this repository (simulators/labs/<lab>/,
# static/js/labs/, templates/labs/narratives/, locale/): simulators/labs/__init__.py
# finds their labs, and their static files, templates and translations are served
# with this repository's. Empty in use; tests/server/test_adding_a_lab.py builds a
# scratch lab in one.
LAB_ROOTS = [
    Path(p) for p in os.environ.get("PLAYGROUND_LAB_ROOTS", "").split(os.pathsep) if p
]

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates", *(root / "templates" for root in LAB_ROOTS)],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
            ],
        },
    },
]

DATABASES = {
    "default": dj_database_url.config(
        default=f"sqlite:///{VAR_DIR / 'playground.sqlite3'}", conn_max_age=60
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # Write-ahead log: readers never wait for the writer, and a committed action
    # survives a killed process (synchronous=NORMAL syncs at checkpoints, which is
    # durable against a crash of the process, not of the machine's power).
    # IMMEDIATE: a transaction takes the write lock when it begins, so two writers
    # queue instead of failing to upgrade a read lock.
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
            "transaction_mode": "IMMEDIATE",
            "timeout": 20,
        }
    )
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

REDIS_URL = os.environ.get("REDIS_URL")
if REDIS_URL:
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.core.RedisChannelLayer",
            "CONFIG": {
                # redis-py caps an async pool at 100 connections: raise it
                "hosts": [{"address": REDIS_URL, "max_connections": 1000}],
                "capacity": 1000,
            },
        }
    }
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS_URL,
        }
    }
else:
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels.layers.InMemoryChannelLayer",
            "CONFIG": {"capacity": 1000},
        }
    }

LANGUAGE_CODE = "en"
# each language named in itself: the switch shows them so, whatever the page speaks
LANGUAGES = [("en", "English"), ("zh-hans", "简体中文"), ("th", "ไทย")]
LANGUAGE_COOKIE_NAME = "playground_language"
LANGUAGE_COOKIE_AGE = 365 * 24 * 3600
LOCALE_PATHS = [BASE_DIR / "locale", *(root / "locale" for root in LAB_ROOTS)]
USE_I18N = True
USE_TZ = True
TIME_ZONE = "UTC"

STATIC_URL = "/static/"
STATICFILES_DIRS = [BASE_DIR / "static", *(root / "static" for root in LAB_ROOTS)]
# `manage.py collectstatic` (make run, and every test server, run it) copies the files
# here with a .gz beside each; playground/staticserve.py serves them (with DEBUG, the
# source folders instead, each file read afresh, so an edit shows at once).
STATIC_ROOT = Path(os.environ.get("PLAYGROUND_STATIC_ROOT", VAR_DIR / "staticfiles"))
STATIC_ROOT.mkdir(parents=True, exist_ok=True)
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "servestatic.storage.CompressedStaticFilesStorage"},
}

X_FRAME_OPTIONS = "DENY"
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
# Every response says where its page may load from: this site only. The one inline
# script, the import map, carries the request's nonce; no inline style or handler is
# allowed (d3's .style() goes through the CSSOM, which style-src does not govern).
# 'self' also covers ws: and wss: to this host (CSP 3; the browser tests check it).
# Only /embed/<slug>/ may be framed, by anyone (playground.embeds).
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF, NONCE],
        "style-src": [SELF],
        "img-src": [SELF],
        "connect-src": [SELF],
        "object-src": [NONE],
        "base-uri": [SELF],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
    }
}

# the websocket protocol's limits (docs/protocol.md)
PLAYGROUND_MAX_MESSAGE_BYTES = 64 * 1024
PLAYGROUND_ROOM_IDLE_SECONDS = int(
    os.environ.get("PLAYGROUND_ROOM_IDLE_SECONDS", "600")
)
# classes: how long a join code works, how many may be in one room (in one process),
# and how many messages a second one connection may send (a burst of twice that)
PLAYGROUND_CLASS_HOURS = int(os.environ.get("PLAYGROUND_CLASS_HOURS", "12"))
PLAYGROUND_ROOM_MEMBER_CAP = int(os.environ.get("PLAYGROUND_ROOM_MEMBER_CAP", "1200"))
PLAYGROUND_MESSAGES_PER_SECOND = 20
# frames carry `patch` (the change since the frame before) when it is clearly smaller
# than the whole snapshot (playground/delta.py)
PLAYGROUND_FRAME_PATCHES = os.environ.get("PLAYGROUND_FRAME_PATCHES", "1") == "1"
# pages list their whole ES module graph as <link rel="modulepreload"> so the browser
# asks for every module at once (playground/modulepreload.py); off: only the page's
# own script, as before (benchmarks/first_drawing.py compares the two)
PLAYGROUND_MODULEPRELOAD = env_flag("PLAYGROUND_MODULEPRELOAD", True)

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": "WARNING"},
    # a room loaded from the database says how: how much of its log was replayed
    "loggers": {"playground.rooms.room": {"level": "INFO"}},
}

# -- limits: what one client, one address and the whole server may ask for ------------
# (docs/architecture.md, "Limits and abuse"). Work is counted in declared units of about
# a microsecond each (simulators/engine/cost.py).


def env_int(name: str, default: int) -> int:
    """Read a whole-number setting from the environment."""
    return int(os.environ.get(name, default))


# an action above this leaves the light lane for the heavy one (rooms/work.py): the
# light lane's few threads are then free within milliseconds for whoever comes (at
# 50,000 a newcomer waited for attackers' 20-50 ms actions: p99 200 ms; at 20,000,
# 36-92 ms; docs/benchmarks.md, "Heavy work")
PLAYGROUND_HEAVY_UNITS = env_int("PLAYGROUND_HEAVY_UNITS", 20_000)
# a replay above this runs in a worker process of its own (a link, a stored room's
# log after its last stored checkpoint), below it in the light lane
PLAYGROUND_REPLAY_PROCESS_UNITS = env_int("PLAYGROUND_REPLAY_PROCESS_UNITS", 50_000)
# the most work opening one link may take: about 6 s
PLAYGROUND_LINK_BUDGET_UNITS = env_int("PLAYGROUND_LINK_BUDGET_UNITS", 6_000_000)
# worker processes that replay heavy links and logs, and how many replays may wait
PLAYGROUND_REPLAY_WORKERS = env_int("PLAYGROUND_REPLAY_WORKERS", 1)
PLAYGROUND_REPLAYS_PER_ADDRESS = env_int("PLAYGROUND_REPLAYS_PER_ADDRESS", 4)
PLAYGROUND_REPLAYS_QUEUED = env_int("PLAYGROUND_REPLAYS_QUEUED", 32)
# heavy actions waiting for the heavy thread (a class behind one address acting in
# its branches at once fits; the least-used address goes first whatever waits)
PLAYGROUND_HEAVY_PER_ADDRESS = env_int("PLAYGROUND_HEAVY_PER_ADDRESS", 32)
PLAYGROUND_HEAVY_QUEUED = env_int("PLAYGROUND_HEAVY_QUEUED", 128)
# the work meter (playground/meter.py): an action or a replay may use its declared cost
# times this margin (at least the floor: small costs are noise-sized) of CPU time, and
# is stopped past it, whatever it declared. 3, not 2: on a loaded machine honest work
# measured up to twice its declaration in thread CPU time (range-splits' writes were
# stopped in a full test run), while the holes the meter closes were 4-20× (issue 29)
PLAYGROUND_WORK_MARGIN = float(os.environ.get("PLAYGROUND_WORK_MARGIN", "3"))
PLAYGROUND_WORK_FLOOR_UNITS = env_int("PLAYGROUND_WORK_FLOOR_UNITS", 250_000)
# the most work one action may declare: past it the action is refused before it runs
# (a link's steps together: PLAYGROUND_LINK_BUDGET_UNITS)
PLAYGROUND_ACTION_BUDGET_UNITS = env_int("PLAYGROUND_ACTION_BUDGET_UNITS", 6_000_000)
# threads that apply ordinary actions (rooms/work.py, the light lane): few, so that
# each gets a fair share of the GIL and a newcomer's action waits for few others
PLAYGROUND_LIGHT_WORKERS = env_int("PLAYGROUND_LIGHT_WORKERS", 2)
# a message longer than this many characters goes out in parts (rooms/wire.py): a
# part, escaped, stays under daphne's 256 KiB (tests make it small)
PLAYGROUND_PART_CHARS = env_int("PLAYGROUND_PART_CHARS", 100_000)
# light actions waiting for a room are applied together, at most this many, and
# appended to its log in one transaction
PLAYGROUND_BATCH_ACTIONS = env_int("PLAYGROUND_BATCH_ACTIONS", 32)
# rooms one address may make (pages opened, links, branches, classes), as `limits` rules
PLAYGROUND_ROOMS_PER_ADDRESS = os.environ.get(
    "PLAYGROUND_ROOMS_PER_ADDRESS", "120/minute;1200/hour"
)
# private branches one member may keep of one class
PLAYGROUND_BRANCHES_PER_MEMBER = env_int("PLAYGROUND_BRANCHES_PER_MEMBER", 20)
# how long a private room stays in memory after its last socket left (a class room:
# PLAYGROUND_ROOM_IDLE_SECONDS); its log stays stored, and the next visitor rebuilds it
PLAYGROUND_PRIVATE_IDLE_SECONDS = env_int("PLAYGROUND_PRIVATE_IDLE_SECONDS", 60)
# stored rooms nobody opened for this many days (classes: ended this long ago) are
# deleted by `manage.py prune_rooms`, which `make run` runs at start
PLAYGROUND_ROOM_KEEP_DAYS = env_int("PLAYGROUND_ROOM_KEEP_DAYS", 30)
# joining a class (playground/rooms/door.py): wrong codes one address, and all, may try
# before lookups wait their turn, one every PLAYGROUND_JOIN_SLOW_SECONDS
PLAYGROUND_JOIN_WRONG_PER_ADDRESS = os.environ.get(
    "PLAYGROUND_JOIN_WRONG_PER_ADDRESS", "30/minute"
)
PLAYGROUND_JOIN_WRONG_TOTAL = os.environ.get(
    "PLAYGROUND_JOIN_WRONG_TOTAL", "600/minute"
)
PLAYGROUND_JOIN_SLOW_SECONDS = float(
    os.environ.get("PLAYGROUND_JOIN_SLOW_SECONDS", "1")
)
# -- who gets into a class (playground/rooms/door.py, playground/rooms/classes.py) --
# lookups parked in one slowed address's line, and in all lines of a process: a parked
# lookup is a coroutine (about 2 KB), so a script cannot fill a line to lock a class out
PLAYGROUND_JOIN_MAX_WAITING = env_int("PLAYGROUND_JOIN_MAX_WAITING", 2000)
PLAYGROUND_JOIN_MAX_WAITING_TOTAL = env_int("PLAYGROUND_JOIN_MAX_WAITING_TOTAL", 20000)
# a class's size (members present at once) until its host sets another, up to
# PLAYGROUND_ROOM_MEMBER_CAP; a join while the class is under its size is never refused
PLAYGROUND_CLASS_SIZE = env_int("PLAYGROUND_CLASS_SIZE", 100)
# students one class's lobby holds waiting for the host at once
PLAYGROUND_LOBBY_CAP = env_int("PLAYGROUND_LOBBY_CAP", 200)

# -- what one process takes at once, and HTTP hardening (issue 29) --------------------
# (docs/architecture.md, "Limits and abuse"; playground/capacity.py)
# websockets one process serves at once: past it a new one is told `server_full` and
# closed with 4503, and its page tries again later (about 50 KB a socket, and its room)
PLAYGROUND_MAX_SOCKETS = env_int("PLAYGROUND_MAX_SOCKETS", 5000)
# rooms one process holds in memory: past it, rooms nobody is in leave first; when
# every one has someone in it, a new room is refused the same way (`server_full`)
PLAYGROUND_MAX_ROOMS = env_int("PLAYGROUND_MAX_ROOMS", 5000)
# a private room whose log has not grown for this long lets its lab go, and takes it
# back from its stored log and checkpoints on the next message (a tab left open);
# 0: never (playground/rooms/memory.py)
PLAYGROUND_PRIVATE_REST_SECONDS = env_int("PLAYGROUND_PRIVATE_REST_SECONDS", 600)
# the frames one room keeps for resuming reconnects, in bytes (and 256 frames at most)
PLAYGROUND_FRAME_BUFFER_BYTES = env_int("PLAYGROUND_FRAME_BUFFER_BYTES", 512 * 1024)
# seconds a client has, from connecting (or from a request's first line on a kept-alive
# connection), to send a request's line and headers; then it is disconnected
# (playground/httpdeadline.py: half-sent requests held open in thousands)
PLAYGROUND_HEADER_SECONDS = float(os.environ.get("PLAYGROUND_HEADER_SECONDS", "10"))
# Strict-Transport-Security on every response to a request that came over HTTPS
# (0: none): daphne serving TLS itself, or behind a TLS-terminating proxy either
# daphne --proxy-headers or PLAYGROUND_TRUSTED_PROXY=true, so that the proxy's
# `X-Forwarded-Proto: https` says the request was HTTPS. Only where that proxy sets (or
# strips) the header itself: otherwise any client could claim HTTPS.
SECURE_HSTS_SECONDS = env_int("PLAYGROUND_HSTS_SECONDS", 365 * 24 * 3600)
PLAYGROUND_TRUSTED_PROXY = env_flag("PLAYGROUND_TRUSTED_PROXY", False)
if PLAYGROUND_TRUSTED_PROXY:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
# every form POST carries Django's CSRF token (the join form); one without it gets a
# 403 page of the site's own, in the visitor's language
MIDDLEWARE.insert(
    MIDDLEWARE.index("django.middleware.common.CommonMiddleware") + 1,
    "django.middleware.csrf.CsrfViewMiddleware",
)
CSRF_FAILURE_VIEW = "playground.csrf.failure"
CSRF_COOKIE_SAMESITE = "Lax"
