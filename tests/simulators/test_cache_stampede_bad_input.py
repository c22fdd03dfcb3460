"""cache-stampede: bad input refused with a code and a reason, the digest unchanged."""

import pytest

from simulators.engine import ActionError
from simulators.labs.cache_stampede import CacheStampedeLab, sim

REFUSED = [
    # the read rate: 0 to 5,000 a second
    ("set_rate", {"rate": -1}, "out_of_range"),
    ("set_rate", {"rate": -1_000}, "out_of_range"),
    ("set_rate", {"rate": 5_001}, "out_of_range"),
    ("set_rate", {"rate": 10**12}, "out_of_range"),
    ("set_rate", {"rate": 1.5}, "bad_type"),
    ("set_rate", {"rate": "1000"}, "bad_type"),
    ("set_rate", {"rate": True}, "bad_type"),
    ("set_rate", {}, "missing_argument"),
    # the lifetime: 0 to 60 s (0 is allowed: every read misses)
    ("set_ttl", {"ttl_ms": -1}, "out_of_range"),
    ("set_ttl", {"ttl_ms": -30_000}, "out_of_range"),
    ("set_ttl", {"ttl_ms": 60_001}, "out_of_range"),
    ("set_ttl", {"ttl_ms": None}, "bad_type"),
    # the query time and the database's limit
    ("set_query_time", {"query_ms": 0}, "out_of_range"),
    ("set_query_time", {"query_ms": -20}, "out_of_range"),
    ("set_query_time", {"query_ms": 2_001}, "out_of_range"),
    ("set_db_limit", {"limit": 0}, "out_of_range"),
    ("set_db_limit", {"limit": 65}, "out_of_range"),
    # beta: a number above 0, at most 10
    ("set_beta", {"beta": "0"}, "bad_beta"),
    ("set_beta", {"beta": "0.0"}, "bad_beta"),
    ("set_beta", {"beta": "-1"}, "bad_beta"),
    ("set_beta", {"beta": "-0.5"}, "bad_beta"),
    ("set_beta", {"beta": "11"}, "bad_beta"),
    ("set_beta", {"beta": "1e9"}, "bad_beta"),
    ("set_beta", {"beta": "abc"}, "bad_beta"),
    ("set_beta", {"beta": "NaN"}, "bad_beta"),
    ("set_beta", {"beta": "Infinity"}, "bad_beta"),
    ("set_beta", {"beta": "1,5"}, "bad_beta"),
    ("set_beta", {"beta": ""}, "empty"),
    ("set_beta", {"beta": "123456789"}, "too_long"),
    ("set_beta", {"beta": 1}, "bad_type"),
    # memory: eviction with no memory at all
    ("set_memory", {"mb": 0}, "no_memory"),
    ("set_memory", {"mb": -64}, "out_of_range"),
    ("set_memory", {"mb": 1_025}, "out_of_range"),
    ("fill_memory", {"mb": 0}, "out_of_range"),
    ("fill_memory", {"mb": 1_025}, "out_of_range"),
    # airports and strategies that do not exist
    ("update_flight", {"airport": "XYZ", "delete_on_write": True}, "bad_choice"),
    ("update_flight", {"airport": "lax", "delete_on_write": True}, "bad_choice"),
    ("update_flight", {"airport": "LAX", "delete_on_write": 1}, "bad_type"),
    ("update_flight", {"airport": "LAX"}, "missing_argument"),
    ("make_hot", {"airport": "LAX", "share": 101}, "out_of_range"),
    ("make_hot", {"airport": "LAX", "share": -1}, "out_of_range"),
    ("make_hot", {"airport": "FRA", "share": 90}, "bad_choice"),
    ("set_strategy", {"strategy": "xfetch-lock"}, "bad_choice"),
    ("set_strategy", {"strategy": "PLAIN"}, "bad_choice"),
    ("set_cache_servers", {"count": 0}, "out_of_range"),
    ("set_cache_servers", {"count": 9}, "out_of_range"),
    ("skip_to_expiry", {"when": 1}, "unknown_argument"),
    ("advance", {"ms": 0}, "out_of_range"),
    ("advance", {"ms": 60_001}, "out_of_range"),
]


@pytest.mark.parametrize(("name", "args", "code"), REFUSED)
def test_bad_input_is_refused_and_changes_nothing(name, args, code):
    lab = CacheStampedeLab(seed=2)
    lab.apply("advance", {"ms": 100})
    before = lab.digest()
    with pytest.raises(ActionError) as refused:
        lab.apply(name, args)
    assert refused.value.code == code
    assert refused.value.message
    assert lab.digest() == before


