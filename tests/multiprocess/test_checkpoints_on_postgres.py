"""Stored checkpoints on PostgreSQL: one process stores them, another loads from them.

Process a serves a room whose actions make stored checkpoints (every 2,000 units of
declared work here, so a few dozen actions make many); process b, which never held
the room, loads it from the last checkpoint and the log after it, and says so in its
log; its hello carries the digest a's last frame did.
"""

import asyncio
import re

import psycopg

from playground.liveserver import LiveSocket, start_daphne

HASH = "hash-placement"


def checkpoint_rows(database_url: str, room_id: str) -> tuple[int, int]:
    """How many checkpoints and parts PostgreSQL holds for the room."""
    with psycopg.connect(database_url) as connection:
        checkpoints = connection.execute(
            "SELECT count(*) FROM playground_checkpointrecord WHERE room_id = %s",
            (room_id,),
        ).fetchone()[0]
        parts = connection.execute(
            "SELECT count(*) FROM playground_checkpointpart WHERE room_id = %s",
            (room_id,),
        ).fetchone()[0]
    return checkpoints, parts


async def settled_rows(database_url: str, room_id: str) -> tuple[int, int]:
    """`checkpoint_rows` once it has not changed for half a second (at most 10 s)."""
    rows = checkpoint_rows(database_url, room_id)
    same_since = 0
    for _ in range(100):
        await asyncio.sleep(0.1)
        now = checkpoint_rows(database_url, room_id)
        same_since = same_since + 1 if now == rows else 0
        rows = now
        if same_since >= 5:
            break
    return rows


async def test_a_room_loads_on_another_process_from_its_stored_checkpoints(
    cluster_env, database_url
):
    var_dir, env = cluster_env
    env = {**env, "PLAYGROUND_STORED_CHECKPOINT_WORK": "2000"}
    a = start_daphne(var_dir, env, name="store")
    b = None
    try:
        first = await LiveSocket.open(a, HASH, seed=6)
        room = (await first.next("hello"))["room"]
        for i in range(24):
            if i % 2:
                action, args = "set_vnodes", {"vnodes": 1 + (i * 29) % 256}
            else:
                action, args = "mark_hot", {"key": f"k{i}", "share_percent": 5 + i}
            await first.send(type="action", ref=f"r{i}", action=action, args=args)
            await first.next("frame", lambda f, i=i: f["ref"] == f"r{i}")
        last = first.frames[-1]
        # a room stores its checkpoints after it has sent the frame (in a thread): the
        # last one may still be on its way
        checkpoints, parts = await settled_rows(database_url, room)
        assert checkpoints >= 5, (checkpoints, a.log())
        assert parts >= 1  # the key set, stored once for all of them

        b = start_daphne(var_dir, env, name="load")
        second = await LiveSocket.open(b, HASH, room=room)
        hello = await second.next("hello")
        assert hello["seq"] == last["seq"]
        assert hello["digest"] == last["digest"]
        loaded = re.search(
            rf"room {room} loaded: (\d+) entries, (\d+) stored checkpoints on its "
            r"branch, (\d+) units replayed",
            b.log(),
        )
        assert loaded, b.log()
        entries, on_branch, replayed = map(int, loaded.groups())
        assert entries == last["seq"]
        assert on_branch == checkpoints
        assert replayed < 2_000 + 12_000  # at most the spacing and one action

        # and it goes on from there, on both
        await second.send(type="action", ref="more", action="add_shard", args={})
        frame = await second.next("frame", lambda f: f["ref"] == "more")
        echoed = await first.next("frame", lambda f: f["seq"] == frame["seq"])
        assert echoed["digest"] == frame["digest"]
        await first.close()
        await second.close()
    finally:
        a.kill()
        if b is not None:
            b.kill()
