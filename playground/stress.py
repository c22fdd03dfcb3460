"""Hostile clients that keep a server busy with the heaviest work the labs allow.

Each lab declares `stress` (simulators/engine/lab.py): the steps that drive it
through its heaviest actions to its largest state. An attacker runs one lab's steps
back to back, waiting for each answer; a bystander on a room of its own acts every
200 ms and times each answer. Used by the attack tests
(tests/attacks/test_heavy_work.py, and tests/multiprocess/test_heavy_work_postgres.py
for the PostgreSQL mode), as playground/flooder.py is.
"""

import asyncio
import json
import os
import sys
import time
from pathlib import Path

from django.conf import settings

from playground.history import declared_work
from playground.liveserver import BYSTANDER_ADDRESS, Daphne, LiveSocket
from simulators.labs import LABS

BYSTANDER_LAB = "quorum"


class Joined:
    """A websocket's messages as the protocol means them: the parts of a long
    message joined into it (docs/protocol.md, "Parts")."""

    def __init__(self, ws) -> None:
        self.ws = ws
        self.parts: dict[int, list] = {}

    async def receive(self) -> dict:
        while True:
            message = json.loads(await self.ws.recv())
            if message["type"] != "part":
                return message
            held = self.parts.setdefault(message["id"], [None] * message["count"])
            held[message["index"]] = message["text"]
            if None not in held:
                return json.loads("".join(self.parts.pop(message["id"])))

    async def next(self, kind: str, timeout: float = 60) -> dict:
        """The next message of `kind`."""
        async with asyncio.timeout(timeout):
            while True:
                message = await self.receive()
                if message["type"] == kind:
                    return message

    async def answer(self, ref: str, timeout: float = 120) -> dict:
        """The frame or error answering the request `ref`; or the `rate_limited`
        error saying that it was dropped unanswered (docs/protocol.md, "Limits")."""
        async with asyncio.timeout(timeout):
            while True:
                message = await self.receive()
                if message["type"] == "error" and message["code"] == "rate_limited":
                    return message
                if message.get("ref") == ref and message["type"] in ("frame", "error"):
                    return message

    async def act(self, ref: str, name: str, args: dict) -> dict:
        """Send an action; its answer."""
        message = {"type": "action", "ref": ref, "action": name, "args": args}
        await self.ws.send(json.dumps(message))
        return await self.answer(ref)


async def attack(
    server: Daphne, slug: str, source: str, stop: asyncio.Event, kinds: list
) -> None:
    """Run `slug`'s stress steps back to back until `stop`, as fast as the socket's
    rate limit lets them in (a lab whose actions take milliseconds would pass it:
    its actions past the limit are dropped, not worked on); each answer's kind
    ("frame", or the error's code) appended to `kinds` as it comes, so that what
    came is kept when the attacker is cut off mid-action (`attack_for`)."""
    socket = await LiveSocket.open(server, slug, source)
    joined = Joined(socket.ws)
    spacing = 1 / settings.PLAYGROUND_MESSAGES_PER_SECOND
    try:
        await joined.next("hello")
        number = 0
        sent = time.monotonic() - spacing
        while not stop.is_set():
            for name, args in LABS[slug].stress:
                if stop.is_set():
                    break
                number += 1
                await asyncio.sleep(sent + spacing - time.monotonic())
                sent = time.monotonic()
                answer = await joined.act(f"x{number}", name, args)
                kinds.append("frame" if answer["type"] == "frame" else answer["code"])
    finally:
        await socket.close()


async def bystander_waits(server: Daphne, seconds: float) -> list[float]:
    """Seconds each action of a bystander took, one every 200 ms for `seconds`; an
    action refused is marked by the error's code in `refused` (the list's attribute:
    the waits are the times either way)."""
    socket = await LiveSocket.open(server, BYSTANDER_LAB, BYSTANDER_ADDRESS)
    joined = Joined(socket.ws)
    waits = Waits()
    try:
        await joined.next("hello", timeout=30)
        end = time.monotonic() + seconds
        number = 0
        while time.monotonic() < end:
            number += 1
            started = time.monotonic()
            args = {"node": "B", "skew_ms": number % 50}
            answer = await joined.act(f"b{number}", "set_skew", args)
            waits.append(time.monotonic() - started)
            if answer["type"] != "frame":
                waits.refused.append(answer["code"])
            await asyncio.sleep(0.2)
    finally:
        await socket.close()
    return waits


