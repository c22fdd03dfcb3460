"""Benchmarks of the simulators, run with `python -m benchmarks` from the repo root."""
