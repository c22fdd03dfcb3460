"""Every built lab, by slug."""

from simulators.labs.hash_placement import HashPlacementLab
from simulators.labs.quorum import QuorumLab

LABS = {lab.slug: lab for lab in (HashPlacementLab, QuorumLab)}

__all__ = ["LABS"]
