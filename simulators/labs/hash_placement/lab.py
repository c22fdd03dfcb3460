"""hash-placement: mod N, fixed partitions and a ring, side by side on the same keys."""

from simulators.airline import Airline
from simulators.engine.declaration import ActionError
from simulators.engine.hashing import murmur
from simulators.engine.i18n import gettext_noop as _
from simulators.engine.lab import Lab
from simulators.labs.hash_placement.cost import HashPlacementCost
from simulators.labs.hash_placement.declaration import (
    ACTIONS,
    MAX_SHARDS,
    OPTIONS,
    SAMPLE_SIZE,
    SHARD_NAMES,
)
from simulators.labs.hash_placement.hashing import REDIS_SLOTS, redis_slot
from simulators.labs.hash_placement.keyset import KeySet
from simulators.labs.hash_placement.placements import (
    ModPlacement,
    Moves,
    PartitionPlacement,
    RingPlacement,
    ring_tokens,
)
from simulators.labs.hash_placement.stats import request_share, spread
from simulators.labs.hash_placement.tour import TOUR

SCHEMES = ("mod", "partitions", "ring")
NO_MOVES: Moves = (0, {}, {})


class HashPlacementLab(Lab):
    """Places one key set three ways and measures what every change moves."""

    slug = "hash-placement"
    options = OPTIONS
    actions = ACTIONS
    tour = TOUR
    stress = (
        ("load_keys", {"kind": "registration", "count": 1_000_000}),
        ("set_shards", {"count": 12}),
        ("set_vnodes", {"vnodes": 256}),
        ("set_partitions", {"partitions": 16384}),
        ("set_shards", {"count": 4}),
        ("load_keys", {"kind": "booking", "count": 1_000_000}),
    )
    cost_model = HashPlacementCost

    @classmethod
    def forget_caches(cls) -> None:
        ring_tokens.cache_clear()  # the rings' tokens, made once per (shards, vnodes)

    def __init__(self, seed: int = 0, **options) -> None:
        super().__init__(seed, **options)
        opts = self.option_values
        self.airline = Airline(seed)
        shards = list(SHARD_NAMES[: opts["shards"]])
        self.keys = KeySet.of(self.airline, opts["key_kind"], opts["key_count"])
        self.mod = ModPlacement(shards)
        self.partitions = PartitionPlacement.dealt(
            opts["partitions"], _hash_fn_for(opts["partitions"]), shards
        )
        self.ring = RingPlacement(shards, opts["vnodes"])
        self.hot_key: dict | None = None
        self.last_moves: dict[str, Moves] = dict.fromkeys(SCHEMES, NO_MOVES)
        self._tallies: dict[str, dict[str, int]] | None = None

    # ----- the shared table -----------------------------------------------------------
    @property
    def shards(self) -> list[str]:
        """Shard names, in order."""
        return self.mod.shards

    def placements(self) -> dict:
        """The three placements by scheme name."""
        return {"mod": self.mod, "partitions": self.partitions, "ring": self.ring}

    def _replace(self, new: dict) -> list[dict]:
        """Swap in new placements, record what moved, and describe it as events."""
        events = []
        old = self.placements()
        for scheme in SCHEMES:
            if scheme not in new:
                self.last_moves[scheme] = NO_MOVES
                continue
            moves = old[scheme].moves_to(new[scheme], self.keys)
            self.last_moves[scheme] = moves
            events.append(self._moves_event(scheme, old[scheme], new[scheme], moves))
        self.mod = new.get("mod", self.mod)
        self.partitions = new.get("partitions", self.partitions)
        self.ring = new.get("ring", self.ring)
        self._tallies = None
        return events

    def _moves_event(self, scheme, old, new, moves: Moves) -> dict:
        sample_moves = []
        for index, key_hash, slot in self._sample():
            before = old.shard_for(key_hash, slot)
            after = new.shard_for(key_hash, slot)
            if before != after:
                sample_moves.append([index, before, after])
        return {
            "type": "moves",
            "scheme": scheme,
            "moved": moves[0],
            "total": self.keys.count,
            "sample_moves": sample_moves,
        }

    # ----- actions --------------------------------------------------------------------
    def do_add_shard(self) -> list[dict]:
        """Add the next free shard letter to every scheme."""
        if len(self.shards) >= MAX_SHARDS:
            raise ActionError(
                "too_many_shards",
                _("this lab draws at most %(maximum)s shards"),
                maximum=MAX_SHARDS,
            )
        name = next(s for s in SHARD_NAMES if s not in self.shards)
        events = [{"type": "shard_added", "shard": name}]
        return events + self._replace(with_shard_added(self.placements(), name))

    def do_remove_shard(self, shard: str) -> list[dict]:
        """Remove one shard; its keys go to the others."""
        if shard not in self.shards:
            raise ActionError(
                "no_such_shard",
                _("there is no shard named %(shard)r"),
                "shard",
                shard=shard,
            )
        if len(self.shards) == 1:
            raise ActionError(
                "last_shard",
                _("the last shard cannot be removed: keys need a home"),
                "shard",
            )
        events = [{"type": "shard_removed", "shard": shard}]
        return events + self._replace(with_shard_removed(self.placements(), shard))

    def do_set_shards(self, count: int) -> list[dict]:
        """Add or remove shards one at a time until there are `count`."""
        current = self.placements()
        events = []
        while len(current["mod"].shards) != count:
            shards = current["mod"].shards
            if len(shards) < count:
                name = next(s for s in SHARD_NAMES if s not in shards)
                current = with_shard_added(current, name)
                events.append({"type": "shard_added", "shard": name})
            else:
                current = with_shard_removed(current, shards[-1])
                events.append({"type": "shard_removed", "shard": shards[-1]})
        if not events:
            return []
        return events + self._replace(current)

    def do_set_vnodes(self, vnodes: int) -> list[dict]:
        """Give every shard `vnodes` tokens on the ring."""
        events = [{"type": "vnodes_changed", "vnodes": vnodes}]
        return events + self._replace({"ring": RingPlacement(self.shards, vnodes)})

    def do_set_partitions(self, partitions: int) -> list[dict]:
        """Use a new partition count, dealt afresh to the shards."""
        hash_fn = _hash_fn_for(partitions)
        new = PartitionPlacement.dealt(partitions, hash_fn, self.shards)
        events = [{"type": "partitions_changed", "count": partitions, "hash": hash_fn}]
        return events + self._replace({"partitions": new})

    def do_load_keys(self, kind: str, count: int) -> list[dict]:
        """Replace the key set with the first `count` keys of a kind."""
        self.keys = KeySet.of(self.airline, kind, count)
        self.last_moves = dict.fromkeys(SCHEMES, NO_MOVES)
        self._tallies = None
        return [{"type": "keys_loaded", "kind": kind, "count": count}]

    def do_lookup(self, key: str) -> list[dict]:
        """Follow one key through each scheme; changes nothing."""
        key_hash, slot = murmur(key), redis_slot(key)
        n = len(self.shards)
        token = self.ring.token_for(key_hash)
        partitions = self.partitions
        paths = {
            "mod": {
                "hash": key_hash,
                "shard_count": n,
                "remainder": key_hash % n,
                "shard": self.mod.shard_for(key_hash, slot),
            },
            "partitions": {
                "hash_fn": partitions.hash_fn,
                "value": slot if partitions.hash_fn == "crc16" else key_hash,
                "partition": partitions.partition_of(key_hash, slot),
                "partition_count": partitions.count,
                "shard": partitions.shard_for(key_hash, slot),
            },
            "ring": {
                "hash": key_hash,
                "token": self.ring.positions[token],
                "shard": self.ring.owners[token],
            },
        }
        return [
            {
                "type": "lookup",
                "key": key,
                "hash": key_hash,
                "slot": slot,
                "paths": paths,
            }
        ]

    def do_mark_hot(self, key: str, share_percent: int) -> list[dict]:
        """Send `share_percent` of all requests to one key."""
        self.hot_key = {"key": key, "share_percent": share_percent}
        return [{"type": "hot_key", **self._hot_key_view()}]

    def do_clear_hot(self) -> list[dict]:
        """Spread requests evenly over the keys again."""
        self.hot_key = None
        return [{"type": "hot_key_cleared"}]

    # ----- what the renderer and the tests read ---------------------------------------
    def _sample(self):
        for index in range(min(SAMPLE_SIZE, self.keys.count)):
            key = self.keys.key(index)
            yield index, self.keys.hashes[index], redis_slot(key)

    def _hot_key_view(self) -> dict | None:
        if self.hot_key is None:
            return None
        key = self.hot_key["key"]
        key_hash, slot = murmur(key), redis_slot(key)
        where = {s: p.shard_for(key_hash, slot) for s, p in self.placements().items()}
        return {**self.hot_key, "hash": key_hash, "slot": slot, "where": where}

    def tallies(self) -> dict[str, dict[str, int]]:
        """Keys per shard under each scheme (cached until the placement changes)."""
        if self._tallies is None:
            tallies = {s: p.tally(self.keys) for s, p in self.placements().items()}
            # every shard listed, in shard order, even one that holds no partition
            self._tallies = {
                scheme: {shard: counts.get(shard, 0) for shard in self.shards}
                for scheme, counts in tallies.items()
            }
        return self._tallies

    def snapshot(self) -> dict:
        """Shards, tables, the key set, the hot key and a stable sample of keys."""
        placements = self.placements()
        sample = []
        for index, key_hash, slot in self._sample():
            where = {s: p.shard_for(key_hash, slot) for s, p in placements.items()}
            sample.append(
                {
                    "id": index,
                    "key": self.keys.key(index),
                    "hash": key_hash,
                    "slot": slot,
                    "where": where,
                }
            )
        return {
            "seed": self.seed,
            "shards": list(self.shards),
            "keys": {"kind": self.keys.kind, "count": self.keys.count},
            "hot_key": self._hot_key_view(),
            "schemes": {s: p.describe() for s, p in placements.items()},
            "sample": sample,
        }

    def metrics(self) -> dict:
        """Load per shard, spread, and what the last change moved, for each scheme."""
        total = self.keys.count
        hot = self._hot_key_view()
        schemes = {}
        for scheme, per_shard in self.tallies().items():
            moved, sent, received = self.last_moves[scheme]
            hot_shard = hot["where"][scheme] if hot else None
            schemes[scheme] = {
                "per_shard": per_shard,
                **spread(list(per_shard.values())),
                "moved": moved,
                "moved_fraction": round(moved / total, 4) if total else 0.0,
                "sent": sent,
                "received": received,
                "request_share": request_share(per_shard, total, hot, hot_shard),
            }
        return {"total_keys": total, "schemes": schemes}


def _hash_fn_for(partitions: int) -> str:
    return "crc16" if partitions == REDIS_SLOTS else "murmur3"


def with_shard_added(current: dict, name: str) -> dict:
    """The three placements after shard `name` joins."""
    shards = current["mod"].shards
    after = sorted([*shards, name])
    return {
        "mod": ModPlacement(after),
        "partitions": current["partitions"].with_shard_added(name, shards),
        "ring": RingPlacement(after, current["ring"].vnodes),
    }


def with_shard_removed(current: dict, name: str) -> dict:
    """The three placements after shard `name` leaves."""
    after = [s for s in current["mod"].shards if s != name]
    return {
        "mod": ModPlacement(after),
        "partitions": current["partitions"].with_shard_removed(name, after),
        "ring": RingPlacement(after, current["ring"].vnodes),
    }
