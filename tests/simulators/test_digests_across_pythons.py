"""Every lab gives the same digests on every supported Python, in any process.

`make test` runs tests/simulators on each supported Python other than .venv's with
PLAYGROUND_REFERENCE_PYTHON naming .venv's interpreter (.ci/other-pythons). Here every
built lab plays its tour (each step's "Show me", in order) in this interpreter and in
that one, and the digest of the lab and of the events after every action must be the
same: a room stored by one Python replays to the same moments on another. Without the
variable the other process is this same interpreter (with another PYTHONHASHSEED).

Run as a script, it prints the digests of this interpreter (what the test asks of the
reference one).
"""

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SEED = 5


def tour_digests() -> dict[str, list[list[str]]]:
    """For every built lab, after each of its tour's actions: the action, the lab's
    digest (or the refusal, as a tour step may need the clock to have run first) and
    the digest of the events."""
    from simulators.engine import digest_of
    from simulators.engine.declaration import ActionError
    from simulators.labs import LABS

    played = {}
    for slug, lab_class in LABS.items():
        lab = lab_class(seed=SEED)
        steps = []
        for step in lab_class.tour:
            name, args = step.show_me
            try:
                events = lab.apply(name, dict(args))
            except ActionError as refusal:
                steps.append([name, f"refused: {refusal}", ""])
            else:
                steps.append([name, lab.digest(), digest_of(events)])
        played[slug] = steps
    return played


def reference_python() -> str:
    return os.environ.get("PLAYGROUND_REFERENCE_PYTHON") or sys.executable


def test_every_lab_s_tour_gives_the_same_digests_in_the_reference_python():
    reference = reference_python()
    assert Path(reference).exists(), f"PLAYGROUND_REFERENCE_PYTHON={reference}"
    there = subprocess.Popen(
        [reference, __file__],
        cwd=REPO,
        env={**os.environ, "PYTHONHASHSEED": "3", "PYTHONPATH": str(REPO)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    here = tour_digests()  # while the other process plays the same
    out, err = there.communicate(timeout=300)
    assert there.returncode == 0, err
    theirs = json.loads(out)
    assert sorted(theirs) == sorted(here)
    for slug, steps in here.items():
        assert len(steps) >= 3, f"{slug}'s tour plays fewer than three actions"
        assert any(not digest.startswith("refused") for _, digest, _ in steps), slug
        for mine, other in zip(steps, theirs[slug], strict=True):
            assert mine == other, (
                f"{slug}: {mine[0]} gives other digests on Python "
                f"{sys.version.split()[0]} than on {reference}"
            )


if __name__ == "__main__":
    print(json.dumps(tour_digests()))
