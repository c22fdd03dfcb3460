"""cache-stampede: the lab's lanes agree with the textbook event loop.

`benchmarks/cache_stampede.py` holds the plainest loop (the reads walked in order, a
heap for finished queries and lock polls, nothing recorded but counts) the benchmark
times the lanes against; written independently of
`sim.py`, it must count the same hits and queries on the same trace, for every
strategy, under queueing, short lifetimes and the lock's polling.
"""

import pytest

from benchmarks.cache_stampede import ours, plainest, trace
from simulators.labs.cache_stampede import CacheStampedeLab
from simulators.labs.cache_stampede.sim import STRATEGIES

CASES = [
    # (ttl µs, query µs, database limit)
    (30_000_000, 20_000, 10),
    (380_000, 20_000, 10),
    (200_000, 40_000, 2),
    (1_000_000, 400_000, 1),
    (0, 20_000, 10),
]


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize(("ttl_us", "query_us", "limit"), CASES)
def test_a_lane_counts_what_the_plainest_loop_counts(strategy, ttl_us, query_us, limit):
    reads = trace(seed=5, rate=1_000, seconds=6)
    assert ours(strategy, reads, ttl_us, query_us, limit) == plainest(
        strategy, reads, ttl_us, query_us, limit
    )


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_full_queue_refuses_alike(strategy):
    # every read misses, one 2 s query at a time: 15,000 reads fill the queue
    reads = trace(seed=6, rate=3_000, seconds=5)
    counts = ours(strategy, reads, 0, 2_000_000, 1)
    assert counts == plainest(strategy, reads, 0, 2_000_000, 1)
    if strategy in ("plain", "xfetch"):
        assert counts[1] < len(reads) - 4_000  # thousands were refused


def test_the_lab_runs_the_same_trace_through_its_lanes():
    lab = CacheStampedeLab(seed=5)
    lab.readers_until_us = 10**15
    lab.apply("set_ttl", {"ttl_ms": 380})
    lab.readers_until_us = 10**15
    lab.run_until(6_000)
    # the lab's first board expires at 0.6 s with the lifetime it was set with (30 s)
    reads = trace(seed=5, rate=1_000, seconds=6)
    for strategy, numbers in lab.metrics()["lanes"].items():
        assert numbers["reads"] == len(reads)
        hits, queries = ours(strategy, reads, 380_000)
        assert numbers["hits"] == hits, strategy
        # the loop goes on after 6 s until the last waiter has its board
        assert queries - 3 <= numbers["queries"] <= queries, strategy
