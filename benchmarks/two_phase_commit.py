"""two-phase-commit: 10,000 bank transfers with 2PC against the bare event engine.

The lab's batch run (`simulators/labs/two_phase_commit/batch.py`): three clients make
10,000 transfers of at most 5 between 8 accounts on two shards, each across both
shards a full two-phase commit (prepare, forced log writes, votes, the decision,
commit, acknowledgements) and each within one shard a one-shard commit, with every
lock, queue and timeout of the lab; `record=False` and `direct=True`, as a batch runs
(each message and timer a plain entry of the queue, still one event each; a test holds
it equal to the lab's message by message). The check before anything is timed: the
accounts still add up to 100.

The peer is the bare event engine doing the same events: the same `Network` (same
nodes, links and latency draws) carrying the same number of messages, in three
chains as the three clients keep about three transactions going, and firing the same
number of timers, with handlers that do nothing but keep the chains going. The ratio
(ours / bare, CPU time, median of interleaved pairs) is what the protocol's own work
costs on top of moving its events; the target is at most 2x. Both sides are warmed
up first and the pairs alternate A-B-B-A (`timing.paired`): CPython 3.11 specializes a
function's bytecode only from its 8th call, and the bare run calls `Network.run_until`
once, so without it the first seven bare runs (every pair of a default run) ran that
loop unspecialized, about 15% slower, while ours (`Cluster.run_until`, five calls a
run) was already specialized.

Run alone: `python -m benchmarks.two_phase_commit [--transfers N] [--pairs P]`.
"""

import argparse
import sys

from benchmarks.timing import MIN_PAIRS, Row, paired_rows, render
from simulators.engine import EventQueue, Network
from simulators.engine.rng import make_rng
from simulators.labs.two_phase_commit.batch import run_bank
from simulators.labs.two_phase_commit.cluster import LINKS, NODES, TOTAL

TARGET = 2.0
SEED = 1
CHAINS = 3
# one transfer's messages, in order: the request, two rounds to both shards, the reply
ROUTE = (
    ("client", "coordinator"),
    ("coordinator", "flights"),
    ("flights", "coordinator"),
    ("coordinator", "bookings"),
    ("bookings", "coordinator"),
    ("coordinator", "client"),
)


def ours(transfers: int):
    return run_bank(SEED, transfers)


def bare(messages: int, timers: int) -> int:
    """`messages` messages in three chains and `timers` timers on the bare Network;
    returns the events it ran."""
    queue = EventQueue()
    messages_left, timers_left = messages - CHAINS, timers
    position = [0] * CHAINS

    def on_message(message) -> None:
        nonlocal messages_left, timers_left
        if timers_left > 0:
            timers_left -= 1
            set_timer(message.dst, 5, "t", None)
        if messages_left > 0:
            messages_left -= 1
            chain = message.payload
            step = position[chain] = (position[chain] + 1) % 6
            src, dst = ROUTE[step]
            send(src, dst, "m", chain)

    def on_timer(node, kind, payload) -> None:
        nonlocal timers_left
        if timers_left > 0:  # more timers than messages: timers chain too
            timers_left -= 1
            set_timer(node, 5, "t", None)

    net = Network(
        queue,
        make_rng(SEED, "network"),
        NODES,
        LINKS,
        on_message=on_message,
        on_timer=on_timer,
        record=False,
    )
    send, set_timer = net.send, net.set_timer
    for chain in range(CHAINS):
        send("client", "coordinator", "m", chain)
    return net.run_until(10**12)


def two_phase_rows(transfers: int, pairs: int) -> list[Row | str]:
    """One row: the bank workload with two-phase commit over the bare engine."""
    run = ours(transfers)
    if run.total != TOTAL or run.ops != transfers:
        raise AssertionError(f"the bank run lost its total: {run}")
    timers = run.events - run.messages
    if bare(run.messages, timers) != run.events:
        raise AssertionError("the bare run did not run the same number of events")
    return paired_rows(
        f"two-phase-commit: {transfers:,} bank transfers, {run.events:,} events "
        f"({run.messages:,} messages), {run.transfers_ok:,} committed, total "
        f"{run.total}",
        "2PC bank run / bare engine with the same events",
        lambda: ours(transfers),
        lambda: bare(run.messages, timers),
        transfers,
        TARGET,
        pairs,
    )


def rows(repeat: int, keys: int) -> list[Row | str]:
    """two-phase-commit's rows of `make bench` (benchmarks/__main__.py finds them by
    the lab's slug): 10,000 bank transfers against the bare engine."""
    return two_phase_rows(10_000, repeat)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.two_phase_commit")
    parser.add_argument("--transfers", type=int, default=10_000)
    parser.add_argument("--pairs", type=int, default=MIN_PAIRS)
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args(argv)
    rows = two_phase_rows(args.transfers, args.pairs)
    print(render(rows, markdown=args.markdown))
    return 1 if any(isinstance(r, Row) and r.passed is False for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
