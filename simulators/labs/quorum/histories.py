"""The quorum lab's operations as a history for the engine's checker.

`cluster.ops` holds every write and read with the cluster's `step` at invocation and
at completion (the order the lab's own judge reads, `judge.py`), so the history's
steps are those. How each status maps, honestly:

- acknowledged (`ok`): ok, completed at its `complete_step`;
- a *failed* write: info, not fail. Its coordinator stored it on its own copy at once,
  and read repair and hinted handoff can carry it to the others later, so a write the
  client was told failed may still take effect (the lab's judge treats it so too);
- a failed read: fail; a read or write still pending: info. Reads that did not return
  constrain nothing.

The lab has one client, the learner at the controls (`LEARNER`); a run that drives the
cluster with several clients says whose each operation was with `clients`.
"""

from simulators.engine.history import (
    Op,
    check_linearizable,
    check_monotonic_reads,
    check_read_your_writes,
    checked,
)
from simulators.labs.quorum.cluster import Cluster, Operation

LEARNER = "learner"


def history_of(
    cluster: Cluster, clients: dict[int, str] | None = None
) -> tuple[Op, ...]:
    """Every operation of `cluster` as a checked history, in invoke order."""
    clients = clients or {}
    ops = (_op(op, clients.get(op.id, LEARNER)) for op in cluster.ops)
    return checked(ops, cluster.first_value)


def _op(op: Operation, client: str) -> Op:
    if op.status == "ok":
        outcome = "ok"
    elif op.status == "failed" and op.kind == "read":
        outcome = "fail"
    else:
        outcome = "info"
    value = op.value if op.kind == "write" or outcome == "ok" else None
    return Op(op.id, client, op.kind, value, op.invoke_step, op.complete_step, outcome)


# the newest operations judged on the stage (the time diagram draws as many)
JUDGED = 24
# the search's limit on the stage: about 20 ms at worst on the machine of
# docs/benchmarks.md (a visitor who keeps 24 operations in flight at once can make any
# search explode; past this the verdict is "too long to check"), and shrinking a witness
# as much again
STAGE_WORK_LIMIT = 20_000


def judged(
    cluster: Cluster, last: int = JUDGED, work_limit: int = STAGE_WORK_LIMIT
) -> dict:
    """The newest `last` operations as a history, and the checker's verdicts on it.

    The writes that the judged reads returned are added from before the window, so
    every value read has its write. A history cut this way keeps what the whole one
    says: dropping reads, or writes no kept read returned, never makes a linearizable
    history non-linearizable, so a break found here is a break of the whole history
    (one that needs an older read to show is not looked for). JSON-safe:
    `{"ops": [...], "verdicts": [linearizable, monotonic reads, read your writes]}`
    (each `{promise, ok, witness}`, with `explanation` and `params` unless kept),
    or `{"ops": [], "verdicts": []}` before the first operation.
    """
    return verdicts_of(window_of(cluster, last), cluster.first_value, work_limit)


def window_of(cluster: Cluster, last: int = JUDGED) -> tuple[Op, ...]:
    """The newest `last` operations and the earlier writes their reads returned, as a
    checked history (`judged`)."""
    window = list(cluster.ops.last(last))
    if not window:
        return ()
    first_id = window[0].id
    sources = {
        op.write_id
        for op in window
        if op.kind == "read" and op.status == "ok" and op.write_id
    }
    earlier = [cluster.ops[i - 1] for i in sorted(sources) if i < first_id]
    return checked((_op(op, LEARNER) for op in earlier + window), cluster.first_value)


def verdicts_of(
    history: tuple[Op, ...], initial, work_limit: int = STAGE_WORK_LIMIT
) -> dict:
    """`judged`'s answer for a history from `window_of`."""
    if not history:
        return {"ops": [], "verdicts": []}
    verdicts = (
        check_linearizable(history, initial, work_limit),
        check_monotonic_reads(history, initial),
        check_read_your_writes(history, initial),
    )
    return {
        # compact rows, as the history grows they are resent whole:
        # [id, kind, value, invoke step, complete step or None (unknown), outcome]
        "ops": [
            [
                op.id,
                op.kind,
                op.value,
                op.invoke,
                None if op.outcome == "info" else op.complete,
                op.outcome,
            ]
            for op in history
        ],
        "verdicts": [verdict.shown() for verdict in verdicts],
    }
