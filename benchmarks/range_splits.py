"""range-splits at a million writes: the boundary table against the plainest loop.

A million passenger ids, uniform, are written into a table that splits by size (above
1,000 keys) with a balancer round every 1,000 writes moving the half each split left
behind to the least-loaded shard: `RangeTable` (a SortedDict of slices, a SortedList
of keys in each) against the plainest Python that gets the same table: a list of slice
starts searched with `bisect`, a set of every key written (to find a key written
twice), a plain list of keys per slice appended to and sorted only when the slice
splits (the order is needed only for its median), the same split rule, the same
balancer. Both must end with the same boundaries, shards and key counts (checked
before anything is timed); the ratio is the median of interleaved pairs
(`timing.paired`: both sides warmed, A-B-B-A) with its spread. The keys are made
before the clock starts.

Run alone: `python -m benchmarks.range_splits [--writes N] [--pairs P]`.
"""

import argparse
import sys
from bisect import bisect_left, bisect_right

from benchmarks.timing import MIN_PAIRS, Row, paired_rows, render
from simulators.labs.range_splits.streams import stream
from simulators.labs.range_splits.table import RangeTable

TARGET = 1.5
SHARDS = ["A", "B", "C", "D"]
MAX_KEYS = 1_000
ROUND = 1_000  # writes between balancer rounds


def writes_of(count: int) -> list[tuple[int, str]]:
    """`count` uniform passenger ids, 1,000 a second of stream time."""
    return list(stream(1, "uniform", count, 1_000))


def ours(writes) -> list[tuple[str, str, int]]:
    """The lab's table: insert every write, a balancer round every ROUND writes."""
    table = RangeTable(list(SHARDS), policy="size", max_keys=MAX_KEYS)
    insert, rebalance = table.insert, table.rebalance
    for i, (at_ms, key) in enumerate(writes, 1):
        insert(key, at_ms)
        if i % ROUND == 0:
            rebalance()
    rebalance()
    return [(r["start"], r["shard"], r["keys"]) for r in table.boundaries()]


def plain(writes) -> list[tuple[str, str, int]]:
    """The plainest loop that builds the same table: lists, a set and bisect.

    A slice's keys are a plain list, appended to (a set of every key written finds
    a key written twice) and sorted only when the slice splits, where the order is
    needed: the median."""
    starts, keys, owners = [""], [[]], [SHARDS[0]]
    seen = set()
    waiting = []  # starts of the halves waiting to move
    for i, (_, key) in enumerate(writes, 1):
        if key not in seen:
            seen.add(key)
            s = bisect_right(starts, key) - 1
            held = keys[s]
            held.append(key)
            if len(held) > MAX_KEYS:
                held.sort()
                cut = _median(held, starts[s])
                if cut is not None:
                    c = bisect_left(held, cut)
                    starts.insert(s + 1, cut)
                    keys[s], right = held[:c], held[c:]
                    keys.insert(s + 1, right)
                    owners.insert(s + 1, owners[s])
                    moving = starts[s] if key >= cut else cut
                    if moving not in waiting:
                        waiting.append(moving)
        if i % ROUND == 0:
            _balance(starts, keys, owners, waiting)
    _balance(starts, keys, owners, waiting)
    return [(starts[i], owners[i], len(keys[i])) for i in range(len(starts))]


def _median(held: list[str], start: str) -> str | None:
    for i in range(len(held) // 2, len(held)):
        if held[i] > start and held[i - 1] < held[i]:
            return held[i]
    return None


def _balance(starts, keys, owners, waiting) -> None:
    for start in waiting:
        s = bisect_left(starts, start)
        loads = dict.fromkeys(SHARDS, 0)
        for owner, held in zip(owners, keys, strict=True):
            loads[owner] += len(held)
        target = min(SHARDS, key=lambda x: (loads[x], SHARDS.index(x)))
        owners[s] = target
    waiting.clear()


def range_rows(count: int, pairs: int) -> list[Row | str]:
    """One row: our table over the plainest loop, paired."""
    writes = writes_of(count)
    if ours(writes) != plain(writes):
        raise AssertionError("the plain loop and RangeTable built different tables")
    return paired_rows(
        f"range-splits: {count:,} writes split by size (1,000 keys), balanced",
        "RangeTable / plain loop (lists, a set, sorted at each split), same table",
        lambda: ours(writes),
        lambda: plain(writes),
        count,
        TARGET,
        pairs,
    )


def rows(repeat: int, keys: int) -> list[Row | str]:
    """range-splits' rows of `make bench` (benchmarks/__main__.py finds them by the
    lab's slug): the boundary table at `keys` writes."""
    return range_rows(keys, repeat)


def browser_rows(repeat: int) -> list:
    """Its rows measured in Chromium: the slices (benchmarks/browser_range_fps.py)."""
    from benchmarks.browser_range_fps import range_fps_rows

    return range_fps_rows(repeat)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.range_splits")
    parser.add_argument("--writes", type=int, default=1_000_000)
    parser.add_argument("--pairs", type=int, default=MIN_PAIRS)
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args(argv)
    rows = range_rows(args.writes, args.pairs)
    print(render(rows, markdown=args.markdown))
    return 1 if any(isinstance(r, Row) and r.passed is False for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
