"""How long a shard takes to answer, and how long a query that asks many of them waits.

One shard's latency is lognormal: median 4 ms and sigma 0.6 (of the logarithm), so its
p99 is 4 ms × e^(0.6 × 2.326) ≈ 16.2 ms, four times the median: a tail, as a real
primary has (a GC pause, a cold page, a busy disk). A shard slowed by a factor f takes
f times as long, draw for draw. Latencies are whole microseconds.

A query that asks n shards answers when the slowest has answered: its latency is the
maximum of n draws, whose CDF is the product of the shards' own,
P(max ≤ x) = Π F_i(x). For n identical shards that gives the quantile in closed form,
median × exp(sigma × Φ⁻¹(q^(1/n))); with shards slowed differently it is solved by
bisection.

A draw is made by inverse transform, latency = f × median × exp(sigma × Φ⁻¹(u)) for u
uniform, which is monotone in u: the slowest of the healthy shards is the one with the
largest u, so `measure` transforms one number per cluster size instead of one per
shard, and gives exactly the maxima that transforming every draw would.
"""

import functools
from bisect import bisect_right
from math import ceil, exp, log
from random import Random
from statistics import NormalDist

MEDIAN_US = 4_000
SIGMA = 0.6
TINY_U = 2.0**-54  # stands in for a uniform draw of exactly 0, where Φ⁻¹ has no value
BISECTION_STEPS = 100
_normal = NormalDist()
_inv_cdf = _normal.inv_cdf


def latency_us(u: float, factor: int = 1) -> int:
    """The latency of one answer, in microseconds, from a uniform draw `u` in [0, 1)."""
    return round(factor * MEDIAN_US * exp(SIGMA * _inv_cdf(u or TINY_U)))


def draw_answers(rng: Random, shards: list[int], slow: dict[int, int]) -> list[dict]:
    """One answer from each of `shards`, in that order: its latency, slow factor too."""
    answers = []
    for shard in shards:
        factor = slow.get(shard, 1)
        latency = latency_us(rng.random(), factor)
        answers.append({"shard": shard, "latency_us": latency, "slow_factor": factor})
    return answers


def factor_groups(slow: dict[int, int], shards: int) -> tuple[tuple[int, int], ...]:
    """The first `shards` shards as (slow factor, how many), sorted by factor."""
    counts: dict[int, int] = {}
    for shard in range(shards):
        factor = slow.get(shard, 1)
        counts[factor] = counts.get(factor, 0) + 1
    return tuple(sorted(counts.items()))


@functools.lru_cache(maxsize=1024)
def quantile_of_max_us(q: float, groups: tuple[tuple[int, int], ...]) -> float:
    """The q-quantile of the slowest of the shards in `groups` ((factor, count)).

    Solved in z, where latency = median × exp(sigma × z): a shard slowed by f is
    below z when its own standard normal is below z − ln(f)/sigma.
    """
    if len(groups) == 1:
        factor, shards = groups[0]
        return factor * MEDIAN_US * exp(SIGMA * _inv_cdf(q ** (1 / shards)))
    return bisected_quantile_us(q, groups)


def bisected_quantile_us(q: float, groups: tuple[tuple[int, int], ...]) -> float:
    """The q-quantile of the slowest shard, solving Π F_i(x) = q by bisection."""
    shards = sum(count for _, count in groups)
    offsets = [(log(factor) / SIGMA, count) for factor, count in groups]
    top = max(offset for offset, _ in offsets)
    # at `low` the slowest group alone is at q, so the product is at most q; at `high`
    # every shard is at q^(1/n) at least, so the product is at least q
    low, high = top + _inv_cdf(q), top + _inv_cdf(q ** (1 / shards))
    target = log(q)
    for _ in range(BISECTION_STEPS):
        middle = (low + high) / 2
        # added left to right, as sum() did up to Python 3.11 (3.12's compensated
        # sum can end in other last bits, and a bisection step go the other way)
        below = 0.0
        for off, count in offsets:
            below += count * log(_normal.cdf(middle - off))
        if below < target:
            low = middle
        else:
            high = middle
        if high - low < 1e-12:
            break
    return MEDIAN_US * exp(SIGMA * (low + high) / 2)


