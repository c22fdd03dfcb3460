"""Rooms: one running lab, its ordered action log, and the sockets watching it.

Every accepted action gets the room's next sequence number and is applied, logged and
broadcast in that order. A frame is encoded once and sent as text to every member in
this process. Labs run in a worker thread, one action at a time per room, so a heavy
action (a million keys) never blocks the event loop.
"""

import asyncio
import json
import logging
import secrets
from collections import deque
from dataclasses import dataclass

from django.conf import settings
from django.utils.translation import gettext_noop

from simulators.engine.clocked import MAX_ADVANCE_MS
from simulators.engine.declaration import ActionError
from simulators.engine.lab import Lab

PROTOCOL_VERSION = 1
FRAME_BUFFER = 256  # frames kept for resuming reconnects
TICK_SECONDS = 0.1  # how often a playing room turns real time into `advance`
log = logging.getLogger(__name__)


def encode(message: dict) -> str:
    """Messages are compact JSON, ASCII only (a lone surrogate cannot break a send)."""
    return json.dumps(message, separators=(",", ":"))


@dataclass(frozen=True)
class LogEntry:
    """One applied action."""

    seq: int
    name: str
    args: dict


class Room:
    """A lab instance with its action log and members."""

    def __init__(self, room_id: str, lab_class: type[Lab], seed: int) -> None:
        self.id = room_id
        self.lab_class = lab_class
        self.seed = seed
        self.lab = lab_class(seed=seed)
        self.seq = 0
        self.log: list[LogEntry] = []
        self.frames: deque[tuple[int, str]] = deque(maxlen=FRAME_BUFFER)
        self.members: set = set()
        self.lock = asyncio.Lock()
        self.evict_handle: asyncio.TimerHandle | None = None
        self.ticker: asyncio.Task | None = None

    @property
    def slug(self) -> str:
        """The lab this room runs."""
        return self.lab_class.slug

    async def hello(self, role: str, declaration: dict) -> str:
        """The hello message for a new member: the whole current state."""
        async with self.lock:
            return await asyncio.to_thread(self._hello, role, declaration)

    def _hello(self, role: str, declaration: dict) -> str:
        return encode(
            {
                "type": "hello",
                "protocol": PROTOCOL_VERSION,
                "lab": self.slug,
                "room": self.id,
                "role": role,
                "seq": self.seq,
                "t_ms": self.now_ms,
                "seed": self.seed,
                "declaration": declaration,
                "snapshot": self.lab.snapshot(),
                "metrics": self.lab.metrics(),
                "digest": self.lab.digest(),
                "limits": {"max_message_bytes": settings.PLAYGROUND_MAX_MESSAGE_BYTES},
            }
        )

    @property
    def now_ms(self) -> int:
        """The lab's virtual time (0 for labs without a clock)."""
        return getattr(self.lab, "now_ms", 0)

    def frames_since(self, since: int) -> list[str] | None:
        """Frames after `since`, or None when they are no longer all buffered."""
        if since > self.seq or since < 0:
            return None
        if since == self.seq:
            return []
        if not self.frames or self.frames[0][0] > since + 1:
            return None
        return [text for seq, text in self.frames if seq > since]

    async def submit(self, name, args, ref: str | None, tick: bool = False) -> None:
        """Apply an action in order and broadcast its frame; ActionError if refused.

        `tick` marks the room clock's own `advance`: the loop that sent it keeps
        running, so it must not start a second one.
        """
        async with self.lock:
            text = await asyncio.to_thread(self._apply, name, args, ref)
        await self.broadcast(text)
        if not tick:
            self.ensure_ticking()

    def wants_ticks(self) -> bool:
        """A clocked lab that is playing with something scheduled, watched by someone.

        Time stands still while nothing is scheduled: the room sends no `advance`
        then, so an idle playing room costs nothing and logs nothing.
        """
        lab = self.lab
        return (
            bool(self.members)
            and getattr(lab, "clocked", False)
            and lab.playing
            and lab.next_due_ms() is not None
        )

    def ensure_ticking(self) -> None:
        """Start the room clock if the lab needs time to move and none is running."""
        if self.ticker is None and self.wants_ticks():
            self.ticker = asyncio.get_running_loop().create_task(self._tick())

    async def _tick(self) -> None:
        """Turn real time into `advance(ms)` actions at the lab's speed.

        The wall clock lives here, in the playground: the lab only ever sees the
        logged whole milliseconds, so replaying the log reproduces every moment.
        """
        loop = asyncio.get_running_loop()
        last = loop.time()
        try:
            while True:
                await asyncio.sleep(TICK_SECONDS)
                if not self.wants_ticks():
                    return
                now = loop.time()
                ms = round((now - last) * self.lab.speed)
                last = now
                ms = min(max(ms, 1), MAX_ADVANCE_MS)
                await self.submit("advance", {"ms": ms}, None, tick=True)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("the clock of room %s stopped", self.id)
        finally:
            self.ticker = None

    def stop_ticking(self) -> None:
        """Stop the room clock (the room is leaving memory)."""
        if self.ticker is not None:
            self.ticker.cancel()
            self.ticker = None

    def _apply(self, name, args, ref: str | None) -> str:
        try:
            events = self.lab.apply(name, args)
        except ActionError:
            raise
        except Exception:
            log.exception(
                "lab %s failed on %r; rebuilding from its log", self.slug, name
            )
            self.lab = self.replay()
            raise ActionError(
                "internal_error",
                gettext_noop("the lab could not apply that action; nothing changed"),
            ) from None
        self.seq += 1
        self.log.append(LogEntry(self.seq, name, args))
        text = encode(
            {
                "type": "frame",
                "seq": self.seq,
                "t_ms": self.now_ms,
                "ref": ref,
                "action": {"name": name, "args": args},
                "events": events,
                "snapshot": self.lab.snapshot(),
                "metrics": self.lab.metrics(),
                "digest": self.lab.digest(),
            }
        )
        self.frames.append((self.seq, text))
        return text

    def replay(self) -> Lab:
        """A fresh lab with every logged action applied again, in order."""
        lab = self.lab_class(seed=self.seed)
        for entry in self.log:
            lab.apply(entry.name, entry.args)
        return lab

    async def broadcast(self, text: str) -> None:
        """Send one encoded message to every member in this process."""
        for member in list(self.members):
            try:
                await member.send(text_data=text)
            except Exception:  # a socket that died mid-send leaves on its own
                log.debug("send to a closing socket failed", exc_info=True)

    async def broadcast_presence(self) -> None:
        """Tell every member how many are watching."""
        await self.broadcast(
            encode({"type": "presence", "watching": len(self.members)})
        )


