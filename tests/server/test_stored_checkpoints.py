"""Rooms store checkpoints with their log, and load from the last one (issue 11).

A room takes a checkpoint every `STORED_CHECKPOINT_WORK` units of declared work and
stores it with its parts; a room loaded from the database (after a restart, or once
it left memory) outlines its log without a lab, restores the last checkpoint on its
branch and replays only the actions after it. The state is the one a replay of the
whole log reaches; a checkpoint that cannot be read, or was stored by other code,
only means a longer replay.
"""

import asyncio

import pytest

from playground import history as history_module
from playground import store
from playground.checkpoints import Parts
from playground.models import CheckpointPart, CheckpointRecord, RoomRecord
from playground.rooms import registry
from simulators.engine.declaration import ActionError
from simulators.labs import LABS

SEED = 17
QUORUM = [
    ("write", {"w": "ONE", "coordinator": "A"}),
    ("advance", {"ms": 30}),
    ("read", {"r": "QUORUM", "coordinator": "B"}),
    ("cut_link", {"link": "A-C"}),
    ("write", {"w": "QUORUM", "coordinator": "C"}),
    ("advance", {"ms": 450}),
    ("heal_all", {}),
    ("read", {"r": "ONE", "coordinator": "C"}),
    ("advance", {"ms": 60}),
]


@pytest.fixture
def small_spacing(monkeypatch):
    """Stored checkpoints every 20,000 units: a few dozen actions make several."""
    monkeypatch.setattr(history_module, "STORED_CHECKPOINT_WORK", 20_000)


def run(coroutine):
    return asyncio.run(coroutine)


async def made(slug: str, steps: list) -> str:
    """A stored room of `slug` with `steps` done in it; its id (left in memory)."""
    room, _ = await registry.create(LABS[slug], SEED)
    for number, (name, args) in enumerate(steps):
        await room.submit(name, args, f"r{number}")
    return room.id


async def reloaded(room_id: str):
    """The room as a fresh load from the database makes it (it leaves memory)."""
    room = registry.get(room_id)
    if room is not None:
        room.clock.stop()
        del registry.rooms[room_id]
        await room.relay.disconnect()
    return await registry.load(room_id)


def replayed_state(slug: str, steps: list) -> str:
    """The digest and timeline the current branch reaches replayed from scratch
    (seeks included)."""
    timeline = history_module.History(LABS[slug], SEED)
    for name, args in steps:
        timeline.apply(name, args)
    return timeline.lab.digest(), timeline.as_dict()


class Applies:
    """Counts the actions a lab class applies."""

    def __init__(self, monkeypatch, lab_class):
        self.count = 0
        apply = lab_class.apply

        def counted(lab, name, args):
            self.count += 1
            return apply(lab, name, args)

        monkeypatch.setattr(lab_class, "apply", counted)


def test_a_room_stores_checkpoints_and_loads_from_the_last_one(
    small_spacing, monkeypatch
):
    steps = QUORUM * 30  # 270 actions, a few hundred units each

    async def scenario():
        room_id = await made("quorum", steps)
        stored = CheckpointRecord.objects.filter(room_id=room_id)
        assert await asyncio.to_thread(stored.count) >= 3
        applies = Applies(monkeypatch, LABS["quorum"])
        room = await reloaded(room_id)
        return room, applies.count

    room, applied = run(scenario())
    digest, timeline = replayed_state("quorum", steps)
    assert room.lab.digest() == digest
    assert room.history.as_dict() == timeline
    # only the actions after the last stored checkpoint were replayed
    last = max(CheckpointRecord.objects.values_list("seq", flat=True))
    assert applied == len(steps) - last
    assert applied < 100


def test_the_loaded_room_goes_on_and_seeks_like_the_first(small_spacing):
    steps = QUORUM * 20

    async def scenario():
        room_id = await made("quorum", steps)
        room = await reloaded(room_id)
        await room.submit("seek", {"to": 17}, "s")
        early = room.lab.digest()
        await room.submit("seek", {"to": len(steps)}, "e")
        await room.submit("write", {"w": "ALL", "coordinator": "B"}, "w")
        return early, room.lab.digest()

    early, after = run(scenario())
    assert early == replayed_state("quorum", steps[:17])[0]
    assert (
        after
        == replayed_state(
            "quorum", steps + [("write", {"w": "ALL", "coordinator": "B"})]
        )[0]
    )