def measure_maxima(
    rng: Random, count: int, sizes: tuple[int, ...], slow: dict[int, int]
) -> dict[int, list[int]]:
    """The gathered latency of `count` scatter queries at each cluster size, sorted.

    Each query draws one answer for each of the largest cluster's shards; a cluster of
    n shards is the first n of them (slow shards keep their place), so each size is an
    honest sample of its own maximum, and a query never answers faster with more shards.
    """
    sizes = tuple(sorted(set(sizes)))
    plan = _cut_plan(sizes, slow)
    widest = sizes[-1]
    random = rng.random
    inv_cdf = _inv_cdf
    scale = SIGMA
    maxima: list[list[int]] = [[] for _ in sizes]
    for _ in range(count):
        draws = [random() for _ in range(widest)]
        healthy = 0.0  # the largest uniform of a healthy shard so far
        slowest = float("-inf")  # the largest z of a slowed shard so far
        for cut, (spans, slowed, any_healthy) in enumerate(plan):
            for start, stop in spans:
                top = max(draws[start:stop])
                if top > healthy:
                    healthy = top
            for shard, offset in slowed:
                z = inv_cdf(draws[shard] or TINY_U) + offset
                if z > slowest:
                    slowest = z
            z = max(inv_cdf(healthy or TINY_U), slowest) if any_healthy else slowest
            maxima[cut].append(round(MEDIAN_US * exp(scale * z)))
    for sample in maxima:
        sample.sort()
    return dict(zip(sizes, maxima, strict=True))


def _cut_plan(sizes: tuple[int, ...], slow: dict[int, int]) -> list[tuple]:
    """Per size, the spans of healthy shards and the slowed shards it adds, and
    whether any healthy shard is among the first `size`."""
    plan = []
    start = 0
    any_healthy = False
    for size in sizes:
        spans, slowed = [], []
        span_start = start
        for shard in range(start, size):
            factor = slow.get(shard, 1)
            if factor != 1:
                if span_start < shard:
                    spans.append((span_start, shard))
                slowed.append((shard, log(factor) / SIGMA))
                span_start = shard + 1
        if span_start < size:
            spans.append((span_start, size))
        any_healthy = any_healthy or bool(spans)
        plan.append((spans, slowed, any_healthy))
        start = size
    return plan


def measure_curve(
    rng: Random, count: int, sizes: list[int], slow: dict[int, int]
) -> list[dict]:
    """Measured and analytic p50 and p99 of `count` scatter queries at each size.

    `within_analytic_p99` counts the queries answered by the analytic p99: about 99 in
    100 when theory and measurement agree.
    """
    maxima = measure_maxima(rng, count, tuple(sizes), slow)
    points = []
    for size, theory in zip(sizes, analytic_curve(sizes, slow), strict=True):
        sample = maxima[size]
        p99 = quantile_of_max_us(0.99, factor_groups(slow, size))
        points.append(
            {
                "shards": size,
                "p50_us": nearest_rank(sample, 0.5),
                "p99_us": nearest_rank(sample, 0.99),
                "analytic_p50_us": theory["p50_us"],
                "analytic_p99_us": theory["p99_us"],
                "within_analytic_p99": count_at_most(sample, p99),
            }
        )
    return points


def analytic_curve(sizes: list[int], slow: dict[int, int]) -> list[dict]:
    """p50 and p99 of the slowest answer, in theory, for clusters of each size."""
    curve = []
    for size in sizes:
        groups = factor_groups(slow, size)
        curve.append(
            {
                "shards": size,
                "p50_us": round(quantile_of_max_us(0.5, groups)),
                "p99_us": round(quantile_of_max_us(0.99, groups)),
            }
        )
    return curve


def nearest_rank(sorted_sample: list[int], q: float) -> int:
    """The q-quantile of a sorted sample by nearest rank: the value at ⌈q·n⌉."""
    return sorted_sample[max(ceil(q * len(sorted_sample)) - 1, 0)]


def count_at_most(sorted_sample: list[int], limit: float) -> int:
    """How many values of a sorted sample are at most `limit`."""
    return bisect_right(sorted_sample, limit)
