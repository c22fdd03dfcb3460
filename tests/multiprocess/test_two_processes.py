"""One room served by two daphne processes: one log, one clock, no lost frames.

Each process holds a replica of the room's lab; PostgreSQL numbers the log (the room's
row is locked while an entry is appended) and Redis carries new entries between the
processes and holds the clock lease. These tests act on both processes at once, read
the stored log back, and kill -9 the process that ticks a clocked room's clock.
"""

import asyncio
import contextlib
import json
import time

from websockets.exceptions import ConnectionClosed

from playground.liveserver import LiveSocket, start_daphne
from simulators.labs import LABS

HASH = "hash-placement"
QUORUM = "quorum"


def replay_digests(slug: str, seed: int, rows: list[tuple]) -> dict[int, str]:
    """The digest after each stored entry, from a fresh lab in this process."""
    lab = LABS[slug](seed=seed)
    digests = {}
    for seq, name, args in rows:
        lab.apply(name, args)
        digests[seq] = lab.digest()
    return digests


def assert_one_sequence(frames: list[dict], first: int, last: int) -> None:
    seqs = [f["seq"] for f in frames]
    assert seqs == list(range(first, last + 1)), f"gap or duplicate: {seqs}"


async def listen(socket: LiveSocket, seconds: float) -> None:
    """Receive whatever comes for `seconds`."""
    with contextlib.suppress(TimeoutError):
        await socket.next("never", timeout=seconds)


async def frames_until(socket: LiveSocket, seq: int, timeout: float = 20) -> None:
    if socket.acked < seq:
        await socket.next("frame", lambda f: f["seq"] >= seq, timeout=timeout)


async def test_members_on_two_processes_see_one_sequence(pair, log_rows):
    a, b = pair
    a1 = await LiveSocket.open(a, HASH, seed=2)
    hello = await a1.next("hello")
    room = hello["room"]
    b1 = await LiveSocket.open(b, HASH, room=room)
    a2 = await LiveSocket.open(a, HASH, room=room)
    b2 = await LiveSocket.open(b, HASH, room=room)
    sockets = (a1, a2, b1, b2)
    members = {}
    for socket in sockets[1:]:
        members[socket] = (await socket.next("hello"))["member"]
    members[a1] = hello["member"]

    each = 25  # within the burst of 40: no message is rate-limited

    async def act(socket, tag):
        for i in range(each):
            if tag == "a":
                args = {"vnodes": 1 + (i * 11) % 256}
                await socket.send(
                    type="action", ref=f"a{i}", action="set_vnodes", args=args
                )
            else:
                args = {"key": f"b{i}", "share_percent": 10 + i}
                await socket.send(
                    type="action", ref=f"b{i}", action="mark_hot", args=args
                )
            await asyncio.sleep(0.005)

    await asyncio.gather(act(a1, "a"), act(b1, "b"))
    total = 2 * each
    await asyncio.gather(*(frames_until(s, total) for s in sockets))

    rows = log_rows(room)
    assert [row[0] for row in rows] == list(range(1, total + 1))
    expected = replay_digests(HASH, 2, rows)
    for socket in sockets:
        assert_one_sequence(socket.frames, 1, total)
        for frame in socket.frames:
            assert frame["digest"] == expected[frame["seq"]], frame["seq"]
            assert frame["action"]["name"] == rows[frame["seq"] - 1][1]
    # both sides acted, and each actor's actions are logged in the order it sent them
    sent = {
        members[a1]: [{"vnodes": 1 + (i * 11) % 256} for i in range(each)],
        members[b1]: [{"key": f"b{i}", "share_percent": 10 + i} for i in range(each)],
    }
    for socket in sockets:
        for actor, args in sent.items():
            assert [
                f["action"]["args"] for f in socket.frames if f["by"] == actor
            ] == args
    # an actor's own frames carry its refs (other processes may send ref null)
    for actor, tag in ((a1, "a"), (b1, "b")):
        refs = [f["ref"] for f in actor.frames if f["by"] == members[actor]]
        assert refs == [f"{tag}{i}" for i in range(each)]
    for socket in sockets:
        await socket.close()


def advances(socket: LiveSocket, after: int = 0) -> list[dict]:
    return [
        f
        for f in socket.frames
        if f["action"]["name"] == "advance" and f["seq"] > after
    ]


