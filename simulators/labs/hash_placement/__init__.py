"""The hash-placement lab: rings, fixed partitions, mod N, and the keys that move."""

from simulators.labs.hash_placement.lab import HashPlacementLab

__all__ = ["HashPlacementLab"]
