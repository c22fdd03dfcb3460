"""What the cache-stampede lab lets a user choose and do, declared as data."""

from simulators.engine.clocked import MAX_ADVANCE_MS, PLAYBACK_ACTIONS
from simulators.engine.cost import CostModel
from simulators.engine.declaration import ActionSpec, Param
from simulators.engine.i18n import gettext_noop as _

# the course airline's airports, one departures board each
AIRPORTS = ("LAX", "SFO", "DEN", "DFW", "JFK", "SEA", "ORD", "ATL")
MAX_RATE = 5_000  # reads a second
MAX_TTL_MS = 60_000
MAX_QUERY_MS = 2_000
MAX_DB_LIMIT = 64
MAX_MEMORY_MB = 1_024
MAX_SERVERS = 8
BETAS = ("0.25", "0.5", "1", "2", "4")
MAX_BETA = 10
# readers go on reading this long after a visitor's action (lab.py)
READ_ON_MS = 5_000
# replay costs in work units, about a microsecond each (simulators/engine/cost.py):
# a read passes through all four lanes
PER_READ = 8
ADVANCE_BASE = 200

STRATEGY_LABELS = (
    _("Plain cache-aside"),
    _("Refill lock"),
    _("XFetch (early refresh)"),
    _("XFetch with the lock"),
)
AIRPORT = Param("airport", _("Airport"), "choice", default="LAX", choices=AIRPORTS)

