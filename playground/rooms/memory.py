"""What a process's rooms hold in memory, and when they let it go (issue 29).

Measured with `python -m benchmarks.idle_sockets` (the RSS of a fresh daphne before and
after N idle sockets, each with a private room of its own): most of a socket's memory
is its room's, and three things in a room grow without need:

- **the frames kept for resuming** (`room.frames`): up to 256 frames, about 20 KB each
  for a lab that plays (cache-stampede: 1 MB after five seconds of play, 5 MB at 256). A
  `FrameBuffer` keeps them within `PLAYGROUND_FRAME_BUFFER_BYTES` as well, and a room
  with no new frame for `FRAMES_QUIET_SECONDS` lets them all go: a socket that comes
  back later and missed nothing resumes without them, and one that missed something
  gets a fresh hello. It lets go of the last snapshot sent too (kept to send the next
  frame as a patch of it: hash-placement's 240 sampled keys are 110 KB of objects), so
  the next frame after a quiet minute carries the whole snapshot once.
- **the lab of a private room nobody uses** (a tab left open): a room whose log has not
  grown for `PLAYGROUND_PRIVATE_REST_SECONDS` rests: its history (the lab, the
  checkpoints), its log and frames leave memory, and the room keeps only who is in it
  and its sequence number. Whoever next takes the room's lock (an action, a hello, a
  resume, a link, a copy, an entry from another process) wakes it first: the history
  comes back from the stored log and checkpoints (`Room._rebuild`, as after a failed
  action), the same state to the digest, before anything reads it.
- **memory freed but not given back**: rooms that leave are cycles (room, clock,
  presence, relay), freed only by a full collection, which may be long in coming; a
  room leaving memory now lets its history, log and frames go at once (`release`), so
  they are freed then. What they freed stays in the process (glibc keeps freed memory
  in its arenas): after a burst of rooms leaving, `reclaim` runs `malloc_trim`. What
  Python's small-object allocator freed stays in its 1 MiB arenas while any object
  lives in each (docs/architecture.md, "What one process takes at once").

A room's lock is a `WakingLock` and its frames a `FrameBuffer` (rooms/room.py): every
use of a room's history is under its lock.
"""

import asyncio
import ctypes
import ctypes.util
import logging
import time
from collections import deque

from django.conf import settings
from django.db import DatabaseError

log = logging.getLogger(__name__)

SWEEP_SECONDS = 15  # how often rooms are looked over
FRAMES_QUIET_SECONDS = 60  # a room with no new frame this long lets its frames go
RECLAIM_AFTER = 20  # rooms let go before memory is handed back to the system
RECLAIM_DELAY_SECONDS = 2  # after the first of them (a burst of closes ends first)
RECLAIM_EVERY_SECONDS = 10  # at most this often
WAKE_TRIES = 4  # a room's history is read from the database this many times at most


class Resting:
    """Stands in for a resting room's history: no lab, and nothing for its clock to do
    (`RoomClock.wanted` reads `lab` and `at_end` without the lock)."""

    lab = None
    at_end = True

    def __getattr__(self, name: str):
        raise RuntimeError(
            f"a resting room's history was used ({name}) without taking its lock"
        )


RESTING = Resting()


def resting(room) -> bool:
    return room.history is RESTING


class FrameBuffer(deque):
    """The frames a room keeps for resuming, within a number and a size in bytes.

    `room.frames` as room.py uses it (append, clear, iterate, `[0]`), with the oldest
    frames let go once the texts pass `most_bytes` (the newest one always stays)."""

    def __init__(self, frames=(), maxlen: int | None = None, most_bytes: int = 0):
        super().__init__((), maxlen)
        self.most_bytes = most_bytes
        self.bytes = 0
        for frame in frames:
            self.append(frame)

    def append(self, frame: tuple[int, str]) -> None:
        if self.maxlen is not None and len(self) == self.maxlen:
            self.popleft()
        super().append(frame)
        self.bytes += len(frame[1])
        while self.bytes > self.most_bytes and len(self) > 1:
            self.popleft()

    def extend(self, frames) -> None:
        for frame in frames:
            self.append(frame)

    def popleft(self) -> tuple[int, str]:
        frame = super().popleft()
        self.bytes -= len(frame[1])
        return frame

    def clear(self) -> None:
        super().clear()
        self.bytes = 0


class WakingLock:
    """A room's lock: whoever holds it finds the room awake (its history loaded)."""

    def __init__(self, room) -> None:
        self.room = room
        self.inner = asyncio.Lock()

    def locked(self) -> bool:
        return self.inner.locked()

    async def acquire(self) -> bool:
        await self.inner.acquire()
        try:
            await wake(self.room)
        except BaseException:
            self.inner.release()
            raise
        return True

    def release(self) -> None:
        self.inner.release()

    async def __aenter__(self) -> None:
        await self.acquire()

    async def __aexit__(self, *exc) -> None:
        self.release()


