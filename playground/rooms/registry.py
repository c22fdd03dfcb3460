"""The rooms this process holds: loaded from the database, created, and evicted.

A room nobody in this process watches leaves memory after the idle time; its log stays
in the database, and the next visitor rebuilds it. At most `PLAYGROUND_MAX_ROOMS` are
held at once: past that, rooms nobody is in leave first, and when every room has
someone in it a new one is refused (`server_full`, which a page answers by trying
again later). What a held room keeps in memory, and when it lets it go:
playground/rooms/memory.py.
"""

import asyncio
import logging

from django.conf import settings
from django.utils.translation import gettext_noop

from playground import store
from playground.capacity import SERVER_FULL, SERVER_FULL_MESSAGE
from playground.history import Entry, History, replayed
from playground.models import RoomRecord
from playground.ratelimits import rate_limits
from playground.rooms import memory
from playground.rooms.room import Room, load_history
from simulators.engine.declaration import ActionError
from simulators.engine.lab import Lab

# a room made or loaded for a socket stays this long before anyone has joined it
ARRIVAL_GRACE_SECONDS = 30
# a room nobody is in is not sent away to make space in its first seconds: the socket
# it was made for is still on its way in
MAKE_SPACE_AFTER_SECONDS = 5
log = logging.getLogger(__name__)


