"""Hostile input over the websocket: a clear `error`, the room unchanged, never 1011.

Before: `seed=²` or `since=²` crashed the socket (`'²'.isdigit()` is true, `int('²')`
raises), JSON nested past the recursion limit closed it with 1011, and U+0000 in an
action's text reached PostgreSQL, which refused it: the room was rebuilt while locked.
"""

import asyncio
import base64
import json
import zlib

import pytest
from websockets.exceptions import ConnectionClosed

from playground.liveserver import LiveSocket

NESTED = "[" * 30_000 + "]" * 30_000  # 60,000 bytes: fits one message


def deep_link() -> str:
    payload = '{"l":"quorum","s":1,"a":' + "[" * 50_000 + "]" * 50_000 + ',"c":0}'
    packed = base64.urlsafe_b64encode(zlib.compress(payload.encode(), 9))
    return "1." + packed.rstrip(b"=").decode("ascii")


async def answers(socket: LiveSocket, count: int, seconds: float = 10) -> list:
    """The next `count` messages that are not presence (or the close, as a dict)."""
    got = []
    try:
        async with asyncio.timeout(seconds):
            while len(got) < count:
                message = json.loads(await socket.ws.recv())
                if message["type"] not in ("presence", "roster"):
                    got.append(message)
    except ConnectionClosed as closed:
        got.append({"type": "closed", "code": closed.rcvd.code if closed.rcvd else 0})
    return got


@pytest.mark.parametrize("seed", ["²", "٧", "1" * 5_000, "-1", "1e3", "\x00"])
async def test_a_bad_seed_in_the_address_is_refused_clearly(server, seed):
    socket = await LiveSocket.open(server, "quorum", seed=seed)
    error, closed = await answers(socket, 2)
    assert error["type"] == "error" and error["code"] == "bad_seed"
    assert closed == {"type": "closed", "code": 4400}


@pytest.mark.parametrize("since", ["²", "٧", "9" * 5_000, "\x00"])
async def test_a_bad_since_resumes_nothing_and_says_hello(server, since):
    first = await LiveSocket.open(server, "quorum", seed="3")
    hello = await first.next("hello")
    await first.close()
    again = await LiveSocket.open(server, "quorum", room=hello["room"], since=since)
    (welcome,) = await answers(again, 1)
    await again.close()
    assert welcome["type"] == "hello" and welcome["room"] == hello["room"]


async def test_hostile_frames_get_an_error_and_change_nothing(server):
    socket = await LiveSocket.open(server, "hash-placement")
    hello = await socket.next("hello")
    hostile = [
        (NESTED, "too_deep"),
        ('{"type":"ping","x":' + "[" * 9 + "]" * 9 + "}", "too_deep"),
        ('{"type":"ping","ref":"a\\u0000"}', "bad_text"),
        ('{"type":"ping","a\\u0000":1}', "bad_text"),
        ('{"type":"ping","x":"\\ud800"}', "bad_text"),
        ('{"type":"ping","x":' + "9" * 5_000 + "}", "bad_json"),
        (
            json.dumps(
                {"type": "action", "action": "lookup", "args": {"key": "N1\x00"}}
            ),
            "bad_text",
        ),
        (
            json.dumps(
                {"type": "action", "action": "set_shards", "args": {"count": 10**4000}}
            ),
            "out_of_range",
        ),
        (json.dumps({"type": [[[1]]] * 3}), "unknown_type"),
        (json.dumps({"type": "open_link", "link": deep_link()}), "bad_link"),
    ]
    for text, code in hostile:
        await socket.ws.send(text)
        (error,) = await answers(socket, 1)
        assert error["type"] == "error", (text[:60], error)
        assert error["code"] == code, (text[:60], error)
    await socket.send(type="ping", ref="still")
    (pong,) = await answers(socket, 1)
    assert pong == {"type": "pong", "ref": "still", "seq": 0}
    await socket.close()
    again = await LiveSocket.open(server, "hash-placement", room=hello["room"])
    (welcome,) = await answers(again, 1)
    await again.close()
    assert welcome["digest"] == hello["digest"] and welcome["seq"] == 0


async def test_a_deep_link_in_the_address_is_a_damaged_link(server):
    socket = await LiveSocket.open(server, "quorum", link=deep_link())
    error, hello = await answers(socket, 2)
    await socket.close()
    assert (error["code"], error["ref"]) == ("bad_link", "link")
    assert hello["type"] == "hello" and hello["seq"] == 0


async def test_u0000_in_a_name_or_a_question_is_refused(server):
    named = await LiveSocket.open(server, "quorum", name="Ada\x00")
    error, closed = await answers(named, 2)
    assert error["code"] == "bad_name" and closed["code"] == 4400

    host = await LiveSocket.open(server, "quorum")
    await host.next("hello")
    await host.send(type="start_class", ref="s")
    started = await host.next("class_started")
    await host.close()
    host = await LiveSocket.open(server, "quorum", room=started["room"])
    await host.next("hello")
    await host.send(type="claim_host", ref="h", secret=started["secret"])
    await host.next("role")
    for message in (
        {"type": "ask", "text": "Which?\x00", "choices": ["a", "b"]},
        {"type": "ask", "text": "Which?", "choices": ["a\x00", "b"]},
        {"type": "claim_host", "secret": "x\x00"},
    ):
        await host.send(ref="q", **message)
        (error,) = await answers(host, 1)
        assert error["type"] == "error" and error["code"] == "bad_text", error
    await host.close()
