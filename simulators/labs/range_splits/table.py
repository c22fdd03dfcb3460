"""Range placement: contiguous slices of the sorted key space, each on one shard.

The boundary table maps a key to the slice whose start is the greatest start not above
the key, and the slice to its shard. The first slice starts at "" (the start of the key
space) and the last runs to the end of it, so every key has exactly one slice. A slice
splits in two when it grows past the threshold of the table's policy:

- by size: more keys than `max_keys` (CockroachDB splits ranges above 512 MiB); it
  splits at its median key;
- by load: more writes in one window of `window_ms` than `max_writes` (CockroachDB's
  load-based splitting at 2,500 queries a second); it splits at the median of the keys
  written in that window, so each half took about half of the window's writes.

A split never moves data: both halves stay on the slice's shard, and one half waits to
be moved (`pending`), as MongoDB chunks and Bigtable tablets are split first and
balanced later. The half that waits is the one the write that caused the split did not
go to (a slice being written stays where it is; the button's split offers the upper
half). `rebalance()` moves each waiting half to the shard least loaded by the policy's
measure: keys under `size`; writes in the current window, then keys, under `load`.
So a key written in order (a timestamp) splits over and over, and its hot tail never
leaves its shard: every new write still lands there. Pure and deterministic: sorted
runs and lists, no sets of strings iterated, no clock (the times are the stream's own).

A slice's keys are sorted runs that never change once made, and checkpoints share them
and the slices themselves, eight at a time, changing a copy of a slice a checkpoint
holds (copy-on-write): a restore takes them back without sorting or copying a key
(docs/architecture.md, "range-splits").
"""

from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import chain

from simulators.engine.declaration import ActionError
from simulators.engine.i18n import gettext_noop as _
from simulators.engine.ledger import Shared

POLICIES = ("size", "load")
KEY_SPACE_START = ""
# the window writes a load split looks back over, at most (it holds the whole window up
# to twice the threshold; a slice whose writes all hit one key cannot split)
MAX_RECENT_FACTOR = 2


# a run of this many keys or more is a part that checkpoints share; a smaller one (the
# keys of a click or two) is copied into each checkpoint that holds it
SHARE_AT = 8
# runs merge up to this many keys and no further: a click merges at most this many
# keys, so it costs as much in a slice of a thousand keys as in one of 100,000
MAX_MERGE = 4_096


class Run:
    """Keys in order, each once, that never change once made."""

    __slots__ = ("keys",)

    def __init__(self, keys: tuple[str, ...]) -> None:
        self.keys = keys

    def __reduce__(self):
        return (Run, (self.keys,))


class SharedRun(Shared):
    """A `Run` big enough to share: a checkpoint refers to it instead of copying it."""

    __slots__ = ("keys", "part_key")

    def __init__(self, keys: tuple[str, ...]) -> None:
        self.keys = keys
        self.part_key: bytes | None = None

    def __reduce__(self):
        return (SharedRun, (self.keys,))


def _run(keys: tuple[str, ...]) -> Run | SharedRun:
    return SharedRun(keys) if len(keys) >= SHARE_AT else Run(keys)


