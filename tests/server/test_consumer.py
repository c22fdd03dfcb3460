"""The websocket conversation and every bad input the protocol refuses."""

import json

import pytest
from channels.testing import WebsocketCommunicator

from playground.asgi import application
from playground.rooms import registry

ORIGIN = [(b"origin", b"http://127.0.0.1")]


async def connect(path="/ws/labs/hash-placement/"):
    communicator = WebsocketCommunicator(application, path, headers=ORIGIN)
    connected, _ = await communicator.connect()
    assert connected
    return communicator


async def receive(communicator, timeout=5):
    return json.loads(await communicator.receive_from(timeout=timeout))


async def receive_type(communicator, kind, timeout=5):
    """Skip presence messages until one of `kind` arrives."""
    while True:
        message = await receive(communicator, timeout)
        if message["type"] == kind:
            return message
        assert message["type"] == "presence", message


async def open_lab(seed=None):
    path = "/ws/labs/hash-placement/" + (f"?seed={seed}" if seed is not None else "")
    communicator = await connect(path)
    hello = await receive_type(communicator, "hello")
    return communicator, hello


async def test_hello_carries_the_declaration_snapshot_and_digest():
    communicator, hello = await open_lab(seed=7)
    assert hello["protocol"] == 1
    assert hello["lab"] == "hash-placement"
    assert hello["seq"] == 0
    assert hello["seed"] == 7
    names = [a["name"] for a in hello["declaration"]["actions"]]
    assert {"add_shard", "remove_shard", "lookup", "load_keys"} <= set(names)
    assert hello["snapshot"]["shards"] == ["A", "B", "C", "D"]
    assert len(hello["digest"]) == 64
    assert hello["room"] in registry.rooms
    await communicator.disconnect()


async def test_an_action_comes_back_as_a_numbered_frame_with_moves():
    communicator, hello = await open_lab()
    await communicator.send_json_to(
        {"type": "action", "ref": "c1", "action": "add_shard", "args": {}}
    )
    frame = await receive_type(communicator, "frame")
    assert frame["seq"] == 1
    assert frame["ref"] == "c1"
    assert frame["action"] == {"name": "add_shard", "args": {}}
    assert frame["events"][0] == {"type": "shard_added", "shard": "E"}
    assert frame["snapshot"]["shards"] == ["A", "B", "C", "D", "E"]
    moved = frame["metrics"]["schemes"]["mod"]["moved_fraction"]
    assert 0.75 < moved < 0.85
    assert frame["digest"] != hello["digest"]
    await communicator.disconnect()


async def test_the_same_seed_and_actions_give_the_same_digest_in_two_rooms():
    digests = []
    for _ in range(2):
        communicator, _hello = await open_lab(seed=3)
        for action, args in [("add_shard", {}), ("set_vnodes", {"vnodes": 64})]:
            await communicator.send_json_to(
                {"type": "action", "action": action, "args": args}
            )
            frame = await receive_type(communicator, "frame")
        digests.append(frame["digest"])
        await communicator.disconnect()
    assert digests[0] == digests[1]


async def test_ping_is_answered_with_the_current_seq():
    communicator, _ = await open_lab()
    await communicator.send_json_to({"type": "ping", "ref": "p"})
    pong = await receive_type(communicator, "pong")
    assert pong == {"type": "pong", "ref": "p", "seq": 0}
    await communicator.disconnect()


async def test_a_reconnect_resumes_after_the_last_seq_it_saw():
    communicator, hello = await open_lab()
    for _ in range(3):
        await communicator.send_json_to(
            {"type": "action", "action": "add_shard", "args": {}}
        )
        await receive_type(communicator, "frame")
    await communicator.disconnect()

    path = f"/ws/labs/hash-placement/?room={hello['room']}&since=1"
    again = await connect(path)
    resumed = await receive_type(again, "resumed")
    assert resumed.pop("member").startswith("m-")
    assert resumed == {"type": "resumed", "room": hello["room"], "seq": 3, "since": 1}
    frames = [await receive_type(again, "frame") for _ in range(2)]
    assert [f["seq"] for f in frames] == [2, 3]
    await again.disconnect()


async def test_a_reconnect_to_a_vanished_room_gets_a_fresh_hello():
    communicator = await connect("/ws/labs/hash-placement/?room=p-gone&since=4")
    hello = await receive_type(communicator, "hello")
    assert hello["seq"] == 0
    assert hello["room"] != "p-gone"
    await communicator.disconnect()


