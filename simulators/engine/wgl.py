"""The linearizability search for one register: Wing & Gong, Lowe, and a memo.

Wing & Gong's search with Lowe's just-in-time linearization and a memo of (operations
placed, register value), the "WGL" algorithm of Knossos and porcupine, over the ops of
a history (simulators/engine/history.py) that constrain it: ok or info writes, ok
reads, in invoke order. Work is counted in steps (one entry of the history looked at,
a placement made or taken back), so a caller can stop it at a limit and say "too long
to check" instead of waiting.
"""

from itertools import pairwise
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from simulators.engine.history import Op


def search(ops: list["Op"], initial: Any, work_limit: int) -> tuple:
    """(whether `ops` are linearizable, None past `work_limit` steps; the steps taken;
    how many of the first ops the search reached). Every read must return the initial
    value or a value one of `ops` writes; `ops` are in invoke order.

    The history is a doubly linked list of call and return entries in time order.
    From the head, the first call whose operation can take effect now is placed: its
    call and return are lifted out of the list, and the scan starts again from the
    head. Meeting a return means its operation was not placed in time, so the last
    placement is taken back and the scan goes on after it. A memo of (placed ops as a
    bitmask, register value) skips placements that lead to a state already explored.
    One addition: a read that can take effect where it is found is never tried later
    instead (placing it at once takes nothing from anyone, for it changes no value and
    whatever had to precede it is placed), so taking it back takes the placement
    before it back too. An info write's return is after everything: it may be placed
    anywhere after its call, or never (the search ends once every ok op is placed).

    Not linearizable: every path stopped at a return no later than the furthest one
    met, so the ops invoked before it were all the search ever looked at, and they
    alone (with the writes their reads returned) are not linearizable either.
    """
    work = 2 * len(ops)  # each call and return entry, looked at to make the list
    if work > work_limit:
        return None, 0, 0  # not even begun
    values = {initial: 0}
    for op in ops:
        if op.kind == "write":
            values[op.value] = len(values)
    width = len(values)
    nxt, prv, owner, is_call, partner, called, head = _entries(ops)
    # a write's value id, or -1; a read's wanted value id
    writes = [values[op.value] if op.kind == "write" else -1 for op in ops]
    wants = [values[op.value] if op.kind == "read" else -1 for op in ops]
    oks = [op.outcome == "ok" for op in ops]
    # which ops are placed: the ok ops in invoke order below `low` all are, and bit j
    # of `window` says whether ok op `low + j` is (so the memo's keys stay the size of
    # the ops in flight, not of the history); bit q of `extra` says whether info op q is
    rank, infos, left = [0] * len(ops), 0, 0  # each op's place among its kind
    for i, ok in enumerate(oks):
        if ok:
            rank[i], left = left, left + 1
        else:
            rank[i], infos = infos, infos + 1
    span = left + 1  # more than `low` can be
    state, low, window, extra, furthest = 0, 0, 0, 0, 0
    stack: list[int] = []
    saved: list[tuple[int, int, int, int]] = []
    seen: set[int] = set()
    e = nxt[head]
    while left:
        work += 1
        if work > work_limit:
            return None, work, 0
        i = owner[e]
        if is_call[e]:
            after = writes[i]
            if after < 0:
                after = state if wants[i] == state else -1
            if after < 0:
                e = nxt[e]
                continue
            now_low, now_window, now_extra = low, window, extra
            if oks[i]:
                now_window |= 1 << (rank[i] - low)
                if rank[i] == low:  # the first unplaced: move past the placed run
                    run = (~now_window & (now_window + 1)).bit_length() - 1
                    now_window >>= run
                    now_low += run
            else:
                now_extra |= 1 << rank[i]
            key = now_window << infos | now_extra
            key = (key * width + after) * span + now_low
            if key not in seen:  # place op i: lift its call and return out
                seen.add(key)
                stack.append(e)
                saved.append((state, low, window, extra))
                state, low, window, extra = after, now_low, now_window, now_extra
                left -= oks[i]
                r = partner[e]
                nxt[prv[e]] = nxt[e]
                prv[nxt[e]] = prv[e]
                nxt[prv[r]] = nxt[r]
                prv[nxt[r]] = prv[r]
                e = nxt[head]
                continue
            if writes[i] >= 0:  # explored from here already: try the next entry
                e = nxt[e]
                continue
            # a read explored from here: so is this state (it is tried nowhere else)
        elif e > furthest:  # op i returns here unplaced
            furthest = e
        while True:  # take the last placement back, and the one before a read's
            if not stack:
                return False, work, sum(1 for c in called if c < furthest)
            e = stack.pop()
            state, low, window, extra = saved.pop()
            i, r = owner[e], partner[e]
            left += oks[i]
            nxt[prv[r]] = r
            prv[nxt[r]] = r
            nxt[prv[e]] = e
            prv[nxt[e]] = e
            if writes[i] >= 0:
                break
            work += 1
            if work > work_limit:
                return None, work, 0
        e = nxt[e]
    return True, work, len(ops)


