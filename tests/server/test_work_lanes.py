"""The lanes heavy and ordinary work run in: turns by address, least used first."""

import asyncio

import pytest

from playground.rooms.work import Busy, FairLane


def job(log: list, name: str, seconds: float):
    async def start():
        log.append(f"{name} starts")
        await asyncio.sleep(seconds)
        return name

    return start


async def test_a_newcomer_waits_for_the_running_job_not_for_the_queue():
    lane, log = FairLane(1, 100, 1000), []
    busy = [
        asyncio.create_task(lane.run("attacker", job(log, f"a{n}", 0.05)))
        for n in range(5)
    ]
    await asyncio.sleep(0.01)  # a0 is running, a1..a4 wait
    assert await lane.run("newcomer", job(log, "b", 0.01)) == "b"
    assert log == ["a0 starts", "b starts"]
    await asyncio.gather(*busy)


async def test_the_address_that_used_the_lane_least_goes_first():
    lane, log = FairLane(1, 100, 1000), []
    await lane.run("heavy", job(log, "h0", 0.1))  # the heavy address used 0.1 s
    await lane.run("light", job(log, "l0", 0.01))
    blocker = asyncio.create_task(lane.run("other", job(log, "o", 0.05)))
    await asyncio.sleep(0.01)
    # queued in this order while "o" runs: the lighter user still goes first
    heavy = asyncio.create_task(lane.run("heavy", job(log, "h1", 0.01)))
    await asyncio.sleep(0)
    light = asyncio.create_task(lane.run("light", job(log, "l1", 0.01)))
    await asyncio.gather(blocker, heavy, light)
    assert log[-2:] == ["l1 starts", "h1 starts"]


async def test_past_its_share_an_address_is_told_busy_and_must_work_is_not():
    lane, log = FairLane(1, 2, 1000), []
    running = [
        asyncio.create_task(lane.run("a", job(log, f"a{n}", 0.05))) for n in range(2)
    ]
    await asyncio.sleep(0)
    with pytest.raises(Busy):
        await lane.run("a", job(log, "a2", 0.01))
    assert await lane.run("a", job(log, "relayed", 0.01), limited=False) == "relayed"
    await asyncio.gather(*running)
