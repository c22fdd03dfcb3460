"""The door of a class: a join code looked up, wrong guesses slowed, right ones never.

A school is often one address to the server (one NAT), so a limit that refuses every
code once an address guessed wrong too often locks a whole class out because of a few
typos or one mischievous student. Here a right code is never queued behind wrong ones:

- wrong guesses count against the address (`PLAYGROUND_JOIN_WRONG_PER_ADDRESS`,
  30 a minute);
- a code this address already joined goes straight in, slowed or not, and so does the
  code of a class whose host started or claimed it from this address (`remember`):
  a class behind its teacher's network never waits at all;
- past the wrong-guess allowance, the address's other lookups are parked in its line.
  Once every `PLAYGROUND_JOIN_SLOW_SECONDS` (1 s) the line looks up ONE code: the one
  with the most requests waiting (ties: the one that has waited longest), and every
  request waiting for that code is answered together. Thirty classmates typing one code
  outrank a script's distinct guesses, so the class is in within a second or two, while
  a guesser still gets at most one lookup a second per address: 3,600 codes an hour, so
  finding one of a thousand live classes among 887 million codes takes about ten days
  per address (and the host sees, and can remove, whoever comes in);
- a code the line already found wrong is answered at once for a while (no lookup), so
  repeating a wrong code cannot outrank the class either.

Wrong guesses are also counted over all addresses (`PLAYGROUND_JOIN_WRONG_TOTAL`): past
that, every address's lookups go through its line, so guesses spread over many addresses
are slowed too. A parked request is a coroutine and a few bytes in a dict: one line
holds `PLAYGROUND_JOIN_MAX_WAITING` (2,000) and a process
`PLAYGROUND_JOIN_MAX_WAITING_TOTAL` (20,000), far more than a script on one address
keeps open, so it cannot fill the line to lock the class out (past either, `LineFull`:
a 429 that says to wait a minute).
"""

import asyncio
import time
from dataclasses import dataclass, field

from django.conf import settings
from django.core.cache import cache

from playground.models import RoomRecord
from playground.ratelimits import rate_limits
from playground.store import find_class

WRONG_REMEMBERED_SECONDS = 60  # a code the line found wrong is answered from memory


class LineFull(Exception):
    """Too many lookups from one address (or in all) are waiting already."""


@dataclass
class Waiting:
    """The requests of one line waiting for one code."""

    first: float  # when the first of them came
    futures: list = field(default_factory=list)
    served: bool = False  # taken from the line: looked up, or being looked up


@dataclass
class Line:
    """The lookups of one slowed address: parked by code, looked up one code a turn."""

    codes: dict[str, Waiting] = field(default_factory=dict)
    waiting: int = 0
    task: asyncio.Task | None = None

    def next_code(self) -> str:
        """The code most requests wait for; of equals, the one waiting longest."""
        return min(
            self.codes,
            key=lambda c: (-len(self.codes[c].futures), self.codes[c].first),
        )


class Door:
    """Looks join codes up for one process; the counts are shared (ratelimits)."""

    def __init__(self) -> None:
        self.lines: dict[str, Line] = {}
        self.waiting = 0  # parked in every line of this process

    async def find(self, code: str, address: str) -> RoomRecord | None:
        """The class a code opens, or None; LineFull when too many wait already."""
        if await self._slowed(address) and not await _joined_before(address, code):
            record = await self._in_line(address, code)
        else:
            record = await asyncio.to_thread(find_class, code)
        if record is not None:
            await remember(address, record.join_code)
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
        """Park this request in the address's line until its code's turn."""
        if await cache.aget(_wrong_key(address, code)):
            return None  # the line found it wrong a moment ago: no second lookup
        line = self.lines.get(address)
        if (
            line is not None and line.waiting >= settings.PLAYGROUND_JOIN_MAX_WAITING
        ) or self.waiting >= settings.PLAYGROUND_JOIN_MAX_WAITING_TOTAL:
            raise LineFull()
        if line is None:
            line = self.lines[address] = Line()
        future = asyncio.get_running_loop().create_future()
        waiting = line.codes.get(code)
        if waiting is None:
            waiting = line.codes[code] = Waiting(time.monotonic())
        waiting.futures.append(future)
        line.waiting += 1
        self.waiting += 1
        if line.task is None:
            line.task = asyncio.get_running_loop().create_task(
                self._serve(address, line)
            )
        try:
            return await future
        finally:
            if not waiting.served:  # the request went away: it waits no more
                future.cancel()
                if future in waiting.futures:
                    waiting.futures.remove(future)
                    line.waiting -= 1
                    self.waiting -= 1
                    if not waiting.futures and line.codes.get(code) is waiting:
                        del line.codes[code]

    async def _serve(self, address: str, line: Line) -> None:
        """One lookup a turn, of the code most requests wait for; all are answered."""
        try:
            while line.codes:
                await asyncio.sleep(settings.PLAYGROUND_JOIN_SLOW_SECONDS)
                if not line.codes:
                    break
                code = line.next_code()
                waiting = line.codes.pop(code)
                waiting.served = True
                line.waiting -= len(waiting.futures)
                self.waiting -= len(waiting.futures)
                try:
                    record = await asyncio.to_thread(find_class, code)
                except Exception as error:  # the database: every waiter hears it
                    for future in waiting.futures:
                        if not future.done():
                            future.set_exception(error)
                    continue
                if record is None:
                    await cache.aset(
                        _wrong_key(address, code),
                        True,
                        timeout=WRONG_REMEMBERED_SECONDS,
                    )
                for future in waiting.futures:
                    if not future.done():
                        future.set_result(record)
        finally:
            line.task = None
            if self.lines.get(address) is line and not line.codes:
                del self.lines[address]


def _key(address: str, code: str) -> str:
    return f"playground:joined:{address}:{code}"


def _wrong_key(address: str, code: str) -> str:
    return f"playground:wrong-code:{address}:{code}"


async def _joined_before(address: str, code: str) -> bool:
    return bool(code) and bool(await cache.aget(_key(address, code.strip().upper())))


async def remember(address: str, code: str) -> None:
    """Let `code` past this address's line from now on: someone here joined its class,
    or its host started or claimed it from here."""
    if not code:
        return
    hours = settings.PLAYGROUND_CLASS_HOURS
    await cache.aset(_key(address, code), True, timeout=hours * 3600)


door = Door()
