"""A checkpoint stored by one supported Python is read by another to the same lab.

Stored checkpoints are read by any process running the same simulators' code
(playground/checkpoints.py, `code_version`), whatever its Python: a server moved from
3.11 to 3.13 keeps its rooms' checkpoints. Under `make test`'s other Pythons
(.ci/other-pythons) the checkpoints here are made by PLAYGROUND_REFERENCE_PYTHON,
.venv's interpreter; without it, by this one in another process.

Run as a script, it prints the checkpoints of this interpreter.
"""

import base64
import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SEED = 5


def tour(lab) -> list[str]:
    """The lab's digest after each of its tour's "Show me" actions (or the refusal)."""
    from simulators.engine.declaration import ActionError

    digests = []
    for step in type(lab).tour:
        name, args = step.show_me
        try:
            lab.apply(name, dict(args))
        except ActionError as refusal:
            digests.append(f"refused: {refusal}")
        else:
            digests.append(lab.digest())
    return digests


def checkpoints() -> dict[str, dict]:
    """Every built lab after its tour: a checkpoint, its parts, and its digest."""
    from playground.checkpoints import Parts, closure
    from simulators.labs import LABS

    made = {}
    for slug, lab_class in LABS.items():
        lab = lab_class(seed=SEED)
        tour(lab)
        parts = Parts()
        data, keys = parts.dumps(lab)
        stored = closure([parts.objects[key] for key in keys], lambda key: False)
        made[slug] = {
            "data": base64.b64encode(data).decode(),
            "parts": {k.hex(): base64.b64encode(v).decode() for k, v in stored.items()},
            "digest": lab.digest(),
        }
    return made


def test_a_checkpoint_from_the_reference_python_reads_back_to_the_same_lab():
    from playground.checkpoints import Parts
    from simulators.labs import LABS

    reference = os.environ.get("PLAYGROUND_REFERENCE_PYTHON") or sys.executable
    done = subprocess.run(
        [reference, __file__],
        cwd=REPO,
        env={**os.environ, "PYTHONHASHSEED": "7", "PYTHONPATH": str(REPO)},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    theirs = json.loads(done.stdout)
    assert sorted(theirs) == sorted(LABS)
    for slug, made in theirs.items():
        parts = Parts()
        parts.stored = {
            bytes.fromhex(k): base64.b64decode(v) for k, v in made["parts"].items()
        }
        loaded = parts.loads(base64.b64decode(made["data"]))
        replayed = LABS[slug](seed=SEED)
        tour(replayed)
        assert loaded.digest() == made["digest"] == replayed.digest(), slug
        # and from there both go on alike: the tour once more
        assert tour(loaded) == tour(replayed), slug


if __name__ == "__main__":
    print(json.dumps(checkpoints()))
