"""A room applies in memory first and appends after, in one short transaction a batch.

Before (issue 29) the room's transaction was open while the lab applied the action, and
on SQLite that transaction is the whole server's one write lock. Now nothing that can
take long runs while a database lock is held: the log is appended only after the lab
applied the action and its frame was made; actions that waited meanwhile are applied
together and appended in one transaction; a refusal in the middle of a batch leaves the
others as they were; a failed append stores nothing and sends nothing.
"""

import asyncio

import pytest

from playground import store
from playground.history import History
from playground.models import LogRecord
from playground.rooms import registry
from simulators.engine.declaration import ActionError
from simulators.labs import LABS

SLUG = "quorum"


class Appends:
    """Every call to store.append: the seqs it wrote, and whether the lab was busy."""

    def __init__(self, monkeypatch) -> None:
        self.calls: list[list[int]] = []
        self.applying = 0
        self.during: list[int] = []
        append = store.append

        def counted(room_id, entries, after):
            self.during.append(self.applying)
            self.calls.append([entry.seq for entry in entries])
            return append(room_id, entries, after)

        monkeypatch.setattr(store, "append", counted)
        lab_apply = LABS[SLUG].apply

        def applying(lab, name, args):
            self.applying += 1
            try:
                return lab_apply(lab, name, args)
            finally:
                self.applying -= 1

        monkeypatch.setattr(LABS[SLUG], "apply", applying)


def stored_seqs(room_id: str) -> list[tuple[int, str]]:
    return list(
        LogRecord.objects.filter(room_id=room_id)
        .order_by("seq")
        .values_list("seq", "name")
    )


async def test_actions_that_wait_together_are_appended_together(monkeypatch):
    appends = Appends(monkeypatch)
    room, _ = await registry.create(LABS[SLUG], 3)
    skews = [("set_skew", {"node": "B", "skew_ms": n}) for n in range(12)]
    await asyncio.gather(
        *(room.submit(name, args, f"r{n}") for n, (name, args) in enumerate(skews))
    )
    seqs = [seq for call in appends.calls for seq in call]
    assert seqs == list(range(1, 13))
    assert len(appends.calls) < 12, appends.calls  # batched
    assert appends.during == [0] * len(appends.calls)  # never while a lab applied
    stored = await asyncio.to_thread(stored_seqs, room.id)
    assert stored == [(n, "set_skew") for n in range(1, 13)]
    timeline = History(LABS[SLUG], 3)
    for name, args in skews:
        timeline.apply(name, args)
    assert room.lab.digest() == timeline.lab.digest()


async def test_a_refusal_in_a_batch_changes_nothing_and_the_others_go_on(monkeypatch):
    Appends(monkeypatch)
    room, _ = await registry.create(LABS[SLUG], 3)
    steps = [
        ("set_skew", {"node": "B", "skew_ms": 5}),
        ("stop_node", {"node": "Z"}),  # no such node: refused
        ("set_skew", {"node": "C", "skew_ms": 7}),
    ]
    results = await asyncio.gather(
        *(room.submit(name, args, f"r{n}") for n, (name, args) in enumerate(steps)),
        return_exceptions=True,
    )
    assert results[0] is None and results[2] is None
    assert isinstance(results[1], ActionError)
    assert results[1].code == "no_such_node"
    stored = await asyncio.to_thread(stored_seqs, room.id)
    assert stored == [(1, "set_skew"), (2, "set_skew")]


async def test_a_failed_append_stores_and_sends_nothing_and_the_room_goes_on(
    monkeypatch,
):
    room, _ = await registry.create(LABS[SLUG], 3)
    await room.submit("set_skew", {"node": "B", "skew_ms": 5}, "r0")
    before = room.lab.digest()
    append = store.append

    def failing(room_id, entries, after):
        raise store.Conflict(room_id)  # as if another process had appended first

    monkeypatch.setattr(store, "append", failing)
    sent = []
    monkeypatch.setattr(room, "broadcast", lambda text, **kw: _record(sent, text))
    with pytest.raises(ActionError) as refused:
        await room.submit("set_skew", {"node": "C", "skew_ms": 9}, "r1")
    assert refused.value.code == "try_again"
    assert sent == []  # nobody hears of an action that was not stored
    assert room.seq == 1 and room.lab.digest() == before  # rebuilt from the log
    monkeypatch.setattr(store, "append", append)
    await room.submit("set_skew", {"node": "C", "skew_ms": 9}, "r2")
    assert room.seq == 2
    stored = await asyncio.to_thread(stored_seqs, room.id)
    assert stored == [(1, "set_skew"), (2, "set_skew")]


async def _record(sent: list, text: str) -> None:
    sent.append(text)
