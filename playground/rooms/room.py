"""A room's lab replica and its ordered action log.

Every accepted action gets the room's next sequence number and is stored, applied and
broadcast in that order. A room applies an action to its replica in memory first, under
the work meter (playground/meter.py), makes its frame, and only then appends it to the
stored log, in a short transaction (`playground.store.append`): no database lock is held
while a lab works, so one room's heavy action never holds up another room's. Actions
that wait for the room meanwhile are applied together and appended in one transaction.

Any number of processes can serve one room: each holds a replica of the lab and applies
the log in sequence. With `REDIS_URL` set, a process takes the room's writer lock in
Redis before it applies (playground/rooms/writer.py), reads what others appended since,
and each new entry also crosses the channel layer to the other processes
(`playground.rooms.relay`); a process that sees a gap reads the missing entries from the
database. An append that finds the log moved on stores nothing, and the replica is
rebuilt from the log.

A frame is encoded once and sent as text to every member in this process. Labs run in a
worker thread, so a heavy action (a million keys) never blocks the event loop. A frame
is sent only after its entry is committed: nothing acknowledged is ever lost, and a
room that leaves memory (idle, or a killed process) comes back from its log, to the
same digest.
"""

import asyncio
import functools
import logging
from collections import deque
from dataclasses import dataclass, field
from typing import Any

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
from playground.links import seconds_of
from playground.meter import WorkExceeded, meter
from playground.models import RoomRecord
from playground.rooms import memory
from playground.rooms.classes import Classroom
from playground.rooms.clock import RoomClock
from playground.rooms.presence import Presence
from playground.rooms.relay import Relay, multi_process
from playground.rooms.wire import MAX_MESSAGE_CHARS, encode, send_quietly
from playground.rooms.work import allowed, work
from playground.rooms.writer import writing
from playground.store import Entry
from simulators.engine.declaration import ActionError
from simulators.engine.lab import Lab
from simulators.labs import LABS

PROTOCOL_VERSION = 1
# the most bytes of new parts one stored checkpoint may write (a key set of about
# 60,000 keys); a room whose checkpoint needs more stores none, and loads by replay
STORED_PART_BYTES = 512 * 1024
FRAME_BUFFER = 256  # frames kept for resuming reconnects
CONFLICT_TRIES = 5  # an action another process's appends beat is tried this often
# after a conflict, a room takes the writer lock for this long, whoever it thinks
# serves it (rooms/writer.py): another process was acting before its roster came
CONTENDED_SECONDS = 30
log = logging.getLogger(__name__)


@dataclass(eq=False)
class Job:
    """An action waiting for its room, and the future its sender awaits."""

    name: Any
    args: Any
    ref: str | None
    actor: str
    address: str
    future: asyncio.Future
    conflicts: int = 0  # appends that found the log moved on (another process's)


@dataclass
class Batch:
    """What applying waiting actions came to (Room._apply_batch)."""

    texts: list[str] = field(default_factory=list)  # frames to send, in order
    # applied and framed, not yet stored: (job, entry, frame, snapshot)
    made: list[tuple[Job, Entry, str, dict]] = field(default_factory=list)
    done: list[tuple[Job, Entry]] = field(default_factory=list)  # stored
    refused: list[tuple[Job, ActionError]] = field(default_factory=list)
    waiting: list[Job] = field(default_factory=list)  # not reached: in a later batch
    # the action that left the replica half changed, and what its sender is told
    # (None: told already); the replica is rebuilt from the log
    broken: tuple[Job, ActionError | None] | None = None
    again: list[Job] = field(default_factory=list)  # to apply again, after a rebuild
    conflict: bool = False  # another process had appended first


def stopped_error(units: int) -> ActionError:
    return ActionError(
        "too_slow",
        gettext_noop(
            "that action took more than %(seconds)s s of work, far more than it "
            "declared, and was stopped; nothing changed"
        ),
        seconds=seconds_of(units),
    )


def too_large_error(chars: int) -> ActionError:
    return ActionError(
        "too_large",
        gettext_noop(
            "that would make the lab's state too large to send (%(size)s MB; at most "
            "%(most)s MB): nothing changed"
        ),
        size=f"{chars / 1e6:,.1f}",
        most=f"{MAX_MESSAGE_CHARS / 1e6:,.1f}",
    )


