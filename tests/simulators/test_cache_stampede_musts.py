"""cache-stampede: the numbers LABS.md and the issue name, pinned."""

import math
import statistics

import pytest

from simulators.labs.cache_stampede import CacheStampedeLab, sim
from simulators.labs.cache_stampede.sim import (
    BUCKET_US,
    CACHE_RTT_US,
    POLL_US,
    X_BIN,
    early_chance,
    poll_us,
)

SECOND = 1_000_000


@pytest.fixture(autouse=True)
def every_read_drawn(monkeypatch):
    """Frames carry every read that ended (the page gets a sample of them)."""
    monkeypatch.setattr(sim, "DOTS_PER_ADVANCE", 10**9)


def reading(seed: int = 1) -> CacheStampedeLab:
    """A lab whose readers never stop (tests run it straight through)."""
    lab = CacheStampedeLab(seed=seed)
    lab.readers_until_us = 10**15
    return lab


def refills(events, lane: str, board: str = "LAX") -> list[dict]:
    return [
        e
        for e in events
        if e["type"] == "refilled" and e["lane"] == lane and e["board"] == board
    ]


def ended(events, lane: str) -> list[list[int]]:
    """Every read that ended in these events, for one lane (sampling off)."""
    return [
        r for e in events if e["type"] == "reads" for r in e["lanes"][lane]["reads"]
    ]


def run_in_steps(lab, until_ms: int, step_ms: int = 5) -> list[dict]:
    """Advance in small steps, as the room clock does, keeping every event."""
    events = []
    while lab.now_ms < until_ms:
        events += lab.apply("advance", {"ms": min(step_ms, until_ms - lab.now_ms)})
    return events


def test_95_percent_of_1000_reads_a_second_sends_50_queries_a_second():
    # a 380 ms lifetime and a 20 ms query: one read in twenty finds the board expired
    lab = reading(seed=3)
    lab.apply("set_ttl", {"ttl_ms": 380})
    lab.run_until(60_000)
    numbers = lab.metrics()["lanes"]["plain"]
    reads, hits, queries = numbers["reads"], numbers["hits"], numbers["queries"]
    assert queries == reads - hits  # plain cache-aside: every miss is a query
    hit_rate = hits / reads
    assert hit_rate == pytest.approx(0.95, abs=0.005)
    per_second = queries / 60
    assert per_second == pytest.approx(reads / 60 * (1 - hit_rate))
    assert per_second == pytest.approx(50, abs=3)


def test_the_shown_arithmetic_is_reads_times_misses():
    lab = reading(seed=4)
    lab.apply("set_ttl", {"ttl_ms": 380})
    lab.run_until(10_000)
    metrics = lab.metrics()
    last = metrics["lanes"]["plain"]["last_second"]
    assert last["seconds"] == 1.0
    expected = last["reads"] * (1 - last["hit_rate"])
    assert metrics["queries_per_s_expected"] == pytest.approx(expected, abs=0.05)
    # and the queries the database saw in that second are the misses
    assert last["queries"] == last["reads"] - last["hits"]


def test_at_expiry_about_20_reads_arrive_and_all_run_the_same_query():
    counts = []
    for seed in range(40):
        lab = reading(seed)
        events = lab.run_until(1_000)
        (refill,) = refills(events, "plain")
        assert refill["started_us"] >= refill["expiry_us"] == 600_000
        assert refill["at_us"] == refill["started_us"] + 20_000
        # every read from the first miss until the refill landed queried the database
        window = [
            r
            for r in ended(events, "plain")
            if refill["started_us"] <= r[0] < refill["at_us"]
        ]
        assert window and all(r[2] == 1 and r[1] == 0 for r in window)
        assert len(window) == refill["queries"]
        counts.append(refill["queries"])
    # Poisson at 1,000 a second: the first miss, then about 20 more in its 20 ms
    assert statistics.mean(counts) == pytest.approx(21, abs=1.5)
    assert min(counts) >= 10


def test_with_the_lock_exactly_one_query_runs_and_the_others_wait_and_read_it():
    for seed in range(20):
        lab = reading(seed)
        events = lab.run_until(1_000)
        (plain,) = refills(events, "plain")
        (locked,) = refills(events, "lock")
        assert locked["queries"] == 1
        assert locked["started_us"] == plain["started_us"]  # the same first reader
        waiters = [r for r in ended(events, "lock") if r[2] == 3]
        assert len(waiters) == plain["queries"] - 1
        for arrive, board, _outcome, _q, _s, done, polls in waiters:
            assert board == 0 and polls >= 1
            # a few polls of 5 ms, then the new board
            assert done >= locked["at_us"]
            assert done - arrive <= locked["at_us"] - arrive + POLL_US + CACHE_RTT_US
            assert poll_us(20_000) == POLL_US
        numbers = lab.metrics()["lanes"]["lock"]
        assert numbers["most_refills_at_once"] == 1
        assert numbers["peak_in_flight"] == 1
        assert numbers["gave_up"] == 0


