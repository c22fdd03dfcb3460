"""A client written from docs/protocol.md alone, against the ASGI application.

Everything here follows the page, not the server's code: the Origin it sends, the
`hello` it waits for, the actions it sends, and `apply_patch`, which does what "`patch`
instead of `snapshot`" says (it is not playground/delta.py's `patch`). After each frame
the snapshot the client holds is compared with the one a second socket's `hello` gives
for the same `seq` ("A minimal client"), and a gap is mended by resuming ("A gap").
"""

import copy
import json
import random
import secrets

import pytest
from channels.testing import WebsocketCommunicator

from playground.asgi import application
from simulators.labs import LABS

# "Origin": the host must be an allowed one (127.0.0.1 by default); the scheme and the
# port are not compared
ORIGIN = "http://127.0.0.1:8000"


def apply_patch(snapshot, operations: list):
    """The snapshot after `operations`, applied in order to `snapshot` (changed in
    place; an empty path replaces it, so the result is returned)."""
    for operation in operations:
        kind, path = operation[0], operation[1]
        assert kind in ("s", "d"), f"an operation the doc does not name: {operation}"
        if kind == "s" and not path:
            snapshot = copy.deepcopy(operation[2])
            continue
        parent = snapshot
        for step in path[:-1]:
            parent = parent[_step(parent, step)]
        last = _step(parent, path[-1])
        if kind == "d":
            # "delete the object key at path; a list item is never deleted"
            assert isinstance(parent, dict) and last in parent, operation
            del parent[last]
        else:
            # "set that key of the object (adding it if it is new), or replace that
            # item of the list (the item always exists)"
            parent[last] = copy.deepcopy(operation[2])
    return snapshot


def _step(parent, step):
    """A step of a path: "a string names an object's key, an integer (from 0) a list's
    item" (and a list's item always exists)."""
    if isinstance(parent, dict):
        assert isinstance(step, str), f"{step!r} in an object"
    else:
        assert isinstance(parent, list), f"{step!r} in {parent!r}"
        assert type(step) is int and 0 <= step < len(parent), f"{step!r} in a list"
    return step


def test_the_doc_s_patch_examples_do_what_it_says():
    held = {
        "playback": {"playing": True},
        "replicas": [{}, {}, {"version": [0, None]}],
        "history": [{"confirmed": ["A"]}],
        "network": {"in_flight": [{}, {"info": {"op": 1, "value": 9, "version": 0}}]},
    }
    after = apply_patch(
        held,
        [
            ["s", ["playback", "playing"], False],
            ["s", ["replicas", 2, "version", 1], "A"],
            ["s", ["history", 0, "confirmed"], ["A", "C"]],
            ["d", ["network", "in_flight", 1, "info", "value"]],
            ["s", ["network", "in_flight", 1, "new"], None],
        ],
    )
    assert after == {
        "playback": {"playing": False},
        "replicas": [{}, {}, {"version": [0, "A"]}],
        "history": [{"confirmed": ["A", "C"]}],
        "network": {"in_flight": [{}, {"info": {"op": 1, "version": 0}, "new": None}]},
    }
    assert apply_patch(after, [["s", [], {"a": 1}]]) == {"a": 1}
    assert apply_patch({"a": 1}, []) == {"a": 1}


class Gap(Exception):
    """A frame whose seq is not the one held plus one."""


