"""The same seed and actions give the same digest in any process; other seeds do not."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from simulators.engine import digest_of
from simulators.labs import LABS

REPO = Path(__file__).resolve().parents[2]
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


# The labs with a clock and the step-by-step ones: time, messages, faults, skew,
# batch trials, readers drawn as they arrive, shuffled orders, all replayed.
NETWORK_LABS = {"quorum", "partition-cap", "two-phase-commit", "replication"}
SCRIPTS = {
    "quorum": [
        ("write", {"w": "ONE", "coordinator": "A"}),
        ("cut_link", {"link": "A-C"}),
        ("advance", {"ms": 30}),
        ("read", {"r": "ONE", "coordinator": "C"}),
        ("set_skew", {"node": "B", "skew_ms": -250}),
        ("write", {"w": "QUORUM", "coordinator": "B"}),
        ("advance", {"ms": 500}),
        ("heal_all", {}),
        ("advance", {"ms": 500}),
        ("run_trials", {"count": 100}),
        ("skew_ladder", {"node": "B", "ladder": "0,-5,-250", "count": 100}),
    ],
    "replication": [
        ("set_replica", {"server": "B", "mode": "sync", "place": "region"}),
        ("write", {"client": "ana"}),
        ("read", {"client": "ana", "row": "email", "server": "C"}),
        ("burst", {"count": 300}),
        ("advance", {"ms": 30}),
        ("take_down", {"server": "C", "ms": 500}),
        ("set_read_your_writes", {"fix": "retry"}),
        ("write", {"client": "ben"}),
        ("read", {"client": "ben", "row": "email", "server": "B"}),
        ("advance", {"ms": 700}),
        ("kill_primary", {}),
        ("promote", {"server": "C"}),
        ("restart", {"server": "A"}),
        ("set_acks", {"acks": "majority"}),
        ("write", {"client": "ana"}),
        ("advance", {"ms": 400}),
    ],
    "partition-cap": [
        ("split", {"group": "C"}),
        ("set_skew", {"node": "C", "skew_ms": 300}),
        ("book", {"server": "A", "passenger": "P0000001", "mode": "anyway"}),
        ("book", {"server": "C", "passenger": "P0000002", "mode": "anyway"}),
        ("board", {"node": "C", "mode": "anyway"}),
        ("advance", {"ms": 50}),
        ("heal_all", {}),
        ("advance", {"ms": 2000}),
    ],
    "cache-stampede": [
        ("make_hot", {"airport": "JFK", "share": 60}),
        ("set_cache_servers", {"count": 3}),
        ("advance", {"ms": 700}),
        ("update_flight", {"airport": "LAX", "delete_on_write": False}),
        ("fill_memory", {"mb": 60}),
        ("set_ttl", {"ttl_ms": 300}),
        ("set_beta", {"beta": "0.5"}),
        ("advance", {"ms": 900}),
    ],
    "rate-limit-race": [
        ("set_clients", {"count": 3}),
        ("shuffle", {}),
        ("step", {}),
        ("every_ordering", {}),
        ("run_all", {}),
        ("set_mode", {"mode": "incr_then_expire"}),
        ("set_admitted", {"count": 0}),
        ("shuffle", {}),
        ("step", {}),
        ("crash_client", {"client": "A"}),
        ("run_all", {}),
        ("pass_time", {"seconds": 61}),
        ("new_request", {"count": 120}),
    ],
    "two-phase-commit": [
        ("book", {"seat": "12A"}),
        ("advance", {"ms": 200}),
        ("crash_between_phases", {"point": "after_decision"}),
        ("book", {"seat": "12B"}),
        ("advance", {"ms": 100}),
        ("set_fare", {"seat": "12B", "fare": 99}),
        ("advance", {"ms": 900}),
        ("recover_server", {"node": "coordinator"}),
        ("start_bank", {}),
        ("advance", {"ms": 300}),
        ("crash_server", {"node": "bookings"}),
        ("advance", {"ms": 600}),
        ("recover_server", {"node": "bookings"}),
        ("set_mode", {"mode": "independent"}),
        ("advance", {"ms": 5_000}),
    ],
    "graph-traversal": [
        ("course_query", {"question": "avoid_ord"}),
        ("set_graph", {"graph": "large"}),
        (
            "run",
            {"pattern": "MATCH p = (a {code: 'ATL'})-[:ROUTE*1..2]->(b {code: 'SEA'})"},
        ),
        ("close_airport", {"code": "DEN"}),
        ("rank_closures", {}),
        ("set_grown", {"on": True}),
        ("course_query", {"question": "within_three"}),
        ("set_index", {"on": False}),
        ("course_query", {"question": "auth_stops"}),
        ("most_depended", {}),
    ],
}


@pytest.mark.parametrize("slug", sorted(SCRIPTS))
def test_labs_replay_to_the_same_digest_in_any_process(another_process, slug):
    actions = SCRIPTS[slug]
    elsewhere = in_another_process(another_process, 5, slug, {}, actions)
    lab = LABS[slug](seed=5)
    events = [lab.apply(name, args) for name, args in actions]
    assert elsewhere() == {"digest": lab.digest(), "events": digest_of(events)}
    if slug in NETWORK_LABS:
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
