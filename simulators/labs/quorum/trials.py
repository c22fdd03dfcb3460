"""The stale-read counter: many seeded write-then-read trials of one configuration.

A trial is a fresh cluster built from a `TrialConfig` (copies, W, R, cut links, stopped
nodes, clock skews, read repair and hinted handoff), every copy at the same initial
version. One write goes through a random running coordinator; a small random gap
after it finishes (acknowledged or failed), one read goes through a random running
coordinator.
Everything random in trial `i` comes from one `random.Random` seeded from `(seed, i)`:
first the two coordinators and the gap, then every latency, in send order. So
`start_trial` with the same arguments plays the same trial again, message for message,
whether it runs in a batch (`record=False`) or live in the lab (`record=True`).

The initial value is not written at the instant the trial begins: the row is a busy one
(seats on a flight that is selling), so the previous booking was made a while before,
`initial_age_ms` of the trial, 0 to 999 ms, uniform, drawn from its own stream
`(seed, i, "initial")` so that every other draw stays as it was. A write stamped by a
clock running `s` ms behind is older than that value, and lost, only when the previous
booking was less than `s` ms earlier: none at a skew of 0, about one in a thousand of
that node's writes at -1 ms, every one at -1,000 ms. (Stamped at the same instant, as it
once was, the value made a 1 ms skew lose as many writes as a 1,000 ms one.)
A write is *lost* when it was acknowledged and, at the end of the trial, no copy keeps
it (every copy kept a larger version: in a one-write trial, the initial value's) and no
sloppy quorum's stand-in still holds it for an owner it cannot reach.
"""

from dataclasses import dataclass, replace
from random import Random

from simulators.engine.clock import EventQueue
from simulators.engine.rng import derive_seed
from simulators.labs.quorum.cluster import NODE_IDS, TIMEOUT_MS, Cluster

MAX_GAP_MS = 60
# the initial value was written 0 to PREVIOUS_WRITE_MS - 1 ms before the trial's write
PREVIOUS_WRITE_MS = 1_000
# a trial is over by then: the write's timeout, the gap, the read's timeout, with room
HORIZON_MS = 4 * TIMEOUT_MS + MAX_GAP_MS


@dataclass(frozen=True)
class TrialConfig:
    """Everything a trial's cluster is built from."""

    copies: int = 3
    nodes: int = 0  # M, nodes on the ring; 0: as many as copies
    sloppy: bool = False
    w: int = 2
    r: int = 2
    cut: tuple[str, ...] = ()
    stopped: tuple[str, ...] = ()
    skews: tuple[tuple[str, int], ...] = ()
    read_repair: bool = True
    hinted_handoff: bool = True

    def __post_init__(self) -> None:
        if not 1 <= self.w <= self.copies or not 1 <= self.r <= self.copies:
            raise ValueError("W and R must be between 1 and the number of copies")
        if not self.copies <= self.ring_size() <= len(NODE_IDS):
            raise ValueError("the ring needs between N and five nodes")
        if not self.running():
            raise ValueError("at least one node must be running")

    def running(self) -> list[str]:
        """The nodes a trial may pick as coordinators."""
        return [n for n in NODE_IDS[: self.ring_size()] if n not in self.stopped]

    def ring_size(self) -> int:
        """M: how many nodes stand on the ring."""
        return self.nodes or self.copies

    def as_dict(self) -> dict:
        """The config as data; `nodes` and `sloppy` only on a ring larger than N or
        with a sloppy quorum (a plain cluster's config reads as it always has)."""
        ring = {}
        if self.ring_size() != self.copies or self.sloppy:
            ring = {"nodes": self.ring_size(), "sloppy": self.sloppy}
        return {
            "copies": self.copies,
            **ring,
            "w": self.w,
            "r": self.r,
            "cut": list(self.cut),
            "stopped": list(self.stopped),
            "skews": [[node, ms] for node, ms in self.skews],
            "read_repair": self.read_repair,
            "hinted_handoff": self.hinted_handoff,
        }


