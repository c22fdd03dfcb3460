"""One arrival trace, four caches: the four refill strategies side by side.

Every lane is a cache (per-key lifetimes, least-recently-used eviction) in front of its
own database (a query time and a limit of concurrent queries, a FIFO queue beyond it).
The lanes see exactly the same reads at the same moments with the same random draws;
only their refill strategy differs:

- ``plain``: cache-aside; every miss queries the database and sets the value.
- ``lock``: a miss takes a refill lock (``SET lock NX EX``); the one that gets it
  queries, the others look again ``POLL_US`` later until the value is there.
- ``xfetch``: a hit recomputes early when ``now - delta * beta * ln(u) >= expiry``
  (Vattani, Chierichetti, Lowenstein, PVLDB 2015); ``delta`` is how long the query
  that made the value took. A miss is plain.
- ``xfetch_lock``: XFetch whose early refresh and refill both need the lock; an early
  refresh that finds the lock taken serves the cached value.

Time is in whole microseconds. A read looks in the cache the moment it arrives; a hit
answers after one cache round trip; a query reads the database when it completes, sets
the value then (expiring `ttl` later) and answers its reader. Changing the query time
or the lifetime affects what starts afterwards, not what is already running.
"""

import heapq
from array import array
from collections import OrderedDict, deque
from itertools import islice
from math import exp

from simulators.engine.ledger import Block

STRATEGIES = ("plain", "lock", "xfetch", "xfetch_lock")
CACHE_RTT_US = 500  # one round trip to the cache
# a lock waiter looks again this long later: 5 ms, or a quarter of the query time
# when that is longer (a slow query is waited for, not given up on after 50 ms)
POLL_US = 5_000
MAX_POLLS = 10  # ... at most this many times, then gives up (an error to its reader)
# the refill lock's expiry (EX): longer than any holder can take (8 boards, each one
# query of at most 2 s, queued behind the others), so a lock never lapses mid-refill
LOCK_EX_US = 30_000_000
BUCKET_US = 100_000  # the charts' resolution
KEEP_BUCKETS = 100  # ten seconds of history per lane
SEAL = 10  # closed buckets are sealed a second at a time into blocks checkpoints share
# queries waiting at the database, at most: beyond it a query is refused at once
# ("busy", an error to its reader). The lock lanes never come near it (one query a
# board); without the lock a lifetime of 0 would otherwise queue thousands a second.
MAX_QUEUE = 10_000
QUEUE_SHOWN = 64  # queued queries the snapshot lists (it counts them all)
DOTS_PER_ADVANCE = 120  # hits drawn per lane and frame, at most (evenly sampled)
MISSES_PER_ADVANCE = 400  # reads that were not plain hits, at most (the first ones)
# XFetch's early-refresh chart: remaining time in units of delta * beta, in bins
X_BIN, X_BINS = 0.25, 24

# how a read ended
HIT, MISS, EARLY, WAITED, GAVE_UP, BUSY = 0, 1, 2, 3, 4, 5
OUTCOMES = ("hit", "miss", "early", "waited", "gave_up", "busy")
# lane events
DONE, POLL = 0, 1


