"""Sockets and rooms past what one process takes, and many addresses of one IPv6 /64
(issue 29, item 4), against a live daphne.

Before: no cap on sockets or rooms (about 0.55 MB each: 2 GB passed at about 3,050
sockets, from 153 addresses of a few IPv6 /64s), so every socket got a room and a
`hello` until the machine ran out; and each IPv6 address counted apart, so one host
with a /64 passed for as many clients as it liked.
"""

import asyncio
import json
import time

from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from playground.liveserver import LiveSocket

TRY_AGAIN = 4503


async def hello(socket: LiveSocket) -> dict:
    return await socket.next("hello", timeout=30)


async def refused(server, path_query: dict | None = None, **headers) -> tuple:
    """Open a socket that should be turned away: (its error, its close code)."""
    ws = await connect(
        server.ws_url("quorum", **(path_query or {})),
        additional_headers={"Origin": server.origin, **headers},
        open_timeout=10,
    )
    error = None
    try:
        async with asyncio.timeout(20):
            while True:
                message = json.loads(await ws.recv())
                if message["type"] == "error" and message.get("ref") is None:
                    error = error or message
                if message["type"] == "hello":
                    return message, None  # let in: not turned away
    except ConnectionClosed:
        pass
    finally:
        await ws.close()
    return error, ws.close_code


async def test_past_the_room_cap_and_the_socket_cap_a_socket_is_told_and_closed(
    serve, bystander
):
    server = serve(PLAYGROUND_MAX_SOCKETS="6", PLAYGROUND_MAX_ROOMS="4")
    sockets = [await LiveSocket.open(server, "quorum") for _ in range(4)]
    hellos = [await hello(s) for s in sockets]
    made = time.monotonic()
    # four rooms, each with someone in it: a fifth is refused, and the page told why
    error, code = await refused(server)
    assert code == TRY_AGAIN, error
    assert error["code"] == "server_full"
    assert "tries again by itself" in error["message"]
    # sockets to a room already held need no new room: two more fit
    room = hellos[0]["room"]
    for _ in range(2):
        sockets.append(await LiveSocket.open(server, "quorum", room=room))
        assert (await hello(sockets[-1]))["room"] == room
    # six sockets: the seventh is refused before any room, in its own language
    error, code = await refused(server, {"room": room, "lang": "th"})
    assert code == TRY_AGAIN, error
    assert error["code"] == "server_full"
    assert "เซิร์ฟเวอร์เต็ม" in error["message"]
    # once someone leaves, a newcomer gets in: their room makes way for the new one
    # (a room nobody is in leaves to make space, once its first seconds are over)
    await sockets.pop().close()
    await sockets.pop(1).close()
    await asyncio.sleep(max(0.5, made + 5.5 - time.monotonic()))
    hello_s, action_s = await bystander(server)
    assert hello_s < 5 and action_s < 5
    for socket in sockets:
        await socket.close()


async def test_every_address_of_one_ipv6_64_counts_as_one_client(serve):
    """Behind a proxy (daphne --proxy-headers), each socket from another address of the
    same /64: together they get the rooms one address gets, no more."""
    server = serve(args=("--proxy-headers",), PLAYGROUND_ROOMS_PER_ADDRESS="3/minute")
    opened = []
    for n in range(1, 4):
        ws = await connect(
            server.ws_url("quorum"),
            additional_headers={
                "Origin": server.origin,
                "X-Forwarded-For": f"2001:db8:5:5:{n}::{n}",
            },
            open_timeout=10,
        )
        socket = LiveSocket(ws)
        await hello(socket)
        opened.append(socket)
    error, code = await refused(server, **{"X-Forwarded-For": "2001:db8:5:5:ff::9"})
    assert code == TRY_AGAIN, error
    assert error["code"] == "too_many_rooms"
    # the next /64 is someone else
    error, code = await refused(server, **{"X-Forwarded-For": "2001:db8:5:6::1"})
    assert code is None and error["type"] == "hello"
    for socket in opened:
        await socket.close()
