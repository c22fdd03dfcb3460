"""A class session: who may act (the control mode), "predict, then run" questions, and
the guided tour the host runs for everyone.

Control changes, questions and tour steps are stored and relayed to the other processes
serving the class; each carries a number (a version, a question number), and a later one
wins a race, so every process ends up showing the same.
"""

import asyncio
import time
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.utils import timezone
from django.utils.translation import gettext, gettext_noop

from playground import store
from playground.models import Member, RoomRecord
from playground.rooms.wire import encode, send_quietly
from simulators.engine.declaration import ActionError

CLOSE_REMOVED = 4403  # the host removed this member: do not come back
CLOSE_GONE = 4410  # the class has ended for good
LOBBY_RECHECK_SECONDS = 5  # a waiting student's row is read again (a relay missed)
ARRIVING_SECONDS = 10  # a student let in counts against the size until they are in


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
            data["voters"] = self.answered  # distinct members: one answer each
        return data


class Classroom:
    """The class part of a room: its code, members, control mode, current question,
    and the moment it ends for good."""

    def __init__(self, room, record: RoomRecord) -> None:
        self.room = room
        self.join_code = record.join_code or ""
        self.host_secret_hash = record.host_secret_hash
        self.closes_at = record.closes_at
        self.control = Control(
            record.mode, record.driver, record.driver_name, record.control_version
        )
        self.question: Question | None = None
        # the tour step the host shows everyone ("" for none), and its version
        self.tour_step = record.tour_step
        self.tour_version = record.tour_version
        self._end: asyncio.TimerHandle | None = None
        # who may join: the size (0: the setting), the lobby switch, their version
        self.door = Door(record.class_size, record.approval, record.door_version)
        # students of this process waiting in the lobby: id → the futures their
        # sockets wait on ("approved", "turned_away" or "removed")
        self.waiters: dict[str, list[asyncio.Future]] = {}
        self.lobby: list[dict] = []  # who waits, in every process (for the hosts)
        # the lobby's reads, numbered as asked: one asked before an approval can land
        # after the read that follows it, and must not put the approved back
        self.lobby_asked = self.lobby_read = 0
        # students let in here whose socket is not in the room yet: id → when
        self.arriving: dict[str, float] = {}

    # -- the end -------------------------------------------------------------------

    def ended(self) -> bool:
        """Whether the class hours are over (then nothing more happens in it)."""
        return self.closes_at is not None and timezone.now() >= self.closes_at

    def check_open(self) -> None:
        """Refuse anything done in a class that has ended."""
        if self.ended():
            raise ActionError(
                "class_ended",
                gettext_noop("this class session has ended; nothing more can be done"),
            )

    def schedule_end(self) -> None:
        """At the end of the class hours, send everyone away (the room is in memory)."""
        if self.closes_at is None:
            return
        loop = asyncio.get_running_loop()
        seconds = max(0.0, (self.closes_at - timezone.now()).total_seconds())
        self._end = loop.call_later(seconds, lambda: loop.create_task(self.end()))

    def cancel_end(self) -> None:
        if self._end is not None:
            self._end.cancel()
            self._end = None

    async def end(self) -> None:
        """The class is over: every member is told and their socket closed."""
        ended = ActionError(
            "class_ended",
            gettext_noop(
                "this class session has ended; open the lab again to go on alone"
            ),
        )
        for member in list(self.room.members):
            await member.dismiss(ended, CLOSE_GONE)

    # -- members -------------------------------------------------------------------

    def size(self) -> int:
        """The most members present at once (the host may change it)."""
        size = self.door.size or settings.PLAYGROUND_CLASS_SIZE
        return min(size, settings.PLAYGROUND_ROOM_MEMBER_CAP)

    def _present(self) -> int:
        """Members present in every process, and those let in here who are on their
        way in (so a burst of joins cannot overshoot the size in one process)."""
        now = time.monotonic()
        inside = {m.member_id for m in self.room.members}
        self.arriving = {
            i: t
            for i, t in self.arriving.items()
            if now - t < ARRIVING_SECONDS and i not in inside
        }
        return self.room.presence.watching() + len(self.arriving)

    async def admit(self, member) -> None:
        """Let a student in: a known member comes back, a removed one is refused; a
        new one joins while the class is under its size, and waits in the lobby for
        the host when the host approves joins or removed someone from the same
        address (ActionError when refused). The member's name is made unique."""
        fallback = gettext("Student %(id)s") % {"id": member.member_id[-3:]}
        full = self._present() >= self.size()
        state, name, flagged = await asyncio.to_thread(
            store.join_class,
            self.room.id,
            member.member_id,
            member.name,
            fallback,
            member.address,
            self.door.approval,
            full,
        )
        member.name = name
        if state == Member.REMOVED:
            raise removed_error()
        if state == Member.TURNED_AWAY:
            raise turned_away_error()
        if state == "full":
            raise ActionError(
                "class_full",
                gettext_noop(
                    "this class is full (%(size)s people); you will get in when "
                    "someone leaves, or when the host makes the class bigger"
                ),
                size=self.size(),
            )
        if state == Member.WAITING:
            await self.wait_in_lobby(member, flagged)
        self.arriving[member.member_id] = time.monotonic()

    # -- the lobby -------------------------------------------------------------------

    async def wait_in_lobby(self, member, flagged: bool) -> None:
        """Wait until the host lets this student in (ActionError if turned away)."""
        if sum(map(len, self.waiters.values())) >= settings.PLAYGROUND_LOBBY_CAP:
            await asyncio.to_thread(store.leave_lobby, self.room.id, member.member_id)
            raise ActionError(
                "lobby_full",
                gettext_noop(
                    "too many people are waiting for the host to let them in; "
                    "try again in a minute"
                ),
            )
        future = asyncio.get_running_loop().create_future()
        self.waiters.setdefault(member.member_id, []).append(future)
        reason = "flagged" if flagged else "approval"
        await send_quietly(
            member,
            encode(
                {
                    "type": "waiting",
                    "reason": reason,
                    "name": member.name,
                    "message": gettext(
                        "You are waiting for the host to let you into the class."
                    ),
                }
            ),
        )
        verdict = None
        member.waiting_in = self.room  # a host's secret lets them in (consumers.py)
        try:
            await self.lobby_changed()
            while verdict is None:
                done, _ = await asyncio.wait({future}, timeout=LOBBY_RECHECK_SECONDS)
                if done:
                    verdict = future.result()
                    continue
                status = await asyncio.to_thread(
                    store.member_status, self.room.id, member.member_id
                )
                verdict = {"known": "approved", "removed": "turned_away"}.get(status)
        finally:
            member.waiting_in = None
            futures = self.waiters.get(member.member_id, [])
            if future in futures:
                futures.remove(future)
            if not futures:
                self.waiters.pop(member.member_id, None)
            if verdict is None:  # the socket went away while it waited
                await asyncio.to_thread(
                    store.leave_lobby, self.room.id, member.member_id
                )
                await self.lobby_changed()
        if verdict == "removed":
            raise removed_error()
        if verdict != "approved":
            raise turned_away_error()

    async def lobby_changed(self, message: dict | None = None) -> None:
        """Read who waits again and show the hosts; tell the other processes (unless
        this is their word, `message`)."""
        self.lobby_asked += 1
        asked = self.lobby_asked
        lobby = await asyncio.to_thread(store.lobby, self.room.id)
        if asked > self.lobby_read:  # else a read asked for later landed first
            self.lobby, self.lobby_read = lobby, asked
            text = encode({"type": "lobby", "members": self.lobby})
            await self.room.broadcast(text, hosts_only=True)
        if message is None:
            await self.room.relay.publish({"type": "room.lobby"})

    async def approve(self, members: list[str] | None) -> list[str]:
        """The host lets waiting students in (None: all of them); the ids let in."""
        ids = await asyncio.to_thread(store.approve, self.room.id, members)
        if members is not None and not ids:
            raise ActionError(
                "no_such_member",
                gettext_noop("nobody with that id is waiting to join"),
                "member",
            )
        # the lobby is read again before anyone is let in: a host let in by the
        # secret reads it in its first message, and must not find itself there
        await self.lobby_changed()
        await self.on_approved({"members": ids})
        await self.room.relay.publish({"type": "room.approved", "members": ids})
        return ids

    async def on_approved(self, message: dict) -> None:
        if message.get("origin"):  # another process's word: read the lobby first
            await self.lobby_changed(message)
        self._answer_waiters(message["members"], "approved")

    async def turn_away(self, member_id: str) -> None:
        """The host refuses a waiting student: this id cannot come back."""
        if not await asyncio.to_thread(store.turn_away, self.room.id, member_id):
            raise ActionError(
                "no_such_member",
                gettext_noop("nobody with that id is waiting to join"),
                "member",
            )
        await self.on_turned_away({"members": [member_id]})
        await self.room.relay.publish(
            {"type": "room.turned_away", "members": [member_id]}
        )
        await self.lobby_changed()

    async def on_turned_away(self, message: dict) -> None:
        self._answer_waiters(message["members"], "turned_away")
        if message.get("origin"):
            await self.lobby_changed(message)

    def _answer_waiters(self, ids: list[str], verdict: str) -> None:
        for member_id in ids:
            for future in self.waiters.get(member_id, []):
                if not future.done():
                    future.set_result(verdict)

    async def set_door(self, size: int, approval: bool) -> None:
        """Store the class's size and lobby switch and tell every host."""
        version = await asyncio.to_thread(store.set_door, self.room.id, size, approval)
        message = {"size": size, "approval": approval, "version": version}
        await self.on_door(message)
        await self.room.relay.publish({"type": "room.door", **message})

    async def on_door(self, message: dict) -> None:
        """Adopt a size and lobby switch unless a later one is already in force."""
        if message["version"] <= self.door.version:
            return
        self.door = Door(message["size"], message["approval"], message["version"])
        text = encode({"type": "door", **self.door_info()})
        await self.room.broadcast(text, hosts_only=True)

    def door_info(self) -> dict:
        return {
            "size": self.size(),
            "approval": self.door.approval,
            "version": self.door.version,
            "most": settings.PLAYGROUND_ROOM_MEMBER_CAP,
        }

    # -- removing ----------------------------------------------------------------------

    async def remove(self, member_id: str) -> None:
        """The host removes a member: their answers go, their sockets close, their
        id cannot join again, and new members from their address wait in the lobby."""
        counts = await asyncio.to_thread(store.remove_member, self.room.id, member_id)
        if counts is None:
            raise ActionError(
                "no_such_member",
                gettext_noop("nobody with that id joined the class"),
                "member",
            )
        message = {"members": [member_id], "answered": counts}
        await self.on_removed(message)
        await self.room.relay.publish({"type": "room.removed", **message})
        await self.lobby_changed()

    async def clear_since(self, *, question: int | None, minutes: int | None) -> list:
        """The host clears a flood: every member who joined since question `question`
        opened (or in the last `minutes`) is removed with their answers; their ids."""
        since = None
        if question is not None:
            if self.question is None or self.question.number != question:
                raise ActionError(
                    "no_open_question",
                    gettext_noop("there is no question %(number)s to clear since"),
                    "question",
                    number=question,
                )
        else:
            since = timezone.now() - timedelta(minutes=minutes)
        ids, counts = await asyncio.to_thread(
            store.clear_since, self.room.id, question=question, since=since
        )
        if ids:
            message = {"members": ids, "answered": counts}
            await self.on_removed(message)
            await self.room.relay.publish({"type": "room.removed", **message})
            await self.lobby_changed()
        return ids

    async def on_removed(self, message: dict) -> None:
        ids = set(message.get("members") or [message.get("member")])
        self._answer_waiters(sorted(ids), "removed")
        for member in list(self.room.members):
            if member.member_id in ids:
                await member.dismiss(removed_error(), CLOSE_REMOVED)
        if message.get("origin"):
            await self.lobby_changed(message)
        question = self.question
        count = message["answered"].get(str(question.number)) if question else None
        if count is None and question is not None:
            count = message["answered"].get(question.number)
        if count is None:
            return
        question.answered = count
        if question.revealed:
            _, values = await asyncio.to_thread(
                store.reveal, self.room.id, question.number
            )
            question.distribution = distribution(question, values)
            await self._send_question()
        else:
            await self._send_answer_count()

    def load(self) -> None:
        """Take the last stored question and the lobby (worker thread)."""
        self.load_question()
        self.lobby = store.lobby(self.room.id)

    def load_question(self) -> None:
        """Take the last stored question (worker thread: reads the database)."""
        for stored in store.questions(self.room.id)[-1:]:
            question = Question(
                stored.number,
                stored.text,
                stored.kind,
                stored.choices,
                stored.revealed,
                stored.answers.count(),
            )
            if stored.revealed:
                values = list(stored.answers.values_list("value", flat=True))
                question.distribution = distribution(question, values)
            self.question = question

    def info(self, *, host: bool) -> dict:
        """What a class member's page shows about the class."""
        presence = self.room.presence
        info = {
            "code": self.join_code,
            "join_path": f"/join/{self.join_code}/",
            "control": self.control.as_dict(),
            "watching": presence.watching(),
            "question": self.question.as_dict(host=host) if self.question else None,
            "tour": self.tour_step or None,
        }
        if host:
            info["members"] = presence.roster()
            info["lobby"] = self.lobby
            info["door"] = self.door_info()
        return info

    def relayed(self) -> dict:
        """What this part takes from the other processes, by message type."""
        return {
            "room.control": self.on_control,
            "room.question": self.on_question,
            "room.answers": self.on_answers,
            "room.reveal": self.on_reveal,
            "room.removed": self.on_removed,
            "room.tour": self.on_tour,
            "room.lobby": self.lobby_changed,
            "room.approved": self.on_approved,
            "room.turned_away": self.on_turned_away,
            "room.door": self.on_door,
        }

    # -- who may act ---------------------------------------------------------------

    def may_act(self, member) -> bool:
        """Whether `member` may change the lab now (None: the room itself)."""
        if member is None or member.role == "host":
            return True
        if self.control.mode == RoomRecord.EVERYONE_DRIVES:
            return True
        return (
            self.control.mode == RoomRecord.STUDENT_DRIVES
            and member.member_id == self.control.driver
        )

    def check_may_act(self, member) -> None:
        """Refuse, saying why, an action of a student who may not act now."""
        if self.may_act(member):
            return
        if self.control.mode == RoomRecord.STUDENT_DRIVES:
            raise ActionError(
                "not_your_turn",
                gettext_noop(
                    "%(name)s is driving the class now; you are watching. "
                    "Take a private branch to try things yourself."
                ),
                name=self.control.driver_name or "?",
            )
        raise ActionError(
            "not_your_turn",
            gettext_noop(
                "the host is driving the class; you are watching. "
                "Take a private branch to try things yourself."
            ),
        )

    async def set_control(self, mode: str, driver: str) -> None:
        """Store a control mode and tell everyone; the later version wins a race."""
        driver_name = ""
        if mode == RoomRecord.STUDENT_DRIVES:
            named = [p for p in self.room.presence.roster() if p["id"] == driver]
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
            store.set_control, self.room.id, mode, driver, driver_name
        )
        message = {
            "mode": mode,
            "driver": driver,
            "driver_name": driver_name,
            "version": version,
        }
        await self.on_control(message)
        await self.room.relay.publish({"type": "room.control", **message})

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
        text = encode({"type": "control", **self.control.as_dict()})
        await self.room.broadcast(text)

    # -- the tour, run for everyone ---------------------------------------------------

    async def set_tour(self, step: str | None) -> None:
        """Show every member this tour step (None: end the tour for everyone)."""
        ids = [s.id for s in self.room.lab_class.tour]
        if step is not None and step not in ids:
            raise ActionError(
                "no_such_step",
                gettext_noop("this lab's tour has no step %(step)s; it has %(ids)s"),
                "step",
                step=repr(step if len(step) <= 40 else step[:40] + "…"),
                ids=", ".join(ids),
            )
        version = await asyncio.to_thread(store.set_tour, self.room.id, step or "")
        message = {"step": step or "", "version": version}
        await self.on_tour(message)
        await self.room.relay.publish({"type": "room.tour", **message})

    async def on_tour(self, message: dict) -> None:
        """Adopt a tour step unless a later one is already shown."""
        if message["version"] <= self.tour_version:
            return
        self.tour_step, self.tour_version = message["step"], message["version"]
        step, version = self.tour_step or None, self.tour_version
        text = encode({"type": "tour", "step": step, "version": version})
        await self.room.broadcast(text)

    # -- predict, then run -----------------------------------------------------------

    async def ask(self, text: str, kind: str, choices: list) -> None:
        """Open a question; who may answer it is who is in the class now."""
        voters = [person["id"] for person in self.room.presence.roster()]
        record = await asyncio.to_thread(
            store.ask, self.room.id, text, kind, choices, self.room.seq, voters
        )
        message = {
            "number": record.number,
            "text": text,
            "kind": kind,
            "choices": choices,
        }
        await self.on_question(message)
        await self.room.relay.publish({"type": "room.question", **message})

    async def on_question(self, message: dict) -> None:
        if self.question and self.question.number >= message["number"]:
            return
        self.question = Question(
            message["number"], message["text"], message["kind"], message["choices"]
        )
        await self._send_question()

    async def answer(self, member, number: int, value) -> None:
        self.check_open()
        question = self.question
        if question is None or question.number != number or question.revealed:
            raise ActionError(
                "no_open_question",
                gettext_noop("that question is not open for answers"),
                "question",
            )
        value = check_answer(question, value)
        try:
            count = await asyncio.to_thread(
                store.answer, self.room.id, number, member.member_id, value
            )
        except store.NotAVoter:
            raise ActionError(
                "not_a_voter",
                gettext_noop(
                    "you joined after this question was asked, so your answer "
                    "would not count; you can answer the next one"
                ),
                "question",
            ) from None
        if count is None:  # removed meanwhile
            raise removed_error()
        await self.on_answers({"number": number, "answered": count})
        await self.room.relay.publish(
            {"type": "room.answers", "number": number, "answered": count}
        )

    async def on_answers(self, message: dict) -> None:
        question = self.question
        if question is None or question.number != message["number"]:
            return
        # the highest count seen, so counts crossing between processes never go back
        question.answered = max(question.answered, message["answered"])
        await self._send_answer_count()

    async def _send_answer_count(self) -> None:
        # Only these fields: a message from another process also carries the layer's
        # "type" and "origin", which must not reach the hosts.
        question = self.question
        text = encode(
            {
                "type": "answers",
                "number": question.number,
                "answered": question.answered,
            }
        )
        await self.room.broadcast(text, hosts_only=True)

    async def reveal(self, number: int) -> None:
        question = self.question
        if question is None or question.number != number:
            raise ActionError(
                "no_open_question",
                gettext_noop("there is no question %(number)s to reveal"),
                "question",
                number=number,
            )
        _, values = await asyncio.to_thread(store.reveal, self.room.id, number)
        message = {"number": number, "distribution": distribution(question, values)}
        await self.on_reveal(message)
        await self.room.relay.publish({"type": "room.reveal", **message})

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
            for member in list(self.room.members):
                if (member.role == "host") == host:
                    await send_quietly(member, text)


@dataclass
class Door:
    """Who may join a class: its size (0: the setting) and whether new members wait
    in the lobby for the host's approval; a later version wins a race."""

    size: int = 0
    approval: bool = False
    version: int = 0


def removed_error() -> ActionError:
    return ActionError(
        "removed",
        gettext_noop("the host removed you from this class session"),
    )


def turned_away_error() -> ActionError:
    return ActionError(
        "turned_away",
        gettext_noop("the host did not let you into this class session"),
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
