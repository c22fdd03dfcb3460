"""cache-stampede: cache-aside for the departures board, and the herd at expiry.

Readers arrive at a chosen rate (Poisson, seeded) and read one airport's departures
board through a cache; a miss queries the database (a query time, a limit of queries
at once). The same arrival trace runs through four caches side by side, one per refill
strategy (`sim.py`): plain cache-aside, a refill lock, XFetch, XFetch with the lock.

Choices made here, so the lab says what it does:

- The boards start cached, LAX's expiring at 0.6 s and the others spread over the
  lifetime after it, as if the cache had been running for a while.
- Readers read while someone is about: every visitor action (except the clock's
  `advance` and `step`) lets them go on for `READ_ON_MS` more, and time stands still
  once they stop and the last query has answered. Play starts them again, from
  that moment: no read arrives in the time they were stopped.
- A query reads the database when it completes, so a board set after an update holds
  it; without delete-on-write a cached board is served stale until it expires, never
  longer than the lifetime.
- Boards are placed on the cache servers by MurmurHash3 of `board:<code>` mod the
  number of servers; every read of a board goes to its one server.
- Randomness: one stream, `cache-stampede.readers` (SplitMix64, whose state is one
  number: the lab is checkpointed often), draws every arrival gap (an exponential by
  inversion), which board is read, and the read's XFetch draw, in that order; the
  four lanes share them.
"""

from decimal import Decimal, InvalidOperation
from math import log

from simulators.engine.clocked import ClockedLab
from simulators.engine.declaration import ActionError
from simulators.engine.hashing import murmur
from simulators.engine.i18n import gettext_noop as _
from simulators.engine.rng import SplitMix, derive_seed
from simulators.labs.cache_stampede.declaration import (
    ACTIONS,
    AIRPORTS,
    MAX_BETA,
    READ_ON_MS,
    CacheStampedeCost,
)
from simulators.labs.cache_stampede.sim import (
    BUCKET_US,
    CACHE_RTT_US,
    LOCK_EX_US,
    MAX_POLLS,
    OUTCOMES,
    STRATEGIES,
    X_BIN,
    X_BINS,
    Lane,
    Settings,
    poll_us,
)
from simulators.labs.cache_stampede.tour import TOUR

FIRST_EXPIRY_MS = 600
SKIP_LEAD_MS = 300
UPDATES_SHOWN = 20  # `skip_to_expiry` stops this long before the expiry


class Database:
    """The rows behind the boards: a version per board and when each update landed.

    Only the updates a cached board may still lack are remembered: `forget` drops
    those older than every lane's copy, so a long history keeps a few per board.
    """

    def __init__(self) -> None:
        self.versions = [0] * len(AIRPORTS)
        # board → {version: when the update that ended it landed}
        self.ended: list[dict[int, int]] = [{} for _ in AIRPORTS]

    def version(self, board: int) -> int:
        return self.versions[board]

    def staleness(self, board: int, version: int, t: int) -> int:
        """How long the board in `version` has been out of date at `t` (0: current)."""
        if version == self.versions[board]:
            return 0
        return t - self.ended[board][version]

    def update(self, board: int, t: int) -> int:
        self.ended[board][self.versions[board]] = t
        self.versions[board] += 1
        return self.versions[board]

    def forget(self, board: int, oldest: int) -> None:
        """Drop what versions before `oldest` (no copy holds them) ended at."""
        ended = self.ended[board]
        for version in [v for v in ended if v < oldest]:
            del ended[version]


def parse_beta(text: str) -> Decimal:
    """β from text ("1", "0.5"): a number above 0 and at most MAX_BETA."""
    try:
        beta = Decimal(text.strip())
    except InvalidOperation:
        beta = None
    if beta is None or not beta.is_finite():
        raise ActionError("bad_beta", _("β must be a number, such as 1 or 0.5"), "beta")
    if beta <= 0:
        raise ActionError(
            "bad_beta",
            _("β must be above 0: at 0 XFetch never refreshes early"),
            "beta",
        )
    if beta > MAX_BETA:
        raise ActionError(
            "bad_beta", _("β must be at most %(maximum)s"), "beta", maximum=MAX_BETA
        )
    return beta.normalize()


