"""Seek and cold load at 1,000, 10,000 and 50,000 actions, for every lab (issue 11).

For each lab, in a fresh process of its own with a SQLite database of its own: a
seeded script of accepted actions is applied to a `playground.history.History` for
each length, numbered as a room's log numbers them, and the room is stored with the
checkpoints it took (the record, the log, `CheckpointRecord`s and their parts). Then
the lengths are measured side by side, taking turns, so a busy spell of a shared
machine weighs on each alike:

- **seek**: 1,000 seeks to seeded random points per length (the issue asks for at
  least 200), each timed in wall-clock time (what a user waits); the row shows p50,
  p99 and the worst. Target: p99 under 50 ms at every length, and each longer
  history's p99 within 1.5x of the 1,000-action one (flat).
- **cold load**: the room loaded as a server loads it after a restart
  (`playground.rooms.room.load_history`: read the log and the checkpoints, outline
  the log, restore the last checkpoint, replay the tail), five times; the row shows
  the median and the worst. Target: under 1 s at 10,000 and 50,000 actions.
- **memory**: how much the process grew while each history was built (the lab, the
  log, the checkpoints and what they share: about what a room of that length holds),
  and the checkpoints' own bytes.

Run alone: `python -m benchmarks.seek [--quick] [--lengths 1000,10000]`.
"""

import argparse
import asyncio
import multiprocessing
import os
import random
import statistics
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "playground.settings")
django.setup()

from benchmarks import seek_live  # noqa: E402
from benchmarks.timing import Row, Timing, machine_load, render  # noqa: E402
from playground.history import Entry, History  # noqa: E402
from simulators.engine.declaration import ActionError  # noqa: E402
from simulators.labs import LABS, REGISTRY  # noqa: E402

LENGTHS = (1_000, 10_000, 50_000)
SEEKS = 1_000  # the issue asks for at least 200: the p99 is then the 10th worst
LOADS = 5
SEEK_TARGET_MS = 50.0
FLAT_RATIO = 1.5
LOAD_TARGET_S = 1.0


def script(slug: str, rng: random.Random):
    """An endless seeded stream of (action, args) typical of the lab (its manifest's
    `random_action`, simulators/labs/<lab>/manifest.py)."""
    draw = REGISTRY[slug].random_action
    while True:
        yield draw(rng)


def build(slug: str, count: int, stored: list | None = None) -> History:
    """A history of `count` accepted actions, numbered from 1 like a room's log;
    the checkpoints it takes to store with the room are appended to `stored`."""
    rng = random.Random(11)
    timeline = History(LABS[slug], 11)
    stream = script(slug, rng)
    while timeline.length < count:
        name, args = next(stream)
        entry = Entry(timeline.length + 1, name, args)
        try:
            timeline.apply(name, args, entry)
        except ActionError:
            continue
        if stored is not None:
            stored.extend(timeline.take_unstored())
    return timeline


