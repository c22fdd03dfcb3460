"""The range-splits boundary table (issue 13): splits, moves, new shards keep it whole.

Properties over random operation sequences: the slices cover the key space with no gap
and no overlap, in order; every key is on exactly the shard the table names; no key is
lost or duplicated. And the behaviours the lab will show: timestamps written in order
all land on one shard, and splitting by load splits that hot tail yet leaves every new
write on one slice.
"""

from unittest.mock import patch

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from playground.checkpoints import Parts
from simulators.engine import ActionError
from simulators.labs.range_splits import table as range_table
from simulators.labs.range_splits.streams import hash_shard, stream
from simulators.labs.range_splits.table import RangeTable

PROPERTY = settings(
    max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
SHARDS = ["A", "B", "C"]

keys = st.text(alphabet="ABN0123456789", min_size=1, max_size=6)
operations = st.lists(
    st.one_of(
        st.tuples(st.just("insert"), keys),
        st.tuples(st.just("split"), st.integers(0, 40)),
        st.tuples(
            st.just("move"), st.tuples(st.integers(0, 40), st.sampled_from("ABCDEZ"))
        ),
        st.tuples(st.just("add_shard"), st.sampled_from("DEFA")),
        st.tuples(st.just("rebalance"), st.none()),
        st.tuples(st.just("seal"), st.none()),  # the end of a click
        st.tuples(st.just("restore"), st.none()),  # a checkpoint taken and restored
    ),
    max_size=150,
)


def run(table, ops):
    """Apply `ops`; an ActionError must leave the table as it was. Returns the table
    (a restore replaces it) and the keys written."""
    written = []
    parts = Parts()
    for clock, (op, arg) in enumerate(ops):
        before = table.boundaries()
        try:
            if op == "insert":
                table.insert(arg, clock * 7)
                written.append(arg)
            elif op == "split":
                table.split_now(arg)
            elif op == "move":
                table.move(*arg)
            elif op == "add_shard":
                table.add_shard(arg)
            elif op == "seal":
                table.sort_in()
            elif op == "restore":
                table.sort_in()  # checkpoints are taken between clicks
                table = parts.loads(parts.dumps(table)[0])
            else:
                table.rebalance()
        except ActionError:
            assert table.boundaries() == before
        table.check()
    return table, written


@PROPERTY
@given(
    policy=st.sampled_from(["size", "load"]),
    max_keys=st.integers(1, 8),
    max_writes=st.integers(1, 8),
    ops=operations,
)
def test_the_slices_tile_the_key_space_and_hold_every_key_once(
    policy, max_keys, max_writes, ops
):
    table = RangeTable(
        list(SHARDS),
        policy=policy,
        max_keys=max_keys,
        max_writes=max_writes,
        window_ms=50,
    )
    with patch.object(range_table, "SHARE_AT", 3):  # share runs of a few keys too
        table, written = run(table, ops)
    held = [key for piece in table.slices.values() for key in piece.keys]
    # no key lost, none twice, and in key order across the slices
    assert held == sorted(dict.fromkeys(written))
    for key in written:
        piece = table.slice_of(key)
        assert key in piece.keys
        assert table.shard_of(key) == piece.shard
    rows = table.boundaries()
    assert rows[0]["start"] == ""
    assert rows[-1]["end"] is None
    for left, right in zip(rows, rows[1:], strict=False):
        assert left["end"] == right["start"]


def test_a_slice_past_its_size_splits_in_two_on_its_shard_and_moves_later():
    table = RangeTable(["A", "B"], policy="size", max_keys=4)
    events = []
    for i, key in enumerate(["N10", "N11", "N12", "N13", "N14"]):
        events += table.insert(key, i)
    assert [e["type"] for e in events] == ["slice_split"]
    split = events[0]
    # split first: both halves on A; the half the write (N14) did not go to waits
    assert split["shard"] == "A" and split["at"] == "N12"
    assert split["moving"] == split["slice"]
    assert [r["shard"] for r in table.boundaries()] == ["A", "A"]
    assert table.pending == [split["slice"]]
    # move later: to the least-loaded shard
    moved = table.rebalance()
    assert moved == [
        {
            "type": "slice_moved",
            "slice": split["slice"],
            "from": "A",
            "to": "B",
            "keys": 2,
        }
    ]
    assert table.keys_per_shard() == {"A": 3, "B": 2}
    assert table.pending == []


def test_the_split_now_button_offers_the_upper_half_to_move():
    table = RangeTable(["A", "B"], policy="size", max_keys=100)
    for i, key in enumerate(["N10", "N11", "N12", "N13"]):
        table.insert(key, i)
    split = table.split_now(0)
    assert split["moving"] == split["new"] and split["at"] == "N12"
    assert table.rebalance()[0]["slice"] == split["new"]
    assert table.keys_per_shard() == {"A": 2, "B": 2}


def test_timestamps_in_order_all_land_on_one_shard():
    """Ten writes a second for six minutes, a split past 1,000 keys."""
    table = RangeTable(["A", "B", "C"], policy="size", max_keys=1000)
    minutes = []
    for second in range(360):
        if second % 60 == 0:
            minutes.append({"shards": [], "splits": 0})
        for tenth in range(10):
            key = f"T{second:06d}.{tenth}"
            split = table.insert(key, second * 1000 + tenth * 100)
            minutes[-1]["splits"] += len(split)
            table.rebalance()
            # every write lands on the last slice, the one that runs to the end
            assert table.slice_of(key).id == table.boundaries()[-1]["id"]
            minutes[-1]["shards"].append(table.shard_of(key))
    quiet = [m for m in minutes if m["splits"] == 0]
    assert quiet, "some minute had no split"
    for minute in quiet:
        # a whole minute's writes on one shard, the others get none
        assert len(dict.fromkeys(minute["shards"])) == 1
    assert any(m["splits"] for m in minutes), "the tail did split"


def test_splitting_by_load_splits_the_hot_tail_but_cannot_spread_its_writes():
    table = RangeTable(["A", "B", "C"], policy="load", max_writes=100, window_ms=1000)
    left_halves = []
    for now in range(5000):
        key = f"T{now:08d}"
        for event in table.insert(key, now // 2):  # two writes a millisecond
            left_halves.append(event["slice"])
        table.rebalance()
        # the write went to the newest slice, never to a half left behind by a split
        assert table.slice_of(key).id not in left_halves
    assert len(left_halves) > 3, "the hot range went past the load threshold and split"


def test_a_range_query_reads_the_slices_that_overlap_it_and_refuses_reversed_ends():
    table = RangeTable(["A", "B"], policy="size", max_keys=10)
    for i in range(100):
        table.insert(f"N{10000 + i * 37}", i)
        table.rebalance()
    touched = table.range_query("N12300", "N12399")
    assert 1 <= len(touched) <= 2
    assert len({piece.shard for piece in touched}) <= 2
    before = table.boundaries()
    with pytest.raises(ActionError) as error:
        table.range_query("N12399", "N12300")
    assert error.value.code == "reversed_range"
    assert table.boundaries() == before


def test_bad_moves_and_shards_are_refused_and_change_nothing():
    table = RangeTable(["A", "B"], policy="size", max_keys=3)
    for i, key in enumerate("abcdefgh"):
        table.insert(key, i)
    before = table.boundaries()
    for call, code in [
        (lambda: table.move(0, "Z"), "no_shard"),
        (lambda: table.move(99, "A"), "no_slice"),
        (lambda: table.add_shard("A"), "shard_exists"),
        (lambda: table.split_now(99), "no_slice"),
    ]:
        with pytest.raises(ActionError) as error:
            call()
        assert error.value.code == code
        assert table.boundaries() == before
    with pytest.raises(ActionError) as error:
        RangeTable([], policy="size")
    assert error.value.code == "no_shards"


def test_a_new_shard_takes_slices_until_it_has_about_its_share():
    table = RangeTable(["A", "B"], policy="size", max_keys=10)
    for i in range(200):
        table.insert(f"K{i:05d}", i)
        table.rebalance()
    events = table.add_shard("C")
    assert events and all(e["to"] == "C" for e in events)
    counts = table.keys_per_shard()
    assert counts["C"] >= 200 / 3 * 0.6
    table.check()


# ----- the key streams, and hash placement on the same stream -------------------------


def test_streams_are_seeded_spaced_by_their_rate_and_refuse_bad_input():
    one = list(stream(7, "uniform", 500, rate=250))
    assert one == list(stream(7, "uniform", 500, rate=250))
    assert one != list(stream(8, "uniform", 500, rate=250))
    assert [at for at, _ in one[:5]] == [0, 4, 8, 12, 16]
    assert one[-1][0] == 1996
    times = list(stream(7, "timestamps", 300, rate=1000))
    assert [key for _, key in times] == sorted(key for _, key in times)
    assert len({key for _, key in times}) == 300
    for kind, rate, code in [("nope", 10, "bad_stream"), ("uniform", 0, "bad_rate")]:
        with pytest.raises(ActionError) as error:
            next(stream(1, kind, 10, rate=rate))
        assert error.value.code == code


def test_the_skewed_stream_puts_most_keys_under_a_few_prefixes():
    keys = [key for _, key in stream(3, "skewed", 4000, rate=100)]
    hot = sum(1 for key in keys if key[:2] in ("N1", "N2", "N3"))
    assert 0.8 <= hot / len(keys) <= 0.9  # 80% chosen there, plus the rest's share


def test_timestamps_heat_one_shard_under_range_placement_and_every_shard_under_hash():
    shards = ["A", "B", "C", "D"]
    table = RangeTable(list(shards), policy="size", max_keys=10_000)
    by_range = dict.fromkeys(shards, 0)
    by_hash = dict.fromkeys(shards, 0)
    for at, key in stream(5, "timestamps", 600, rate=10):  # one minute
        table.insert(key, at)
        by_range[table.shard_of(key)] += 1
        by_hash[hash_shard(key, shards)] += 1
    assert sorted(by_range.values()) == [0, 0, 0, 600]
    assert min(by_hash.values()) > 600 / 4 * 0.7


def test_a_range_of_registrations_reads_every_shard_under_hash_placement():
    shards = ["A", "B", "C", "D"]
    wanted = [f"N{n}" for n in range(12300, 12400)]
    assert {hash_shard(key, shards) for key in wanted} == set(shards)
    table = RangeTable(list(shards), policy="size", max_keys=200)
    for at, key in stream(5, "skewed", 3000, rate=100):
        table.insert(key, at)
        table.rebalance()
    assert len({piece.shard for piece in table.range_query("N12300", "N12399")}) <= 2
