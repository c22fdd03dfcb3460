"""The door of a class: a join code looked up, wrong guesses slowed, right ones never.

A school is often one address to the server (one NAT), so a limit that refuses every
code once an address guessed wrong too often locks a whole class out because of a few
typos or one mischievous student. Here a correct code is never refused:

- wrong guesses count against the address (`PLAYGROUND_JOIN_WRONG_PER_ADDRESS`,
  30 a minute);
- past that, the address's lookups wait in one line, one every
  `PLAYGROUND_JOIN_SLOW_SECONDS` (1 s): a right code still gets in, a moment later,
  and a guesser tries at most 3,600 codes an hour, so finding one of a thousand live
  classes among 887 million codes takes about ten days per address (and the host sees,
  and can remove, whoever comes in);
- a code this address already joined goes straight in, line or not: after the first
  classmate, the rest of a class behind one address waits for nothing.

Wrong guesses are also counted over all addresses (`PLAYGROUND_JOIN_WRONG_TOTAL`): past
that, every address's lookups go through its line, so guesses spread over many addresses
are slowed too. The line of one address holds at most `PLAYGROUND_JOIN_MAX_WAITING`
requests (64): a class of sixty arriving at once still fits.
"""

import asyncio
from dataclasses import dataclass, field

from django.conf import settings
from django.core.cache import cache

from playground.models import RoomRecord
from playground.ratelimits import rate_limits
from playground.store import find_class


class LineFull(Exception):
    """Too many lookups from one address are waiting already."""


@dataclass
class Line:
    """The lookups of one address that wait their turn."""

    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    waiting: int = 0


class Door:
    """Looks join codes up for one process; the counts are shared (ratelimits)."""

    def __init__(self) -> None:
        self.lines: dict[str, Line] = {}

    async def find(self, code: str, address: str) -> RoomRecord | None:
        """The class a code opens, or None; LineFull when too many wait already."""
        if await self._slowed(address) and not await _joined_before(address, code):
            record = await self._in_line(address, code)
        else:
            record = await asyncio.to_thread(find_class, code)
        if record is not None:
            await _remember(address, record)
        elif code:
            await rate_limits.hit(
                settings.PLAYGROUND_JOIN_WRONG_PER_ADDRESS, "wrong", address
            )
            await rate_limits.hit(settings.PLAYGROUND_JOIN_WRONG_TOTAL, "wrong-all")
        return record

    async def _slowed(self, address: str) -> bool:
        return await rate_limits.full(
            settings.PLAYGROUND_JOIN_WRONG_PER_ADDRESS, "wrong", address
        ) or await rate_limits.full(settings.PLAYGROUND_JOIN_WRONG_TOTAL, "wrong-all")

    async def _in_line(self, address: str, code: str) -> RoomRecord | None:
        line = self.lines.setdefault(address, Line())
        if line.waiting >= settings.PLAYGROUND_JOIN_MAX_WAITING:
            raise LineFull()
        line.waiting += 1
        try:
            async with line.lock:
                await asyncio.sleep(settings.PLAYGROUND_JOIN_SLOW_SECONDS)
                return await asyncio.to_thread(find_class, code)
        finally:
            line.waiting -= 1
            if not line.waiting:
                del self.lines[address]


def _key(address: str, code: str) -> str:
    return f"playground:joined:{address}:{code}"


async def _joined_before(address: str, code: str) -> bool:
    return bool(await cache.aget(_key(address, code)))


async def _remember(address: str, record: RoomRecord) -> None:
    hours = settings.PLAYGROUND_CLASS_HOURS
    await cache.aset(_key(address, record.join_code), True, timeout=hours * 3600)


door = Door()
