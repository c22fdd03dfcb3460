"""The history checker (simulators/engine/history.py) on a quorum lab history.

The history: the quorum lab's cluster (N=3, W=2, R=2, no faults, read repair and
hinted handoff on) driven by four clients at once, each invoking its next operation
(a write two times in five, else a read, through a random coordinator) the moment its
last one returns, until 100 operations have run. Every random choice is seeded, so the
history is the same on every run. The row times `check_linearizable` on it (the search
and, when the history is not linearizable, the shrinking of its witness) and reports
the verdict and the steps it took; the target is under 100 ms of wall time.

A second row times Jepsen's bank checker (simulators/engine/bank.py) on the
two-phase-commit lab's whole kept history (its last 200 operations) of the bank
workload run with each shard committing on its own, where reads see transfers half
done: the same target.

Run alone: `python -m benchmarks.history_checker`.
"""

import argparse
import sys

from benchmarks.timing import MIN_PAIRS, Row, medians, render
from simulators.engine.bank import check_bank
from simulators.engine.clock import EventQueue
from simulators.engine.history import check_linearizable
from simulators.engine.rng import make_rng
from simulators.labs.quorum.cluster import Cluster
from simulators.labs.quorum.histories import history_of
from simulators.labs.two_phase_commit import TwoPhaseCommitLab
from simulators.labs.two_phase_commit.cluster import ACCOUNTS, TOTAL
from simulators.labs.two_phase_commit.histories import bank_history

CLIENTS = ("c1", "c2", "c3", "c4")
OPERATIONS = 100
TARGET_S = 0.100
SEED = 1


def quorum_history(operations: int = OPERATIONS, seed: int = SEED) -> tuple:
    """(history, initial value): `operations` from concurrent clients, all returned."""
    queue = EventQueue()
    cluster = Cluster(queue, make_rng(seed, "network"), 3, record=False)
    choose = make_rng(seed, "clients")
    owner: dict[int, str] = {}
    current: dict[str, object] = {}
    while True:
        for client in CLIENTS:
            op = current.get(client)
            if len(owner) < operations and (op is None or op.status != "pending"):
                kind = "write" if choose.random() < 0.4 else "read"
                coordinator = cluster.nodes[int(choose.random() * 3)]
                op = getattr(cluster, kind)(coordinator, 2, "QUORUM")
                owner[op.id], current[client] = client, op
        due = queue.peek_time()
        if due is None:
            return history_of(cluster, owner), cluster.first_value
        cluster.network.run_until(due)


def checker_rows(repeat: int) -> list[Row | str]:
    """One row: the checker on a 100-operation quorum history."""
    history, initial = quorum_history()
    verdict = check_linearizable(history, initial)
    if verdict.ok is None:
        raise AssertionError("the benchmark's history passed the work limit")
    timing = medians({"check": lambda: check_linearizable(history, initial)}, repeat)
    said = {True: "linearizable", False: "not linearizable"}[verdict.ok]
    witness = f", witness {list(verdict.witness)}" if verdict.witness else ""
    wall = timing["check"].wall
    return [
        f"history checker: {len(history)} operations of 4 quorum clients (N=3, W=2, "
        "R=2, no faults)",
        Row(
            f"check_linearizable: {said}{witness}, {verdict.work:,} steps",
            timing["check"],
            len(history),
            f"{wall * 1000:.2f} ms",
            f"< {TARGET_S * 1000:g} ms",
            wall < TARGET_S,
        ),
    ]


def bank_rows(repeat: int) -> list[Row | str]:
    """One row: the bank checker on the last 200 operations of a bank run."""
    lab = TwoPhaseCommitLab(SEED)
    lab.do_set_mode("independent")
    lab.do_start_bank()
    lab.run_until(60_000)
    history = bank_history(lab.cluster.ops)
    verdict = check_bank(history, TOTAL, ACCOUNTS)
    if verdict.ok is not False:
        raise AssertionError("each shard on its own kept the total: nothing to find")
    timing = medians({"bank": lambda: check_bank(history, TOTAL, ACCOUNTS)}, repeat)
    wall = timing["bank"].wall
    return [
        f"bank checker: {len(history)} operations of the bank workload, each shard "
        "committing on its own",
        Row(
            f"check_bank: the first read off, witness {list(verdict.witness)}",
            timing["bank"],
            len(history),
            f"{wall * 1000:.2f} ms",
            f"< {TARGET_S * 1000:g} ms",
            wall < TARGET_S,
        ),
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.history_checker")
    parser.add_argument("--repeat", type=int, default=MIN_PAIRS)
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args(argv)
    rows = checker_rows(args.repeat) + bank_rows(args.repeat)
    print(render(rows, markdown=args.markdown))
    return 1 if any(isinstance(r, Row) and r.passed is False for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