class RoomRegistry:
    """The rooms this process holds; idle ones are dropped after a while."""

    def __init__(self) -> None:
        self.rooms: dict[str, Room] = {}

    def create(self, lab_class: type[Lab], seed: int) -> Room:
        """A new private room running a fresh lab."""
        room_id = f"p-{secrets.token_hex(6)}"
        room = Room(room_id, lab_class, seed)
        self.rooms[room_id] = room
        return room

    def get(self, room_id: str) -> Room | None:
        """The room with this id, if this process still holds it."""
        return self.rooms.get(room_id)

    async def join(self, room: Room, member) -> None:
        """Add a member; an eviction waiting on an idle room is called off."""
        if room.evict_handle is not None:
            room.evict_handle.cancel()
            room.evict_handle = None
        room.members.add(member)
        await room.broadcast_presence()
        room.ensure_ticking()

    async def leave(self, room: Room, member) -> None:
        """Remove a member; a room left empty is dropped after the idle time."""
        room.members.discard(member)
        if room.members:
            await room.broadcast_presence()
            return
        loop = asyncio.get_running_loop()
        room.evict_handle = loop.call_later(
            settings.PLAYGROUND_ROOM_IDLE_SECONDS, self._evict, room.id
        )

    def _evict(self, room_id: str) -> None:
        room = self.rooms.get(room_id)
        if room is not None and not room.members:
            room.stop_ticking()
            del self.rooms[room_id]


registry = RoomRegistry()
