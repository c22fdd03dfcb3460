"""two-phase-commit's musts (LABS.md and the lab's issue), over many seeds."""

import pytest

from simulators.labs.two_phase_commit import TwoPhaseCommitLab
from simulators.labs.two_phase_commit.cluster import (
    BANK_OPS,
    CLIENT_TIMEOUT_MS,
    TOTAL,
    VOTE_TIMEOUT_MS,
)

SEEDS = range(30)


def run(lab, ms):
    """Advance `ms` and return the events, in order."""
    events = []
    while ms > 0:
        step = min(ms, 60_000)
        events += lab.apply("advance", {"ms": step})
        ms -= step
    return events


def run_until(lab, wanted, limit_ms=3_000):
    """Advance 1 ms at a time until an event of which `wanted(event)` holds."""
    events = []
    for _ in range(limit_ms):
        batch = lab.apply("advance", {"ms": 1})
        events += batch
        if any(wanted(e) for e in batch):
            return events
    raise AssertionError("never happened")


def shard(lab, name):
    return lab.cluster.shards[name]


def row(lab, name, key):
    return shard(lab, name).rows[key]


def holder(lab, name, key):
    lock = shard(lab, name).locks.get(key)
    return lock["holders"] if lock else []


def op(lab, op_id):
    return next(o for o in lab.cluster.ops if o.id == op_id)


# -- the crash between the phases ---------------------------------------------------


@pytest.mark.parametrize("seed", SEEDS)
def test_a_crash_after_the_decision_keeps_the_locks_and_the_client_in_info(seed):
    lab = TwoPhaseCommitLab(seed=seed)
    lab.apply("crash_between_phases", {"point": "after_decision"})
    lab.apply("book", {"seat": "12A"})
    events = run_until(lab, lambda e: e["type"] == "trap_sprung")
    assert not lab.cluster.up("coordinator")
    assert op(lab, 1).outcome == "info"
    assert [e for e in events if e["type"] == "decided"][0]["decision"] == "commit"
    # long after: still held, the client still does not know, a writer queues
    lab.apply("set_fare", {"seat": "12A", "fare": 99})
    run(lab, 10_000)
    for name, key in (("flights", "seat:12A"), ("bookings", "booking:12A")):
        assert holder(lab, name, key) == [1]
        assert 1 in shard(lab, name).prepared
    assert [r.txn for r in shard(lab, "flights").waiting] == [2]
    queue = next(
        r for r in lab.snapshot()["shards"][0]["rows"] if r["row"] == "seat:12A"
    )
    assert queue["queue"] == [[2, "X"]]
    assert row(lab, "flights", "seat:12A") == {"passenger": "", "fare": 240}
    assert op(lab, 1).outcome == "info" and op(lab, 1).resolved is None
    # the writer's client gave up: it does not know either
    assert op(lab, 2).outcome == "info" and op(lab, 2).reason == "timeout"
    # recovery carries out the logged decision
    lab.apply("recover_server", {"node": "coordinator"})
    run(lab, 500)
    assert row(lab, "flights", "seat:12A") == {"passenger": "P1", "fare": 99}
    assert row(lab, "bookings", "booking:12A") == "P1"
    assert not shard(lab, "flights").locks and not shard(lab, "bookings").locks
    assert op(lab, 1).outcome == "info"  # Jepsen's record never changes
    assert op(lab, 1).resolved == "committed"
    assert op(lab, 2).resolved == "committed"


@pytest.mark.parametrize("seed", SEEDS)
def test_a_crash_before_the_decision_aborts_when_the_coordinator_recovers(seed):
    lab = TwoPhaseCommitLab(seed=seed)
    lab.apply("crash_between_phases", {"point": "before_decision"})
    lab.apply("book", {"seat": "12B"})
    run_until(lab, lambda e: e["type"] == "trap_sprung")
    run(lab, 5_000)
    assert holder(lab, "flights", "seat:12B") == [1]
    assert holder(lab, "bookings", "booking:12B") == [1]
    assert op(lab, 1).outcome == "info"
    lab.apply("recover_server", {"node": "coordinator"})
    events = run(lab, 1_000)
    answered = [e for e in events if e["type"] == "inquiry_answered"]
    assert answered and all(
        e["decision"] == "abort" and e["presumed"] for e in answered
    )
    assert row(lab, "flights", "seat:12B")["passenger"] == ""
    assert row(lab, "bookings", "booking:12B") == ""
    assert not shard(lab, "flights").locks and not shard(lab, "bookings").locks
    assert op(lab, 1).resolved == "aborted"


