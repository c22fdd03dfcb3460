"""The websocket consumer: decode, validate, hand messages to the room, send the reply.

No simulation logic lives here. Every refusal is an `error` message with a code and a
clear sentence; the room is left unchanged and the connection stays open (a socket
that keeps guessing a host secret is closed).
"""

import asyncio
import hashlib
import json
import logging
import re
import secrets
import unicodedata
from urllib.parse import parse_qs

from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings
from django.db import DatabaseError
from django.utils.translation import gettext, gettext_noop, ngettext

from playground import store
from playground.i18n import translate_declaration
from playground.links import LinkError, check_cost, make_link, read_link, replay_link
from playground.models import RoomRecord
from playground.rooms import Room, encode, registry
from playground.rooms.work import work
from playground.store import secret_matches
from simulators.engine.declaration import ActionError
from simulators.engine.rng import SEED_MAX
from simulators.labs import LABS

MAX_REF_LENGTH = 32
MAX_NAME_LENGTH = 40
MAX_QUESTION_LENGTH = 300
MAX_CHOICES = 8
MAX_CHOICE_LENGTH = 80
MAX_SECRET_TRIES = 5
MAX_CLASSES_PER_SOCKET = 5
EARLY_MESSAGES = 16  # kept for a socket whose room is still being opened
MAX_DEPTH = 8  # objects and lists inside a message; every message needs at most 3
SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
ACTION_FIELDS = {"type", "ref", "action", "args"}
CLOSE_UNKNOWN_LAB = 4404
CLOSE_BAD_REQUEST = 4400
CLOSE_FORBIDDEN = 4403
CLOSE_TRY_AGAIN = 4503  # the server could not open the room now; reconnect later
log = logging.getLogger(__name__)
MODES = (RoomRecord.HOST_DRIVES, RoomRecord.EVERYONE_DRIVES, RoomRecord.STUDENT_DRIVES)


