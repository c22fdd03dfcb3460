"""Rooms: one running lab, its ordered action log, and the sockets watching it.

Every accepted action gets the room's next sequence number and is stored, applied and
broadcast in that order. The database assigns the order (`playground.store.Appender`:
the room's row is locked while the next entry is written), so any number of processes
can serve one room: each holds a replica of the lab and applies the log in sequence.
With `REDIS_URL` set, each new entry also crosses the channel layer to the other
processes (one layer channel per room per process, never one per socket); a process
that sees a gap reads the missing entries from the database.

A frame is encoded once and sent as text to every member in this process. Labs run in a
worker thread, one action at a time per room, so a heavy action (a million keys) never
blocks the event loop. A frame is sent only after its entry is committed: nothing
acknowledged is ever lost, and a room that leaves memory (idle, or a killed process)
comes back from its log, to the same digest.
"""

import asyncio
import json
import logging
import os
import secrets
import time
from collections import deque
from dataclasses import dataclass, field

from django.conf import settings
from django.utils.translation import gettext_noop

from playground import store
from playground.delta import frame_body
from playground.history import History
from playground.models import RoomRecord
from playground.store import Entry
from simulators.engine.clocked import MAX_ADVANCE_MS
from simulators.engine.declaration import ActionError
from simulators.engine.lab import Lab
from simulators.labs import LABS

PROTOCOL_VERSION = 1
FRAME_BUFFER = 256  # frames kept for resuming reconnects
TICK_SECONDS = 0.1  # how often a playing room turns real time into `advance`
LEASE_MS = 2_000  # a clock lease lapses this long after its holder stops renewing it
ROSTER_SECONDS = 10  # how often a process re-announces who it serves in a room
ROSTER_STALE_SECONDS = 25  # a process silent this long is taken for dead
# Joins and leaves are announced at most this often: when a class of 200 arrives at
# once, one presence message per quarter second replaces 200 × 200 of them (measured:
# the burst of sends was most of the server's memory per connection).
PRESENCE_SECONDS = 0.25
PROCESS_ID = f"{os.getpid()}-{secrets.token_hex(4)}"
log = logging.getLogger(__name__)


def encode(message: dict) -> str:
    """Messages are compact JSON, ASCII only (a lone surrogate cannot break a send)."""
    return json.dumps(message, separators=(",", ":"))


def multi_process() -> bool:
    """Whether other processes may serve the same rooms (a Redis layer is set)."""
    return bool(settings.REDIS_URL)


@dataclass
class Control:
    """Who may act in a class: the host only, everyone, or one named student."""

    mode: str = RoomRecord.HOST_DRIVES
    driver: str = ""
    driver_name: str = ""
    version: int = 0

    def as_dict(self) -> dict:
        return {
            "mode": self.mode,
            "driver": self.driver or None,
            "driver_name": self.driver_name or None,
            "version": self.version,
        }


@dataclass
class Question:
    """The host's current question ("predict, then run")."""

    number: int
    text: str
    kind: str
    choices: list
    revealed: bool = False
    answered: int = 0
    distribution: list | None = None

    def as_dict(self, *, host: bool) -> dict:
        data = {
            "number": self.number,
            "text": self.text,
            "kind": self.kind,
            "choices": self.choices,
            "revealed": self.revealed,
        }
        if host or self.revealed:
            data["answered"] = self.answered
        if self.revealed:
            data["distribution"] = self.distribution
        return data


@dataclass
class Roster:
    """The members one process serves in a room, as it last announced them."""

    members: list = field(default_factory=list)
    seen: float = 0.0


