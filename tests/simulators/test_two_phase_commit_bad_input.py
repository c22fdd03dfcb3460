"""Bad input to two-phase-commit: each refused with a code, the digest unchanged."""

import pytest

from simulators.engine import ActionError
from simulators.labs.two_phase_commit import TwoPhaseCommitLab
from simulators.labs.two_phase_commit.cluster import BANK_OPS
from simulators.labs.two_phase_commit.declaration import (
    PER_BANK_OP,
    TXN_COST,
    TwoPhaseCost,
)

TRANSFER = {"source": 1, "target": 5, "amount": 5}
ANYWHERE = [
    ("transfer", {**TRANSFER, "amount": 6}, "out_of_range"),
    ("transfer", {**TRANSFER, "amount": 0}, "out_of_range"),
    ("transfer", {**TRANSFER, "amount": -3}, "out_of_range"),
    ("transfer", {**TRANSFER, "amount": 2.5}, "bad_type"),
    ("transfer", {**TRANSFER, "source": 9}, "out_of_range"),
    ("transfer", {**TRANSFER, "source": 0}, "out_of_range"),
    ("transfer", {**TRANSFER, "target": -1}, "out_of_range"),
    ("transfer", {**TRANSFER, "target": 10**9}, "out_of_range"),
    ("transfer", {**TRANSFER, "target": True}, "bad_type"),
    ("transfer", {**TRANSFER, "target": 1}, "same_account"),
    ("transfer", {"source": 1, "target": 5}, "missing_argument"),
    ("book", {"seat": "13C"}, "bad_choice"),
    ("book", {"seat": "12A", "passenger": "me"}, "unknown_argument"),
    ("set_fare", {"seat": "12A", "fare": 0}, "out_of_range"),
    ("set_fare", {"seat": "12A", "fare": 10_000}, "out_of_range"),
    ("crash_server", {"node": "client"}, "not_a_server"),
    ("crash_server", {"node": "shard"}, "no_such_server"),
    ("crash_server", {"node": ""}, "empty"),
    ("recover_server", {"node": "flights"}, "already_up"),
    ("recover_server", {"node": "coordinator"}, "already_up"),
    ("recover_server", {"node": "Coordinator"}, "no_such_server"),
    ("crash_between_phases", {"point": "now"}, "bad_choice"),
    ("set_mode", {"mode": "3pc"}, "bad_choice"),
    ("stop_bank", {}, "bank_stopped"),
    ("no_such_action", {}, "unknown_action"),
]


def refuses(lab, name, args, code):
    before = lab.digest()
    with pytest.raises(ActionError) as raised:
        lab.apply(name, args)
    assert raised.value.code == code, raised.value.message
    assert lab.digest() == before
    return raised.value


@pytest.mark.parametrize(("name", "args", "code"), ANYWHERE)
def test_bad_input_is_refused_and_changes_nothing(name, args, code):
    lab = TwoPhaseCommitLab(seed=3)
    lab.apply("book", {"seat": "12A"})
    lab.apply("advance", {"ms": 30})  # messages on the wire
    refuses(lab, name, args, code)


def test_an_unknown_account_is_named_in_the_error():
    lab = TwoPhaseCommitLab(seed=3)
    error = refuses(lab, "transfer", {**TRANSFER, "target": 9}, "out_of_range")
    assert error.message == "To account must be at most 8"
    assert error.field == "target"


def down(node):
    lab = TwoPhaseCommitLab(seed=4)
    lab.apply("book", {"seat": "12A"})
    lab.apply("advance", {"ms": 20})
    lab.apply("crash_server", {"node": node})
    return lab


@pytest.mark.parametrize("node", ["coordinator", "flights", "bookings"])
def test_crashing_a_server_that_is_down_is_refused(node):
    error = refuses(down(node), "crash_server", {"node": node}, "already_down")
    assert "already down" in error.message


