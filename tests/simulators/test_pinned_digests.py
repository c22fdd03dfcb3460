"""Every lab's digests along its tour's "Show me" actions, and two-phase-commit's and
replication's batch runs, pinned: a refactor of the engine or a lab must leave them
as they are (stored rooms and shared links replay from their actions, and a page
compares the digests it is sent).

Each lab's are in its own folder, `simulators/labs/<lab>/pinned_digests.json` (the
tour's, and its batch runs' if it has any), so adding a lab touches no shared file.
`python -m tests.simulators.test_pinned_digests my-lab` writes one lab's file (a new
lab's, or one whose state a change means to change: a new field in its snapshot, a
fix, said so in its commit); without a slug, every built lab's.
"""

import json
import sys
from pathlib import Path

import pytest

from simulators.engine import ActionError, EventQueue, digest_of, make_rng
from simulators.labs import LABS, REGISTRY
from simulators.labs.replication.cluster import Cluster
from simulators.labs.replication.lab import INITIAL_ROWS
from simulators.labs.two_phase_commit.batch import run_bank

FILE = "pinned_digests.json"
SEED = 1


def pinned_path(slug: str) -> Path:
    """Where a lab's pinned digests are kept: in its own folder."""
    return REGISTRY[slug].folder / FILE


def tour_digests(slug: str) -> list:
    """The digest of the fresh lab, then after each step's action (or its refusal),
    with a digest of the events it returned."""
    lab = LABS[slug](seed=SEED)
    found: list = [lab.digest()]
    for step in LABS[slug].tour:
        name, args = step.show_me
        try:
            events = lab.apply(name, dict(args))
        except ActionError as refused:  # a step that needs the one before it done
            found.append(["refused", refused.code])
            continue
        found.append([lab.digest(), digest_of(events)])
    return found


def replication_stream() -> list:
    """Replication's stream (records flying without messages): writes, bursts, a
    replica stopped and started, a failover; what every server holds now and then."""
    queue = EventQueue()
    cluster = Cluster(
        queue,
        make_rng(SEED, "network"),
        ("zone", "zone", "ocean", "region"),
        INITIAL_ROWS,
        record=False,
        stream=True,
    )
    net, rows, seen = cluster.network, sorted(INITIAL_ROWS), []
    for op in range(1, 3_001):
        cluster.write(rows[op % len(rows)], f"v{op}", op)
        net.run_until(net.now_ms + op % 3)
        if op == 900:
            cluster.stop("C")
        elif op == 1_500:
            cluster.start("C")
        elif op == 2_000:
            cluster.kill_primary()
            cluster.promote("B")
        if op % 500 == 0:
            cluster.settle()
            seen.append(
                [net.now_ms, cluster.primary, cluster.committed]
                + [[s.id, s.received, s.applied] for s in cluster.servers.values()]
            )
    return seen


def two_phase_commit_banks() -> dict:
    """two-phase-commit's bank run on the network in batch mode (both modes, with
    reads)."""
    return {
        mode: list(vars(run_bank(SEED, 300, mode, reads=True)).values())
        for mode in ("2pc", "independent")
    }


# the batch paths, which no lab's digest covers: a lab's own, by slug
BATCH_RUNS = {
    "two-phase-commit": two_phase_commit_banks,
    "replication": lambda: {"stream": replication_stream()},
}


def digests(slug: str) -> dict:
    """What is pinned of a lab: its tour's digests, and its batch runs' if any."""
    found: dict = {"tour": tour_digests(slug)}
    if slug in BATCH_RUNS:
        found["batch"] = BATCH_RUNS[slug]()
    return json.loads(json.dumps(found))


def pin(slug: str) -> Path:
    path = pinned_path(slug)
    path.write_text(json.dumps(digests(slug), indent=1) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("slug", list(LABS))
def test_the_digests_are_as_pinned(slug):
    path = pinned_path(slug)
    assert path.is_file(), (
        f"{slug} has no pinned digests yet ({path} is missing): pin them with "
        f"`python -m tests.simulators.test_pinned_digests {slug}` and commit the file"
    )
    pinned = json.loads(path.read_text(encoding="utf-8"))
    found = digests(slug)
    assert found.get("batch") == pinned.get("batch"), f"{slug}: its batch runs"
    assert found["tour"] == pinned["tour"], f"{slug}: its tour's digests"


def test_every_batch_run_is_a_built_labs():
    assert set(BATCH_RUNS) <= set(LABS)


if __name__ == "__main__":
    unknown = [slug for slug in sys.argv[1:] if slug not in LABS]
    if unknown:
        sys.exit(f"not a built lab: {', '.join(unknown)}")
    for slug in sys.argv[1:] or list(LABS):
        print(pin(slug))
    sys.exit(0)
