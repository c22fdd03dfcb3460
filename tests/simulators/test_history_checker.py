"""The history checker (simulators/engine/history.py) against a brute force, on the
quorum lab's own runs, and on the inputs it must refuse.

Hypothesis prints the falsifying history, which replays the failure exactly.
"""

import itertools
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from benchmarks.history_checker import quorum_history
from simulators.engine import canonical_json
from simulators.engine.history import (
    Op,
    check_linearizable,
    check_monotonic_reads,
    check_read_your_writes,
    history_from,
)
from simulators.engine.wgl import search, shrink
from simulators.labs.quorum import QuorumLab
from simulators.labs.quorum.histories import LEARNER, history_of

REPO = Path(__file__).resolve().parents[2]
PROPERTY = settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
INITIAL = 0


# -- the brute force -----------------------------------------------------------------


def before(a: Op, b: Op) -> bool:
    """a completed ok before b was invoked (an info write never completes)."""
    return a.outcome == "ok" and a.complete < b.invoke


def brute_force(history, initial=INITIAL) -> bool:
    """Linearizable by enumeration: for every choice of the info writes to include,
    every order of the included operations that respects real time, played on a
    register. Failed writes and reads that did not return ok are left out."""
    certain = [op for op in history if op.outcome == "ok"]
    maybe = [op for op in history if op.kind == "write" and op.outcome == "info"]
    for chosen in itertools.product([False, True], repeat=len(maybe)):
        ops = certain + [op for op, take in zip(maybe, chosen, strict=True) if take]
        if any(explains(order, initial) for order in orders(ops, [])):
            return True
    return False


def orders(left: list[Op], placed: list[Op]):
    """Every order of `left` after `placed` in which nothing comes before an
    operation that completed before it was invoked."""
    if not left:
        yield placed
    for op in left:
        if not any(before(other, op) for other in left if other is not op):
            rest = [other for other in left if other is not op]
            yield from orders(rest, [*placed, op])


def explains(order: list[Op], initial) -> bool:
    value = initial
    for op in order:
        if op.kind == "write":
            value = op.value
        elif op.value != value:
            return False
    return True


def session_broken(history, initial=INITIAL) -> dict[str, bool]:
    """Read-your-writes and monotonic reads, straight from their definitions: is
    there a read (and an earlier read or own write) that breaks them for certain?"""
    source = {initial: None} | {op.value: op for op in history if op.kind == "write"}
    reads = [op for op in history if op.kind == "read" and op.outcome == "ok"]
    reads = [op for op in reads if op.value in source]  # values nobody wrote: unsure

    def older(a, b) -> bool:  # a's value was written before b's, for certain
        return b is not None and (a is None or before(a, b))

    return {
        "read-your-writes": any(
            older(source[read.value], write)
            for read in reads
            for write in history
            if write.kind == "write"
            and write.client == read.client
            and before(write, read)
        ),
        "monotonic-reads": any(
            older(source[late.value], source[early.value])
            for late in reads
            for early in reads
            if early.client == late.client and before(early, late)
        ),
    }


def sub_history(history, ids) -> list[Op]:
    return [op for op in history if op.id in ids]


# -- random histories ----------------------------------------------------------------


@st.composite
def histories(draw):
    """Up to 8 operations on 2-3 clients, each client's operations one after another;
    some fail or end unknown. Reads return the initial value or a written one (now and
    then a value nobody wrote)."""
    clients = ["a", "b", "c"][: draw(st.integers(2, 3))]
    count = draw(st.integers(1, 8))
    free = dict.fromkeys(clients, 0)
    rows = []
    for op_id in range(1, count + 1):
        client = draw(st.sampled_from(clients))
        invoke = free[client] + draw(st.integers(0, 6))
        complete = invoke + draw(st.integers(0, 8))
        kind = draw(st.sampled_from(["write", "read"]))
        outcome = draw(st.sampled_from(["ok", "ok", "ok", "fail", "info"]))
        if outcome != "ok" and draw(st.booleans()):
            complete = None  # Jepsen may record when the client gave up, or not
        free[client] = invoke if complete is None else complete
        rows.append([op_id, client, kind, op_id, invoke, complete, outcome])
    values = [INITIAL, *(row[3] for row in rows if row[2] == "write"), count + 1]
    for row in rows:
        if row[2] == "read":
            row[3] = draw(st.sampled_from(values)) if row[6] == "ok" else None
    return history_from(rows, INITIAL)


