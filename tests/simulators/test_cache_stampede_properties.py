"""cache-stampede: properties over random histories (hypothesis)."""

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from simulators.labs.cache_stampede import CacheStampedeLab
from simulators.labs.cache_stampede.declaration import AIRPORTS

AIRPORT = st.sampled_from(AIRPORTS)
ACTION = st.one_of(
    st.tuples(st.just("advance"), st.fixed_dictionaries({"ms": st.integers(1, 700)})),
    st.tuples(
        st.just("set_rate"), st.fixed_dictionaries({"rate": st.integers(0, 3_000)})
    ),
    st.tuples(
        st.just("set_ttl"), st.fixed_dictionaries({"ttl_ms": st.integers(0, 3_000)})
    ),
    st.tuples(
        st.just("set_query_time"),
        st.fixed_dictionaries({"query_ms": st.integers(1, 400)}),
    ),
    st.tuples(
        st.just("set_db_limit"), st.fixed_dictionaries({"limit": st.integers(1, 12)})
    ),
    st.tuples(
        st.just("update_flight"),
        st.fixed_dictionaries({"airport": AIRPORT, "delete_on_write": st.booleans()}),
    ),
    st.tuples(
        st.just("fill_memory"), st.fixed_dictionaries({"mb": st.integers(1, 80)})
    ),
    st.tuples(st.just("set_memory"), st.fixed_dictionaries({"mb": st.integers(1, 80)})),
    st.tuples(
        st.just("make_hot"),
        st.fixed_dictionaries({"airport": AIRPORT, "share": st.integers(0, 100)}),
    ),
    st.tuples(
        st.just("set_beta"),
        st.fixed_dictionaries({"beta": st.sampled_from(("0.5", "1", "4"))}),
    ),
)
HISTORY = st.lists(ACTION, min_size=1, max_size=14)
FAST = settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


def played(seed: int, history) -> CacheStampedeLab:
    lab = CacheStampedeLab(seed=seed)
    for name, args in history:
        lab.apply(name, args)
    return lab


@FAST
@given(st.integers(0, 2**32), HISTORY)
def test_the_lock_never_lets_two_refills_of_one_board_run_at_once(seed, history):
    lab = played(seed, history)
    lab.apply("advance", {"ms": 500})
    for strategy in ("lock", "xfetch_lock"):
        lane = lab.lane(strategy)
        assert lane.most_refills <= 1, strategy
        # and right now: no board has two queries running or queued
        boards = [q[0] for q in lane.running.values()] + [q[0] for _r, q in lane.queue]
        assert len(boards) == len(set(boards))


@FAST
@given(st.integers(0, 2**32), HISTORY, st.integers(1, 50))
def test_how_time_is_cut_into_advances_changes_nothing(seed, history, step_ms):
    # the room turns real time into advances of any size; the state must not care
    whole = played(seed, history)
    whole.apply("advance", {"ms": 300})
    cut = played(seed, history)
    moved = 0
    while moved < 300:
        ms = min(step_ms, 300 - moved)
        cut.apply("advance", {"ms": ms})
        moved += ms
    assert cut.digest() == whole.digest()


@FAST
@given(st.integers(0, 2**32), HISTORY)
def test_the_same_seed_and_actions_give_the_same_digest(seed, history):
    assert played(seed, history).digest() == played(seed, history).digest()


@FAST
@given(st.integers(0, 2**32), HISTORY)
def test_every_read_is_counted_once_and_memory_stays_within_its_limit(seed, history):
    lab = played(seed, history)
    lab.apply("advance", {"ms": 200})
    for strategy, numbers in lab.metrics()["lanes"].items():
        lane = lab.lane(strategy)
        # every read is a hit, a wait that ended, one that gave up, one that sent a
        # query (a miss or an early refresh; running, queued or done), or a reader
        # still waiting on the lock
        outcomes = ("hits", "waited", "gave_up", "busy", "queries")
        counted = sum(numbers[name] for name in outcomes) + len(lane.waiting)
        assert counted == numbers["reads"], strategy
        assert len(lane.lru) <= lab.settings.memory_mb
        assert set(lane.entries) <= set(lane.lru)


def test_the_lab_forgets_nothing_it_needs_when_copied():
    import pickle

    lab = played(3, [("advance", {"ms": 650}), ("set_rate", {"rate": 2_000})])
    copy = pickle.loads(pickle.dumps(lab))
    assert copy.digest() == lab.digest()
    lab.apply("advance", {"ms": 400})
    copy.apply("advance", {"ms": 400})
    assert copy.digest() == lab.digest()
