"""range-splits: slices of the sorted key space on shards, split by size or by load."""

from simulators.labs.range_splits.lab import RangeSplitsLab

__all__ = ["RangeSplitsLab"]
