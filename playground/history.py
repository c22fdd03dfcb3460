"""A room's history: the actions that made the current state, a cursor, and checkpoints.

The room's log holds everything that was done, in order; this is the view of it that a
timeline shows. `history` is the list of actions of the current branch; `cursor` says
how many of them the lab shows now. A `seek` entry in the log moves the cursor (the lab
becomes the replay of `history[:cursor]`); an action done while the cursor is in the
past forks: the actions after the cursor leave `history` (the log keeps them, and the
timeline offers a link to the branch they formed) and the new action is appended.

Seeking replays from the nearest checkpoint: a copy of the lab (pickled with what it
shares with other checkpoints as references: playground/checkpoints.py), taken whenever
the actions applied since the last one have declared `CHECKPOINT_WORK` units of replay
work (simulators/engine/cost.py: a unit is about a microsecond; so a seek replays at
most about 5 ms of work) and kept within `CHECKPOINT_BYTES` by thinning out every other
one when the budget is exceeded (after which new ones are taken half as often, so they
stay evenly spread). Declared work, never the clock: the same history has its
checkpoints at the same places in every process, however busy the machine was while it
was built. Every `STORED_CHECKPOINT_WORK` units (as often) one is also stored with
the room (`unstored`, written by the room), and a room loaded from the database is
`outlined` from its log, then `materialized` from its last stored checkpoint; the
others are read from the store when a seek first starts from one, so a room loaded
cold seeks as it did before it left memory. The spacing was chosen by measurement:
docs/benchmarks.md, "Seek and cold load". The state after a
seek is, by construction, the replay of `history[:cursor]` from a fresh lab with the
room's seed.

A timeline is shown in moments, not actions: a moment is what a person did (a write, a
cut, a booking, a step) with the clock's ticks that follow it until the next one. A lab
that plays logs an `advance` ten times a second, so a few clicks and five seconds of
play make 165 actions but three moments. The moments are kept here as actions are
applied and sent with the timeline, so a page, a link's room and a class step by the
same ones (`Lab.starts_moment`, `History.as_dict`).
"""

import bisect
import gc
import logging
import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.utils.translation import gettext_noop

from playground import checkpoints, graph_sql
from playground.checkpoints import Parts, key_of
from simulators.engine.declaration import ActionError
from simulators.engine.lab import Lab
from simulators.labs import LABS

SEEK = "seek"
CHECKPOINT_WORK = 5_000  # declared units of replay work between checkpoints (~5 ms)
CHECKPOINT_BYTES = 64 * 1024 * 1024
# declared work between the checkpoints stored with a room (playground/store.py): as
# in memory, so that a seek in a room loaded from the store replays as little as in
# the room that stored it (at 40,000, a seek after a load replayed up to 40 ms where
# the same room before had replayed 5: docs/benchmarks.md, "Seek end to end"); a
# room loads from the last one, in a thread, and reads the others when a seek needs
# them (PLAYGROUND_STORED_CHECKPOINT_WORK in the environment sets it: tests change it)
STORED_CHECKPOINT_WORK = int(
    os.environ.get("PLAYGROUND_STORED_CHECKPOINT_WORK", CHECKPOINT_WORK)
)
UNSTORED_KEPT = 32  # stored checkpoints waiting to be written, at most
MAX_FORKS_KEPT = 8
# A timeline lists at most this many moments, around the cursor (`History.as_dict`).
MOMENTS_SENT = 200

# Which actions start a moment is the lab's declaration (`ActionSpec.moment`, read by
# `Lab.starts_moment`). A moment is something a person did to the simulated state, and
# what the clock then made of it. `advance` is the room clock's own tick: it belongs to
# the moment before it. `step` is a person moving time to the next event (pausing to
# step through a write's deliveries one by one is the reason to pause): a moment.
# `play`, `pause` and `set_speed` change how the room plays, not what the lab holds:
# the state just before and just after one is the same, so a stop there would show
# nothing new, and people press them while watching the moment they are in, which they
# belong to. Every action of a lab without a clock is a moment.


def new_lab(lab_class: type[Lab], seed: int) -> Lab:
    """A fresh lab with what the playground gives it besides its options
    (`Lab.hosted`: graph-traversal's SQL database, playground/graph_sql.py)."""
    return lab_class(seed=seed, **graph_sql.lab_arguments(lab_class))