def test_checkpoints_of_a_branch_left_behind_are_not_used(small_spacing):
    """Seek back, act (the history forks), go on: the old branch's checkpoints are
    in the database, and the load must not take them for the new branch's."""
    before, after = QUORUM * 20, QUORUM * 8
    steps = before + [("seek", {"to": 36})] + after

    async def scenario():
        room_id = await made("quorum", steps)
        return await reloaded(room_id)

    room = run(scenario())
    digest, timeline = replayed_state("quorum", steps)
    assert room.lab.digest() == digest
    assert room.history.as_dict() == timeline
    assert room.history.length == 36 + len(after)


def test_an_unreadable_checkpoint_means_a_longer_replay_not_a_wrong_state(
    small_spacing, monkeypatch
):
    steps = QUORUM * 20

    async def scenario():
        room_id = await made("quorum", steps)
        await asyncio.to_thread(
            CheckpointRecord.objects.filter(room_id=room_id).update,
            data=b"not a pickle",
        )
        applies = Applies(monkeypatch, LABS["quorum"])
        room = await reloaded(room_id)
        return room, applies.count

    room, applied = run(scenario())
    assert room.lab.digest() == replayed_state("quorum", steps)[0]
    assert applied >= len(steps)  # replayed from the start instead


def test_checkpoints_stored_by_other_code_are_not_read(
    small_spacing, monkeypatch, settings
):
    settings.PLAYGROUND_REPLAY_PROCESS_UNITS = 10**9  # replayed here, where counted
    steps = QUORUM * 20

    async def scenario():
        room_id = await made("quorum", steps)
        await asyncio.to_thread(
            CheckpointRecord.objects.filter(room_id=room_id).update, code="older"
        )
        applies = Applies(monkeypatch, LABS["quorum"])
        room = await reloaded(room_id)
        return room, applies.count

    room, applied = run(scenario())
    assert room.lab.digest() == replayed_state("quorum", steps)[0]
    assert applied == len(steps)


def test_parts_are_stored_once_and_deleted_with_the_room(small_spacing):
    steps = QUORUM * 60  # enough settled operations to seal blocks

    async def scenario():
        return await made("quorum", steps)

    room_id = run(scenario())
    keys = list(
        CheckpointPart.objects.filter(room_id=room_id).values_list("key", flat=True)
    )
    assert keys and len(keys) == len(set(map(bytes, keys)))
    stored, parts = store.load_checkpoints(room_id)
    for _data, refs in stored.values():
        assert all(key in parts for key in refs)
    RoomRecord.objects.filter(pk=room_id).delete()
    assert not CheckpointPart.objects.filter(room_id=room_id).exists()
    assert not CheckpointRecord.objects.filter(room_id=room_id).exists()


@pytest.mark.parametrize("slug", ["quorum"])
def test_a_checkpoint_stays_the_same_size_as_the_history_grows(slug):
    """Settled operations live in blocks the checkpoints share, not copy."""
    timeline = history_module.History(LABS[slug], SEED)
    sizes = {}
    for count in (1_000, 8_000):
        while timeline.length < count:
            for name, args in QUORUM:
                try:
                    timeline.apply(name, args)
                except ActionError:  # sold out: reads and cuts go on
                    continue
        sizes[count] = len(Parts().dumps(timeline.lab)[0])
    assert sizes[8_000] < 1.2 * sizes[1_000], sizes


def test_a_room_whose_parts_are_too_big_stores_no_checkpoint_and_loads_by_replay(
    small_spacing, monkeypatch
):
    """A million keys would make every room that loads them write megabytes: over
    the bound, nothing is stored, and the room comes back from its log alone."""
    from playground.rooms import room as room_module

    monkeypatch.setattr(room_module, "STORED_PART_BYTES", 20_000)  # < 10,000 keys
    steps = [("add_shard", {}), ("set_vnodes", {"vnodes": 40}), ("add_shard", {})]

    async def scenario():
        room_id = await made("hash-placement", steps)
        assert registry.get(room_id).too_big
        return room_id, await reloaded(room_id)

    room_id, room = run(scenario())
    assert not CheckpointRecord.objects.filter(room_id=room_id).exists()
    assert not CheckpointPart.objects.filter(room_id=room_id).exists()
    assert room.lab.digest() == replayed_state("hash-placement", steps)[0]
