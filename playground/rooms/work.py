"""Heavy work, kept where it cannot hold up hellos and actions of other rooms.

Rooms' actions and replays run in lanes, not in the threads that hellos and database
calls use:

- `replays`: histories replayed from scratch (a link being opened, a room rebuilt from
  its stored log) whose declared cost passes `PLAYGROUND_REPLAY_PROCESS_UNITS` run in
  worker processes of their own (pebble's process pool), on another core; a replay
  whose socket went away is cancelled, and a running one is killed with its worker.
- `heavy`: actions and seeks whose declared cost passes `PLAYGROUND_HEAVY_UNITS` (a
  million keys, a burst of writes) run in one thread of their own, one at a time.
- `light`: every other action, and the cheaper replays, in `PLAYGROUND_LIGHT_WORKERS`
  threads (2), never refusing: kept to what takes milliseconds, so that whoever
  comes finds a thread free within milliseconds.

Every lane takes turns between addresses, the least used lately first; the heavy and
replay lanes are bounded, per client address and server-wide, and refuse a job past a
bound with `busy`.

Every replay runs under the work meter (playground/meter.py): past its budget (its
declared cost times `PLAYGROUND_WORK_MARGIN`, at least `PLAYGROUND_WORK_FLOOR_UNITS`)
it is stopped, whatever it declared, so one slot of a lane lasts a bounded time.
Actions are metered by the room that applies them (playground/rooms/room.py).
"""

import asyncio
import logging
import multiprocessing
import time
from collections import deque
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as JobTimeout
from typing import Any

from django.conf import settings
from django.utils.translation import gettext_noop
from pebble import ProcessExpired, ProcessPool

from playground.meter import SECONDS_PER_UNIT, Stopped, budget, metered
from simulators.engine.declaration import ActionError

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
    """A replay ran far past what it declared, and was stopped (`used` units)."""

    def __init__(self, used: int) -> None:
        super().__init__(
            "too_slow",
            gettext_noop(
                "replaying this history took more than %(seconds)s s of work, far "
                "more than it declared, and was stopped"
            ),
            seconds=f"{used * SECONDS_PER_UNIT:,.1f}",
        )
        self.used = used


def allowed(units: int) -> int:
    """The work that work declared at `units` may use before the meter stops it."""
    return budget(
        units, settings.PLAYGROUND_WORK_MARGIN, settings.PLAYGROUND_WORK_FLOOR_UNITS
    )


