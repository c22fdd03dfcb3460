"""The same seed and actions give the same digest in any process; other seeds do not.

Under `make test`'s other Pythons (.ci/other-pythons), the other process
(tests/conftest.py, `another_process`) runs PLAYGROUND_REFERENCE_PYTHON, .venv's
interpreter: the same digests on every supported
Python (tests/simulators/test_digests_across_pythons.py plays every lab's tour too).
"""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from simulators.engine import digest_of
from simulators.labs import LABS, REGISTRY

REPO = Path(__file__).resolve().parents[2]
OPTIONS = {"key_count": 5000, "partitions": 16384, "vnodes": 32}
# hash-placement's example script (its manifest's), with options of its own
ACTIONS = [list(action) for action in REGISTRY["hash-placement"].example]
SCRIPT = """
import json, sys
from simulators.engine import digest_of
from simulators.labs import LABS
seed, options, actions, slug = json.loads(sys.argv[1])
lab = LABS[slug](seed=seed, **options)
events = [lab.apply(name, args) for name, args in actions]
print(json.dumps({"digest": lab.digest(), "events": digest_of(events)}))
"""


def run_in_process(seed: int) -> dict:
    lab = LABS["hash-placement"](seed=seed, **OPTIONS)
    events = [lab.apply(name, args) for name, args in ACTIONS]
    return {"digest": lab.digest(), "events": digest_of(events)}


def in_another_process(
    another_process,
    seed: int,
    slug: str = "hash-placement",
    options: dict = OPTIONS,
    actions: list = ACTIONS,
):
    """Start the run in the session's other process (another hash seed, a fresh fork):
    returns a function that waits for its result."""
    answer = another_process.submit(SCRIPT, json.dumps([seed, options, actions, slug]))

    def result() -> dict:
        done = answer()
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)

    return result


def test_another_process_with_another_hash_seed_reaches_the_same_digest(
    another_process,
):
    elsewhere = in_another_process(another_process, 7)
    assert run_in_process(7) == elsewhere()


def test_the_other_process_hashes_strings_otherwise_and_starts_afresh(another_process):
    """What the cross-process checks stand on: the other process's str hashes differ
    from ours, and each script there starts without what the one before left."""
    script = (
        "import simulators.labs as labs\n"
        "print(hash('hash-placement'), getattr(labs, 'left_behind', None))\n"
        "labs.left_behind = 1\n"
    )
    first = another_process.run(script)
    second = another_process.run(script)
    assert first.returncode == second.returncode == 0, first.stderr + second.stderr
    assert first.stdout == second.stdout
    theirs, left = first.stdout.split()
    assert int(theirs) != hash("hash-placement")
    assert left == "None"


# Every lab's example script (its manifest's): for the labs with a clock and the
# step-by-step ones, time, messages, faults, skew, batch trials, readers drawn as they
# arrive, shuffled orders, all replayed.
@pytest.mark.parametrize("slug", list(LABS))
def test_labs_replay_to_the_same_digest_in_any_process(another_process, slug):
    actions = [list(action) for action in REGISTRY[slug].example]
    elsewhere = in_another_process(another_process, 5, slug, {}, actions)
    lab = LABS[slug](seed=5)
    events = [lab.apply(name, args) for name, args in actions]
    assert elsewhere() == {"digest": lab.digest(), "events": digest_of(events)}
    if REGISTRY[slug].network:
        assert any(e["type"] == "message_sent" for batch in events for e in batch)


@pytest.mark.parametrize("kind", ["registration", "booking"])
def test_different_seeds_give_different_digests(new_lab, kind):
    digests = {
        new_lab(seed, key_kind=kind, key_count=2000).digest() for seed in (1, 2, 3)
    }
    assert len(digests) == 3


def test_the_same_seed_and_actions_give_the_same_digest_twice(new_lab):
    assert run_in_process(11) == run_in_process(11)
    assert run_in_process(11) != run_in_process(12)


def test_the_simulators_import_neither_django_nor_asyncio():
    script = (
        "import sys\n"
        "import simulators.labs, simulators.airline, simulators.engine\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in "
        "{'django', 'asyncio', 'channels', 'socket'})\n"
        "print(','.join(bad))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == ""