@dataclass(frozen=True)
class Entry:
    """One logged action."""

    seq: int
    name: str
    args: dict
    actor: str = ""
    ref: str = ""


class History:
    """The lab, the actions of the current branch, the cursor and checkpoints."""

    def __init__(self, lab_class: type[Lab], seed: int) -> None:
        self.lab_class = lab_class
        self.seed = seed
        self.lab = new_lab(lab_class, seed)
        self.actions: list[Entry] = []
        self.cursor = 0
        # where in `actions` each moment's action sits (sorted): the cursor just before
        # it, which is also the end of the moment before
        self.moments: list[int] = []
        self.forks: list[dict] = []  # branches left behind: {id, at, length, actions}
        self._forked = 0  # forks ever made: each one's id, stable while others come
        self._indexes: list[int] = []  # checkpoint positions, sorted
        self._pickles: dict[int, bytes] = {}  # those held here (not `_unread`)
        self._refs: dict[int, tuple[bytes, ...]] = {}  # the parts each refers to
        self._bytes = 0  # of every checkpoint's pickle held
        # checkpoints stored with the room and not read yet (`outlined`): position ->
        # the log seq they are stored under, read by `fetch(seq)` when first needed
        self._unread: dict[int, int] = {}
        self.fetch: Callable[[int], bytes | None] | None = None
        self.parts = Parts()  # what checkpoints share (playground/checkpoints.py)
        self._last = 0  # where the last checkpoint was taken (0: the fresh lab)
        self._spacing = CHECKPOINT_WORK  # doubles each time the budget thins them
        # checkpoints to store with the room: (log seq, position, pickle, parts),
        # taken every STORED_CHECKPOINT_WORK units from the last (`_stored_last`);
        # the room writes them (`take_unstored`)
        self._stored_last = 0
        self.unstored: list[tuple[int, int, bytes, list]] = []
        # declared replay costs (simulators/engine/cost.py): the work of the actions
        # before each position, and the cost model's scale there
        self.costs = lab_class.cost_model(lab_class)
        self._work = [0]
        self._scales = [self.costs.scale]

    def __getstate__(self) -> dict:
        # `fetch` reads this process's database: a history sent to a worker process
        # (`materialized`) goes without it, and the room sets it again
        return {**self.__dict__, "fetch": None}

    @property
    def length(self) -> int:
        return len(self.actions)

    @property
    def at_end(self) -> bool:
        return self.cursor == len(self.actions)

    def as_dict(self) -> dict:
        """What the timeline shows: the cursor, the branch's length, moments and forks.

        `moments` lists at most `MOMENTS_SENT` of the branch's moments, those around
        the cursor (at least half of them on each side, unless the branch ends
        sooner), so a long class's every frame stays small and Step back and forward
        always find the next stop; `moments_skipped` earlier ones are left out, and
        `moments_total` is how many the branch has.
        """
        total = len(self.moments)
        here = bisect.bisect_left(self.moments, self.cursor)  # moments begun by now
        start = max(0, min(here - MOMENTS_SENT // 2, total - MOMENTS_SENT))
        return {
            "cursor": self.cursor,
            "length": len(self.actions),
            "moments": self.moments[start : start + MOMENTS_SENT],
            "moments_skipped": start,
            "moments_total": total,
            "forks": [
                {
                    "id": f["id"],
                    "at": f["at"],
                    "length": f["length"],
                    # the same, counted in moments (what people did)
                    "at_moment": f["at_moment"],
                    "moments": f["moments"],
                }
                for f in self.forks
            ],
        }

    # -- applying ------------------------------------------------------------------

    def check_seek(self, args: Any) -> int:
        """The target of a `seek`, or an ActionError that changes nothing."""
        if not isinstance(args, dict) or set(args) != {"to"}:
            raise ActionError(
                "bad_args", gettext_noop("seek takes exactly one argument, 'to'")
            )
        to = args["to"]
        if isinstance(to, bool) or not isinstance(to, int):
            raise ActionError(
                "bad_type", gettext_noop("'to' must be a whole number"), "to"
            )
        if not 0 <= to <= len(self.actions):
            raise ActionError(
                "out_of_range",
                gettext_noop("you can seek from 0 to %(end)s (the last action)"),
                "to",
                end=len(self.actions),
            )
        return to

    def apply(self, name: str, args: Any, entry: Entry | None = None) -> list[dict]:
        """Apply an action (or a seek) at the cursor; ActionError leaves all as it was.

        `entry` is the log entry being applied (its `name` and `args` are these); it
        joins the history when the action is accepted.
        """
        if name == SEEK:
            return self._seek(self.check_seek(args))
        events = self.lab.apply(name, args)  # the lab is at the cursor: apply there
        forked = self._record(name, args, entry)
        if self._work[self.cursor] - self._work[self._last] >= self._spacing:
            self._last = self.cursor
            self._checkpoint(self.cursor, self.lab)
        if self._work[self.cursor] - self._work[self._stored_last] >= (
            STORED_CHECKPOINT_WORK
        ):
            self._stored_last = self.cursor
            self._to_store(entry)
        return forked + events

    def _record(
        self, name: str, args: Any, entry: Entry | None, cost: int | None = None
    ) -> list[dict]:
        """Enter an applied action at the cursor: actions, moments, work; a fork.

        `cost` is its declared cost, when the caller knows it (with the cost model's
        scale after it already set)."""
        if cost is None:
            cost = self._charge(name, args)
        forked = []
        if not self.at_end:
            forked = [self._fork()]
        if self.lab_class.starts_moment(name):
            self.moments.append(len(self.actions))
        self.actions.append(entry if entry is not None else Entry(0, name, args))
        self.cursor += 1
        self._work.append(self._work[-1] + cost)
        self._scales.append(self.costs.scale)
        return forked

    def _fork(self) -> dict:
        """Leave the actions after the cursor behind (they stay in the room's log)."""
        dropped = self.actions[self.cursor :]
        at_moment = bisect.bisect_left(self.moments, self.cursor)  # moments begun
        moments_left_behind = len(self.moments) - at_moment
        self._forked += 1
        self.forks.append(
            {
                "id": self._forked,
                "at": self.cursor,
                "length": len(self.actions),
                "actions": self.actions[:],
                "at_moment": at_moment,
                "moments": len(self.moments),
            }
        )
        del self.forks[:-MAX_FORKS_KEPT]
        del self.actions[self.cursor :]
        del self.moments[bisect.bisect_left(self.moments, self.cursor) :]
        del self._work[self.cursor + 1 :]
        del self._scales[self.cursor + 1 :]
        cut = bisect.bisect_right(self._indexes, self.cursor)
        for index in self._indexes[cut:]:
            self._drop(index)
        del self._indexes[cut:]
        self._last = min(self._last, self.cursor)  # work counts on from the fork
        self._stored_last = min(self._stored_last, self.cursor)
        return {
            "type": "forked",
            "fork": self._forked,
            "at": self.cursor,
            "left_behind": len(dropped),
            "at_moment": at_moment,
            "moments_left_behind": moments_left_behind,
        }

    def cost_of(self, name: Any, args: Any) -> int:
        """The declared cost of doing an action at the cursor (ActionError if unfit):
        the model's charge, and the checkpoint pickled after it when one is due."""
        if name == SEEK:
            return self.seek_cost(self.check_seek(args))
        cost = self._charge(name, args)
        work = self._work[self.cursor] + cost
        last = self._work[min(self._last, self.cursor)]
        stored = self._work[min(self._stored_last, self.cursor)]
        if checkpoint_due(work - last, work - stored, self._spacing):
            cost += self.costs.checkpoint()  # at the scale after the action
        return cost

    def _charge(self, name: Any, args: Any) -> int:
        """The model's charge for an action at the cursor (the work between
        checkpoints counts these alone)."""
        self.costs.scale = self._scales[self.cursor]
        return self.costs.cost_of(name, args)

    def seek_cost(self, to: int) -> int:
        """The declared work of replaying to `to` from where a seek would start."""
        start = self._replay_start(to)[1]
        return self._work[to] - self._work[start] if to >= start else 0

    def state_cost(self) -> int:
        """About what making the state at the cursor costs (copying it costs less)."""
        self.costs.scale = self._scales[self.cursor]
        return self.costs.start()

    def _seek(self, to: int) -> list[dict]:
        before = self.cursor
        if to != before:
            # Unpickling and replaying make many small objects at once; the cyclic
            # collector would scan the whole heap again and again meanwhile (measured:
            # 61 ms instead of 5 to restore a quorum lab). Nothing here makes cycles
            # that must be collected sooner, so it waits until the seek is done.
            collecting = gc.isenabled()
            gc.disable()
            try:
                self.lab = self._lab_at(to)
            finally:
                if collecting:
                    gc.enable()
            self.cursor = to
        return [{"type": "seeked", "from": before, "to": to}]

    def _replay_start(self, to: int) -> tuple[str, int]:
        """Where reaching `to` starts: here, a checkpoint, or a fresh lab."""
        slot = bisect.bisect_right(self._indexes, to) - 1
        base = self._indexes[slot] if slot >= 0 else 0
        if base <= self.cursor <= to:  # going forward from here is cheapest
            return "here", self.cursor
        return ("checkpoint", base) if base else ("fresh", 0)

    def _lab_at(self, to: int) -> Lab:
        """The lab after `actions[:to]`, from the nearest base (never mutating it).

        A replay that passes where a checkpoint is due (after a room was loaded
        from its sparser stored checkpoints) leaves one there.
        """
        where, start = self._replay_start(to)
        lab = None
        while where == "checkpoint" and lab is None:
            lab = self._restore(start)
            if lab is None:  # a stored one that could not be read: gone now
                where, start = self._replay_start(to)
        if where == "here":
            lab = self.lab
        elif where == "fresh":
            lab = new_lab(self.lab_class, self.seed)
        last = start
        for position in range(start + 1, to + 1):
            entry = self.actions[position - 1]
            lab.apply(entry.name, entry.args)
            if self._work[position] - self._work[last] >= self._spacing:
                last = position
                if position not in self._refs and position != to:
                    self._checkpoint(position, lab)
        return lab

    def _restore(self, position: int) -> Lab | None:
        """The lab of the checkpoint at `position`; None if it was stored with the
        room and cannot be read (it is forgotten: a seek then replays from an
        earlier one, and the state is the same)."""
        data = self._pickles.get(position)
        if data is not None:
            return self.parts.loads(data)
        data = self._read(position)
        try:
            return None if data is None else self.parts.loads(data)
        except Exception:
            logging.getLogger(__name__).exception(
                "a stored checkpoint could not be read; replaying from another"
            )
            self._forget(position)
            return None

    def _read(self, position: int) -> bytes | None:
        """Read the stored checkpoint at `position` into memory: its pickle, or None
        when it cannot be read (then it is forgotten)."""
        seq = self._unread.pop(position)
        try:
            data = self.fetch(seq) if self.fetch is not None else None
        except Exception:
            logging.getLogger(__name__).exception(
                "the checkpoint stored after entry %d could not be read", seq
            )
            data = None
        if data is None:
            self._unread[position] = seq
            self._forget(position)
            return None
        self._pickles[position] = data
        self._bytes += len(data)
        self._thin()
        return data

    def _forget(self, position: int) -> None:
        """Drop the checkpoint at `position`, and its place among the others."""
        self._drop(position)
        self._indexes.remove(position)

    def _checkpoint(self, position: int, lab: Lab) -> None:
        """Keep a checkpoint of `lab`, the state at `position`."""
        if position in self._refs:
            return
        data, keys = self.parts.dumps(lab)
        self._pickles[position] = data
        self._refs[position] = keys
        self._bytes += len(data)
        bisect.insort(self._indexes, position)
        self._thin()

    def _thin(self) -> None:
        """Keep the checkpoints held within `CHECKPOINT_BYTES`."""
        while self._bytes > CHECKPOINT_BYTES:
            if len(self._indexes) <= 1:
                for index in self._indexes:
                    self._drop(index)
                self._indexes.clear()
                break
            for index in self._indexes[::2]:  # thin out: keep every other one
                self._drop(index)
            self._indexes = self._indexes[1::2]
            self._spacing *= 2  # and take new ones as sparsely as the kept ones

    def _drop(self, position: int) -> None:
        """Forget the checkpoint at `position` (the caller fixes `_indexes`)."""
        if self._unread.pop(position, None) is None:
            self._bytes -= len(self._pickles.pop(position))
        self.parts.release(self._refs.pop(position))

    def _to_store(self, entry: Entry | None) -> None:
        """Note a checkpoint of the lab now, to be stored with the room."""
        if entry is None or entry.seq <= 0:
            return  # not from a room's log: nothing to store it with
        data = self._pickles.get(self.cursor)
        if data is None:  # none here (or one stored already, not read)
            data, keys = self.parts.dumps(self.lab)
            parts = [self.parts.objects[key] for key in keys]
            self.parts.release(keys)  # held by the list below, not by a checkpoint
        else:
            parts = [self.parts.objects[key] for key in self._refs[self.cursor]]
        self.unstored.append((entry.seq, self.cursor, data, parts))
        del self.unstored[:-UNSTORED_KEPT]

    def take_unstored(self) -> list[tuple[int, int, bytes, list]]:
        """The checkpoints due to be stored with the room, handed over once."""
        taken, self.unstored = self.unstored, []
        return taken

    def copy(self) -> "History":
        """An independent copy for a new room: the lab copied, checkpoints shared."""
        shared: dict[bytes, Any] = {}

        def found(part) -> bytes:
            shared[key_of(part)] = part
            return key_of(part)

        # the lab's own state copied, what it shares (settled blocks) shared
        twin = checkpoints.loads(checkpoints.dumps(self.lab, found), shared.__getitem__)
        clone = object.__new__(History)
        clone.__dict__.update(self.__dict__)
        clone.lab = twin
        clone.actions = list(self.actions)
        clone.moments = list(self.moments)
        clone.forks = [dict(f) for f in self.forks]
        clone._indexes = list(self._indexes)
        clone._pickles = dict(self._pickles)  # bytes: shared, never changed
        clone._refs = dict(self._refs)
        clone._unread = dict(self._unread)  # read from the room they are stored with
        clone.parts = self.parts.copy()
        clone.unstored = []
        clone.costs = self.lab_class.cost_model(self.lab_class)
        clone._work = list(self._work)
        clone._scales = list(self._scales)
        return clone

    def replay(self) -> Lab:
        """A fresh lab with the current branch's actions up to the cursor applied."""
        lab = new_lab(self.lab_class, self.seed)
        for entry in self.actions[: self.cursor]:
            lab.apply(entry.name, entry.args)
        return lab


def checkpoint_due(since_last: int, since_stored: int, spacing: int) -> bool:
    """Whether an action that brings the work since the last checkpoint, and since
    the last stored one, to these is followed by a checkpoint (`History.apply`)."""
    return since_last >= spacing or since_stored >= STORED_CHECKPOINT_WORK


def declared_work(lab_class: type[Lab], steps) -> int:
    """The declared work of replaying `(name, args)` steps on a fresh lab.

    Replays nothing (simulators/engine/cost.py): the actions' charges, and the
    checkpoints a replay pickles on the way, where `History.apply` takes them. Seeks
    cost what replaying from a checkpoint costs, which the spacing of checkpoints
    bounds: they count nothing here. An invalid step raises its ActionError, with
    `step` set to its number.
    """
    costs = lab_class.cost_model(lab_class)
    total = costs.start()
    work = last = stored = 0
    for number, (name, args) in enumerate(steps, start=1):
        if name == SEEK:
            continue
        try:
            cost = costs.cost_of(name, args)
        except ActionError as error:
            error.step = number
            raise
        total += cost
        work += cost
        if checkpoint_due(work - last, work - stored, CHECKPOINT_WORK):
            total += costs.checkpoint()
            if work - last >= CHECKPOINT_WORK:
                last = work
            if work - stored >= STORED_CHECKPOINT_WORK:
                stored = work
    return total


def replayed(slug: str, seed: int, entries: list[Entry]) -> History:
    """The history a stored log makes, replayed from a fresh lab (seeks included).

    Runs in a worker process for a heavy log (playground/rooms/work.py).
    """
    history = History(LABS[slug], seed)
    for entry in entries:
        history.apply(entry.name, entry.args, entry)
    return history


def outlined(
    slug: str,
    seed: int,
    entries: list[Entry],
    stored: dict[int, tuple[bytes | None, tuple[bytes, ...]]],
    parts: dict[bytes, bytes],
    fetch: Callable[[int], bytes | None] | None = None,
) -> History:
    """A stored room's history without its lab yet: `materialized` makes that.

    Every entry of the log is entered (actions, moments, forks, declared work: what
    the cost model says, no lab applied), then the stored checkpoints that lie on
    the current branch become the history's checkpoints (a checkpoint taken after
    entry `seq` is the state at that entry's place on the branch through it). What
    is left is the replay from the last of them to the cursor (`replay_work`).

    `stored` maps a seq to `(pickle, part keys)`; a pickle of None is read by
    `fetch(seq)` when first needed (a seek that starts there), and the last one
    before the cursor now, so a room loaded from the store seeks from checkpoints as
    close together as the room that stored them had, and reads only those it uses.
    """
    history = History(LABS[slug], seed)
    costs = history.costs
    # a long log repeats a few actions (the clock's tick above all): the cost of
    # the same action, from the same scale, is worked out once
    known: dict[tuple, tuple[int, tuple]] = {}
    # and an action's arguments are checked once, whatever the scale (a lab whose
    # scale changes with every write, range-splits', rarely meets the same one twice)
    checked: dict[tuple, tuple] = {}
    for entry in entries:
        if entry.name == SEEK:
            history.cursor = history.check_seek(entry.args)
            continue
        scale = history._scales[history.cursor]
        try:
            action = (entry.name, *sorted(entry.args.items()))
            key = (scale, *action)
            cost, after = known[key]
        except TypeError:  # an argument that is not hashable: no shortcut
            cost = history._charge(entry.name, entry.args)
        except KeyError:
            spec_args = checked.get(action)
            if spec_args is None:
                spec = history.lab_class.action_spec(entry.name)
                spec_args = checked[action] = spec, spec.validate(entry.args)
            costs.scale = scale
            cost = costs.charge(*spec_args)
            known[key] = cost, costs.scale
        else:
            costs.scale = after
        history._record(entry.name, entry.args, entry, cost)
    where = {entry.seq: place for place, entry in enumerate(history.actions, 1)}
    history.parts.stored = parts
    for seq, (data, keys) in stored.items():
        position = where.get(seq)
        if position is None or position in history._refs:
            continue  # taken on a branch since left behind
        if data is None:
            history._unread[position] = seq
        else:
            history._pickles[position] = data
            history._bytes += len(data)
        history._refs[position] = keys
        history.parts.hold(keys)
        history._indexes.append(position)
    history._indexes.sort()
    history._last = history._stored_last = (
        history._indexes[-1] if history._indexes else 0
    )
    history.fetch = fetch
    while True:  # the one `materialized` starts from, read (or those that fail, gone)
        slot = bisect.bisect_right(history._indexes, history.cursor) - 1
        base = history._indexes[slot] if slot >= 0 else 0
        if base not in history._unread or history._read(base) is not None:
            return history


def replay_work(history: History) -> int:
    """The declared work `materialized` has left to do for an outlined history: the
    actions after the last checkpoint before the cursor (restoring one costs about
    what copying the state does, which the actions' costs already cover)."""
    slot = bisect.bisect_right(history._indexes, history.cursor) - 1
    base = history._indexes[slot] if slot >= 0 else 0
    return history._work[history.cursor] - history._work[base]


def materialized(history: History) -> History:
    """An outlined history with its lab at the cursor: from the last checkpoint
    before it, the rest replayed. A checkpoint that cannot be read is dropped, and
    the lab is replayed from the start instead (runs in a worker process when that
    is heavy: playground/rooms/work.py)."""
    to = history.cursor
    history.cursor = 0  # the lab the history was made with is the fresh one
    # as in a seek (`History._seek`), the cyclic collector waits: restoring a long
    # room's checkpoint makes its parts, thousands of objects at once, and a full
    # collection meanwhile (0.2-0.4 s with a few long rooms in memory) counted
    # against the load's budget and stopped it (partition-cap at 50,000 actions)
    collecting = gc.isenabled()
    gc.disable()
    try:
        history.lab = history._lab_at(to)
    except Exception:
        logging.getLogger(__name__).exception(
            "a stored checkpoint could not be read; replaying the whole log"
        )
        for position in history._indexes:
            history._drop(position)
        history._indexes.clear()
        history._last = history._stored_last = 0
        history.lab = new_lab(history.lab_class, history.seed)
        history.lab = history._lab_at(to)
    finally:
        history.cursor = to
        if collecting:
            gc.enable()
    return history