class RoomRegistry:
    """The rooms this process holds; idle ones leave memory, and return from the log."""

    def __init__(self) -> None:
        self.rooms: dict[str, Room] = {}
        self._loading: dict[str, asyncio.Lock] = {}
        self._coming = 0  # rooms being made or loaded, not held yet
        self._held_at: dict[str, float] = {}  # when each room came into memory

    def get(self, room_id: str) -> Room | None:
        """The room with this id, if this process holds it in memory."""
        return self.rooms.get(room_id)

    async def load(self, room_id: str, address: str = "") -> Room | None:
        """The room with this id: from memory, or rebuilt from the database.

        A log that is heavy to replay is replayed in the replay lane, on behalf of
        `address` (playground/rooms/work.py).
        """
        room = self.rooms.get(room_id)
        if room is not None or not _plausible_id(room_id):
            return room
        lock = self._loading.setdefault(room_id, asyncio.Lock())
        async with lock:
            room = self.rooms.get(room_id)
            if room is None:
                self.make_space()
                self._coming += 1
                try:
                    room = await _build(room_id, address)
                finally:
                    self._coming -= 1
                if room is not None:
                    self._hold(room)
                    await room.relay.connect()
        self._loading.pop(room_id, None)
        return room

    def make_space(self) -> None:
        """Room for one more room in memory, or ActionError `server_full`.

        Past `PLAYGROUND_MAX_ROOMS`, rooms nobody is in (waiting out their idle time)
        leave at once, the one due soonest first."""
        most = settings.PLAYGROUND_MAX_ROOMS
        while len(self.rooms) + self._coming >= most:
            settled = asyncio.get_running_loop().time() - MAKE_SPACE_AFTER_SECONDS
            idle = [
                r
                for r in self.rooms.values()
                if not r.members
                and r.evict_handle is not None
                and not r.lock.locked()
                and self._held_at.get(r.id, 0) <= settled
            ]
            if not idle:
                raise ActionError(SERVER_FULL, SERVER_FULL_MESSAGE)
            room = min(idle, key=lambda r: r.evict_handle.when())
            room.evict_handle.cancel()
            room.evict_handle = None
            self._evict(room.id)
            if room.id in self.rooms:  # kept (students wait in its lobby)
                raise ActionError(SERVER_FULL, SERVER_FULL_MESSAGE)

    async def allow_room(self, address: str) -> None:
        """Count one more room made for `address`, or refuse it (before any work)."""
        if not await rate_limits.hit(
            settings.PLAYGROUND_ROOMS_PER_ADDRESS, "rooms", address
        ):
            raise ActionError(
                "too_many_rooms",
                gettext_noop(
                    "too many labs were opened from your network just now; "
                    "wait a minute, then try again"
                ),
            )

    async def create(
        self,
        lab_class: type[Lab],
        seed: int,
        *,
        kind: str = RoomRecord.PRIVATE,
        parent: str = "",
        creator: str = "",
        entries: list[Entry] = (),
        history: History | None = None,
    ) -> tuple[Room, str]:
        """A new stored room with a copy of `entries`; returns it and its host secret.

        `history` is what `entries` make (a replay already done, or a copy of the
        room they come from), so nothing is replayed here. The caller counted the
        room against its address first (`allow_room`); past `PLAYGROUND_MAX_ROOMS`
        it is refused here, before anything is stored (`make_space`).
        """
        self.make_space()
        self._coming += 1
        try:
            record, secret = await asyncio.to_thread(
                store.create_room,
                lab_class.slug,
                seed,
                kind=kind,
                parent=parent,
                creator=creator,
                entries=list(entries),
            )
            if history is None:
                history = await asyncio.to_thread(
                    replayed, lab_class.slug, seed, list(entries)
                )
            room = Room(record, list(entries), history)
        finally:
            self._coming -= 1
        self._hold(room)
        await room.relay.connect()
        await room.store_checkpoints()
        return room, secret

    def _hold(self, room: Room) -> None:
        """Keep a room in memory; one nobody joins (a branch never opened, a socket
        that went away while it was being made) leaves after a grace period."""
        self.rooms[room.id] = room
        self._held_at[room.id] = asyncio.get_running_loop().time()
        memory.keep(room)
        self._idle(room, ARRIVAL_GRACE_SECONDS)
        if room.classroom is not None:
            room.classroom.schedule_end()

    def _idle(self, room: Room, seconds: float) -> None:
        loop = asyncio.get_running_loop()
        room.evict_handle = loop.call_later(seconds, self._evict, room.id)

    async def join(self, room: Room, member) -> None:
        """Add a member; an eviction waiting on an idle room is called off."""
        if room.evict_handle is not None:
            room.evict_handle.cancel()
            room.evict_handle = None
        if self.rooms.setdefault(room.id, room) is not room:
            # the grace ran out while this socket waited, and another socket loaded
            # the room again: both replicas follow the one log, so this stays right
            log.warning("room %s is held twice in this process", room.id)
        room.members.add(member)
        room.presence.soon()
        room.clock.ensure_ticking()

    async def leave(self, room: Room, member) -> None:
        """Remove a member; a room left empty is dropped after the idle time."""
        room.members.discard(member)
        room.presence.soon()
        if not room.members and room.evict_handle is None:
            self._idle(room, idle_seconds(room))

    def _evict(self, room_id: str) -> None:
        room = self.rooms.get(room_id)
        if room is not None and room.classroom is not None and room.classroom.waiters:
            # students wait in its lobby for a host: look again later
            self._idle(room, ARRIVAL_GRACE_SECONDS)
            return
        if room is not None and not room.members:
            room.clock.stop()
            if room.classroom is not None:
                room.classroom.cancel_end()
            del self.rooms[room_id]
            self._held_at.pop(room_id, None)
            asyncio.get_running_loop().create_task(room.relay.disconnect())
            memory.release(room)


def idle_seconds(room: Room) -> int:
    """How long a room stays in memory with nobody in it."""
    if room.is_class:
        return settings.PLAYGROUND_ROOM_IDLE_SECONDS
    return settings.PLAYGROUND_PRIVATE_IDLE_SECONDS


def _plausible_id(room_id) -> bool:
    return (
        isinstance(room_id, str)
        and 3 < len(room_id) <= 40
        and room_id[:2] in ("p-", "c-")
        and room_id[2:].isascii()
        and room_id[2:].isalnum()
    )


async def _build(room_id: str, address: str) -> Room | None:
    """A stored room, from its last stored checkpoint and the log after it."""
    loaded = await load_history(room_id, address)
    if loaded is None:
        return None
    record, entries, history, stored_parts = loaded
    room = Room(record, entries, history, stored_parts)
    if room.classroom is not None:
        await asyncio.to_thread(room.classroom.load)
    await asyncio.to_thread(store.touch, room_id)
    return room


registry = RoomRegistry()
