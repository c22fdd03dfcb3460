"""Long loops in C done in pieces, so that none holds the GIL for long (issue 29).

The server runs labs' actions in threads of its one process (playground/rooms/work.py).
CPython lets another thread run every few milliseconds (its switch interval), but only
between bytecodes: one call into C that loops over a million items (`sorted`,
`Counter`, `list(map(...))`, an array made from a list, a list of a million objects
freed) holds the GIL for its whole length, 50-400 ms, and every other room and socket of
the process stands still meanwhile. Each helper here gives exactly what the single call
gives, made `PIECE` items at a time: a few thousand items take well under a
millisecond, and between two pieces other threads get their turn.
`python -m benchmarks.gil_holds` measures the longest hold of every lab's heavy
actions.
"""

from array import array
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from itertools import islice
from typing import Any

PIECE = 4_096  # items one call into C takes at a time
# a sort of this many items takes a few milliseconds: done at once
SORT_AT_ONCE = 32_768
BUCKET_BITS = 8  # a larger sort is dealt into 256 buckets by its values' top bits


def mapped(function: Callable[..., Any], values: Iterable) -> list:
    """`list(map(function, values))`, a piece at a time."""
    out: list = []
    for piece in _pieces(values):
        out.extend(map(function, piece))
    return out


def array_of(typecode: str, values: Iterable) -> array:
    """`array(typecode, values)`, a piece at a time."""
    out = array(typecode)
    for piece in _pieces(values):
        out.extend(piece)
    return out


def counted(values: Iterable, key: Callable[[Any], Any] | None = None) -> Counter:
    """`Counter(values)` (or `Counter(map(key, values))`), a piece at a time: the
    same counts, its keys in the same order (first seen first)."""
    counts: Counter = Counter()
    for piece in _pieces(values):
        counts.update(piece if key is None else map(key, piece))
    return counts


def _pieces(values: Iterable) -> Iterator:
    """`values`, `PIECE` at a time: slices of a sequence (a slice knows its length,
    so a list extended from it is made to size at once), else from its iterator."""
    if isinstance(values, Sequence):
        for start in range(0, len(values), PIECE):
            yield values[start : start + PIECE]
        return
    items = iter(values)
    while piece := list(islice(items, PIECE)):
        yield piece


def counted_pairs(
    firsts: Sequence,
    seconds: Sequence,
    first_key: Callable[[Any], Any] | None = None,
    second_key: Callable[[Any], Any] | None = None,
) -> Counter:
    """`Counter(zip(map(first_key, firsts), map(second_key, seconds), strict=True))`
    (a sequence without a key counted as it is), a piece at a time."""
    if len(firsts) != len(seconds):
        raise ValueError("counted_pairs: sequences of different lengths")
    counts: Counter = Counter()
    for start in range(0, len(firsts), PIECE):
        some = firsts[start : start + PIECE]
        others = seconds[start : start + PIECE]
        counts.update(
            zip(
                some if first_key is None else map(first_key, some),
                others if second_key is None else map(second_key, others),
                strict=True,
            )
        )
    return counts


def emptied(items: list) -> None:
    """Empty `items` a piece at a time, from its end: the last reference to a million
    objects (key strings, say) freeing them all at once is one long call too."""
    while items:
        del items[-PIECE:]


def sorted_ints(values: Iterable[int], bits: int = 32) -> list[int]:
    """`sorted(values)` for whole numbers from 0 to 2**bits - 1 (hashes, say).

    A few thousand are sorted at once; more are dealt into buckets by their top
    `BUCKET_BITS` bits, in a Python loop (which lets other threads in), and each bucket
    is sorted on its own: a bucket holds the values of one slice of the range, so the
    buckets in order are the values in order. Spread values (hashes) make buckets of
    a few thousand each, and the whole is quicker than one sort of everything (values
    bunched in one slice still come out sorted, in one longer sort). A value outside
    the range is a ValueError.
    """
    values = values if isinstance(values, Sequence) else list(values)
    if len(values) <= SORT_AT_ONCE:
        return sorted(values)
    shift = max(bits - BUCKET_BITS, 0)
    buckets: list[list[int]] = [[] for _ in range(((1 << bits) - 1 >> shift) + 1)]
    deal = [bucket.append for bucket in buckets]
    try:
        for value in values:
            deal[value >> shift](value)
    except IndexError:
        raise ValueError(f"sorted_ints: a value of {bits} bits or more") from None
    out: list[int] = []
    for number, bucket in enumerate(buckets):
        if not bucket:
            continue
        bucket.sort()
        # a negative value was dealt from the end: it is not where it belongs
        if bucket[0] >> shift != number:
            raise ValueError("sorted_ints: a negative value")
        for start in range(0, len(bucket), PIECE):
            out.extend(bucket[start : start + PIECE])
        emptied(bucket)
    return out