def test_xfetch_refreshes_before_expiry_with_no_burst_under_the_lock():
    early = []
    for seed in range(20):
        lab = reading(seed)
        events = lab.run_until(1_000)
        (refill,) = refills(events, "xfetch_lock")
        assert refill["early"] and refill["queries"] == 1
        early.append(refill["expiry_us"] - refill["started_us"])
        assert lab.metrics()["lanes"]["xfetch_lock"]["peak_in_flight"] == 1
        # plain XFetch refreshed early too, with a few reads at most deciding at once
        (plain_x,) = refills(events, "xfetch")
        assert plain_x["early"] and plain_x["queries"] < 10
    # with delta 20 ms the refresh comes tens of milliseconds before expiry
    assert 20_000 < statistics.median(early) < 150_000


@pytest.mark.parametrize(
    ("left_s", "chance"), [(2.0, 0.0067), (0.4, 0.368), (0.1, 0.779)]
)
def test_xfetchs_early_refresh_chance_with_delta_0_4_s(left_s, chance):
    assert early_chance(round(left_s * SECOND), 400_000, 1.0) == pytest.approx(
        chance, abs=0.0005
    )


def test_xfetchs_measured_early_refresh_rate_follows_the_formula():
    # delta 0.4 s, a 3 s lifetime and few readers, so that reads land all over the
    # last seconds before expiry: at 5 a second the refresh comes late, at 50 early
    totals = [[0, 0] for _ in range(24)]
    for seed in range(24):
        lab = reading(seed)
        lab.apply("set_query_time", {"query_ms": 400})
        lab.apply("set_ttl", {"ttl_ms": 3_000})
        lab.apply("set_rate", {"rate": 5 if seed % 2 else 50})
        lab.run_until(60_000)
        bins = lab.metrics()["lanes"]["xfetch"]["xfetch_bins"]
        for total, cell in zip(totals, bins, strict=True):
            total[0] += cell[0]
            total[1] += cell[1]
    checked = 0
    for index, (reads, early) in enumerate(totals):
        if reads < 200:
            continue
        low, high = index * X_BIN, (index + 1) * X_BIN
        expected = (math.exp(-low) - math.exp(-high)) / X_BIN  # the bin's average
        sigma = math.sqrt(expected * (1 - expected) / reads)
        assert abs(early / reads - expected) <= 4 * sigma + 1e-3, (index, reads)
        checked += 1
    assert checked >= 8


def test_without_delete_on_write_the_board_stays_stale_up_to_the_lifetime():
    lab = reading(seed=5)
    lab.apply("set_ttl", {"ttl_ms": 2_000})
    lab.run_until(700)  # LAX was refilled at about 0.62 s
    lab.apply("update_flight", {"airport": "LAX", "delete_on_write": False})
    lab.run_until(6_000)
    for lane, numbers in lab.metrics()["lanes"].items():
        stale = numbers["max_stale_us"]
        assert 0 < stale < 2_000 * 1_000, lane
        # served stale nearly a whole lifetime (XFetch refreshes a little early)
        assert stale > (1_500 if "xfetch" in lane else 1_800) * 1_000, lane


def test_with_delete_on_write_no_read_is_stale():
    lab = reading(seed=5)
    lab.apply("set_ttl", {"ttl_ms": 2_000})
    lab.run_until(700)
    events = lab.apply("update_flight", {"airport": "LAX", "delete_on_write": True})
    assert events[0]["stale_in"] == []
    lab.run_until(6_000)
    for numbers in lab.metrics()["lanes"].values():
        assert numbers["max_stale_us"] == 0


def test_a_hot_key_stays_on_one_server_however_many_are_added():
    lab = reading(seed=6)
    lab.apply("make_hot", {"airport": "JFK", "share": 90})
    for count in range(1, 9):
        lab.apply("set_cache_servers", {"count": count})
        lab.run_until(lab.now_ms + 500)
        snapshot = lab.snapshot()
        servers = snapshot["servers"]
        assert len(servers) == count
        total = sum(s["reads"] for s in servers)
        hot = lab.metrics()["hot_server"]
        assert "JFK" in servers[hot]["boards"]
        # the hot board's reads all land on its one server: 90% and some more
        assert servers[hot]["reads"] >= 0.85 * total
        jfk = lab.metrics()["reads_by_board"]["JFK"]
        assert servers[hot]["reads"] >= jfk


