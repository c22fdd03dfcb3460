"""scatter-gather: route a query by its shard key, or ask every shard and wait."""

from simulators.labs.scatter_gather.lab import ScatterGatherLab

__all__ = ["ScatterGatherLab"]
