"""Heavy work (issue 29): a bystander's wait while every lab's heaviest work runs.

`python -m benchmarks.heavy_work [--seconds S] [--root DIR] [--postgres] [--markdown]`;
also part of `python -m benchmarks` (skip it with `--no-flood`).

One attacker per lab, each from an address of its own, runs its lab's stress steps
(`Lab.stress`: the heaviest actions, at the most their declarations allow) back to
back, each waiting for its answer, from a process of its own (playground/stress.py).
A bystander on a quorum room of its own acts every 200 ms and times each answer, for S
seconds (10 by default). The peer in the same run is the same bystander against the
same server before anyone attacks. `--root` serves another checkout's code (how the
"before" row of docs/benchmarks.md was measured, on the commit before issue 29);
`--postgres` runs the server on a throwaway PostgreSQL database and Redis.
"""

import argparse
import asyncio
import sys
import tempfile
from contextlib import ExitStack
from pathlib import Path

from benchmarks.fanout import TargetRow
from benchmarks.fanout_servers import load_average
from benchmarks.timing import render
from playground.liveserver import (
    ROOT,
    migrate,
    server_env,
    start_daphne,
    throwaway_postgres,
)
from playground.stress import bystander_waits, p99, under_attack
from simulators.labs import LABS

BOUND_S = 0.2
REDIS_URL = "redis://127.0.0.1:6379/12"


async def run(seconds: float, root: Path, postgres: bool) -> tuple[list, list]:
    """The bystander's waits with nobody attacking, then under attack."""
    with ExitStack() as stack:
        var_dir = Path(stack.enter_context(tempfile.TemporaryDirectory()))
        extra = {}
        if postgres:
            extra = {
                "DATABASE_URL": stack.enter_context(throwaway_postgres()),
                "REDIS_URL": REDIS_URL,
            }
        env = server_env(var_dir, **extra)
        migrate(env, root=root)
        server = start_daphne(var_dir, env, root=root)
        try:
            quiet = await bystander_waits(server, seconds / 2)
            attacked, _answers = await under_attack(server, sorted(LABS), 1, seconds)
        finally:
            server.stop()
    return quiet, attacked


def rows(quiet: list, attacked: list, label: str) -> list:
    worst = p99(attacked)
    return [
        f"Heavy work: one attacker a lab runs its stress back to back "
        f"(load average {load_average()})",
        TargetRow(
            f"heavy work, bystander{label}",
            f"bystander's action: quiet p50 {1000 * sorted(quiet)[len(quiet) // 2]:.0f}"
            f" ms, p99 {1000 * p99(quiet):.0f} ms; under attack p50 "
            f"{1000 * sorted(attacked)[len(attacked) // 2]:.0f} ms, p99 "
            f"{1000 * worst:.0f} ms ({len(attacked)} actions, "
            f"{len(attacked.refused)} refused); p99 under attack / "
            f"p99 quiet {worst / p99(quiet):.1f}×",
            f"bystander p99 < {1000 * BOUND_S:.0f} ms",
            bool(worst < BOUND_S and not attacked.refused),
        ),
    ]


def heavy_work_rows(seconds: float = 10.0) -> list:
    table = []
    for postgres, label in ((False, " (SQLite)"), (True, " (PostgreSQL)")):
        quiet, attacked = asyncio.run(run(seconds, ROOT, postgres))
        table += rows(quiet, attacked, label)
    return table


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.heavy_work")
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--root", type=Path, default=ROOT)
    parser.add_argument("--postgres", action="store_true")
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args(argv)
    quiet, attacked = asyncio.run(run(args.seconds, args.root, args.postgres))
    label = " (PostgreSQL)" if args.postgres else " (SQLite)"
    table = rows(quiet, attacked, label)
    print(render(table, markdown=args.markdown))
    return 1 if any(getattr(r, "passed", None) is False for r in table) else 0


if __name__ == "__main__":
    sys.exit(main())
