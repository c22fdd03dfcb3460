"""replication: 100,000 writes with two replicas and a failover, against the bare
event engine doing the same number of events.

The lab's cluster (`simulators/labs/replication/cluster.py`, `record=False`: no
event dictionaries) takes one write a millisecond from a timer, ships each record to
a replica in the same zone and one in another region, and each replica applies it a
millisecond later; halfway, the primary is killed at the moment of a write and the
nearer replica promoted (it catches up from the other one, the log is cut to what it
holds, the lost acknowledged writes are listed), and the writes go on against it.
Every write is a timer event. A record's arrival at a replica and its apply there
are events of the simulation too, though the cluster computes them instead of
queueing them (`stream=True` and the applies' times: cluster.py; a test holds the
stream equal to one message per record), so the run simulates a write, and an
arrival and an apply per record and replica.

The peer is the bare engine: `EventQueue.run_until` over that many events, each
handler scheduling the next with `EventQueue.schedule`, nothing else. The ratio is
the lab's CPU time over the bare engine's, as interleaved pairs (`timing.paired`:
both sides warmed, A-B-B-A); the target is 2×.

Run alone: `python -m benchmarks.replication [--writes W] [--pairs P]`.
"""

import argparse
import sys

from benchmarks.timing import MIN_PAIRS, Row, paired_rows, render
from simulators.engine.clock import EventQueue
from simulators.engine.rng import make_rng
from simulators.labs.replication.cluster import OPS, Cluster

TARGET = 2.0
WRITES = 100_000
ROWS = {f"aircraft N{10000 + i} position": "at the gate" for i in range(6)}
ROW_NAMES = tuple(ROWS)


def ours(writes: int) -> dict:
    """The cluster under `writes` writes and one failover; what it did and how many
    events its queue ran."""
    queue = EventQueue()
    state = {"lost": 0}

    half = writes // 2

    def on_event(kind: str, i: int) -> None:
        write(ROW_NAMES[i % 6], i, i + 1)
        if i + 1 == half:
            cluster.settle()
            state["arrived"] = sum(s.received for s in cluster.replicas())
            cluster.kill_primary()
            result = cluster.promote("B")
            state["lost"] = len(result["lost"])
            state["held"] = result["log_length"]
        if i + 1 < writes:
            set_timer(OPS, 1, "write", i + 1)

    cluster = Cluster(
        queue,
        make_rng(1, "bench:replication"),
        ("zone", "zone", "region"),
        ROWS,
        on_event=on_event,
        record=False,
        stream=True,
    )
    write, set_timer = cluster.write, cluster.network.set_timer
    set_timer(OPS, 1, "write", 0)
    net = cluster.network
    heap_events = net.run_until(10**12)
    cluster.settle()
    rows = {s: server.rows for s, server in cluster.servers.items()}
    return {
        "heap_events": heap_events,
        # what the run simulates: each write, each record's arrival at a replica
        # and its apply there (applies are computed, not queued: cluster.py)
        "events": writes
        + 2 * (state["arrived"] + cluster.servers["C"].received - state["held"]),
        "lost": state["lost"],
        "same_rows": rows["B"] == rows["C"]
        and len(cluster.log) == writes - state["lost"],
    }


def bare(events: int) -> int:
    """The bare engine: `events` events, each scheduling the next."""
    queue = EventQueue()
    schedule = queue.schedule
    left = events

    def handle(_event) -> None:
        nonlocal left
        left -= 1
        if left > 0:
            schedule(1, None)

    schedule(1, None)
    return queue.run_until(10**12, handle)


def replication_rows(pairs: int = MIN_PAIRS, writes: int = WRITES) -> list[Row | str]:
    done = ours(writes)
    if not done["same_rows"]:
        raise AssertionError("the replicas did not end equal to the new primary")
    events = done["events"]
    if bare(events) != events:
        raise AssertionError("the bare engine ran a different number of events")
    return paired_rows(
        f"replication: {writes:,} writes, two replicas, a failover halfway "
        f"({events:,} events simulated, {done['heap_events']:,} of them queued; "
        f"{done['lost']} acknowledged writes lost)",
        "the lab's cluster / the bare event engine, same number of events",
        lambda: ours(writes),
        lambda: bare(events),
        events,
        TARGET,
        pairs,
    )


def rows(repeat: int, keys: int) -> list[Row | str]:
    """replication's rows of `make bench` (benchmarks/__main__.py finds them by the
    lab's slug): 100,000 writes and a failover against the bare event engine."""
    return replication_rows(repeat)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.replication")
    parser.add_argument("--writes", type=int, default=WRITES)
    parser.add_argument("--pairs", type=int, default=MIN_PAIRS)
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args(argv)
    rows = replication_rows(args.pairs, args.writes)
    print(render(rows, markdown=args.markdown))
    return 1 if any(isinstance(r, Row) and r.passed is False for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
