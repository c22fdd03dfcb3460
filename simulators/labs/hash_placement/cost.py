"""What hash-placement's actions cost to replay: most of it grows with the keys loaded.

Costs are in work units (about a microsecond each, simulators/engine/cost.py). The model
follows the two things they depend on: how many keys are loaded, and whether the
partitions use Redis's CRC16 slots (computing a slot per key is the dearest step).
"""

from simulators.engine.cost import CostModel
from simulators.labs.hash_placement.hashing import REDIS_SLOTS

# measured per key (docs/benchmarks.md, "Declared replay costs")
LOAD_PER_KEY = 3.5  # generate a key and hash it (2.8 to 4.4 measured)
SLOT_PER_KEY = 2.5  # CRC16 slot of a key, for partitions = 16,384
MOVE_PER_KEY = 0.4  # place every key again under mod N and count what moved
# virtual nodes move keys on the ring only: about a third of the above (0.107 s for a
# million keys at 256 virtual nodes, where the moves above take 0.33 s)
VNODES_PER_KEY = 0.3
# the keys per shard the next frame's metrics count again after a placement changed
TALLY_PER_KEY = 0.25
BASE = 3_000  # placing shards and partitions, counting moves by aggregate


class HashPlacementCost(CostModel):
    """Declared costs of a hash-placement history, following the key count."""

    def __init__(self, lab_class) -> None:
        super().__init__(lab_class)
        defaults = {p.name: p.default for p in lab_class.options}
        self.scale = (defaults["key_count"], defaults["partitions"])

    def start(self) -> int:
        return BASE + round(self.scale[0] * (LOAD_PER_KEY + TALLY_PER_KEY))

    def charge(self, spec, args: dict) -> int:
        keys, partitions = self.scale
        name = spec.name
        if name == "load_keys":
            self.scale = (args["count"], partitions)
            return BASE + round(args["count"] * (LOAD_PER_KEY + TALLY_PER_KEY))
        if name == "set_partitions":
            to_slots = args["partitions"] == REDIS_SLOTS != partitions
            self.scale = (keys, args["partitions"])
            per_key = MOVE_PER_KEY + TALLY_PER_KEY + (SLOT_PER_KEY if to_slots else 0)
            return BASE + round(keys * per_key)
        if name == "set_vnodes":
            return spec.cost + round(keys * VNODES_PER_KEY)
        if name in ("add_shard", "remove_shard", "set_shards"):
            return spec.cost + round(keys * (MOVE_PER_KEY + TALLY_PER_KEY))
        return spec.cost