class Room:
    """A lab replica with its action log and this process's members."""

    def __init__(self, record: RoomRecord, entries: list[Entry]) -> None:
        self.id = record.id
        self.lab_class: type[Lab] = LABS[record.lab]
        self.seed = record.seed
        self.kind = record.kind
        self.join_code = record.join_code or ""
        self.host_secret_hash = record.host_secret_hash
        self.parent = record.parent
        self.control = Control(
            record.mode, record.driver, record.driver_name, record.control_version
        )
        self.history = History(self.lab_class, self.seed)
        self.seq = 0
        self.log: list[Entry] = []
        for entry in entries:
            self._apply_entry(entry)
        self.frames: deque[tuple[int, str]] = deque(maxlen=FRAME_BUFFER)
        self.members: set = set()
        self.remote: dict[str, Roster] = {}
        self.question: Question | None = None
        self.lock = asyncio.Lock()
        self.evict_handle: asyncio.TimerHandle | None = None
        self.ticker: asyncio.Task | None = None
        self.tasks: list[asyncio.Task] = []
        self.layer = None
        self.channel = ""
        self._last_snapshot: dict | None = None
        self._presence: asyncio.TimerHandle | None = None
        self._presence_announce = False

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

    @property
    def group(self) -> str:
        return f"room-{self.id}"

    def watching(self) -> int:
        """Members in every process (remote rosters that went quiet are ignored)."""
        now = time.monotonic()
        remote = sum(
            len(r.members)
            for r in self.remote.values()
            if now - r.seen < ROSTER_STALE_SECONDS
        )
        return len(self.members) + remote

    def roster(self) -> list[dict]:
        """Everyone in the room, for the host's list: this process's, then others'."""
        now = time.monotonic()
        people = [m.profile() for m in self.members]
        for process in sorted(self.remote):
            entry = self.remote[process]
            if now - entry.seen < ROSTER_STALE_SECONDS:
                people.extend(entry.members)
        # one entry per member id: a reconnecting tab may briefly hold two sockets
        unique = {p["id"]: p for p in people}
        return sorted(
            unique.values(), key=lambda p: (p["role"] != "host", p["name"], p["id"])
        )

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
        """Store and apply one action (worker thread); the frames to send, in order."""
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
        except Exception:
            log.exception(
                "room %s failed on %r; rebuilding from its log", self.id, name
            )
            self._rebuild()
            raise ActionError(
                "internal_error",
                gettext_noop("the lab could not apply that action; nothing changed"),
            ) from None
        self.seq = entry.seq
        self.log.append(entry)
        texts.append(self._frame(entry, events))
        return texts, entry

    def _rebuild(self) -> None:
        """Replace the replica with one replayed from the stored log."""
        loaded = store.load_room(self.id)
        entries = loaded[1] if loaded else self.log
        self.history = History(self.lab_class, self.seed)
        self.seq = 0
        self.log = []
        for entry in entries:
            self._apply_entry(entry)
        self.frames.clear()
        self._last_snapshot = None

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

    def may_act(self, member) -> bool:
        """Whether `member` may change the lab now (private rooms: its owner)."""
        if member is None or not self.is_class or member.role == "host":
            return True
        if self.control.mode == RoomRecord.EVERYONE_DRIVES:
            return True
        return (
            self.control.mode == RoomRecord.STUDENT_DRIVES
            and member.member_id == self.control.driver
        )

    def refusal(self) -> ActionError:
        """Why a student may not act now."""
        if self.control.mode == RoomRecord.STUDENT_DRIVES:
            return ActionError(
                "not_your_turn",
                gettext_noop(
                    "%(name)s is driving the class now; you are watching. "
                    "Take a private branch to try things yourself."
                ),
                name=self.control.driver_name or "?",
            )
        return ActionError(
            "not_your_turn",
            gettext_noop(
                "the host is driving the class; you are watching. "
                "Take a private branch to try things yourself."
            ),
        )

    async def submit(self, name, args, ref, member=None, tick: bool = False) -> None:
        """Store, apply and broadcast an action; ActionError if refused.

        `tick` marks the room clock's own `advance`: the loop that sent it keeps
        running, so it must not start a second one.
        """
        if not self.may_act(member):
            raise self.refusal()
        actor = member.member_id if member is not None else ""
        async with self.lock:
            try:
                texts, entry = await asyncio.to_thread(
                    self._commit, name, args, ref, actor
                )
            except ActionError as error:
                for text in getattr(error, "catch_up", ()):
                    await self.broadcast(text)
                raise
            for text in texts:
                await self.broadcast(text)
            await self.publish(
                {
                    "type": "room.entry",
                    "seq": entry.seq,
                    "name": entry.name,
                    "args": entry.args,
                    "actor": entry.actor,
                    "ref": ref,
                }
            )
        if not tick:
            self.ensure_ticking()

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
        self.ensure_ticking()

    def _frames_for(self, entries: list[Entry]) -> list[str]:
        return [self._frame(entry, self._apply_entry(entry)) for entry in entries]

    def _fetch_and_catch_up(self) -> list[str]:
        store.fresh()
        return self._catch_up(store.entries_after(self.id, self.seq))

    # -- the room clock --------------------------------------------------------------

    def wants_ticks(self) -> bool:
        """A clocked lab that is playing with something scheduled, watched by someone.

        Time stands still while nothing is scheduled: the room sends no `advance`
        then, so an idle playing room costs nothing and logs nothing.
        """
        lab = self.lab
        return (
            bool(self.members)
            and self.history.at_end  # viewing the past: time waits for a new action
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
        logged whole milliseconds, so replaying the log reproduces every moment. With
        several processes, only the holder of the room's clock lease ticks; the
        others keep trying, and one takes over within `LEASE_MS` if the holder dies.
        """
        loop = asyncio.get_running_loop()
        last = loop.time()
        try:
            while True:
                await asyncio.sleep(TICK_SECONDS)
                if not self.wants_ticks():
                    return
                now = loop.time()
                if not await leases.hold(self.id):
                    last = now  # someone else ticks; our elapsed time is theirs
                    continue
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

    # -- messages to members -----------------------------------------------------------

    async def hello(self, member, declaration: dict) -> str:
        """The hello message for a member: the whole current state."""
        async with self.lock:
            return await asyncio.to_thread(self._hello, member, declaration)

    def _hello(self, member, declaration: dict) -> str:
        host = member.role == "host"
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
        if self.is_class:
            message["class"] = self.class_info(host=host)
        return encode(message)

    def class_info(self, *, host: bool) -> dict:
        """What a class member's page shows about the class."""
        info = {
            "code": self.join_code,
            "join_path": f"/join/{self.join_code}/",
            "control": self.control.as_dict(),
            "watching": self.watching(),
            "question": self.question.as_dict(host=host) if self.question else None,
        }
        if host:
            info["members"] = self.roster()
        return info

    async def broadcast(self, text: str, *, hosts_only: bool = False) -> None:
        """Send one encoded message to every member in this process."""
        for member in list(self.members):
            if hosts_only and member.role != "host":
                continue
            try:
                await member.send(text_data=text)
            except Exception:  # a socket that died mid-send leaves on its own
                log.debug("send to a closing socket failed", exc_info=True)

    def presence_soon(self, announce: bool = True) -> None:
        """Announce presence within `PRESENCE_SECONDS`, once for any number of calls."""
        self._presence_announce = self._presence_announce or announce
        if self._presence is not None:
            return
        loop = asyncio.get_running_loop()

        def fire() -> None:
            self._presence = None
            announce, self._presence_announce = self._presence_announce, False
            loop.create_task(self.broadcast_presence(announce))

        self._presence = loop.call_later(PRESENCE_SECONDS, fire)

    async def broadcast_presence(self, announce: bool = True) -> None:
        """Tell every member how many watch, and the hosts who they are."""
        if announce:
            await self.publish(
                {
                    "type": "room.roster",
                    "members": [m.profile() for m in self.members],
                }
            )
        watching = self.watching()
        await self.broadcast(encode({"type": "presence", "watching": watching}))
        if self.is_class and any(m.role == "host" for m in self.members):
            await self.broadcast(
                encode(
                    {
                        "type": "roster",
                        "watching": watching,
                        "members": self.roster(),
                    }
                ),
                hosts_only=True,
            )

    # -- class controls ------------------------------------------------------------

    async def set_control(self, mode: str, driver: str) -> None:
        """Store a control mode and tell everyone; the later version wins a race."""
        driver_name = ""
        if mode == RoomRecord.STUDENT_DRIVES:
            named = [p for p in self.roster() if p["id"] == driver]
            if not named:
                raise ActionError(
                    "no_such_member",
                    gettext_noop("nobody with that id is in the class"),
                    "driver",
                )
            driver_name = named[0]["name"]
        else:
            driver = ""
        version = await asyncio.to_thread(
            store.set_control, self.id, mode, driver, driver_name
        )
        await self.on_control(
            {
                "mode": mode,
                "driver": driver,
                "driver_name": driver_name,
                "version": version,
            }
        )
        await self.publish({"type": "room.control", **self.control.__dict__})

    async def on_control(self, message: dict) -> None:
        """Adopt a control mode unless a later one is already in force."""
        if message["version"] <= self.control.version:
            return
        self.control = Control(
            message["mode"],
            message["driver"],
            message["driver_name"],
            message["version"],
        )
        await self.broadcast(encode({"type": "control", **self.control.as_dict()}))

    async def ask(self, text: str, kind: str, choices: list) -> None:
        record = await asyncio.to_thread(
            store.ask, self.id, text, kind, choices, self.seq
        )
        message = {
            "number": record.number,
            "text": text,
            "kind": kind,
            "choices": choices,
        }
        await self.on_question(message)
        await self.publish({"type": "room.question", **message})

    async def on_question(self, message: dict) -> None:
        if self.question and self.question.number >= message["number"]:
            return
        self.question = Question(
            message["number"], message["text"], message["kind"], message["choices"]
        )
        await self._send_question()

    async def answer(self, member, number: int, value) -> None:
        question = self.question
        if question is None or question.number != number or question.revealed:
            raise ActionError(
                "no_open_question",
                gettext_noop("that question is not open for answers"),
                "question",
            )
        value = check_answer(question, value)
        count = await asyncio.to_thread(
            store.answer, self.id, number, member.member_id, value
        )
        await self.on_answers({"number": number, "answered": count})
        await self.publish(
            {"type": "room.answers", "number": number, "answered": count}
        )

    async def on_answers(self, message: dict) -> None:
        question = self.question
        if question is None or question.number != message["number"]:
            return
        question.answered = max(question.answered, message["answered"])
        # Only the two fields: a message from another process also carries the
        # layer's "type" and "origin", which must not reach the hosts. The count is
        # the highest seen, so counts crossing between processes never go back.
        text = encode(
            {
                "type": "answers",
                "number": question.number,
                "answered": question.answered,
            }
        )
        await self.broadcast(text, hosts_only=True)

    async def reveal(self, number: int) -> None:
        question = self.question
        if question is None or question.number != number:
            raise ActionError(
                "no_open_question",
                gettext_noop("there is no question %(number)s to reveal"),
                "question",
                number=number,
            )
        _, values = await asyncio.to_thread(store.reveal, self.id, number)
        message = {"number": number, "distribution": distribution(question, values)}
        await self.on_reveal(message)
        await self.publish({"type": "room.reveal", **message})

    async def on_reveal(self, message: dict) -> None:
        question = self.question
        if question is None or question.number != message["number"]:
            return
        question.revealed = True
        question.distribution = message["distribution"]
        question.answered = sum(row["count"] for row in message["distribution"])
        await self._send_question()

    async def _send_question(self) -> None:
        for host in (False, True):
            text = encode({"type": "question", **self.question.as_dict(host=host)})
            for member in list(self.members):
                if (member.role == "host") == host:
                    try:
                        await member.send(text_data=text)
                    except Exception:
                        log.debug("send to a closing socket failed", exc_info=True)

    # -- across processes ----------------------------------------------------------

    async def publish(self, message: dict) -> None:
        """Send a message to this room's replicas in other processes."""
        if self.layer is None:
            return
        try:
            await self.layer.group_send(self.group, {**message, "origin": PROCESS_ID})
        except Exception:
            log.exception("room %s could not reach the other processes", self.id)

    async def connect_layer(self) -> None:
        """Join the room's group on the channel layer (multi-process mode only)."""
        if not multi_process():
            return
        from channels.layers import get_channel_layer

        self.layer = get_channel_layer()
        self.channel = await self.layer.new_channel()
        await self.layer.group_add(self.group, self.channel)
        loop = asyncio.get_running_loop()
        self.tasks = [
            loop.create_task(self._listen()),
            loop.create_task(self._announce()),
        ]

    async def disconnect_layer(self) -> None:
        for task in self.tasks:
            task.cancel()
        self.tasks = []
        if self.layer is not None:
            try:
                await self.layer.group_discard(self.group, self.channel)
            except Exception:
                log.debug("group_discard failed", exc_info=True)
            self.layer = None

    async def _listen(self) -> None:
        handlers = {
            "room.entry": self.on_entry,
            "room.control": self.on_control,
            "room.question": self.on_question,
            "room.answers": self.on_answers,
            "room.reveal": self.on_reveal,
        }
        while True:
            message = await self.layer.receive(self.channel)
            origin = message.get("origin")
            if origin == PROCESS_ID:
                continue
            try:
                if message["type"] == "room.roster":
                    self.remote[origin] = Roster(message["members"], time.monotonic())
                    self.presence_soon(announce=False)
                elif message["type"] in handlers:
                    await handlers[message["type"]](message)
            except Exception:
                log.exception("room %s: bad message from %s", self.id, origin)

    async def _announce(self) -> None:
        """Re-announce this process's members, so others can tell it is alive."""
        while True:
            await asyncio.sleep(ROSTER_SECONDS)
            if self.members:
                await self.publish(
                    {
                        "type": "room.roster",
                        "members": [m.profile() for m in self.members],
                    }
                )


def check_answer(question: Question, value):
    """A student's answer, checked against the question (ActionError if unfit)."""
    if question.kind == "choice":
        if not isinstance(value, int) or isinstance(value, bool):
            raise ActionError(
                "bad_answer", gettext_noop("pick one of the choices"), "value"
            )
        if not 0 <= value < len(question.choices):
            raise ActionError(
                "bad_answer", gettext_noop("pick one of the choices"), "value"
            )
        return value
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ActionError("bad_answer", gettext_noop("answer with a number"), "value")
    if value != value or abs(value) > 1e12:  # NaN, or absurd
        raise ActionError(
            "bad_answer",
            gettext_noop("answer with a number between -10¹² and 10¹²"),
            "value",
        )
    return value


def distribution(question: Question, values: list) -> list[dict]:
    """How the class answered: a count per choice, or per distinct number."""
    if question.kind == "choice":
        counts = [0] * len(question.choices)
        for value in values:
            if isinstance(value, int) and 0 <= value < len(counts):
                counts[value] += 1
        return [{"value": i, "count": c} for i, c in enumerate(counts)]
    tally: dict = {}
    for value in values:
        tally[value] = tally.get(value, 0) + 1
    return [{"value": v, "count": tally[v]} for v in sorted(tally)]


class Leases:
    """Who ticks a room's clock. One process: always us. Several: a Redis lease."""

    # Renew our lease, or take it if nobody holds it: atomic in Redis.
    SCRIPT = """
    local holder = redis.call('get', KEYS[1])
    if holder == ARGV[1] then
      return redis.call('pexpire', KEYS[1], ARGV[2])
    end
    if not holder then
      redis.call('set', KEYS[1], ARGV[1], 'PX', ARGV[2])
      return 1
    end
    return 0
    """

    def __init__(self) -> None:
        self._redis = None
        self._script = None

    async def hold(self, room_id: str) -> bool:
        """Whether this process may tick `room_id` now (renewing its lease)."""
        if not multi_process():
            return True
        if self._redis is None:
            import redis.asyncio as redis

            self._redis = redis.from_url(settings.REDIS_URL)
            self._script = self._redis.register_script(self.SCRIPT)
        try:
            held = await self._script(
                keys=[f"playground:clock:{room_id}"], args=[PROCESS_ID, LEASE_MS]
            )
        except Exception:
            log.exception("the clock lease of room %s could not be checked", room_id)
            return False
        return bool(held)


leases = Leases()


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
                    await room.connect_layer()
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
        await room.connect_layer()
        self.rooms[room.id] = room
        return room, secret

    async def join(self, room: Room, member) -> None:
        """Add a member; an eviction waiting on an idle room is called off."""
        if room.evict_handle is not None:
            room.evict_handle.cancel()
            room.evict_handle = None
        room.members.add(member)
        room.presence_soon()
        room.ensure_ticking()

    async def leave(self, room: Room, member) -> None:
        """Remove a member; a room left empty is dropped after the idle time."""
        room.members.discard(member)
        room.presence_soon()
        if room.members:
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
            asyncio.get_running_loop().create_task(room.disconnect_layer())


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
    for question in store.questions(room_id)[-1:]:
        room.question = Question(
            question.number,
            question.text,
            question.kind,
            question.choices,
            question.revealed,
            question.answers.count(),
        )
        if question.revealed:
            values = list(question.answers.values_list("value", flat=True))
            room.question.distribution = distribution(room.question, values)
    return room


registry = RoomRegistry()
