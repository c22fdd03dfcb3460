"""The quorum lab's timestamp ties and clock-skew losses, as a tester found them.

1. Two W=1 writes in the same virtual millisecond through B, then A: both stamped 0 ms,
   the tie goes to the larger writer id (B), and the later write A is discarded. The lab
   keeps that rule and says so: a `tie_broken` event and the snapshot's `tie`.
2. Each trial stamped its initial value at the very instant of its write, so a clock
   1 ms behind lost as many writes as one 1,000 ms behind. The initial value is now
   written a seeded 0-999 ms earlier, and lost writes grow with the skew.
"""

import pytest

from simulators.engine import EventQueue
from simulators.labs.quorum import QuorumLab
from simulators.labs.quorum.declaration import QuorumCost
from simulators.labs.quorum.trials import (
    HORIZON_MS,
    PREVIOUS_WRITE_MS,
    TrialConfig,
    initial_age_ms,
    run_skew_ladder,
    run_trials,
    start_trial,
    write_lost,
)

LADDER = "0,-1,-5,-20,-100,-1000"
SKEWS = (0, -1, -5, -20, -100, -1000)


def write(lab, coordinator, w="ONE"):
    return lab.apply("write", {"w": w, "coordinator": coordinator})


def settle(lab, ms=2_000):
    return lab.apply("advance", {"ms": ms})


def ties_in(events):
    return [e for e in events if e["type"] == "tie_broken"]


# -- 1. ties ---------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(10))
def test_two_w1_writes_in_one_millisecond_the_larger_writer_id_wins_and_says_so(seed):
    lab = QuorumLab(seed=seed)
    events = write(lab, "B") + write(lab, "A")  # no time passes between them
    events += settle(lab)
    history = lab.snapshot()["history"]
    assert [(op["coordinator"], op["status"]) for op in history] == [
        ("B", "ok"),
        ("A", "ok"),
    ]
    assert [op["version"] for op in history] == [[0, "B"], [0, "A"]]
    (tie,) = ties_in(events)  # once for the pair, however many copies decide it
    assert tie["timestamp_ms"] == 0
    assert tie["kept"] == {"write": 1, "value": 119, "writer": "B"}
    assert tie["discarded"] == {"write": 2, "value": 118, "writer": "A"}
    assert tie["later_lost"] is True
    assert tie["node"] in ("A", "B", "C")
    snapshot_tie = lab.snapshot()["tie"]
    assert snapshot_tie == {k: v for k, v in tie.items() if k != "type"}
    # every copy keeps B's 119: A's acknowledged 118 is gone, and a read says STALE
    assert [c["value"] for c in lab.snapshot()["replicas"]] == [119, 119, 119]
    lab.apply("read", {"r": "ALL", "coordinator": "C"})
    settle(lab)
    read = lab.snapshot()["history"][-1]
    assert (read["value"], read["expected"], read["stale"]) == (119, 118, True)


def test_when_the_later_write_has_the_larger_id_it_wins_the_tie():
    lab = QuorumLab(seed=4)
    events = write(lab, "A") + write(lab, "B") + settle(lab)
    (tie,) = ties_in(events)
    assert tie["kept"]["writer"] == "B" and tie["discarded"]["writer"] == "A"
    assert tie["later_lost"] is False
    assert [c["value"] for c in lab.snapshot()["replicas"]] == [118, 118, 118]


@pytest.mark.parametrize("seed", range(5))
def test_writes_in_different_milliseconds_or_against_the_first_value_never_tie(seed):
    lab = QuorumLab(seed=seed)
    events = write(lab, "B") + lab.apply("advance", {"ms": 1}) + write(lab, "A")
    events += settle(lab)
    assert ties_in(events) == []
    assert lab.snapshot()["tie"] is None
    assert [c["value"] for c in lab.snapshot()["replicas"]] == [118, 118, 118]


@pytest.mark.parametrize("seed", range(5))
def test_one_coordinator_never_stamps_two_writes_alike(seed):
    """Before: both stamped [0, "A"], and the copies split between 119 and 118 for
    good (equal versions: no copy, repair or hint ever replaced either)."""
    lab = QuorumLab(seed=seed)
    events = write(lab, "A") + write(lab, "A") + settle(lab)
    assert [op["version"] for op in lab.snapshot()["history"]] == [[0, "A"], [1, "A"]]
    assert ties_in(events) == []
    assert [c["value"] for c in lab.snapshot()["replicas"]] == [118, 118, 118]


# -- 2. the initial value and clock skew -----------------------------------------------


def test_the_initial_value_was_written_a_seeded_while_before_the_trial():
    ages = [initial_age_ms(5, index) for index in range(2_000)]
    assert all(0 <= age < PREVIOUS_WRITE_MS for age in ages)
    assert len(set(ages)) > 800  # spread over the second, not one instant
    queue = EventQueue()
    queue.clock.now_ms = 3_000
    cluster = start_trial(TrialConfig(), 5, 9, queue, origin_ms=3_000, record=True)
    expected = [3_000 - initial_age_ms(5, 9), ""]
    assert cluster.snapshot()["replicas"][1]["version"] == expected


