"""What goes on the wire: messages encoded once, sent to sockets that may close."""

import json
import logging

log = logging.getLogger(__name__)


def encode(message: dict) -> str:
    """Messages are compact JSON, ASCII only (a lone surrogate cannot break a send)."""
    return json.dumps(message, separators=(",", ":"))


async def send_quietly(member, text: str) -> None:
    """Send to one member; a socket that died mid-send leaves on its own."""
    try:
        await member.send(text_data=text)
    except Exception:
        log.debug("send to a closing socket failed", exc_info=True)