class DocClient:
    """One socket, and the room's state as the doc says to keep it."""

    def __init__(self, slug: str, token: str) -> None:
        self.slug = slug
        self.token = token
        self.socket: WebsocketCommunicator | None = None
        self.room = self.member = None
        self.seq = -1
        self.snapshot = None
        self.digest = None
        self.seen: dict[int, tuple[str, str]] = {}  # seq -> (snapshot JSON, digest)
        self.kinds: set = set()  # what the frames carried: "snapshot", ("s", ...), ...
        self.refs = 0

    async def connect(self, **query) -> dict:
        """Open a socket with the documented address and Origin; its first message
        about the room (`hello` or `resumed`), errors before it skipped."""
        tail = "&".join(f"{k}={v}" for k, v in {**query, "client": self.token}.items())
        self.socket = WebsocketCommunicator(
            application,
            f"/ws/labs/{self.slug}/?{tail}",
            headers=[(b"origin", ORIGIN.encode())],
        )
        connected, _ = await self.socket.connect()
        assert connected
        while True:
            message = await self.receive()
            if message["type"] == "hello":
                self.take_hello(message)
                return message
            if message["type"] == "resumed":
                assert message["room"] == self.room
                assert message["since"] == self.seq
                return message
            assert message["type"] == "error", message

    async def close(self) -> None:
        await self.socket.disconnect()

    async def receive(self) -> dict:
        return json.loads(await self.socket.receive_from(timeout=10))

    def take_hello(self, hello: dict) -> None:
        self.room, self.member = hello["room"], hello["member"]
        self.seq, self.snapshot, self.digest = (
            hello["seq"],
            hello["snapshot"],
            hello["digest"],
        )
        self.remember()

    def take_frame(self, frame: dict) -> None:
        """Step 4 of "A minimal client"."""
        if frame["seq"] <= self.seq:
            return  # "one at or below it, it has: skipped"
        if frame["seq"] != self.seq + 1:
            raise Gap(f"frame {frame['seq']} after {self.seq}")
        assert ("snapshot" in frame) != ("patch" in frame), "exactly one of them"
        if "snapshot" in frame:
            self.snapshot = frame["snapshot"]
            self.kinds.add("snapshot")
        else:
            self.snapshot = apply_patch(self.snapshot, frame["patch"])
            for operation in frame["patch"]:
                where = "root" if not operation[1] else type(operation[1][-1]).__name__
                self.kinds.add((operation[0], where))
        self.seq, self.digest = frame["seq"], frame["digest"]
        self.remember()

    def remember(self) -> None:
        self.seen[self.seq] = (json.dumps(self.snapshot, sort_keys=True), self.digest)

    async def next_frame(self) -> dict:
        """The next frame, taken (other messages skipped)."""
        while True:
            message = await self.receive()
            if message["type"] == "frame":
                self.take_frame(message)
                return message
            assert message["type"] != "error", message

    async def act(self, action: str, **args) -> dict:
        """Send an action; every frame until its own is taken; its frame."""
        answer = await self.try_act(action, **args)
        assert answer["type"] == "frame", answer
        return answer

    async def try_act(self, action: str, **args) -> dict:
        """Send an action; every frame until the answer is taken; the answer (its
        frame, or the `error` refusing it)."""
        self.refs += 1
        ref = f"c{self.refs}"
        await self.socket.send_to(
            text_data=json.dumps(
                {"type": "action", "ref": ref, "action": action, "args": args}
            )
        )
        while True:
            message = await self.receive()
            if message["type"] == "error" and message.get("ref") == ref:
                return message
            if message["type"] == "frame":
                self.take_frame(message)
                if message["ref"] == ref and message["by"] == self.member:
                    return message

    async def resume(self) -> None:
        """Step 5: reconnect after the seq held; apply what follows `resumed`."""
        await self.close()
        first = await self.connect(room=self.room, since=self.seq)
        if first["type"] == "resumed":
            while self.seq < first["seq"]:
                await self.next_frame()

    async def check(self) -> None:
        """The snapshot held equals the one a fresh `hello` of the room gives."""
        viewer = WebsocketCommunicator(
            application,
            f"/ws/labs/{self.slug}/?room={self.room}",
            headers=[(b"origin", ORIGIN.encode())],
        )
        connected, _ = await viewer.connect()
        assert connected
        hello = json.loads(await viewer.receive_from(timeout=10))
        await viewer.disconnect()
        assert hello["type"] == "hello" and hello["room"] == self.room, hello
        while self.seq < hello["seq"]:  # the room clock may have sent frames since
            await self.next_frame()
        held, digest = self.seen[hello["seq"]]
        assert held == json.dumps(hello["snapshot"], sort_keys=True), hello["seq"]
        assert digest == hello["digest"]


def token() -> str:
    return secrets.token_urlsafe(16)  # 22 URL-safe characters


async def test_a_quorum_client_patches_to_the_server_s_snapshot_after_every_frame():
    client = DocClient("quorum", token())
    hello = await client.connect(seed=3)
    assert hello["protocol"] == 1 and hello["lab"] == "quorum"
    await client.check()
    await client.act("pause")
    await client.check()
    steps = [
        ("write", {"w": "default", "coordinator": "auto"}),
        ("step", {}),
        ("step", {}),
        ("cut_link", {"link": "A-B"}),
        ("set_levels", {"w": "ONE", "r": "ALL"}),
        ("read", {"r": "default", "coordinator": "auto"}),
        ("step", {}),
        ("advance", {"ms": 100}),
        ("seek", {"to": 2}),
        ("write", {"w": "default", "coordinator": "auto"}),
        ("step", {}),
        ("stop_node", {"node": "C"}),
        ("advance", {"ms": 500}),
        ("heal_all", {}),
    ]
    for action, args in steps:
        await client.act(action, **args)
        await client.check()
    # the room clock's frames ("ref": null) are applied alike
    await client.act("write", w="default", coordinator="auto")
    await client.act("play")
    ticks = 0
    while ticks < 3:
        frame = await client.next_frame()
        if frame["ref"] is None:
            assert frame["by"] is None and frame["action"]["name"] == "advance"
            ticks += 1
    await client.act("pause")
    await client.check()
    # every operation the doc names, and whole snapshots, came in these frames
    assert {"snapshot", ("s", "str"), ("s", "int"), ("d", "str")} <= client.kinds
    await client.close()


