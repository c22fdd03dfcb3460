"""range-splits: one stream of writes into two range tables and hash placement.

Every write goes to three placements at once: a range table that splits slices by size,
one that splits them by load (`table.py`), and hash placement (murmur3 mod N), so the
same seeded stream is seen three ways. Time is the stream's own (each write is
`1000 / rate` ms after the one before, carried on from one click to the next); the
heat chart counts each placement's writes per shard in quarter-second columns over the
last minute of that time. A balancer runs once a second of that time (and when a
click's writes end): the halves split off since its last round move then, so a split
and its move are two moments apart, as MongoDB's balancer moves chunks after they split.
"""

from simulators.engine.declaration import ActionError
from simulators.engine.hashing import murmur
from simulators.engine.i18n import gettext_noop as _
from simulators.engine.lab import Lab
from simulators.labs.range_splits.cost import RangeSplitsCost
from simulators.labs.range_splits.declaration import (
    ACTIONS,
    BALANCE_MS,
    HEAT_BUCKET_MS,
    HEAT_BUCKETS,
    MAX_SHARDS,
    MAX_SLICES,
    MAX_WRITES,
    MINUTE_MS,
    OPTIONS,
    SHARD_NAMES,
    WINDOW_MS,
)
from simulators.labs.range_splits.heat import Heat
from simulators.labs.range_splits.streams import stream
from simulators.labs.range_splits.table import POLICIES, RangeTable
from simulators.labs.range_splits.tour import TOUR

PLACEMENTS = (*POLICIES, "hash")


