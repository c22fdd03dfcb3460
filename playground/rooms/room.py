"""A room's lab replica and its ordered action log.

Every accepted action gets the room's next sequence number and is stored, applied and
broadcast in that order. The database assigns the order (`playground.store.Appender`:
the room's row is locked while the next entry is written), so any number of processes
can serve one room: each holds a replica of the lab and applies the log in sequence.
With `REDIS_URL` set, each new entry also crosses the channel layer to the other
processes (`playground.rooms.relay`); a process that sees a gap reads the missing
entries from the database.

A frame is encoded once and sent as text to every member in this process. Labs run in a
worker thread, one action at a time per room, so a heavy action (a million keys) never
blocks the event loop. A frame is sent only after its entry is committed: nothing
acknowledged is ever lost, and a room that leaves memory (idle, or a killed process)
comes back from its log, to the same digest.
"""

import asyncio
import logging
from collections import deque

from django.conf import settings
from django.db import DatabaseError
from django.utils.translation import gettext_noop

from playground import store
from playground.checkpoints import closure, key_of
from playground.delta import frame_body
from playground.history import (
    History,
    materialized,
    outlined,
    replay_work,
    replayed,
)
from playground.models import RoomRecord
from playground.rooms.classes import Classroom
from playground.rooms.clock import RoomClock
from playground.rooms.presence import Presence
from playground.rooms.relay import Relay
from playground.rooms.wire import encode, send_quietly
from playground.rooms.work import work
from playground.store import Entry
from simulators.engine.declaration import ActionError
from simulators.engine.lab import Lab
from simulators.labs import LABS

PROTOCOL_VERSION = 1
# the most bytes of new parts one stored checkpoint may write (a key set of about
# 60,000 keys); a room whose checkpoint needs more stores none, and loads by replay
STORED_PART_BYTES = 512 * 1024
FRAME_BUFFER = 256  # frames kept for resuming reconnects
log = logging.getLogger(__name__)


class Broken(Exception):
    """Applying an action failed for a reason other than the lab's refusal."""