class Waits(list):
    """A bystander's waits, and the codes of the actions refused among them."""

    def __init__(self) -> None:
        super().__init__()
        self.refused: list[str] = []


async def under_attack(
    server: Daphne, labs: list[str], per_lab: int, seconds: float
) -> tuple["Waits", list]:
    """A bystander's waits while `per_lab` attackers per lab, each from an address of
    its own, run their lab's stress; and each attacker's answers (or its error).

    The attackers run in a process of their own (`attack_for`), so that reading their
    frames does not slow down the bystander's own client."""
    warm_up = 3.0
    attackers = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "playground.stress",
        str(server.port),
        ",".join(labs),
        str(per_lab),
        str(warm_up + seconds),
        stdout=asyncio.subprocess.PIPE,
    )
    try:
        await asyncio.sleep(warm_up)  # every attacker into its heavy work
        waits = await bystander_waits(server, seconds)
    finally:
        out, _ = await attackers.communicate()
    return waits, json.loads(out)


async def attack_for(port: int, labs: list[str], per_lab: int, seconds: float) -> list:
    """Run the attackers against the daphne on `port` for `seconds`; their answers.

    At the end an attacker still waiting for the answer to heavy work it sent is cut
    off (its socket closed) after a second's grace: the bystander's window is over,
    and with eight attackers a lab that answer could be twenty seconds behind the
    others' (their answers so far are kept; an error is given as its repr)."""
    server = Daphne(None, port, Path())
    stop = asyncio.Event()
    places = [
        (slug, f"127.0.{10 + n}.{i + 1}")
        for i, slug in enumerate(labs)
        for n in range(per_lab)
    ]
    kinds: list[list] = [[] for _ in places]
    tasks = [
        asyncio.create_task(attack(server, slug, source, stop, kept))
        for (slug, source), kept in zip(places, kinds, strict=True)
    ]
    await asyncio.sleep(seconds)
    stop.set()
    _done, late = await asyncio.wait(tasks, timeout=1.0)
    for task in late:
        task.cancel()
    answers = await asyncio.gather(*tasks, return_exceptions=True)
    return [
        kept
        if answer is None or isinstance(answer, asyncio.CancelledError)
        else repr(answer)
        for answer, kept in zip(answers, kinds, strict=True)
    ]


def heaviest(count: int = 4) -> tuple[str, ...]:
    """The `count` labs whose stress steps declare the most work (`declared_work`,
    from their cost models: nothing runs), by slug: their heaviest work takes longest,
    and eight attackers on each is the worst case."""
    ranked = sorted(LABS.values(), key=lambda lab: (-stress_work(lab), lab.slug))
    return tuple(sorted(lab.slug for lab in ranked[:count]))


def stress_work(lab) -> int:
    """The declared work of a lab's stress steps, replayed from a fresh lab."""
    return declared_work(lab, lab.stress)


# today graph-traversal, hash-placement, quorum and cache-stampede: 2.1 to 12.4
# million units of stress each, the next (range-splits) 1.1 million
HEAVIEST = heaviest()


async def bystander_holds(
    server: Daphne, labs, per_lab: int, seconds: float, most: float
) -> None:
    """Assert that a bystander's p99 stays under `most` seconds while `per_lab`
    attackers per lab run, and that every attacker ran (one per lab: had a frame)."""
    waits, answers = await under_attack(server, sorted(labs), per_lab, seconds)
    print(summary(waits))
    assert not waits.refused, f"the bystander was refused: {waits.refused}"
    assert all(isinstance(kinds, list) for kinds in answers), answers
    if per_lab == 1:
        assert all("frame" in kinds for kinds in answers), answers
    assert p99(waits) < most, summary(waits)


def p99(waits: list[float]) -> float:
    ordered = sorted(waits)
    return ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]


def summary(waits: list[float]) -> str:
    ordered = sorted(waits)
    return (
        f"bystander p50 {ordered[len(ordered) // 2]:.3f} s, p99 {p99(waits):.3f} s, "
        f"max {ordered[-1]:.3f} s over {len(waits)} actions"
    )


if __name__ == "__main__":
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "playground.settings")
    port, labs, per_lab, seconds = sys.argv[1:5]
    answers = asyncio.run(
        attack_for(int(port), labs.split(","), int(per_lab), float(seconds))
    )
    print(json.dumps(answers))