def test_a_lifetime_of_0_makes_every_read_miss():
    lab = reading(seed=7)
    events = lab.apply("set_ttl", {"ttl_ms": 0})
    assert events[0]["every_read_misses"] is True
    lab.run_until(2_000)  # the board in the cache from before still expires at 0.6 s
    start = lab.metrics()["lanes"]["plain"]["hits"]
    lab.run_until(3_000)
    numbers = lab.metrics()["lanes"]["plain"]
    assert numbers["hits"] == start
    assert numbers["queries"] > 1_000


def test_lru_eviction_drops_the_boards_not_read_lately():
    lab = reading(seed=8)
    lab.run_until(100)
    # 64 MB: 8 boards in; 60 MB of sessions leaves room for 4 of them
    events = lab.apply("fill_memory", {"mb": 60})
    evicted = events[0]["evicted"]["plain"]
    # LAX was read just now; the others never were since they were set
    assert "LAX" not in evicted and len(evicted) == 4
    assert evicted == ["SFO", "DEN", "DFW", "JFK"]  # least recently set first


def test_a_rising_database_limit_starts_queued_queries_at_once():
    lab = reading(seed=9)
    lab.apply("set_db_limit", {"limit": 1})
    lab.run_until(610)
    lane = lab.lane("plain")
    assert len(lane.running) == 1 and len(lane.queue) > 3
    lab.apply("set_db_limit", {"limit": 64})
    assert not lane.queue and len(lane.running) > 3


def test_history_buckets_cover_the_last_ten_seconds():
    lab = reading(seed=10)
    lab.run_until(12_345)
    history = lab.snapshot()["lanes"][0]["history"]
    assert len(history) == 101  # 100 closed tenths and the open one
    starts = [b[0] for b in history]
    assert starts == list(range(starts[0], starts[0] + 101 * BUCKET_US, BUCKET_US))
    assert starts[-1] == 12_300_000


def test_a_slow_query_is_waited_for_not_given_up_on():
    # a 400 ms query: waiters look every 100 ms, so they read the board, not an error
    lab = reading(seed=3)
    lab.apply("set_query_time", {"query_ms": 400})
    lab.run_until(700)  # the board expired at 0.6 s (it was set with 20 ms)
    lab.apply("set_ttl", {"ttl_ms": 1_000})
    lab.run_until(5_000)
    numbers = lab.metrics()["lanes"]["lock"]
    assert numbers["waited"] > 500 and numbers["gave_up"] == 0
    assert lab.snapshot()["model"]["poll_us"] == 100_000


def test_the_last_refill_of_each_board_is_in_the_snapshot():
    lab = reading(seed=1)
    events = lab.run_until(1_000)
    for view in lab.snapshot()["lanes"]:
        (refill,) = refills(events, view["strategy"])
        shown = view["last_refills"]["0"]
        assert shown["queries"] == refill["queries"]
        assert shown["at_us"] == refill["at_us"] and shown["early"] == refill["early"]


def test_a_frame_draws_every_miss_and_a_sample_of_the_hits(monkeypatch):
    monkeypatch.setattr(sim, "DOTS_PER_ADVANCE", 120)
    lab = reading(seed=1)
    events = lab.run_until(1_000)  # one frame: a herd of misses among 1,000 hits
    (plain,) = refills(events, "plain")
    (taken,) = [e["lanes"]["plain"] for e in events if e["type"] == "reads"]
    misses = [r for r in taken["reads"] if r[2] == 1]
    assert len(misses) == plain["queries"]
    assert len(taken["reads"]) <= 120 + len(misses) < taken["ended"]
    assert [r[5] for r in taken["reads"]] == sorted(r[5] for r in taken["reads"])


def test_readers_that_stopped_start_again_from_now_not_in_the_past():
    # a lifetime of 0 keeps queries waiting long after the readers stopped (5 s
    # after the last action), so time runs on; the next action starts them again
    lab = CacheStampedeLab(seed=3)
    for name, args in (
        ("set_rate", {"rate": 2_000}),
        ("set_query_time", {"query_ms": 2_000}),
        ("set_db_limit", {"limit": 1}),
        ("set_ttl", {"ttl_ms": 0}),
    ):
        lab.apply(name, args)
    lab.apply("advance", {"ms": 60_000})
    lab.apply("advance", {"ms": 60_000})
    assert lab.now_ms == 120_000 and lab.readers_until_us < lab.now_ms * 1_000
    before = lab.metrics()["lanes"]["plain"]["reads"]
    lab.apply("make_hot", {"airport": "SFO", "share": 100})
    assert lab.next_read_us >= lab.now_ms * 1_000  # no read arrives in the past
    lab.apply("advance", {"ms": 60_000})
    reads = lab.metrics()["lanes"]["plain"]["reads"] - before
    assert 8_000 <= reads <= 12_000  # 5 s at 2,000 a second, not the 115 s since
