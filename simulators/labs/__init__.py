"""Every built lab, by slug."""

from simulators.labs.hash_placement import HashPlacementLab

LABS = {lab.slug: lab for lab in (HashPlacementLab,)}

__all__ = ["LABS"]
