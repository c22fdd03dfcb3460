"""The websocket consumer: decode, validate, hand actions to the room, send the reply.

No simulation logic lives here. Every refusal is an `error` message with a code and a
clear sentence; the room is left unchanged and the connection stays open.
"""

import json
from urllib.parse import parse_qs

from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings
from django.utils.translation import gettext

from playground.i18n import translate_declaration
from playground.rooms import Room, encode, registry
from simulators.engine.declaration import ActionError
from simulators.engine.rng import SEED_MAX
from simulators.labs import LABS

MAX_REF_LENGTH = 32
ACTION_FIELDS = {"type", "ref", "action", "args"}
CLOSE_UNKNOWN_LAB = 4404
CLOSE_BAD_REQUEST = 4400


class ProtocolError(Exception):
    """A message the protocol refuses (before any lab sees it)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class LabConsumer(AsyncWebsocketConsumer):
    """One browser view of one lab room."""

    room: Room | None = None

    async def dispatch(self, message):
        """Handle a message without Channels' per-message database clean-up.

        This consumer never touches the ORM, and the clean-up costs a thread hop per
        message (see docs/architecture.md).
        """
        handler = getattr(self, _handler_name(message["type"]), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        await handler(message)

    async def connect(self) -> None:
        """Join a new private room, or resume one after a reconnect."""
        slug = self.scope["url_route"]["kwargs"]["slug"]
        lab_class = LABS.get(slug)
        await self.accept()
        if lab_class is None:
            await self.send_error(
                "unknown_lab",
                gettext("there is no lab named %(slug)r") % {"slug": slug},
            )
            await self.close(code=CLOSE_UNKNOWN_LAB)
            return
        query = parse_qs(self.scope.get("query_string", b"").decode("latin-1"))
        room = registry.get(_first(query, "room") or "")
        if room is not None and room.slug == slug:
            if await self.resume(room, _first(query, "since")):
                return
        else:
            try:
                seed = _seed(_first(query, "seed"))
            except ProtocolError as error:
                await self.send_error(error.code, error.message)
                await self.close(code=CLOSE_BAD_REQUEST)
                return
            room = registry.create(lab_class, seed)
        await self.join(room)
        declaration = translate_declaration(lab_class.declaration())
        await self.send(text_data=await room.hello("owner", declaration))

    async def resume(self, room: Room, since_text: str | None) -> bool:
        """Send the frames missed since `since`; False when a fresh hello is needed."""
        if since_text is None or not since_text.isdigit():
            return False
        since = int(since_text)
        async with room.lock:
            missed = room.frames_since(since)
            if missed is None:
                return False
            await self.join(room)
            await self.send(
                text_data=encode(
                    {
                        "type": "resumed",
                        "room": room.id,
                        "seq": room.seq,
                        "since": since,
                    }
                )
            )
            for text in missed:
                await self.send(text_data=text)
        return True

    async def join(self, room: Room) -> None:
        """Become a member of `room`."""
        self.room = room
        await registry.join(room, self)

    async def disconnect(self, code) -> None:
        """Leave the room."""
        if self.room is not None:
            await registry.leave(self.room, self)

    async def receive(self, text_data=None, bytes_data=None) -> None:
        """Decode one client message and dispatch it by type."""
        ref = None
        try:
            message = _decode(text_data, bytes_data)
            ref = _ref(message)
            kind = message.get("type")
            if kind == "action":
                await self.on_action(message, ref)
            elif kind == "ping":
                seq = self.room.seq if self.room else 0
                await self.send(
                    text_data=encode({"type": "pong", "ref": ref, "seq": seq})
                )
            else:
                raise ProtocolError(
                    "unknown_type",
                    gettext(
                        "unknown message type %(kind)r; expected 'action' or 'ping'"
                    )
                    % {"kind": kind},
                )
        except ProtocolError as error:
            await self.send_error(error.code, error.message, ref)
        except ActionError as error:
            message = error.translated(gettext)
            await self.send_error(error.code, message, ref, error.field)

    async def on_action(self, message: dict, ref: str | None) -> None:
        """Hand a well-formed action to the room."""
        extra = sorted(k for k in message if k not in ACTION_FIELDS)
        if extra:
            raise ProtocolError(
                "unknown_field",
                gettext("an action has no field %(field)r") % {"field": extra[0]},
            )
        name = message.get("action")
        if not isinstance(name, str):
            raise ProtocolError(
                "bad_action", gettext("'action' must be the name of an action")
            )
        if "args" not in message:
            raise ProtocolError(
                "bad_args", gettext("an action needs 'args' (use {} for none)")
            )
        if self.room is None:
            raise ProtocolError("no_room", gettext("this connection has no room"))
        await self.room.submit(name, message["args"], ref)

    async def send_error(self, code, message, ref=None, field=None) -> None:
        """Send an `error` message; the connection stays open."""
        payload = {"type": "error", "code": code, "message": message, "ref": ref}
        if field:
            payload["field"] = field
        await self.send(text_data=encode(payload))


def _handler_name(message_type: str) -> str:
    name = message_type.replace(".", "_")
    if name.startswith("_"):
        raise ValueError("handler names may not start with an underscore")
    return name


def _decode(text_data: str | None, bytes_data: bytes | None) -> dict:
    if text_data is None:
        raise ProtocolError(
            "not_text", gettext("send JSON as a text frame, not binary")
        )
    limit = settings.PLAYGROUND_MAX_MESSAGE_BYTES
    if len(text_data) > limit or len(text_data.encode("utf-8")) > limit:
        raise ProtocolError(
            "too_large",
            gettext("a message may be at most %(size)s KiB") % {"size": limit // 1024},
        )
    try:
        message = json.loads(text_data)
    except ValueError:
        raise ProtocolError(
            "bad_json", gettext("the message is not valid JSON")
        ) from None
    if not isinstance(message, dict):
        raise ProtocolError("not_an_object", gettext("a message must be a JSON object"))
    return message


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


def _first(query: dict, name: str) -> str | None:
    values = query.get(name)
    return values[0] if values else None


def _seed(text: str | None) -> int:
    if text is None:
        return 0
    if not text.isdigit() or int(text) > SEED_MAX:
        raise ProtocolError(
            "bad_seed",
            gettext("seed must be a whole number from 0 to %(maximum)s")
            % {"maximum": f"{SEED_MAX:,}"},
        )
    return int(text)
