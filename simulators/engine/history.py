"""Histories of client operations on one register, and the promises they keep.

A history is recorded as Jepsen records one: each operation is invoked at one step and
completes at a later one, and ends "ok", "fail" (certainly had no effect) or "info"
(unknown: a coordinator crashed, a reply was lost). An info write may take effect at any
moment after its invocation, or never: its completion counts as infinitely late. Reads
that did not return ok constrain nothing and are left out; so are failed writes. Steps
order everything the lab did: an int (a counter) or a tuple of ints ((virtual ms, the
lab's sequence number)), one kind per history. Operation X *precedes* Y when X
completed ok before Y was invoked (at one step: not before); operations that overlap
are concurrent. Every write writes a value of its own,
and the register starts at `initial`, which counts as written before everything.

Three promises are judged, each as a `Verdict` with the operations that show a break:

- linearizable: one order of the operations, each taking effect at one moment between
  its invocation and its completion, gives every read the value it returned. Searched
  with Wing & Gong's algorithm, Lowe's just-in-time linearization and a memo of
  (operations placed, register value), as Knossos and porcupine do; past `work_limit`
  steps the answer is "too long to check", never a guess;
- read your writes and monotonic reads, per client, in real-time order alone: a break
  is reported only when it is certain.
"""

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from simulators.engine.i18n import gettext_noop as _
from simulators.engine.wgl import search, shrink

KINDS = ("write", "read")
OUTCOMES = ("ok", "fail", "info")
# Steps of the linearizability search (simulators/engine/wgl.py): one entry of the
# history looked at (two per operation to build the list), one placement made or
# taken back. The search is exponential in the number of operations in flight at
# once; this bounds what one check costs. On the 2-core machine of docs/benchmarks.md
# a 100-operation quorum history of 4 clients takes about 350 steps, of 16 clients
# 7,400 (at most 45,000 in 20 seeds), and the limit is reached after 30-100 ms.
# Shrinking a witness gets a budget as large again.
WORK_LIMIT = 200_000

# when something happened: a counter, or (virtual ms, the lab's sequence number)
Step = int | tuple[int, ...]

LINEARIZABLE = "linearizable"
READ_YOUR_WRITES = "read-your-writes"
MONOTONIC_READS = "monotonic-reads"

# What a verdict says, by case (a lab lists them in its `words`, so that the page,
# which gets a verdict's English `explanation` as data, can show it translated)
NO_WRITER = _(
    "Read %(read)s returned %(value)s, but no write that could have taken effect "
    "wrote that value."
)
TOO_LONG = _("Too long to check: the search passed its limit of %(limit)s steps.")
LINEARIZABLE_OK = _(
    "One order of the operations, each taking effect between its invocation and its"
    " completion, explains every read."
)
READ_BEFORE_WRITE = _(
    "Read %(read)s returned %(value)s before write %(write)s of that value was invoked."
)
READ_OLD_AFTER_ACK = _(
    "Read %(read)s returned %(old)s after write %(write)s of %(new)s had been "
    "acknowledged."
)
NEW_THEN_OLD = _(
    "Read %(late)s returned %(old)s after read %(early)s had returned %(new)s: no "
    "order of the operations explains both."
)
NO_ORDER = _(
    "No order of operations %(ops)s, each taking effect between its invocation and "
    "its completion, explains what the reads returned."
)
OWN_WRITE_MISSED = _(
    "Read %(read)s by %(client)s returned %(old)s, older than %(new)s, which the "
    "same client had written (write %(write)s, acknowledged before the read began)."
)
RYW_OK = _("Every read saw its client's own acknowledged writes, or newer values.")
OLDER_AFTER_NEWER = _(
    "Read %(late)s by %(client)s returned %(old)s after the same client's read "
    "%(early)s had returned the newer %(new)s."
)
MONOTONIC_OK = _("No client read an older value after having read a newer one.")
EXPLANATIONS = (
    NO_WRITER,
    TOO_LONG,
    LINEARIZABLE_OK,
    READ_BEFORE_WRITE,
    READ_OLD_AFTER_ACK,
    NEW_THEN_OLD,
    NO_ORDER,
    OWN_WRITE_MISSED,
    RYW_OK,
    OLDER_AFTER_NEWER,
    MONOTONIC_OK,
)


