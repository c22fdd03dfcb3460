"""cache-stampede: cache-aside for the departures board, four refill strategies."""

from simulators.labs.cache_stampede.lab import CacheStampedeLab

__all__ = ["CacheStampedeLab"]