class ProtocolError(Exception):
    """A message the protocol refuses (before any lab sees it)."""

    def __init__(self, code: str, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.field = field


class LabConsumer(AsyncWebsocketConsumer):
    """One browser view of one lab room: its owner, a class's host, or a student."""

    room: Room | None = None
    role = "owner"
    name = ""
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
        await handler(message)

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
        self.member_id = _member_id(_first(query, "client"))
        self.address = client_address(self.scope)
        self.secret_tries = 0
        self.classes_started = 0
        self.opening: asyncio.Task | None = None
        # messages that arrive before the first room is open wait here, in order
        self.early: list[tuple] | None = []
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
            seed = _seed(_first(query, "seed"))
            self.name = _display_name(_first(query, "name"))
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
        wanted = _first(query, "room") or ""
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
        link = _first(query, "link")
        if room is None and link is not None:
            room = await self.room_from_link(link, slug)
        if room is None:
            await registry.allow_room(self.address)
            room, _ = await registry.create(lab_class, seed)
        if room.is_class:
            self.role = "student"
            self.name = self.name or f"{gettext('Student')} {self.member_id[-3:]}"
            try:
                await room.classroom.admit(self)
            except ActionError as error:
                close = CLOSE_FORBIDDEN if error.code == "removed" else CLOSE_TRY_AGAIN
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
        if room.id == wanted and await self.resume(room, _first(query, "since")):
            return
        await self.enter(room)

    async def enter(self, room: Room) -> None:
        """Send this socket its hello, then join: nothing reaches it before hello.

        Under the room's lock, so no frame falls between the hello's state and the
        first frame this socket receives.
        """
        async with room.lock:
            text = await asyncio.to_thread(room.hello, self, self.declaration_of(room))
            await self.send(text_data=text)
            await self.join(room)

    def declaration_of(self, room: Room) -> dict:
        return translate_declaration(room.lab_class.declaration())

    async def resume(self, room: Room, since_text: str | None) -> bool:
        """Send the frames missed since `since`; False when a fresh hello is needed.

        Only a private room's owner resumes by frames: a class member gets a hello,
        since it carries their role and the class's state.
        """
        since = _whole_number(since_text)
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
                await self.send(text_data=text)
            await self.join(room)
        return True

    async def join(self, room: Room) -> None:
        """Become a member of `room`."""
        self.room = room
        await registry.join(room, self)

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
        else:
            await self.send_error(
                "busy",
                gettext("wait for the lab to open before sending more; ignored"),
            )

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
            message = _decode(text_data, bytes_data)
            ref = _ref(message)
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
        _only(message, ACTION_FIELDS)
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
        _only(message, {"type", "ref", "secret"})
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
        self.name = self.name if not self.name.startswith(gettext("Student")) else ""
        self.name = self.name or gettext("Host")
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
        _only(message, {"type", "ref", "mode", "driver"})
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

    async def on_start_class(self, message: dict, ref: str | None) -> None:
        """Start a class from this room's current moment; the host's links come back."""
        _only(message, {"type", "ref"})
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
        await registry.allow_room(self.address)
        entries, history = await self.copy_of(room)
        new, secret = await registry.create(
            room.lab_class,
            room.seed,
            kind=RoomRecord.CLASS,
            parent=room.id,
            entries=entries,
            history=history,
        )
        self.classes_started += 1
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
        _only(message, {"type", "ref"})
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
        await registry.allow_room(self.address)
        entries, history = await self.copy_of(room)
        new, _ = await registry.create(
            room.lab_class,
            room.seed,
            parent=room.id,
            creator=self.member_id,
            entries=entries,
            history=history,
        )
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
        _only(message, {"type", "ref", "text", "choices"})
        self.must_host()
        text = _text(message.get("text"), MAX_QUESTION_LENGTH, "text")
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
            choices = [_text(c, MAX_CHOICE_LENGTH, "choices") for c in choices]
            kind = "choice"
        await self.room.classroom.ask(text, kind, choices)

    async def on_remove_member(self, message: dict, ref: str | None) -> None:
        """The host removes a member: their answers go and they cannot come back."""
        _only(message, {"type", "ref", "member"})
        self.must_host()
        member = message.get("member")
        if not isinstance(member, str) or not _plausible_member(member):
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

    async def on_answer(self, message: dict, ref: str | None) -> None:
        _only(message, {"type", "ref", "question", "value"})
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
        _only(message, {"type", "ref", "question"})
        self.must_host()
        number = message.get("question")
        if not isinstance(number, int) or isinstance(number, bool):
            raise ProtocolError(
                "bad_question", gettext("question must be its number"), "question"
            )
        await self.room.classroom.reveal(number)

    async def on_get_link(self, message: dict, ref: str | None) -> None:
        """The link of this room's history, or of an earlier branch (by its id)."""
        _only(message, {"type", "ref", "fork"})
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
        units = await asyncio.to_thread(check_cost, found, steps)
        await registry.allow_room(self.address)
        entries, history = await work.replay(
            self.address, units, replay_link, found, seed, steps, cursor
        )
        room, _ = await registry.create(
            LABS[found], seed, entries=entries, history=history
        )
        return room

    async def on_open_link(self, message: dict, ref: str | None) -> None:
        """Leave this room for a new private one rebuilt from a link (in the
        background: the socket may go away meanwhile, cancelling the replay)."""
        _only(message, {"type", "ref", "link"})
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

    async def copy_of(self, room: Room) -> tuple[list, object]:
        """The room's log and a copy of its history, for a new room to start from.

        Copying costs about what making the lab costs (its state is pickled), so a
        big lab is copied in the heavy lane.
        """
        async with room.lock:
            units = room.history.state_cost()
            history = await work.act(self.address, units, room.history.copy)
            return list(room.log), history

    def must_host(self) -> None:
        """Refuse what only the host of a class that is still on may do."""
        if self.role != "host":
            raise ProtocolError(
                "not_host", gettext("only the class's host can do that")
            )
        self.room.classroom.check_open()

    async def dismiss(self, error: ActionError, close_code: int) -> None:
        """Send this socket away, saying why (the host removed it, the class ended)."""
        await self.refuse(error.code, error.translated(gettext), close_code)

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
    "start_class": LabConsumer.on_start_class,
    "branch": LabConsumer.on_branch,
    "ask": LabConsumer.on_ask,
    "answer": LabConsumer.on_answer,
    "reveal": LabConsumer.on_reveal,
    "remove_member": LabConsumer.on_remove_member,
    "get_link": LabConsumer.on_get_link,
    "open_link": LabConsumer.on_open_link,
}


def shareable_link(
    slug: str, seed: int, actions: list, cursor: int
) -> tuple[str, bool]:
    """The link of a branch at its cursor, and whether what lies after the cursor was
    left out to keep it within what a link may cost (ProtocolError if even the moment
    itself would cost more)."""
    trimmed = False
    for kept in (actions, actions[:cursor]):
        link = make_link(slug, seed, kept, cursor)
        try:
            check_cost(slug, read_link(link)[2])
            return link, trimmed
        except LinkError as error:
            refusal = error
            trimmed = True
    raise ProtocolError(
        "link_too_heavy",
        gettext(
            "this moment would take about %(seconds)s s of work to open from a link; "
            "a link may take at most %(most)s s, so it cannot be shared as one"
        )
        % refusal.params,
        "fork",
    )


def _handler_name(message_type: str) -> str:
    name = message_type.replace(".", "_")
    if name.startswith("_"):
        raise ValueError("handler names may not start with an underscore")
    return name


def _only(message: dict, fields: set) -> None:
    extra = sorted(k for k in message if k not in fields)
    if extra:
        raise ProtocolError(
            "unknown_field",
            gettext("a %(kind)s message has no field %(field)r")
            % {"kind": message.get("type"), "field": extra[0]},
        )


