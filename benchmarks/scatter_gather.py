"""scatter-gather: 10,000 simulated queries at N = 64 against the plainest loop.

A scatter query waits for the slowest of N shards' answers, each a lognormal latency
(median 4 ms, sigma 0.6). The lab's `measure_maxima` draws N uniforms a query and
transforms only the largest (the inverse transform is monotone, so the slowest answer
is the largest draw's); the plainest loop transforms all N draws into latencies, takes
the largest, and reads p50 and p99 off the sorted maxima. Both use the same seeded
draws and must give the same maxima, checked before anything is timed; the ratio is
the median of interleaved pairs with its spread.

Run alone: `python -m benchmarks.scatter_gather [--queries Q] [--pairs P]`.
"""

import argparse
import sys
from math import exp
from statistics import NormalDist

from benchmarks.timing import MIN_PAIRS, Row, paired_rows, render
from simulators.engine.rng import make_rng
from simulators.labs.scatter_gather.latency import (
    MEDIAN_US,
    SIGMA,
    TINY_U,
    measure_maxima,
    nearest_rank,
)

TARGET = 1.5
SHARDS = 64


def ours(queries: int) -> list[int]:
    """The lab's measurement at N = 64: the sorted maxima."""
    rng = make_rng(1, "bench:scatter")
    return measure_maxima(rng, queries, (SHARDS,), {})[SHARDS]


def plain(queries: int) -> list[int]:
    """The plainest loop: every answer's latency, the largest of each query, sorted.

    The latency (`latency_us`: median × e^(sigma × Φ⁻¹(u)), whole µs) is inlined in
    the loop, as someone writing the loop would: no call per answer but the inverse
    normal CDF itself."""
    rng = make_rng(1, "bench:scatter")
    random, inv_cdf = rng.random, NormalDist().inv_cdf
    shards = range(SHARDS)
    maxima = [
        max(
            [
                round(MEDIAN_US * exp(SIGMA * inv_cdf(random() or TINY_U)))
                for _ in shards
            ]
        )
        for _ in range(queries)
    ]
    maxima.sort()
    return maxima


def scatter_rows(queries: int, pairs: int) -> list[Row | str]:
    """One row: the lab's measurement over the plainest loop, paired."""
    if ours(queries) != plain(queries):
        raise AssertionError("the plain loop and measure_maxima disagree")
    sample = ours(queries)
    p50, p99 = nearest_rank(sample, 0.5), nearest_rank(sample, 0.99)
    return paired_rows(
        f"scatter-gather: {queries:,} simulated queries at N = {SHARDS} "
        f"(p50 {p50 / 1000:.1f} ms, p99 {p99 / 1000:.1f} ms)",
        "measure_maxima / plain loop over every answer, same maxima",
        lambda: ours(queries),
        lambda: plain(queries),
        queries,
        TARGET,
        pairs,
    )


def rows(repeat: int, keys: int) -> list[Row | str]:
    """scatter-gather's rows of `make bench` (benchmarks/__main__.py finds them by the
    lab's slug): 10,000 simulated queries at N = 64."""
    return scatter_rows(10_000, repeat)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.scatter_gather")
    parser.add_argument("--queries", type=int, default=10_000)
    parser.add_argument("--pairs", type=int, default=MIN_PAIRS)
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args(argv)
    rows = scatter_rows(args.queries, args.pairs)
    print(render(rows, markdown=args.markdown))
    return 1 if any(isinstance(r, Row) and r.passed is False for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
