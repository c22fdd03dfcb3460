"""The pieces every lab shares: declarations, validation, clock, RNG, digests, and the
checker of histories of reads and writes."""

from simulators.engine.canonical import canonical_json, digest_of
from simulators.engine.clock import EventQueue, VirtualClock
from simulators.engine.clocked import ClockedLab
from simulators.engine.declaration import ActionError, ActionSpec, Param, TourStep
from simulators.engine.history import (
    Op,
    Verdict,
    check_linearizable,
    check_monotonic_reads,
    check_read_your_writes,
    history_from,
)
from simulators.engine.lab import Lab
from simulators.engine.network import Latency, Message, Network, link_id
from simulators.engine.rng import derive_seed, make_rng

__all__ = [
    "ActionError",
    "ActionSpec",
    "ClockedLab",
    "EventQueue",
    "Lab",
    "Latency",
    "Message",
    "Network",
    "Op",
    "Param",
    "TourStep",
    "Verdict",
    "VirtualClock",
    "canonical_json",
    "check_linearizable",
    "check_monotonic_reads",
    "check_read_your_writes",
    "derive_seed",
    "digest_of",
    "history_from",
    "link_id",
    "make_rng",
]
