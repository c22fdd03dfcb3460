"""Jepsen's bank checker: every read of all the accounts adds up to the same total.

Jepsen's bank workload moves money between accounts in transfers and reads every
account in one transaction; whatever interleaving the database allows, a read that
sees a transfer's debit must see its credit too, so every ok read adds up to the
total the accounts started with. A read that does not shows that some transaction was
seen half done (or that money was made or lost).

A history here is recorded as `history.py` records one (invoke, then ok, fail or
info, with steps that order everything), with two kinds of operation (`BankOp`):
a transfer, whose value is `(source, target, amount)`, and a read, whose value is
the balance of every account in order (None unless it returned). The verdict is a
`history.Verdict` with the promise "bank-total"; it names the first read off by
completion, and its witness is that read with the transfers that explain it.

Explaining a read: the transfers that were under way while the read ran (invoked
before it completed and not done before it began; an info transfer never is done,
a failed one certainly had no effect and is left out) are the ones whose halves it
may have seen apart. Seeing the debit of an amount and not its credit leaves the read
short by that amount; the credit without the debit, over by it. The smallest set of
those transfers (at most `EXPLAIN_MOST`, fewest first, earliest first) whose amounts
sum to how far off the read is, is the witness. Past that bound, or when none does,
the read alone is shown and the explanation says nothing under way accounts for it.
"""

from collections.abc import Iterable
from dataclasses import dataclass
from itertools import combinations
from typing import Any

from simulators.engine.history import Step, Verdict, _is_int, _shape, check_recorded
from simulators.engine.i18n import gettext_noop as _

BANK_TOTAL = "bank-total"
KINDS = ("transfer", "read")
# the largest set of concurrent transfers tried as an explanation (sets of up to
# this many out of those under way: with three clients at most two run beside a read)
EXPLAIN_MOST = 3
# transfers under way beside one read that are looked at (the earliest ones)
CANDIDATES_MOST = 12

BANK_OK = _("Every read of the accounts added up to %(total)s.")
HALF_SEEN_ONE = _(
    "Read %(read)s added up to %(sum)s, not %(total)s. Transfer %(transfers)s of "
    "%(amount)s was under way while it read: seeing one half of that transfer and not "
    "the other explains the difference."
)
HALF_SEEN_MANY = _(
    "Read %(read)s added up to %(sum)s, not %(total)s. Transfers %(transfers)s "
    "(%(amount)s in all) were under way while it read: seeing one half of each and "
    "not the other explains the difference."
)
UNEXPLAINED = _(
    "Read %(read)s added up to %(sum)s, not %(total)s, and no transfer under way "
    "while it read accounts for the difference: money was made or lost."
)
NEGATIVE = _("Read %(read)s saw account %(account)s at %(balance)s, below zero.")
EXPLANATIONS = (BANK_OK, HALF_SEEN_ONE, HALF_SEEN_MANY, UNEXPLAINED, NEGATIVE)


@dataclass(frozen=True, slots=True)
class BankOp:
    """A transfer or a read of every account, as `history.Op` is for a register."""

    id: int
    client: str
    kind: str
    value: Any
    invoke: Step
    complete: Step | None
    outcome: str = "ok"

    def __post_init__(self) -> None:
        check_recorded(self, KINDS)
        if self.kind == "transfer":
            value = self.value
            if not (
                isinstance(value, tuple)
                and len(value) == 3
                and all(_is_int(part) for part in value)
                and value[0] != value[1]
                and value[2] > 0
            ):
                raise ValueError(
                    f"op {self.id}: a transfer's value is (source, target, amount)"
                )
        elif self.outcome == "ok" and not (
            isinstance(self.value, tuple) and all(_is_int(b) for b in self.value)
        ):
            raise ValueError(f"op {self.id}: an ok read's value is every balance")

    @property
    def done(self) -> bool:
        return self.outcome == "ok"


def check_bank(history: Iterable[BankOp], total: int, accounts: int) -> Verdict:
    """Whether every ok read of the `accounts` balances adds up to `total` and none
    is below zero (module docstring)."""
    ops = list(history)
    if len({_shape(op.invoke) for op in ops}) > 1:
        raise ValueError("a history's steps must all be ints, or all tuples alike")
    ops.sort(key=lambda op: (op.invoke, op.id))
    if len({op.id for op in ops}) != len(ops):
        raise ValueError("two operations have the same id")
    reads = [op for op in ops if op.kind == "read" and op.done]
    for read in reads:
        if len(read.value) != accounts:
            raise ValueError(f"read {read.id} returned {len(read.value)} balances")
    transfers = [op for op in ops if op.kind == "transfer" and op.outcome != "fail"]
    work = len(ops)
    for read in sorted(reads, key=lambda op: (op.complete, op.id)):
        for account, balance in enumerate(read.value, start=1):
            if balance < 0:
                return _off(NEGATIVE, work, read, (), account=account, balance=balance)
        seen = sum(read.value)
        if seen == total:
            continue
        under_way = [
            t
            for t in transfers
            if t.invoke < read.complete and not (t.done and t.complete < read.invoke)
        ][:CANDIDATES_MOST]
        found, tried = _explained(under_way, abs(total - seen))
        work += tried
        params = {"sum": seen, "total": total}
        if not found:
            return _off(UNEXPLAINED, work, read, (), **params)
        template = HALF_SEEN_ONE if len(found) == 1 else HALF_SEEN_MANY
        return _off(
            template,
            work,
            read,
            found,
            transfers=", ".join(str(t.id) for t in found),
            amount=sum(t.value[2] for t in found),
            **params,
        )
    return Verdict(BANK_TOTAL, True, work, BANK_OK, (("total", total),))


def _explained(under_way: list[BankOp], gap: int) -> tuple[tuple[BankOp, ...], int]:
    """The fewest (then earliest) transfers whose amounts sum to `gap`, and the sets
    tried."""
    tried = 0
    for size in range(1, min(EXPLAIN_MOST, len(under_way)) + 1):
        for chosen in combinations(under_way, size):
            tried += 1
            if sum(t.value[2] for t in chosen) == gap:
                return chosen, tried
    return (), tried


def _off(template: str, work: int, read: BankOp, found, **params) -> Verdict:
    shown = sorted((*found, read), key=lambda op: (op.invoke, op.id))
    return Verdict(
        BANK_TOTAL,
        False,
        work,
        template,
        (("read", read.id), *params.items()),
        tuple(op.id for op in shown),
    )
