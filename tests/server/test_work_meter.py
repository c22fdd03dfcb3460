"""The work meter: work past its budget is stopped, whatever its declaration said.

Declared costs are estimates, and a wrong one must not let a visitor hold a core: an
action or a replay that uses more CPU time than its declaration allows (times
PLAYGROUND_WORK_MARGIN, at least PLAYGROUND_WORK_FLOOR_UNITS) is stopped. Here a lab's
cost model is made to lie (every action costs one unit) and the floor is small, so a
load of keys that takes tenths of a second passes its budget many times over.
"""

import gc
import json
import threading
import time

import pytest
from channels.testing import WebsocketCommunicator

from playground.asgi import application
from playground.history import Entry, replayed
from playground.links import make_link
from playground.meter import Stopped, WorkExceeded, meter, metered
from playground.rooms import memory, registry
from playground.rooms import room as room_module
from playground.rooms.work import TooSlow
from simulators.engine.cost import CostModel
from simulators.labs import LABS

ORIGIN = [(b"origin", b"http://127.0.0.1")]
SLUG = "hash-placement"
LOAD = {"kind": "registration", "count": 200_000}  # tenths of a second of work


def spin(count: int) -> int:
    total = 0
    for number in range(count):
        total += number
    return total


# -- the meter itself ----------------------------------------------------------------


def test_work_past_its_budget_is_stopped_soon_after():
    started = time.thread_time()
    with pytest.raises(WorkExceeded):
        meter.run(50_000, spin, 10**10)  # 50 ms of a loop that would take minutes
    used = time.thread_time() - started
    assert 0.05 <= used < 0.5, used


def test_work_within_its_budget_returns_its_result_and_leaves_nothing_behind():
    assert meter.run(1_000_000, spin, 1000) == 499_500
    # no stop is left pending for the thread: the lines after run as usual
    assert spin(200_000) == 19_999_900_000


def test_waiting_is_not_work():
    started = time.monotonic()
    meter.run(10_000, time.sleep, 0.2)  # 10 ms of CPU allowed, 200 ms asleep
    assert time.monotonic() - started >= 0.2


def test_the_collectors_time_is_not_the_works():
    """A full collection that comes due during an action walks the whole process's
    heap: in a test worker with a large heap it took a quarter of a second, stopped an
    honest mark_hot at the 250,000-unit floor, and the stop landed in a collector's
    callback. Its time moves the work's deadline; the work after it is still metered."""
    heap = [[[]] for _ in range(1_500_000)]  # tracked objects the collector walks
    started = time.thread_time()
    gc.collect()
    collection = time.thread_time() - started
    assert collection > 0.02, collection  # well past the budget below
    assert meter.run(10_000, gc.collect) == 0  # 10 ms allowed: the collection is free
    with pytest.raises(WorkExceeded):
        meter.run(10_000, lambda: (gc.collect(), spin(10**10)))  # the loop is not
    del heap