@pytest.mark.parametrize("seed", SEEDS)
def test_a_crash_between_the_shards_leaves_the_second_one_prepared(seed):
    lab = TwoPhaseCommitLab(seed=seed)
    lab.apply("crash_between_phases", {"point": "between_shards"})
    lab.apply("book", {"seat": "12C"})
    run_until(lab, lambda e: e["type"] == "trap_sprung")
    run(lab, 3_000)
    assert row(lab, "flights", "seat:12C")["passenger"] == "P1"  # told first
    assert holder(lab, "bookings", "booking:12C") == [1]
    assert row(lab, "bookings", "booking:12C") == ""
    lab.apply("recover_server", {"node": "coordinator"})
    run(lab, 500)
    assert row(lab, "bookings", "booking:12C") == "P1"
    assert not shard(lab, "bookings").locks


# -- a shard that crashes -------------------------------------------------------------


@pytest.mark.parametrize("seed", SEEDS)
def test_a_shard_that_crashes_before_voting_makes_the_transaction_abort(seed):
    lab = TwoPhaseCommitLab(seed=seed)
    lab.apply("book", {"seat": "12A"})
    # crash it once it has locked the seat, while its prepare record is being written
    run_until(lab, lambda e: e["type"] == "locked" and e["shard"] == "flights")
    lab.apply("crash_server", {"node": "flights"})
    events = run(lab, VOTE_TIMEOUT_MS + 200)
    decided = [e for e in events if e["type"] == "decided"]
    assert decided == [
        {
            "type": "decided",
            "txn": 1,
            "decision": "abort",
            "reason": "timeout",
            "at_ms": decided[0]["at_ms"],
        }
    ]
    assert op(lab, 1).outcome == "fail"  # certainly no effect
    assert not shard(lab, "bookings").locks
    assert row(lab, "bookings", "booking:12A") == ""
    lab.apply("recover_server", {"node": "flights"})
    run(lab, 100)
    assert not shard(lab, "flights").prepared and not shard(lab, "flights").locks
    assert row(lab, "flights", "seat:12A")["passenger"] == ""


@pytest.mark.parametrize("seed", SEEDS)
def test_a_shard_that_voted_yes_recovers_prepared_and_asks(seed):
    lab = TwoPhaseCommitLab(seed=seed)
    lab.apply("book", {"seat": "12D"})
    run_until(lab, lambda e: e["type"] == "voted" and e["shard"] == "flights")
    lab.apply("crash_server", {"node": "flights"})
    run(lab, 2_000)
    # the coordinator decided commit; the flights shard missed it while down
    assert op(lab, 1).outcome == "ok"
    assert row(lab, "bookings", "booking:12D") == "P1"
    assert row(lab, "flights", "seat:12D")["passenger"] == ""
    events = lab.apply("recover_server", {"node": "flights"})
    recovered = [e for e in events if e["type"] == "recovered"]
    assert recovered[0]["prepared"] == [1]
    assert holder(lab, "flights", "seat:12D") == [1]
    asked = [
        e for e in events if e["type"] == "message_sent" and e["kind"] == "inquire"
    ]
    assert [(e["from"], e["to"], e["info"]["txn"]) for e in asked] == [
        ("flights", "coordinator", 1)
    ]
    run(lab, 300)
    assert row(lab, "flights", "seat:12D")["passenger"] == "P1"
    assert not shard(lab, "flights").locks and not shard(lab, "flights").prepared


@pytest.mark.parametrize("seed", SEEDS[:10])
def test_a_prepared_shard_keeps_asking_while_the_coordinator_is_down(seed):
    lab = TwoPhaseCommitLab(seed=seed)
    lab.apply("crash_between_phases", {"point": "after_decision"})
    lab.apply("book", {"seat": "12A"})
    run_until(lab, lambda e: e["type"] == "trap_sprung")
    events = run(lab, 2_000)
    lost = [e for e in events if e["type"] == "message_lost" and e["kind"] == "inquire"]
    assert len(lost) >= 2 * 4  # both shards, about every 400 ms
    assert holder(lab, "flights", "seat:12A") == [1]


# -- what a commit costs --------------------------------------------------------------