@PROPERTY
@given(histories())
def test_the_checker_agrees_with_the_brute_force(history):
    verdict = check_linearizable(history, INITIAL)
    assert verdict.ok is brute_force(history)
    assert verdict.promise == "linearizable"
    assert bool(verdict.witness) is (verdict.ok is False)


@PROPERTY
@given(histories())
def test_the_witness_is_not_linearizable_and_nothing_can_be_dropped(history):
    verdict = check_linearizable(history, INITIAL)
    if verdict.ok is not False:
        return
    assert verdict.minimal
    # the ops the search reached, with the writes their reads returned, fail alone
    counted = [op for op in history if op.counts]
    written = {INITIAL} | {op.value for op in counted if op.kind == "write"}
    if all(op.value in written for op in counted):  # else: no search was needed
        found, _work, reached = search(counted, INITIAL, 10**9)
        first = counted[:reached]
        returned = {op.value for op in first if op.kind == "read"}
        later = [op for op in counted[reached:] if op.value in returned]
        assert found is False
        assert not brute_force(first + [op for op in later if op.kind == "write"])
    witness = sub_history(history, verdict.witness)
    assert [op.id for op in witness] == list(verdict.witness)  # in invoke order
    assert not brute_force(witness)
    returned = {op.value for op in witness if op.kind == "read" and op.outcome == "ok"}
    for op in witness:
        if op.kind == "write" and op.value in returned:
            continue  # dropping it leaves a read of a value nobody wrote
        rest = [other for other in witness if other is not op]
        assert brute_force(rest), f"op {op.id} was not needed"


@PROPERTY
@given(histories())
def test_session_promises_match_their_definitions(history):
    broken = session_broken(history)
    for check in (check_read_your_writes, check_monotonic_reads):
        verdict = check(history, INITIAL)
        assert verdict.ok is not broken[verdict.promise]
        if verdict.ok is False:  # a certain break: no order explains it either
            assert not brute_force(history), verdict.message
            witness = sub_history(history, verdict.witness)
            assert not brute_force(witness)
            assert session_broken(witness)[verdict.promise]


# -- the quorum lab ------------------------------------------------------------------


def new_then_old(seed: int, second_reader: str = "B") -> QuorumLab:
    """W=R=QUORUM of 3, no faults: write through A, read through A at once, step
    until that read returns, then read through `second_reader`; let it all end."""
    lab = QuorumLab(seed=seed, copies=3)
    lab.apply("write", {"w": "QUORUM", "coordinator": "A"})
    lab.apply("read", {"r": "QUORUM", "coordinator": "A"})
    while lab.cluster.ops[1].status == "pending":
        lab.apply("step", {})
    lab.apply("read", {"r": "QUORUM", "coordinator": second_reader})
    lab.apply("advance", {"ms": 2_000})
    return lab


@pytest.mark.parametrize("second_reader", ["B", "C"])
def test_seed_385_reads_the_new_value_then_the_old_one(second_reader):
    lab = new_then_old(385, second_reader)
    write, first, second = lab.cluster.ops
    assert write.status == first.status == second.status == "ok"
    assert first.value == write.value == 119 and second.value == 120
    # the second read began after the first returned, and both before the write's ack
    assert first.complete_step < second.invoke_step
    assert second.complete_step < write.complete_step
    assert second.stale is False  # the lab's rule compares with completed writes only
    history = history_of(lab.cluster)
    verdict = check_linearizable(history, 120)
    assert verdict.ok is False and verdict.witness == (1, 2, 3)
    assert verdict.as_dict() == {
        "promise": "linearizable",
        "ok": False,
        "work": verdict.work,
        "explanation": "Read %(late)s returned %(old)s after read %(early)s had "
        "returned %(new)s: no order of the operations explains both.",
        "params": {"late": 3, "old": 120, "early": 2, "new": 119},
        "message": "Read 3 returned 120 after read 2 had returned 119: no order of "
        "the operations explains both.",
        "witness": [1, 2, 3],
        "minimal": True,
    }
    canonical_json(verdict.as_dict())  # JSON-safe, as a snapshot must be
    monotonic = check_monotonic_reads(history, 120)
    assert monotonic.ok is False and monotonic.witness == (1, 2, 3)
    assert check_read_your_writes(history, 120).ok is True  # 119 not yet acknowledged