async def test_one_process_ticks_and_the_other_takes_over_when_it_dies(
    pair, log_rows, lease_holder
):
    a, b = pair
    a1 = await LiveSocket.open(a, QUORUM, seed=6)
    room = (await a1.next("hello"))["room"]
    b1 = await LiveSocket.open(b, QUORUM, room=room)
    await b1.next("hello")
    # 1/100 of real speed: one write keeps the clock busy for 40 real seconds
    await a1.send(type="action", action="set_speed", args={"speed": 10})
    await a1.send(
        type="action", action="write", args={"w": "default", "coordinator": "auto"}
    )
    await a1.send(type="action", action="play", args={})
    await a1.next("frame", lambda f: f["action"]["name"] == "play")

    # two seconds of ticking, watched from both processes
    started = time.monotonic()
    await asyncio.gather(listen(a1, 2.0), listen(b1, 2.0))
    watched = time.monotonic() - started
    seq = max(a1.acked, b1.acked)
    await asyncio.gather(frames_until(a1, seq), frames_until(b1, seq))
    ticks_a = advances(a1)
    ticks_b = advances(b1)
    assert ticks_a, "nobody ticked the clock"
    assert [f["seq"] for f in ticks_a] == [f["seq"] for f in ticks_b[: len(ticks_a)]]
    for socket in (a1, b1):
        seqs = [f["seq"] for f in socket.frames]
        assert seqs == sorted(set(seqs)) == list(range(1, seqs[-1] + 1))
    # one clock: about ten ticks a second, not twenty
    assert len(ticks_a) <= 13 * watched + 2, (len(ticks_a), watched)

    holder_pid = lease_holder(room)
    holder = next((s for s in (a, b) if s.pid == holder_pid), None)
    assert holder is not None, f"the lease is held by {holder_pid}, not a or b"
    survivor = b if holder is a else a
    lost, kept = (a1, b1) if holder is a else (b1, a1)

    holder.kill()
    killed_at = time.monotonic()
    # the dead holder's last tick may still be on its way to `kept`: wait for the
    # survivor to take the lease, then for a tick after that (only it can tick now)
    while lease_holder(room) != survivor.pid:
        assert time.monotonic() - killed_at < 5, "the survivor never took the lease"
        await asyncio.sleep(0.05)
    before = kept.acked
    await kept.next(
        "frame", lambda f: f["action"]["name"] == "advance" and f["seq"] > before
    )
    took_over = time.monotonic() - killed_at
    assert took_over < 5, f"the survivor took {took_over:.1f} s to tick"
    # ... and keeps ticking
    await listen(kept, 1.0)
    assert len(advances(kept, after=before)) >= 5

    # the killed process's member reads what reached it, reconnects to the survivor
    # and resumes after the last frame it got
    with contextlib.suppress(ConnectionClosed):
        await lost.next("never", timeout=5)
    since = lost.acked
    back = await LiveSocket.open(survivor, QUORUM, room=room, since=since)
    resumed = await back.next("resumed", timeout=10)
    assert resumed["since"] == since
    await kept.send(type="action", ref="stop", action="pause", args={})
    paused = await kept.next("frame", lambda f: f["action"]["name"] == "pause")
    await frames_until(back, paused["seq"])
    assert_one_sequence(lost.frames + back.frames, 1, paused["seq"])
    assert_one_sequence(kept.frames, 1, paused["seq"])
    assert back.frames[-1]["digest"] == paused["digest"]

    # the stored log replays to every frame either member saw
    rows = log_rows(room)
    assert [row[0] for row in rows] == list(range(1, paused["seq"] + 1))
    expected = replay_digests(QUORUM, 6, rows)
    for frame in kept.frames + lost.frames + back.frames:
        assert frame["digest"] == expected[frame["seq"]], frame["seq"]
    for socket in (kept, back):
        await socket.close()


async def test_a_class_spread_over_two_processes_behaves_as_one(pair):
    a, b = pair
    owner = await LiveSocket.open(a, HASH)
    await owner.next("hello")
    await owner.send(type="start_class")
    started = await owner.next("class_started")
    room = started["room"]
    host = await LiveSocket.open(a, HASH, room=room, name="Teacher")
    await host.next("hello")
    await host.send(type="claim_host", secret=started["secret"])
    await host.next("role")
    ana = await LiveSocket.open(b, HASH, room=room, name="Ana")
    ana_id = (await ana.next("hello"))["member"]
    # the host on a sees the student on b
    await host.next(
        "roster", lambda m: "Ana" in [p["name"] for p in m["members"]], timeout=5
    )

    # a student on b drives, chosen by the host on a
    await host.send(type="control", mode="student", driver=ana_id)
    control = await ana.next("control")
    assert control["driver"] == ana_id and control["driver_name"] == "Ana"
    await ana.send(type="action", ref="mine", action="add_shard", args={})
    mine = await ana.next("frame")
    assert mine["by"] == ana_id and mine["ref"] == "mine"
    seen = await host.next("frame")
    assert seen["seq"] == mine["seq"] and seen["digest"] == mine["digest"]

    # a question asked on a, answered on b, counted on a, revealed on b
    await host.send(type="ask", text="Which shard?", choices=["A", "B", "E"])
    number = (await ana.next("question"))["number"]
    await ana.send(type="answer", question=number, value=2)
    await ana.next("answered")
    counted = await host.next("answers")
    assert counted == {"type": "answers", "number": number, "answered": 1}
    await host.send(type="reveal", question=number)
    shown = await ana.next("question", lambda m: m["revealed"])
    assert shown["distribution"][2] == {"value": 2, "count": 1}

    # two hosts, one per process, change the mode at once: all end on one version
    second = await LiveSocket.open(b, HASH, room=room, name="Second")
    await second.next("hello")
    await second.send(type="claim_host", secret=started["secret"])
    await second.next("role")
    for _ in range(3):
        await asyncio.gather(
            host.send(type="control", mode="everyone"),
            second.send(type="control", mode="host"),
        )
    final = await agreed_last(host, second, ana, kind="control")
    assert final["version"] == 7
    late = await LiveSocket.open(a, HASH, room=room, name="Late")
    hello = await late.next("hello")
    assert hello["class"]["control"] == {k: v for k, v in final.items() if k != "type"}
    for socket in (owner, host, ana, second, late):
        await socket.close()