def resident_bytes() -> int:
    """This process's resident memory now."""
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def percentile(ordered: list[float], share: float) -> float:
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def measure(slug: str, lengths: tuple, seeks: int, loads: int) -> dict:
    """One lab at every length (runs in a process of its own, with its own database).

    The histories are built one after the other (each one's memory is what the
    process grew by meanwhile), then measured side by side: seek `i` of every
    length runs before seek `i + 1` of any, and the loads take turns likewise, so a
    busy spell of the machine weighs on every length alike and the flatness ratio
    compares like with like.
    """
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    results: dict[int, dict] = {}
    timelines: dict[int, History] = {}
    for count in lengths:
        before = resident_bytes()
        stored: list = []
        started = time.perf_counter()
        timeline = build(slug, count, stored)
        results[count] = {
            "built_s": time.perf_counter() - started,
            "memory_bytes": resident_bytes() - before,
            "work": timeline._work[-1],
            "stored": len(stored),
            "room": store_room(slug, timeline, stored, f"p-bench{count}"),
            "stored_bytes": stored_bytes(f"p-bench{count}"),
            "seeks_ms": [],
            "loads_s": [],
        }
        timelines[count] = timeline
    rngs = {count: random.Random(3) for count in lengths}
    for _ in range(seeks):
        for count, timeline in timelines.items():
            to = rngs[count].randint(0, count)
            started = time.perf_counter()
            timeline.apply("seek", {"to": to})
            results[count]["seeks_ms"].append(1000 * (time.perf_counter() - started))
    for _ in range(loads):
        for count, timeline in timelines.items():
            started = time.perf_counter()
            loaded = asyncio.run(_load(results[count]["room"]))
            results[count]["loads_s"].append(time.perf_counter() - started)
            timeline.apply("seek", {"to": count})
            assert loaded.lab.digest() == timeline.lab.digest()
    for count, timeline in timelines.items():
        results[count]["seeks_ms"].sort()
        results[count]["checkpoints"] = len(timeline._indexes)
        results[count]["checkpoint_bytes"] = timeline._bytes
    return results


async def _load(room_id: str):
    from playground.rooms.room import load_history

    return (await load_history(room_id, "benchmark"))[2]


def store_room(
    slug: str, timeline: History, stored: list, room_id: str = "p-benchmark"
) -> str:
    """The room as a server stores it: the record, the log, the checkpoints."""
    from playground import store
    from playground.checkpoints import closure, key_of
    from playground.models import LogRecord, RoomRecord

    record = RoomRecord.objects.create(id=room_id, lab=slug, seed=11)
    LogRecord.objects.bulk_create(
        (
            LogRecord(room=record, seq=e.seq, name=e.name, args=e.args)
            for e in timeline.actions
        ),
        batch_size=2_000,
    )
    have: set[bytes] = set()
    for seq, _position, data, parts in stored:
        new = closure(parts, have.__contains__)
        store.save_checkpoint(
            record.id, seq, data, tuple(key_of(p) for p in parts), new
        )
        have.update(new)
    return record.id


def stored_bytes(room_id: str) -> int:
    """What the room's checkpoints and their parts take in the database."""
    from django.db.models import Sum
    from django.db.models.functions import Length

    from playground.models import CheckpointPart, CheckpointRecord

    return sum(
        model.objects.filter(room_id=room_id).aggregate(bytes=Sum(Length("data")))[
            "bytes"
        ]
        or 0
        for model in (CheckpointRecord, CheckpointPart)
    )


def run_lab(
    slug: str, lengths: tuple, seeks: int, loads: int, live_seeks: int = 0
) -> dict:
    """`measure` in a fresh process with a fresh database of its own; then, with
    `live_seeks`, the same stored rooms served by a fresh daphne and sought in over
    websockets (`benchmarks.seek_live`: each length's result gets "live")."""
    with tempfile.TemporaryDirectory() as var:
        os.environ["PLAYGROUND_VAR_DIR"] = var
        if live_seeks:  # a server's database and static files, as `make run` has
            seek_live.prepare(var)
        context = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(1, mp_context=context) as pool:
            results = pool.submit(measure, slug, lengths, seeks, loads).result()
        if live_seeks:
            rooms = {count: results[count]["room"] for count in lengths}
            live = seek_live.measure(var, slug, rooms, live_seeks)
            for count in lengths:
                results[count]["live"] = live[count]
        return results


