"""Profiled daphne: `-m benchmarks.fanout_profile MODE OUT <daphne args>`.

Used by `python -m benchmarks.fanout --profile DIR` (MODE `cpu`: cProfile of the event
loop's thread, written to OUT when daphne exits on SIGTERM) and `--memory DIR` (MODE
`memory`: tracemalloc, a snapshot written to OUT-<n>.snap on each SIGUSR1, which the
benchmark sends before and after the students connect) and `--gc DIR` (MODE `gc`: every
garbage collection's generation, start and pause, to OUT.gc.txt). The playground is
untouched.
"""

import cProfile
import gc
import signal
import sys
import time
import tracemalloc

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


if __name__ == "__main__":
    main()
