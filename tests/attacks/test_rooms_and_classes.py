"""Rooms and classes under abuse: branch and room floods, code guessing, poll stuffing,
and `hello` first for every socket, against a live daphne.

Before: one student made 216 branch rooms in 30 s; every page view stored a room
without limit; 30 wrong codes from one address locked a whole school out; reconnecting
with fresh client tokens gave one person 200 votes in 4 s; and under load `presence`
reached 22 of 50 sockets before their `hello`.
"""

import asyncio
import json
import sqlite3
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

from playground.liveserver import LiveSocket


class NoRedirects(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


OPENER = urllib.request.build_opener(NoRedirects)


def http(server, path: str, form: dict | None = None) -> int:
    """The status of one GET (or POST of `form`) to the live server."""
    data = urllib.parse.urlencode(form).encode() if form is not None else None
    try:
        with OPENER.open(server.url + path, data=data, timeout=60) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code


def stored(server, sql: str, *params) -> int:
    """One number read from the server's SQLite database."""
    path = Path(server.log_path).parent / "playground.sqlite3"
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
        return db.execute(sql, params).fetchone()[0]


async def first(socket: LiveSocket) -> dict:
    """The first message a socket gets that is not about who is watching."""
    while True:
        message = json.loads(await socket.ws.recv())
        if message["type"] not in ("presence", "roster"):
            return message


async def start_class(server, slug: str = "quorum") -> tuple[LiveSocket, dict]:
    """A class and its host's socket (claimed with the secret)."""
    owner = await LiveSocket.open(server, slug)
    await owner.next("hello")
    await owner.send(type="start_class", ref="s")
    started = await owner.next("class_started")
    await owner.close()
    host = await LiveSocket.open(server, slug, room=started["room"], name="Host")
    await host.next("hello")
    await host.send(type="claim_host", ref="h", secret=started["secret"])
    await host.next("role")
    return host, started


async def test_a_branch_flood_stops_at_the_members_allowance(server):
    host, started = await start_class(server, "hash-placement")
    student = await LiveSocket.open(
        server, "hash-placement", room=started["room"], client="flooding-student-01"
    )
    await student.next("hello")
    before_mb = server.rss_mb()
    answers = []
    for n in range(30):
        await student.send(type="branch", ref=f"b{n}")
        answers.append(await first(student))
    grown_mb = server.rss_mb() - before_mb
    await student.close()
    await host.close()
    kinds = [a["type"] if a["type"] == "branched" else a["code"] for a in answers]
    assert kinds == ["branched"] * 20 + ["too_many_branches"] * 10
    sql = "select count(*) from playground_roomrecord where parent = ?"
    assert stored(server, sql, started["room"]) == 20
    # before: 216 branch rooms and +305 MB in 30 s; now twenty copies of the lab
    assert grown_mb < 100, grown_mb


async def test_a_flood_of_page_views_stops_at_the_addresses_allowance(serve):
    # 10 a day, not a minute: the counter's windows are aligned to the clock, and a
    # minute that turned mid-test let an eleventh room in (the sliding estimate fell
    # under 10), as the limit means to; a day seldom turns
    limited = serve(PLAYGROUND_ROOMS_PER_ADDRESS="10/day")
    answers = []
    for _ in range(14):
        socket = await LiveSocket.open(limited, "quorum")
        answers.append(await first(socket))
        await socket.close()
    kinds = [a["type"] if a["type"] == "hello" else a["code"] for a in answers]
    assert kinds == ["hello"] * 10 + ["too_many_rooms"] * 4
    assert stored(limited, "select count(*) from playground_roomrecord") == 10


async def test_after_a_flood_of_wrong_codes_the_class_still_gets_in(serve):
    # 30 a day, not the settings' 30 a minute: the counter's windows are aligned to the
    # clock, and a minute that turned mid-test let the last guess in unslowed (its
    # sliding estimate fell just under 30), as the limit means to; a day seldom turns
    server = serve(PLAYGROUND_JOIN_WRONG_PER_ADDRESS="30/day")
    host, started = await start_class(server)
    code = started["code"]
    for n in range(35):
        form = {"code": f"ZZZ{n:03d}"[-6:], "name": "Guess"}
        assert await asyncio.to_thread(http, server, "/join/", form) == 404
    # every way in still works for the class behind this one address
    began = time.monotonic()
    assert await asyncio.to_thread(http, server, f"/join/{code}/qr.svg") == 200
    assert time.monotonic() - began >= 1  # it waited its turn once...
    began = time.monotonic()
    form = {"code": code, "name": "Ada"}
    assert await asyncio.to_thread(http, server, "/join/", form) == 303
    assert await asyncio.to_thread(http, server, f"/join/{code}/") == 303
    assert time.monotonic() - began < 1  # ...and its code skips the line now
    # while a guess goes on waiting its turn
    began = time.monotonic()
    form = {"code": "YYYYYY", "name": "Guess"}
    assert await asyncio.to_thread(http, server, "/join/", form) == 404
    assert time.monotonic() - began >= 1
    await host.close()


async def test_a_guessers_line_has_an_end(serve):
    guarded = serve(
        PLAYGROUND_JOIN_WRONG_PER_ADDRESS="1/minute",
        PLAYGROUND_JOIN_SLOW_SECONDS="0.5",
        PLAYGROUND_JOIN_MAX_WAITING="3",
    )
    await asyncio.to_thread(http, guarded, "/join/", {"code": "ZZZZZZ", "name": "A"})
    statuses = await asyncio.gather(
        *(
            asyncio.to_thread(
                http, guarded, "/join/", {"code": f"Z{n}ZZZZ", "name": "A"}
            )
            for n in range(2, 10)
        )
    )
    assert sorted(statuses) == [404] * 3 + [429] * 5


async def test_fresh_client_tokens_do_not_stuff_a_poll(server):
    host, started = await start_class(server)
    await host.send(type="ask", ref="q", text="How many?")
    await host.next("question")

    async def vote(n: int) -> str:
        socket = await LiveSocket.open(
            server, "quorum", room=started["room"], client=f"stuffer-{n:012d}"
        )
        try:
            answer = await first(socket)
            if answer["type"] != "hello":
                return answer["code"]
            await socket.send(type="answer", ref="a", question=1, value=n)
            return (await first(socket))["type"]
        finally:
            await socket.close()

    began = time.monotonic()
    results = [await vote(n) for n in range(200)]
    assert time.monotonic() - began < 60
    # with the host, at most 60 new members from this address in a minute (a sliding
    # window: the host, counted a moment earlier, may weigh a little less)
    voted = results.count("answered")
    assert 55 <= voted <= 60
    assert results.count("too_many_members") == 200 - voted
    await host.send(type="reveal", ref="r", question=1)
    shown = await host.next("question", lambda m: m["revealed"])
    assert shown["voters"] == voted
    await host.close()


async def test_hello_is_always_the_first_message(serve):
    server = serve(PLAYGROUND_NEW_MEMBERS_PER_ADDRESS="1000/minute")
    host, started = await start_class(server)
    chatter = asyncio.Event()

    async def churn():
        # joins and leaves keep presence and the host's roster busy meanwhile
        while not chatter.is_set():
            passer = await LiveSocket.open(server, "quorum", room=started["room"])
            await asyncio.sleep(0.05)
            await passer.close()

    async def arrive(n: int) -> str:
        socket = await LiveSocket.open(
            server, "quorum", room=started["room"], client=f"arriving-{n:010d}"
        )
        try:
            return json.loads(await socket.ws.recv())["type"]
        finally:
            await socket.close()

    churners = [asyncio.create_task(churn()) for _ in range(3)]
    try:
        firsts = await asyncio.gather(*(arrive(n) for n in range(50)))
    finally:
        chatter.set()
        await asyncio.gather(*churners)
    await host.close()
    assert firsts == ["hello"] * 50
