"""Heavy work, kept where it cannot hold up hellos and actions of other rooms.

Anything whose declared cost (simulators/engine/cost.py) passes `PLAYGROUND_HEAVY_UNITS`
goes through one of two lanes instead of the threads that hellos and ordinary actions
use:

- `replays`: histories replayed from scratch (a link being opened, a room rebuilt from
  its stored log) run in worker processes of their own (pebble's process pool), on
  another core; a replay whose socket went away is cancelled, and a running one is
  killed with its worker.
- `heavy`: actions and seeks on a big lab (a million keys) run in one thread of their
  own, one at a time.

Both lanes are bounded, per client address and server-wide, and take turns between
addresses: a bystander waits for at most one job of each other address, never for the
whole queue of a client that asks for a lot. A job over a bound is refused with `busy`.
"""

import asyncio
import logging
import multiprocessing
from collections import deque
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as JobTimeout
from typing import Any

from django.conf import settings
from django.utils.translation import gettext_noop
from pebble import ProcessExpired, ProcessPool

from simulators.engine.declaration import ActionError

SECONDS_PER_UNIT = 1e-6  # a work unit is about a microsecond (engine/cost.py)
log = logging.getLogger(__name__)


class Busy(ActionError):
    """The server has too much heavy work queued for this address, or in all."""

    def __init__(self) -> None:
        super().__init__(
            "busy",
            gettext_noop(
                "the server is busy with other heavy work just now; "
                "nothing changed, try again in a few seconds"
            ),
        )


class TooSlow(ActionError):
    """A replay ran far past what it declared, and was stopped."""

    def __init__(self) -> None:
        super().__init__(
            "too_slow",
            gettext_noop("replaying this history took too long and was stopped"),
        )


class FairLane:
    """Runs jobs a few at a time, taking turns between the addresses that sent them."""

    def __init__(self, workers: int, per_address: int, total: int) -> None:
        self.workers = workers
        self.per_address = per_address
        self.total = total
        self.running = 0
        self.queues: dict[str, deque] = {}
        self.turns: deque[str] = deque()  # addresses with queued jobs, in turn
        self.held: dict[str, int] = {}  # queued or running jobs per address

    def pending(self) -> int:
        """Jobs queued or running, over every address."""
        return sum(self.held.values())

    async def run(self, address: str, start: Callable[[], Awaitable[Any]]) -> Any:
        """Queue `start` for `address`, await its turn and its result; Busy if full."""
        if (
            self.held.get(address, 0) >= self.per_address
            or self.pending() >= self.total
        ):
            raise Busy()
        waiter = asyncio.get_running_loop().create_future()
        if address not in self.queues:
            self.queues[address] = deque()
            self.turns.append(address)
        job = (start, waiter)
        self.queues[address].append(job)
        self.held[address] = self.held.get(address, 0) + 1
        try:
            self._pump()
            return await waiter
        finally:
            self.held[address] -= 1
            if not self.held[address]:
                del self.held[address]
            self._forget(address, job)

    def _forget(self, address: str, job: tuple) -> None:
        """Take a job that never ran (its asker went away) out of its queue."""
        queue = self.queues.get(address)
        if queue is None or job not in queue:
            return
        queue.remove(job)
        if not queue:
            del self.queues[address]
            self.turns.remove(address)

    def _pump(self) -> None:
        while self.running < self.workers and self.turns:
            address = self.turns.popleft()
            queue = self.queues[address]
            start, waiter = queue.popleft()
            if queue:
                self.turns.append(address)  # its next job waits for everyone's turn
            else:
                del self.queues[address]
            if waiter.done():  # cancelled, and not yet taken out of its queue
                continue
            self.running += 1
            asyncio.get_running_loop().create_task(self._run(start, waiter))

    async def _run(self, start, waiter: asyncio.Future) -> None:
        job = asyncio.ensure_future(start())
        waiter.add_done_callback(lambda w: job.cancel() if w.cancelled() else None)
        try:
            result = await job
            if not waiter.done():
                waiter.set_result(result)
        except asyncio.CancelledError:
            if not waiter.done():
                waiter.cancel()
        except BaseException as error:
            if not waiter.done():
                waiter.set_exception(error)
        finally:
            self.running -= 1
            self._pump()


class Work:
    """The two lanes of this process, made when first needed."""

    def __init__(self) -> None:
        self._replays: FairLane | None = None
        self._heavy: FairLane | None = None
        self._pool = None
        self._thread: ThreadPoolExecutor | None = None

    @property
    def replays(self) -> FairLane:
        if self._replays is None:
            self._replays = FairLane(
                settings.PLAYGROUND_REPLAY_WORKERS,
                settings.PLAYGROUND_REPLAYS_PER_ADDRESS,
                settings.PLAYGROUND_REPLAYS_QUEUED,
            )
        return self._replays

    @property
    def heavy(self) -> FairLane:
        if self._heavy is None:
            self._heavy = FairLane(
                1,
                settings.PLAYGROUND_HEAVY_PER_ADDRESS,
                settings.PLAYGROUND_HEAVY_QUEUED,
            )
        return self._heavy

    def is_heavy(self, units: int) -> bool:
        """Whether work of this declared cost leaves the ordinary threads."""
        return units >= settings.PLAYGROUND_HEAVY_UNITS

    async def replay(self, address: str, units: int, function, *args) -> Any:
        """`function(*args)` in a worker process (cheap ones: a thread of this one)."""
        if not self.is_heavy(units):
            return await asyncio.to_thread(function, *args)

        async def start():
            # a replay far slower than it declared is stopped: costs are estimates,
            # and an estimate that is badly off must not hold a worker for hours
            seconds = 10 + 4 * units * SECONDS_PER_UNIT
            future = self._process_pool().schedule(function, args, timeout=seconds)
            try:
                return await asyncio.wrap_future(future)
            except JobTimeout:
                raise TooSlow() from None
            except ProcessExpired:  # the worker died (out of memory, say)
                log.exception("a replay's worker process died")
                raise TooSlow() from None

        return await self.replays.run(address, start)

    async def act(self, address: str, units: int, function, *args) -> Any:
        """`function(*args)` in the heavy thread when it is heavy, else a thread."""
        if not self.is_heavy(units):
            return await asyncio.to_thread(function, *args)
        loop = asyncio.get_running_loop()
        return await self.heavy.run(
            address, lambda: loop.run_in_executor(self._heavy_thread(), function, *args)
        )

    def _process_pool(self):
        if self._pool is None:
            # spawn, not fork: a forked copy of a server would hold its sockets and
            # threads; a spawned worker imports only what a replay needs
            self._pool = ProcessPool(
                max_workers=settings.PLAYGROUND_REPLAY_WORKERS,
                max_tasks=50,  # a fresh worker now and then gives memory back
                context=multiprocessing.get_context("spawn"),
            )
        return self._pool

    def _heavy_thread(self) -> ThreadPoolExecutor:
        if self._thread is None:
            self._thread = ThreadPoolExecutor(1, thread_name_prefix="heavy")
        return self._thread


work = Work()