def test_the_quorum_history_maps_every_status():
    lab = QuorumLab(seed=2, copies=3)
    lab.apply("set_levels", {"w": "ALL", "r": "ALL"})
    lab.apply("write", {"w": "default", "coordinator": "A"})
    lab.apply("advance", {"ms": 1_000})
    lab.apply("stop_node", {"node": "C"})
    lab.apply("write", {"w": "default", "coordinator": "A"})  # cannot reach ALL
    lab.apply("read", {"r": "default", "coordinator": "B"})  # cannot reach ALL
    lab.apply("read", {"r": "ONE", "coordinator": "A"})
    lab.apply("advance", {"ms": 1_000})
    lab.apply("write", {"w": "default", "coordinator": "B"})  # still pending
    history = history_of(lab.cluster)
    assert [(op.id, op.kind, op.value, op.outcome) for op in history] == [
        (1, "write", 119, "ok"),
        (2, "write", 118, "info"),  # failed, yet stored on A: it may take effect
        (3, "read", None, "fail"),
        (4, "read", 118, "ok"),  # and here it has
        (5, "write", 117, "info"),
    ]
    assert {op.client for op in history} == {LEARNER}
    assert history[4].complete is None
    assert check_linearizable(history, 120).ok is True
    assert history_of(lab.cluster, {4: "other"})[3].client == "other"


def test_the_benchmarks_100_operation_quorum_history_takes_a_few_hundred_steps():
    history, initial = quorum_history()  # 4 clients at once, as `make bench` times it
    assert len(history) == 100
    assert len({op.client for op in history}) == 4
    verdict = check_linearizable(history, initial)
    assert verdict.ok is True and verdict.work == 377


# -- session promises ----------------------------------------------------------------


def test_read_your_writes_broken_and_kept():
    broken = history_from(
        [
            (1, "a", "write", 1, 0, 2),
            (2, "b", "write", 2, 3, 5),  # b's write, after a's
            (3, "b", "read", 1, 6, 7),  # b reads a's older value
            (4, "a", "read", 2, 8, 9),
        ],
        INITIAL,
    )
    verdict = check_read_your_writes(broken, INITIAL)
    assert verdict.ok is False and verdict.witness == (1, 2, 3)
    assert dict(verdict.params) == {
        "read": 3,
        "client": "b",
        "old": 1,
        "new": 2,
        "write": 2,
    }
    assert verdict.as_dict()["message"].startswith("Read 3 by b returned 1")
    kept = history_from(
        [
            (1, "a", "write", 1, 0, 2),
            (2, "b", "write", 2, 1, 5),  # concurrent with a's write
            (3, "b", "read", 1, 6, 7),  # so 1 may be newer than 2
            (4, "a", "read", INITIAL, 1, 3),  # before a's write was acknowledged
        ],
        INITIAL,
    )
    assert check_read_your_writes(kept, INITIAL).ok is True
    assert check_linearizable(kept, INITIAL).ok is True


def test_monotonic_reads_broken_and_kept():
    broken = history_from(
        [
            (1, "w", "write", 1, 0, 1),
            (2, "w", "write", 2, 2, 3),
            (3, "r", "read", 2, 4, 5),
            (4, "r", "read", 1, 6, 7),
        ],
        INITIAL,
    )
    verdict = check_monotonic_reads(broken, INITIAL)
    assert verdict.ok is False and verdict.witness == (1, 2, 3, 4)
    assert verdict.message == (
        "Read 4 by r returned 1 after the same client's read 3 had returned the "
        "newer 2."
    )
    kept = history_from(
        [
            (1, "w", "write", 1, 0, 5),
            (2, "w2", "write", 2, 0, 5),  # concurrent: either may be the newer
            (3, "r", "read", 2, 1, 2),
            (4, "r", "read", 1, 3, 4),
            (5, "s", "read", 2, 1, 2),
            (6, "t", "read", INITIAL, 3, 4),  # another client: no promise to s
        ],
        INITIAL,
    )
    assert check_monotonic_reads(kept, INITIAL).ok is True