def seek_rows(
    lengths=LENGTHS,
    seeks: int = SEEKS,
    loads: int = LOADS,
    labs=None,
    live_seeks: int = seek_live.SEEKS,
) -> list:
    """The in-memory rows of every lab, then (with `live_seeks`) the end-to-end
    ones, over the websocket, on the same rooms loaded from the store."""
    rows: list = [
        f"Seek ({seeks:,} seeded seeks per length, wall time) and cold load (median "
        f"of {loads}), the lengths measured side by side ({machine_load()})"
    ]
    live: list = [
        f"Seek end to end over the websocket, in the same rooms stored and served by "
        f"a fresh daphne: cold join, then {live_seeks:,} seeded seeks per length in "
        f"the room loaded cold, then the same points again, warm, the lengths "
        f"taking turns ({machine_load()})"
    ]
    for slug in labs or sorted(LABS):
        done = len(rows), len(live)
        try:
            results = run_lab(slug, tuple(lengths), seeks, loads, live_seeks)
        except Exception as error:  # one lab's failure is a row, not the end
            why = f"{type(error).__name__}: {error}"[:300]
            rows.append(Row(f"{slug}: failed", Timing(0, 0), None, why, "", False))
            continue
        if live_seeks:
            live += seek_live.live_rows(
                slug, {n: results[n]["live"] for n in lengths}, tuple(lengths)
            )
        first_p99 = percentile(results[lengths[0]]["seeks_ms"], 0.99)
        for count in lengths:
            result = results[count]
            ordered = result["seeks_ms"]
            p99 = percentile(ordered, 0.99)
            flat = p99 <= FLAT_RATIO * first_p99
            total = sum(ordered) / 1000
            rows.append(
                Row(
                    f"{slug}, {count:,} actions: seek; "
                    f"{result['checkpoints']:,} checkpoints, "
                    f"{result['checkpoint_bytes'] / 1e6:.1f} MB; "
                    f"room {result['memory_bytes'] / 1e6:.0f} MB",
                    Timing(total, total),
                    None,
                    f"p50 {statistics.median(ordered):.1f} ms, p99 {p99:.1f} ms, "
                    f"worst {ordered[-1]:.1f} ms"
                    + ("" if count == lengths[0] else f"; {p99 / first_p99:.2f}x"),
                    f"p99 < {SEEK_TARGET_MS:g} ms"
                    + ("" if count == lengths[0] else f", <= {FLAT_RATIO}x"),
                    p99 < SEEK_TARGET_MS and flat,
                )
            )
            loads_s = sorted(result["loads_s"])
            middle = statistics.median(loads_s)
            rows.append(
                Row(
                    f"{slug}, {count:,} actions: cold load "
                    f"({result['stored']:,} stored checkpoints, "
                    f"{result['stored_bytes'] / 1e6:.1f} MB with their parts)",
                    Timing(middle, middle),
                    None,
                    f"median {1000 * middle:.0f} ms, worst {1000 * loads_s[-1]:.0f} ms",
                    f"< {LOAD_TARGET_S:g} s" if count >= 10_000 else "",
                    middle < LOAD_TARGET_S if count >= 10_000 else None,
                )
            )
        # each lab's rows as they come (a long run's table is printed at its end)
        print(
            render(rows[done[0] :] + live[done[1] :], markdown=False),
            file=sys.stderr,
            flush=True,
        )
    return rows + live if live_seeks else rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.seek")
    parser.add_argument(
        "--quick",
        action="store_true",
        help="1,000 and 10,000 actions only, 100 seeks over the websocket",
    )
    parser.add_argument("--lengths", help="comma-separated history lengths")
    parser.add_argument("--labs", help="comma-separated lab slugs (default: all)")
    parser.add_argument(
        "--live-seeks",
        type=int,
        help=f"seeks per length and phase over the websocket (default "
        f"{seek_live.SEEKS}, --quick 100; 0: none)",
    )
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args(argv)
    labs = args.labs.split(",") if args.labs else None
    lengths = LENGTHS[:2] if args.quick else LENGTHS
    if args.lengths:
        lengths = tuple(int(n) for n in args.lengths.split(","))
    live_seeks = args.live_seeks
    if live_seeks is None:
        live_seeks = 100 if args.quick else seek_live.SEEKS
    rows = seek_rows(lengths, labs=labs, live_seeks=live_seeks)
    print(render(rows, markdown=args.markdown))
    return 0 if all(isinstance(r, str) or r.passed is not False for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
