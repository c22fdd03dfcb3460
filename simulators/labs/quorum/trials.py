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
"""

from dataclasses import dataclass
from random import Random

from simulators.engine.clock import EventQueue
from simulators.engine.rng import derive_seed
from simulators.labs.quorum.cluster import NODE_IDS, TIMEOUT_MS, Cluster

MAX_GAP_MS = 60
# a trial is over by then: the write's timeout, the gap, the read's timeout, with room
HORIZON_MS = 4 * TIMEOUT_MS + MAX_GAP_MS


@dataclass(frozen=True)
class TrialConfig:
    """Everything a trial's cluster is built from."""

    copies: int = 3
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
        if not self.running():
            raise ValueError("at least one node must be running")

    def running(self) -> list[str]:
        """The nodes a trial may pick as coordinators."""
        return [n for n in NODE_IDS[: self.copies] if n not in self.stopped]

    def as_dict(self) -> dict:
        return {
            "copies": self.copies,
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
        }


def trial_seed(seed: int, index: int) -> int:
    """The seed of trial `index` in the batch seeded `seed`."""
    return derive_seed(seed, f"trial:{index}")


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
        cut=config.cut,
        stopped=config.stopped,
        skews=config.skews,
        read_repair=config.read_repair,
        hinted_handoff=config.hinted_handoff,
        origin_ms=origin_ms,
        record=record,
    )
    w_level = config.w if levels[0] is None else levels[0]
    r_level = config.r if levels[1] is None else levels[1]
    then = ("read", gap_ms, reader, config.r, r_level)
    cluster.write(writer, config.w, w_level, then)
    return cluster


def run_trials(config: TrialConfig, seed: int, count: int) -> TrialResults:
    """Run `count` trials of `config`; count stale reads and failed operations."""
    stale = reads_ok = failed_writes = failed_reads = 0
    first_stale = None
    for index in range(count):
        cluster = start_trial(config, seed, index, EventQueue())
        cluster.network.run_until(HORIZON_MS)
        write, read = cluster.ops
        if write.status != "ok":
            failed_writes += 1
        if read.status == "ok":
            reads_ok += 1
            if read.stale:
                stale += 1
                if first_stale is None:
                    first_stale = index
        else:
            failed_reads += 1
    return TrialResults(
        count, stale, reads_ok, failed_writes, failed_reads, first_stale
    )