@dataclass
class Slice:
    """One contiguous slice of the key space: [start, next slice's start).

    Its keys are sorted runs that never change (a run holds keys no other run of the
    table holds) and the keys written since the last run was made (`fresh`, in the
    order written). A click's writes become one run at its end (`seal`); a run as big
    as the one before it is merged into it (up to `MAX_MERGE` keys a merge), so a slice
    holds a few runs however many clicks wrote to it. A checkpoint shares the big runs
    (`SharedRun`), and a restored slice takes them back as they are: a restore does
    not sort a single key.
    """

    id: int
    start: str
    shard: str
    runs: list = field(default_factory=list)  # Run or SharedRun, each sorted
    fresh: list[str] = field(default_factory=list)  # new to the table, unsorted
    stored: int = 0  # keys in the runs
    window: int = -1  # which window of `window_ms` the write counts belong to
    writes: int = 0  # writes in that window
    recent: list[str] = field(default_factory=list)  # the keys written in it
    # True once a checkpoint holds this very object (in a `SliceChunk`): from then on
    # it never changes, and the table changes a copy instead (`RangeTable._own`)
    frozen: bool = False

    def __reduce__(self):
        # the fields in order, without their names: a checkpoint holds hundreds
        return (
            Slice,
            (
                self.id,
                self.start,
                self.shard,
                self.runs,
                self.fresh,
                self.stored,
                self.window,
                self.writes,
                self.recent,
                self.frozen,
            ),
        )

    def thaw(self) -> "Slice":
        """A copy that may change (the runs themselves never do: they are shared)."""
        return Slice(
            self.id,
            self.start,
            self.shard,
            list(self.runs),
            list(self.fresh),
            self.stored,
            self.window,
            self.writes,
            list(self.recent),
        )

    @property
    def size(self) -> int:
        """How many keys the slice holds."""
        return self.stored + len(self.fresh)

    @property
    def keys(self) -> tuple[str, ...]:
        """The slice's keys, sorted (a merge of its runs: not for the write path)."""
        runs = self.runs
        if len(runs) == 1 and not self.fresh:
            return runs[0].keys
        return tuple(sorted(chain(*(run.keys for run in runs), self.fresh)))

    def in_runs(self, key: str) -> bool:
        """Whether `key` is in one of the slice's runs (not among the fresh keys)."""
        for run in self.runs:
            keys = run.keys
            at = bisect_left(keys, key)
            if at < len(keys) and keys[at] == key:
                return True
        return False

    def count_between(self, low: str, high: str) -> int:
        """How many keys k with low <= k <= high the slice holds."""
        count = sum(1 for key in self.fresh if low <= key <= high)
        for run in self.runs:
            count += bisect_right(run.keys, high) - bisect_left(run.keys, low)
        return count

    def between(self, low: str, high: str) -> list[str]:
        """The keys k with low <= k <= high, sorted."""
        found = [key for key in self.fresh if low <= key <= high]
        for run in self.runs:
            keys = run.keys
            found += keys[bisect_left(keys, low) : bisect_right(keys, high)]
        found.sort()
        return found

    def seal(self) -> None:
        """Make the fresh keys a run; merge it into the runs before it as they fill."""
        if not self.fresh:
            return
        runs = self.runs
        runs.append(_run(tuple(sorted(self.fresh))))
        self.stored += len(self.fresh)
        self.fresh = []
        while len(runs) > 1:
            before, last = len(runs[-2].keys), len(runs[-1].keys)
            if before > 2 * last or before + last > MAX_MERGE:
                break
            last = runs.pop()
            runs[-1] = _run(tuple(sorted(runs[-1].keys + last.keys)))

    def replace(self, ordered: tuple[str, ...]) -> None:
        """Hold exactly `ordered` (sorted, distinct) as one run."""
        self.runs = [_run(ordered)] if ordered else []
        self.fresh = []
        self.stored = len(ordered)


class SliceChunk(Shared):
    """The slices with ids `CHUNK * n` to `CHUNK * n + CHUNK - 1`, frozen: a part."""

    __slots__ = ("pieces", "part_key")

    def __init__(self, pieces: tuple[Slice, ...]) -> None:
        self.pieces = pieces
        self.part_key: bytes | None = None

    def __reduce__(self):
        return (SliceChunk, (self.pieces,))


class SliceOrder(Shared):
    """A table's slices in key order, ids and starts, as a checkpoint shares them."""

    __slots__ = ("ids", "starts", "part_key")

    def __init__(self, ids: tuple[int, ...], starts: tuple[str, ...]) -> None:
        self.ids = ids
        self.starts = starts
        self.part_key: bytes | None = None

    def __reduce__(self):
        return (SliceOrder, (self.ids, self.starts))


# slices a chunk holds: a checkpoint refers to a table's slices a chunk at a time, and
# a click that changes a few slices makes new chunks of those few only
CHUNK = 8


