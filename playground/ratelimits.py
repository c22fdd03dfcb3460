"""How often one client address (or member) may do a thing, counted across processes.

Rules are written as the `limits` package reads them ("120/minute;1200/hour": both must
hold) and set in settings.py. The counts live in Redis when `REDIS_URL` is set, so every
process of a deployment counts together, and in this process's memory otherwise. The
sliding-window counter keeps two numbers per key and window, however busy a key is.
"""

from django.conf import settings
from limits import parse_many
from limits.aio.storage import MemoryStorage, RedisStorage
from limits.aio.strategies import SlidingWindowCounterRateLimiter

REDIS_CONNECTIONS = 16


class RateLimits:
    """The shared counter; made when first used (after settings are read)."""

    def __init__(self) -> None:
        self._limiter: SlidingWindowCounterRateLimiter | None = None

    def _strategy(self) -> SlidingWindowCounterRateLimiter:
        if self._limiter is None:
            if settings.REDIS_URL:
                from redis.asyncio import BlockingConnectionPool

                storage = RedisStorage(
                    "async+" + settings.REDIS_URL,
                    implementation="redispy",
                    key_prefix="playground-limits",
                    # a burst of joins waits for one of a few connections instead
                    # of opening one each (memory that grew with the burst)
                    connection_pool=BlockingConnectionPool.from_url(
                        settings.REDIS_URL, max_connections=REDIS_CONNECTIONS
                    ),
                )
            else:
                storage = MemoryStorage()
            self._limiter = SlidingWindowCounterRateLimiter(storage)
        return self._limiter

    async def hit(self, rules: str, *key: str) -> bool:
        """Count one more for `key`; False if a rule is full (each rule's check and
        count is one atomic step; the rules before a full one count the attempt)."""
        limiter = self._strategy()
        for rule in parse_many(rules):
            if not await limiter.hit(rule, *key):
                return False
        return True

    async def full(self, rules: str, *key: str) -> bool:
        """Whether one more for `key` would break a rule (counting nothing)."""
        limiter = self._strategy()
        for rule in parse_many(rules):
            if not await limiter.test(rule, *key):
                return True
        return False

    def reset(self) -> None:
        """Forget every count (tests start from nothing)."""
        self._limiter = None


rate_limits = RateLimits()
