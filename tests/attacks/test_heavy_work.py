"""Heavy work holds nobody else up, and every frame fits a websocket message.

Before (issue 29): a room appended each action to its log while the lab was applying
it, inside one database transaction; SQLite's write lock is one for the whole server, so
one socket repeating `run_trials 5000` kept every other room's actions waiting 20 s,
until they failed with `internal_error`. And two-phase-commit's bank workload run for
a minute made a 632 KB frame, which daphne does not send: the actor never heard back.
Now a room applies in memory and appends after, in a short transaction; a message
longer than a websocket message goes out in parts.
"""

from websockets.asyncio.client import connect

from playground.liveserver import DAPHNE_LIMITS
from playground.stress import HEAVIEST, Joined, bystander_holds
from simulators.labs import LABS

SOCKET_LIMIT = int(
    DAPHNE_LIMITS[DAPHNE_LIMITS.index("--websocket-max-message-size") + 1]
)


async def test_every_labs_heaviest_work_leaves_a_bystander_under_200_ms(server):
    await bystander_holds(server, LABS, per_lab=1, seconds=10, most=0.2)


async def test_eight_attackers_a_lab_leave_a_bystander_under_a_second(serve):
    await bystander_holds(serve(), HEAVIEST, per_lab=8, seconds=8, most=1.0)


async def test_every_lab_at_its_largest_state_fits_the_socket(server):
    headers = {"Origin": server.origin}
    for slug in sorted(LABS):
        steps = LABS[slug].stress
        assert steps, f"{slug} declares no stress steps"
        # the client refuses, as daphne does, any message over the socket's limit
        async with connect(
            server.ws_url(slug), additional_headers=headers, max_size=SOCKET_LIMIT
        ) as ws:
            joined = Joined(ws)
            hello = await joined.next("hello")
            for number, (name, args) in enumerate(steps, 1):
                answer = await joined.act(f"s{number}", name, args)
                assert answer["type"] == "frame", (slug, name, answer)
        # and the hello of a page opening that room now fits too
        async with connect(
            server.ws_url(slug, room=hello["room"]),
            additional_headers=headers,
            max_size=SOCKET_LIMIT,
        ) as ws:
            again = await Joined(ws).next("hello")
            # (a lab that plays by itself may have ticked since)
            assert again["seq"] >= len(steps), (slug, again["seq"])
