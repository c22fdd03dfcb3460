"""The channel layer between the processes that serve one room.

With `REDIS_URL` set, each room holds one layer channel per process (never one per
socket) in the room's group; every new log entry, control change, question, answer
count and roster crosses it. A message a process sent to the group comes back to it
too, marked with its origin, and is skipped.
"""

import asyncio
import logging
import os
import secrets
import time

from django.conf import settings

ROSTER_SECONDS = 10  # how often a process re-announces who it serves in a room
SETTLE_SECONDS = 2.0  # after joining a room's group, others' rosters have come by then
PROCESS_ID = f"{os.getpid()}-{secrets.token_hex(4)}"
log = logging.getLogger(__name__)


def multi_process() -> bool:
    """Whether other processes may serve the same rooms (a Redis layer is set)."""
    return bool(settings.REDIS_URL)


_redis: dict = {}


def redis_client():
    """This process's asyncio Redis client (multi-process mode), made when first used:
    the clock leases and the rooms' writer locks share it."""
    if "client" not in _redis:
        import redis.asyncio as redis

        _redis["client"] = redis.from_url(settings.REDIS_URL)
    return _redis["client"]


class Relay:
    """One room's link to its replicas in other processes."""

    def __init__(self, room) -> None:
        self.room = room
        self.layer = None
        self.channel = ""
        self.tasks: list[asyncio.Task] = []

    @property
    def group(self) -> str:
        return f"room-{self.room.id}"

    async def publish(self, message: dict) -> None:
        """Send a message to this room's replicas in other processes."""
        if self.layer is None:
            return
        try:
            await self.layer.group_send(self.group, {**message, "origin": PROCESS_ID})
        except Exception:
            log.exception("room %s could not reach the other processes", self.room.id)

    async def connect(self) -> None:
        """Join the room's group on the channel layer (multi-process mode only)."""
        if not multi_process():
            return
        from channels.layers import get_channel_layer

        self.layer = get_channel_layer()
        self.connected_at = asyncio.get_running_loop().time()
        self.channel = await self.layer.new_channel()
        await self.layer.group_add(self.group, self.channel)
        loop = asyncio.get_running_loop()
        self.tasks = [
            loop.create_task(self._listen()),
            loop.create_task(self._announce()),
        ]

    def settled(self) -> bool:
        """Whether this process has listened to the room's group long enough to have
        heard every other process that serves members there (each announces them
        within a quarter second of a join, and every `ROSTER_SECONDS`)."""
        joined = getattr(self, "connected_at", None)
        return (
            joined is not None
            and asyncio.get_running_loop().time() - joined > SETTLE_SECONDS
        )

    async def disconnect(self) -> None:
        for task in self.tasks:
            task.cancel()
        self.tasks = []
        if self.layer is not None:
            try:
                await self.layer.group_discard(self.group, self.channel)
            except Exception:
                log.debug("group_discard failed", exc_info=True)
            self.layer = None

    def _handlers(self) -> dict:
        room = self.room
        handlers = {"room.entry": room.on_entry, "room.contended": room.on_contended}
        if room.classroom is not None:
            handlers.update(room.classroom.relayed())
        return handlers

    async def _listen(self) -> None:
        handlers = self._handlers()
        while True:
            message = await self.layer.receive(self.channel)
            origin = message.get("origin")
            if origin == PROCESS_ID:
                continue
            try:
                if message["type"] == "room.roster":
                    self.room.presence.remote_roster(
                        origin, message["members"], time.monotonic()
                    )
                elif message["type"] in handlers:
                    await handlers[message["type"]](message)
            except Exception:
                log.exception("room %s: bad message from %s", self.room.id, origin)

    async def _announce(self) -> None:
        """Re-announce this process's members, so others can tell it is alive."""
        while True:
            await asyncio.sleep(ROSTER_SECONDS)
            if self.room.members:
                await self.room.presence.announce()
