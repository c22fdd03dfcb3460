"""What goes on the wire: messages encoded once, sent to sockets that may close.

A websocket message may be at most 256 KiB (daphne's `--websocket-max-message-size`,
which autobahn holds outgoing messages to as well). A message longer than
`PLAYGROUND_PART_CHARS` (100,000) goes out in parts instead (`paged`): `{"type":
"part", "id", "index", "count", "text"}`, whose `text`s, joined in `index` order, are
the message (docs/protocol.md). A part's text is at most that many characters of ASCII
JSON, which escaping inside a JSON string at most doubles: every part fits. The largest
state a lab may reach is `MAX_MESSAGE_CHARS` encoded (playground/rooms/room.py refuses
an action whose frame would be longer).
"""

import functools
import itertools
import json
import logging

from django.conf import settings

log = logging.getLogger(__name__)

MAX_MESSAGE_CHARS = 4_000_000
_part_ids = itertools.count(1)


def encode(message: dict) -> str:
    """Messages are compact JSON, ASCII only (a lone surrogate cannot break a send)."""
    return json.dumps(message, separators=(",", ":"))


@functools.lru_cache(maxsize=8)
def paged(text: str) -> tuple[str, ...]:
    """The messages that carry `text`: itself, or its parts (the same parts for every
    member a room sends it to: the last few are kept)."""
    size = settings.PLAYGROUND_PART_CHARS
    if len(text) <= size:
        return (text,)
    part = next(_part_ids)
    pieces = [text[i : i + size] for i in range(0, len(text), size)]
    return tuple(
        encode(
            {
                "type": "part",
                "id": part,
                "index": index,
                "count": len(pieces),
                "text": piece,
            }
        )
        for index, piece in enumerate(pieces)
    )


async def send_text(socket, text: str) -> None:
    """Send one encoded message to one socket, in parts if it is long."""
    for message in paged(text):
        await socket.send(text_data=message)


async def send_quietly(member, text: str) -> None:
    """Send to one member; a socket that died mid-send leaves on its own."""
    try:
        await send_text(member, text)
    except Exception as error:
        if type(error).__name__ == "PayloadExceededError":  # a bug: parts always fit
            log.error("a message of %d bytes was too large to send", len(text))
        else:
            log.debug("send to a closing socket failed", exc_info=True)
