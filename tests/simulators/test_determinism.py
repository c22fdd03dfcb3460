"""The same seed and actions give the same digest in any process; other seeds do not.

Under `make test`'s other Pythons (.ci/other-pythons), the other processes run
PLAYGROUND_REFERENCE_PYTHON, .venv's interpreter: the same digests on every supported
Python (tests/simulators/test_digests_across_pythons.py plays every lab's tour too).
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from simulators.engine import digest_of
from simulators.labs import LABS, REGISTRY

REPO = Path(__file__).resolve().parents[2]
# the interpreter of the other processes: .venv's under make test's other Pythons
OTHER_PYTHON = os.environ.get("PLAYGROUND_REFERENCE_PYTHON") or sys.executable
OPTIONS = {"key_count": 5000, "partitions": 16384, "vnodes": 32}
ACTIONS = [
    ("add_shard", {}),
    ("mark_hot", {"key": "N12345", "share_percent": 35}),
    ("remove_shard", {"shard": "B"}),
    ("set_vnodes", {"vnodes": 100}),
    ("load_keys", {"kind": "booking", "count": 7000}),
    ("set_shards", {"count": 9}),
    ("set_partitions", {"partitions": 256}),
    ("lookup", {"key": "Zürich{N12345}"}),
]
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


def run_in_subprocess(
    seed: int,
    hash_seed: str,
    slug: str = "hash-placement",
    options: dict = OPTIONS,
    actions: list = ACTIONS,
) -> dict:
    env = {**os.environ, "PYTHONHASHSEED": hash_seed}
    result = subprocess.run(
        [OTHER_PYTHON, "-c", SCRIPT, json.dumps([seed, options, actions, slug])],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_two_processes_with_different_hash_seeds_reach_the_same_digest():
    first = run_in_subprocess(7, "1")
    second = run_in_subprocess(7, "2")
    assert first == second
    assert first == run_in_process(7)


# Every lab's example script (its manifest's): for the labs with a clock and the
# step-by-step ones, time, messages, faults, skew, batch trials, readers drawn as they
# arrive, shuffled orders, all replayed.
@pytest.mark.parametrize("slug", list(LABS))
def test_labs_replay_to_the_same_digest_in_any_process(slug):
    actions = [list(action) for action in REGISTRY[slug].example]
    first = run_in_subprocess(5, "1", slug, {}, actions)
    second = run_in_subprocess(5, "3", slug, {}, actions)
    lab = LABS[slug](seed=5)
    events = [lab.apply(name, args) for name, args in actions]
    assert first == second == {"digest": lab.digest(), "events": digest_of(events)}
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
