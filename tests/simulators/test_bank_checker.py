"""Jepsen's bank checker (simulators/engine/bank.py): by hand, against a model whose
reads see transfers half done, on the two-phase-commit lab's runs, and on the inputs
it must refuse."""

import itertools

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from simulators.engine.bank import (
    BANK_OK,
    BANK_TOTAL,
    EXPLAIN_MOST,
    HALF_SEEN_MANY,
    HALF_SEEN_ONE,
    NEGATIVE,
    UNEXPLAINED,
    BankOp,
    check_bank,
)
from simulators.labs.two_phase_commit import TwoPhaseCommitLab
from simulators.labs.two_phase_commit.histories import WINDOW, bank_history, judged

START = (25, 25, 25, 25)  # four accounts, total 100
PROPERTY = settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


def transfer(op_id, source, target, amount, invoke, complete, outcome="ok"):
    return BankOp(
        op_id,
        f"c{op_id}",
        "transfer",
        (source, target, amount),
        invoke,
        complete,
        outcome,
    )


def read(op_id, balances, invoke, complete, outcome="ok"):
    return BankOp(
        op_id, f"c{op_id}", "read", tuple(balances), invoke, complete, outcome
    )


# -- by hand ---------------------------------------------------------------------------


def test_reads_that_add_up_keep_the_promise():
    history = [
        transfer(1, 1, 2, 5, 0, 3),
        read(2, (20, 30, 25, 25), 4, 5),
        read(3, (25, 25, 25, 25), 1, 2),  # before the transfer took effect: fine
    ]
    verdict = check_bank(history, 100, 4)
    assert (verdict.promise, verdict.ok, verdict.explanation) == (
        BANK_TOTAL,
        True,
        BANK_OK,
    )
    assert verdict.message == "Every read of the accounts added up to 100."


def test_a_read_that_saw_a_debit_without_its_credit_is_shown_with_that_transfer():
    history = [
        transfer(1, 1, 3, 4, 0, 10),
        transfer(2, 2, 4, 3, 0, 10),  # under way too, but 3 is not the gap
        read(3, (21, 25, 25, 25), 2, 6),
    ]
    verdict = check_bank(history, 100, 4)
    assert verdict.ok is False
    assert verdict.explanation == HALF_SEEN_ONE
    assert verdict.witness == (1, 3)
    assert verdict.message == (
        "Read 3 added up to 96, not 100. Transfer 1 of 4 was under way while it read: "
        "seeing one half of that transfer and not the other explains the difference."
    )


def test_a_read_over_the_total_is_explained_by_a_credit_seen_alone():
    history = [transfer(1, 1, 3, 2, 5, 9), read(2, (25, 25, 27, 25), 3, 7)]
    verdict = check_bank(history, 100, 4)
    # the witness in invoke order: the read began first
    assert (verdict.ok, verdict.explanation, verdict.witness) == (
        False,
        HALF_SEEN_ONE,
        (2, 1),
    )


def test_the_fewest_transfers_that_explain_it_and_among_those_the_earliest():
    history = [
        transfer(1, 1, 2, 1, 0, 20),
        transfer(2, 3, 4, 2, 1, 20),
        transfer(3, 2, 1, 3, 2, 20),
        transfer(4, 4, 3, 3, 3, 20),
        read(5, (22, 25, 25, 25), 4, 8),
    ]
    verdict = check_bank(history, 100, 4)
    assert (verdict.explanation, verdict.witness) == (HALF_SEEN_ONE, (3, 5))
    history[2] = transfer(3, 2, 1, 4, 2, 20)
    history[3] = transfer(4, 4, 3, 4, 3, 20)
    verdict = check_bank(history, 100, 4)
    assert (verdict.explanation, verdict.witness) == (HALF_SEEN_MANY, (1, 2, 5))
    assert dict(verdict.params)["amount"] == 3
    assert dict(verdict.params)["transfers"] == "1, 2"


def test_transfers_done_before_the_read_or_failed_explain_nothing():
    history = [
        transfer(1, 1, 2, 4, 0, 2),  # acknowledged before the read began
        transfer(2, 1, 2, 4, 1, 9, "fail"),  # certainly had no effect
        read(3, (21, 25, 25, 25), 3, 8),
    ]
    verdict = check_bank(history, 100, 4)
    assert (verdict.ok, verdict.explanation, verdict.witness) == (
        False,
        UNEXPLAINED,
        (3,),
    )
    assert "money was made or lost" in verdict.message


def test_an_info_transfer_is_under_way_for_ever():
    history = [
        transfer(1, 1, 2, 4, 0, 2, "info"),  # the client gave up: it may happen later
        read(2, (21, 25, 25, 25), 30, 40),
    ]
    assert check_bank(history, 100, 4).witness == (1, 2)
    history.append(transfer(3, 1, 2, 4, 50, None, "info"))  # invoked after the read
    assert check_bank(history, 100, 4).witness == (1, 2)


