"""The two-phase-commit lab's operations judged by the engine's bank checker.

`cluster.ops` records every client operation as Jepsen does (`cluster.Operation`);
the bank's transfers and reads of every account are a history for Jepsen's bank
checker (`simulators/engine/bank.py`): every read that returned must add up to the
total the accounts started with. Bookings and fares touch no account: they are drawn
on the time diagram beside the rest, and judged by nothing.

The stage judges a window: the newest `WINDOW` operations, and the transfers from
before it that were still under way when one of its reads ran (those are what a read
seen off is explained by). Cutting the history so never hides a break the window's
reads show, and never invents one: a read's total, and the transfers beside it, are
all the check looks at.
"""

from simulators.engine.bank import BankOp, check_bank
from simulators.labs.two_phase_commit.cluster import ACCOUNTS, TOTAL, Cluster

# the newest operations judged (with the transfers from before them a read needs,
# the time diagram draws at most 24)
WINDOW = 20


def window_of(cluster: Cluster, last: int = WINDOW) -> list:
    """The operations judged on the stage, in invoke order (module docstring)."""
    ops = cluster.ops
    window = ops[-last:]
    if not window:
        return []
    first = window[0].id
    reads = [op for op in window if op.f == "read" and op.outcome == "ok"]
    earlier = [
        op
        for op in ops[: len(ops) - len(window)]
        if op.f == "transfer"
        and op.outcome != "fail"
        and op.id < first
        and any(_beside(op, read) for read in reads)
    ]
    return earlier + list(window)


def _beside(transfer, read) -> bool:
    """Whether `transfer` was under way while `read` ran."""
    if transfer.invoke >= read.complete:
        return False
    return not (transfer.outcome == "ok" and transfer.complete < read.invoke)


def bank_history(ops) -> list[BankOp]:
    """The transfers and reads of every account among `ops`, as the checker takes
    them (steps are `(virtual ms, sequence)`; an operation still open is info)."""
    history = []
    for op in ops:
        if op.f == "transfer":
            value = op.value
            value = (value["from"], value["to"], value["amount"])
        elif op.f == "read":
            value = tuple(op.value) if op.outcome == "ok" else None
        else:
            continue
        complete = tuple(op.complete) if op.complete else None
        outcome = op.outcome or "info"
        history.append(
            BankOp(op.id, op.client, op.f, value, tuple(op.invoke), complete, outcome)
        )
    return history


def judged(cluster: Cluster, last: int = WINDOW) -> dict:
    """The window's operation ids and the bank checker's verdict on it, JSON-safe:
    `{"window": [ids], "verdicts": [{promise, ok, witness, explanation?, params?}]}`;
    no verdict while the window holds no read that returned."""
    window = window_of(cluster, last)
    history = bank_history(window)
    verdicts = []
    if any(op.kind == "read" and op.outcome == "ok" for op in history):
        verdicts.append(check_bank(history, TOTAL, ACCOUNTS).shown())
    return {"window": [op.id for op in window], "verdicts": verdicts}