@dataclass(frozen=True, slots=True)
class Op:
    """One operation: who did what, when it was invoked and completed, how it ended.

    `value` is what a write wrote or what an ok read returned (None for a read that did
    not return); `complete` is needed when the outcome is ok, and an info op's counts
    as never whatever it says.
    """

    id: int
    client: str
    kind: str
    value: Any
    invoke: Step
    complete: Step | None
    outcome: str = "ok"

    def __post_init__(self) -> None:
        check_recorded(self, KINDS)
        if (self.kind == "write" or self.outcome == "ok") and not _is_value(self.value):
            raise ValueError(f"op {self.id}: value must be an int or a str")

    @property
    def counts(self) -> bool:
        """Whether it constrains the history: ok or info writes, ok reads."""
        return self.outcome == "ok" or (self.outcome == "info" and self.kind == "write")


def check_recorded(op: Any, kinds: tuple[str, ...]) -> None:
    """ValueError unless `op` (an `Op`, or another checker's operation) is recorded as
    Jepsen records one: an int id, a client, one of `kinds`, an outcome, an invoke step
    and, when ok, a completion step like it and not before it."""
    if not _is_int(op.id) or not isinstance(op.client, str):
        raise ValueError(f"op {op.id!r}: id must be an int, client a str")
    if op.kind not in kinds or op.outcome not in OUTCOMES:
        raise ValueError(f"op {op.id}: bad kind {op.kind!r} or outcome")
    if _shape(op.invoke) is None:
        raise ValueError(f"op {op.id}: invoke must be a step (an int or ints)")
    if op.complete is None:
        if op.outcome == "ok":
            raise ValueError(f"op {op.id}: an ok operation needs its completion")
    elif _shape(op.complete) != _shape(op.invoke):
        raise ValueError(f"op {op.id}: complete must be a step like invoke")
    elif op.complete < op.invoke:
        raise ValueError(f"op {op.id} completes before it is invoked")


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_value(value: Any) -> bool:
    return _is_int(value) or isinstance(value, str)


def _shape(step: Any) -> int | None:
    """0 for an int step, n for a tuple of n ints ((virtual ms, sequence)), else
    None."""
    if _is_int(step):
        return 0
    if isinstance(step, tuple) and step and all(_is_int(part) for part in step):
        return len(step)
    return None


def history_from(rows: Iterable[tuple], initial: Any = None) -> tuple[Op, ...]:
    """A checked history from tuples `(id, client, kind, value, invoke, complete[,
    outcome])`, in invoke order; `initial`, when given, is checked against it too."""
    return checked(tuple(Op(*row) for row in rows), initial)


def checked(history: Iterable[Op], initial: Any = None) -> tuple[Op, ...]:
    """The operations in invoke order, or ValueError: ids and written values must be
    unique, and no write may write the initial value (a read of it would be
    ambiguous)."""
    ops = list(history)
    if len({_shape(op.invoke) for op in ops}) > 1:
        raise ValueError("a history's steps must all be ints, or all tuples alike")
    ops.sort(key=_invoked)
    ids, written = set(), set()
    for op in ops:
        if op.id in ids:
            raise ValueError(f"two operations have the id {op.id}")
        ids.add(op.id)
        if op.kind == "write":
            if op.value in written:
                raise ValueError(f"two writes write {op.value!r}")
            if initial is not None and op.value == initial:
                raise ValueError(f"write {op.id} writes the initial value")
            written.add(op.value)
    return tuple(ops)


def precedes(first: Op | None, second: Op) -> bool:
    """Whether `first` completed ok before `second` was invoked (None: the initial
    value, before everything)."""
    if first is None:
        return True
    return first.outcome == "ok" and first.complete < second.invoke