async def test_a_tour_run_on_one_process_is_shown_on_the_other(pair):
    a, b = pair
    owner = await LiveSocket.open(a, HASH)
    await owner.next("hello")
    await owner.send(type="start_class")
    started = await owner.next("class_started")
    room = started["room"]
    hosts = []
    for server in (a, b):  # a host on each process
        host = await LiveSocket.open(server, HASH, room=room, name="Teacher")
        await host.next("hello")
        await host.send(type="claim_host", secret=started["secret"])
        await host.next("role")
        hosts.append(host)
    ana = await LiveSocket.open(b, HASH, room=room, name="Ana")
    await ana.next("hello")
    await hosts[0].send(type="tour", step="remove-shard")
    shown = await ana.next("tour")
    assert shown == {"type": "tour", "step": "remove-shard", "version": 1}
    # the two hosts move the tour at once: everyone ends on the same, latest step
    for _ in range(3):
        await asyncio.gather(
            hosts[0].send(type="tour", step="lookup"),
            hosts[1].send(type="tour", step="hot-key"),
        )
    final = await agreed_last(*hosts, ana, kind="tour")
    assert final["version"] == 7
    late = await LiveSocket.open(a, HASH, room=room, name="Late")
    hello = await late.next("hello")
    assert hello["class"]["tour"] == final["step"]
    for socket in (owner, *hosts, ana, late):
        await socket.close()


async def test_a_room_served_alone_that_another_process_joins_keeps_one_sequence(
    pair, log_rows
):
    """A room served by one process alone for a while appends without the writer
    lock (playground/rooms/writer.py); another process that joins and acts before it
    has heard of the first finds the log moved on: nothing of its is lost or doubled,
    its actions are applied again and every member of both sees one sequence."""
    a, b = pair
    a1 = await LiveSocket.open(a, HASH, seed=4)
    room = (await a1.next("hello"))["room"]
    await asyncio.sleep(2.5)  # a's replica has served the room alone (settled)
    b1 = await LiveSocket.open(b, HASH, room=room)
    await b1.next("hello")
    each = 15

    async def act(socket, tag):
        for i in range(each):
            args = {"key": f"{tag}{i}", "share_percent": 10 + i}
            await socket.send(
                type="action", ref=f"{tag}{i}", action="mark_hot", args=args
            )
            await asyncio.sleep(0.005)

    await asyncio.gather(act(a1, "a"), act(b1, "b"))
    total = 2 * each
    await asyncio.gather(frames_until(a1, total), frames_until(b1, total))
    rows = log_rows(room)
    assert [row[0] for row in rows] == list(range(1, total + 1))
    expected = replay_digests(HASH, 4, rows)
    for socket in (a1, b1):
        assert_one_sequence(socket.frames, 1, total)
        assert all(f["digest"] == expected[f["seq"]] for f in socket.frames)
        assert not [m for m in socket.inbox if m["type"] == "error"], socket.inbox
    for socket in (a1, b1):
        await socket.close()