ACTIONS = (
    *PLAYBACK_ACTIONS,
    ActionSpec(
        "skip_to_expiry",
        _("Jump to just before expiry"),
        help=_(
            "Run the readers until 0.3 s before the busiest board's cached copy "
            "expires."
        ),
        primary=True,
        cost=ADVANCE_BASE + PER_READ * MAX_RATE * MAX_TTL_MS // 1_000,
    ),
    ActionSpec(
        "set_strategy",
        _("Watch a strategy"),
        (
            Param(
                "strategy",
                _("Strategy"),
                "choice",
                default="plain",
                choices=("plain", "lock", "xfetch", "xfetch_lock"),
                choice_labels=STRATEGY_LABELS,
                current="strategy",
                help=_(
                    "All four run on the same reads; this one is drawn large. "
                    "The lock is SET lock NX EX: one reader refills, the others wait."
                ),
            ),
        ),
        primary=True,
        cost=250,  # mostly the frame: 0.18 ms measured
    ),
    ActionSpec(
        "set_rate",
        _("Set the read rate"),
        (
            Param(
                "rate",
                _("Reads a second"),
                "int",
                default=1_000,
                minimum=0,
                maximum=MAX_RATE,
                presets=(100, 1_000, 5_000),
                current="rate",
                help=_("Readers arrive at random (Poisson) at this average rate."),
            ),
        ),
        primary=True,
        cost=250,  # mostly the frame: 0.18 ms measured
    ),
    ActionSpec(
        "set_ttl",
        _("Set the lifetime"),
        (
            Param(
                "ttl_ms",
                _("Lifetime (ms)"),
                "int",
                default=30_000,
                minimum=0,
                maximum=MAX_TTL_MS,
                presets=(0, 2_000, 30_000),
                current="ttl_ms",
                help=_(
                    "How long a board stays in the cache after it is set (EX). "
                    "0 keeps nothing: every read misses."
                ),
            ),
        ),
        cost=250,  # mostly the frame: 0.18 ms measured
    ),
    ActionSpec(
        "set_query_time",
        _("Set the query time"),
        (
            Param(
                "query_ms",
                _("Query time (ms)"),
                "int",
                default=20,
                minimum=1,
                maximum=MAX_QUERY_MS,
                presets=(20, 100, 400),
                current="query_ms",
                help=_("How long the database takes to build one board."),
            ),
        ),
        cost=250,  # mostly the frame: 0.18 ms measured
    ),
    ActionSpec(
        "set_db_limit",
        _("Limit database queries"),
        (
            Param(
                "limit",
                _("Queries at once"),
                "int",
                default=10,
                minimum=1,
                maximum=MAX_DB_LIMIT,
                presets=(1, 10, 64),
                current="db_limit",
                help=_("Queries beyond this many wait in line at the database."),
            ),
        ),
        cost=250,  # mostly the frame: 0.18 ms measured
    ),
    ActionSpec(
        "set_beta",
        _("Set XFetch's β"),
        (
            Param(
                "beta",
                "β",
                "text",
                default="1",
                max_length=8,
                presets=BETAS,
                current="beta",
                help=_(
                    "Above 1 refreshes earlier, below 1 later; it must be above 0 "
                    "and at most 10."
                ),
            ),
        ),
        cost=250,  # mostly the frame: 0.18 ms measured
    ),
    ActionSpec(
        "update_flight",
        _("Update a flight"),
        (
            AIRPORT,
            Param(
                "delete_on_write",
                _("Delete the cached board"),
                "bool",
                default=False,
                help=_(
                    "Delete-on-write: the next read misses and sees the change. "
                    "Without it the old board is served until it expires."
                ),
            ),
        ),
        cost=250,  # mostly the frame
    ),
    ActionSpec(
        "fill_memory",
        _("Fill memory"),
        (
            Param(
                "mb",
                _("Megabytes of other keys"),
                "int",
                default=64,
                minimum=1,
                maximum=MAX_MEMORY_MB,
                presets=(8, 64),
                help=_(
                    "Write session keys into the cache: when memory is full the "
                    "least recently used keys are evicted, boards too."
                ),
            ),
        ),
        cost=300 + 4 * MAX_MEMORY_MB,
    ),
    ActionSpec(
        "set_memory",
        _("Set the cache's memory"),
        (
            Param(
                "mb",
                _("Memory (MB)"),
                "int",
                default=64,
                minimum=0,
                maximum=MAX_MEMORY_MB,
                presets=(4, 64),
                current="memory_mb",
                help=_("maxmemory, with allkeys-lru; a board takes 1 MB."),
            ),
        ),
        cost=300 + 4 * MAX_MEMORY_MB,
    ),
    ActionSpec(
        "make_hot",
        _("Make an airport hot"),
        (
            AIRPORT,
            Param(
                "share",
                _("Share of reads (%)"),
                "int",
                default=90,
                minimum=0,
                maximum=100,
                presets=(0, 90, 100),
                help=_("The rest of the reads are spread evenly over all boards."),
            ),
        ),
        cost=250,  # mostly the frame: 0.18 ms measured
    ),
    ActionSpec(
        "set_cache_servers",
        _("Set the cache servers"),
        (
            Param(
                "count",
                _("Cache servers"),
                "int",
                default=1,
                minimum=1,
                maximum=MAX_SERVERS,
                presets=(1, 4, 8),
                current="cache_servers",
                help=_("Boards are placed on servers by the hash of their key."),
            ),
        ),
        cost=250,  # mostly the frame: 0.18 ms measured
    ),
)


class CacheStampedeCost(CostModel):
    """Declared costs: time moves at the read rate, through four lanes.

    Readers read for `READ_ON_MS` after each visitor action (lab.py), so the model
    follows how much of that is left: an `advance` pays for the reads inside it.
    """

    def __init__(self, lab_class) -> None:
        super().__init__(lab_class)
        # (reads a second, lifetime in ms, reading time left in ms)
        self.scale = (1_000, 30_000, READ_ON_MS)

    def charge(self, spec, args: dict) -> int:
        rate, ttl_ms, left = self.scale
        name = spec.name
        if name == "advance":
            ms = args["ms"]
            self.scale = (rate, ttl_ms, max(0, left - ms))
            return ADVANCE_BASE + PER_READ * rate * min(ms, left) // 1_000
        if name in ("step", "pause"):
            return spec.cost
        if name == "set_rate":
            rate = args["rate"]
        elif name == "set_ttl":
            ttl_ms = args["ttl_ms"]
        self.scale = (rate, ttl_ms, READ_ON_MS)
        if name == "skip_to_expiry":
            span = min(ttl_ms, MAX_ADVANCE_MS)
            return ADVANCE_BASE + PER_READ * rate * span // 1_000
        return spec.cost