def shrink(
    ops: list["Op"], initial: Any, budget: int, stop: int
) -> tuple[list["Op"], int, bool]:
    """The smallest set found that is still not linearizable, the steps it took, and
    whether it is minimal (no op can be dropped) or the budget ran out first. The
    first `stop` ops (and the writes their reads returned) must fail: `search` says
    how many.

    Every set tried is closed (each read's write is in it). For closed sets, adding a
    read or a write never makes a history linearizable (drop them again from its
    order), so an op once needed stays needed: each op is tried once. First the
    latest start from which ops up to `stop` still fail is found by bisection (the
    windows tried shrink as it goes: a contradiction late in a long history costs
    about one search of it); then ops are dropped one at a time.
    """
    spent = 0

    def fails(subset: list["Op"]) -> bool | None:
        nonlocal spent
        found, work, _reached = search(subset, initial, budget - spent)
        spent += work
        return None if found is None else not found

    low, high = 0, stop - 1
    while low < high:
        middle = (low + high + 1) // 2
        if fails(_closed(ops, middle, stop)):
            low = middle
        else:
            high = middle - 1
    kept, needed = _closed(ops, low, stop), set()
    while True:
        for op in _droppable(kept):
            if op.id in needed:
                continue
            trial = [other for other in kept if other is not op]
            failed = fails(trial)
            if failed is None:
                return kept, spent, False
            if failed:
                kept = trial
                break
            needed.add(op.id)
        else:
            return kept, spent, True


def _closed(ops: list["Op"], start: int, stop: int) -> list["Op"]:
    """Ops `start` to `stop` and the writes their reads returned, in invoke order."""
    window = ops[start:stop]
    inside = {op.id for op in window}
    read = {op.value for op in window if op.kind == "read"}
    return [
        op for op in ops if op.id in inside or (op.kind == "write" and op.value in read)
    ]


def _droppable(kept: list["Op"]) -> list["Op"]:
    """What may be dropped next: the writes no kept read returned, then the reads."""
    read = {op.value for op in kept if op.kind == "read"}
    unread = [op for op in kept if op.kind == "write" and op.value not in read]
    return unread + [op for op in kept if op.kind == "read"]


def _entries(ops: list["Op"]) -> tuple:
    """The call and return entries of `ops` as a doubly linked list in time order
    (`nxt`, `prv`; at one step calls first, so ops that touch are concurrent), with
    each entry's op, whether it is a call, a call's return entry, each op's call
    entry, and the head."""
    # (0, step, 0 call or 1 return, op), and (1, ...): an info write's return, after
    # everything
    events = sorted(
        [(0, op.invoke, 0, i) for i, op in enumerate(ops)]
        + [
            (0, op.complete, 1, i) if op.outcome == "ok" else (1, 0, 1, i)
            for i, op in enumerate(ops)
        ]
    )
    size = len(events)
    head, tail = size, size + 1
    nxt, prv = [0] * (size + 2), [0] * (size + 2)
    for a, b in pairwise([head, *range(size), tail]):
        nxt[a], prv[b] = b, a
    owner = [i for *_, i in events]
    is_call = [k == 0 for *_, k, _i in events]
    partner, called = [-1] * size, [0] * len(ops)
    for e, (*_, k, i) in enumerate(events):
        if k:
            partner[called[i]] = e
        else:
            called[i] = e
    return nxt, prv, owner, is_call, partner, called, head
