"""range-splits (issue 13): every must of LABS.md, through the lab's own actions.

- with timestamp keys every write of the current minute lands on one shard and the
  others get none (a hot shard), by size and by load alike, while hash placement
  spreads the same writes;
- a range query N12300-N12399 touches 1-2 shards under range placement and every shard
  under hash placement;
- splits keep the boundary table sorted and cover the whole key space, with no gap
  and no overlap;
- a split first leaves both halves on their shard; one half moves at a later moment;
- a new shard takes whole slices; hash placement moves most keys.
"""

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from simulators.engine import ActionError
from simulators.labs import LABS

SEEDS = (0, 3, 11)


def new_lab(seed=1, **options):
    return LABS["range-splits"](seed=seed, **options)


def assert_tiles(lab) -> None:
    """Both boundary tables: sorted, from the start of the key space to its end."""
    for policy, table in lab.snapshot()["tables"].items():
        rows = table["slices"]
        assert rows[0]["start"] == "", policy
        assert rows[-1]["end"] is None, policy
        for left, right in zip(rows, rows[1:], strict=False):
            assert left["end"] == right["start"], policy
            assert left["start"] < right["start"], policy
        assert sum(r["keys"] for r in rows) == lab.metrics()["keys"]
        lab.tables[policy].check()


@pytest.mark.parametrize("seed", SEEDS)
def test_a_minute_of_timestamps_lands_on_one_shard_under_both_range_tables(seed):
    lab = new_lab(seed)
    # a minute at 1,000 writes a second, then a minute at 5,000 (past the load
    # threshold: the load table splits its hot tail again and again)
    for rate in (1_000, 5_000):
        count = 60 * rate if rate == 1_000 else 60_000
        events = lab.apply(
            "write", {"kind": "timestamps", "count": count, "rate": rate}
        )
        written = events[0]
        minute = lab.metrics()["minute_writes"]
        for policy in ("size", "load"):
            counts = sorted(minute[policy].values())
            assert counts[:-1] == [0, 0, 0], (policy, minute[policy])
            assert counts[-1] >= 0.99 * min(count, 60 * rate)
        # hash placement spreads the same writes over every shard
        hashed = minute["hash"].values()
        assert min(hashed) > 0.2 * sum(hashed)
        assert written["to_ms"] - written["from_ms"] == count * 1000 // rate
    splits = lab.metrics()["splits"]
    assert splits["size"] > 50 and splits["load"] > 20, splits
    assert lab.metrics()["hottest_share"]["load"] == 1.0
    assert_tiles(lab)


def test_splitting_by_load_splits_the_hot_tail_yet_every_write_stays_on_one_shard():
    lab = new_lab(5)
    events = lab.apply("write", {"kind": "timestamps", "count": 40_000, "rate": 8_000})
    load_splits = [
        e for e in events if e["type"] == "slice_split" and e["policy"] == "load"
    ]
    assert len(load_splits) >= 10
    # every split's moving half is the one left behind: the tail keeps its shard
    shards = {e["shard"] for e in load_splits}
    assert len(shards) == 1
    moved = [e for e in events if e["type"] == "slice_moved" and e["policy"] == "load"]
    assert {e["slice"] for e in moved} <= {e["slice"] for e in load_splits}
    heat = lab.snapshot()["heat"]["columns"]
    assert all(sum(v > 0 for v in column["load"].values()) == 1 for column in heat)


@pytest.mark.parametrize("seed", SEEDS)
def test_a_range_of_registrations_reads_one_or_two_shards_by_range_all_by_hash(seed):
    lab = new_lab(seed)
    lab.apply("write", {"kind": "skewed", "count": 60_000, "rate": 5_000})
    (read,) = lab.apply("range_query", {"low": "N12300", "high": "N12399"})
    assert read["keys"] > 0
    for policy in ("size", "load"):
        assert 1 <= len(read["shards"][policy]) <= 2
        assert 1 <= len(read["slices"][policy]) <= 2
    assert read["shards"]["hash"] == ["A", "B", "C", "D"]
    assert read["hash_holding"] == ["A", "B", "C", "D"]
    assert lab.snapshot()["query"] == {k: v for k, v in read.items() if k != "type"}


