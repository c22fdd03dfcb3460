"""The two-phase-commit lab: a coordinator, two shards, locks and crashes."""

from simulators.labs.two_phase_commit.lab import TwoPhaseCommitLab

__all__ = ["TwoPhaseCommitLab"]