class RangeSplitsLab(Lab):
    """Slices that split and move, beside hash placement, on one stream."""

    slug = "range-splits"
    options = OPTIONS
    actions = ACTIONS
    tour = TOUR
    stress = (
        ("write", {"kind": "uniform", "count": 60000, "rate": 20000}),
        ("write", {"kind": "timestamps", "count": 60000, "rate": 20000}),
        ("add_shard", {}),
        ("set_thresholds", {"max_keys": 100, "max_writes": 100}),
    )
    cost_model = RangeSplitsCost
    creation_cost = 200  # two empty tables and the first frame: 45-90 µs measured
    frame_cost = 8_000

    def __init__(self, seed: int = 0, **options) -> None:
        super().__init__(seed, **options)
        opts = self.option_values
        self.shards = list(SHARD_NAMES[: opts["shards"]])
        self.tables = {
            policy: RangeTable(
                list(self.shards),
                policy=policy,
                max_keys=opts["max_keys"],
                max_writes=opts["max_writes"],
                window_ms=WINDOW_MS,
                max_slices=MAX_SLICES,
            )
            for policy in POLICIES
        }
        self.now_ms = 0  # the stream's clock: when the next write arrives
        self.balance_ms = BALANCE_MS  # the balancer's next round, in stream time
        self.writes = 0
        self.hash_keys = dict.fromkeys(self.shards, 0)  # distinct keys per shard
        # heat: writes per shard per placement, quarter-second columns (heat.py)
        self.heat = Heat(PLACEMENTS)
        self.splits = dict.fromkeys(POLICIES, 0)
        self.moves = dict.fromkeys(POLICIES, 0)
        self.query: dict | None = None
        self.last_write: dict | None = None

    # ----- actions --------------------------------------------------------------------
    def do_write(self, kind: str, count: int, rate: int) -> list[dict]:
        """Send `count` writes of a stream to all three placements; then balance."""
        if self.writes + count > MAX_WRITES:
            raise ActionError(
                "too_many_writes",
                _(
                    "this lab takes at most %(maximum)s writes in all "
                    "(%(left)s more): start a new lab for more"
                ),
                "count",
                maximum=f"{MAX_WRITES:,}",
                left=f"{MAX_WRITES - self.writes:,}",
            )
        start = self.now_ms
        splits = []
        size, load = self.tables["size"], self.tables["load"]
        shards = self.shards
        count_of = len(shards)
        for at_ms, key in stream(self.seed, kind, count, rate, start):
            if at_ms >= self.balance_ms:  # a balancer round: waiting halves move
                splits += self._rebalance(at_ms)
                self.balance_ms = (at_ms // BALANCE_MS + 1) * BALANCE_MS
            new = not size.holds(key)  # both tables hold the same keys
            if new:
                self.hash_keys[shards[murmur(key) % count_of]] += 1
            column = self._heat_column(at_ms)
            splits += _tagged("size", size.insert(key, at_ms, new), at_ms)
            column["size"][size.shard_of(key)] += 1
            splits += _tagged("load", load.insert(key, at_ms, new), at_ms)
            column["load"][load.shard_of(key)] += 1
            column["hash"][shards[murmur(key) % count_of]] += 1
            self.now_ms = at_ms + max(1, 1000 // rate)
        self.writes += count
        for table in self.tables.values():
            table.sort_in()
        self._forget_old_heat()
        self.last_write = {
            "kind": kind,
            "count": count,
            "rate": rate,
            "from_ms": start,
            "to_ms": self.now_ms,
        }
        written = {"type": "written", **self.last_write}
        return self._counted([written, *splits, *self._rebalance(self.now_ms)])

    def do_add_shard(self) -> list[dict]:
        """A new empty shard: slices migrate to it; hash placement moves most keys."""
        if len(self.shards) >= MAX_SHARDS:
            raise ActionError(
                "too_many_shards",
                _("this lab draws at most %(maximum)s shards"),
                maximum=MAX_SHARDS,
            )
        name = SHARD_NAMES[len(self.shards)]
        self.shards.append(name)
        events: list[dict] = [{"type": "shard_added", "shard": name}]
        for policy, table in self.tables.items():
            events += self._counted(_tagged(policy, table.add_shard(name)))
        before = self.hash_keys
        self.hash_keys = dict.fromkeys(self.shards, 0)
        stayed = 0
        count_of = len(self.shards)
        for key in self.tables["size"].all_keys():
            value = murmur(key)
            shard = self.shards[value % count_of]
            self.hash_keys[shard] += 1
            stayed += shard == self.shards[value % (count_of - 1)]
        total = sum(before.values())
        events.append({"type": "hash_moved", "moved": total - stayed, "total": total})
        self.heat.add_shard(name)
        return events

    def do_range_query(self, low: str, high: str) -> list[dict]:
        """Which slices and shards a query for keys low…high reads, per placement."""
        read = {p: t.range_query(low, high) for p, t in self.tables.items()}
        found = sum(piece.count_between(low, high) for piece in read["size"])
        # the shards hash placement scattered these keys over (soon every one of them)
        holding: list[str] = []
        count_of = len(self.shards)
        for piece in read["size"]:
            for key in piece.between(low, high):
                shard = self.shards[murmur(key) % count_of]
                if shard not in holding:
                    holding.append(shard)
                    if len(holding) == count_of:
                        break
            if len(holding) == count_of:
                break
        self.query = {
            "low": low,
            "high": high,
            "keys": found,
            "slices": {p: [piece.id for piece in pieces] for p, pieces in read.items()},
            "shards": {
                **{
                    p: _in_order(self.shards, (piece.shard for piece in pieces))
                    for p, pieces in read.items()
                },
                # hash placement cannot know where a range's keys are: it asks them all
                "hash": list(self.shards),
            },
            "hash_holding": _in_order(self.shards, holding),
        }
        return [{"type": "range_read", **self.query}]

    def do_set_thresholds(self, max_keys: int, max_writes: int) -> list[dict]:
        """New split thresholds; slices above the size one split at once."""
        size, load = self.tables["size"], self.tables["load"]
        lower = max_keys < size.max_keys
        size.max_keys = load.max_keys = max_keys
        size.max_writes = load.max_writes = max_writes
        events: list[dict] = [
            {"type": "thresholds_set", "max_keys": max_keys, "max_writes": max_writes}
        ]
        # a threshold as high as the last or higher splits nothing: every slice is
        # at most the last one, or the table is full (RangeSplitsCost counts on it)
        splits = _tagged("size", size.split_oversized()) if lower else []
        return self._counted(events + splits + self._rebalance(self.now_ms))

    def do_split_now(self, policy: str, slice: int) -> list[dict]:  # noqa: A002
        """Split one slice at its median key now; its upper half moves after."""
        split = self.tables[policy].split_now(slice)
        at = self.now_ms
        return self._counted([*_tagged(policy, [split], at), *self._rebalance(at)])

    def do_move_slice(self, policy: str, slice: int, shard: str) -> list[dict]:  # noqa: A002
        """Move one slice, with its keys, to a shard."""
        moved = self.tables[policy].move(slice, shard)  # checks before it changes
        return self._counted(_tagged(policy, [moved]))

    # ----- inside ---------------------------------------------------------------------
    def _rebalance(self, at_ms: int) -> list[dict]:
        """A balancer round: every half waiting since a split moves."""
        events = []
        for policy, table in self.tables.items():
            events += _tagged(policy, table.rebalance(), at_ms)
        return events

    def _counted(self, events: list[dict]) -> list[dict]:
        """`events`, with their splits and moves added to the lab's counts."""
        for event in events:
            if event["type"] == "slice_split":
                self.splits[event["policy"]] += 1
            elif event["type"] == "slice_moved":
                self.moves[event["policy"]] += 1
        return events

    def _heat_column(self, at_ms: int) -> dict[str, dict[str, int]]:
        return self.heat.column(at_ms // HEAT_BUCKET_MS, self.shards)

    def _heat_kept_after(self) -> int:
        """The columns the heat chart keeps are those after this one: a minute's."""
        return (self.now_ms - 1) // HEAT_BUCKET_MS - HEAT_BUCKETS

    def _forget_old_heat(self) -> None:
        self.heat.forget(self._heat_kept_after())

    def minute_writes(self) -> dict[str, dict[str, int]]:
        """Writes per shard in the last minute of stream time, per placement."""
        since = (self.now_ms - MINUTE_MS) // HEAT_BUCKET_MS
        totals = {p: dict.fromkeys(self.shards, 0) for p in PLACEMENTS}
        for _number, column in self.heat.columns(since, self.shards):
            for placement, counts in column.items():
                for shard, writes in counts.items():
                    totals[placement][shard] += writes
        return totals

    # ----- what the renderer and the tests read ---------------------------------------
    def snapshot(self) -> dict:
        """Shards, both boundary tables, the heat over the last minute, the query."""
        size = self.tables["size"]
        return {
            "seed": self.seed,
            "shards": list(self.shards),
            "now_ms": self.now_ms,
            "writes": self.writes,
            "max_writes": MAX_WRITES,
            "thresholds": {
                "max_keys": size.max_keys,
                "max_writes": size.max_writes,
                "window_ms": WINDOW_MS,
                "max_slices": MAX_SLICES,
            },
            "tables": {
                p: {
                    "slices": t.boundaries(),
                    "full": t.full,
                    # the slice that took the latest write
                    "newest": None if t.last_key is None else t.slice_of(t.last_key).id,
                }
                for p, t in self.tables.items()
            },
            "heat": {
                "bucket_ms": HEAT_BUCKET_MS,
                "columns": [
                    # copies: the open columns' counts change in place, and a
                    # snapshot is a value (a room diffs the next one against it)
                    {"bucket": b, **{p: dict(c) for p, c in column.items()}}
                    for b, column in self.heat.columns(
                        self._heat_kept_after(), self.shards
                    )
                ],
            },
            "query": self.query,
            "last_write": self.last_write,
        }

    def metrics(self) -> dict:
        """Keys and the last minute's writes per shard, per placement; splits, moves."""
        keys = {p: t.keys_per_shard() for p, t in self.tables.items()}
        keys["hash"] = dict(self.hash_keys)
        minute = self.minute_writes()
        hottest = {}
        for placement, counts in minute.items():
            total = sum(counts.values())
            hottest[placement] = round(max(counts.values()) / total, 4) if total else 0
        return {
            "writes": self.writes,
            "keys": sum(keys["hash"].values()),
            "keys_per_shard": keys,
            "minute_writes": minute,
            "hottest_share": hottest,
            "slices": {p: len(t.pieces) for p, t in self.tables.items()},
            "splits": dict(self.splits),
            "moves": dict(self.moves),
        }


def _tagged(policy: str, events: list[dict], at_ms: int | None = None) -> list[dict]:
    """Events of one table, saying which (and when, in stream time)."""
    when = {} if at_ms is None else {"at_ms": at_ms}
    return [{**event, "policy": policy, **when} for event in events]


def _in_order(shards: list[str], named) -> list[str]:
    """The shards `named`, each once, in shard order."""
    seen = set(named)
    return [s for s in shards if s in seen]