@pytest.mark.parametrize("pairs", [False, True], ids=["steps", "ms-and-steps"])
def test_the_quorum_anomaly_written_by_hand(pairs):
    """Read 2 returns the new value while the write is in flight; read 3, begun
    after read 2 returned, the old one. Steps are the cluster's counter, or (virtual
    ms, counter): two things in one millisecond keep their order."""
    rows = [
        (1, "w", "write", 119, (0, 1), (90, 6)),
        (2, "r", "read", 119, (0, 2), (31, 3)),
        (3, "r", "read", 120, (31, 4), (87, 5)),
    ]
    if not pairs:
        rows = [(*row[:4], row[4][1], row[5][1]) for row in rows]
    history = history_from(rows, 120)
    verdict = check_linearizable(history, 120)
    assert verdict.ok is False and verdict.witness == (1, 2, 3)
    assert check_monotonic_reads(history, 120).witness == (1, 2, 3)
    assert check_read_your_writes(history, 120).ok is True


def test_a_read_of_a_value_only_a_failed_write_wrote_is_shown_with_that_write():
    history = history_from(
        [
            (1, "a", "write", 1, 0, 1),
            (2, "a", "write", 2, 2, 3, "fail"),  # certainly no effect
            (3, "b", "read", 2, 4, 5),
        ],
        INITIAL,
    )
    verdict = check_linearizable(history, INITIAL)
    assert verdict.ok is False and verdict.witness == (2, 3)
    assert verdict.message == (
        "Read 3 returned 2, but no write that could have taken effect wrote that value."
    )
    assert verdict.translated(lambda english: "%(value)s@%(read)s") == "2@3"


# -- the work limit ------------------------------------------------------------------


def concurrent_writes(count: int):
    """`count` writes all concurrent, then reads of the first and the second value
    one after the other, after every write: no order explains both reads."""
    rows = [(i, f"c{i}", "write", i, 0, 10) for i in range(1, count + 1)]
    rows += [(count + 1, "r", "read", 1, 11, 12), (count + 2, "r", "read", 2, 13, 14)]
    return history_from(rows, INITIAL)


def test_past_the_work_limit_the_answer_is_too_long_never_a_guess():
    history = concurrent_writes(8)
    assert check_linearizable(history, INITIAL).ok is False
    verdict = check_linearizable(history, INITIAL, work_limit=100)
    assert verdict.ok is None and verdict.witness == ()
    assert verdict.work == 101
    assert verdict.message == (
        "Too long to check: the search passed its limit of 100 steps."
    )
    big = check_linearizable(concurrent_writes(24), INITIAL)
    assert big.ok is None


def test_shrinking_past_its_budget_keeps_a_witness_that_still_fails():
    history = concurrent_writes(5)
    full = check_linearizable(history, INITIAL)
    assert full.minimal and full.witness == (1, 2, 6, 7)
    assert full.message == (
        "Read 7 returned 2 after read 6 had returned 1: no order of the operations "
        "explains both."
    )
    found, _work, reached = search(list(history), INITIAL, 10**9)
    assert found is False and reached == 7
    _kept, needed, _minimal = shrink(list(history), INITIAL, 10**9, reached)
    seen = set()
    for budget in range(needed + 1):
        kept, spent, minimal = shrink(list(history), INITIAL, budget, reached)
        assert not brute_force(kept), budget
        assert minimal is (budget >= needed) and spent <= budget + 1
        seen.add(len(kept))
    assert min(seen) == 4 and max(seen) == 7  # from the whole history to the witness


