"""The pieces every lab shares: declarations, validation, clock, RNG and digests."""

from simulators.engine.canonical import canonical_json, digest_of
from simulators.engine.clock import EventQueue, VirtualClock
from simulators.engine.clocked import ClockedLab
from simulators.engine.declaration import ActionError, ActionSpec, Param, TourStep
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
    "Param",
    "TourStep",
    "VirtualClock",
    "canonical_json",
    "derive_seed",
    "digest_of",
    "link_id",
    "make_rng",
]