async def test_limits_count_across_processes_and_a_removal_reaches_every_one(
    cluster_env,
):
    """An address's allowance is shared by every process (counted in Redis), and a
    member the host removes on one process is sent away from the other."""
    var_dir, env = cluster_env
    env = {**env, "PLAYGROUND_ROOMS_PER_ADDRESS": "5/minute"}
    a = start_daphne(var_dir, env, name="la")
    b = start_daphne(var_dir, env, name="lb")
    source = "127.0.3.1"  # an address no other test of this session uses
    try:
        owner = await LiveSocket.open(a, HASH, source)
        await owner.next("hello")
        await owner.send(type="start_class")  # the second room of the five
        started = await owner.next("class_started")
        firsts = []
        for server in (b, a, b, a):
            socket = await LiveSocket.open(server, HASH, source)
            firsts.append(json.loads(await socket.ws.recv())["type"])
            await socket.close()
        assert firsts == ["hello", "hello", "hello", "error"]

        room = started["room"]
        host = await LiveSocket.open(a, HASH, room=room, name="Teacher")
        await host.next("hello")
        await host.send(type="claim_host", secret=started["secret"])
        await host.next("role")
        token = "removed-student-0123"
        ana = await LiveSocket.open(b, HASH, room=room, name="Ana", client=token)
        ana_id = (await ana.next("hello"))["member"]
        await host.send(type="remove_member", ref="r", member=ana_id)
        await host.next("removed")
        refusal = await ana.next("error")
        assert refusal["code"] == "removed"
        with contextlib.suppress(ConnectionClosed):
            await ana.next("never", timeout=5)
        assert ana.ws.close_code == 4403
        again = await LiveSocket.open(a, HASH, room=room, client=token)
        assert (await again.next("error"))["code"] == "removed"
        for socket in (owner, host, again):
            await socket.close()
    finally:
        a.kill()
        b.kill()


async def agreed_last(*people, kind: str) -> dict:
    """After a second of listening: each socket saw `kind` messages in growing versions,
    and all ended on the same one, which is returned."""
    await asyncio.gather(*(listen(socket, 1.0) for socket in people))
    finals = []
    for socket in people:
        seen = [m for m in socket.inbox if m["type"] == kind]
        versions = [m["version"] for m in seen]
        assert versions == sorted(set(versions)), versions
        finals.append(seen[-1])
    assert all(final == finals[0] for final in finals), finals
    return finals[0]


async def test_the_lobby_the_size_and_a_flood_clear_reach_every_process(pair):
    """Issue 29 across processes: the host on a turns approval on, and a student waiting
    on b is shown to a host on b and let in from a; a late joiner on b has no vote, and
    a flood cleared on a closes them; a size set on b counts the members of both."""
    a, b = pair
    owner = await LiveSocket.open(a, HASH)
    await owner.next("hello")
    await owner.send(type="start_class")
    started = await owner.next("class_started")
    room = started["room"]
    hosts = []
    for server, name in ((a, "Teacher"), (b, "Second")):
        host = await LiveSocket.open(server, HASH, room=room, name=name)
        await host.next("hello")
        await host.send(type="claim_host", secret=started["secret"])
        await host.next("role")
        hosts.append(host)
    await hosts[0].send(type="door", approval=True)
    assert (await hosts[1].next("door"))["approval"] is True
    ben = await LiveSocket.open(b, HASH, room=room, name="Ben")
    assert (await ben.next("waiting"))["reason"] == "approval"
    lobby = await hosts[0].next("lobby", lambda m: m["members"], timeout=5)
    ben_id = lobby["members"][0]["id"]
    await hosts[0].send(type="approve", ref="a", member=ben_id)
    assert (await ben.next("hello"))["member"] == ben_id
    await hosts[1].next("lobby", lambda m: not m["members"], timeout=5)
    await hosts[0].send(type="door", approval=False)
    await hosts[1].next("door", lambda m: not m["approval"])

    # a question opened on a; a late joiner on b has no vote; a clear on a removes them
    await hosts[0].send(type="ask", text="Which shard?", choices=["A", "B"])
    await ben.next("question")
    late = await LiveSocket.open(b, HASH, room=room, name="Late")
    await late.next("hello")
    await late.send(type="answer", ref="v", question=1, value=0)
    assert (await late.next("error"))["code"] == "not_a_voter"
    await ben.send(type="answer", question=1, value=1)  # approved: a vote
    await ben.next("answered")
    await hosts[0].send(type="clear", ref="c", question=1)
    cleared = await hosts[0].next("cleared")
    assert cleared["members"] and ben_id not in cleared["members"]
    assert (await late.next("error"))["code"] == "removed"

    # the size counts members on both processes: 2 hosts and Ben, so a fourth waits
    await hosts[1].send(type="door", size=3)
    await hosts[0].next("door", lambda m: m["size"] == 3)
    await asyncio.sleep(0.6)  # presence is announced within a quarter second
    # (from another address: after the clear, new members from 127.0.0.1 wait for the
    # host in the lobby, whatever the size)
    full = await LiveSocket.open(a, HASH, "127.0.4.2", room=room, name="Fourth")
    assert (await full.next("error"))["code"] == "class_full"
    for socket in (owner, *hosts, ben, full):
        await socket.close()
