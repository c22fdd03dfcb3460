"""The floor of the fan-out benchmark: a plain `websockets` server, nothing else.

`python -m benchmarks.fanout_floor PORT FRAME_BYTES`. Rooms by `?room=`; a socket with
`&host=1` acts. Each action (JSON, decoded as the real server decodes it) becomes one
frame of FRAME_BYTES, encoded once and handed to `websockets.broadcast()` for every
socket of the room: no database, no lab, no channel layer. Its frames start like the
playground's (`{"type":"frame","seq":N,"t_ms":0,"ref":...`), so one client reads both.
"""

import asyncio
import hashlib
import json
import sys
from urllib.parse import parse_qs, urlsplit

from websockets.asyncio.server import broadcast, serve


class Room:
    def __init__(self) -> None:
        self.seq = 0
        self.sockets: set = set()
        self.digest = "0" * 16


ROOMS: dict[str, Room] = {}
FRAME_BYTES = 1500


def frame(room: Room, ref) -> str:
    """A frame of FRAME_BYTES (ASCII, so bytes equal characters)."""
    room.digest = hashlib.blake2b(str(room.seq).encode(), digest_size=8).hexdigest()
    head = json.dumps(
        {"type": "frame", "seq": room.seq, "t_ms": 0, "ref": ref, "by": "m-host"},
        separators=(",", ":"),
    )[:-1]
    tail = f',"digest":"{room.digest}"}}'
    pad = max(0, FRAME_BYTES - len(head) - len(tail) - len(',"pad":""'))
    return f'{head},"pad":"{"x" * pad}"{tail}'


async def handler(socket) -> None:
    query = parse_qs(urlsplit(socket.request.path).query)
    room = ROOMS.setdefault(query.get("room", ["r"])[0], Room())
    hello = {"type": "hello", "seq": room.seq, "digest": room.digest}
    await socket.send(json.dumps(hello, separators=(",", ":")))
    room.sockets.add(socket)
    try:
        async for text in socket:
            message = json.loads(text)
            if message.get("type") == "action" and "host" in query:
                room.seq += 1
                broadcast(room.sockets, frame(room, message.get("ref")))
    finally:
        room.sockets.discard(socket)


async def main(port: int) -> None:
    async with serve(
        handler, "127.0.0.1", port, compression=None, ping_interval=None
    ) as server:
        await server.serve_forever()


if __name__ == "__main__":
    FRAME_BYTES = int(sys.argv[2])
    asyncio.run(main(int(sys.argv[1])))