def test_a_split_leaves_both_halves_in_place_and_a_later_round_moves_one():
    lab = new_lab(2)
    events = lab.apply("write", {"kind": "uniform", "count": 1_500, "rate": 1_000})
    types = [(e["type"], e.get("policy")) for e in events]
    first_split = types.index(("slice_split", "size"))
    first_move = types.index(("slice_moved", "size"))
    assert first_split < first_move
    split, move = events[first_split], events[first_move]
    assert move["slice"] == split["moving"]
    assert move["from"] == split["shard"] == "A"
    assert move["at_ms"] > split["at_ms"]  # a later balancer round
    assert move["at_ms"] % 1_000 == 0 or move["at_ms"] == events[0]["to_ms"]


def test_a_new_shard_takes_whole_slices_and_hash_placement_moves_most_keys():
    lab = new_lab(4)
    lab.apply("write", {"kind": "uniform", "count": 40_000, "rate": 5_000})
    before = lab.snapshot()["tables"]["size"]["slices"]
    events = lab.apply("add_shard", {})
    assert events[0] == {"type": "shard_added", "shard": "E"}
    moved = [e for e in events if e["type"] == "slice_moved" and e["policy"] == "size"]
    assert moved and all(e["to"] == "E" for e in moved)
    after = {r["id"]: r for r in lab.snapshot()["tables"]["size"]["slices"]}
    for row in before:  # the same slices: moved whole, never split by the move
        assert after[row["id"]]["start"] == row["start"]
        assert after[row["id"]]["keys"] == row["keys"]
    keys = lab.metrics()["keys_per_shard"]
    assert keys["size"]["E"] >= 40_000 / 5 * 0.6
    (hashed,) = [e for e in events if e["type"] == "hash_moved"]
    assert hashed["total"] == lab.metrics()["keys"]
    assert hashed["moved"] / hashed["total"] == pytest.approx(0.8, abs=0.02)
    assert sum(keys["hash"].values()) == hashed["total"]


def test_a_lower_threshold_splits_at_once_and_split_now_and_move_obey():
    lab = new_lab(6)
    lab.apply("write", {"kind": "uniform", "count": 10_000, "rate": 1_000})
    lab.apply("set_thresholds", {"max_keys": 200, "max_writes": 2_500})
    rows = lab.snapshot()["tables"]["size"]["slices"]
    assert max(r["keys"] for r in rows) <= 200
    assert_tiles(lab)
    target = max(rows, key=lambda r: r["keys"])
    events = lab.apply("split_now", {"policy": "size", "slice": target["id"]})
    assert events[0]["type"] == "slice_split" and events[0]["slice"] == target["id"]
    moved = lab.apply("move_slice", {"policy": "load", "slice": 0, "shard": "C"})
    assert moved[0]["to"] == "C"
    assert lab.snapshot()["tables"]["load"]["slices"][0]["shard"] == "C"
    assert_tiles(lab)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.one_of(
            st.tuples(
                st.just("write"),
                st.fixed_dictionaries(
                    {
                        "kind": st.sampled_from(["uniform", "timestamps", "skewed"]),
                        "count": st.integers(1, 3_000),
                        "rate": st.integers(1, 20_000),
                    }
                ),
            ),
            st.tuples(st.just("add_shard"), st.just({})),
            st.tuples(
                st.just("set_thresholds"),
                st.fixed_dictionaries(
                    {"max_keys": st.integers(100, 2_000), "max_writes": st.just(500)}
                ),
            ),
            st.tuples(
                st.just("split_now"),
                st.fixed_dictionaries(
                    {
                        "policy": st.sampled_from(["size", "load"]),
                        "slice": st.integers(0, 30),
                    }
                ),
            ),
        ),
        max_size=8,
    )
)
def test_any_sequence_of_actions_keeps_both_tables_whole(actions):
    lab = new_lab(9)
    for name, args in actions:
        before = lab.digest()
        try:
            lab.apply(name, args)
        except ActionError:
            assert lab.digest() == before
    assert_tiles(lab)
    metrics = lab.metrics()
    for placement in ("size", "load", "hash"):
        assert sum(metrics["keys_per_shard"][placement].values()) == metrics["keys"]