def test_a_transaction_across_shards_while_the_coordinator_is_down_is_refused():
    lab = down("coordinator")
    for name, args in [
        ("book", {"seat": "12B"}),
        ("transfer", TRANSFER),
        ("read_accounts", {}),
        ("crash_between_phases", {"point": "after_decision"}),
    ]:
        error = refuses(lab, name, args, "coordinator_down")
        assert "recover it first" in error.message
    # a write to one shard still goes, straight to the shard
    lab.apply("set_fare", {"seat": "12B", "fare": 99})
    lab.apply("transfer", {"source": 1, "target": 2, "amount": 5})
    lab.apply("advance", {"ms": 200})
    assert [op.outcome for op in lab.cluster.ops[-2:]] == ["ok", "ok"]


def test_a_write_to_a_shard_that_is_down_is_refused():
    lab = down("flights")
    error = refuses(lab, "set_fare", {"seat": "12B", "fare": 99}, "shard_down")
    assert error.params["shard"] == "Flights shard"
    refuses(lab, "transfer", {"source": 1, "target": 2, "amount": 1}, "shard_down")
    # across shards it goes to the coordinator, which will abort it: no vote comes
    lab.apply("transfer", TRANSFER)


def test_the_trap_needs_a_decision_to_crash_around():
    lab = TwoPhaseCommitLab(seed=1)
    lab.apply("set_mode", {"mode": "independent"})
    for point in ("after_decision", "before_decision"):
        refuses(lab, "crash_between_phases", {"point": point}, "no_decision")
    lab.apply("crash_between_phases", {"point": "between_shards"})


def test_switching_to_each_shard_on_its_own_disarms_a_decision_trap():
    lab = TwoPhaseCommitLab(seed=1)
    lab.apply("crash_between_phases", {"point": "before_decision"})
    events = lab.apply("set_mode", {"mode": "independent"})
    assert events[0]["disarmed"] == "before_decision"
    assert lab.snapshot()["trap"] is None


def test_the_workload_runs_once_at_a_time():
    lab = TwoPhaseCommitLab(seed=1)
    lab.apply("start_bank", {})
    refuses(lab, "start_bank", {}, "bank_running")
    lab.apply("stop_bank", {})
    refuses(lab, "stop_bank", {}, "bank_stopped")


def test_workload_clients_get_fail_while_the_coordinator_is_down():
    lab = TwoPhaseCommitLab(seed=2)
    lab.apply("crash_server", {"node": "coordinator"})
    lab.apply("start_bank", {})
    lab.apply("advance", {"ms": 500})
    refused = [op for op in lab.cluster.ops if op.reason == "coordinator_down"]
    assert refused and all(op.outcome == "fail" for op in refused)
    assert all(op.complete[0] == op.invoke[0] for op in refused)


def test_replay_costs_are_declared():
    costs = TwoPhaseCost(TwoPhaseCommitLab)
    for spec in TwoPhaseCommitLab.actions:
        assert spec.cost > 0
    assert costs.cost_of("book", {"seat": "12A"}) == TXN_COST
    # the workload's operations are charged to the advances that run them, all of
    # them at most, three clients each at most one every 20 ms
    start = costs.cost_of("start_bank", {})
    assert start < PER_BANK_OP * BANK_OPS
    tick = costs.cost_of("advance", {"ms": 100})
    assert tick == 200 + PER_BANK_OP * 3 * (100 // 20 + 1)
    rest = costs.cost_of("advance", {"ms": 60_000})
    assert (tick - 200) + (rest - 200) == PER_BANK_OP * BANK_OPS
    assert costs.cost_of("advance", {"ms": 60_000}) == 200  # nothing left to run
    costs.cost_of("recover_server", {"node": "coordinator"})  # stalled ones go on
    assert costs.cost_of("advance", {"ms": 60_000}) == 200 + PER_BANK_OP * BANK_OPS
    costs.cost_of("stop_bank", {})
    assert costs.cost_of("advance", {"ms": 60_000}) == 200
    with pytest.raises(ActionError):
        costs.cost_of("transfer", {**TRANSFER, "amount": 6})
