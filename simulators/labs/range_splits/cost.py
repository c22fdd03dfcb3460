"""What range-splits' actions cost to replay: writes, and passes over the keys held.

Costs are in work units (about a microsecond each, simulators/engine/cost.py); the
per-write and per-key figures are measured by `make bench` ("Declared replay costs" in
docs/benchmarks.md). The model follows the two numbers later costs depend on: how many
writes the lab holds, and the size threshold last set (0 until a click sets one: the
lab's options may have set any). A threshold as high as the last one or higher splits
nothing (every slice is at most the last one, or the table is full and splits no
more), so it costs a pass over the slices, not over the keys.
"""

from simulators.engine.cost import CostModel

PER_WRITE = 7  # two tables, hash placement and the heat chart (6.6 to 8.0 measured)
# a second of the stream's time: the heat chart and the write-rate windows roll over
# (60,000 writes at 1 a second took 12-14 µs a write, at 100 a second 6-7)
PER_SECOND = 8
PER_KEY = 1  # a pass over the keys held (hash placement again, splits to a threshold)
PER_KEY_READ = 0.01  # a range query: two bisects a slice, a few keys hashed


class RangeSplitsCost(CostModel):
    """Declared costs of a range-splits history, following the writes held."""

    def __init__(self, lab_class) -> None:
        super().__init__(lab_class)
        self.scale = (0, 0)

    def charge(self, spec, args: dict) -> int:
        writes, threshold = self.scale
        if spec.name == "write":
            self.scale = (writes + args["count"], threshold)
            seconds = -(-args["count"] // args["rate"])
            return spec.cost + args["count"] * PER_WRITE + seconds * PER_SECOND
        if spec.name == "set_thresholds":
            self.scale = (writes, args["max_keys"])
            if threshold and args["max_keys"] >= threshold:
                return spec.cost  # nothing splits
            return spec.cost + writes * PER_KEY
        if spec.name == "add_shard":
            return spec.cost + writes * PER_KEY
        if spec.name == "range_query":
            return spec.cost + round(writes * PER_KEY_READ)
        return spec.cost