@pytest.mark.parametrize("seed", SEEDS)
def test_one_shard_costs_one_log_write_and_two_shards_two_round_trips(seed):
    lab = TwoPhaseCommitLab(seed=seed)
    lab.apply("set_fare", {"seat": "12A", "fare": 99})
    run(lab, 300)
    lab.apply("book", {"seat": "12B"})
    run(lab, 300)
    lab.apply("transfer", {"source": 1, "target": 2, "amount": 5})  # one shard
    run(lab, 300)
    costs = lab.snapshot()["costs"]
    one, two = costs["one_shard"], costs["two_shard"]
    assert one["f"] == "transfer"
    for bill in (one, {**one, **lab.cluster.recent[0].costs()}):
        assert bill["shards"] == 1
        assert bill["log_writes"] == 1
        assert bill["round_trips"] == 0 and bill["messages"] == 0
    assert list(one["log_writes_by"].values()) == [1]
    assert two["shards"] == 2
    assert two["round_trips"] == 2
    assert two["messages"] == 8  # prepare, vote, commit, ack to and from each
    assert two["log_writes"] == 5
    assert two["log_writes_by"] == {"flights": 2, "bookings": 2, "coordinator": 1}
    assert one["latency_ms"] < two["latency_ms"]


# -- the bank ----------------------------------------------------------------------


def bank(lab, ms=20_000):
    lab.apply("start_bank", {})
    run(lab, ms)
    return lab.bank


@pytest.mark.parametrize("seed", SEEDS[:15])
def test_with_two_phase_commit_every_read_adds_up_to_100(seed):
    lab = TwoPhaseCommitLab(seed=seed)
    result = bank(lab)
    assert result.invoked == BANK_OPS and not result.running
    assert result.reads_ok > 30
    assert {t[1] for t in result.totals} == {TOTAL}
    assert result.off == 0 and result.first_off is None
    assert lab.cluster.total() == TOTAL
    assert result.transfers["ok"] > 60


@pytest.mark.parametrize("seed", SEEDS[:15])
def test_with_two_phase_commit_crashes_never_break_the_total(seed):
    lab = TwoPhaseCommitLab(seed=seed)
    lab.apply("start_bank", {})
    for node in ("coordinator", "flights", "bookings", "coordinator"):
        run(lab, 150 + 37 * (seed % 5))
        lab.apply("crash_server", {"node": node})
        run(lab, 700)
        lab.apply("recover_server", {"node": node})
    run(lab, 20_000)
    assert lab.bank.reads_ok > 10
    assert lab.bank.off == 0
    assert lab.cluster.total() == TOTAL


@pytest.mark.parametrize("seed", SEEDS[:15])
def test_each_shard_on_its_own_with_a_crash_between_shards_breaks_the_total(seed):
    lab = TwoPhaseCommitLab(seed=seed)
    lab.apply("set_mode", {"mode": "independent"})
    lab.apply("crash_between_phases", {"point": "between_shards"})
    lab.apply("start_bank", {})
    events = run_until(lab, lambda e: e["type"] == "trap_sprung", 20_000)
    sprung = [e for e in events if e["type"] == "trap_sprung"][0]
    lab.apply("recover_server", {"node": "coordinator"})
    run(lab, 20_000)
    # the debit was committed, the credit never sent: the money is gone for good
    assert lab.cluster.total() < TOTAL
    assert lab.bank.off > 0
    first = lab.bank.first_off
    assert first["total"] != TOTAL
    assert lab.snapshot()["bank"]["first_off"] == first
    # a debit goes before its credit, so no read after the crash can add up to 100
    later = [
        sum(o.value)
        for o in lab.cluster.ops
        if o.f == "read" and o.outcome == "ok" and o.invoke[0] > sprung["at_ms"]
    ]
    assert later and all(total < TOTAL for total in later)
    assert first["at_ms"] <= min(
        o.complete[0]
        for o in lab.cluster.ops
        if o.invoke[0] > sprung["at_ms"] and o.f == "read" and o.outcome == "ok"
    )


def test_the_same_workload_keeps_its_total_only_with_two_phase_commit():
    broken = 0
    for seed in SEEDS[:10]:
        lab = TwoPhaseCommitLab(seed=seed)
        lab.apply("set_mode", {"mode": "independent"})
        broken += bank(lab).off > 0
    # without a crash a read can still fall between the halves of a transfer
    assert broken >= 5


@pytest.mark.parametrize("seed", SEEDS[:10])
def test_the_client_gives_up_on_a_write_queued_behind_held_locks(seed):
    lab = TwoPhaseCommitLab(seed=seed)
    lab.apply("crash_between_phases", {"point": "after_decision"})
    lab.apply("book", {"seat": "12A"})
    run_until(lab, lambda e: e["type"] == "trap_sprung")
    lab.apply("set_fare", {"seat": "12A", "fare": 99})
    run(lab, CLIENT_TIMEOUT_MS - 1)
    assert op(lab, 2).outcome is None
    run(lab, 1)
    assert op(lab, 2).outcome == "info"