def poll_us(query_us: int) -> int:
    """How long a lock waiter waits before it looks again."""
    return max(POLL_US, query_us // 4)


def early_chance(left_us: int, delta_us: int, beta: float) -> float:
    """XFetch's chance that one read `left_us` before expiry recomputes early."""
    return exp(-left_us / (delta_us * beta))


class Settings:
    """What the visitor set, shared by the four lanes."""

    __slots__ = ("ttl_us", "query_us", "db_limit", "beta", "memory_mb")

    def __init__(self, ttl_us, query_us, db_limit, beta, memory_mb) -> None:
        self.ttl_us = ttl_us
        self.query_us = query_us
        self.db_limit = db_limit
        self.beta = beta
        self.memory_mb = memory_mb


class Bucket:
    """One tenth of a second of a lane: what was read, queried and served."""

    __slots__ = ("start_us", "reads", "hits", "queries", "peak", "age", "stale", "lat")

    def __init__(self, start_us: int, in_flight: int) -> None:
        self.start_us = start_us
        self.reads = self.hits = self.queries = 0
        self.peak = in_flight  # queries running at its start count
        self.age = self.stale = 0  # the oldest board and the longest staleness served
        self.lat: list[int] = []

    def closed(self) -> tuple:
        """(start_us, reads, hits, queries, peak, age_us, stale_us, p50_us, p99_us)."""
        lat = sorted(self.lat)
        p50 = lat[(len(lat) - 1) // 2] if lat else 0
        p99 = lat[(99 * len(lat) - 1) // 100] if lat else 0
        return (
            self.start_us,
            self.reads,
            self.hits,
            self.queries,
            self.peak,
            self.age,
            self.stale,
            p50,
            p99,
        )


class Lane:
    """A cache in front of a database, refilled by one strategy."""

    def __init__(self, strategy: str, settings: Settings, db) -> None:
        self.strategy = strategy
        self.settings = settings
        self.db = db  # the shared record of updates: versions and when they landed
        self.uses_lock = strategy in ("lock", "xfetch_lock")
        self.xfetch = strategy in ("xfetch", "xfetch_lock")
        # board → [version, computed_us, expiry_us, delta_us]
        self.entries: dict[int, list[int]] = {}
        # what occupies memory, least recently used first, one megabyte each: boards
        # by index (0 up), other keys (sessions) as -1, -2 … (small in a checkpoint)
        self.lru: OrderedDict = OrderedDict()
        self.locks: dict[int, int] = {}  # board → when the lock expires
        self.heap: list = []
        self.seq = 0
        self.running: dict[int, list] = {}  # query id → query
        self.queue: deque = deque()
        self.next_query = 0
        # reads waiting for a lock holder: id → [arrive_us, board, polls]
        self.waiting: dict[int, list] = {}
        self.next_wait = 0
        self.evicted: list = []  # (at_us, key) since the last frame
        # reads that ended since the last frame (for dots): how many, the first
        # `MISSES_PER_ADVANCE` that were not plain hits, and each plain hit as two
        # numbers in arrays (it arrived, and ended a cache round trip later), not a
        # list of its own: a jump of a minute at 5,000 reads a second ends 300,000
        # reads in each lane, and as many lists made the garbage collector walk them
        # all, again and again, holding the GIL for seconds (issue 29)
        self.ended = 0
        self.finished: list = []
        self.hit_arrivals = array("q")
        self.hit_boards = array("i")
        self.finished_count = 0
        self.totals = dict.fromkeys(
            (
                "reads",
                "hits",
                "queries",
                "early",
                "waited",
                "gave_up",
                "busy",
                "polls",
                "evictions",
            ),
            0,
        )
        self.peak_in_flight = 0
        self.max_stale_us = 0
        self.max_age_us = 0
        # refills of one board running at once, at most, ever (the lock keeps it 1)
        self.most_refills = 0
        self.refilling: dict[int, int] = {}
        # board → [queries, first started, expiry then] of the refill under way; the
        # refills that finished since the last frame; each board's last refill
        self.episode: dict[int, list[int]] = {}
        self.refilled: list[dict] = []
        self.last_refill: dict[int, dict] = {}
        # closed buckets: whole seconds sealed into shared blocks, then this second's
        self.sealed: deque = deque(maxlen=KEEP_BUCKETS // SEAL + 1)
        self.recent: list[tuple] = []
        self.bucket = Bucket(0, 0)
        # XFetch: per bin of remaining / (delta * beta): [reads, early decisions]
        self.xbins = [[0, 0] for _ in range(X_BINS)] if self.xfetch else None

    # ----- time -----------------------------------------------------------------------
    def roll(self, t: int) -> None:
        """Close the buckets that ended by `t`; the open one is the one holding `t`."""
        start = t - t % BUCKET_US
        bucket = self.bucket
        if start == bucket.start_us:
            return
        self._close(bucket.closed())
        in_flight = len(self.running)
        first = max(bucket.start_us + BUCKET_US, start - KEEP_BUCKETS * BUCKET_US)
        for empty in range(first, start, BUCKET_US):
            self._close(Bucket(empty, in_flight).closed())
        self.bucket = Bucket(start, in_flight)

    def _close(self, closed: tuple) -> None:
        """Keep a closed bucket; the last of each second seals the second's."""
        self.recent.append(closed)
        if (closed[0] // BUCKET_US + 1) % SEAL == 0:
            self.sealed.append(Block(tuple(self.recent), 0))
            self.recent = []

    def history(self) -> list:
        """The last ten seconds of closed buckets, oldest first."""
        closed = [b for block in self.sealed for b in block.items]
        closed += self.recent
        return closed[-KEEP_BUCKETS:]

    def run_until(self, t: int) -> None:
        """Run the lane's own events due at or before `t`."""
        heap = self.heap
        while heap and heap[0][0] <= t:
            at, _seq, kind, ref = heapq.heappop(heap)
            self.roll(at)
            if kind == DONE:
                self._query_done(at, ref)
            else:
                self._poll(at, ref)
        self.roll(t)

    def next_due(self) -> int | None:
        return self.heap[0][0] if self.heap else None

    def _push(self, at: int, kind: int, ref) -> None:
        heapq.heappush(self.heap, (at, self.seq, kind, ref))
        self.seq += 1

    # ----- memory ---------------------------------------------------------------------
    def _store(self, key) -> None:
        """Put `key` in memory as the most recently used; evict beyond the limit."""
        lru = self.lru
        lru[key] = None
        lru.move_to_end(key)
        self.evict_over()

    def fill(self, keys: range) -> None:
        """Write other keys (sessions, numbered below 0) into memory, evicting what
        was least used."""
        for key in keys:
            self._store(key)

    def evict_over(self) -> None:
        """Evict the least recently used keys until memory fits its limit."""
        lru, limit = self.lru, self.settings.memory_mb
        while len(lru) > limit:
            victim, _ = lru.popitem(last=False)
            if victim >= 0:
                del self.entries[victim]
            self.evicted.append(victim)
            self.totals["evictions"] += 1

    def drop(self, board: int) -> None:
        """Delete a board from the cache (delete-on-write)."""
        if board in self.entries:
            del self.entries[board]
            del self.lru[board]

    def seed_entry(self, board: int, computed_us: int, expiry_us: int) -> None:
        """A board already cached when the lab starts."""
        self.entries[board] = [0, computed_us, expiry_us, self.settings.query_us]
        self._store(board)

    # ----- reads ----------------------------------------------------------------------
    def read(self, t: int, board: int, u: float, ln_u: float) -> None:
        """A read of `board` arriving at `t`; `u` (and its log) is its random draw."""
        self.totals["reads"] += 1
        bucket = self.bucket
        bucket.reads += 1
        entry = self.entries.get(board)
        if entry is not None and t < entry[2]:
            if self.xfetch:
                # the read's XFetch test: recompute when -delta*beta*ln(u) reaches
                # the time left, which happens with chance exp(-left/(delta*beta))
                scale = entry[3] * self.settings.beta
                left = entry[2] - t
                early = scale > 0 and -scale * ln_u >= left
                x = int(left / scale / X_BIN) if scale > 0 else X_BINS
                if x < X_BINS:
                    cell = self.xbins[x]
                    cell[0] += 1
                    cell[1] += early
                if early and (not self.uses_lock or self._take_lock(board, t)):
                    self.totals["early"] += 1
                    self._query(t, board, t, EARLY)
                    return
            self._hit(t, t, board, entry, HIT, 0)
            return
        if self.uses_lock and not self._take_lock(board, t):
            self._wait(t, t, board, 0)
            return
        self._query(t, board, t, MISS)

    def _hit(self, arrive, t, board, entry, outcome, polls) -> None:
        """Answer from the cache at `t` (a read that arrived at `arrive`)."""
        self.lru.move_to_end(board)
        bucket = self.bucket
        if outcome == HIT:
            self.totals["hits"] += 1
            bucket.hits += 1
        age = t - entry[1]
        stale = self.db.staleness(board, entry[0], t)
        if age > bucket.age:
            bucket.age = age
        if stale > bucket.stale:
            bucket.stale = stale
        if stale > self.max_stale_us:
            self.max_stale_us = stale
        if age > self.max_age_us:
            self.max_age_us = age
        done = t + CACHE_RTT_US
        bucket.lat.append(done - arrive)
        if outcome == HIT:  # a read that arrived now (`read`), never polled
            self.finished_count += 1
            self.ended += 1
            self.hit_arrivals.append(arrive)
            self.hit_boards.append(board)
            return
        self._finish([arrive, board, outcome, -1, -1, done, polls])

    def _finish(self, record: list) -> None:
        """A read that ended other than as a plain hit."""
        self.finished_count += 1
        self.ended += 1
        if len(self.finished) < MISSES_PER_ADVANCE:
            self.finished.append(record)

    # ----- the lock -------------------------------------------------------------------
    def _take_lock(self, board: int, t: int) -> bool:
        """SET lock:<board> NX EX: true when this caller now holds it."""
        expires = self.locks.get(board)
        if expires is not None and t < expires:
            return False
        self.locks[board] = t + LOCK_EX_US
        return True

    def _wait(self, arrive: int, t: int, board: int, polls: int) -> None:
        ref = self.next_wait
        self.next_wait += 1
        self.waiting[ref] = [arrive, board, polls]
        self._push(t + poll_us(self.settings.query_us), POLL, ref)

    def _poll(self, t: int, ref: int) -> None:
        """A waiter looks again: the value, else the lock, else wait some more."""
        arrive, board, polls = self.waiting.pop(ref)
        polls += 1
        self.totals["polls"] += 1
        entry = self.entries.get(board)
        if entry is not None and t < entry[2]:
            self.totals["waited"] += 1
            self._hit(arrive, t, board, entry, WAITED, polls)
        elif self._take_lock(board, t):
            self._query(t, board, arrive, MISS, polls)
        elif polls >= MAX_POLLS:
            self.totals["gave_up"] += 1
            done = t + CACHE_RTT_US
            self.bucket.lat.append(done - arrive)
            self._finish([arrive, board, GAVE_UP, -1, -1, done, polls])
        else:
            self._wait(arrive, t, board, polls)

    # ----- the database ---------------------------------------------------------------
    def _query(self, t: int, board: int, arrive: int, why: int, polls: int = 0):
        """A query for `board` on behalf of a read that arrived at `arrive`."""
        if len(self.queue) >= MAX_QUEUE:
            self.totals["busy"] += 1
            done = t + CACHE_RTT_US
            self.bucket.lat.append(done - arrive)
            self._finish([arrive, board, BUSY, -1, -1, done, polls])
            return
        ref = self.next_query
        self.next_query += 1
        # [board, arrive, why, polls, enqueued, start, end, duration]
        query = [board, arrive, why, polls, t, -1, -1, self.settings.query_us]
        self.totals["queries"] += 1
        self.bucket.queries += 1
        refills = self.refilling.get(board, 0) + 1
        self.refilling[board] = refills
        if refills > self.most_refills:
            self.most_refills = refills
        episode = self.episode.get(board)
        if episode is None:
            entry = self.entries.get(board)
            self.episode[board] = [1, t, entry[2] if entry is not None else -1]
        else:
            episode[0] += 1
        if len(self.running) < self.settings.db_limit:
            self._start(t, ref, query)
        else:
            self.queue.append((ref, query))

    def _start(self, t: int, ref: int, query: list) -> None:
        query[5], query[6] = t, t + query[7]
        self.running[ref] = query
        in_flight = len(self.running)
        if in_flight > self.bucket.peak:
            self.bucket.peak = in_flight
        if in_flight > self.peak_in_flight:
            self.peak_in_flight = in_flight
        self._push(query[6], DONE, ref)

    def _query_done(self, t: int, ref: int) -> None:
        board, arrive, why, polls, enqueued, start, _end, duration = self.running.pop(
            ref
        )
        self.refilling[board] -= 1
        version = self.db.version(board)
        self.entries[board] = [version, t, t + self.settings.ttl_us, duration]
        self._store(board)
        episode = self.episode.pop(board, None)
        if episode is not None:
            queries, first, expiry = episode
            refill = {"board": board, "queries": queries, "started_us": first}
            refill |= {"expiry_us": expiry, "at_us": t}
            self.refilled.append(refill)
            self.last_refill[board] = refill
        if self.uses_lock and self.locks.get(board, -1) > t:
            del self.locks[board]  # DEL lock:<board>
        done = t + 2 * CACHE_RTT_US
        self.bucket.lat.append(done - arrive)
        self._finish([arrive, board, why, enqueued, start, done, polls])
        while self.queue and len(self.running) < self.settings.db_limit:
            self._start(t, *self.queue.popleft())

    # ----- what a frame shows ---------------------------------------------------------
    def take(self) -> dict:
        """The reads that ended and the keys evicted since the last call."""
        others, self.finished = self.finished, []
        arrivals, boards = self.hit_arrivals, self.hit_boards
        self.hit_arrivals, self.hit_boards = array("q"), array("i")
        ended, self.ended = self.ended, 0
        evicted, self.evicted = self.evicted, []
        refilled, self.refilled = self.refilled, []
        # every read that was not a plain hit is drawn (up to a bound), the hits sampled
        step = max(1, -(-len(arrivals) // DOTS_PER_ADVANCE))
        hits = [
            [t, board, HIT, -1, -1, t + CACHE_RTT_US, 0]
            for t, board in zip(arrivals[::step], boards[::step], strict=True)
        ]
        drawn = sorted([*others, *hits], key=lambda r: r[5])
        return {
            "reads": drawn,
            "ended": ended,
            "refilled": refilled,
            "evicted": [key for key in evicted if key >= 0],
            "evicted_other": sum(key < 0 for key in evicted),
        }

    def view(self, now_us: int) -> dict:
        """The lane as the renderer draws it now."""
        running = sorted(self.running.items())
        return {
            "strategy": self.strategy,
            "boards": {
                str(board): {
                    "version": e[0],
                    "computed_us": e[1],
                    "expiry_us": e[2],
                    "delta_us": e[3],
                }
                for board, e in sorted(self.entries.items())
            },
            "locks": [
                [board, at] for board, at in sorted(self.locks.items()) if at > now_us
            ],
            "running": [[q[0], q[2], q[4], q[5], q[6], q[1]] for _ref, q in running],
            "queued": len(self.queue),
            "queued_boards": [q[0] for _ref, q in islice(self.queue, QUEUE_SHOWN)],
            "waiting": [w[1] for _ref, w in sorted(self.waiting.items())],
            "memory_used_mb": len(self.lru),
            "last_refills": {
                str(board): {k: v for k, v in refill.items() if k != "board"}
                | {"early": refill["expiry_us"] > refill["started_us"]}
                for board, refill in sorted(self.last_refill.items())
            },
            "history": [list(b) for b in [*self.history(), self.bucket.closed()]],
        }

    def numbers(self) -> dict:
        """The lane's totals since the start and over the last second."""
        last = self.history()[-10:]
        reads = sum(b[1] for b in last)
        hits = sum(b[2] for b in last)
        queries = sum(b[3] for b in last)
        seconds = len(last) * BUCKET_US / 1_000_000
        bins = self.xbins
        return {
            **self.totals,
            "peak_in_flight": self.peak_in_flight,
            "most_refills_at_once": self.most_refills,
            "max_stale_us": self.max_stale_us,
            "max_age_us": self.max_age_us,
            "in_flight": len(self.running),
            "queued": len(self.queue),
            "waiting": len(self.waiting),
            "last_second": {
                "seconds": seconds,
                "reads": reads,
                "hits": hits,
                "queries": queries,
                "hit_rate": round(hits / reads, 4) if reads else None,
            },
            "xfetch_bins": None if bins is None else [list(cell) for cell in bins],
        }