@dataclass(frozen=True)
class TrialResults:
    """What a batch of trials found."""

    trials: int
    stale: int
    reads_ok: int
    failed_writes: int
    failed_reads: int
    first_stale: int | None
    lost_writes: int = 0

    def as_dict(self) -> dict:
        fraction = round(self.stale / self.reads_ok, 4) if self.reads_ok else 0.0
        return {
            "trials": self.trials,
            "stale": self.stale,
            "reads_ok": self.reads_ok,
            "stale_fraction": fraction,
            "failed_writes": self.failed_writes,
            "failed_reads": self.failed_reads,
            "first_stale": self.first_stale,
            "lost_writes": self.lost_writes,
        }


def trial_seed(seed: int, index: int) -> int:
    """The seed of trial `index` in the batch seeded `seed`."""
    return derive_seed(seed, f"trial:{index}")


def initial_age_ms(seed: int, index: int) -> int:
    """How long before trial `index`'s write the initial value was written."""
    return derive_seed(trial_seed(seed, index), "initial") % PREVIOUS_WRITE_MS


def start_trial(
    config: TrialConfig,
    seed: int,
    index: int,
    queue: EventQueue,
    *,
    origin_ms: int = 0,
    record: bool = False,
    levels: tuple = (None, None),
) -> Cluster:
    """Build trial `index`'s cluster on `queue`; invoke its write (the read follows)."""
    rng = Random(trial_seed(seed, index))
    running = config.running()
    writer = running[rng.randrange(len(running))]
    gap_ms = rng.randrange(MAX_GAP_MS + 1)
    reader = running[rng.randrange(len(running))]
    cluster = Cluster(
        queue,
        rng,
        config.copies,
        ring=config.ring_size(),
        sloppy=config.sloppy,
        cut=config.cut,
        stopped=config.stopped,
        skews=config.skews,
        read_repair=config.read_repair,
        hinted_handoff=config.hinted_handoff,
        origin_ms=origin_ms,
        initial_ms=origin_ms - initial_age_ms(seed, index),
        record=record,
    )
    w_level = config.w if levels[0] is None else levels[0]
    r_level = config.r if levels[1] is None else levels[1]
    then = ("read", gap_ms, reader, config.r, r_level)
    cluster.write(writer, config.w, w_level, then)
    return cluster


def write_lost(cluster: Cluster, write) -> bool:
    """Whether an acknowledged `write` is kept by no copy."""
    if write.status != "ok":
        return False
    kept = any(copy.write_id == write.id for copy in cluster.copies.values())
    # a sloppy quorum's stand-in still holding it for an owner it cannot reach
    held = any(
        hint.stand_in and hint.write_id == write.id for hint in cluster.hints.values()
    )
    return not kept and not held


def run_trials(config: TrialConfig, seed: int, count: int) -> TrialResults:
    """Run `count` trials of `config`; count stale reads, lost writes and failures."""
    stale = reads_ok = failed_writes = failed_reads = lost = 0
    first_stale = None
    for index in range(count):
        cluster = start_trial(config, seed, index, EventQueue())
        cluster.network.run_until(HORIZON_MS)
        write, read = cluster.ops
        if write.status != "ok":
            failed_writes += 1
        elif write_lost(cluster, write):
            lost += 1
        if read.status == "ok":
            reads_ok += 1
            if read.stale:
                stale += 1
                if first_stale is None:
                    first_stale = index
        else:
            failed_reads += 1
    return TrialResults(
        count, stale, reads_ok, failed_writes, failed_reads, first_stale, lost
    )


def with_skew(config: TrialConfig, node: str, skew_ms: int) -> TrialConfig:
    """`config` with `node`'s clock `skew_ms` off (the other clocks as they were)."""
    skews = [(n, ms) for n, ms in config.skews if n != node]
    if skew_ms:
        skews.append((node, skew_ms))
    skews.sort()
    return replace(config, skews=tuple(skews))


def run_skew_ladder(
    config: TrialConfig, node: str, ladder: tuple[int, ...], seed: int, count: int
) -> list[dict]:
    """The same `count` trials (one seed) at each skew of `node`'s clock in `ladder`:
    only the skew differs between rungs, so a write lost at one skew is lost at every
    larger one behind."""
    rungs = []
    for skew_ms in ladder:
        results = run_trials(with_skew(config, node, skew_ms), seed, count)
        rungs.append(
            {
                "skew_ms": skew_ms,
                "lost_writes": results.lost_writes,
                "stale": results.stale,
                "acknowledged": count - results.failed_writes,
            }
        )
    return rungs