def _decode(text_data: str | None, bytes_data: bytes | None) -> dict:
    if text_data is None:
        raise ProtocolError(
            "not_text", gettext("send JSON as a text frame, not binary")
        )
    limit = settings.PLAYGROUND_MAX_MESSAGE_BYTES
    if len(text_data) > limit or len(text_data.encode("utf-8", "replace")) > limit:
        raise ProtocolError(
            "too_large",
            gettext("a message may be at most %(size)s KiB") % {"size": limit // 1024},
        )
    try:
        message = json.loads(text_data)
    except RecursionError:
        raise _too_deep() from None
    except ValueError:  # not JSON, or a number of more than 4,300 digits
        raise ProtocolError(
            "bad_json", gettext("the message is not valid JSON")
        ) from None
    if not isinstance(message, dict):
        raise ProtocolError("not_an_object", gettext("a message must be a JSON object"))
    if (
        "\\u0000" in text_data
        or SURROGATE_ESCAPE.search(text_data)
        or text_data.count("[") + text_data.count("{") > MAX_DEPTH
    ):
        _check_tree(message)  # only then can it fail: most messages skip the walk
    return message


def _check_tree(value, depth: int = 0) -> None:
    """Refuse what no message needs and what the database cannot store: nesting
    deeper than `MAX_DEPTH`, U+0000 and broken characters in any text (keys too)."""
    if depth > MAX_DEPTH:
        raise _too_deep()
    if isinstance(value, str):
        if "\x00" in value or not _encodable(value):
            raise ProtocolError(
                "bad_text",
                gettext("text in a message may not hold U+0000 or broken characters"),
            )
    elif isinstance(value, dict):
        for key, item in value.items():
            _check_tree(key, depth + 1)
            _check_tree(item, depth + 1)
    elif isinstance(value, list):
        for item in value:
            _check_tree(item, depth + 1)


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate ("\ud800") arrives through JSON
        return False
    return True


def _too_deep() -> ProtocolError:
    return ProtocolError(
        "too_deep",
        gettext("a message may nest objects and lists at most %(most)s deep")
        % {"most": MAX_DEPTH},
    )


def _ref(message: dict) -> str | None:
    ref = message.get("ref")
    if ref is None:
        return None
    if not isinstance(ref, str) or len(ref) > MAX_REF_LENGTH or not ref.isprintable():
        raise ProtocolError(
            "bad_ref",
            gettext("'ref' must be text of at most %(size)s characters")
            % {"size": MAX_REF_LENGTH},
        )
    return ref


def _text(value, most: int, field: str) -> str:
    """Short printable text (a question, a choice): trimmed, never empty."""
    if not isinstance(value, str):
        raise ProtocolError(
            "bad_text", gettext("%(field)s must be text") % {"field": field}, field
        )
    value = unicodedata.normalize("NFC", value).strip()
    if not value or len(value) > most or not value.isprintable():
        raise ProtocolError(
            "bad_text",
            gettext("%(field)s must be 1 to %(most)s printable characters")
            % {"field": field, "most": most},
            field,
        )
    if any(0xD800 <= ord(c) <= 0xDFFF for c in value):
        raise ProtocolError(
            "bad_text", gettext("%(field)s has a broken character") % {"field": field}
        )
    return value


def _display_name(text: str | None) -> str:
    """A display name from the address: short printable text, shown as text only."""
    if text is None or not text.strip():
        return ""
    try:
        return _text(text, MAX_NAME_LENGTH, "name")
    except ProtocolError:
        raise ProtocolError(
            "bad_name",
            gettext("a display name is 1 to %(most)s printable characters")
            % {"most": MAX_NAME_LENGTH},
            "name",
        ) from None


def _member_id(client: str | None) -> str:
    """A member's id: stable across reconnects when the page sends its `client` token.

    The token is a random string the page keeps for the tab; the id is a hash of it, so
    the ids the host sees never reveal a token. Without one, a fresh random id.
    """
    if (
        isinstance(client, str)
        and 16 <= len(client) <= 64
        and all(c.isascii() and (c.isalnum() or c in "-_") for c in client)
    ):
        return "m-" + hashlib.sha256(client.encode("ascii")).hexdigest()[:12]
    return f"m-{secrets.token_hex(6)}"


def client_address(scope: dict) -> str:
    """The client's network address, which the per-address limits count by.

    Behind a proxy, run daphne with --proxy-headers so this is the client's own
    address (from X-Forwarded-For), not the proxy's.
    """
    client = scope.get("client")
    return str(client[0]) if client else "unknown"


def _plausible_member(member_id: str) -> bool:
    """The shape of the ids `_member_id` gives ("m-" and 12 hex digits)."""
    return (
        len(member_id) == 14
        and member_id.startswith("m-")
        and all(c in "0123456789abcdef" for c in member_id[2:])
    )


def _first(query: dict, name: str) -> str | None:
    values = query.get(name)
    return values[0] if values else None


def _whole_number(text: str | None, most_digits: int = 18) -> int | None:
    """A whole number written in ASCII digits, or None ("²" and "٧" are digits to
    Python, and `int` refuses more than 4,300 of them)."""
    if text is None or not text.isascii() or not text.isdigit():
        return None
    return int(text) if len(text) <= most_digits else None


def _seed(text: str | None) -> int:
    if text is None:
        return 0
    seed = _whole_number(text)
    if seed is None or seed > SEED_MAX:
        raise ProtocolError(
            "bad_seed",
            gettext("seed must be a whole number from 0 to %(maximum)s")
            % {"maximum": f"{SEED_MAX:,}"},
        )
    return seed