def test_threads_are_metered_each_on_its_own_clock():
    outcomes = {}

    def work(name: str, units: int, count: int) -> None:
        try:
            meter.run(units, spin, count)
            outcomes[name] = "done"
        except WorkExceeded:
            outcomes[name] = "stopped"

    threads = [
        threading.Thread(target=work, args=("runaway", 30_000, 10**10)),
        threading.Thread(target=work, args=("honest", 5_000_000, 100_000)),
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert outcomes == {"runaway": "stopped", "honest": "done"}


def test_metered_raises_an_exception_a_worker_process_can_send_back():
    with pytest.raises(Stopped):
        metered(20_000, spin, 10**10)
    assert metered(1_000_000, spin, 10) == 45


# -- in the server -------------------------------------------------------------------


class Lying(CostModel):
    """Loading keys declares one unit, whatever it does; the rest declare plenty.

    The honest actions get 200 ms, far more than the few milliseconds they take: a
    budget at the floor (20 ms) was passed now and then by an add_shard that met a
    garbage collection, and the test failed on the wrong action.
    """

    def charge(self, spec, args):
        return 1 if spec.name == "load_keys" else 100_000


@pytest.fixture
def lying_lab(monkeypatch, settings):
    lab = LABS[SLUG]
    monkeypatch.setattr(lab, "cost_model", Lying)
    monkeypatch.setattr(lab, "creation_cost", 1)
    monkeypatch.setattr(lab, "frame_cost", 1)
    settings.PLAYGROUND_WORK_FLOOR_UNITS = 20_000  # 20 ms
    return lab


async def open_socket(path: str):
    communicator = WebsocketCommunicator(application, path, headers=ORIGIN)
    connected, _ = await communicator.connect()
    assert connected
    return communicator


async def next_of(communicator, kind: str) -> dict:
    while True:
        message = json.loads(await communicator.receive_from(timeout=10))
        if message["type"] == kind:
            return message


async def test_an_action_past_its_budget_is_stopped_and_changes_nothing(lying_lab):
    communicator = await open_socket(f"/ws/labs/{SLUG}/")
    hello = await next_of(communicator, "hello")
    await communicator.send_json_to(
        {"type": "action", "ref": "a", "action": "add_shard", "args": {}}
    )
    added = await next_of(communicator, "frame")
    await communicator.send_json_to(
        {"type": "action", "ref": "b", "action": "load_keys", "args": LOAD}
    )
    error = await next_of(communicator, "error")
    assert (error["code"], error["ref"]) == ("too_slow", "b")
    assert "was stopped; nothing changed" in error["message"]
    room = registry.get(hello["room"])
    # rebuilt from its log: the shard added, the keys not loaded
    assert room.seq == 1
    assert room.lab.digest() == added["digest"]
    # and the room goes on
    await communicator.send_json_to(
        {"type": "action", "ref": "c", "action": "add_shard", "args": {}}
    )
    frame = await next_of(communicator, "frame")
    assert (frame["ref"], frame["seq"]) == ("c", 2)
    await communicator.disconnect()


async def test_a_room_whose_rebuild_fails_too_loads_again_before_acting(
    lying_lab, monkeypatch
):
    """An action stopped midway may leave the replica half-changed; if rebuilding it
    from the log fails as well (its replay stopped on a busy machine), the room must
    not act on that replica again: it loads the log before the next action."""
    loads = []
    load_history = room_module.load_history

    async def stopped_once(*args):
        loads.append(args)
        if len(loads) == 1:
            raise TooSlow(1_000_000)
        return await load_history(*args)

    monkeypatch.setattr(room_module, "load_history", stopped_once)
    communicator = await open_socket(f"/ws/labs/{SLUG}/")
    hello = await next_of(communicator, "hello")
    room = registry.get(hello["room"])
    await communicator.send_json_to(
        {"type": "action", "ref": "a", "action": "add_shard", "args": {}}
    )
    assert (await next_of(communicator, "frame"))["seq"] == 1
    await communicator.send_json_to(
        {"type": "action", "ref": "b", "action": "load_keys", "args": LOAD}
    )
    error = await next_of(communicator, "error")
    assert (error["code"], error["ref"]) == ("too_slow", "b")
    assert len(loads) == 1 and memory.resting(room)
    await communicator.send_json_to(
        {"type": "action", "ref": "c", "action": "add_shard", "args": {}}
    )
    frame = await next_of(communicator, "frame")
    assert (frame["ref"], frame["seq"]) == ("c", 2)
    assert len(loads) == 2  # loaded from the log first
    steps = [Entry(1, "add_shard", {}), Entry(2, "add_shard", {})]
    assert frame["digest"] == replayed(SLUG, 0, steps).lab.digest()
    await communicator.disconnect()


async def test_a_link_past_its_budget_is_refused_with_the_reason(lying_lab):
    steps = [Entry(1, "load_keys", LOAD)]  # declared 1 unit: a budget at the floor
    link = make_link(SLUG, 1, steps, 1)
    communicator = await open_socket(f"/ws/labs/{SLUG}/?link={link}")
    error = json.loads(await communicator.receive_from(timeout=10))
    assert (error["type"], error["code"], error["ref"]) == ("error", "bad_link", "link")
    assert "was stopped" in error["message"]
    hello = await next_of(communicator, "hello")
    assert hello["seq"] == 0  # a fresh lab instead
    await communicator.disconnect()


async def test_an_action_declared_past_what_one_action_may_take_is_refused(settings):
    settings.PLAYGROUND_ACTION_BUDGET_UNITS = 1_000_000
    communicator = await open_socket(f"/ws/labs/{SLUG}/")
    await next_of(communicator, "hello")
    args = {"kind": "registration", "count": 1_000_000}
    await communicator.send_json_to(
        {"type": "action", "ref": "k", "action": "load_keys", "args": args}
    )
    error = await next_of(communicator, "error")
    assert (error["code"], error["ref"]) == ("too_heavy", "k")
    assert "one action may take at most 1.0 s" in error["message"]
    await communicator.disconnect()
