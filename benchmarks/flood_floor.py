"""The flood benchmark's floor: a bare ASGI app under the same daphne.

It accepts any websocket, says `hello`, answers a short `action` with a `frame` carrying
its ref (so a bystander's round trip can be timed as against the playground) and
otherwise only `await receive()`s: what daphne and autobahn cost, nothing else.
Served as `benchmarks.flood_floor:application`.
"""

import json

SHORT_BYTES = 1024  # a bystander's action; flood frames are far longer and never parsed


async def application(scope, receive, send):
    """Websockets as above; any HTTP request gets a 404."""
    if scope["type"] == "http":
        await send({"type": "http.response.start", "status": 404, "headers": []})
        await send({"type": "http.response.body", "body": b""})
        return
    if scope["type"] != "websocket":
        return
    await receive()  # websocket.connect
    await send({"type": "websocket.accept"})
    await send({"type": "websocket.send", "text": '{"type":"hello"}'})
    while True:
        message = await receive()
        if message["type"] == "websocket.disconnect":
            return
        text = message.get("text") or ""
        if len(text) < SHORT_BYTES:
            ref = json.loads(text).get("ref")
            frame = json.dumps({"type": "frame", "ref": ref})
            await send({"type": "websocket.send", "text": frame})
