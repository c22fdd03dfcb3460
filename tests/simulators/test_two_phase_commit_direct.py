"""A direct two-phase-commit cluster (batch runs: messages and timers as plain queue
entries, `direct=True`) does what the lab's cluster does message by message: the
same rows, locks, queues, logs, outcomes and counts, crashes and traps included."""

import pytest

from simulators.engine.clock import EventQueue
from simulators.engine.rng import SplitMix, derive_seed, make_rng
from simulators.labs.two_phase_commit.batch import run_bank
from simulators.labs.two_phase_commit.cluster import (
    COORDINATOR,
    SEATS,
    SERVERS,
    Bank,
    Cluster,
    book_parts,
    fare_parts,
    read_parts,
    transfer_parts,
)

TRAPS = ("before_decision", "after_decision", "between_shards")


def state(cluster: Cluster, bank: Bank) -> tuple:
    """What a run holds at one moment, every field the lab shows or counts."""
    net = cluster.network
    shards = []
    for shard in cluster.shards.values():
        shards.append(
            (
                shard.name,
                cluster.up(shard.name),
                sorted((row, repr(value)) for row, value in shard.rows.items()),
                sorted(
                    (row, lock["mode"], list(lock["holders"]))
                    for row, lock in shard.locks.items()
                ),
                [(r.txn, r.kind, r.reply_to) for r in shard.waiting],
                sorted((t, r.granted) for t, r in shard.active.items()),
                sorted(shard.prepared),
                list(shard.decided.items()),
                list(shard.log),
                shard.log_total,
                shard.forced,
            )
        )
    coord = cluster.coordinator
    return (
        net.now_ms,
        (net.sent, net.delivered, net.lost),
        dict(cluster.tally),
        shards,
        (list(coord.log), coord.log_total, dict(coord.decisions), sorted(coord.txns)),
        [op.as_dict() for op in cluster.ops],
        sorted(cluster.open),
        sorted(cluster.unresolved),
        [(t.id, t.state, t.costs()) for t in cluster.recent],
        {k: None if t is None else t.costs() for k, t in cluster.last_costs.items()},
        sorted(cluster.txns),
        bank.snapshot(),
        cluster.total(),
    )


def run(seed: int, how: str, mode: str) -> list:
    """The bank workload with a visitor's operations, crashes, recoveries and traps
    drawn from `seed`; the state after every step. `how`: "direct", "messages"
    (record=False, a `Message` each) or "recorded" (the lab's way)."""
    queue = EventQueue()
    cluster = Cluster(
        queue,
        make_rng(seed, "network"),
        record=how == "recorded",
        mode=mode,
        direct=how == "direct",
    )
    bank = Bank(cluster, SplitMix(derive_seed(seed, "bank")), 300)
    bank.start()
    rng = make_rng(seed, "faults")
    seen = []
    for step in range(160):
        cluster.run_until(cluster.now_ms + rng.choice([1, 3, 7, 20, 60, 250]))
        roll = rng.random()
        down = [s for s in SERVERS if not cluster.up(s)]
        up = [s for s in SERVERS if cluster.up(s)]
        if roll < 0.08 and up:
            cluster.crash(rng.choice(up))
        elif roll < 0.2 and down:
            cluster.recover(rng.choice(down))
        elif roll < 0.25 and cluster.up(COORDINATOR):
            cluster.trap = rng.choice(TRAPS if mode == "2pc" else TRAPS[2:])
        elif roll < 0.45:
            what = rng.randrange(4)
            seat = rng.choice(SEATS)
            if what == 0:
                parts, f, value = book_parts(seat, f"P{step}"), "book", step
            elif what == 1:
                parts, f, value = fare_parts(seat, 100 + step), "fare", step
            elif what == 2:
                source, target = rng.sample(range(1, 9), 2)
                parts = transfer_parts(source, target, rng.randint(1, 5))
                f, value = "transfer", step
            else:
                parts, f, value = read_parts(), "read", None
            route = COORDINATOR if len(parts) > 1 else next(iter(parts))
            if cluster.up(route):  # the lab refuses a route that is down
                kind = "read" if f == "read" else "write"
                cluster.invoke("you", kind, f, value, parts)
        if step == 120:
            for server in SERVERS:
                if not cluster.up(server):
                    cluster.recover(server)
        seen.append(state(cluster, bank))
    cluster.run_until(cluster.now_ms + 10_000)
    seen.append(state(cluster, bank))
    return seen


@pytest.mark.parametrize("mode", ["2pc", "independent"])
@pytest.mark.parametrize("seed", range(6))
def test_a_direct_cluster_does_what_the_messages_do(seed, mode):
    direct = run(seed, "direct", mode)
    assert direct == run(seed, "messages", mode)
    assert direct == run(seed, "recorded", mode)
    assert direct[-1][2]["crashes"] > 0  # the seeds do crash servers


@pytest.mark.parametrize("seed", range(3))
def test_the_batch_run_is_the_same_either_way(seed):
    for mode, reads in (("2pc", False), ("2pc", True), ("independent", True)):
        direct = run_bank(seed, 1500, mode, reads, direct=True)
        assert direct == run_bank(seed, 1500, mode, reads, direct=False)
        assert direct.total == 100 or mode == "independent"


def test_a_direct_cluster_records_nothing():
    with pytest.raises(ValueError):
        Cluster(EventQueue(), make_rng(1, "network"), record=True, direct=True)