def keep(room) -> None:
    """A room the registry now holds is looked over from now on."""
    upkeep.start()


async def wake(room) -> None:
    """Load a resting room's history again (its lock held): from its last stored
    checkpoint and the log after it, as `Room._rebuild` does after a failed action."""
    if not resting(room):
        return
    for attempt in range(WAKE_TRIES):
        try:
            await room._rebuild("")
            break
        except DatabaseError:
            if attempt == WAKE_TRIES - 1:
                raise
            log.warning("room %s: waking it failed; trying again", room.id)
            await asyncio.sleep(0.5 * 2**attempt)
    upkeep.seen[room.id] = (room.seq, time.monotonic())
    log.info("room %s woke", room.id)


def rest(room) -> bool:
    """Let a private room's history, log and frames go (it wakes when its lock is next
    taken); False when it may not rest now. Not awaited: nothing runs meanwhile."""
    if (
        room.is_class
        or room.clock.ticker is not None
        or room.too_big  # no stored checkpoint: it would load by replaying everything
        or not _let_go(room)
    ):
        return False
    log.info("room %s rests", room.id)
    return True


def release(room) -> None:
    """A room leaving memory (registry._evict) lets its history, log and frames go at
    once: they are freed as the last reference goes, not when a full collection next
    finds the room's cycles (room, clock, presence, relay). Should a socket still join
    it (one that loaded it just before), its lock wakes it."""
    _let_go(room)


def _let_go(room) -> bool:
    """Drop what a room can load again from the database (`Room.let_go`)."""
    if not room.let_go():
        return False
    reclaim.released()
    return True


class Upkeep:
    """Looks over this process's rooms every `SWEEP_SECONDS`: a room whose sequence
    number has not moved lets its frames go, then (a private one) rests."""

    def __init__(self) -> None:
        self.task: asyncio.Task | None = None
        self.seen: dict[str, tuple[int, float]] = {}  # room id: (seq, since when)

    def start(self) -> None:
        loop = asyncio.get_running_loop()
        if self.task is None or self.task.done() or self.task.get_loop() is not loop:
            self.task = loop.create_task(self._run())

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(SWEEP_SECONDS)
            try:
                self.sweep(time.monotonic())
            except Exception:
                log.exception("looking over the rooms failed")

    def sweep(self, now: float) -> None:
        """One look over every room held (`now` from time.monotonic)."""
        from playground.rooms.registry import registry

        rooms = registry.rooms
        for room_id in [r for r in self.seen if r not in rooms]:
            del self.seen[room_id]
        rest_after = settings.PLAYGROUND_PRIVATE_REST_SECONDS
        for room in list(rooms.values()):
            seq, since = self.seen.get(room.id, (None, now))
            if seq != room.seq:
                self.seen[room.id] = (room.seq, now)
                continue
            quiet = now - since
            if quiet >= FRAMES_QUIET_SECONDS and not room.lock.locked():
                # the next frame carries the whole snapshot instead of a patch
                room.frames.clear()
                room._last_snapshot = None
            if rest_after and quiet >= rest_after and not room.is_class:
                rest(room)


class Reclaim:
    """Hands freed memory back to the system after a burst of rooms left.

    Only glibc's `malloc_trim`, in a thread: the rooms' own memory was freed as they
    let go of it (`release`, `rest`), so no full collection is needed for it, and one
    would pause the event loop for about 0.1 to 0.25 s with a thousand rooms held (a
    collection's cost is the live objects it walks, not the garbage it finds)."""

    def __init__(self) -> None:
        self.pending = 0
        self.scheduled = False
        self.last = float("-inf")
        self.trim = _malloc_trim()

    def released(self, rooms: int = 1) -> None:
        """`rooms` left memory (evicted, or resting); reclaim once enough have."""
        self.pending += rooms
        if self.pending < RECLAIM_AFTER or self.scheduled:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        wait = max(
            RECLAIM_DELAY_SECONDS, self.last + RECLAIM_EVERY_SECONDS - loop.time()
        )
        self.scheduled = True
        loop.call_later(wait, lambda: loop.create_task(self.run()))

    async def run(self) -> None:
        """malloc_trim(0) in a thread: free pages in every glibc arena go back."""
        loop = asyncio.get_running_loop()
        self.scheduled = False
        self.pending = 0
        self.last = loop.time()
        if self.trim is None:
            return
        started = time.perf_counter()
        await asyncio.to_thread(self.trim, 0)
        log.info("memory trimmed in %.0f ms", (time.perf_counter() - started) * 1000)


def _malloc_trim():
    """glibc's malloc_trim, or None where there is no glibc (musl, macOS)."""
    name = ctypes.util.find_library("c")
    if not name:
        return None
    try:
        trim = ctypes.CDLL(name).malloc_trim
    except (OSError, AttributeError):
        return None
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int
    return trim


upkeep = Upkeep()
reclaim = Reclaim()
