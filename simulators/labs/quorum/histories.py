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

from simulators.engine.history import Op, checked
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
