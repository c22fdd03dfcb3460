"""The numbers each scheme's card shows: spread of load, and share of requests."""

from math import sqrt


def spread(counts: list[int]) -> dict:
    """Mean, max, standard deviation and max/mean of keys per shard."""
    mean = sum(counts) / len(counts)
    # added left to right, as sum() did up to Python 3.11: from 3.12 sum() compensates
    # the rounding of floats and can end in other last bits, so another digest
    squares = 0.0
    for c in counts:
        squares += (c - mean) ** 2
    variance = squares / len(counts)
    peak = max(counts)
    return {
        "mean": round(mean, 2),
        "max": peak,
        "stddev": round(sqrt(variance), 2),
        "max_over_mean": round(peak / mean, 3) if mean else 0.0,
    }


def request_share(per_shard: dict, total: int, hot: dict | None, hot_shard) -> dict:
    """Percent of requests per shard: spread by keys, plus the hot key's share."""
    hot_percent = hot["share_percent"] if hot else 0
    spread_percent = 100 - hot_percent
    shares = {}
    for shard, count in per_shard.items():
        share = spread_percent * count / total if total else 0.0
        if shard == hot_shard:
            share += hot_percent
        shares[shard] = round(share, 1)
    return shares
