"""Virtual time: a clock that moves only when told, and a queue of timed events.

Order is decided by integers alone: `(time_ms, priority, seq)`, where `seq` is a counter
that keeps events scheduled for the same moment in the order they were scheduled.
"""

import heapq
from dataclasses import dataclass, field
from typing import Any


class VirtualClock:
    """Milliseconds since the lab started; advanced only by explicit calls."""

    def __init__(self) -> None:
        self.now_ms = 0

    def advance(self, ms: int) -> int:
        """Move time forward by `ms` (never backward) and return the new time."""
        if not _is_whole(ms):
            raise ValueError("ms must be a whole number of milliseconds")
        if ms < 0:
            raise ValueError("time only moves forward")
        self.now_ms += ms
        return self.now_ms


def _is_whole(value: Any) -> bool:
    # bool is an int subclass, but True milliseconds is a bug, not a duration
    return isinstance(value, int) and not isinstance(value, bool)


@dataclass(order=True, frozen=True)
class Scheduled:
    """One event waiting in the queue, ordered by time, priority, then insertion."""

    time_ms: int
    priority: int
    seq: int
    event: Any = field(compare=False)


class EventQueue:
    """A heap of future events on a virtual clock.

    The heap holds plain tuples `(time_ms, priority, seq, event)`: `seq` is unique, so
    two entries never compare their events, and tuples compare in C (the network labs
    push hundreds of thousands of messages through here).
    """

    def __init__(self, clock: VirtualClock | None = None) -> None:
        self.clock = clock or VirtualClock()
        self._heap: list[tuple[int, int, int, Any]] = []
        self._seq = 0

    def __len__(self) -> int:
        return len(self._heap)

    def schedule(self, delay_ms: int, event: Any, priority: int = 0) -> int:
        """Queue `event` to happen `delay_ms` after now; returns when it will happen."""
        if (delay_ms.__class__ is not int or delay_ms < 0) and (
            not _is_whole(delay_ms) or delay_ms < 0
        ):
            raise ValueError("delay_ms must be a non-negative integer")
        if priority.__class__ is not int and not _is_whole(priority):
            raise ValueError("priority must be an integer")
        at = self.clock.now_ms + delay_ms
        heapq.heappush(self._heap, (at, priority, self._seq, event))
        self._seq += 1
        return at

    def peek_time(self) -> int | None:
        """When the next event happens, or None when nothing is queued."""
        return self._heap[0][0] if self._heap else None

    def pop_due(self, until_ms: int) -> list[Scheduled]:
        """Remove and return, in order, every event due at or before `until_ms`."""
        due = []
        while self._heap and self._heap[0][0] <= until_ms:
            due.append(Scheduled(*heapq.heappop(self._heap)))
        return due

    def run_until(self, until_ms: int, handle) -> int:
        """Advance the clock to `until_ms`, running each due event at its time.

        Events scheduled by `handle` that fall inside the window run in the same call.
        Returns how many events ran.
        """
        if not _is_whole(until_ms):
            raise ValueError("until_ms must be an integer")
        heap, pop, clock = self._heap, heapq.heappop, self.clock
        ran = 0
        while heap and heap[0][0] <= until_ms:
            item = pop(heap)
            clock.now_ms = item[0]
            handle(item[3])
            ran += 1
        clock.now_ms = max(clock.now_ms, until_ms)
        return ran
