"""Every built lab, by slug."""

from simulators.labs.hash_placement import HashPlacementLab
from simulators.labs.partition_cap import PartitionCapLab
from simulators.labs.quorum import QuorumLab

LABS = {lab.slug: lab for lab in (HashPlacementLab, QuorumLab, PartitionCapLab)}

__all__ = ["LABS"]
