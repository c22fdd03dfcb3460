"""The quorum lab: N copies, W and R per operation, and how often reads are stale."""

from simulators.labs.quorum.lab import QuorumLab

__all__ = ["QuorumLab"]
