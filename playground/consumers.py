"""The websocket consumer: decode, validate, hand messages to the room, send the reply.

No simulation logic lives here. Every refusal is an `error` message with a code and a
clear sentence; the room is left unchanged and the connection stays open (a socket
that keeps guessing a host secret is closed).
"""

import asyncio
import logging
from urllib.parse import parse_qs

from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings
from django.db import DatabaseError
from django.utils import translation
from django.utils.translation import gettext, gettext_noop, ngettext

from playground import language, store
from playground.i18n import translate_declaration
from playground.inbound import OncePerSecond
from playground.links import (
    LinkError,
    check_cost,
    read_link,
    replay_link,
    shareable_link,
)
from playground.models import RoomRecord
from playground.protocol import (
    ProtocolError,
    client_address,
    decode,
    display_name,
    first,
    member_id_of,
    only,
    plausible_member,
    ref_of,
    seed_of,
    short_text,
    whole_number,
)
from playground.rooms import Room, encode, registry
from playground.rooms.door import remember as remember_code
from playground.rooms.wire import send_text
from playground.rooms.work import TooSlow, work
from playground.store import secret_matches
from simulators.engine.declaration import ActionError
from simulators.labs import LABS

MAX_QUESTION_LENGTH = 300
MAX_CHOICES = 8
MAX_CHOICE_LENGTH = 80
MAX_SECRET_TRIES = 5
MAX_CLASSES_PER_SOCKET = 5
EARLY_MESSAGES = 16  # kept for a socket whose room is still being opened
ACTION_FIELDS = {"type", "ref", "action", "args"}
CLOSE_UNKNOWN_LAB = 4404
CLOSE_BAD_REQUEST = 4400
CLOSE_FORBIDDEN = 4403
CLOSE_TRY_AGAIN = 4503  # the server could not open the room now; reconnect later
log = logging.getLogger(__name__)
MODES = (RoomRecord.HOST_DRIVES, RoomRecord.EVERYONE_DRIVES, RoomRecord.STUDENT_DRIVES)
# how a student kept out of a class is closed (else 4503, come back later: a full class)
ADMIT_CLOSES = {
    "removed": CLOSE_FORBIDDEN,
    "turned_away": CLOSE_FORBIDDEN,
    "class_ended": 4410,
}