# -- bad input -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("rows", "initial", "error"),
    [
        ([(1, "a", "write", 1, 5, 4)], 0, "op 1 completes before it is invoked"),
        ([(1, "a", "write", 1, 0, 1), (1, "b", "read", 1, 2, 3)], 0, "the id 1"),
        ([(1, "a", "write", 7, 0, 1), (2, "b", "write", 7, 2, 3)], 0, "write 7"),
        ([(1, "a", "write", 0, 0, 1)], 0, "writes the initial value"),
        ([(1, "a", "read", 0, 0, None)], 0, "needs its completion"),
        ([(1, "a", "delete", 0, 0, 1)], 0, "bad kind"),
        ([(1, "a", "write", 1.5, 0, 1)], 0, "an int or a str"),
        ([(True, "a", "write", 1, 0, 1)], 0, "id must be an int"),
        ([(1, "a", "write", 1, (0, 1), 5)], 0, "complete must be a step like invoke"),
        ([(1, "a", "write", 1, 0, 1), (2, "b", "read", 1, (2, 0), (3, 0))], 0, "alike"),
        ([(1, "a", "write", 1, 0.5, 1)], 0, "invoke must be a step"),
    ],
)
def test_bad_histories_are_refused_clearly(rows, initial, error):
    with pytest.raises(ValueError, match=error):
        history_from(rows, initial)


def test_the_checks_refuse_bad_operations_they_are_handed():
    ops = [Op(1, "a", "write", 1, 0, 1), Op(1, "a", "read", 1, 2, 3)]
    for check in (check_linearizable, check_read_your_writes, check_monotonic_reads):
        with pytest.raises(ValueError, match="the id 1"):
            check(ops, INITIAL)


def test_the_checker_imports_neither_django_nor_asyncio_nor_socket():
    script = (
        "import sys, simulators.engine.history, simulators.labs.quorum.histories\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in "
        "{'django', 'asyncio', 'channels', 'socket'}))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


def test_the_quorum_snapshot_judges_seed_385_as_not_linearizable():
    """The lab shows the checker's verdicts on its newest operations: seed 385's
    new-then-old reads break linearizability and monotonic reads, not read your
    writes (the one client never wrote what it read older than)."""
    snapshot = new_then_old(385).snapshot()
    checker = snapshot["checker"]
    assert [op[0] for op in checker["ops"]] == [1, 2, 3]
    linear, monotonic, own = checker["verdicts"]
    assert (linear["promise"], linear["ok"], linear["witness"]) == (
        "linearizable",
        False,
        [1, 2, 3],
    )
    assert linear["explanation"] in QuorumLab.declaration()["words"]
    assert "explanation" not in own  # a kept promise needs no words in every frame
    assert (monotonic["promise"], monotonic["ok"]) == ("monotonic-reads", False)
    assert set(monotonic["witness"]) <= {1, 2, 3}
    assert (own["promise"], own["ok"]) == ("read-your-writes", True)


def test_the_quorum_snapshot_judges_a_quiet_run_linearizable_and_keeps_sources():
    """Writes and reads one after another: linearizable. Past the window of judged
    operations, a read's write is brought in from before it."""
    lab = QuorumLab(seed=1, copies=3)
    lab.apply("write", {"w": "QUORUM", "coordinator": "A"})
    lab.apply("advance", {"ms": 2_000})
    for _ in range(30):
        lab.apply("read", {"r": "QUORUM", "coordinator": "B"})
        lab.apply("advance", {"ms": 2_000})
    checker = lab.snapshot()["checker"]
    ids = [op[0] for op in checker["ops"]]
    assert ids[0] == 1 and len(ids) == 25  # the write, and the newest 24 reads
    assert [v["ok"] for v in checker["verdicts"]] == [True, True, True]


def test_the_stage_s_verdicts_are_bounded_cached_and_not_checkpointed():
    """The stage's search stops at its limit ("too long to check", never a guess),
    a snapshot judges again only when the operations changed, and the cache is not
    part of what a checkpoint stores."""
    import pickle

    from simulators.labs.quorum.histories import judged

    lab = new_then_old(385)
    cut_short = judged(lab.cluster, work_limit=1)
    assert cut_short["verdicts"][0]["ok"] is None
    assert "Too long to check" in cut_short["verdicts"][0]["explanation"]
    first = lab.snapshot()["checker"]
    assert lab.snapshot()["checker"] is first  # nothing changed: the same verdicts
    restored = pickle.loads(pickle.dumps(lab))
    assert restored._judged_for is None
    assert restored.snapshot()["checker"] == first