class Room:
    """A lab replica with its action log and this process's members."""

    def __init__(
        self,
        record: RoomRecord,
        entries: list[Entry],
        history: History | None = None,
        stored_parts: set[bytes] | None = None,
    ) -> None:
        """A room whose log is `entries`; `history` is what they made, when a
        replay elsewhere already built it (else they are replayed here);
        `stored_parts`, the keys of the checkpoint parts stored with it."""
        self.id = record.id
        self.lab_class: type[Lab] = LABS[record.lab]
        self.seed = record.seed
        self.kind = record.kind
        self.parent = record.parent
        self.history = (
            history
            if history is not None
            else replayed(record.lab, record.seed, entries)
        )
        self.log: list[Entry] = list(entries)
        self.seq = self.log[-1].seq if self.log else 0
        self.frames: deque[tuple[int, str]] = deque(maxlen=FRAME_BUFFER)
        self.members: set = set()
        self.lock = asyncio.Lock()
        self.evict_handle: asyncio.TimerHandle | None = None
        self.clock = RoomClock(self)
        self.presence = Presence(self)
        self.relay = Relay(self)
        self.classroom = Classroom(self, record) if self.is_class else None
        self._last_snapshot: dict | None = None
        self.stored_parts: set[bytes] = stored_parts or set()
        self.too_big: set[bytes] = set()  # parts not stored: STORED_PART_BYTES

    # -- what it is ------------------------------------------------------------------

    @property
    def slug(self) -> str:
        """The lab this room runs."""
        return self.lab_class.slug

    @property
    def is_class(self) -> bool:
        return self.kind == RoomRecord.CLASS

    @property
    def lab(self) -> Lab:
        """The lab at the timeline's cursor."""
        return self.history.lab

    @property
    def now_ms(self) -> int:
        """The lab's virtual time (0 for labs without a clock)."""
        return getattr(self.lab, "now_ms", 0)

    # -- the log ---------------------------------------------------------------------

    def _apply_entry(self, entry: Entry) -> list[dict]:
        """Apply a logged action (logged, so it was valid at its seq: it must apply)."""
        if entry.seq != self.seq + 1:
            raise RuntimeError(f"room {self.id}: entry {entry.seq} after {self.seq}")
        events = self.history.apply(entry.name, entry.args, entry)
        self.seq = entry.seq
        self.log.append(entry)
        return events

    def _frame(self, entry: Entry, events: list[dict]) -> str:
        snapshot = self.lab.snapshot()
        if settings.PLAYGROUND_FRAME_PATCHES:
            # the snapshot of the frame before is what every member holds now
            body = frame_body(self._last_snapshot, snapshot, encode(snapshot))
            self._last_snapshot = snapshot
        else:
            body = {"snapshot": snapshot}
        text = encode(
            {
                "type": "frame",
                "seq": entry.seq,
                "t_ms": self.now_ms,
                "ref": entry.ref or None,
                "by": entry.actor or None,
                "action": {"name": entry.name, "args": entry.args},
                "events": events,
                "timeline": self.history.as_dict(),
                **body,
                "metrics": self.lab.metrics(),
                "digest": self.lab.digest(),
            }
        )
        self.frames.append((entry.seq, text))
        return text

    def _catch_up(self, entries: list[Entry]) -> list[str]:
        """Apply entries other processes logged; their frames, for our members."""
        texts = []
        for entry in entries:
            if entry.seq <= self.seq:
                continue
            texts.append(self._frame(entry, self._apply_entry(entry)))
        return texts

    def _commit(self, name, args, ref, actor: str) -> tuple[list[str], Entry]:
        """Store and apply one action (worker thread); the frames to send, in order.

        Raises Broken when anything but the lab's refusal went wrong after the replica
        may have changed: the caller rebuilds it from the stored log.
        """
        texts: list[str] = []
        try:
            with store.Appender(self.id, self.seq) as appender:
                texts.extend(self._catch_up(appender.missed))
                entry = Entry(self.seq + 1, name, args, actor, ref or "")
                events = self.history.apply(name, args, entry)
                appender.insert(entry)
        except ActionError as error:
            error.catch_up = texts
            raise
        except Exception as error:
            log.exception(
                "room %s failed on %r; rebuilding from its log", self.id, name
            )
            raise Broken() from error
        self.seq = entry.seq
        self.log.append(entry)
        texts.append(self._frame(entry, events))
        return texts, entry

    async def _rebuild(self, address: str) -> None:
        """Replace the replica with one made from the stored log (lock held)."""
        loaded = await load_history(self.id, address)
        if loaded is None:  # the room was deleted meanwhile: replay what we hold
            entries = self.log
            history = await work.replay(
                address, 0, replayed, self.slug, self.seed, entries
            )
        else:
            _record, entries, history, self.stored_parts = loaded
        self.history = history
        self.log = list(entries)
        self.seq = self.log[-1].seq if self.log else 0
        self.frames.clear()
        self._last_snapshot = None

    async def store_checkpoints(self) -> None:
        """Store the checkpoints the history took since the last call, with the
        parts they need that the room did not have (playground/history.py)."""
        unstored = self.history.take_unstored()
        if unstored:
            await asyncio.to_thread(self._save_checkpoints, unstored)

    def _save_checkpoints(self, unstored: list) -> None:
        for seq, _position, data, parts in unstored:
            keys = tuple(key_of(part) for part in parts)
            if any(key in self.too_big for key in keys):
                continue
            new = closure(parts, self.stored_parts.__contains__)
            if sum(map(len, new.values())) > STORED_PART_BYTES:
                # a million keys: stored once per room that loads them, it would
                # let a few rooms fill the disk; such a room loads by replay instead
                self.too_big.update(keys)
                log.info("room %s: checkpoint parts too big to store", self.id)
                continue
            try:
                store.save_checkpoint(self.id, seq, data, keys, new)
            except DatabaseError:  # a checkpoint is a cache: the log is the room
                log.warning("room %s: a checkpoint was not stored", self.id)
                return
            self.stored_parts.update(new)

    def replay(self) -> Lab:
        """A fresh lab with the current branch's actions up to the cursor applied."""
        return self.history.replay()

    def frames_since(self, since: int) -> list[str] | None:
        """Frames after `since`, or None when they are no longer all buffered."""
        if since > self.seq or since < 0:
            return None
        if since == self.seq:
            return []
        if not self.frames or self.frames[0][0] > since + 1:
            return None
        return [text for seq, text in self.frames if seq > since]

    # -- acting ------------------------------------------------------------------------

    async def submit(self, name, args, ref, member=None, tick: bool = False) -> None:
        """Store, apply and broadcast an action; ActionError if refused.

        `tick` marks the room clock's own `advance`: the loop that sent it keeps
        running, so it must not start a second one. An action (or a seek) whose
        declared cost is heavy runs in the heavy lane (playground/rooms/work.py).
        """
        if self.classroom is not None:
            self.classroom.check_open()
            self.classroom.check_may_act(member)
        actor = member.member_id if member is not None else ""
        address = member.address if member is not None else ""
        async with self.lock:
            try:
                texts, entry = await work.act(
                    address,
                    self._cost(name, args),
                    self._commit,
                    name,
                    args,
                    ref,
                    actor,
                )
            except ActionError as error:
                for text in getattr(error, "catch_up", ()):
                    await self.broadcast(text)
                raise
            except Broken:
                await self._rebuild(address)
                raise ActionError(
                    "internal_error",
                    gettext_noop(
                        "the lab could not apply that action; nothing changed"
                    ),
                ) from None
            # the other processes first: they apply and send it while this one sends
            await self.relay.publish(
                {
                    "type": "room.entry",
                    "seq": entry.seq,
                    "name": entry.name,
                    "args": entry.args,
                    "actor": entry.actor,
                    "ref": ref,
                }
            )
            for text in texts:
                await self.broadcast(text)
            await self.store_checkpoints()
        if not tick:
            self.clock.ensure_ticking()

    def _cost(self, name, args) -> int:
        """The declared cost of an action here, with the frame it makes after."""
        try:
            units = self.history.cost_of(name, args)
        except ActionError:
            return 0  # refused before any work: the lab says why
        return units + self.history.costs.frame()

    async def on_entry(self, message: dict) -> None:
        """Another process logged an entry: apply it (or catch up across a gap)."""
        async with self.lock:
            seq = message["seq"]
            if seq <= self.seq:
                return
            if seq == self.seq + 1:
                entry = Entry(
                    seq,
                    message["name"],
                    message["args"],
                    message["actor"],
                    message.get("ref") or "",
                )
                texts = await asyncio.to_thread(self._frames_for, [entry])
            else:
                texts = await asyncio.to_thread(self._fetch_and_catch_up)
            for text in texts:
                await self.broadcast(text)
        self.clock.ensure_ticking()

    def _frames_for(self, entries: list[Entry]) -> list[str]:
        texts = [self._frame(entry, self._apply_entry(entry)) for entry in entries]
        self.history.take_unstored()  # the process that logged them stores those
        return texts

    def _fetch_and_catch_up(self) -> list[str]:
        store.fresh()
        return self._catch_up(store.entries_after(self.id, self.seq))

    # -- messages to members -----------------------------------------------------------

    def hello(self, member, declaration: dict) -> str:
        """The hello message for a member: the whole current state (worker thread,
        the room's lock held)."""
        snapshot = self.lab.snapshot()
        self._last_snapshot = snapshot
        message = {
            "type": "hello",
            "protocol": PROTOCOL_VERSION,
            "lab": self.slug,
            "room": self.id,
            "kind": self.kind,
            "role": member.role,
            "member": member.member_id,
            "name": member.name,
            "seq": self.seq,
            "t_ms": self.now_ms,
            "seed": self.seed,
            "declaration": declaration,
            "snapshot": snapshot,
            "metrics": self.lab.metrics(),
            "digest": self.lab.digest(),
            "timeline": self.history.as_dict(),
            "limits": {"max_message_bytes": settings.PLAYGROUND_MAX_MESSAGE_BYTES},
        }
        if self.classroom is not None:
            message["class"] = self.classroom.info(host=member.role == "host")
        return encode(message)

    async def broadcast(self, text: str, *, hosts_only: bool = False) -> None:
        """Send one encoded message to every member in this process."""
        for member in list(self.members):
            if hosts_only and member.role != "host":
                continue
            await send_quietly(member, text)


async def load_history(
    room_id: str, address: str
) -> tuple[RoomRecord, list[Entry], History, set[bytes]] | None:
    """A stored room, its log, the history they make and the stored parts' keys.

    The log is outlined (cheap: no lab), and the lab made from the last stored
    checkpoint on the branch, with only the actions after it replayed: in the replay
    lane, on behalf of `address`, when even that is heavy (playground/rooms/work.py).
    """
    loaded = await asyncio.to_thread(_stored_room, room_id)
    if loaded is None:
        return None
    record, entries, stored, parts = loaded
    history = await asyncio.to_thread(
        outlined, record.lab, record.seed, entries, stored, parts
    )
    units, on_branch = replay_work(history), len(history._indexes)
    history = await work.replay(address, units, materialized, history)
    log.info(
        "room %s loaded: %d entries, %d stored checkpoints on its branch, "
        "%d units replayed",
        room_id,
        len(entries),
        on_branch,
        units,
    )
    return record, entries, history, set(parts)


def _stored_room(room_id: str):
    loaded = store.load_room(room_id)
    if loaded is None or loaded[0].lab not in LABS:
        return None
    stored, parts = store.load_checkpoints(room_id)
    return (*loaded, stored, parts)