async def test_an_unknown_lab_is_refused_with_a_clear_error():
    communicator = await connect("/ws/labs/no-such-lab/")
    error = await receive(communicator)
    assert error["type"] == "error"
    assert error["code"] == "unknown_lab"
    output = await communicator.receive_output(timeout=5)
    assert output == {"type": "websocket.close", "code": 4404}


async def test_a_bad_seed_is_refused_with_a_clear_error():
    communicator = await connect("/ws/labs/hash-placement/?seed=-4")
    error = await receive(communicator)
    assert error["code"] == "bad_seed"
    output = await communicator.receive_output(timeout=5)
    assert output["code"] == 4400


async def test_a_socket_without_an_allowed_origin_is_rejected():
    communicator = WebsocketCommunicator(
        application, "/ws/labs/hash-placement/", headers=[(b"origin", b"http://evil")]
    )
    connected, _ = await communicator.connect()
    assert not connected


ACTION = {"type": "action", "ref": "r1"}
BAD_INPUTS = [
    ("not json", "bad_json", "not valid JSON"),
    ("[1, 2, 3]", "not_an_object", "JSON object"),
    ('"add_shard"', "not_an_object", "JSON object"),
    ('{"type": "dance"}', "unknown_type", "unknown message type"),
    ("{}", "unknown_type", "unknown message type"),
    (
        json.dumps({**ACTION, "action": "explode", "args": {}}),
        "unknown_action",
        "no action named 'explode'",
    ),
    (
        json.dumps({**ACTION, "action": 5, "args": {}}),
        "bad_action",
        "name of an action",
    ),
    (json.dumps({**ACTION, "action": "add_shard"}), "bad_args", "needs 'args'"),
    (
        json.dumps({**ACTION, "action": "add_shard", "args": []}),
        "bad_args",
        "args must be an object",
    ),
    (
        json.dumps({**ACTION, "action": "add_shard", "args": {}, "speed": 3}),
        "unknown_field",
        "no field 'speed'",
    ),
    (
        json.dumps({**ACTION, "action": "set_vnodes", "args": {}}),
        "missing_argument",
        "needs the argument 'vnodes'",
    ),
    (
        json.dumps({**ACTION, "action": "set_vnodes", "args": {"vnodes": 8, "x": 1}}),
        "unknown_argument",
        "no argument named 'x'",
    ),
    (
        json.dumps({**ACTION, "action": "set_vnodes", "args": {"vnodes": "8"}}),
        "bad_type",
        "whole number",
    ),
    (
        json.dumps({**ACTION, "action": "set_vnodes", "args": {"vnodes": 8.5}}),
        "bad_type",
        "whole number",
    ),
    (
        json.dumps({**ACTION, "action": "set_vnodes", "args": {"vnodes": True}}),
        "bad_type",
        "whole number",
    ),
    (
        json.dumps({**ACTION, "action": "set_vnodes", "args": {"vnodes": -1}}),
        "out_of_range",
        "at least 1",
    ),
    (
        json.dumps({**ACTION, "action": "set_shards", "args": {"count": 0}}),
        "out_of_range",
        "at least 1",
    ),
    (
        json.dumps({**ACTION, "action": "set_shards", "args": {"count": 10**9}}),
        "out_of_range",
        "at most 12",
    ),
    (
        json.dumps(
            {
                **ACTION,
                "action": "load_keys",
                "args": {"kind": "booking", "count": 10**12},
            }
        ),
        "out_of_range",
        "at most 1,000,000",
    ),
    (
        json.dumps(
            {**ACTION, "action": "load_keys", "args": {"kind": "planets", "count": 10}}
        ),
        "bad_choice",
        "must be one of",
    ),
    (
        json.dumps({**ACTION, "action": "set_partitions", "args": {"partitions": 100}}),
        "bad_choice",
        "must be one of",
    ),
    (
        json.dumps({**ACTION, "action": "remove_shard", "args": {"shard": "Z"}}),
        "no_such_shard",
        "no shard named 'Z'",
    ),
    (
        json.dumps({**ACTION, "action": "lookup", "args": {"key": ""}}),
        "empty",
        "must not be empty",
    ),
    (
        json.dumps({**ACTION, "action": "lookup", "args": {"key": "k" * 65}}),
        "too_long",
        "at most 64",
    ),
    (
        json.dumps({"type": "action", "ref": 7, "action": "add_shard", "args": {}}),
        "bad_ref",
        "'ref' must be text",
    ),
    ("x" * (64 * 1024 + 1), "too_large", "at most 64 KiB"),
    (
        json.dumps({**ACTION, "action": "lookup", "args": {"key": "é" * 40000}}),
        "too_large",
        "at most 64 KiB",
    ),
]