@dataclass(frozen=True)
class Verdict:
    """Whether a history keeps a promise, the work it took (searching and shrinking),
    and why.

    `ok` is None when the search passed its work limit (too long to check). `witness`
    holds the ids, in invoke order, of the operations that show a break; `explanation`
    is English text with `%(name)s` placeholders, marked for translation, filled from
    `params`. `minimal` is False when shrinking the witness stopped at its limit: the
    operations still show the break, but some may not be needed.
    """

    promise: str
    ok: bool | None
    work: int
    explanation: str
    params: tuple[tuple[str, int | str], ...] = ()
    witness: tuple[int, ...] = ()
    minimal: bool = True

    @property
    def message(self) -> str:
        """The explanation in English."""
        return self.explanation % dict(self.params)

    def translated(self, gettext) -> str:
        """The explanation in the language `gettext` speaks."""
        return gettext(self.explanation) % dict(self.params)

    def shown(self) -> dict:
        """The verdict as a stage needs it: why only when the promise is broken or
        could not be checked (a frame carries every change, and the words of a kept
        promise never change)."""
        shown = {"promise": self.promise, "ok": self.ok, "witness": list(self.witness)}
        if self.ok is not True:
            shown["explanation"] = self.explanation
            shown["params"] = dict(self.params)
        return shown

    def as_dict(self) -> dict:
        """The verdict as JSON-safe data for a snapshot."""
        return {
            "promise": self.promise,
            "ok": self.ok,
            "work": self.work,
            "explanation": self.explanation,
            "params": dict(self.params),
            "message": self.message,
            "witness": list(self.witness),
            "minimal": self.minimal,
        }


# -- linearizability ---------------------------------------------------------------


def check_linearizable(
    history: Iterable[Op], initial: Any, work_limit: int = WORK_LIMIT
) -> Verdict:
    """Whether some order of the operations within their times explains every read.

    Not linearizable: the witness is shrunk (`wgl.shrink`) to the shortest failing
    window of the history ending where the search stopped, then greedily, one
    operation at a time, while what remains is still not linearizable (writes no kept
    read returned are tried first; a write a kept read returned is kept, or that read
    would be explained by nothing at all). A read of a value no ok or info write wrote
    needs no search: it is the witness alone (with the failed write of that value, if
    one wrote it).
    """
    every, source = _prepared(history, initial)
    ops = [op for op in every if op.counts]
    phantom = _phantom(ops, source)
    if phantom:
        read = phantom[-1]
        return _broken(
            LINEARIZABLE,
            0,
            NO_WRITER,
            {"read": read.id, "value": read.value},
            phantom,
        )
    found, work, reached = search(ops, initial, work_limit)
    if found is None:
        return Verdict(
            LINEARIZABLE,
            None,
            work,
            TOO_LONG,
            (("limit", f"{work_limit:,}"),),
        )
    if found:
        return Verdict(
            LINEARIZABLE,
            True,
            work,
            LINEARIZABLE_OK,
        )
    witness, spent, minimal = shrink(ops, initial, work_limit, reached)
    template, params = _linearizability_explained(witness)
    return _broken(LINEARIZABLE, work + spent, template, params, witness, minimal)


def _phantom(ops: list[Op], source: dict) -> list[Op]:
    """The first ok read of a value that no write which could have taken effect
    wrote, after the failed write that wrote it if one did; else []."""
    for read in ops:
        if read.kind == "read":
            if read.value not in source:
                return [read]
            wrote = source[read.value]
            if wrote is not None and wrote.outcome == "fail":
                return [wrote, read]
    return []


def _linearizability_explained(witness: list[Op]) -> tuple[str, dict]:
    """The sentence that fits the witness: a read before its write, a stale read, two
    reads in the wrong order, or (any other shape) the operations named."""
    source = {op.value: op for op in witness if op.kind == "write"}
    reads = [op for op in witness if op.kind == "read"]
    if len(reads) == 1:
        read = reads[0]
        wrote = source.get(read.value)
        if wrote is not None and read.complete < wrote.invoke:
            return (
                READ_BEFORE_WRITE,
                {"read": read.id, "value": read.value, "write": wrote.id},
            )
        newer = [w for w in source.values() if w is not wrote and precedes(w, read)]
        if newer:
            return (
                READ_OLD_AFTER_ACK,
                {
                    "read": read.id,
                    "old": read.value,
                    "write": newer[-1].id,
                    "new": newer[-1].value,
                },
            )
    if len(reads) == 2:
        early, late = reads if precedes(reads[0], reads[1]) else reads[::-1]
        if precedes(early, late):
            return (
                NEW_THEN_OLD,
                {
                    "late": late.id,
                    "old": late.value,
                    "early": early.id,
                    "new": early.value,
                },
            )
    return (
        NO_ORDER,
        {"ops": ", ".join(str(op.id) for op in witness)},
    )


