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
containers and lists, no sets of strings iterated, no clock (the times are the
stream's own).
"""

from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field

from sortedcontainers import SortedDict, SortedList

from simulators.engine.declaration import ActionError
from simulators.engine.i18n import gettext_noop as _

POLICIES = ("size", "load")
KEY_SPACE_START = ""
# the window writes a load split looks back over, at most (it holds the whole window up
# to twice the threshold; a slice whose writes all hit one key cannot split)
MAX_RECENT_FACTOR = 2


@dataclass
class Slice:
    """One contiguous slice of the key space: [start, next slice's start)."""

    id: int
    start: str
    shard: str
    held: SortedList = field(default_factory=SortedList)
    # keys written since `held` was last read, each new to the table: the write path
    # appends here, and the first read sorts them in (one sort for hundreds of writes,
    # where adding each to the sorted list costs more than the rest of a write)
    fresh: list[str] = field(default_factory=list)
    window: int = -1  # which window of `window_ms` the write counts belong to
    writes: int = 0  # writes in that window
    recent: list[str] = field(default_factory=list)  # the keys written in it

    def __getstate__(self) -> dict:
        # the keys are not pickled: the lab keeps every key written in a ledger of
        # shared blocks (lab.py), and a restored table takes them back from there
        # (`restore_keys`), so a checkpoint holds the boundaries, not the key space
        state = dict(self.__dict__)
        state["held"] = None
        state["fresh"] = []
        return state

    @property
    def keys(self) -> SortedList:
        """The slice's keys, sorted."""
        if self.fresh:
            self.held.update(self.fresh)
            self.fresh = []
        return self.held

    @property
    def size(self) -> int:
        """How many keys the slice holds (without sorting the fresh ones in)."""
        return len(self.held) + len(self.fresh)


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
        self.slices: SortedDict = SortedDict()  # start -> Slice
        # the same slices as two plain lists in key order, for the write path: a
        # bisect of a list is a third of the cost of SortedDict's
        self._starts: list[str] = []
        self._pieces: list[Slice] = []
        self._seen: set[str] = set()  # every key held (asked, never iterated)
        self._by_id: dict[int, Slice] = {}
        self._next_id = 1
        self.window = 0  # the current window: the latest write's
        self.last_key: str | None = None  # the latest write's key
        first = Slice(0, KEY_SPACE_START, self.shards[0])
        self._add_slice(first)
        self.pending: list[int] = []  # ids of split-off halves not yet moved

    # ----- reading the table ---------------------------------------------------------
    def slice_of(self, key: str) -> Slice:
        """The slice that holds `key`."""
        return self._pieces[bisect_right(self._starts, key) - 1]

    def by_id(self, slice_id: int) -> Slice:
        """The slice with id `slice_id`, or ActionError."""
        piece = self._by_id.get(slice_id)
        if piece is None:
            raise ActionError(
                "no_slice", _("there is no slice %(slice)s"), slice=slice_id
            )
        return piece

    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        state["_seen"] = None  # rebuilt by restore_keys, as the slices' keys are
        return state

    def restore_keys(self, ordered: list[str], seen: set[str]) -> None:
        """Give a table restored from a pickle its keys back: every key it held, in
        key order (each goes to the slice whose range holds it), and as a set."""
        self._seen = seen
        starts = self._starts
        for i, piece in enumerate(self._pieces):
            low = bisect_left(ordered, starts[i])
            high = bisect_left(ordered, starts[i + 1]) if i + 1 < len(starts) else None
            piece.held = SortedList(ordered[low:high])
            piece.fresh = []

    def sort_in(self) -> None:
        """Sort every slice's fresh keys in (a batch of writes pays for its own), and
        forget the writes of windows gone by (a slice's `recent` matters only in the
        current window: a write in a later one starts it afresh)."""
        for piece in self._pieces:
            if piece.fresh:
                piece.keys  # noqa: B018 (reading the keys sorts the fresh ones in)
            if piece.window != self.window and piece.recent:
                piece.recent = []

    def holds(self, key: str) -> bool:
        """Whether `key` was written to the table."""
        return key in self._seen

    def shard_of(self, key: str) -> str:
        """Where `key` lives: its slice's shard."""
        return self.slice_of(key).shard

    def boundaries(self) -> list[dict]:
        """The boundary table in key order (end None: the end of the key space)."""
        pieces = list(self.slices.values())
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
        for piece in self.slices.values():
            yield from piece.keys

    def keys_per_shard(self) -> dict[str, int]:
        """How many keys each shard holds, every shard named."""
        counts = dict.fromkeys(self.shards, 0)
        for piece in self.slices.values():
            counts[piece.shard] += piece.size
        return counts

    def current_writes(self, piece: Slice) -> int:
        """Writes `piece` took in the current window (0 if none since it began)."""
        return piece.writes if piece.window == self.window else 0

    def writes_per_shard(self) -> dict[str, int]:
        """Writes each shard took in the current window."""
        counts = dict.fromkeys(self.shards, 0)
        for piece in self.slices.values():
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
        first = self.slices.bisect_right(low) - 1
        last = self.slices.bisect_right(high) - 1
        return [self.slices.peekitem(i)[1] for i in range(first, last + 1)]

    # ----- changing it ---------------------------------------------------------------
    def insert(self, key: str, at_ms: int) -> list[dict]:
        """Write `key` at `at_ms`: counted as load, kept once, split past the policy."""
        piece = self._pieces[bisect_right(self._starts, key) - 1]
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
        if key not in self._seen:
            self._seen.add(key)
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
        for piece in list(self.slices.values()):
            work = [piece]
            while work and not self.full:
                part = work.pop()
                at = self._split_point(part)
                if at is not None:
                    events.append(self._split(part, at))
                    work += [part, self.slices[at]]
        return events

    @property
    def full(self) -> bool:
        """True when the table has as many slices as it may."""
        return self.max_slices is not None and len(self.slices) >= self.max_slices

    def move(self, slice_id: int, shard: str) -> dict:
        """Move one slice, with its keys, to `shard`."""
        if shard not in self.shards:
            raise ActionError("no_shard", _("there is no shard %(shard)s"), shard=shard)
        piece = self.by_id(slice_id)
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
        share = sum(p.size for p in self.slices.values()) / len(self.shards)
        while True:
            loads = self.keys_per_shard()
            donor = max(self.shards, key=lambda s: (loads[s], -self.shards.index(s)))
            candidates = [
                p for p in self.slices.values() if p.shard == donor and p.size
            ]
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
        pieces = list(self.slices.values())
        assert pieces and pieces[0].start == KEY_SPACE_START
        ids = [p.id for p in pieces]
        assert len(ids) == len(dict.fromkeys(ids)), "a slice id twice"
        assert self._pieces == pieces and self._starts == [p.start for p in pieces]
        for i, piece in enumerate(pieces):
            assert self.slices[piece.start] is piece
            assert piece.shard in self.shards
            end = pieces[i + 1].start if i + 1 < len(pieces) else None
            if end is not None:
                assert piece.start < end, "slices out of order or empty"
            for key in (piece.keys[0], piece.keys[-1]) if piece.keys else ():
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
        return _median_split(SortedList(piece.recent), piece.start)

    def _split(self, piece: Slice, at: str, written: str | None = None) -> dict:
        """Split `piece` at `at`; the half `written` is not in waits to move."""
        right = Slice(self._next_id, at, piece.shard)
        self._next_id += 1
        moved = list(piece.keys.irange(minimum=at))
        right.keys.update(moved)
        del piece.keys[piece.keys.bisect_left(at) :]
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
            "left_keys": len(piece.keys),
            "right_keys": len(right.keys),
            "moving": moving.id,
        }

    def _add_slice(self, piece: Slice) -> None:
        self.slices[piece.start] = piece
        at = bisect_right(self._starts, piece.start)
        self._starts.insert(at, piece.start)
        self._pieces.insert(at, piece)
        self._by_id[piece.id] = piece

    def _least_loaded(self) -> str:
        keys = self.keys_per_shard()
        writes = self.writes_per_shard() if self.policy == "load" else keys
        # ties go to the shard named first, so the same history picks the same shard
        return min(
            self.shards, key=lambda s: (writes[s], keys[s], self.shards.index(s))
        )


def _median_split(keys: SortedList, start: str) -> str | None:
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