def test_the_first_read_off_by_completion_is_reported():
    history = [
        transfer(1, 1, 2, 1, 0, 50),
        read(2, (24, 25, 25, 25), 1, 40),
        read(3, (24, 25, 25, 25), 2, 10),
    ]
    verdict = check_bank(history, 100, 4)
    assert dict(verdict.params)["read"] == 3


def test_a_balance_below_zero_breaks_it():
    history = [read(1, (-1, 26, 50, 25), 0, 1)]
    verdict = check_bank(history, 100, 4)
    assert (verdict.ok, verdict.explanation, verdict.witness) == (False, NEGATIVE, (1,))
    assert verdict.message == "Read 1 saw account 1 at -1, below zero."


def test_reads_that_did_not_return_constrain_nothing():
    history = [read(1, (), 0, None, "info"), read(2, (), 0, 3, "fail")]
    assert check_bank([BankOp(1, "a", "read", None, 0, None, "info")], 100, 4).ok
    assert check_bank(history[:0], 100, 4).ok


@pytest.mark.parametrize(
    "op, message",
    [
        (lambda: BankOp(1, "a", "transfer", (1, 1, 3), 0, 1), "source, target, amount"),
        (lambda: BankOp(1, "a", "transfer", (1, 2, 0), 0, 1), "source, target, amount"),
        (lambda: BankOp(1, "a", "transfer", [1, 2, 3], 0, 1), "source, target, amount"),
        (lambda: BankOp(1, "a", "read", None, 0, 1), "every balance"),
        (lambda: BankOp(1, "a", "read", (1, "2"), 0, 1), "every balance"),
        (lambda: BankOp(1, "a", "deposit", 5, 0, 1), "bad kind"),
        (lambda: BankOp(1, "a", "read", (1,), 0, None), "needs its completion"),
        (lambda: BankOp(1, "a", "read", (1,), 3, 1), "completes before"),
        (lambda: BankOp(1, "a", "read", (1,), (0, 1), 1), "like invoke"),
        (lambda: BankOp(True, "a", "read", (1,), 0, 1), "id must be an int"),
    ],
)
def test_bad_operations_are_refused(op, message):
    with pytest.raises(ValueError, match=message):
        op()


def test_bad_histories_are_refused():
    with pytest.raises(ValueError, match="balances"):
        check_bank([read(1, (50, 50), 0, 1)], 100, 4)
    with pytest.raises(ValueError, match="same id"):
        check_bank([read(1, START, 0, 1), read(1, START, 2, 3)], 100, 4)
    with pytest.raises(ValueError, match="all be ints, or all tuples"):
        check_bank([read(1, START, 0, 1), read(2, START, (2, 0), (3, 0))], 100, 4)


# -- against a model whose reads see transfers half done ------------------------------


@st.composite
def half_done_runs(draw):
    """Transfers whose debit and credit land at two steps, reads that see the
    accounts as of one step: a run of 'each shard on its own'. Returns the history
    and, for each read, the transfers it saw one half of (with the sign)."""
    events = draw(st.integers(min_value=1, max_value=7))
    ops, halves = [], {}
    moves = []  # (step, account, delta, transfer id)
    clock = 0
    for op_id in range(1, events + 1):
        invoke = clock + draw(st.integers(min_value=0, max_value=3))
        length = draw(st.integers(min_value=2, max_value=8))
        outcome = draw(st.sampled_from(["ok", "ok", "ok", "info", "fail"]))
        if draw(st.booleans()):
            source = draw(st.integers(min_value=1, max_value=4))
            target = draw(st.integers(min_value=1, max_value=3))
            target += target >= source
            amount = draw(st.integers(min_value=1, max_value=5))
            if outcome != "fail":
                # each half lands after the invocation, by the completion
                debit = invoke + draw(st.integers(min_value=1, max_value=length))
                credit = invoke + draw(st.integers(min_value=1, max_value=length))
                if outcome == "info" and draw(st.booleans()):
                    credit = invoke + length + 20  # lands long after the client gave up
                moves += [
                    (debit, source, -amount, op_id),
                    (credit, target, amount, op_id),
                ]
            ops.append(
                (
                    "transfer",
                    op_id,
                    (source, target, amount),
                    invoke,
                    invoke + length,
                    outcome,
                )
            )
        else:
            # the read sees the accounts as of one step before its completion
            at = invoke + draw(st.integers(min_value=0, max_value=length - 1))
            ops.append(("read", op_id, at, invoke, invoke + length, "ok"))
        clock = invoke
    history = []
    for kind, op_id, value, invoke, complete, outcome in ops:
        done = complete if outcome != "info" else None
        if kind == "transfer":
            history.append(transfer(op_id, *value, invoke, done, outcome))
            continue
        balances = [25, 25, 25, 25]
        seen = {}
        for step, account, delta, tid in moves:
            if step <= value:
                balances[account - 1] += delta
                seen[tid] = seen.get(tid, 0) + delta
        halves[op_id] = {tid: d for tid, d in seen.items() if d != 0}
        history.append(read(op_id, balances, invoke, complete))
    return history, halves


def under_way(history, r):
    return [
        t
        for t in history
        if t.kind == "transfer"
        and t.outcome != "fail"
        and t.invoke < r.complete
        and not (t.outcome == "ok" and t.complete < r.invoke)
    ]