def test_beta_says_why_0_is_refused():
    lab = CacheStampedeLab(seed=2)
    with pytest.raises(ActionError) as refused:
        lab.apply("set_beta", {"beta": "0"})
    assert "above 0" in refused.value.message and refused.value.field == "beta"


@pytest.mark.parametrize(
    ("text", "shown"), [("0.5", "0.5"), (" 2 ", "2"), ("1.50", "1.5")]
)
def test_beta_in_range_is_taken(text, shown):
    lab = CacheStampedeLab(seed=2)
    lab.apply("set_beta", {"beta": text})
    assert lab.snapshot()["beta"] == shown
    assert lab.settings.beta == float(shown)


def test_a_lifetime_of_0_is_shown_not_refused():
    lab = CacheStampedeLab(seed=2)
    (event,) = lab.apply("set_ttl", {"ttl_ms": 0})
    assert event["every_read_misses"] and lab.snapshot()["ttl_ms"] == 0


def test_jumping_to_an_expiry_that_is_not_there_is_refused():
    lab = CacheStampedeLab(seed=2)
    lab.apply("update_flight", {"airport": "LAX", "delete_on_write": True})
    before = lab.digest()
    with pytest.raises(ActionError) as refused:
        lab.apply("skip_to_expiry", {})
    assert refused.value.code == "not_cached"
    assert lab.digest() == before


def test_jumping_lands_just_before_expiry_and_the_burst_follows():
    lab = CacheStampedeLab(seed=2)
    lab.apply("set_ttl", {"ttl_ms": 20_000})
    lab.apply("advance", {"ms": 700})  # refilled at about 0.62 s: expires near 20.6 s
    expiry = lab.lane("plain").entries[0][2]
    events = lab.apply("skip_to_expiry", {})
    assert events[0]["type"] == "skipped"
    assert lab.now_ms == -(-expiry // 1_000) - 300
    assert lab.next_due_ms() is not None  # the readers go on reading
    later = lab.apply("advance", {"ms": 400})
    burst = [e for e in later if e["type"] == "refilled" and e["lane"] == "plain"]
    assert burst and burst[0]["queries"] >= 10


def test_readers_stop_when_nobody_acts_and_play_starts_them_again():
    lab = CacheStampedeLab(seed=2)
    lab.apply("advance", {"ms": 6_000})
    assert lab.next_due_ms() is None  # time stands still: the room stops ticking
    reads = lab.metrics()["lanes"]["plain"]["reads"]
    lab.apply("play", {})
    assert lab.next_due_ms() is not None
    lab.apply("advance", {"ms": 100})
    assert lab.metrics()["lanes"]["plain"]["reads"] > reads


def test_a_lock_waiter_gives_up_when_the_refill_never_lands():
    # a lifetime of 0 under the lock: the holder's board expires as it is set, so
    # waiters poll, take turns at the lock, and give up after ten looks
    lab = CacheStampedeLab(seed=2)
    lab.apply("set_ttl", {"ttl_ms": 0})
    lab.apply("advance", {"ms": 2_000})
    numbers = lab.metrics()["lanes"]["lock"]
    assert numbers["gave_up"] > 0
    assert numbers["most_refills_at_once"] == 1


def test_a_full_database_queue_refuses_queries_instead_of_growing():
    # a lifetime of 0, one query at a time, 2 s each, 5,000 reads a second: without a
    # bound the plain lane would queue about 5,000 queries a second for ever
    lab = CacheStampedeLab(seed=2)
    for name, args in [
        ("set_ttl", {"ttl_ms": 0}),
        ("set_db_limit", {"limit": 1}),
        ("set_query_time", {"query_ms": 2_000}),
        ("set_rate", {"rate": 5_000}),
    ]:
        lab.apply(name, args)
    lab.apply("advance", {"ms": 4_000})
    for strategy in ("plain", "xfetch"):
        lane = lab.lane(strategy)
        assert len(lane.queue) == sim.MAX_QUEUE
        numbers = lab.metrics()["lanes"][strategy]
        assert numbers["busy"] > 5_000
        assert numbers["queued"] == sim.MAX_QUEUE
    # the lock lanes never queue more than one query a board
    assert len(lab.lane("lock").queue) <= 8
