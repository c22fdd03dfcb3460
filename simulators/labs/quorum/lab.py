"""quorum: N copies of one row, W and R per operation, and the reads that miss a write.

Stale, precisely (`judge.py` computes it): a write *completed before* a read when it was
acknowledged before the read was invoked; write X is *superseded* by write Y when X
completed before Y was invoked and Y was acknowledged. A read is stale when the value it
returned belongs to a write (or the initial value) superseded by a write that completed
before the read was invoked. Concurrent writes do not supersede each other; a failed
or pending write is never superseded (it may still take effect), nor does it supersede.
Real-time order is the cluster's `step` counter, so events in one millisecond keep their
order. Each history row also says what the read *should* have returned: the value of the
write that completed last before it began.

Choices made here, so the lab says what it does:

- Stopping the last running node is refused (`last_node`): someone must coordinate.
- A node that stops fails the operations it was coordinating; its copy and the hints
  it keeps survive, as they would on disk. A client's next operation planned on a
  stopped node (while a replayed trial plays) is not invoked.
- Switching hinted handoff off stops new hints being kept; hints already kept are still
  handed over.
- `set_copies` starts a fresh cluster: every copy at the first value, no faults.
  Levels given as numbers larger than the new N become N, and the event says so.
- A fresh cluster's first value was written a seeded 0-999 ms before it began (its
  version's timestamp is that far in the past), as a trial's is (`trials.py`): a write
  through a node whose clock runs 1 ms behind is not lost to a value stamped at the
  very same instant.
- `set_nodes` starts a fresh cluster of M nodes on the ring, N copies kept (a sloppy
  quorum's stand-ins are the nodes past the owners: see `cluster.py`); `set_copies`
  starts one with M = N again. `set_sloppy` takes effect from the next write.
- `skew_ladder` runs the counter's trials of the live configuration once per skew of
  one node's clock, all from one seed, and keeps the lost writes at each for the chart.
  A stopped node is refused (`node_stopped`): it coordinates no write, so every rung
  would say 0.
"""

from simulators.engine.clock import EventQueue
from simulators.engine.clocked import ClockedLab
from simulators.engine.declaration import ActionError
from simulators.engine.history import EXPLANATIONS
from simulators.engine.i18n import gettext_noop as _
from simulators.engine.rng import derive_seed, make_rng
from simulators.labs.quorum.cluster import TIMEOUT_MS, Cluster
from simulators.labs.quorum.declaration import (
    ACTIONS,
    AUTO,
    NAMED_LEVELS,
    OPTIONS,
    SKEW_BOUND_MS,
    QuorumCost,
    parse_ladder,
)
from simulators.labs.quorum.histories import verdicts_of, window_of
from simulators.labs.quorum.tour import TOUR
from simulators.labs.quorum.trials import (
    PREVIOUS_WRITE_MS,
    TrialConfig,
    run_skew_ladder,
    run_trials,
    start_trial,
)

HISTORY_SHOWN = 40
ROW = {"flight": "UA 455", "column": "seats_remaining"}


def needed_for(level, copies: int) -> int:
    """How many copies a level asks for, out of `copies`."""
    if level == "ONE":
        return 1
    if level == "QUORUM":
        return copies // 2 + 1
    if level == "ALL":
        return copies
    return level


