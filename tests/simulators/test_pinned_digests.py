"""Every lab's digests along its tour's "Show me" actions, and two-phase-commit's and
replication's batch runs, pinned: a refactor of the engine or a lab must leave them
as they are (stored rooms and shared links replay from their actions, and a page
compares the digests it is sent).

A change that means to change a lab's state (a new field in its snapshot, a fix)
writes the file again, `python -m tests.simulators.test_pinned_digests`, and says so
in its commit.
"""

import json
import sys
from pathlib import Path

from simulators.engine import ActionError, EventQueue, digest_of, make_rng
from simulators.labs import LABS
from simulators.labs.replication.cluster import Cluster
from simulators.labs.replication.lab import INITIAL_ROWS
from simulators.labs.two_phase_commit.batch import run_bank

PINNED = Path(__file__).with_name("pinned_digests.json")
SEED = 1


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


def batch_runs() -> dict:
    """The batch paths, which no lab's digest covers: two-phase-commit's bank run on
    the network in batch mode (both modes, with reads); replication's stream."""
    runs: dict = {
        f"two-phase-commit {mode}": list(
            vars(run_bank(SEED, 300, mode, reads=True)).values()
        )
        for mode in ("2pc", "independent")
    }
    runs["replication stream"] = replication_stream()
    return runs


def everything() -> dict:
    return {
        "tours": {slug: tour_digests(slug) for slug in sorted(LABS)},
        "batch": batch_runs(),
    }


def test_the_digests_are_as_pinned():
    pinned = json.loads(PINNED.read_text(encoding="utf-8"))
    found = json.loads(json.dumps(everything()))
    assert found["batch"] == pinned["batch"]
    for slug in sorted(LABS):
        assert slug in pinned["tours"], (
            f"{slug} is not pinned yet: python -m tests.simulators.test_pinned_digests"
        )
        assert found["tours"][slug] == pinned["tours"][slug], slug


if __name__ == "__main__":
    PINNED.write_text(json.dumps(everything(), indent=1) + "\n", encoding="utf-8")
    sys.exit(0)