class LabConsumer(AsyncWebsocketConsumer):
    """One browser view of one lab room: its owner, a class's host, or a student."""

    room: Room | None = None
    role = "owner"
    name = ""
    spoken: str | None = None
    made_up_name = False  # the name is ours ("Student 3f2"), not one the member gave
    # No channel-layer channel per socket: rooms hold one channel per process (see
    # playground/rooms/relay.py); an alias that names no layer makes Channels skip it
    # (measured: a channel and its receive loop per socket is memory for nothing).
    channel_layer_alias = "none: sockets use no channel layer"

    async def dispatch(self, message):
        """Handle a message without Channels' per-message database clean-up.

        This consumer touches the database only in worker threads, and the clean-up
        costs a thread hop per message (see docs/architecture.md).
        """
        handler = getattr(self, _handler_name(message["type"]), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        # every word this socket is sent is in its member's language (a task started
        # here, such as the room's opening, keeps it: tasks copy their context)
        with translation.override(self.language()):
            await handler(message)

    def language(self) -> str:
        """This socket's language: its `?lang=`, the cookie, the browser's (once)."""
        if self.spoken is None:
            self.spoken = language.of_scope(self.scope)
        return self.spoken

    def room_id(self) -> str:
        return self.room.id if self.room is not None else "-"

    def profile(self) -> dict:
        """How this member appears in the host's list."""
        return {"id": self.member_id, "name": self.name, "role": self.role}

    async def connect(self) -> None:
        """Accept, check the address, then open the room in a task of its own.

        The room is opened (found, loaded, replayed from a link) after `connect`
        returns, so that a socket that goes away meanwhile cancels the work it asked
        for: `disconnect` cancels `opening`.
        """
        query = parse_qs(self.scope.get("query_string", b"").decode("latin-1"))
        self.member_id = member_id_of(first(query, "client"))
        self.address = client_address(self.scope)
        self.secret_tries = 0
        self.classes_started = 0
        self.opening: asyncio.Task | None = None
        # messages that arrive before the first room is open wait here, in order
        self.early: list[tuple] | None = []
        self.early_dropped = 0
        self.early_warning = OncePerSecond()
        slug = self.scope["url_route"]["kwargs"]["slug"]
        lab_class = LABS.get(slug)
        await self.accept()
        if lab_class is None:
            await self.refuse(
                "unknown_lab",
                gettext("there is no lab named %(slug)r") % {"slug": slug},
                CLOSE_UNKNOWN_LAB,
            )
            return
        try:
            seed = seed_of(first(query, "seed"))
            self.name = display_name(first(query, "name"))
        except ProtocolError as error:
            await self.refuse(error.code, error.message, CLOSE_BAD_REQUEST)
            return
        self.start_opening(self.enter_first_room(query, lab_class, seed))

    def start_opening(self, work) -> None:
        """Run `work` (opening a room) as this socket's one opening task."""
        self.opening = asyncio.get_running_loop().create_task(self.opened(work))

    async def opened(self, work) -> None:
        """Await an opening; what it could not do is said, never a 1011."""
        try:
            await work
            await self.handle_early()
        except ActionError as error:  # busy, or a replay that ran far too long
            await self.refuse(error.code, error.translated(gettext), CLOSE_TRY_AGAIN)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("room %s: a socket could not be opened", self.room_id())
            await self.refuse(
                "internal_error",
                gettext("the server could not open this lab; try again"),
                CLOSE_TRY_AGAIN,
            )
        finally:
            self.opening = None
            self.early = None

    async def enter_first_room(self, query: dict, lab_class, seed: int) -> None:
        """Join a new private room, a stored one, or resume one after a reconnect."""
        slug = lab_class.slug
        wanted = first(query, "room") or ""
        room = await registry.load(wanted, self.address) if wanted else None
        if room is not None and room.slug != slug:
            room = None
        if room is not None and room.is_class and room.classroom.ended():
            await self.send_error(
                "class_ended",
                gettext(
                    "that class session has ended; this is a fresh lab of your own"
                ),
            )
            room = None
        elif room is None and wanted.startswith("c-"):
            await self.send_error(
                "no_such_room",
                gettext(
                    "that class session does not exist any more; "
                    "this is a fresh lab of your own"
                ),
            )
        link = first(query, "link")
        if room is None and link is not None:
            room = await self.room_from_link(link, slug)
        if room is None:
            await registry.allow_room(self.address)
            room, _ = await registry.create(lab_class, seed)
        if room.is_class:
            self.role = "student"
            if not self.name:  # unnamed: a name made up, in the student's language
                self.name = gettext("Student %(id)s") % {"id": self.member_id[-3:]}
                self.made_up_name = True
            self.asked_name = "" if self.made_up_name else self.name
            try:
                await room.classroom.admit(self)  # the lobby, if the host approves
            except ActionError as error:
                close = ADMIT_CLOSES.get(error.code, CLOSE_TRY_AGAIN)
                await self.refuse(error.code, error.translated(gettext), close)
                return
        if room.presence.watching() >= settings.PLAYGROUND_ROOM_MEMBER_CAP:
            await self.refuse(
                "room_full",
                gettext("this room is full (%(cap)s people); try again later")
                % {"cap": settings.PLAYGROUND_ROOM_MEMBER_CAP},
                CLOSE_FORBIDDEN,
            )
            return
        if room.id == wanted and await self.resume(room, first(query, "since")):
            return
        await self.enter(room)

    async def enter(self, room: Room) -> None:
        """Send this socket its hello, then join: nothing reaches it before hello.

        Under the room's lock, so no frame falls between the hello's state and the
        first frame this socket receives.
        """
        async with room.lock:
            text = await asyncio.to_thread(room.hello, self, self.declaration_of(room))
            await send_text(self, text)
            await self.join(room)

    def declaration_of(self, room: Room) -> dict:
        return translate_declaration(room.lab_class.declaration())

    async def resume(self, room: Room, since_text: str | None) -> bool:
        """Send the frames missed since `since`; False when a fresh hello is needed.

        Only a private room's owner resumes by frames: a class member gets a hello,
        since it carries their role and the class's state.
        """
        since = whole_number(since_text)
        if room.is_class or since is None:
            return False
        async with room.lock:
            missed = room.frames_since(since)
            if missed is None:
                return False
            await self.send(
                text_data=encode(
                    {
                        "type": "resumed",
                        "room": room.id,
                        "seq": room.seq,
                        "since": since,
                        "member": self.member_id,
                    }
                )
            )
            for text in missed:
                await send_text(self, text)
            await self.join(room)
        return True

    async def join(self, room: Room) -> None:
        """Become a member of `room`."""
        self.room = room
        await registry.join(room, self)
        if room.classroom is not None:  # in: counted as present from now on
            room.classroom.arriving.pop(self.member_id, None)

    async def disconnect(self, code) -> None:
        """Leave the room; a room still being opened for this socket is not needed."""
        if getattr(self, "opening", None) is not None:
            self.opening.cancel()
        if self.room is not None:
            await registry.leave(self.room, self)

    async def receive(self, text_data=None, bytes_data=None) -> None:
        """Handle one client message, or keep it until the first room is open."""
        if self.early is None:
            await self.handle(text_data, bytes_data)
        elif len(self.early) < EARLY_MESSAGES:
            self.early.append((text_data, bytes_data))
            await self.host_in_lobby(text_data, bytes_data)
        else:
            # dropped; said once a second with the count, as the inbox does
            self.early_dropped += 1
            if self.early_warning.ready():
                await self.send_error(
                    "busy",
                    ngettext(
                        "wait for the lab to open before sending more; "
                        "%(dropped)s message was ignored",
                        "wait for the lab to open before sending more; "
                        "%(dropped)s messages were ignored",
                        self.early_dropped,
                    )
                    % {"dropped": self.early_dropped},
                )

    async def host_in_lobby(self, text_data, bytes_data) -> None:
        """A host whose page waits in the class's lobby (a new device while the host
        approves joins) shows the secret: let them in; the claim itself is handled
        with the other early messages, once in."""
        room = getattr(self, "waiting_in", None)
        if room is None:
            return
        try:
            message = decode(text_data, bytes_data)
        except ProtocolError:
            return
        if message.get("type") == "claim_host" and secret_matches(
            message.get("secret"), room.classroom.host_secret_hash
        ):
            await room.classroom.approve([self.member_id])

    async def handle_early(self) -> None:
        """Handle the messages that came before the first room was open, in order
        (those arriving meanwhile join the end of the line)."""
        while self.early:
            await self.handle(*self.early.pop(0))
        self.early = None

    async def handle(self, text_data=None, bytes_data=None) -> None:
        """Decode one client message and dispatch it by type."""
        ref = None
        try:
            message = decode(text_data, bytes_data)
            ref = ref_of(message)
            kind = message.get("type")
            handler = HANDLERS.get(kind) if isinstance(kind, str) else None
            if handler is None:
                raise ProtocolError(
                    "unknown_type",
                    gettext("unknown message type %(kind)r; expected one of %(known)s")
                    % {"kind": kind, "known": ", ".join(sorted(HANDLERS))},
                )
            if self.room is None:
                raise ProtocolError("no_room", gettext("this connection has no room"))
            await handler(self, message, ref)
        except ProtocolError as error:
            await self.send_error(error.code, error.message, ref, error.field)
        except ActionError as error:
            text = error.translated(gettext)
            await self.send_error(error.code, text, ref, error.field)
        except DatabaseError:
            # a lock timeout or a lost database connection: nothing was stored, so
            # nothing changed; the client may simply try again
            log.exception("room %s: the database refused a message", self.room_id())
            await self.send_error(
                "try_again",
                gettext(
                    "the server could not store that just now; nothing changed, "
                    "try again"
                ),
                ref,
            )

    # -- messages -------------------------------------------------------------------

    async def on_action(self, message: dict, ref: str | None) -> None:
        """Hand a well-formed action to the room."""
        only(message, ACTION_FIELDS)
        name = message.get("action")
        if not isinstance(name, str):
            raise ProtocolError(
                "bad_action", gettext("'action' must be the name of an action")
            )
        if "args" not in message:
            raise ProtocolError(
                "bad_args", gettext("an action needs 'args' (use {} for none)")
            )
        await self.room.submit(name, message["args"], ref, member=self)

    async def on_ping(self, message: dict, ref: str | None) -> None:
        await self.send(
            text_data=encode({"type": "pong", "ref": ref, "seq": self.room.seq})
        )

    async def on_claim_host(self, message: dict, ref: str | None) -> None:
        """Become the class's host by showing its secret."""
        only(message, {"type", "ref", "secret"})
        room = self.room
        if not room.is_class:
            raise ProtocolError(
                "not_a_class", gettext("this is not a class session"), "secret"
            )
        room.classroom.check_open()
        if not secret_matches(message.get("secret"), room.classroom.host_secret_hash):
            self.secret_tries += 1
            if self.secret_tries >= MAX_SECRET_TRIES:
                await self.refuse(
                    "bad_secret",
                    gettext("too many wrong host secrets; this connection is closed"),
                    CLOSE_FORBIDDEN,
                )
                return
            raise ProtocolError(
                "bad_secret",
                gettext("that is not this class's host secret"),
                "secret",
            )
        self.role = "host"
        # the name asked for (a host may take any, "Teacher" too), reserved from now on
        asked = getattr(self, "asked_name", "")
        self.made_up_name = not asked
        self.name = await asyncio.to_thread(
            store.claim_host, room.id, self.member_id, asked or gettext("Host")
        )
        await remember_code(self.address, room.classroom.join_code)
        await self.send(
            text_data=encode(
                {
                    "type": "role",
                    "ref": ref,
                    "role": "host",
                    "class": room.classroom.info(host=True),
                }
            )
        )
        room.presence.soon()

    async def on_control(self, message: dict, ref: str | None) -> None:
        """The host chooses who drives: the host, everyone, or one student."""
        only(message, {"type", "ref", "mode", "driver"})
        self.must_host()
        mode = message.get("mode")
        if mode not in MODES:
            raise ProtocolError(
                "bad_mode",
                gettext("mode must be one of %(modes)s") % {"modes": ", ".join(MODES)},
                "mode",
            )
        driver = message.get("driver") or ""
        if not isinstance(driver, str):
            raise ProtocolError("bad_driver", gettext("driver must be a member id"))
        await self.room.classroom.set_control(mode, driver)

    async def on_tour(self, message: dict, ref: str | None) -> None:
        """The host shows everyone a step of the lab's tour, or ends it (null)."""
        only(message, {"type", "ref", "step"})
        self.must_host()
        step = message.get("step", False)
        if step is not None and not isinstance(step, str):
            raise ProtocolError(
                "bad_step",
                gettext("step must be the id of a step of this lab's tour, or null"),
                "step",
            )
        await self.room.classroom.set_tour(step)

    async def on_start_class(self, message: dict, ref: str | None) -> None:
        """Start a class from this room's current moment; the host's links come back."""
        only(message, {"type", "ref"})
        if self.classes_started >= MAX_CLASSES_PER_SOCKET:
            raise ProtocolError(
                "too_many_classes",
                gettext("this page has started enough classes; reload to start more"),
            )
        room = self.room
        if room.is_class and self.role != "host":
            raise ProtocolError(
                "not_host", gettext("only the host can start a class from here")
            )
        new, secret = await self.copy_room(room, kind=RoomRecord.CLASS)
        self.classes_started += 1
        # a class behind its teacher's network never waits in the door's line
        await remember_code(self.address, new.classroom.join_code)
        await self.send(
            text_data=encode(
                {
                    "type": "class_started",
                    "ref": ref,
                    "room": new.id,
                    "code": new.classroom.join_code,
                    "secret": secret,
                    "join_path": f"/join/{new.classroom.join_code}/",
                    "host_path": f"/labs/{new.slug}/?room={new.id}#host={secret}",
                }
            )
        )

    async def on_branch(self, message: dict, ref: str | None) -> None:
        """A private copy of the class's current moment, for this member alone."""
        only(message, {"type", "ref"})
        room = self.room
        if not room.is_class:
            raise ProtocolError(
                "not_a_class", gettext("only a class session can be branched")
            )
        room.classroom.check_open()
        made = await asyncio.to_thread(store.branches_of, room.id, self.member_id)
        most = settings.PLAYGROUND_BRANCHES_PER_MEMBER
        if made >= most:
            raise ProtocolError(
                "too_many_branches",
                ngettext(
                    "you have made %(most)s private branch of this class, the most "
                    "one person may; go on in it, or follow the class",
                    "you have made %(most)s private branches of this class, the most "
                    "one person may; go on in the last one, or follow the class",
                    most,
                )
                % {"most": most},
            )
        new, _ = await self.copy_room(room, creator=self.member_id)
        await self.send(
            text_data=encode(
                {
                    "type": "branched",
                    "ref": ref,
                    "room": new.id,
                    "parent": room.id,
                    "seq": new.seq,
                }
            )
        )

    async def on_ask(self, message: dict, ref: str | None) -> None:
        """The host asks the class to predict: choices, or a number."""
        only(message, {"type", "ref", "text", "choices"})
        self.must_host()
        text = short_text(message.get("text"), MAX_QUESTION_LENGTH, "text")
        choices = message.get("choices")
        if choices is None:
            kind, choices = "number", []
        else:
            if not isinstance(choices, list) or not 2 <= len(choices) <= MAX_CHOICES:
                raise ProtocolError(
                    "bad_choices",
                    gettext("give between 2 and %(most)s choices, or none for a number")
                    % {"most": MAX_CHOICES},
                    "choices",
                )
            choices = [short_text(c, MAX_CHOICE_LENGTH, "choices") for c in choices]
            kind = "choice"
        await self.room.classroom.ask(text, kind, choices)

    async def on_remove_member(self, message: dict, ref: str | None) -> None:
        """The host removes a member: their answers go and they cannot come back."""
        only(message, {"type", "ref", "member"})
        self.must_host()
        member = message.get("member")
        if not isinstance(member, str) or not plausible_member(member):
            raise ProtocolError(
                "bad_member", gettext("member must be a member's id"), "member"
            )
        if member == self.member_id:
            raise ProtocolError(
                "bad_member", gettext("the host cannot remove themselves"), "member"
            )
        await self.room.classroom.remove(member)
        await self.send(
            text_data=encode({"type": "removed", "ref": ref, "member": member})
        )

    # -- who joins: the class's size, the lobby, a flood cleared (host only) -----------

    async def on_door(self, message: dict, ref: str | None) -> None:
        """The host sets the class's size and whether new members wait for approval."""
        only(message, {"type", "ref", "size", "approval"})
        self.must_host()
        classroom = self.room.classroom
        size = message.get("size", classroom.size())
        most = settings.PLAYGROUND_ROOM_MEMBER_CAP
        if not isinstance(size, int) or isinstance(size, bool) or not 1 <= size <= most:
            raise ProtocolError(
                "bad_size",
                gettext("size must be a whole number from 1 to %(most)s")
                % {"most": most},
                "size",
            )
        approval = message.get("approval", classroom.door.approval)
        if not isinstance(approval, bool):
            raise ProtocolError(
                "bad_approval", gettext("approval must be true or false"), "approval"
            )
        await classroom.set_door(size, approval)

    async def on_approve(self, message: dict, ref: str | None) -> None:
        """The host lets a waiting student in (`member`), or all who wait (`all`)."""
        only(message, {"type", "ref", "member", "all"})
        self.must_host()
        if message.get("all") is True and "member" not in message:
            members = None
        elif "all" in message:
            raise ProtocolError(
                "bad_member",
                gettext("give one member's id, or all: true, not both"),
                "member",
            )
        else:
            members = [self.member_field(message)]
        ids = await self.room.classroom.approve(members)
        await self.send(
            text_data=encode({"type": "approved", "ref": ref, "members": ids})
        )

    async def on_turn_away(self, message: dict, ref: str | None) -> None:
        """The host refuses a waiting student: that id cannot come back."""
        only(message, {"type", "ref", "member"})
        self.must_host()
        member = self.member_field(message)
        await self.room.classroom.turn_away(member)
        await self.send(
            text_data=encode({"type": "turned_away", "ref": ref, "member": member})
        )

    async def on_clear(self, message: dict, ref: str | None) -> None:
        """The host removes every member who joined since question `question` opened,
        or in the last `minutes`, with their answers (a flood, at once)."""
        only(message, {"type", "ref", "question", "minutes"})
        self.must_host()
        question, minutes = message.get("question"), message.get("minutes")
        whole = [v for v in (question, minutes) if v is not None]
        most = settings.PLAYGROUND_CLASS_HOURS * 60
        if (
            len(whole) != 1
            or not isinstance(whole[0], int)
            or isinstance(whole[0], bool)
            or whole[0] < 1
            or (minutes is not None and minutes > most)
        ):
            raise ProtocolError(
                "bad_since",
                gettext(
                    "give the question whose opening to clear since, or minutes "
                    "from 1 to %(most)s (one of them)"
                )
                % {"most": most},
                "minutes" if minutes is not None else "question",
            )
        ids = await self.room.classroom.clear_since(question=question, minutes=minutes)
        await self.send(
            text_data=encode({"type": "cleared", "ref": ref, "members": ids})
        )

    def member_field(self, message: dict) -> str:
        member = message.get("member")
        if not isinstance(member, str) or not plausible_member(member):
            raise ProtocolError(
                "bad_member", gettext("member must be a member's id"), "member"
            )
        return member

    async def on_answer(self, message: dict, ref: str | None) -> None:
        only(message, {"type", "ref", "question", "value"})
        number = message.get("question")
        if not isinstance(number, int) or isinstance(number, bool):
            raise ProtocolError(
                "bad_question", gettext("question must be its number"), "question"
            )
        if not self.room.is_class:
            raise ProtocolError("not_a_class", gettext("this is not a class session"))
        await self.room.classroom.answer(self, number, message.get("value"))
        await self.send(
            text_data=encode({"type": "answered", "ref": ref, "question": number})
        )

    async def on_reveal(self, message: dict, ref: str | None) -> None:
        only(message, {"type", "ref", "question"})
        self.must_host()
        number = message.get("question")
        if not isinstance(number, int) or isinstance(number, bool):
            raise ProtocolError(
                "bad_question", gettext("question must be its number"), "question"
            )
        await self.room.classroom.reveal(number)

    async def on_get_link(self, message: dict, ref: str | None) -> None:
        """The link of this room's history, or of an earlier branch (by its id)."""
        only(message, {"type", "ref", "fork"})
        room = self.room
        fork = message.get("fork")
        async with room.lock:
            history = room.history
            if fork is None:
                actions, cursor = list(history.actions), history.cursor
            else:
                left = next(
                    (f for f in history.forks if f["id"] == fork and fork is not True),
                    None,
                )
                if left is None:
                    raise ProtocolError(
                        "no_such_fork",
                        gettext("there is no earlier branch %(fork)r") % {"fork": fork},
                        "fork",
                    )
                actions, cursor = list(left["actions"]), left["length"]
        link, trimmed = await asyncio.to_thread(
            shareable_link, room.slug, room.seed, actions, cursor
        )
        await self.send(
            text_data=encode(
                {
                    "type": "link",
                    "ref": ref,
                    "link": link,
                    "chars": len(link),
                    "fork": fork,
                    "trimmed": trimmed,
                }
            )
        )

    async def room_from_link(self, link: str, slug: str) -> Room | None:
        """A new private room rebuilt from a link in the socket's address, or None.

        Short links come this way (one hello, no throwaway room); a refused link gets
        `bad_link` with the ref "link", and the caller opens a fresh room.
        """
        try:
            return await self.replay_link(link, slug)
        except LinkError as error:
            await self.send_error("bad_link", error.translated(gettext), "link", "link")
            return None

    async def replay_link(self, link, slug: str) -> Room:
        """A new private room from a link: its cost checked first, replayed once.

        LinkError when the link is not one of this lab's, or would cost more than a
        link may; Busy when the replay lane is full.
        """
        found, seed, steps, cursor = read_link(link)
        if found != slug:
            raise LinkError("wrong_lab", gettext_noop("this link is for another lab"))
        await registry.allow_room(self.address)  # before any work, even counting
        units = await asyncio.to_thread(check_cost, found, steps)
        try:
            entries, history = await work.replay(
                self.address, units, replay_link, found, seed, steps, cursor
            )
        except TooSlow as error:  # stopped by the meter: refused, not tried again
            raise LinkError(
                "link_stopped",
                gettext_noop(
                    "opening this link took more than %(seconds)s s of work, far more "
                    "than it declared, and was stopped"
                ),
                **error.params,
            ) from None
        room, _ = await registry.create(
            LABS[found], seed, entries=entries, history=history
        )
        return room

    async def on_open_link(self, message: dict, ref: str | None) -> None:
        """Leave this room for a new private one rebuilt from a link (in the
        background: the socket may go away meanwhile, cancelling the replay)."""
        only(message, {"type", "ref", "link"})
        if self.opening is not None:
            raise ProtocolError(
                "busy_opening",
                gettext("a link is being opened already; wait for it"),
                "link",
            )
        self.start_opening(self.enter_link(message.get("link"), ref))

    async def enter_link(self, link, ref: str | None) -> None:
        """Open a link's room and move this socket there; errors keep it here."""
        try:
            room = await self.replay_link(link, self.room.slug)
        except ActionError as error:  # the link refused, or the server busy
            code = "bad_link" if isinstance(error, LinkError) else error.code
            await self.send_error(code, error.translated(gettext), ref, "link")
            return
        await registry.leave(self.room, self)
        self.role = "owner"
        await self.enter(room)

    # -- helpers --------------------------------------------------------------------

    async def copy_room(self, room: Room, **record) -> tuple[Room, str]:
        """A new stored room from `room`'s current moment (a class, or a branch),
        counted against this socket's address; returns it and its host secret.

        Copying the history costs about what making the lab costs (its state is
        pickled), so a big lab is copied in the heavy lane.
        """
        await registry.allow_room(self.address)
        async with room.lock:
            units = room.history.state_cost()
            history = await work.act(self.address, units, room.history.copy)
            entries = list(room.log)
        return await registry.create(
            room.lab_class,
            room.seed,
            parent=room.id,
            entries=entries,
            history=history,
            **record,
        )

    def must_host(self) -> None:
        """Refuse what only the host of a class that is still on may do."""
        if self.role != "host":
            raise ProtocolError(
                "not_host", gettext("only the class's host can do that")
            )
        self.room.classroom.check_open()

    async def dismiss(self, error: ActionError, close_code: int) -> None:
        """Send this socket away, saying why (the host removed it, the class ended).

        Called from another member's turn: said in this member's language."""
        with translation.override(self.language()):
            message = error.translated(gettext)
        await self.refuse(error.code, message, close_code)

    async def refuse(self, code: str, message: str, close_code: int) -> None:
        await self.send_error(code, message)
        await self.close(code=close_code)

    async def send_error(self, code, message, ref=None, field=None) -> None:
        """Send an `error` message; the connection stays open."""
        payload = {"type": "error", "code": code, "message": message, "ref": ref}
        if field:
            payload["field"] = field
        await self.send(text_data=encode(payload))


HANDLERS = {
    "action": LabConsumer.on_action,
    "ping": LabConsumer.on_ping,
    "claim_host": LabConsumer.on_claim_host,
    "control": LabConsumer.on_control,
    "tour": LabConsumer.on_tour,
    "start_class": LabConsumer.on_start_class,
    "branch": LabConsumer.on_branch,
    "ask": LabConsumer.on_ask,
    "answer": LabConsumer.on_answer,
    "reveal": LabConsumer.on_reveal,
    "remove_member": LabConsumer.on_remove_member,
    "door": LabConsumer.on_door,
    "approve": LabConsumer.on_approve,
    "turn_away": LabConsumer.on_turn_away,
    "clear": LabConsumer.on_clear,
    "get_link": LabConsumer.on_get_link,
    "open_link": LabConsumer.on_open_link,
}


def _handler_name(message_type: str) -> str:
    name = message_type.replace(".", "_")
    if name.startswith("_"):
        raise ValueError("handler names may not start with an underscore")
    return name