class QuorumLab(ClockedLab):
    """Writes and reads through coordinators; faults, repair, hints and a counter."""

    slug = "quorum"
    options = OPTIONS
    actions = ACTIONS
    tour = TOUR
    stress = (
        ("set_copies", {"copies": 5}),
        ("run_trials", {"count": 5000}),
        (
            "skew_ladder",
            {"node": "A", "ladder": "0,-1,-5,-20,-100,-1000", "count": 1000},
        ),
        ("write", {"w": "ALL", "coordinator": "A"}),
        ("advance", {"ms": 60000}),
    )
    # the history checker's verdicts come as English data: hello carries them translated
    words = EXPLANATIONS
    cost_model = QuorumCost

    def __init__(self, seed: int = 0, **options) -> None:
        super().__init__(seed, **options)
        self.levels = {"w": "QUORUM", "r": "QUORUM"}
        self._judged_for = None  # (the judged operations' states, their verdicts)
        self.read_repair = True
        self.hinted_handoff = True
        self.sloppy = False
        self.ring_nodes = self.option_values["copies"]  # M: nodes on the ring
        self.rotation = 0
        self.generation = 0
        self.batches = 0
        self.trials: dict | None = None
        self.ladder: dict | None = None
        self.ladders = 0
        self.replay: dict | None = None
        self.cluster = self._fresh_cluster(self.option_values["copies"])

    def _fresh_cluster(self, copies: int) -> Cluster:
        """A cluster with every copy at the first value, on a new queue, same clock."""
        self.queue = EventQueue(self.queue.clock)
        rng = make_rng(self.seed, f"network:{self.generation}")
        age = make_rng(self.seed, f"initial:{self.generation}")
        self.generation += 1
        return Cluster(
            self.queue,
            rng,
            copies,
            ring=self.ring_nodes,
            sloppy=self.sloppy,
            read_repair=self.read_repair,
            hinted_handoff=self.hinted_handoff,
            origin_ms=self.now_ms,
            initial_ms=self.now_ms - age.randrange(PREVIOUS_WRITE_MS),
        )

    @property
    def network(self):
        return self.cluster.network

    @property
    def copies(self) -> int:
        return len(self.cluster.owners)

    # -- time --------------------------------------------------------------------------

    def run_until(self, until_ms: int) -> list[dict]:
        """Deliver and fire everything due by `until_ms`; the events, in order."""
        self.network.run_until(until_ms)
        return self.collect_events()

    def collect_events(self) -> list[dict]:
        return self.network.take_events()

    # -- checks (before anything changes) ----------------------------------------------

    def _level(self, name: str, level) -> tuple:
        """(level, copies needed) for W or R, refusing more than there are copies."""
        if level == "default":
            level = self.levels[name]
        needed = needed_for(level, self.copies)
        if needed > self.copies:
            raise ActionError(
                "level_too_high",
                _("%(name)s=%(level)s needs more copies than the %(copies)s there are"),
                name,
                name=name.upper(),
                level=level,
                copies=self.copies,
            )
        return level, needed

    def _coordinator(self, coordinator: str) -> str:
        running = self.cluster.running()
        if coordinator == AUTO:
            choice = running[self.rotation % len(running)]
            self.rotation += 1
            return choice
        node = self.network.find_node(coordinator)
        if not node.up:
            raise ActionError(
                "node_stopped",
                _("node %(node)s is stopped and cannot coordinate; choose another"),
                "coordinator",
                node=node.id,
            )
        return node.id

    # -- client operations -------------------------------------------------------------

    def do_write(self, w, coordinator: str) -> list[dict]:
        """Write the next value (one seat fewer) through a coordinator."""
        level, needed = self._level("w", w)
        if self.cluster.next_value < 0:
            raise ActionError(
                "sold_out", _("the flight is sold out; set the copies to start again")
            )
        self.cluster.write(self._coordinator(coordinator), needed, level)
        return self.collect_events()

    def do_read(self, r, coordinator: str) -> list[dict]:
        """Read the row through a coordinator."""
        level, needed = self._level("r", r)
        self.cluster.read(self._coordinator(coordinator), needed, level)
        return self.collect_events()

    def do_set_levels(self, w, r) -> list[dict]:
        """Set the W and R that operations use unless they say otherwise."""
        w_needed = self._level("w", w)[1]
        r_needed = self._level("r", r)[1]
        self.levels = {"w": w, "r": r}
        return [self._levels_event(w_needed, r_needed)]

    def _levels_event(self, w_needed: int, r_needed: int) -> dict:
        return {
            "type": "levels_set",
            "w": self.levels["w"],
            "r": self.levels["r"],
            "w_needed": w_needed,
            "r_needed": r_needed,
            "copies": self.copies,
            "overlap_guaranteed": w_needed + r_needed > self.copies,
        }

    def do_set_copies(self, copies: int) -> list[dict]:
        """Start again with a fresh cluster of `copies` copies."""
        clamped = []
        for name in ("w", "r"):
            level = self.levels[name]
            if level not in NAMED_LEVELS and level > copies:
                self.levels[name] = copies
                clamped.append(name)
        self.ring_nodes = copies
        self.cluster = self._fresh_cluster(copies)
        self.replay = None
        self.rotation = 0
        w_needed = needed_for(self.levels["w"], copies)
        r_needed = needed_for(self.levels["r"], copies)
        event = {"type": "copies_set", "copies": copies, "clamped": clamped}
        return [event, self._levels_event(w_needed, r_needed)]

    def do_set_nodes(self, nodes: int) -> list[dict]:
        """Start again with a fresh cluster of `nodes` nodes on the ring (M), keeping
        N copies: the nodes past the owners are the stand-ins of a sloppy quorum."""
        if nodes < self.copies:
            raise ActionError(
                "fewer_nodes_than_copies",
                _(
                    "a ring of %(nodes)s nodes cannot hold %(copies)s copies; choose "
                    "at least %(copies)s nodes or fewer copies"
                ),
                "nodes",
                nodes=nodes,
                copies=self.copies,
            )
        self.ring_nodes = nodes
        self.cluster = self._fresh_cluster(self.copies)
        self.replay = None
        self.rotation = 0
        return [{"type": "nodes_set", **self.cluster.snapshot()["ring"]}]

    def do_set_sloppy(self, on: bool) -> list[dict]:
        """Turn the sloppy quorum on or off: stand-ins take writes for unreachable
        owners, and their acks count toward W."""
        self.sloppy = self.cluster.sloppy = on
        return [{"type": "sloppy_set", "on": on}]

    # -- faults ------------------------------------------------------------------------

    def do_cut_link(self, link: str) -> list[dict]:
        """Cut one link: messages on it are lost."""
        found = self.network.find_link(link)
        if not found.up:
            raise ActionError(
                "already_cut", _("link %(link)s is already cut"), "link", link=found.id
            )
        self.network.cut(found.id)
        return self.collect_events()

    def do_heal_link(self, link: str) -> list[dict]:
        """Heal one link; hints waiting for it are handed over."""
        found = self.network.find_link(link)
        if found.up:
            raise ActionError(
                "not_cut", _("link %(link)s is not cut"), "link", link=found.id
            )
        self.network.heal(found.id)
        self.cluster.offer_hints()
        return self.collect_events()

    def do_stop_node(self, node: str) -> list[dict]:
        """Stop a node; refuse to stop the last running one."""
        found = self.network.find_node(node)
        if not found.up:
            raise ActionError(
                "already_stopped",
                _("node %(node)s is already stopped"),
                "node",
                node=found.id,
            )
        if self.cluster.running() == [found.id]:
            raise ActionError(
                "last_node",
                _(
                    "node %(node)s is the last one running; a cluster with every node "
                    "stopped can take no request, so it stays up"
                ),
                "node",
                node=found.id,
            )
        self.cluster.stop(found.id)
        return self.collect_events()

    def do_restart_node(self, node: str) -> list[dict]:
        """Restart a stopped node with the copy it had."""
        found = self.network.find_node(node)
        if found.up:
            raise ActionError(
                "not_stopped", _("node %(node)s is running"), "node", node=found.id
            )
        self.cluster.restart(found.id)
        return self.collect_events()

    def do_split(self, group: str) -> list[dict]:
        """Cut every link between `group` and the other nodes."""
        members = [part.strip().upper() for part in group.split(",") if part.strip()]
        cut = self.network.split(members)
        return [*self.collect_events(), {"type": "split", "group": members, "cut": cut}]

    def do_heal_all(self) -> list[dict]:
        """Heal every cut link; waiting hints are handed over."""
        healed = self.network.heal_all()
        self.cluster.offer_hints()
        return [*self.collect_events(), {"type": "healed_all", "healed": healed}]

    def do_set_skew(self, node: str, skew_ms: int) -> list[dict]:
        """Set how far a node's clock is off; its writes carry that timestamp."""
        self.network.skew(self.network.find_node(node).id, skew_ms)
        return self.collect_events()

    def do_set_read_repair(self, on: bool) -> list[dict]:
        """Turn read repair on or off."""
        self.read_repair = self.cluster.read_repair = on
        return [{"type": "read_repair_set", "on": on}]

    def do_set_hinted_handoff(self, on: bool) -> list[dict]:
        """Turn hinted handoff on or off."""
        self.hinted_handoff = self.cluster.hinted_handoff = on
        return [{"type": "hinted_handoff_set", "on": on}]

    # -- the stale-read counter --------------------------------------------------------

    def trial_config(self) -> TrialConfig:
        """The live configuration, as trials rebuild it."""
        net = self.network
        return TrialConfig(
            copies=self.copies,
            nodes=len(self.cluster.nodes),
            sloppy=self.sloppy,
            w=needed_for(self.levels["w"], self.copies),
            r=needed_for(self.levels["r"], self.copies),
            cut=tuple(link.id for link in net.links.values() if not link.up),
            stopped=tuple(n.id for n in net.nodes.values() if not n.up),
            skews=tuple((n.id, n.skew_ms) for n in net.nodes.values() if n.skew_ms),
            read_repair=self.read_repair,
            hinted_handoff=self.hinted_handoff,
        )

    def do_run_trials(self, count: int) -> list[dict]:
        """Run `count` seeded write-then-read trials of the live configuration."""
        config = self.trial_config()
        self.batches += 1
        seed = derive_seed(self.seed, f"trials:{self.batches}")
        results = run_trials(config, seed, count)
        self.trials = {
            "batch": self.batches,
            "seed": seed,
            "config": config,
            "levels": dict(self.levels),
            "results": results,
        }
        return [{"type": "trials_run", **self._trials_view()}]

    def do_skew_ladder(self, node: str, ladder: str, count: int) -> list[dict]:
        """Count lost writes in the same trials at each skew of `node`'s clock."""
        rungs = parse_ladder(ladder)
        found = self.network.find_node(node)
        if not found.up:
            raise ActionError(
                "node_stopped",
                _(
                    "node %(node)s is stopped and coordinates no write, so its clock "
                    "loses none; restart it or choose another"
                ),
                "node",
                node=found.id,
            )
        config = self.trial_config()
        self.ladders += 1
        seed = derive_seed(self.seed, f"ladder:{self.ladders}")
        self.ladder = {
            "run": self.ladders,
            "node": found.id,
            "count": count,
            "config": config.as_dict(),
            "rungs": run_skew_ladder(config, found.id, rungs, seed, count),
        }
        return [{"type": "skew_ladder_run", **self.ladder}]

    def do_replay_trial(self, index: int) -> list[dict]:
        """Rebuild the cluster as trial `index` had it; its write starts now."""
        if self.trials is None:
            raise ActionError(
                "no_trials", _("count stale reads first, then replay one of the trials")
            )
        count = self.trials["results"].trials
        if index >= count:
            raise ActionError(
                "no_such_trial",
                _("the last count ran trials 0 to %(last)s"),
                "index",
                last=count - 1,
            )
        config = self.trials["config"]
        self.levels = dict(self.trials["levels"])
        self.read_repair, self.hinted_handoff = (
            config.read_repair,
            config.hinted_handoff,
        )
        self.ring_nodes, self.sloppy = config.ring_size(), config.sloppy
        self.queue = EventQueue(self.queue.clock)
        self.cluster = start_trial(
            config,
            self.trials["seed"],
            index,
            self.queue,
            origin_ms=self.now_ms,
            record=True,
            levels=(self.levels["w"], self.levels["r"]),
        )
        self.replay = {"batch": self.trials["batch"], "index": index}
        head = {"type": "trial_replayed", **self.replay, "config": config.as_dict()}
        return [head, *self.collect_events()]

    def _trials_view(self) -> dict | None:
        if self.trials is None:
            return None
        return {
            "batch": self.trials["batch"],
            "config": self.trials["config"].as_dict(),
            **self.trials["results"].as_dict(),
        }

    # -- what the renderer reads -------------------------------------------------------

    def snapshot(self) -> dict:
        """The cluster, its copies, the history and the counter, for drawing."""
        cluster, net = self.cluster, self.network
        running = cluster.running()
        w_needed = needed_for(self.levels["w"], self.copies)
        r_needed = needed_for(self.levels["r"], self.copies)
        return {
            "playback": self.playback(),
            "network": net.snapshot(),
            "row": ROW,
            "copies": self.copies,
            "nodes": list(cluster.nodes),
            "coordinators": [AUTO, *running],
            "link_ids": list(net.links),
            "levels": {
                **self.levels,
                "w_needed": w_needed,
                "r_needed": r_needed,
                "overlap_guaranteed": w_needed + r_needed > self.copies,
            },
            "read_repair": self.read_repair,
            "hinted_handoff": self.hinted_handoff,
            "sloppy": self.sloppy,
            "ring_nodes": len(cluster.nodes),
            "skew_bound_ms": SKEW_BOUND_MS,
            "timeout_ms": TIMEOUT_MS,
            "next_value": cluster.next_value,
            **cluster.snapshot(),
            "history": [op.as_dict() for op in cluster.ops.last(HISTORY_SHOWN)],
            "history_total": len(cluster.ops),
            # the newest operations judged as Jepsen would (histories.py)
            "checker": self._judged(),
            "trials": self._trials_view(),
            "skew_ladder": self.ladder,
            "replay": self.replay,
        }

    def _judged(self) -> dict:
        """The checker's verdicts on the newest operations, judged again only when
        they changed (a playing lab takes a snapshot ten times a second, and a search
        may take up to STAGE_WORK_LIMIT steps). The cache is not state: a restored
        lab judges afresh, to the same answer."""
        history = window_of(self.cluster)
        key = (history, self.cluster.first_value)
        if self._judged_for is None or self._judged_for[0] != key:
            self._judged_for = (key, verdicts_of(history, self.cluster.first_value))
        return self._judged_for[1]

    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        state["_judged_for"] = None  # a cache, not state: checkpoints stay small
        return state

    def metrics(self) -> dict:
        """Reads, stale reads, failures, messages and the counter's results."""
        tally, counts = self.cluster.tally, self.network
        completed = tally["completed_reads"]
        return {
            **tally,
            "stale_fraction": (
                round(tally["stale_reads"] / completed, 4) if completed else 0.0
            ),
            "messages_sent": counts.sent,
            "messages_delivered": counts.delivered,
            "messages_lost": counts.lost,
            "trials": self._trials_view(),
        }

    def state(self) -> dict:
        """What the digest covers: the snapshot, the numbers and the whole history
        (its settled part as a chained digest: simulators/engine/canonical.py)."""
        return {
            "snapshot": self.snapshot(),
            "metrics": self.metrics(),
            "history": self.cluster.history_state(),
            "levels": self.levels,
            "rotation": self.rotation,
        }