# -- session promises ----------------------------------------------------------------


def check_read_your_writes(history: Iterable[Op], initial: Any) -> Verdict:
    """Whether each client's reads see its own acknowledged writes, or newer values.

    Broken for certain when a client's read returns a value whose write precedes (or
    the initial value, older than any write) a write of that same client acknowledged
    before the read was invoked. The work is the reads judged.
    """
    ops, source = _prepared(history, initial)
    acked = [op for op in ops if op.kind == "write" and op.outcome == "ok"]
    reads = _ok_reads(ops)
    for work, (read, write) in enumerate(_latest_before(reads, acked, _invoked), 1):
        if write is None or read.value not in source:
            continue  # nothing of its own acknowledged yet, or a value nobody wrote
        older = source[read.value]
        if precedes(older, write):
            return _broken(
                READ_YOUR_WRITES,
                work,
                OWN_WRITE_MISSED,
                {
                    "read": read.id,
                    "client": read.client,
                    "old": read.value,
                    "new": write.value,
                    "write": write.id,
                },
                [older, write, read],
            )
    return Verdict(
        READ_YOUR_WRITES,
        True,
        len(reads),
        RYW_OK,
    )


def check_monotonic_reads(history: Iterable[Op], initial: Any) -> Verdict:
    """Whether no client reads an older value after having read a newer one.

    Broken for certain when a client's read returns a value whose write precedes (or
    the initial value: older than any write) the write whose value an earlier read of
    that client returned, the earlier read having completed before the later began.
    The work is the reads judged.
    """
    ops, source = _prepared(history, initial)
    reads = _ok_reads(ops)
    of_writes = [read for read in reads if source.get(read.value) is not None]

    def written(read: Op) -> tuple:
        return _invoked(source[read.value])

    for work, (read, early) in enumerate(_latest_before(reads, of_writes, written), 1):
        if early is None or read.value not in source:
            continue
        older, newer = source[read.value], source[early.value]
        if precedes(older, newer):
            return _broken(
                MONOTONIC_READS,
                work,
                OLDER_AFTER_NEWER,
                {
                    "late": read.id,
                    "client": read.client,
                    "old": read.value,
                    "early": early.id,
                    "new": early.value,
                },
                [older, newer, early, read],
            )
    return Verdict(
        MONOTONIC_READS,
        True,
        len(reads),
        MONOTONIC_OK,
    )


def _latest_before(reads: list[Op], done: list[Op], order) -> Iterator[tuple]:
    """Each read (in invoke order), with the op of its own client among `done` that
    completed before the read was invoked and comes last by `order` (None if none)."""
    queues: dict[str, list[Op]] = {}
    for op in sorted(done, key=_completed):
        queues.setdefault(op.client, []).append(op)
    taken: dict[str, int] = {}
    latest: dict[str, Op] = {}
    for read in reads:
        queue, i = queues.get(read.client, []), taken.get(read.client, 0)
        while i < len(queue) and queue[i].complete < read.invoke:
            best = latest.get(read.client)
            if best is None or order(queue[i]) > order(best):
                latest[read.client] = queue[i]
            i += 1
        taken[read.client] = i
        yield read, latest.get(read.client)


def _prepared(history: Iterable[Op], initial: Any) -> tuple[tuple[Op, ...], dict]:
    """The checked operations, and where each value a read may return comes from:
    the write that wrote it (None for the initial value)."""
    if not _is_value(initial):
        raise ValueError("the initial value must be an int or a str")
    ops = checked(history, initial)
    source: dict = {initial: None}
    source.update((op.value, op) for op in ops if op.kind == "write")
    return ops, source


def _ok_reads(ops: tuple[Op, ...]) -> list[Op]:
    return [op for op in ops if op.kind == "read" and op.outcome == "ok"]


def _broken(promise, work, template, params, shown, minimal=True) -> Verdict:
    """A broken promise; `shown`: the operations that show it (None: the initial
    value), listed in invoke order."""
    witness = sorted((op for op in shown if op is not None), key=_invoked)
    return Verdict(
        promise,
        False,
        work,
        template,
        tuple(params.items()),
        tuple(op.id for op in witness),
        minimal,
    )


def _invoked(op: Op) -> tuple:
    return op.invoke, op.id


def _completed(op: Op) -> int:
    return op.complete