def internal_error() -> ActionError:
    return ActionError(
        "internal_error",
        gettext_noop("the lab could not apply that action; nothing changed"),
    )


def _refusal(error: Exception) -> ActionError:
    """What a sender is told when `error` stopped its action."""
    return error if isinstance(error, ActionError) else try_again_error()


def try_again_error() -> ActionError:
    return ActionError(
        "try_again",
        gettext_noop(
            "the server could not store that just now; nothing changed, try again"
        ),
    )


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
        self.frames = memory.FrameBuffer(
            maxlen=FRAME_BUFFER, most_bytes=settings.PLAYGROUND_FRAME_BUFFER_BYTES
        )
        self.members: set = set()
        # whoever holds it finds the room awake: a private room left unused rests
        # (its history leaves memory) and wakes from the store (rooms/memory.py)
        self.lock = memory.WakingLock(self)
        self.waiting: deque[Job] = deque()  # actions sent, not yet applied
        self.contended_until = 0.0  # the loop's time until which to lock anyway
        self.drainer: asyncio.Task | None = None
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
        """The frame of an entry already logged, kept for resuming members."""
        text, snapshot = self._make_frame(entry, events, self._last_snapshot)
        self._keep_frame(entry.seq, text, snapshot)
        return text

    def _make_frame(
        self, entry: Entry, events: list[dict], before: dict | None
    ) -> tuple[str, dict]:
        """The frame of `entry`, patched against `before` (the snapshot every member
        holds now), and the snapshot it carries."""
        snapshot = self.lab.snapshot()
        if settings.PLAYGROUND_FRAME_PATCHES:
            body = frame_body(before, snapshot, encode(snapshot))
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
        return text, snapshot

    def _keep_frame(self, seq: int, text: str, snapshot: dict) -> None:
        if settings.PLAYGROUND_FRAME_PATCHES:
            self._last_snapshot = snapshot
        self.frames.append((seq, text))

    def _catch_up(self, entries: list[Entry]) -> list[str]:
        """Apply entries other processes logged; their frames, for our members."""
        texts = []
        for entry in entries:
            if entry.seq <= self.seq:
                continue
            texts.append(self._frame(entry, self._apply_entry(entry)))
        return texts

    def _apply_batch(
        self, jobs: list["Job"], alone: bool, last: int | None = None
    ) -> "Batch":
        """Apply what other processes logged since, then the waiting actions, in
        memory, then append them to the log in one short transaction (a lane's thread,
        the room's lock held; with several processes, its writer lock too:
        playground/rooms/writer.py). One thread does it all: every hop between threads
        is a wait for the GIL, which lab work in other threads holds most of the time.

        Each action runs under the work meter (playground/meter.py) with what its
        declared cost allows, and its frame is made before it is stored, so nothing
        slow ever runs inside a database transaction. A refused action changes
        nothing and the next one goes on. An action the meter stopped, or that failed,
        may have left the replica half changed: the ones before it are stored, the rest
        wait, and the caller rebuilds the replica from the log. A heavy action found
        after the first (`alone` false) waits for a lane of its own.
        """
        # (`last`: the seq the writer lock says was appended last, when it knows)
        missed = self._missed() if multi_process() and last != self.seq else []
        batch = Batch(texts=self._catch_up(missed))
        seq, before = self.seq, self._last_snapshot
        for number, job in enumerate(jobs):
            if job.future.done():  # its socket went away before its turn
                continue
            try:
                units = self._cost(job.name, job.args)
            except ActionError as error:
                batch.refused.append((job, error))
                continue
            if not alone and work.is_heavy(units):
                batch.waiting = jobs[number:]
                break
            entry = Entry(seq + 1, job.name, job.args, job.actor, job.ref or "")
            try:
                events, text, snapshot = meter.run(
                    allowed(units), self._applied, entry, before
                )
            except ActionError as error:  # the lab refused it: nothing changed
                batch.refused.append((job, error))
                continue
            except WorkExceeded:
                log.warning(
                    "room %s: %r passed %d units and was stopped",
                    self.id,
                    job.name,
                    allowed(units),
                )
                batch.broken = (job, stopped_error(allowed(units)))
                batch.waiting = jobs[number + 1 :]
                break
            except Exception:
                log.exception("room %s failed on %r; rebuilding", self.id, job.name)
                batch.broken = (job, internal_error())
                batch.waiting = jobs[number + 1 :]
                break
            if len(text) > MAX_MESSAGE_CHARS:  # even in parts: too much to send
                batch.broken = (job, too_large_error(len(text)))
                batch.waiting = jobs[number + 1 :]
                break
            batch.made.append((job, entry, text, snapshot))
            seq, before = entry.seq, snapshot
        if batch.made:
            self._store_batch(batch)
        return batch

    def _store_batch(self, batch: "Batch") -> None:
        """Append what a batch made to the log in one short transaction, then take
        its frames as sent. When the append failed, the actions were applied here,
        stored nowhere and told to nobody: the replica is rebuilt, and they wait
        again when another process had appended first (a Conflict: at most
        `CONFLICT_TRIES` times each), or are refused (the database failed)."""
        try:
            store.append(self.id, [entry for _, entry, _, _ in batch.made], self.seq)
        except Exception as error:
            conflict = isinstance(error, store.Conflict)
            if not conflict:
                log.exception("room %s: an append failed; rebuilding", self.id)
            for job, *_ in batch.made:
                job.conflicts += conflict
                if conflict and job.conflicts < CONFLICT_TRIES:
                    batch.again.append(job)
                else:
                    batch.refused.append((job, try_again_error()))
            batch.conflict = conflict
            batch.broken = batch.broken or (batch.made[0][0], None)
            return
        for job, entry, text, snapshot in batch.made:
            self.seq = entry.seq
            self.log.append(entry)
            self._keep_frame(entry.seq, text, snapshot)
            batch.texts.append(text)
            batch.done.append((job, entry))

    def _applied(
        self, entry: Entry, before: dict | None
    ) -> tuple[list[dict], str, dict]:
        """Apply `entry` to the replica and make its frame (metered together)."""
        events = self.history.apply(entry.name, entry.args, entry)
        return (events, *self._make_frame(entry, events, before))

    async def _rebuild(self, address: str, up_to: int | None = None) -> None:
        """Replace the replica with one made from the stored log (lock held); only
        from its entries up to `up_to` when given: those this process sent frames
        for, so that the ones after come as frames (caught up, or relayed)."""
        loaded = await load_history(self.id, address, up_to)
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
            await work.checkpoints(self._save_checkpoints, unstored)

    def _save_checkpoints(self, unstored: list) -> None:
        """Store `unstored` (in one transaction), with the parts the room lacks."""
        saving, pending = [], {}

        def have(key: bytes) -> bool:
            return key in self.stored_parts or key in pending

        for seq, _position, data, parts in unstored:
            keys = tuple(key_of(part) for part in parts)
            if any(key in self.too_big for key in keys):
                continue
            new = closure(parts, have)
            if sum(map(len, new.values())) > STORED_PART_BYTES:
                # a million keys: stored once per room that loads them, it would
                # let a few rooms fill the disk; such a room loads by replay instead
                self.too_big.update(keys)
                log.info("room %s: checkpoint parts too big to store", self.id)
                continue
            saving.append((seq, data, keys, new))
            pending.update(new)
        if not saving:
            return
        try:
            store.save_checkpoints(self.id, saving)
        except DatabaseError:  # a checkpoint is a cache: the log is the room
            log.warning("room %s: checkpoints were not stored", self.id)
            return
        self.stored_parts.update(pending)

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
        """Apply, store and broadcast an action; ActionError if refused.

        The action waits its turn with the others sent to this room: light ones are
        applied together and stored in one transaction; one whose declared cost is
        heavy runs alone, in the heavy lane (playground/rooms/work.py). Returns once
        its frame went out. `tick` marks the room clock's own `advance`: the loop that
        sent it keeps running, so it must not start a second one.
        """
        if self.classroom is not None:
            self.classroom.check_open()
            self.classroom.check_may_act(member)
        job = Job(
            name,
            args,
            ref,
            member.member_id if member is not None else "",
            member.address if member is not None else "",
            asyncio.get_running_loop().create_future(),
        )
        self.waiting.append(job)
        if self.drainer is None or self.drainer.done():
            # a task of the room's own: a socket that goes away while its action is
            # being stored cancels its wait, never the storing of anyone's actions
            self.drainer = asyncio.get_running_loop().create_task(self._drain())
        await job.future
        if not tick:
            self.clock.ensure_ticking()

    async def _drain(self) -> None:
        """Apply, store and send every waiting action, batch by batch."""
        try:
            await self.lock.acquire()
        except Exception:  # it could not wake (its database unreachable)
            log.exception("room %s could not be woken", self.id)
            while self.waiting:
                job = self.waiting.popleft()
                if not job.future.done():
                    job.future.set_exception(try_again_error())
            return
        try:
            while self.waiting:
                first = self.waiting[0]
                if first.future.done():
                    self.waiting.popleft()
                    continue
                if memory.resting(self):  # its rebuild after a failed batch failed
                    try:
                        await memory.wake(self)
                    except Exception as failed:
                        log.exception("room %s could not be loaded", self.id)
                        while self.waiting:
                            job = self.waiting.popleft()
                            if not job.future.done():
                                job.future.set_exception(_refusal(failed))
                        return
                try:
                    units = self._cost(first.name, first.args)
                except Exception as error:  # refused (or a lab's bug): nothing done
                    self.waiting.popleft()
                    if not isinstance(error, ActionError):
                        log.exception("room %s: the cost of %r", self.id, first.name)
                        error = internal_error()
                    first.future.set_exception(error)
                    continue
                if work.is_heavy(units):
                    jobs = [self.waiting.popleft()]
                else:
                    most = settings.PLAYGROUND_BATCH_ACTIONS
                    jobs = [self.waiting.popleft() for _ in range(most) if self.waiting]
                try:
                    await self._run_batch(jobs, units)
                except Exception as error:  # never leave a sender waiting for ever
                    log.exception("room %s: a batch failed", self.id)
                    for job in jobs:
                        if not job.future.done():
                            job.future.set_exception(error)
        finally:
            self.lock.release()

    def let_go(self) -> bool:
        """Let go of what the room can load again from the store (its history, log,
        frames and the snapshot the next patch would be made from); False when
        something is using them now (its lock held, actions waiting, checkpoints not
        yet stored). Whoever takes its lock next wakes it (rooms/memory.py)."""
        if (
            memory.resting(self)
            or self.lock.locked()
            or self.waiting
            or self.history.unstored
        ):
            return False
        self._forget_replica()
        return True

    def _forget_replica(self) -> None:
        """Drop the replica and what was made from it: the room wakes from the store
        when its lock is next taken."""
        self.history = memory.RESTING
        self.log = []
        self.frames.clear()
        self._last_snapshot = None
        self.stored_parts = set()

    async def _run_batch(self, jobs: list["Job"], units: int) -> None:
        alone = work.is_heavy(units)
        try:
            loop = asyncio.get_running_loop()
            shared = (
                not self.relay.settled()
                or self.presence.shared()
                or loop.time() < self.contended_until
            )
            async with writing(self.id, shared) as turn:
                last = self.seq if turn.alone else turn.seq
                batch = await work.act(
                    jobs[0].address, units, self._apply_batch, jobs, alone, last
                )
                if batch.broken is None:  # else the log may hold more than we have
                    turn.appended(self.seq)
                # this process's members first, then the other processes (in order:
                # the next entry cannot be appended before the writer lock is let go)
                for text in batch.texts:
                    await self.broadcast(text)
                for _job, entry in batch.done:
                    await self.relay.publish(
                        {
                            "type": "room.entry",
                            "seq": entry.seq,
                            "name": entry.name,
                            "args": entry.args,
                            "actor": entry.actor,
                            "ref": entry.ref or None,
                        }
                    )
        except ActionError as error:  # busy: the heavy lane, or the writer lock
            for job in jobs:
                if not job.future.done():
                    job.future.set_exception(error)
            return
        self.waiting.extendleft(reversed(batch.again + batch.waiting))
        if batch.conflict:  # lock from now on, and tell the others to
            await self.on_contended({})
            await self.relay.publish({"type": "room.contended"})
        if batch.broken is not None:  # whole again before anyone hears back
            job, error = batch.broken
            # after a conflict, what the other process appended comes as frames
            try:
                await self._rebuild(job.address, self.seq if batch.conflict else None)
            except Exception as failed:
                # the replica may be half-changed by the stopped action: never act on
                # it again; it is loaded again before the next batch (or whoever
                # takes the lock next), and the senders waiting are told if it can't
                log.exception("room %s: rebuilding it failed", self.id)
                self._forget_replica()
                error = error or _refusal(failed)
            if error is not None:
                batch.refused.append((job, error))
        else:
            await self.store_checkpoints()
        for job, error in batch.refused:
            if not job.future.done():
                job.future.set_exception(error)
        for job, _entry in batch.done:
            if not job.future.done():
                job.future.set_result(None)

    def _cost(self, name, args) -> int:
        """The declared cost of an action here, with the frame it makes after;
        ActionError when it is not valid, or declares more than an action may."""
        units = self.history.cost_of(name, args) + self.history.costs.frame()
        most = settings.PLAYGROUND_ACTION_BUDGET_UNITS
        if units > most:
            raise ActionError(
                "too_heavy",
                gettext_noop(
                    "this would take about %(seconds)s s of work; one action may take "
                    "at most %(most)s s (fewer keys, or a shorter span, fit)"
                ),
                seconds=seconds_of(units),
                most=seconds_of(most),
            )
        return units

    async def on_contended(self, message: dict) -> None:
        """Another process acts in this room too (it appended, or its append found
        ours first): take the writer lock for a while, whoever the rosters name."""
        loop = asyncio.get_running_loop()
        self.contended_until = loop.time() + CONTENDED_SECONDS

    async def on_entry(self, message: dict) -> None:
        """Another process logged an entry: apply it (or catch up across a gap)."""
        await self.on_contended(message)
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
                try:  # logged, so it was valid: what it costs says which lane
                    units = self.history.cost_of(entry.name, entry.args)
                except ActionError:
                    units = 0
                texts = await work.act(
                    "", units, self._frames_for, [entry], limited=False
                )
            else:
                texts = await work.act("", 0, self._fetch_and_catch_up, limited=False)
            for text in texts:
                await self.broadcast(text)
        self.clock.ensure_ticking()

    def _frames_for(self, entries: list[Entry]) -> list[str]:
        texts = [self._frame(entry, self._apply_entry(entry)) for entry in entries]
        self.history.take_unstored()  # the process that logged them stores those
        return texts

    def _missed(self) -> list[Entry]:
        store.fresh()
        return store.entries_after(self.id, self.seq)

    def _fetch_and_catch_up(self) -> list[str]:
        return self._catch_up(self._missed())

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
    room_id: str, address: str, up_to: int | None = None
) -> tuple[RoomRecord, list[Entry], History, set[bytes]] | None:
    """A stored room, its log, the history they make and the stored parts' keys
    (with `up_to`, of the log up to that seq only).

    The log is outlined (cheap: no lab), and the lab made from the last stored
    checkpoint on the branch, with only the actions after it replayed: in the replay
    lane, on behalf of `address`, when even that is heavy (playground/rooms/work.py).
    The other stored checkpoints are read when a seek first starts from one.
    """
    loaded = await asyncio.to_thread(_stored_room, room_id)
    if loaded is None:
        return None
    record, entries, stored, parts = loaded
    if up_to is not None:
        entries = [entry for entry in entries if entry.seq <= up_to]
        stored = {seq: kept for seq, kept in stored.items() if seq <= up_to}
    fetch = functools.partial(store.checkpoint_data, room_id)
    history = await asyncio.to_thread(
        outlined, record.lab, record.seed, entries, stored, parts, fetch
    )
    units, on_branch = replay_work(history), len(history._indexes)
    history = await work.replay(address, units, materialized, history)
    history.fetch = fetch  # not sent to a worker process: set again
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