async def test_a_gap_is_mended_by_resuming_after_the_seq_held():
    client = DocClient("quorum", token())
    await client.connect()
    await client.act("pause")
    await client.act("write", w="default", coordinator="auto")
    # a frame lost on the way: the next one must not be patched onto the old copy
    await client.socket.send_to(
        text_data=json.dumps(
            {"type": "action", "ref": "lost", "action": "step", "args": {}}
        )
    )
    while (await client.receive())["type"] != "frame":
        pass
    with pytest.raises(Gap):
        await client.act("step")
    await client.resume()
    assert client.seq == 4
    await client.check()
    # and a socket that dropped while another member acted in the room
    await client.close()
    other = DocClient("quorum", token())
    await other.connect(room=client.room)
    for _ in range(3):
        await other.act("step")
    await other.close()
    first = await client.connect(room=client.room, since=client.seq)
    assert first["type"] == "resumed" and first["seq"] == 7
    while client.seq < first["seq"]:
        await client.next_frame()
    await client.check()
    await client.act("cut_link", link="B-C")
    await client.check()
    await client.close()


@pytest.mark.parametrize(
    ("slug", "steps"),
    [
        (
            "hash-placement",
            [
                ("mark_hot", {"key": "N12345", "share_percent": 50}),
                ("add_shard", {}),
                ("set_vnodes", {"vnodes": 64}),
                ("lookup", {"key": "N10007"}),
                ("clear_hot", {}),
                ("remove_shard", {"shard": "B"}),
            ],
        ),
        (
            "range-splits",
            [
                ("write", {"kind": "uniform", "count": 2000, "rate": 5000}),
                ("add_shard", {}),
                ("write", {"kind": "uniform", "count": 500, "rate": 5000}),
                ("add_shard", {}),
                ("range_query", {"low": "N12300", "high": "N12399"}),
            ],
        ),
        (
            "cache-stampede",
            [
                ("pause", {}),
                ("step", {}),
                ("fill_memory", {"mb": 64}),
                ("advance", {"ms": 300}),
                ("set_strategy", {"strategy": "lock"}),
                ("advance", {"ms": 300}),
            ],
        ),
    ],
)
async def test_other_labs_patch_to_the_server_s_snapshot(slug, steps):
    client = DocClient(slug, token())
    await client.connect(seed=1)
    for action, args in steps:
        await client.act(action, **args)
        await client.check()
    await client.close()


@pytest.mark.parametrize("slug", sorted(LABS))
async def test_every_lab_patches_to_the_server_s_snapshot_over_random_actions(slug):
    """Declared actions with their defaults, in a seeded random order: refusals
    change nothing, and after every frame the client holds the room's snapshot."""
    client = DocClient(slug, token())
    hello = await client.connect(seed=2)
    actions = hello["declaration"]["actions"]
    choose = random.Random(slug).choice
    for _ in range(25):
        action = choose(actions)
        args = {param["name"]: param["default"] for param in action["params"]}
        await client.try_act(action["name"], **args)
        await client.check()
    await client.close()


@pytest.mark.parametrize(
    "origin",
    [None, "null", "http://evil.example", "http://127.0.0.1.evil.example"],
)
async def test_a_handshake_without_an_allowed_origin_is_refused(origin):
    """Refused before the websocket opens (the server answers HTTP 403): the
    application closes without accepting, and sends nothing."""
    headers = [] if origin is None else [(b"origin", origin.encode())]
    socket = WebsocketCommunicator(application, "/ws/labs/quorum/", headers=headers)
    connected, _ = await socket.connect()
    assert not connected
    assert await socket.receive_nothing(timeout=0.2)


@pytest.mark.parametrize(
    "origin", ["http://localhost", "https://127.0.0.1:4443", "http://[::1]:8000"]
)
async def test_any_scheme_and_port_of_an_allowed_host_is_accepted(origin):
    socket = WebsocketCommunicator(
        application, "/ws/labs/quorum/", headers=[(b"origin", origin.encode())]
    )
    connected, _ = await socket.connect()
    assert connected
    assert json.loads(await socket.receive_from(timeout=10))["type"] == "hello"
    await socket.disconnect()