@PROPERTY
@given(half_done_runs())
def test_the_checker_agrees_with_the_model(run):
    history, halves = run
    verdict = check_bank(history, 100, 4)
    reads = sorted(
        (op for op in history if op.kind == "read"), key=lambda op: (op.complete, op.id)
    )
    bad = [r for r in reads if sum(r.value) != 100 or min(r.value) < 0]
    assert verdict.ok is (not bad)
    if not bad:
        return
    first = bad[0]
    assert dict(verdict.params)["read"] == first.id
    if min(first.value) < 0:
        assert verdict.explanation == NEGATIVE
        return
    gap = abs(100 - sum(first.value))
    beside = under_way(history, first)
    # every transfer the read really saw half of was under way beside it
    assert set(halves[first.id]) <= {t.id for t in beside}
    smallest = next(
        (
            size
            for size in range(1, EXPLAIN_MOST + 1)
            for chosen in itertools.combinations(beside, size)
            if sum(t.value[2] for t in chosen) == gap
        ),
        None,
    )
    if smallest is None:
        assert verdict.explanation == UNEXPLAINED
        assert verdict.witness == (first.id,)
        return
    found = [op for op in history if op.id in verdict.witness and op.kind == "transfer"]
    assert len(found) == smallest
    assert sum(t.value[2] for t in found) == gap
    assert {t.id for t in found} <= {t.id for t in beside}
    assert verdict.explanation == (HALF_SEEN_ONE if smallest == 1 else HALF_SEEN_MANY)
    # the read's true cause, when all its halves lean one way, is never "unexplained"
    signs = {d > 0 for d in halves[first.id].values()}
    if len(halves[first.id]) <= EXPLAIN_MOST and len(signs) == 1:
        assert verdict.explanation != UNEXPLAINED


# -- on the two-phase-commit lab ---------------------------------------------------


def run_bank(seed, mode, frames=200):
    lab = TwoPhaseCommitLab(seed)
    lab.do_set_mode(mode)
    lab.do_start_bank()
    verdicts = []
    for frame in range(1, frames + 1):
        lab.run_until(frame * 100)
        verdicts.extend(lab.snapshot()["checker"]["verdicts"])
    return lab, verdicts


@pytest.mark.parametrize("seed", range(12))
def test_with_two_phase_commit_every_read_adds_up(seed):
    lab, verdicts = run_bank(seed, "2pc")
    assert verdicts and all(v["ok"] is True for v in verdicts)
    whole = check_bank(bank_history(lab.cluster.ops), 100, 8)
    assert whole.ok is True


@pytest.mark.parametrize("seed", range(12))
def test_each_shard_on_its_own_is_caught_and_explained(seed):
    lab, verdicts = run_bank(seed, "independent")
    broken = [v for v in verdicts if v["ok"] is False]
    assert lab.bank.off > 0 and broken
    ops = {op.id: op for op in lab.cluster.ops}
    for verdict in broken:
        assert verdict["explanation"] in (HALF_SEEN_ONE, HALF_SEEN_MANY)
        shown = verdict["witness"]
        read_op = ops[verdict["params"]["read"]]
        assert read_op.f == "read" and sum(read_op.value) != 100
        assert shown[-1] == read_op.id or read_op.id in shown
        moved = sum(ops[i].value["amount"] for i in shown if ops[i].f == "transfer")
        assert moved == abs(100 - sum(read_op.value))
    whole = check_bank(bank_history(lab.cluster.ops), 100, 8)
    first = lab.bank.first_off
    assert whole.ok is False and dict(whole.params)["read"] == first["op"]


def test_the_stage_judges_the_newest_operations_and_the_transfers_beside_them():
    lab, _verdicts = run_bank(0, "independent", frames=40)
    window = lab.snapshot()["checker"]["window"]
    ids = [op.id for op in lab.cluster.ops]
    assert window[-WINDOW:] == ids[-WINDOW:]
    earlier = window[:-WINDOW]
    assert all(ops_id < ids[-WINDOW] for ops_id in earlier)
    assert judged(lab.cluster)["window"] == window
    assert len(window) <= 24  # what the time diagram draws


def test_a_coordinator_crash_leaves_the_transfer_open_and_the_reads_judged():
    lab = TwoPhaseCommitLab(3)
    lab.do_crash_between_phases("after_decision")
    lab.do_transfer(1, 6, 4)
    lab.run_until(2_000)
    op = lab.cluster.ops[-1]
    assert op.outcome == "info"
    lab.do_recover_server("coordinator")
    lab.run_until(4_000)
    lab.do_read_accounts()
    lab.run_until(6_000)
    checker = lab.snapshot()["checker"]
    assert checker["window"] == [op.id, op.id + 1]
    assert checker["verdicts"] == [{"promise": BANK_TOTAL, "ok": True, "witness": []}]


def test_the_verdicts_words_are_in_the_labs_words():
    from simulators.engine.bank import EXPLANATIONS

    assert set(EXPLANATIONS) <= set(TwoPhaseCommitLab.words)