class CacheStampedeLab(ClockedLab):
    """Readers, four caches with four refill strategies, four databases."""

    slug = "cache-stampede"
    actions = ACTIONS
    tour = TOUR
    stress = (
        ("set_rate", {"rate": 5000}),
        ("set_query_time", {"query_ms": 2000}),
        ("set_db_limit", {"limit": 64}),
        ("advance", {"ms": 60000}),
        ("skip_to_expiry", {}),
        ("fill_memory", {"mb": 1024}),
    )
    words = AIRPORTS
    cost_model = CacheStampedeCost
    creation_cost = 400
    frame_cost = 900

    def __init__(self, seed: int = 0, **options) -> None:
        super().__init__(seed, **options)
        self.rate = 1_000
        self.ttl_ms = 30_000
        self.beta_text = "1"
        self.strategy = "plain"
        self.hot, self.share = 0, 100  # LAX takes every read
        self.cache_servers = 1
        self.settings = Settings(
            ttl_us=self.ttl_ms * 1_000,
            query_us=20_000,
            db_limit=10,
            beta=1.0,
            memory_mb=64,
        )
        self.db = Database()
        self.lanes = [Lane(name, self.settings, self.db) for name in STRATEGIES]
        ttl_us = self.settings.ttl_us
        for board in range(len(AIRPORTS)):
            expiry = FIRST_EXPIRY_MS * 1_000 + board * ttl_us // len(AIRPORTS)
            for lane in self.lanes:
                lane.seed_entry(board, expiry - ttl_us, expiry)
        self.rng = SplitMix(derive_seed(seed, "cache-stampede.readers"))
        self.readers_until_us = READ_ON_MS * 1_000
        self.next_read_us = self._gap(0)
        self.reads_by_board = [0] * len(AIRPORTS)
        self.sessions_written = 0
        self.updates: list[dict] = []

    # ----- time -----------------------------------------------------------------------
    def _gap(self, t: int) -> int | None:
        """When the read after one at `t` arrives (None: nobody reads at rate 0)."""
        if self.rate == 0:
            return None
        return t + int(-log(1.0 - self.rng.random()) / self.rate * 1_000_000)

    def apply(self, name, args) -> list[dict]:
        events = super().apply(name, args)
        if name not in ("advance", "step", "pause"):
            self._read_on(self.now_ms * 1_000 + READ_ON_MS * 1_000)
        return events

    def _read_on(self, until_us: int) -> None:
        """Readers go on reading until `until_us`. Readers that had stopped start
        again now: the next one is drawn from now (the arrival drawn before they
        stopped lies in the past, and reads never arrive in the past)."""
        now = self.now_ms * 1_000
        if self.next_read_us is not None and self.next_read_us < now:
            self.next_read_us = self._gap(now)
        self.readers_until_us = max(self.readers_until_us, until_us)

    def next_due_ms(self) -> int | None:
        due = [lane.next_due() for lane in self.lanes]
        nxt = self.next_read_us
        if nxt is not None and nxt < self.readers_until_us:
            due.append(nxt)
        due = [t for t in due if t is not None]
        if not due:
            return None
        return max(-(-min(due) // 1_000), self.now_ms)

    def run_until(self, until_ms: int) -> list[dict]:
        until = until_ms * 1_000
        lanes, rng = self.lanes, self.rng
        boards = len(AIRPORTS)
        counts = self.reads_by_board
        stop = min(until, self.readers_until_us - 1)
        t = self.next_read_us
        while t is not None and t <= stop:
            for lane in lanes:
                if lane.heap and lane.heap[0][0] <= t:
                    lane.run_until(t)
                elif t - lane.bucket.start_us >= BUCKET_US:
                    lane.roll(t)
            if self.share == 100 or rng.random() * 100 < self.share:
                board = self.hot
            else:
                board = int(rng.random() * boards)
            counts[board] += 1
            u = 1.0 - rng.random()  # in (0, 1]
            ln_u = log(u)
            for lane in lanes:
                lane.read(t, board, u, ln_u)
            t = self._gap(t)
        self.next_read_us = t
        for lane in lanes:
            lane.run_until(until)
        self.queue.clock.now_ms = max(self.now_ms, until_ms)
        return self.collect_events()

    def collect_events(self) -> list[dict]:
        lanes = {lane.strategy: lane.take() for lane in self.lanes}
        events = []
        for strategy, taken in lanes.items():
            for refill in taken.pop("refilled"):
                events.append(
                    {
                        "type": "refilled",
                        "lane": strategy,
                        **refill,
                        "board": AIRPORTS[refill["board"]],
                        "early": refill["expiry_us"] > refill["started_us"],
                    }
                )
        if any(taken["ended"] or taken["evicted"] for taken in lanes.values()):
            events.insert(0, {"type": "reads", "at_ms": self.now_ms, "lanes": lanes})
        return events

    def do_skip_to_expiry(self) -> list[dict]:
        """Run until just before the hot board expires in the plain lane."""
        entry = self.lanes[0].entries.get(self.hot)
        now = self.now_ms
        if entry is None or entry[2] <= (now + SKIP_LEAD_MS) * 1_000:
            raise ActionError(
                "not_cached",
                _(
                    "%(airport)s's board is not cached for long enough now to jump "
                    "to its expiry: let a read refill it first"
                ),
                airport=AIRPORTS[self.hot],
            )
        # at most a lifetime (60 s) away: within what one `advance` may move
        target = -(-entry[2] // 1_000) - SKIP_LEAD_MS
        self._read_on((target + READ_ON_MS) * 1_000)
        events = self.run_until(target)
        return [
            {
                "type": "skipped",
                "from_ms": now,
                "to_ms": target,
                "board": AIRPORTS[self.hot],
                "expiry_us": entry[2],
            },
            *events,
        ]

    # ----- settings -------------------------------------------------------------------
    def do_set_strategy(self, strategy: str) -> list[dict]:
        before, self.strategy = self.strategy, strategy
        return [{"type": "strategy_set", "strategy": strategy, "before": before}]

    def do_set_rate(self, rate: int) -> list[dict]:
        before, self.rate = self.rate, rate
        now = self.now_ms * 1_000
        self.next_read_us = self._gap(now)
        return [{"type": "rate_set", "rate": rate, "before": before}]

    def do_set_ttl(self, ttl_ms: int) -> list[dict]:
        before, self.ttl_ms = self.ttl_ms, ttl_ms
        self.settings.ttl_us = ttl_ms * 1_000
        event = {"type": "ttl_set", "ttl_ms": ttl_ms, "before": before}
        return [{**event, "every_read_misses": ttl_ms == 0}]

    def do_set_query_time(self, query_ms: int) -> list[dict]:
        before = self.settings.query_us // 1_000
        self.settings.query_us = query_ms * 1_000
        return [{"type": "query_time_set", "query_ms": query_ms, "before": before}]

    def do_set_db_limit(self, limit: int) -> list[dict]:
        before = self.settings.db_limit
        self.settings.db_limit = limit
        for lane in self.lanes:  # a higher limit lets queued queries start now
            now = self.now_ms * 1_000
            while lane.queue and len(lane.running) < limit:
                lane._start(now, *lane.queue.popleft())
        return [{"type": "db_limit_set", "limit": limit, "before": before}]

    def do_set_beta(self, beta: str) -> list[dict]:
        value = parse_beta(beta)
        before, self.beta_text = self.beta_text, f"{value:f}"
        self.settings.beta = float(value)
        return [{"type": "beta_set", "beta": self.beta_text, "before": before}]

    def do_update_flight(self, airport: str, delete_on_write: bool) -> list[dict]:
        board = AIRPORTS.index(airport)
        now = self.now_ms * 1_000
        version = self.db.update(board, now)
        cached = []
        for lane in self.lanes:
            if delete_on_write:
                lane.drop(board)
            cached.append(board in lane.entries)
        held = [lane.entries[board][0] for lane in self.lanes if board in lane.entries]
        self.db.forget(board, min(held, default=version))
        self.updates = [
            *self.updates[-(UPDATES_SHOWN - 1) :],
            {"board": airport, "at_us": now, "version": version},
        ]
        return [
            {
                "type": "flight_updated",
                "board": airport,
                "version": version,
                "delete_on_write": delete_on_write,
                "stale_in": [s for s, c in zip(STRATEGIES, cached, strict=True) if c],
            }
        ]

    def do_fill_memory(self, mb: int) -> list[dict]:
        first = self.sessions_written
        sessions = range(-first - 1, -first - mb - 1, -1)
        self.sessions_written += mb
        before = [sorted(lane.entries) for lane in self.lanes]
        for lane in self.lanes:
            lane.fill(sessions)
        evicted = {
            lane.strategy: [AIRPORTS[b] for b in old if b not in lane.entries]
            for lane, old in zip(self.lanes, before, strict=True)
        }
        return [{"type": "memory_filled", "mb": mb, "evicted": evicted}]

    def do_set_memory(self, mb: int) -> list[dict]:
        if mb == 0:
            raise ActionError(
                "no_memory",
                _(
                    "a cache with no memory cannot hold even one board: give it at "
                    "least 1 MB"
                ),
                "mb",
            )
        before = self.settings.memory_mb
        self.settings.memory_mb = mb
        old = [sorted(lane.entries) for lane in self.lanes]
        for lane in self.lanes:
            lane.evict_over()
        evicted = {
            lane.strategy: [AIRPORTS[b] for b in boards if b not in lane.entries]
            for lane, boards in zip(self.lanes, old, strict=True)
        }
        return [{"type": "memory_set", "mb": mb, "before": before, "evicted": evicted}]

    def do_make_hot(self, airport: str, share: int) -> list[dict]:
        self.hot, self.share = AIRPORTS.index(airport), share
        self.reads_by_board = [0] * len(AIRPORTS)
        return [{"type": "made_hot", "board": airport, "share": share}]

    def do_set_cache_servers(self, count: int) -> list[dict]:
        before, self.cache_servers = self.cache_servers, count
        self.reads_by_board = [0] * len(AIRPORTS)
        hot = AIRPORTS[self.hot]
        return [
            {
                "type": "cache_servers_set",
                "count": count,
                "before": before,
                "hot_board": hot,
                "hot_server": self.server_of(self.hot),
            }
        ]

    # ----- what the renderer and the tests read ---------------------------------------
    def server_of(self, board: int) -> int:
        return murmur(f"board:{AIRPORTS[board]}") % self.cache_servers

    def lane(self, strategy: str) -> Lane:
        return self.lanes[STRATEGIES.index(strategy)]

    def snapshot(self) -> dict:
        now = self.now_ms * 1_000
        per_server = [0] * self.cache_servers
        for board, reads in enumerate(self.reads_by_board):
            per_server[self.server_of(board)] += reads
        hot = self.lanes[0].entries.get(self.hot)
        return {
            "playback": self.playback(),
            "seed": self.seed,
            "now_us": now,
            "strategy": self.strategy,
            "rate": self.rate,
            "ttl_ms": self.ttl_ms,
            "query_ms": self.settings.query_us // 1_000,
            "db_limit": self.settings.db_limit,
            "beta": self.beta_text,
            "memory_mb": self.settings.memory_mb,
            "cache_servers": self.cache_servers,
            "airports": list(AIRPORTS),
            "hot": {"board": AIRPORTS[self.hot], "share": self.share},
            "hot_expiry_us": hot[2] if hot is not None else None,
            "readers_until_us": self.readers_until_us,
            "servers": [
                {
                    "id": s,
                    "boards": [
                        AIRPORTS[b]
                        for b in range(len(AIRPORTS))
                        if self.server_of(b) == s
                    ],
                    "reads": n,
                }
                for s, n in enumerate(per_server)
            ],
            "lanes": [lane.view(now) for lane in self.lanes],
            "updates": self.updates,
            "model": {
                "cache_rtt_us": CACHE_RTT_US,
                "poll_us": poll_us(self.settings.query_us),
                "max_polls": MAX_POLLS,
                "lock_ex_us": LOCK_EX_US,
                "bucket_us": BUCKET_US,
                "x_bin": X_BIN,
                "x_bins": X_BINS,
                "outcomes": list(OUTCOMES),
            },
        }

    def metrics(self) -> dict:
        lanes = {lane.strategy: lane.numbers() for lane in self.lanes}
        plain = lanes["plain"]["last_second"]
        expected = None
        if plain["hit_rate"] is not None and plain["seconds"]:
            reads_per_s = plain["reads"] / plain["seconds"]
            expected = round(reads_per_s * (1 - plain["hit_rate"]), 1)
        return {
            "now_ms": self.now_ms,
            "rate": self.rate,
            "lanes": lanes,
            "queries_per_s_expected": expected,
            "hot_server": self.server_of(self.hot),
            "reads_by_board": dict(zip(AIRPORTS, self.reads_by_board, strict=True)),
        }

    def state(self) -> dict:
        return {
            "snapshot": self.snapshot(),
            "metrics": self.metrics(),
            "rng": self.rng.state,
            "next_read_us": self.next_read_us,
        }
