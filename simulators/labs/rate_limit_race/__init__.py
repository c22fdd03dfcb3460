"""rate-limit-race: read, check, write against one atomic step, on a shared counter."""

from simulators.labs.rate_limit_race.lab import RateLimitRaceLab

__all__ = ["RateLimitRaceLab"]
