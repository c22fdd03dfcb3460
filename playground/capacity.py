"""What one process takes at once: websockets (`PLAYGROUND_MAX_SOCKETS`) and rooms in
memory (`PLAYGROUND_MAX_ROOMS`, playground/rooms/registry.py).

Every socket costs memory (about 50 KB, and its room's: docs/architecture.md, "Limits
and abuse"), so the sockets a process serves are capped, whatever the per-address
limits let through (an attacker with many addresses, or many IPv6 /64s, passes those).
A socket past the cap is accepted, told why (`server_full`, in its own language) and
closed with 4503, the close a page answers by trying again later, with backoff
(static/js/socket.js); it never reaches the consumer, so it costs no room and no lab.
"""

import json

from django.conf import settings
from django.utils import translation
from django.utils.translation import gettext, gettext_noop

from playground.language import of_scope

CLOSE_TRY_AGAIN = 4503  # as playground.consumers: the page tries again later
SERVER_FULL = "server_full"
SERVER_FULL_MESSAGE = gettext_noop(
    "the server is full just now; this page tries again by itself in a few seconds"
)


class SocketCap:
    """ASGI middleware: at most `PLAYGROUND_MAX_SOCKETS` websockets at once here."""

    def __init__(self, app) -> None:
        self.app = app
        self.open = 0

    async def __call__(self, scope, receive, send):
        if scope["type"] != "websocket":
            return await self.app(scope, receive, send)
        if self.open >= settings.PLAYGROUND_MAX_SOCKETS:
            return await turn_away(scope, receive, send)
        self.open += 1
        try:
            return await self.app(scope, receive, send)
        finally:
            self.open -= 1


async def turn_away(scope, receive, send) -> None:
    """Accept, say the server is full, close with 4503 (a refused handshake would
    reach the page as a bare 1006, with no reason to show)."""
    message = await receive()
    if message["type"] != "websocket.connect":
        return
    with translation.override(of_scope(scope)):
        said = gettext(SERVER_FULL_MESSAGE)
    payload = {"type": "error", "code": SERVER_FULL, "message": said, "ref": None}
    # compact JSON as rooms.encode; nothing of the rooms' is imported here (the
    # registry imports this module for the same words)
    text = json.dumps(payload, separators=(",", ":"))
    await send({"type": "websocket.accept"})
    await send({"type": "websocket.send", "text": text})
    await send({"type": "websocket.close", "code": CLOSE_TRY_AGAIN})