def test_a_fresh_lab_stamps_its_first_value_before_it_began():
    for seed in range(20):
        version = QuorumLab(seed=seed).snapshot()["replicas"][0]["version"]
        assert -PREVIOUS_WRITE_MS < version[0] <= 0 and version[1] == ""
    # a write through a node 1 ms behind, at once, is kept unless the first value
    # was written in that very millisecond
    kept = 0
    for seed in range(20):
        lab = QuorumLab(seed=seed)
        lab.apply("set_skew", {"node": "A", "skew_ms": -1})
        write(lab, "A", w="ALL")
        settle(lab)
        kept += [c["value"] for c in lab.snapshot()["replicas"]] == [119, 119, 119]
    assert kept >= 19


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_lost_writes_grow_with_the_skew_in_5000_trials(seed):
    """The tester's case: 5,000 trials, W=2, R=2, one node behind."""
    lost = [
        run_trials(TrialConfig(skews=(("A", skew),)), seed, 5_000).lost_writes
        for skew in SKEWS
    ]
    assert lost[0] == 0
    assert lost == sorted(lost)
    assert lost[1] <= 10  # about 5,000 × 1/3 × 1/1,000
    assert 1_400 <= lost[-1] <= 1_900  # every write A coordinates: about a third
    assert lost[-2] < lost[-1] / 5


@pytest.mark.parametrize(
    "config",
    [
        TrialConfig(),
        TrialConfig(w=1, r=1),
        TrialConfig(w=1, r=1, cut=("A-B",)),
        TrialConfig(stopped=("C",), skews=(("B", 30),)),
        TrialConfig(copies=5, w=3, r=3, skews=(("E", -40),)),
    ],
)
@pytest.mark.parametrize("seed", [0, 11, 12345])
def test_lost_writes_never_fall_as_the_skew_grows(config, seed):
    rungs = run_skew_ladder(config, "A", SKEWS, seed, 300)
    lost = [rung["lost_writes"] for rung in rungs]
    assert [rung["skew_ms"] for rung in rungs] == list(SKEWS)
    if not any(ms < 0 for _, ms in config.skews):
        assert lost[0] == 0
    assert all(a <= b for a, b in zip(lost, lost[1:], strict=False)), lost
    assert lost[-1] > lost[0]


def test_a_lost_write_is_one_no_copy_kept():
    config = TrialConfig(skews=(("A", -1_000),))
    seen = 0
    for index in range(60):
        cluster = start_trial(config, 3, index, EventQueue())
        cluster.network.run_until(HORIZON_MS)
        write_op, read = cluster.ops
        kept = {c.write_id for c in cluster.copies.values()}
        assert write_lost(cluster, write_op) == (write_op.id not in kept)
        if write_lost(cluster, write_op):
            seen += 1
            assert write_op.coordinator == "A" and read.value == 120
    assert seen > 10


def test_the_ladder_in_the_lab_gives_these_numbers_for_seed_42():
    lab = QuorumLab(seed=42)
    before = lab.snapshot()["replicas"]
    (event,) = lab.apply(
        "skew_ladder", {"node": "A", "ladder": "-1000, -100,0,-5,-1,-20", "count": 1000}
    )
    assert event["type"] == "skew_ladder_run"
    assert (event["run"], event["node"], event["count"]) == (1, "A", 1000)
    rungs = [(r["skew_ms"], r["lost_writes"], r["stale"]) for r in event["rungs"]]
    assert rungs == [
        (0, 0, 0),
        (-1, 1, 1),
        (-5, 2, 2),
        (-20, 9, 9),
        (-100, 39, 39),
        (-1000, 328, 328),
    ]
    assert all(r["acknowledged"] == 1000 for r in event["rungs"])
    shown = lab.snapshot()["skew_ladder"]
    assert shown == {k: v for k, v in event.items() if k != "type"}
    assert lab.snapshot()["replicas"] == before  # the live cluster is untouched
    again = lab.apply("skew_ladder", {"node": "A", "ladder": LADDER, "count": 1000})
    assert again[0]["run"] == 2  # a new seed each run
    assert QuorumLab(seed=42).apply(
        "skew_ladder", {"node": "A", "ladder": LADDER, "count": 1000}
    ) == [event]


def test_the_ladder_keeps_the_other_faults_and_replaces_the_nodes_own_skew():
    lab = QuorumLab(seed=8)
    lab.apply("set_levels", {"w": "ONE", "r": "ONE"})
    lab.apply("set_skew", {"node": "A", "skew_ms": -3_000})
    lab.apply("set_skew", {"node": "B", "skew_ms": 200})
    lab.apply("cut_link", {"link": "A-C"})
    args = {"node": "A", "ladder": "0,-1000", "count": 100}
    (event,) = lab.apply("skew_ladder", args)
    assert event["config"]["skews"] == [["A", -3000], ["B", 200]]
    assert event["config"]["cut"] == ["A-C"] and event["config"]["w"] == 1
    assert event["rungs"][0]["lost_writes"] == 0  # A at 0; B runs ahead: loses none
    assert event["rungs"][1]["lost_writes"] > 0


def test_the_ladder_costs_its_trials():
    model = QuorumCost(QuorumLab)
    assert model.cost_of("skew_ladder", {"node": "A", "ladder": LADDER, "count": 1000})
    assert model.cost_of(
        "skew_ladder", {"node": "A", "ladder": LADDER, "count": 1000}
    ) == (250 * 1000 * 6)
    assert model.cost_of("skew_ladder", {"node": "B", "ladder": "0", "count": 100}) == (
        250 * 100
    )
