"""A class session: who may act (the control mode), "predict, then run" questions, and
the guided tour the host runs for everyone.

Control changes, questions and tour steps are stored and relayed to the other processes
serving the class; each carries a number (a version, a question number), and a later one
wins a race, so every process ends up showing the same.
"""

import asyncio
from dataclasses import dataclass

from django.conf import settings
from django.utils import timezone
from django.utils.translation import gettext_noop

from playground import store
from playground.models import RoomRecord
from playground.ratelimits import rate_limits
from playground.rooms.wire import encode, send_quietly
from simulators.engine.declaration import ActionError

CLOSE_REMOVED = 4403  # the host removed this member: do not come back
CLOSE_GONE = 4410  # the class has ended for good


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

    async def admit(self, member) -> None:
        """Let a student in: a known member comes back, a removed one is refused, and
        new ones count against what their address may add (ActionError if over)."""
        room_id = self.room.id
        status = await asyncio.to_thread(store.member_status, room_id, member.member_id)
        if status == "removed":
            raise removed_error()
        if status == "known":
            return
        rules = settings.PLAYGROUND_NEW_MEMBERS_PER_ADDRESS
        if not await rate_limits.hit(rules, "new-member", room_id, member.address):
            raise ActionError(
                "too_many_members",
                gettext_noop(
                    "too many new people joined this class from your network just "
                    "now; try again in a minute"
                ),
            )
        await asyncio.to_thread(
            store.add_member, room_id, member.member_id, member.name
        )

    async def remove(self, member_id: str) -> None:
        """The host removes a member: their answers go, their sockets close, and
        their id cannot join again."""
        counts = await asyncio.to_thread(store.remove_member, self.room.id, member_id)
        if counts is None:
            raise ActionError(
                "no_such_member",
                gettext_noop("nobody with that id joined the class"),
                "member",
            )
        message = {"member": member_id, "answered": counts}
        await self.on_removed(message)
        await self.room.relay.publish({"type": "room.removed", **message})

    async def on_removed(self, message: dict) -> None:
        for member in list(self.room.members):
            if member.member_id == message["member"]:
                await member.dismiss(removed_error(), CLOSE_REMOVED)
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
        record = await asyncio.to_thread(
            store.ask, self.room.id, text, kind, choices, self.room.seq
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
        count = await asyncio.to_thread(
            store.answer, self.room.id, number, member.member_id, value
        )
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


def removed_error() -> ActionError:
    return ActionError(
        "removed",
        gettext_noop("the host removed you from this class session"),
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
