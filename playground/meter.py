"""The work meter: declared costs are an estimate, the meter is the bound.

Every action and every replay declares its cost before it runs
(simulators/engine/cost.py; a unit is about a microsecond of one core on the machine
the costs were measured on). A declaration can be wrong, and a wrong one must not let
a visitor hold a core for a minute. So the work runs under a meter: the CPU time of the
thread doing it (Linux's per-thread CPU clock, which a busy machine does not inflate
the way it inflates the wall clock) is checked against a budget, and work past it is
stopped by raising `WorkExceeded` in that thread, at the next bytecode it runs (a long
call into C finishes first).

The caller decides what stopping means: an action stopped half way left its lab changed,
so the room is rebuilt from its log (playground/rooms/room.py); a replay stopped is a
link refused with the reason (playground/rooms/work.py).

The cyclic collector's time is not charged: a full collection walks the process's whole
heap, whoever made it, in whichever thread allocates when one is due (`_collected`).

One watchdog thread per process sleeps until the earliest budget could have run out (CPU
time never passes wall time, so it never wakes needlessly early) and checks again.
Nothing here reads settings: worker processes import it before Django is set up.
"""

import ctypes
import gc
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

SECONDS_PER_UNIT = 1e-6  # a work unit is about a microsecond (engine/cost.py)
T = TypeVar("T")


class WorkExceeded(BaseException):  # noqa: N818 (an interruption, as KeyboardInterrupt)
    """Raised inside metered work that passed its budget.

    A BaseException, as KeyboardInterrupt is: a lab's `except Exception` must not catch
    the meter's stop and go on working."""


def budget(declared: int, margin: float, floor: int) -> int:
    """The units metered work may use: `margin` times its declaration, and at least
    `floor` (small costs are noise-sized: a page fault, a collection)."""
    return max(int(declared * margin), floor)


class _Job:
    __slots__ = ("thread", "clock", "deadline", "fired", "collecting")

    def __init__(self, thread: int, clock: int, deadline: float) -> None:
        self.thread = thread  # the Python thread id (pthread_t on Linux)
        self.clock = clock  # that thread's CPU-time clock
        self.deadline = deadline  # in that clock's seconds
        self.fired = False
        # that clock when the cyclic collector started in this thread, None outside it
        self.collecting: float | None = None


def _interrupt(thread: int, error: type[BaseException] | None) -> None:
    """Raise `error` in another thread at its next bytecode (None: call it off)."""
    ctypes.pythonapi.PyThreadState_SetAsyncExc(
        ctypes.c_ulong(thread), ctypes.py_object(error) if error else None
    )


class Meter:
    """Runs work in the calling thread under a CPU-time budget."""

    def __init__(self) -> None:
        self._jobs: set[_Job] = set()
        self._changed = threading.Condition()
        self._watchdog: threading.Thread | None = None
        # the job running in each thread, for the collector's callback
        self._running: dict[int, _Job] = {}
        gc.callbacks.append(self._collected)

    def _collected(self, phase: str, info: dict) -> None:
        """The cyclic collector's time is not the work's: a full collection walks every
        object of the process (a second of it with a large heap), whoever made them,
        and it runs in whichever thread allocates when it is due. Its CPU time moves
        the deadline of the work it interrupted, and the watchdog does not stop work
        while it collects (a stop raised then would land in a collector's callback,
        which swallows it). Runs in the collecting thread, holding the GIL."""
        job = self._running.get(threading.get_ident())
        if job is None:
            return
        now = time.clock_gettime(job.clock)
        if phase == "start":
            job.collecting = now
        elif job.collecting is not None:
            job.deadline += now - job.collecting
            job.collecting = None

    def run(self, units: int, function: Callable[..., T], *args: Any) -> T:
        """`function(*args)` in this thread; WorkExceeded once it used more than
        `units` of CPU time (the work then stopped where it was)."""
        thread = threading.get_ident()
        clock = time.pthread_getcpuclockid(thread)
        deadline = time.clock_gettime(clock) + units * SECONDS_PER_UNIT
        job = _Job(thread, clock, deadline)
        outer = self._running.get(thread)  # metered work within metered work
        self._running[thread] = job
        with self._changed:
            self._jobs.add(job)
            self._start()
            self._changed.notify()
        try:
            return function(*args)
        finally:
            if outer is None:
                self._running.pop(thread, None)
            else:
                self._running[thread] = outer
            self._finish(job)

    def _finish(self, job: _Job) -> None:
        with self._changed:
            self._jobs.discard(job)
            fired = job.fired
        if fired:
            # the stop may still be on its way to this thread: call it off, and stop
            # here instead, so that it never lands in the caller's next lines
            _interrupt(job.thread, None)
            raise WorkExceeded()

    def _start(self) -> None:
        if self._watchdog is None or not self._watchdog.is_alive():
            self._watchdog = threading.Thread(
                target=self._watch, name="work-meter", daemon=True
            )
            self._watchdog.start()

    def _watch(self) -> None:
        with self._changed:
            while True:
                wait = None
                for job in list(self._jobs):
                    if job.fired:
                        continue
                    if job.collecting is not None:  # look again once it has collected
                        wait = 0.005
                        continue
                    try:
                        left = job.deadline - time.clock_gettime(job.clock)
                    except OSError:  # the thread is gone: nothing to stop
                        self._jobs.discard(job)
                        continue
                    if left <= 0:
                        job.fired = True
                        _interrupt(job.thread, WorkExceeded)
                    else:
                        wait = left if wait is None else min(wait, left)
                # never sooner than 5 ms: a stop a few ms late costs nothing
                self._changed.wait(None if wait is None else max(wait, 0.005))


meter = Meter()


class Stopped(Exception):
    """Metered work passed its budget: what `metered` raises, picklable (a worker
    process sends it back), where the meter's own interruption is not."""


def metered(units: int, function: Callable[..., T], *args: Any) -> T:
    """`function(*args)` under the meter with `units` to spend; Stopped past them."""
    try:
        return meter.run(units, function, *args)
    except WorkExceeded:
        raise Stopped(units) from None
