"""Profiled daphne: `-m benchmarks.fanout_profile MODE OUT <daphne args>`.

Used by `python -m benchmarks.fanout --profile DIR` (MODE `cpu`: cProfile of the event
loop's thread, written to OUT when daphne exits on SIGTERM) and `--memory DIR` (MODE
`memory`: tracemalloc, a snapshot written to OUT-<n>.snap on each SIGUSR1, which the
benchmark sends before and after the students connect) and `--gc DIR` (MODE `gc`: every
garbage collection's generation, start and pause, to OUT.gc.txt) and `--trace DIR` (MODE
`trace`: for every action, when each step of its path began, to OUT.trace.txt, and the
collections as in `gc`; read with `python -m benchmarks.fanout_profile read DIR`; with
FANOUT_GC_FREEZE=1, `gc.freeze()` once the application is imported, to see what
full collections would spare). The
playground is untouched: `trace` wraps a few of its methods in this process only.
"""

import contextvars
import cProfile
import gc
import os
import signal
import statistics
import sys
import time
import tracemalloc
from pathlib import Path

from daphne.cli import CommandLineInterface


def main() -> None:
    mode, out, args = sys.argv[1], sys.argv[2], sys.argv[3:]
    if mode == "memory":
        tracemalloc.start(12)
        taken = []

        def snapshot(*_) -> None:
            taken.append(1)
            current, peak = tracemalloc.get_traced_memory()
            with open(f"{out}-{len(taken)}.txt", "w") as file:
                file.write(f"traced: {current} now, {peak} at peak since the last\n")
            tracemalloc.reset_peak()
            tracemalloc.take_snapshot().dump(f"{out}-{len(taken)}.snap")

        signal.signal(signal.SIGUSR1, snapshot)
        CommandLineInterface().run(args)
        return
    if mode == "trace":
        steps = trace_actions()
        if os.environ.get("FANOUT_GC_FREEZE"):  # an experiment: what it would save
            gc.collect()
            gc.freeze()
        pauses = watch_collector()
        try:
            CommandLineInterface().run(args)
        finally:
            with open(f"{out}.trace.txt", "w") as file:
                file.writelines(" ".join(map(str, step)) + "\n" for step in steps)
            with open(f"{out}.gc.txt", "w") as file:
                file.writelines(
                    f"{gen} {start:.4f} {ms:.2f}\n" for gen, start, ms in pauses
                )
        return
    if mode == "gc":
        pauses = watch_collector()
        try:
            CommandLineInterface().run(args)
        finally:
            with open(f"{out}.gc.txt", "w") as file:
                file.writelines(
                    f"{gen} {start:.4f} {ms:.2f}\n" for gen, start, ms in pauses
                )
        return
    profiler = cProfile.Profile()
    profiler.enable()
    try:
        CommandLineInterface().run(args)
    finally:
        profiler.disable()
        profiler.dump_stats(out)


def watch_collector() -> list[tuple[int, float, float]]:
    """Record every garbage collection: generation, start, milliseconds."""
    pauses: list[tuple[int, float, float]] = []
    started = [0.0]

    def callback(phase: str, info: dict) -> None:
        if phase == "start":
            started[0] = time.perf_counter()
        else:
            ms = 1000 * (time.perf_counter() - started[0])
            pauses.append((info["generation"], started[0], ms))

    gc.callbacks.append(callback)
    return pauses


STEPS = ("handled", "queued", "thread", "committed", "applied", "sent", "done")
_action: contextvars.ContextVar = contextvars.ContextVar("action", default=None)


