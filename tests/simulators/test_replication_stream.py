"""The replication cluster's stream (records flying without messages, for batch runs)
gives what the messages give: the same positions, rows, logs and lost writes."""

import pytest

from simulators.engine.clock import EventQueue
from simulators.engine.rng import make_rng
from simulators.labs.replication.cluster import Cluster
from simulators.labs.replication.lab import INITIAL_ROWS

ROWS = sorted(INITIAL_ROWS)


def run(seed: int, stream: bool) -> list:
    """A seeded workload: writes, bursts, a replica down for a while, failovers and
    returns; what every server holds after each step."""
    queue = EventQueue()
    cluster = Cluster(
        queue,
        make_rng(seed, "network"),
        ("zone", "zone", "ocean", "region"),
        INITIAL_ROWS,
        record=False,
        stream=stream,
    )
    net = cluster.network
    rng = make_rng(seed, "workload")
    seen = []
    op = 0
    for _ in range(300):
        net.run_until(net.now_ms + rng.choice([0, 1, 1, 2, 5, 40]))
        roll = rng.random()
        down = [s for s in cluster.servers if not cluster.up(s)]
        if cluster.primary is None:
            running = [s.id for s in cluster.running_replicas()]
            result = cluster.promote(rng.choice(running))
            seen.append(("promoted", [r[0] for r, _ms in result["lost"]]))
        elif roll < 0.7:
            op += 1
            cluster.write(rng.choice(ROWS), f"v{op}", op)
        elif roll < 0.8:
            changes = []
            for _ in range(rng.randint(2, 30)):
                op += 1
                changes.append((rng.choice(ROWS), f"v{op}", op))
            cluster.write_many(changes)
        elif roll < 0.87 and down:
            cluster.start(rng.choice(down))
        elif roll < 0.93 and len(cluster.running_replicas()) > 1:
            victim = rng.choice([s.id for s in cluster.running_replicas()])
            cluster.stop(victim)
            # back only after anything flying to it has landed or been lost
            net.run_until(net.now_ms + 300)
        elif roll < 0.96 and cluster.running_replicas():
            cluster.kill_primary()
        cluster.settle()
        seen.append(
            (
                net.now_ms,
                cluster.primary,
                cluster.committed,
                [r[0] for r in cluster.log[-3:]],
                [
                    (s.id, s.received, s.applied, sorted(s.rows.items()), len(s.tail))
                    for s in cluster.servers.values()
                ],
            )
        )
    return seen


@pytest.mark.parametrize("seed", range(12))
def test_the_stream_and_the_messages_agree(seed):
    assert run(seed, stream=True) == run(seed, stream=False)


def test_a_stream_refuses_acknowledgements():
    cluster = Cluster(
        EventQueue(),
        make_rng(1, "n"),
        ("zone", "zone"),
        INITIAL_ROWS,
        record=False,
        stream=True,
    )
    with pytest.raises(ValueError):
        cluster.set_mode("B", "sync")
    with pytest.raises(ValueError):
        cluster.set_acks("majority")
    with pytest.raises(ValueError):
        Cluster(EventQueue(), make_rng(1, "n"), ("zone",), INITIAL_ROWS, stream=True)
