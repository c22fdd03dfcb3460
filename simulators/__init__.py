"""Deterministic, in-memory simulators of distributed data systems.

Nothing in this package imports Django, asyncio, the network or the wall clock: a lab
can be driven from a plain script or a test, and the same seed and actions give the same
digest in any process.
"""