class RangeTable:
    """Slices of the sorted key space on `shards`, split by `policy`."""

    def __init__(
        self,
        shards: list[str],
        *,
        policy: str = "size",
        max_keys: int = 1_000,
        max_writes: int = 2_500,
        window_ms: int = 1_000,
        max_slices: int | None = None,
    ) -> None:
        if not shards:
            raise ActionError("no_shards", _("a table needs at least one shard"))
        if policy not in POLICIES:
            raise ActionError(
                "bad_policy", _("no split policy named %(policy)r"), policy=policy
            )
        self.shards = list(shards)
        self.policy = policy
        self.max_keys = max_keys
        self.max_writes = max_writes
        self.window_ms = window_ms
        self.max_slices = max_slices  # past it no slice splits (None: no bound)
        # the slices in key order, as two plain lists (starts and slices): the write
        # path bisects the starts
        self._starts: list[str] = []
        self._pieces: list[Slice] = []
        # keys the table holds (asked, never iterated): every one of them while
        # `_known_all`, as in a table built write by write; a table restored from a
        # checkpoint knows only those written since, and looks in the runs for the rest
        # (a checkpoint does not copy the set: that would copy every key)
        self._known: set[str] = set()
        self._known_all = True
        self._unsealed: list[int] = []  # ids of the slices with fresh keys
        self._by_id: list[Slice] = []  # slice ids are 0, 1, 2, ...: none is removed
        # what the last checkpoint froze: chunk number -> SliceChunk, and the order;
        # a change to a slice drops its chunk (a new slice, the order), and the next
        # checkpoint freezes only what was dropped
        self._chunks: dict[int, SliceChunk] = {}
        self._order: SliceOrder | None = None
        self.window = 0  # the current window: the latest write's
        self.last_key: str | None = None  # the latest write's key
        first = Slice(0, KEY_SPACE_START, self.shards[0])
        self._add_slice(first)
        self.pending: list[int] = []  # ids of split-off halves not yet moved

    # ----- reading the table ---------------------------------------------------------
    @property
    def pieces(self) -> list[Slice]:
        """The slices in key order (read them; change them through the table)."""
        return self._pieces

    @property
    def slices(self) -> dict[str, Slice]:
        """The slices by start, in key order (a copy: for reading)."""
        return dict(zip(self._starts, self._pieces, strict=True))

    def slice_of(self, key: str) -> Slice:
        """The slice that holds `key`."""
        return self._pieces[bisect_right(self._starts, key) - 1]

    def by_id(self, slice_id: int) -> Slice:
        """The slice with id `slice_id`, or ActionError."""
        if not 0 <= slice_id < len(self._by_id):
            raise ActionError(
                "no_slice", _("there is no slice %(slice)s"), slice=slice_id
            )
        return self._by_id[slice_id]

    def __getstate__(self) -> dict:
        """The table with its slices as shared chunks: the chunks no slice of which
        changed since the last checkpoint are the same parts again."""
        state = dict(self.__dict__)
        for name in ("_starts", "_pieces", "_by_id", "_chunks", "_order"):
            del state[name]
        state["_known"] = None
        state["_known_all"] = False
        state["_fresh_keys"] = [
            key for slice_id in self._unsealed for key in self._by_id[slice_id].fresh
        ]
        chunks = self._chunks
        for number in range((len(self._by_id) + CHUNK - 1) // CHUNK):
            if number not in chunks:
                frozen = tuple(self._by_id[number * CHUNK : (number + 1) * CHUNK])
                for piece in frozen:
                    if not piece.frozen and piece.window != self.window:
                        piece.recent = []  # counts no more (see `sort_in`)
                    piece.frozen = True
                chunks[number] = SliceChunk(frozen)
        if self._order is None:
            self._order = SliceOrder(
                tuple(piece.id for piece in self._pieces), tuple(self._starts)
            )
        state["chunks"] = [chunks[n] for n in sorted(chunks)]
        state["order"] = self._order
        return state

    def __setstate__(self, state: dict) -> None:
        chunks, order = state.pop("chunks"), state.pop("order")
        self.__dict__.update(state)
        self._chunks = dict(enumerate(chunks))  # chunk n holds ids 8n to 8n + 7
        self._order = order
        by_id = self._by_id = list(chain.from_iterable(c.pieces for c in chunks))
        self._pieces = [by_id[slice_id] for slice_id in order.ids]
        self._starts = list(order.starts)
        # keys written in a click not yet sealed (none, between clicks)
        self._known = set(self._fresh_keys)
        del self._fresh_keys

    def _own(self, index: int) -> Slice:
        """The slice at `index`, ready to change: a copy if a checkpoint holds it."""
        piece = self._pieces[index]
        if piece.frozen:
            piece = piece.thaw()
            if piece.window != self.window:  # keys of a window gone by count no more
                piece.recent = []
            self._pieces[index] = piece
            self._by_id[piece.id] = piece
            self._chunks.pop(piece.id // CHUNK, None)
        return piece

    def _index(self, piece: Slice) -> int:
        return bisect_right(self._starts, piece.start) - 1

    def sort_in(self) -> None:
        """Seal every slice's fresh keys into a run: a batch of writes pays for its
        own. (A slice's `recent` keys of a window gone by count only in their own
        window, and a write in a later one starts afresh: they are dropped when the
        slice next changes, not here, which would change slices a checkpoint shares.)"""
        for slice_id in self._unsealed:
            piece = self._by_id[slice_id]
            if piece.fresh:
                self._own(self._index(piece)).seal()
        self._unsealed = []

    def holds(self, key: str) -> bool:
        """Whether `key` was written to the table."""
        if key in self._known:
            return True
        return not self._known_all and self.slice_of(key).in_runs(key)

    def shard_of(self, key: str) -> str:
        """Where `key` lives: its slice's shard."""
        return self.slice_of(key).shard

    def boundaries(self) -> list[dict]:
        """The boundary table in key order (end None: the end of the key space)."""
        pieces = self._pieces
        rows = []
        for i, piece in enumerate(pieces):
            end = pieces[i + 1].start if i + 1 < len(pieces) else None
            rows.append(
                {
                    "id": piece.id,
                    "start": piece.start,
                    "end": end,
                    "shard": piece.shard,
                    "keys": piece.size,
                    "writes": self.current_writes(piece),
                }
            )
        return rows

    def all_keys(self):
        """Every key the table holds, in key order."""
        for piece in self._pieces:
            yield from piece.keys

    def keys_per_shard(self) -> dict[str, int]:
        """How many keys each shard holds, every shard named."""
        counts = dict.fromkeys(self.shards, 0)
        for piece in self._pieces:
            counts[piece.shard] += piece.size
        return counts

    def current_writes(self, piece: Slice) -> int:
        """Writes `piece` took in the current window (0 if none since it began)."""
        return piece.writes if piece.window == self.window else 0

    def writes_per_shard(self) -> dict[str, int]:
        """Writes each shard took in the current window."""
        counts = dict.fromkeys(self.shards, 0)
        for piece in self._pieces:
            counts[piece.shard] += self.current_writes(piece)
        return counts

    def range_query(self, low: str, high: str) -> list[Slice]:
        """The slices a query for keys low…high (both included) reads, in key order."""
        if low > high:
            raise ActionError(
                "reversed_range",
                _("the range starts after it ends: %(low)s > %(high)s"),
                low=low,
                high=high,
            )
        first = bisect_right(self._starts, low) - 1
        last = bisect_right(self._starts, high) - 1
        return self._pieces[first : last + 1]

    # ----- changing it ---------------------------------------------------------------
    def insert(self, key: str, at_ms: int, new: bool | None = None) -> list[dict]:
        """Write `key` at `at_ms`: counted as load, kept once, split past the policy.

        `new` says whether the table holds `key` yet, when the caller knows (None: the
        table looks)."""
        index = bisect_right(self._starts, key) - 1
        piece = self._pieces[index]
        if piece.frozen:
            piece = self._own(index)
        window = at_ms // self.window_ms
        if window > self.window:
            self.window = window
        self.last_key = key
        if piece.window != window:
            piece.window = window
            piece.writes = 0
            piece.recent = []
        piece.writes += 1
        if len(piece.recent) < MAX_RECENT_FACTOR * self.max_writes:
            piece.recent.append(key)
        if new is None:
            new = key not in self._known and (self._known_all or not piece.in_runs(key))
        if new:
            self._known.add(key)
            if not piece.fresh:
                self._unsealed.append(piece.id)
            piece.fresh.append(key)
        if self.policy == "size":
            if piece.size <= self.max_keys:
                return []
        elif piece.writes <= self.max_writes:
            return []
        at = self._split_point(piece)
        if at is None:
            return []
        return [self._split(piece, at, written=key)]

    def split_now(self, slice_id: int) -> dict:
        """Split a slice at its median key (the "split now" button)."""
        piece = self.by_id(slice_id)
        if self.full:
            raise ActionError(
                "too_many_slices",
                _("this table draws at most %(maximum)s slices"),
                maximum=self.max_slices,
            )
        at = _median_split(piece.keys, piece.start)
        if at is None:
            raise ActionError(
                "cannot_split",
                _(
                    "slice %(slice)s has fewer than two different keys: "
                    "nothing to split"
                ),
                slice=slice_id,
            )
        return self._split(piece, at)

    def split_oversized(self) -> list[dict]:
        """Split every slice above the size threshold until none is (a lower one)."""
        if self.policy != "size":
            return []
        events = []
        for piece in list(self._pieces):
            work = [piece.start]
            while work and not self.full:
                part = self.slice_of(work.pop())
                at = self._split_point(part)
                if at is not None:
                    events.append(self._split(part, at))
                    work += [part.start, at]
        return events

    @property
    def full(self) -> bool:
        """True when the table has as many slices as it may."""
        return self.max_slices is not None and len(self._pieces) >= self.max_slices

    def move(self, slice_id: int, shard: str) -> dict:
        """Move one slice, with its keys, to `shard`."""
        if shard not in self.shards:
            raise ActionError("no_shard", _("there is no shard %(shard)s"), shard=shard)
        piece = self._own(self._index(self.by_id(slice_id)))
        event = {
            "type": "slice_moved",
            "slice": piece.id,
            "from": piece.shard,
            "to": shard,
            "keys": piece.size,
        }
        piece.shard = shard
        if piece.id in self.pending:
            self.pending.remove(piece.id)
        return event

    def rebalance(self) -> list[dict]:
        """Move every split-off half still waiting to the least-loaded shard."""
        events = []
        for slice_id in list(self.pending):
            piece = self.by_id(slice_id)
            target = self._least_loaded()
            if target == piece.shard:
                self.pending.remove(slice_id)
                continue
            events.append(self.move(slice_id, target))
        return events

    def add_shard(self, shard: str) -> list[dict]:
        """Add an empty shard: slices move to it from the shards with most keys."""
        if shard in self.shards:
            raise ActionError(
                "shard_exists", _("shard %(shard)s exists already"), shard=shard
            )
        self.shards.append(shard)
        events = []
        share = sum(p.size for p in self._pieces) / len(self.shards)
        while True:
            loads = self.keys_per_shard()
            donor = max(self.shards, key=lambda s: (loads[s], -self.shards.index(s)))
            candidates = [p for p in self._pieces if p.shard == donor and p.size]
            if donor == shard or not candidates:
                break
            smallest = min(candidates, key=lambda p: (p.size, p.id))
            size = smallest.size
            if loads[shard] + size > share + size / 2:
                break
            events.append(self.move(smallest.id, shard))
        return events

    # ----- the invariants (tests and assertions) -------------------------------------
    def check(self) -> None:
        """AssertionError unless the slices tile the key space and hold their keys."""
        pieces = self._pieces
        assert pieces and pieces[0].start == KEY_SPACE_START
        ids = [p.id for p in pieces]
        assert len(ids) == len(dict.fromkeys(ids)), "a slice id twice"
        assert self._starts == [p.start for p in pieces]
        assert [p.id for p in self._by_id] == list(range(len(ids)))
        for number, chunk in self._chunks.items():  # a kept chunk is what is here
            held = self._by_id[number * CHUNK : (number + 1) * CHUNK]
            assert len(chunk.pieces) == len(held)
            assert all(a is b for a, b in zip(chunk.pieces, held, strict=True))
            assert all(p.frozen for p in chunk.pieces)
        if self._order is not None:
            assert list(self._order.ids) == ids
            assert list(self._order.starts) == self._starts
        for i, piece in enumerate(pieces):
            assert self._by_id[piece.id] is piece
            assert piece.shard in self.shards
            end = pieces[i + 1].start if i + 1 < len(pieces) else None
            if end is not None:
                assert piece.start < end, "slices out of order or empty"
            keys = piece.keys
            assert len(keys) == piece.size, "a key twice in a slice"
            pairs = zip(keys, keys[1:], strict=False)
            assert all(a < b for a, b in pairs), "keys twice or out of order"
            for key in (keys[0], keys[-1]) if keys else ():
                assert piece.start <= key and (end is None or key < end)

    # ----- inside ---------------------------------------------------------------------
    def _split_point(self, piece: Slice) -> str | None:
        if self.full:
            return None
        if self.policy == "size":
            if piece.size <= self.max_keys:
                return None
            return _median_split(piece.keys, piece.start)
        if piece.writes <= self.max_writes:
            return None
        return _median_split(sorted(piece.recent), piece.start)

    def _split(self, piece: Slice, at: str, written: str | None = None) -> dict:
        """Split `piece` at `at`; the half `written` is not in waits to move."""
        piece = self._own(self._index(piece))
        right = Slice(len(self._by_id), at, piece.shard)  # ids in the order made
        ordered = piece.keys
        cut = bisect_left(ordered, at)
        right.replace(ordered[cut:])
        piece.replace(ordered[:cut])
        right.window = piece.window
        right.recent = [k for k in piece.recent if k >= at]
        piece.recent = [k for k in piece.recent if k < at]
        right.writes = len(right.recent)
        piece.writes = len(piece.recent)
        self._add_slice(right)
        moving = piece if written is not None and written >= at else right
        if moving.id not in self.pending:
            self.pending.append(moving.id)
        return {
            "type": "slice_split",
            "slice": piece.id,
            "new": right.id,
            "at": at,
            "shard": piece.shard,
            "left_keys": piece.size,
            "right_keys": right.size,
            "moving": moving.id,
        }

    def _add_slice(self, piece: Slice) -> None:
        self._chunks.pop(piece.id // CHUNK, None)
        self._order = None
        at = bisect_right(self._starts, piece.start)
        self._starts.insert(at, piece.start)
        self._pieces.insert(at, piece)
        self._by_id.append(piece)

    def _least_loaded(self) -> str:
        keys = self.keys_per_shard()
        writes = self.writes_per_shard() if self.policy == "load" else keys
        # ties go to the shard named first, so the same history picks the same shard
        return min(
            self.shards, key=lambda s: (writes[s], keys[s], self.shards.index(s))
        )


def _median_split(keys: Sequence[str], start: str) -> str | None:
    """A split key that puts about half of `keys` on each side, or None if none can.

    The key at the middle, or the nearest key after it that is above `start` and differs
    from the key before it (a split key must leave something on the left, and equal keys
    stay together).
    """
    count = len(keys)
    if count < 2:
        return None
    for i in range(count // 2, count):
        candidate = keys[i]
        if candidate > start and keys[i - 1] < candidate:
            return candidate
    return None