def trace_actions() -> list[list]:
    """Wrap the path of a host's action through this process; each action's times.

    Per action (by ref): `handled` when the consumer took the message, `queued` when
    `Room.submit` put it in the room's line, `thread` when the batch it is in started
    in a lane's thread (`Room._apply_batch`), `committed` when the batch was appended
    to the log (`Room._store_batch`, in the same thread), `applied` when that thread
    was done, `sent` when its frames were broadcast (every send buffered:
    Twisted writes them when the loop next polls) and the room's checkpoints stored,
    `done` when the consumer was done with the message. In (b), the other process's
    `Room.on_entry` is timed as `relayed`, from the relay's message to its broadcast's
    end.
    """
    import playground.asgi  # noqa: F401  (sets Django up, as daphne would)
    from playground.consumers import LabConsumer
    from playground.rooms.room import Room

    steps: list[list] = []
    by_ref: dict[str, dict] = {}  # the marks of actions in a room's line, by ref
    handle, submit, on_entry = LabConsumer.handle, Room.submit, Room.on_entry
    apply_batch, store_batch, run_batch = (
        Room._apply_batch,
        Room._store_batch,
        Room._run_batch,
    )
    now = time.perf_counter

    def mark(jobs, step: str) -> None:
        for job in jobs:
            marks = by_ref.get(job.ref or "")
            if marks is not None:
                marks[step] = now()

    async def traced_handle(self, text_data=None, bytes_data=None):
        marks = {"handled": now()}
        token = _action.set(marks)
        try:
            return await handle(self, text_data, bytes_data)
        finally:
            _action.reset(token)
            if "queued" in marks:
                marks["done"] = now()
                by_ref.pop(marks["ref"], None)
                steps.append([marks["ref"], *(marks.get(s, 0) for s in STEPS)])

    async def traced_submit(self, name, args, ref, member=None, tick=False):
        marks = _action.get()
        if marks is not None and ref:
            marks["queued"], marks["ref"] = now(), ref
            by_ref[ref] = marks
        return await submit(self, name, args, ref, member, tick)

    def traced_apply_batch(self, jobs, alone, last=None):
        mark(jobs, "thread")
        try:
            return apply_batch(self, jobs, alone, last)
        finally:
            mark(jobs, "applied")

    def traced_store_batch(self, batch):
        try:
            return store_batch(self, batch)
        finally:
            mark([job for job, *_ in batch.made], "committed")

    async def traced_run_batch(self, jobs, units):
        try:
            return await run_batch(self, jobs, units)
        finally:
            mark(jobs, "sent")

    async def traced_on_entry(self, message):
        start = now()
        try:
            await on_entry(self, message)
        finally:
            steps.append(["relayed", message.get("ref") or "-", start, now()])

    LabConsumer.handle = traced_handle
    Room.submit = traced_submit
    Room._apply_batch = traced_apply_batch
    Room._store_batch = traced_store_batch
    Room._run_batch = traced_run_batch
    Room.on_entry = traced_on_entry
    return steps


def read(folder: str) -> None:
    """Per traced daphne: each step's milliseconds, p50 / p99 / max; and the
    collections that paused the acting window."""
    for trace in sorted(Path(folder).glob("*.trace.txt")):
        rows = [line.split() for line in trace.read_text().splitlines()]
        actions = [[float(x) for x in r[1:]] for r in rows if r[0] != "relayed"]
        relayed = [[float(x) for x in r[2:]] for r in rows if r[0] == "relayed"]
        print(f"{trace.name}: {len(actions)} actions, {len(relayed)} relayed")
        names = [f"{a} -> {b}" for a, b in zip(STEPS, STEPS[1:], strict=False)]
        for i, name in enumerate(names):
            spans = [1000 * (a[i + 1] - a[i]) for a in actions if a[i] and a[i + 1]]
            _quantiles(name, spans)
        _quantiles("handled -> sent", [1000 * (a[5] - a[0]) for a in actions if a[5]])
        _quantiles("on_entry (other process)", [1000 * (b - a) for a, b in relayed])
        pauses = Path(str(trace).removesuffix(".trace.txt") + ".gc.txt")
        if pauses.exists() and actions:
            first, last = actions[0][0], actions[-1][-1]
            within = [
                (int(g), float(ms))
                for g, start, ms in (line.split() for line in pauses.open())
                if first <= float(start) <= last
            ]
            for gen in (0, 1, 2):
                ms = [m for g, m in within if g == gen]
                if ms:
                    print(
                        f"  gen {gen} collections while acting: {len(ms)}, "
                        f"longest {max(ms):.1f} ms, total {sum(ms):.0f} ms"
                    )


def _quantiles(name: str, ms: list[float]) -> None:
    if not ms:
        return
    ordered = sorted(ms)
    p99 = ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]
    print(
        f"  {name:<26} p50 {statistics.median(ordered):7.2f}  p99 {p99:7.2f}  "
        f"max {ordered[-1]:7.2f} ms"
    )


if __name__ == "__main__":
    if sys.argv[1] == "read":
        read(sys.argv[2])
    else:
        main()
