"""cache-stampede: a simulated minute at 1,000 reads a second, each strategy against
the plainest loop that computes the same hit count.

The trace is the lab's own (its seeded stream draws each gap and each read's XFetch
draw; every read is of LAX's board, as when the lab opens), made once. `ours` runs
one of the lab's lanes over it as the lab does (its charts' buckets, its records of
finished reads for drawing, its XFetch bins); `plainest` is the textbook event loop,
as lean as it comes: the reads walked in their order, a heap for what the simulation
schedules (finished queries and lock polls), the cached board as two numbers, nothing
recorded but the counts. Both must give the same hits and queries (checked before
anything is timed, and by tests/simulators/test_cache_stampede_reference.py).

Run alone: `python -m benchmarks.cache_stampede [--pairs P]`.
"""

import argparse
import heapq
import sys
from collections import deque
from math import log

from benchmarks.timing import MIN_PAIRS, Row, paired_rows, render
from simulators.engine.rng import SplitMix, derive_seed
from simulators.labs.cache_stampede.lab import FIRST_EXPIRY_MS, Database
from simulators.labs.cache_stampede.sim import (
    LOCK_EX_US,
    MAX_POLLS,
    MAX_QUEUE,
    STRATEGIES,
    Lane,
    Settings,
    poll_us,
)

TARGET = 1.5
RATE = 1_000
SECONDS = 60
TTL_US, QUERY_US, DB_LIMIT = 30_000_000, 20_000, 10


def trace(seed: int = 1, rate: int = RATE, seconds: int = SECONDS):
    """(arrival µs, u, ln u) of every read, drawn as the lab draws them."""
    rng = SplitMix(derive_seed(seed, "cache-stampede.readers"))
    reads, end = [], seconds * 1_000_000
    t = int(-log(1.0 - rng.random()) / rate * 1_000_000)
    while t <= end:
        u = 1.0 - rng.random()
        reads.append((t, u, log(u)))
        t += int(-log(1.0 - rng.random()) / rate * 1_000_000)
    return reads


def ours(strategy: str, reads, ttl_us=TTL_US, query_us=QUERY_US, limit=DB_LIMIT):
    """One lane of the lab over the trace: (hits, queries)."""
    settings = Settings(ttl_us, query_us, limit, 1.0, 64)
    lane = Lane(strategy, settings, Database())
    first = FIRST_EXPIRY_MS * 1_000
    lane.seed_entry(0, first - ttl_us, first)
    for t, u, ln_u in reads:
        if lane.heap and lane.heap[0][0] <= t:
            lane.run_until(t)
        elif t - lane.bucket.start_us >= 100_000:
            lane.roll(t)
        lane.read(t, 0, u, ln_u)
        if lane.ended > 4_096:
            lane.take()  # as each frame does
    lane.run_until(reads[-1][0] + 60_000_000)
    return lane.totals["hits"], lane.totals["queries"]


def plainest(strategy: str, reads, ttl_us=TTL_US, query_us=QUERY_US, limit=DB_LIMIT):
    """The textbook event loop for one strategy over the trace: (hits, queries).

    The reads are already in time order, so they are walked as a list and only what
    the simulation schedules (finished queries, lock polls) goes through a heap,
    each event due at or before a read handled before it."""
    lock = strategy in ("lock", "xfetch_lock")
    xfetch = strategy in ("xfetch", "xfetch_lock")
    push, pop = heapq.heappush, heapq.heappop
    first = FIRST_EXPIRY_MS * 1_000
    expiry, delta = first, query_us  # of the one cached board (there is always one)
    lock_until = -1
    running, waiting_db = 0, deque()
    poll = poll_us(query_us)
    hits = queries = seq = 0
    events = []  # (time, seq, done?, polls so far): finished queries and lock polls

    def query(t):
        nonlocal running, queries, seq
        if len(waiting_db) >= MAX_QUEUE:
            return  # refused: the database's queue is full
        queries += 1
        if running < limit:
            running += 1
            seq += 1
            push(events, (t + query_us, seq, True, 0))
        else:
            waiting_db.append(t)

    def handle(t, done, polls):
        nonlocal expiry, delta, lock_until, running, seq
        if done:
            expiry, delta = t + ttl_us, query_us
            if lock and lock_until > t:
                lock_until = -1
            running -= 1
            if waiting_db:
                waiting_db.popleft()
                running += 1
                seq += 1
                push(events, (t + query_us, seq, True, 0))
        elif t < expiry:
            pass  # a lock waiter served after waiting: not a hit
        elif lock_until <= t:
            lock_until = t + LOCK_EX_US
            query(t)
        elif polls < MAX_POLLS:
            seq += 1
            push(events, (t + poll, seq, False, polls + 1))

    for t, _u, ln_u in reads:
        while events and events[0][0] <= t:
            at, _seq, done, polls = pop(events)
            handle(at, done, polls)
        if t < expiry:
            if xfetch and -delta * ln_u >= expiry - t and (not lock or lock_until <= t):
                if lock:
                    lock_until = t + LOCK_EX_US
                query(t)
            else:
                hits += 1
        elif not lock:
            query(t)
        elif lock_until <= t:
            lock_until = t + LOCK_EX_US
            query(t)
        else:
            seq += 1
            push(events, (t + poll, seq, False, 1))
    while events:
        at, _seq, done, polls = pop(events)
        handle(at, done, polls)
    return hits, queries


def stampede_rows(pairs: int = MIN_PAIRS) -> list[Row | str]:
    """One row per strategy: the lab's lane over the plainest loop, same counts."""
    reads = trace()
    rows: list[Row | str] = []
    for strategy in STRATEGIES:
        mine, theirs = ours(strategy, reads), plainest(strategy, reads)
        if mine != theirs:
            raise AssertionError(f"{strategy}: the lane {mine} and the loop {theirs}")
        rows += paired_rows(
            f"cache-stampede: one minute at {RATE:,} reads/s, {strategy} "
            f"({mine[0]:,} hits, {mine[1]:,} queries)",
            "a lab lane / the plainest event loop, same hits",
            lambda s=strategy: ours(s, reads),
            lambda s=strategy: plainest(s, reads),
            len(reads),
            TARGET,
            pairs,
        )
    return rows


def rows(repeat: int, keys: int) -> list[Row | str]:
    """cache-stampede's rows of `make bench` (benchmarks/__main__.py finds them by the
    lab's slug): a simulated minute under each refill strategy."""
    return stampede_rows(repeat)


def browser_rows(repeat: int) -> list:
    """Its rows measured in Chromium: the herd (benchmarks/browser_stampede_fps.py)."""
    from benchmarks.browser_stampede_fps import stampede_fps_rows

    return stampede_fps_rows(repeat)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.cache_stampede")
    parser.add_argument("--pairs", type=int, default=MIN_PAIRS)
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args(argv)
    rows = stampede_rows(args.pairs)
    print(render(rows, markdown=args.markdown))
    return 1 if any(isinstance(r, Row) and r.passed is False for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
