"""What the websocket protocol accepts from a client, checked before anything uses it.

A message is decoded only when it is small, shallow and holds no text the database could
not store; every field of the socket's address and of a message has its shape checked
here. A refusal is a ProtocolError: a code and a sentence for the client, and nothing
changed (docs/protocol.md).
"""

import hashlib
import json
import re
import secrets
import unicodedata

from django.conf import settings
from django.utils.translation import gettext

from playground.addresses import limit_key
from simulators.engine.rng import SEED_MAX

MAX_REF_LENGTH = 32
MAX_NAME_LENGTH = 40
MAX_DEPTH = 8  # objects and lists inside a message; every message needs at most 3
SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


class ProtocolError(Exception):
    """A message the protocol refuses (before any lab sees it)."""

    def __init__(self, code: str, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.field = field


def only(message: dict, fields: set) -> None:
    """Refuse a field the message type does not have."""
    extra = sorted(k for k in message if k not in fields)
    if extra:
        raise ProtocolError(
            "unknown_field",
            gettext("a %(kind)s message has no field %(field)r")
            % {"kind": message.get("type"), "field": extra[0]},
        )


def decode(text_data: str | None, bytes_data: bytes | None) -> dict:
    """One client message as a dict, or the ProtocolError saying why not."""
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


def ref_of(message: dict) -> str | None:
    """The client's reference of a message (echoed in the answer), if any."""
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


def short_text(value, most: int, field: str) -> str:
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


def display_name(text: str | None) -> str:
    """A display name from the address: short printable text, shown as text only."""
    if text is None or not text.strip():
        return ""
    try:
        return short_text(text, MAX_NAME_LENGTH, "name")
    except ProtocolError:
        raise ProtocolError(
            "bad_name",
            gettext("a display name is 1 to %(most)s printable characters")
            % {"most": MAX_NAME_LENGTH},
            "name",
        ) from None


def member_id_of(client: str | None) -> str:
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
    """The key the per-address limits count this client by: its IPv4 address, or its
    IPv6 /64 (playground/addresses.py).

    Behind a proxy, run daphne with --proxy-headers so this is the client's own
    address (from X-Forwarded-For), not the proxy's.
    """
    client = scope.get("client")
    return limit_key(str(client[0]) if client else None)


def plausible_member(member_id: str) -> bool:
    """The shape of the ids `_member_id` gives ("m-" and 12 hex digits)."""
    return (
        len(member_id) == 14
        and member_id.startswith("m-")
        and all(c in "0123456789abcdef" for c in member_id[2:])
    )


def first(query: dict, name: str) -> str | None:
    """The first value of a query-string parameter."""
    values = query.get(name)
    return values[0] if values else None


def whole_number(text: str | None, most_digits: int = 18) -> int | None:
    """A whole number written in ASCII digits, or None ("²" and "٧" are digits to
    Python, and `int` refuses more than 4,300 of them)."""
    if text is None or not text.isascii() or not text.isdigit():
        return None
    return int(text) if len(text) <= most_digits else None


def seed_of(text: str | None) -> int:
    """The seed of the socket's address (0 when there is none)."""
    if text is None:
        return 0
    seed = whole_number(text)
    if seed is None or seed > SEED_MAX:
        raise ProtocolError(
            "bad_seed",
            gettext("seed must be a whole number from 0 to %(maximum)s")
            % {"maximum": f"{SEED_MAX:,}"},
        )
    return seed
