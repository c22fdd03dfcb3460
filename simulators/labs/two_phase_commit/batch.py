"""The bank workload run without a lab around it: for the benchmark and the tests.

`run_bank` builds the same cluster the lab does on its own queue, with `record=False`
(no event dictionaries) and `direct=True` (its messages and timers queued as plain
tuples, not a `Message` each: `Network.go_batch`), runs `ops` operations of the
workload to their end and returns what happened, with the number of events the queue
ran (every message and every timer is still one).
"""

from dataclasses import dataclass

from simulators.engine.clock import EventQueue
from simulators.engine.rng import SplitMix, derive_seed, make_rng
from simulators.labs.two_phase_commit.cluster import Bank, Cluster


@dataclass(frozen=True)
class BankRun:
    ops: int
    events: int  # messages delivered or lost, and timers fired, by the engine
    messages: int
    end_ms: int
    total: int  # what the accounts add up to at the end
    reads_off: int
    transfers_ok: int


def run_bank(
    seed: int, ops: int, mode: str = "2pc", reads: bool = False, direct: bool = True
) -> BankRun:
    """`ops` operations of the bank workload (transfers only unless `reads`);
    `direct=False` carries every message as a `Message` (the lab's way)."""
    queue = EventQueue()
    cluster = Cluster(
        queue, make_rng(seed, "network"), record=False, mode=mode, direct=direct
    )
    bank = Bank(cluster, SplitMix(derive_seed(seed, "bank")), ops, reads=reads)
    bank.start()
    net = cluster.network
    events = 0
    while bank.running or queue.peek_time() is not None:
        events += cluster.run_until(queue.clock.now_ms + 60_000)
        if queue.peek_time() is None:
            break
    return BankRun(
        ops=bank.invoked,
        events=events,
        messages=net.sent,
        end_ms=queue.clock.now_ms,
        total=cluster.total(),
        reads_off=bank.off,
        transfers_ok=bank.transfers["ok"],
    )
