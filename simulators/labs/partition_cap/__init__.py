"""partition-cap: the last seat on flight 7 during a network partition."""

from simulators.labs.partition_cap.lab import PartitionCapLab

__all__ = ["PartitionCapLab"]
