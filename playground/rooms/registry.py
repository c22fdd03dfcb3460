"""The rooms this process holds: loaded from the database, created, and evicted.

A room nobody in this process watches leaves memory after the idle time; its log stays
in the database, and the next visitor rebuilds it.
"""

import asyncio

from django.conf import settings

from playground import store
from playground.models import RoomRecord
from playground.rooms.room import Room
from playground.store import Entry
from simulators.engine.lab import Lab
from simulators.labs import LABS


class RoomRegistry:
    """The rooms this process holds; idle ones leave memory, and return from the log."""

    def __init__(self) -> None:
        self.rooms: dict[str, Room] = {}
        self._loading: dict[str, asyncio.Lock] = {}

    def get(self, room_id: str) -> Room | None:
        """The room with this id, if this process holds it in memory."""
        return self.rooms.get(room_id)

    async def load(self, room_id: str) -> Room | None:
        """The room with this id: from memory, or rebuilt from the database."""
        room = self.rooms.get(room_id)
        if room is not None or not _plausible_id(room_id):
            return room
        lock = self._loading.setdefault(room_id, asyncio.Lock())
        async with lock:
            room = self.rooms.get(room_id)
            if room is None:
                room = await asyncio.to_thread(_build, room_id)
                if room is not None:
                    await room.relay.connect()
                    self.rooms[room_id] = room
        self._loading.pop(room_id, None)
        return room

    async def create(
        self,
        lab_class: type[Lab],
        seed: int,
        *,
        kind: str = RoomRecord.PRIVATE,
        parent: str = "",
        entries: list[Entry] = (),
    ) -> tuple[Room, str]:
        """A new stored room (a copy of `entries`); returns it and its host secret."""
        record, secret = await asyncio.to_thread(
            store.create_room,
            lab_class.slug,
            seed,
            kind=kind,
            parent=parent,
            entries=list(entries),
        )
        room = await asyncio.to_thread(Room, record, list(entries))
        await room.relay.connect()
        self.rooms[room.id] = room
        return room, secret

    async def join(self, room: Room, member) -> None:
        """Add a member; an eviction waiting on an idle room is called off."""
        if room.evict_handle is not None:
            room.evict_handle.cancel()
            room.evict_handle = None
        room.members.add(member)
        room.presence.soon()
        room.clock.ensure_ticking()

    async def leave(self, room: Room, member) -> None:
        """Remove a member; a room left empty is dropped after the idle time."""
        room.members.discard(member)
        room.presence.soon()
        if room.members:
            return
        loop = asyncio.get_running_loop()
        room.evict_handle = loop.call_later(
            settings.PLAYGROUND_ROOM_IDLE_SECONDS, self._evict, room.id
        )

    def _evict(self, room_id: str) -> None:
        room = self.rooms.get(room_id)
        if room is not None and not room.members:
            room.clock.stop()
            del self.rooms[room_id]
            asyncio.get_running_loop().create_task(room.relay.disconnect())


def _plausible_id(room_id) -> bool:
    return (
        isinstance(room_id, str)
        and 3 < len(room_id) <= 40
        and room_id[:2] in ("p-", "c-")
        and room_id[2:].isalnum()
    )


def _build(room_id: str) -> Room | None:
    loaded = store.load_room(room_id)
    if loaded is None or loaded[0].lab not in LABS:
        return None
    record, entries = loaded
    room = Room(record, entries)
    if room.classroom is not None:
        room.classroom.load_question()
    return room


registry = RoomRegistry()