class FairLane:
    """Runs jobs a few at a time, taking turns between the addresses that sent them.

    The next job is the oldest of the address that used the lane least lately (its
    jobs' seconds, halved every `USAGE_HALF_LIFE`): a visitor who acts now and then goes
    before one who keeps the lane busy, and waits for at most the jobs already running.
    """

    USAGE_HALF_LIFE = 10.0
    USAGE_KEPT = 1_000  # addresses remembered; the least used are forgotten past it

    def __init__(self, workers: int, per_address: int, total: int) -> None:
        self.workers = workers
        self.per_address = per_address
        self.total = total
        self.running = 0
        self.queues: dict[str, deque] = {}
        self.turns: deque[str] = deque()  # addresses with queued jobs, oldest first
        self.held: dict[str, int] = {}  # queued or running jobs per address
        self.usage: dict[str, tuple[float, float]] = {}  # seconds used, and when

    def used(self, address: str, now: float) -> float:
        """Seconds of this lane `address` used lately (decayed to `now`)."""
        seconds, stamp = self.usage.get(address, (0.0, now))
        return seconds * 0.5 ** ((now - stamp) / self.USAGE_HALF_LIFE)

    def _count(self, address: str, seconds: float) -> None:
        now = time.monotonic()
        self.usage[address] = (self.used(address, now) + seconds, now)
        if len(self.usage) > self.USAGE_KEPT:
            least = sorted(self.usage, key=lambda a: self.used(a, now))
            for forgotten in least[: len(least) // 2]:
                del self.usage[forgotten]

    def pending(self) -> int:
        """Jobs queued or running, over every address."""
        return sum(self.held.values())

    async def run(
        self, address: str, start: Callable[[], Awaitable[Any]], limited: bool = True
    ) -> Any:
        """Queue `start` for `address`, await its turn and its result; Busy if full
        (`limited` false: work that must be done, a relayed entry, is never refused)."""
        if limited and (
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
            now = time.monotonic()
            turn = min(
                range(len(self.turns)), key=lambda i: (self.used(self.turns[i], now), i)
            )
            address = self.turns[turn]
            del self.turns[turn]
            queue = self.queues[address]
            start, waiter = queue.popleft()
            if queue:
                self.turns.append(address)  # its next job waits for everyone's turn
            else:
                del self.queues[address]
            if waiter.done():  # cancelled, and not yet taken out of its queue
                continue
            self.running += 1
            asyncio.get_running_loop().create_task(self._run(address, start, waiter))

    async def _run(self, address: str, start, waiter: asyncio.Future) -> None:
        job = asyncio.ensure_future(start())
        waiter.add_done_callback(lambda w: job.cancel() if w.cancelled() else None)
        began = time.monotonic()
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
            self._count(address, time.monotonic() - began)
            self.running -= 1
            self._pump()


class Work:
    """The lanes of this process, made when first needed."""

    def __init__(self) -> None:
        self._replays: FairLane | None = None
        self._heavy: FairLane | None = None
        self._light: FairLane | None = None
        self._pool = None
        self._threads: dict[str, ThreadPoolExecutor] = {}

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

    @property
    def light(self) -> FairLane:
        """Ordinary actions: a few threads, taking turns between addresses. Not
        Python's default executor, whose threads hellos and database calls use: with
        more threads at lab work than this, each would get a smaller share of the
        GIL and a bystander's action would wait for all of them."""
        if self._light is None:
            workers = settings.PLAYGROUND_LIGHT_WORKERS
            # a class behind one address sends many rooms' worth: never busy here
            # (each room sends one batch at a time; sockets are rate-limited)
            self._light = FairLane(workers, 10_000, 100_000)
        return self._light

    def is_heavy(self, units: int) -> bool:
        """Whether work of this declared cost leaves the ordinary threads."""
        return units >= settings.PLAYGROUND_HEAVY_UNITS

    async def replay(self, address: str, units: int, function, *args) -> Any:
        """`function(*args)` in a worker process (cheap ones: the light lane),
        metered: TooSlow once it used `allowed(units)`."""
        most = allowed(units)
        if units < settings.PLAYGROUND_REPLAY_PROCESS_UNITS:
            try:
                return await self._in_lane(
                    "light", address, metered, most, function, *args
                )
            except Stopped:
                raise TooSlow(most) from None

        async def start():
            # the meter counts the worker's CPU time; the wall clock is a backstop
            # for a worker that cannot even be interrupted (stuck in one C call)
            seconds = 10 + 4 * most * SECONDS_PER_UNIT
            future = self._process_pool().schedule(
                metered, (most, function, *args), timeout=seconds
            )
            try:
                return await asyncio.wrap_future(future)
            except (Stopped, JobTimeout):
                raise TooSlow(most) from None
            except ProcessExpired:  # the worker died (out of memory, say)
                log.exception("a replay's worker process died")
                raise TooSlow(most) from None

        return await self.replays.run(address, start)

    async def act(
        self, address: str, units: int, function, *args, limited: bool = True
    ) -> Any:
        """`function(*args)` in the heavy lane when it is heavy, else the light one."""
        lane = "heavy" if self.is_heavy(units) else "light"
        return await self._in_lane(lane, address, function, *args, limited=limited)

    async def _in_lane(
        self, lane: str, address: str, function, *args, limited: bool = True
    ) -> Any:
        threads = self._threads.get(lane)
        if threads is None:
            count = 1 if lane == "heavy" else settings.PLAYGROUND_LIGHT_WORKERS
            threads = self._threads[lane] = ThreadPoolExecutor(
                count, thread_name_prefix=lane
            )
        loop = asyncio.get_running_loop()
        return await getattr(self, lane).run(
            address, lambda: loop.run_in_executor(threads, function, *args), limited
        )

    async def checkpoints(self, function, *args) -> Any:
        """`function(*args)` in the one thread that stores rooms' checkpoints (a
        cache): not Python's default executor, which hellos and database calls use,
        so that a burst of half-megabyte checkpoints waits its turn there."""
        threads = self._threads.get("checkpoints")
        if threads is None:
            threads = self._threads["checkpoints"] = ThreadPoolExecutor(
                1, thread_name_prefix="checkpoints"
            )
        return await asyncio.get_running_loop().run_in_executor(
            threads, function, *args
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


work = Work()
