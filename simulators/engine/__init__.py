"""The pieces every lab shares: declarations, validation, clock, RNG and digests."""

from simulators.engine.canonical import canonical_json, digest_of
from simulators.engine.clock import EventQueue, VirtualClock
from simulators.engine.declaration import ActionError, ActionSpec, Param
from simulators.engine.lab import Lab
from simulators.engine.rng import derive_seed, make_rng

__all__ = [
    "ActionError",
    "ActionSpec",
    "EventQueue",
    "Lab",
    "Param",
    "VirtualClock",
    "canonical_json",
    "derive_seed",
    "digest_of",
    "make_rng",
]
