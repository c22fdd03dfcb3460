"""What the cache-stampede lab lets a user choose and do, declared as data."""

from math import ceil

from simulators.engine.clocked import MAX_ADVANCE_MS, PLAYBACK_ACTIONS
from simulators.engine.cost import CostModel
from simulators.engine.declaration import ActionSpec, Param
from simulators.engine.i18n import gettext_noop as _
from simulators.labs.cache_stampede.sim import MAX_POLLS, MAX_QUEUE, POLL_US

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
ADVANCE_BASE = 200  # replay cost of moving the clock (CacheStampedeCost, below)

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
        cost=ADVANCE_BASE,  # charged by CacheStampedeCost: the reads of the jump
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


# -- replay costs ---------------------------------------------------------------------
# Costs are in work units (about a microsecond each, simulators/engine/cost.py), worked
# out from the settings alone, without running anything. What drives the work:
#
# - reads: the rate times the time readers read (`READ_ON_MS` after a visitor action,
#   or the whole jump of `skip_to_expiry`), each through four lanes;
# - misses: a read that finds its board missing queries the database in the two lanes
#   without the lock, and waits in the two with it, looking again every `poll_us`, up to
#   `MAX_POLLS` times (all of them when the lifetime is shorter than the wait between
#   two looks: the board has expired again by then). A board is missing about one query
#   time per lifetime, and at least once in a window of reading (the boards of a fresh
#   lab expire within it, and a memory fill or a delete-on-write drops them), so the
#   share of reads that miss is bounded by the query time over the reading time;
# - queries waiting at the database (`MAX_QUEUE` at most per lane) answer later, at
#   most `limit` per query time: the model keeps an estimate of how many wait, and a
#   later `advance` pays for those it lets finish;
# - what a frame and a checkpoint carry grows with the queries waiting.
#
# Measured by tests/simulators/test_measured_costs.py against the lab itself (every
# action within 1.5x its declaration, at the maxima: 5,000 reads a second, 2 s queries,
# a limit of 64 or 1, a lifetime of 0).
PER_READ = 14  # a read through four lanes, hits (10-12 measured)
PER_POLL = 2  # a lock waiter looking again (1.3 measured)
PER_MISS = 4  # a query started, or refused when the queue is full, in one lane
PER_DONE = 4  # a query answering: the board set, the next one started
PER_MS = 0.1  # the lanes' charts roll over ten buckets a second
PER_WAITING = 2  # a query waiting at the database, in a frame and a checkpoint
BOARDS = len(AIRPORTS)
NO_LOCK_LANES = 2  # plain and XFetch: every miss queries
LOCK_LANES = 2  # the lock's: a miss waits and looks again


class CacheStampedeCost(CostModel):
    """Declared costs of a cache-stampede history, following its settings.

    The scale is (reads a second, lifetime ms, reading time left ms, query ms,
    database limit, memory MB, queries waiting per lane (an estimate), the longest
    lifetime a cached board may still have, whether boards were just dropped, how
    many boards are read).
    """

    def __init__(self, lab_class) -> None:
        super().__init__(lab_class)
        self.scale = (1_000, 30_000, READ_ON_MS, 20, 10, 64, 0, 30_000, 1, 1)

    def frame(self) -> int:
        return super().frame() + PER_WAITING * NO_LOCK_LANES * self.scale[6]

    def checkpoint(self) -> int:
        return super().checkpoint() + PER_WAITING * NO_LOCK_LANES * self.scale[6]

    def charge(self, spec, args: dict) -> int:
        rate, ttl, left, query, limit, memory, waiting, longest, dropped, read = (
            self.scale
        )
        name = spec.name
        if name == "advance":
            ms = args["ms"]
            reading = min(ms, left)
            cost, waiting = self._run(ms, reading, waiting, dropped)
            if reading:
                dropped = 0
            self.scale = (
                *(rate, ttl, left - reading, query, limit, memory, waiting),
                ttl if ms >= MAX_ADVANCE_MS else longest,
                dropped,
                read,
            )
            return cost
        if name in ("step", "pause"):
            return spec.cost
        if name == "set_rate":
            rate = args["rate"]
        elif name == "set_ttl":
            ttl = args["ttl_ms"]
            longest = max(longest, ttl)
        elif name == "set_query_time":
            query = args["query_ms"]
        elif name == "set_db_limit":
            limit = args["limit"]
        elif name == "set_memory":
            memory = args["mb"]
            dropped = 1
        elif name == "fill_memory" or (
            name == "update_flight" and args["delete_on_write"]
        ):
            dropped = 1
        elif name == "make_hot":  # every read the hot board's, or spread over all
            read = 1 if args["share"] == 100 else BOARDS
        self.scale = (rate, ttl, READ_ON_MS, query, limit, memory, waiting, longest)
        self.scale += (dropped, read)
        cost = spec.cost
        if name == "skip_to_expiry":
            # runs until the hot board's expiry: a lifetime at most, reading all along
            span = min(longest, MAX_TTL_MS)
            cost, waiting = self._run(span, span, waiting, dropped, hot_cached=True)
            self.scale = (rate, ttl, READ_ON_MS, query, limit, memory, waiting)
            self.scale += (ttl, 0, read)
        elif name == "set_db_limit":  # queries waiting start at once
            cost += PER_DONE * NO_LOCK_LANES * min(waiting, limit)
        return cost

    def _run(self, ms, reading, waiting, dropped, hot_cached=False):
        """The cost of `ms` of time with readers reading for `reading` of it, and
        the queries left waiting per lane after it. `hot_cached`: the hot board
        stays cached all along (`skip_to_expiry` stops before it expires), so reads
        of it alone all hit."""
        rate, ttl, _left, query, limit, memory = self.scale[:6]
        read = self.scale[9]
        reads = rate * reading // 1_000
        cost = ADVANCE_BASE + round(PER_MS * ms)
        issued = 0
        if reads:
            poll_ms = max(POLL_US // 1_000, query / 4)
            looks = (
                MAX_POLLS
                if ttl < poll_ms
                else min(MAX_POLLS, ceil(query / poll_ms) + 1)
            )
            expiries = ceil(reading / (ttl + query)) + dropped
            # boards read that do not fit in memory evict one another: all miss
            missing = 1.0 if memory < read else min(1.0, expiries * query / reading)
            if hot_cached and read == 1:
                missing = 0.0
            per_read = PER_READ + missing * (
                LOCK_LANES * looks * PER_POLL + NO_LOCK_LANES * PER_MISS
            )
            cost += round(reads * per_read)
            issued = round(reads * missing)
        # queries that answer in this time: at most `limit` per query time
        answered = min(waiting + issued, limit * ms // query + limit)
        cost += PER_DONE * NO_LOCK_LANES * answered
        waiting = min(MAX_QUEUE, waiting + issued - answered)
        return cost, max(0, waiting)
