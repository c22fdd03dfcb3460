"""Every built lab, by slug."""

from simulators.labs.hash_placement import HashPlacementLab
from simulators.labs.partition_cap import PartitionCapLab
from simulators.labs.quorum import QuorumLab
from simulators.labs.range_splits import RangeSplitsLab

BUILT = (HashPlacementLab, RangeSplitsLab, QuorumLab, PartitionCapLab)
LABS = {lab.slug: lab for lab in BUILT}

__all__ = ["LABS"]
