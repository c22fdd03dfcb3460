"""The event engine under the network labs against SimPy, on one workload.

The workload: five nodes, fully meshed, one-way latency 5 ms plus up to 20 ms of
uniform jitter. 100 messages start at once; whenever a message arrives, its receiver
sends a new one to a random other node, until `messages` have been sent. Both engines
draw the destination and the delay from their own `random.Random` with the same seed,
in the same order, so they must end at the same virtual moment having delivered the
same number of messages: the benchmark checks that before it reports a rate.

The peer is SimPy 4 (a maintained discrete-event package), written the fastest way it
allows: a `Timeout` per message with a callback, no process per message. Our engine
runs the same workload through `Network` with `record=False` (no event dictionaries;
the labs' batch runs use it that way).

The ratio is ours / SimPy in CPU time, the median of interleaved pairs
(`timing.paired`: both sides warmed, the order alternating A-B-B-A) printed with its
spread. The two are on par, and the row says so: both are a heap of 4-tuples and a
Python callback per event, and ours also builds a `Message` per send
(ids, send and arrival times, its link) that SimPy's `Timeout` does not. The target is
a band that fails either way: ours more than 15% slower than SimPy, or more than 15%
faster (then "on par" is out of date and the row should claim more).
"""

import random

import simpy

from benchmarks.timing import MIN_PAIRS, Recorded, Row, machine_load, medians, paired
from simulators.engine import EventQueue, Latency, Network

NODES = ("A", "B", "C", "D", "E")
BASE_MS, JITTER_MS = 5, 20
STARTERS = 100
SEED = 7
ON_PAR = (0.85, 1.15)  # ours / SimPy, CPU time: on par within 15% either way


def ours(messages: int) -> tuple[int, int]:
    """Run the workload on our Network; returns (final virtual ms, delivered)."""
    rng = random.Random(SEED)
    queue = EventQueue()
    others = {n: [m for m in NODES if m != n] for n in NODES}
    sent = 0

    def on_message(message) -> None:
        nonlocal sent
        if sent < messages:
            sent += 1
            choices = others[message.dst]
            net.send(message.dst, choices[int(rng.random() * 4)], "m")

    links = [
        (a, b, Latency(BASE_MS, JITTER_MS))
        for i, a in enumerate(NODES)
        for b in NODES[i + 1 :]
    ]
    net = Network(queue, rng, NODES, links, on_message=on_message, record=False)
    for i in range(STARTERS):
        src = NODES[i % 5]
        sent += 1
        net.send(src, others[src][int(rng.random() * 4)], "m")
    net.run_until(10**12)
    return _last_arrival(net), net.delivered


def _last_arrival(net: Network) -> int:
    return net.last_delivery_ms


def simpy_run(messages: int) -> tuple[int, int]:
    """The same workload on SimPy, timeouts with callbacks, as lean as SimPy allows:
    the next send inlined in the arrival's callback, counters as plain locals."""
    rng = random.Random(SEED)
    env = simpy.Environment()
    timeout = env.timeout
    others = {n: [m for m in NODES if m != n] for n in NODES}
    sent = delivered = last = 0

    def arrive(event) -> None:
        nonlocal sent, delivered, last
        delivered += 1
        last = int(env.now)
        if sent < messages:
            sent += 1
            dst = others[event.value][int(rng.random() * 4)]
            # Same draw order as Network.send: the destination, then the delay.
            delay = max(1, BASE_MS + int(rng.random() * (JITTER_MS + 1)))
            timeout(delay, dst).callbacks.append(arrive)

    for i in range(STARTERS):
        src = NODES[i % 5]
        sent += 1
        dst = others[src][int(rng.random() * 4)]
        delay = max(1, BASE_MS + int(rng.random() * (JITTER_MS + 1)))
        timeout(delay, dst).callbacks.append(arrive)
    env.run()
    return last, delivered


def engine_rows(repeat: int, messages: int = 200_000) -> list[Row | str]:
    """Simulated messages per second: SimPy, then ours, with the paired time ratio."""
    a, b = ours(messages), simpy_run(messages)
    if a != b:
        raise RuntimeError(f"the two engines disagree on the workload: {a} != {b}")
    runs, pairs = Recorded(), max(repeat, MIN_PAIRS)
    ratio = paired(
        runs.cpu("ours", lambda: ours(messages)),
        runs.cpu("simpy", lambda: simpy_run(messages)),
        pairs,
    )
    times = {name: runs.timing(name) for name in ("simpy", "ours")}
    rate = {name: messages / t.cpu for name, t in times.items()}
    low, high = ON_PAR
    return [
        f"Network engine: {messages:,} messages, 5 nodes, same arrivals in both "
        f"({machine_load()})",
        Row(
            f"SimPy 4.1.2 (peer), {rate['simpy']:,.0f} messages/s",
            times["simpy"],
            messages,
        ),
        Row(
            f"our Network, {rate['ours']:,.0f} messages/s: on par with SimPy",
            times["ours"],
            messages,
            f"{ratio.text()} SimPy's time",
            f"on par: {low:g}-{high:g}× SimPy",
            low <= ratio.median <= high,
        ),
    ]


QUORUM_TRIALS = 5_000  # a write and a read each: 10,000 simulated operations
QUORUM_TARGET_S = 1.0


def quorum_rows(repeat: int) -> list[Row | str]:
    """The quorum lab's stale-read counter: 5,000 seeded trials, 10,000 operations."""
    from simulators.labs.quorum.trials import TrialConfig, run_trials

    cases = {
        "N=3, W=1, R=1": TrialConfig(copies=3, w=1, r=1),
        "N=3, W=2, R=2, C stopped": TrialConfig(copies=3, w=2, r=2, stopped=("C",)),
        "N=5, W=3, R=3, B-E cut": TrialConfig(copies=5, w=3, r=3, cut=("B-E",)),
    }
    times = medians(
        {
            name: (lambda c=config: run_trials(c, 0, QUORUM_TRIALS))
            for name, config in cases.items()
        },
        repeat,
    )
    rows: list[Row | str] = [
        f"quorum stale-read counter: {QUORUM_TRIALS:,} trials "
        f"({2 * QUORUM_TRIALS:,} operations)"
    ]
    for name, config in cases.items():
        found = run_trials(config, 0, QUORUM_TRIALS)
        wall = times[name].wall
        rows.append(
            Row(
                f"{name}: {found.stale:,} stale of {found.reads_ok:,} reads",
                times[name],
                2 * QUORUM_TRIALS,
                "",
                f"< {QUORUM_TARGET_S:g} s",
                wall < QUORUM_TARGET_S,
            )
        )
    return rows


def main(argv: list[str] | None = None) -> int:
    """`python -m benchmarks.network_engine`: the engine and quorum rows alone."""
    import argparse

    from benchmarks.timing import render

    parser = argparse.ArgumentParser(prog="python -m benchmarks.network_engine")
    parser.add_argument("--messages", type=int, default=200_000)
    parser.add_argument("--repeat", type=int, default=MIN_PAIRS)
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args(argv)
    rows = engine_rows(args.repeat, args.messages) + quorum_rows(args.repeat)
    print(render(rows, markdown=args.markdown))
    return 1 if any(not isinstance(r, str) and r.passed is False for r in rows) else 0


if __name__ == "__main__":
    raise SystemExit(main())
