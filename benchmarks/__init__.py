"""Benchmarks of the simulators, run with `python -m benchmarks` from the repo root.

A built lab's own benchmarks are the module named after it, `benchmarks/<slug with
underscores>.py` (benchmarks/__main__.py finds it by the lab's slug); the folders
`benchmarks` of the roots named in `PLAYGROUND_LAB_ROOTS` (simulators/labs/__init__.py)
are searched too.
"""

import os
from pathlib import Path

for _root in filter(None, os.environ.get("PLAYGROUND_LAB_ROOTS", "").split(os.pathsep)):
    __path__.append(str(Path(_root) / "benchmarks"))