@pytest.mark.parametrize(("text", "code", "phrase"), BAD_INPUTS)
async def test_bad_input_gets_an_error_and_changes_nothing(text, code, phrase):
    communicator, hello = await open_lab(seed=11)
    await communicator.send_to(text_data=text)
    error = await receive_type(communicator, "error")
    assert error["code"] == code
    assert phrase in error["message"]
    # the room is unchanged and the connection still works
    room = registry.get(hello["room"])
    assert room.seq == 0
    assert room.lab.digest() == hello["digest"]
    await communicator.send_json_to({"type": "ping"})
    assert (await receive_type(communicator, "pong"))["seq"] == 0
    await communicator.disconnect()


async def test_a_binary_frame_is_refused():
    communicator, hello = await open_lab()
    await communicator.send_to(bytes_data=b"\x00\x01")
    error = await receive_type(communicator, "error")
    assert error["code"] == "not_text"
    assert registry.get(hello["room"]).lab.digest() == hello["digest"]
    await communicator.disconnect()


async def test_removing_the_last_shard_is_refused():
    communicator, hello = await open_lab()
    await communicator.send_json_to(
        {"type": "action", "action": "set_shards", "args": {"count": 1}}
    )
    frame = await receive_type(communicator, "frame")
    await communicator.send_json_to(
        {"type": "action", "action": "remove_shard", "args": {"shard": "A"}}
    )
    error = await receive_type(communicator, "error")
    assert error["code"] == "last_shard"
    assert registry.get(hello["room"]).lab.digest() == frame["digest"]
    await communicator.disconnect()


async def test_presence_counts_the_sockets_in_the_room():
    communicator = await connect()
    hello = await receive(communicator)
    assert hello["type"] == "hello"
    # joins are announced together, a quarter second later at most
    presence = await receive(communicator)
    assert presence == {"type": "presence", "watching": 1}
    again = await connect(f"/ws/labs/hash-placement/?room={hello['room']}")
    assert (await receive(again))["type"] == "hello"
    assert (await receive_type(again, "presence"))["watching"] == 2
    assert (await receive(communicator)) == {"type": "presence", "watching": 2}
    await again.disconnect()
    assert (await receive(communicator)) == {"type": "presence", "watching": 1}
    await communicator.disconnect()


@pytest.mark.parametrize(
    "text",
    [
        '{"type": "action", "action": "lookup", "args": {"key": "\\ud800"}}',
        (
            '{"type": "action", "ref": "\\ud800", "action": "lookup", '
            '"args": {"key": "x"}}'
        ),
        '{"type": "\\udfff"}',
    ],
)
async def test_a_lone_surrogate_is_refused_and_the_server_survives(text):
    communicator, hello = await open_lab()
    await communicator.send_to(text_data=text)
    message = await receive_type(communicator, "error")
    assert message["code"] in {"bad_text", "bad_ref", "unknown_type"}
    await communicator.send_json_to({"type": "ping"})
    assert (await receive_type(communicator, "pong"))["seq"] == 0
    assert registry.get(hello["room"]).lab.digest() == hello["digest"]
    await communicator.disconnect()


async def test_messages_past_the_early_line_are_dropped_and_said_once_a_second(
    monkeypatch,
):
    """While the first room opens, 16 messages wait; more are dropped, and the
    socket hears so once a second with the count, not once per message."""
    import asyncio

    from playground.consumers import EARLY_MESSAGES, LabConsumer

    release = asyncio.Event()
    enter = LabConsumer.enter_first_room

    async def slow_enter(self, *args):
        await release.wait()
        await enter(self, *args)

    monkeypatch.setattr(LabConsumer, "enter_first_room", slow_enter)
    communicator = await connect()
    for n in range(EARLY_MESSAGES + 20):  # within the inbound burst
        await communicator.send_json_to({"type": "ping", "ref": f"p{n}"})
    warning = await receive(communicator)
    assert warning["type"] == "error" and warning["code"] == "busy", warning
    assert "1 message was ignored" in warning["message"]
    assert await communicator.receive_nothing(timeout=0.3)  # the other 19: quiet
    release.set()
    await receive_type(communicator, "hello")
    pongs = [await receive_type(communicator, "pong") for _ in range(EARLY_MESSAGES)]
    assert [p["ref"] for p in pongs] == [f"p{n}" for n in range(EARLY_MESSAGES)]
    later = []
    while not await communicator.receive_nothing(timeout=0.3):
        later.append((await receive(communicator))["type"])
    assert "pong" not in later, later  # the dropped ones stay dropped
    await communicator.disconnect()
