"""Every built lab, by slug."""

from simulators.labs.cache_stampede import CacheStampedeLab
from simulators.labs.graph_traversal import GraphTraversalLab
from simulators.labs.hash_placement import HashPlacementLab
from simulators.labs.partition_cap import PartitionCapLab
from simulators.labs.quorum import QuorumLab
from simulators.labs.range_splits import RangeSplitsLab
from simulators.labs.rate_limit_race import RateLimitRaceLab
from simulators.labs.replication import ReplicationLab
from simulators.labs.scatter_gather import ScatterGatherLab
from simulators.labs.two_phase_commit import TwoPhaseCommitLab

BUILT = (
    HashPlacementLab,
    RangeSplitsLab,
    ScatterGatherLab,
    ReplicationLab,
    QuorumLab,
    PartitionCapLab,
    TwoPhaseCommitLab,
    CacheStampedeLab,
    RateLimitRaceLab,
    GraphTraversalLab,
)
LABS = {lab.slug: lab for lab in BUILT}

__all__ = ["LABS"]
