"""What goes on the wire: messages encoded once, sent to sockets that may close."""

import json
import logging

log = logging.getLogger(__name__)


def encode(message: dict) -> str:
    """Messages are compact JSON, ASCII only (a lone surrogate cannot break a send)."""
    return json.dumps(message, separators=(",", ":"))


async def send_quietly(member, text: str) -> None:
    """Send to one member; a socket that died mid-send leaves on its own.

    A message larger than daphne sends (`--websocket-max-message-size`, which
    autobahn holds outgoing messages to as well) never reaches anyone: that is a
    bug of the lab that made it, logged as an error, not a closing socket.
    """
    try:
        await member.send(text_data=text)
    except Exception as error:
        if type(error).__name__ == "PayloadExceededError":
            log.error("a message of %d bytes was too large to send", len(text))
        else:
            log.debug("send to a closing socket failed", exc_info=True)
