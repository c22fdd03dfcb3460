"""A room with a long history loads from its stored checkpoints, holding nobody up.

Before: the first visitor to a stored 10,000-action room waited 29-36 s for `hello`,
and everyone else in that process waited with them. Now the room's log is outlined
without a lab, its last stored checkpoint restored and only the tail replayed; a
bystander opening another lab meanwhile still gets `hello` and a frame within a second.
"""

import asyncio
import json
import re
import subprocess
import sys

from playground.liveserver import ROOT, LiveSocket, server_env

# builds a seeded history as a room logs it, stores it in the server's database with
# the checkpoints it took, and prints the room's id and final digest
STORE = """
import json, os, sys
import django
django.setup()
from benchmarks.seek import build, store_room
slug, count = sys.argv[1], int(sys.argv[2])
stored = []
timeline = build(slug, count, stored)
room = store_room(slug, timeline, stored, f"p-{slug[:4]}long")
print(json.dumps({"room": room, "digest": timeline.lab.digest()}))
"""


def stored_room(var_dir, slug: str, count: int) -> dict:
    done = subprocess.run(
        [sys.executable, "-c", STORE, slug, str(count)],
        cwd=ROOT,
        env={**server_env(var_dir), "DJANGO_SETTINGS_MODULE": "playground.settings"},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


async def test_long_stored_rooms_load_from_checkpoints_and_starve_nobody(
    serve, bystander
):
    # the bystander stands for many newcomers, each with an allowance of rooms of its
    # own: unpaced, one address opened 121 rooms in two seconds and met its 120 a minute
    server = serve(PLAYGROUND_ROOMS_PER_ADDRESS="100000/minute")
    var_dir = server.log_path.parent
    rooms = {
        slug: stored_room(var_dir, slug, 10_000) for slug in ("quorum", "partition-cap")
    }
    waits = []
    stop = asyncio.Event()

    async def watch():
        while not stop.is_set():
            waits.append(await bystander(server))

    watcher = asyncio.create_task(watch())
    try:
        for slug, room in rooms.items():
            socket = await LiveSocket.open(server, slug, room=room["room"])
            hello = await socket.next("hello", timeout=30)
            await socket.close()
            assert hello["room"] == room["room"]
            assert hello["seq"] == 10_000
            assert hello["digest"] == room["digest"]
            loaded = re.search(
                rf"room {room['room']} loaded: 10000 entries, (\d+) stored "
                r"checkpoints on its branch, (\d+) units replayed",
                server.log(),
            )
            assert loaded, server.log()
            assert int(loaded[1]) > 10 and int(loaded[2]) < 50_000
        await asyncio.sleep(0.5)
    finally:
        stop.set()
        await watcher
    assert waits
    for hello_s, frame_s in waits:
        assert hello_s < 1 and frame_s < 1, waits
