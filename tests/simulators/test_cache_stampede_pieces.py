"""cache-stampede's lanes draw the same reads with no list per read (issue 29).

A lane kept every read that ended since the last frame as a list of its own, and a
frame drew the first non-hits and an even sample of the hits from them: a jump of a
minute at 5,000 reads a second made 1.2 million lists, which the garbage collector
walked again and again, holding the GIL for seconds. A lane now keeps a plain hit as
two numbers in arrays and only the non-hits it may draw. `OldLane` keeps and takes
them as lanes did; over the same reads both take exactly the same, whether a frame
comes after one read or thousands (around the drawing bounds), in every strategy.
"""

import random
from math import log

import pytest

from simulators.labs.cache_stampede.lab import Database
from simulators.labs.cache_stampede.sim import (
    CACHE_RTT_US,
    DOTS_PER_ADVANCE,
    HIT,
    MISSES_PER_ADVANCE,
    STRATEGIES,
    Lane,
    Settings,
)


class OldLane(Lane):
    """A lane that keeps every ended read as a list, and takes them as lanes did."""

    def __init__(self, *args) -> None:
        super().__init__(*args)
        self.every: list = []

    def _hit(self, arrive, t, board, entry, outcome, polls) -> None:
        super()._hit(arrive, t, board, entry, outcome, polls)
        if outcome == HIT:  # kept as a list instead
            self.hit_arrivals.pop()
            self.hit_boards.pop()
            done = t + CACHE_RTT_US
            self.every.append([arrive, board, outcome, -1, -1, done, polls])

    def _finish(self, record: list) -> None:
        self.finished_count += 1
        self.every.append(record)

    def take(self) -> dict:
        finished, self.every = self.every, []
        evicted, self.evicted = self.evicted, []
        refilled, self.refilled = self.refilled, []
        others = [r for r in finished if r[2] != HIT][:MISSES_PER_ADVANCE]
        hits = [r for r in finished if r[2] == HIT]
        step = max(1, -(-len(hits) // DOTS_PER_ADVANCE))
        drawn = sorted([*others, *hits[::step]], key=lambda r: r[5])
        return {
            "reads": drawn,
            "ended": len(finished),
            "refilled": refilled,
            "evicted": [key for key in evicted if key >= 0],
            "evicted_other": sum(key < 0 for key in evicted),
        }


# (lifetime µs, query µs, database limit, memory MB): hits mostly; short lifetimes
# and a slow database (waits, polls, a queue); no lifetime (every read misses); too
# little memory for the eight boards (evictions)
SETTINGS = [
    (30_000_000, 20_000, 10, 64),
    (200_000, 40_000, 2, 64),
    (0, 20_000, 10, 64),
    (500_000, 20_000, 4, 5),
]
FRAMES = [1, DOTS_PER_ADVANCE, DOTS_PER_ADVANCE + 1, MISSES_PER_ADVANCE + 1, 5_000]


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize(("ttl_us", "query_us", "limit", "memory"), SETTINGS)
def test_a_lane_takes_what_it_took_with_a_list_per_read(
    strategy, ttl_us, query_us, limit, memory
):
    lanes = [
        kind(strategy, Settings(ttl_us, query_us, limit, 1.0, memory), Database())
        for kind in (Lane, OldLane)
    ]
    for lane in lanes:
        lane.seed_entry(0, 0, ttl_us)
    draw = random.Random(f"{strategy}{ttl_us}{memory}").random
    t, read, taken, drawn = 0, 0, 0, 0
    for every in FRAMES * 2:
        for _ in range(every):
            t += int(-log(1.0 - draw()) / 2_000 * 1_000_000)  # 2,000 reads a second
            board = 0 if draw() < 0.7 else int(draw() * 8)
            u = 1.0 - draw()
            for lane in lanes:
                if lane.heap and lane.heap[0][0] <= t:
                    lane.run_until(t)
                elif t - lane.bucket.start_us >= 100_000:
                    lane.roll(t)
                lane.read(t, board, u, log(u))
            read += 1
        new, old = (lane.take() for lane in lanes)
        assert new == old, f"after {read} reads"
        taken += new["ended"]
        drawn += len(new["reads"])
        assert all(type(r) is list for r in new["reads"])
    for lane in lanes:
        lane.run_until(t + 600_000_000)  # the slowest queue drains in 200 s
    last = lanes[0].take()
    assert last == lanes[1].take()
    assert taken + last["ended"] == read  # every read ended, and was counted once
    assert drawn > 2 * len(FRAMES)
    assert lanes[0].finished_count == lanes[1].finished_count
    assert lanes[0].totals == lanes[1].totals
