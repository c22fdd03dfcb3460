"""two-phase-commit: the seat and the booking on two shards, and what a crash holds up.

The protocol, the shards and the workload are in `cluster.py`. Choices made here, so
the lab says what it does:

- A transaction across both shards while the coordinator is down is refused
  (`coordinator_down`): there is nobody to run it. A write to one shard still goes
  straight to that shard, and waits in its queue behind the locks the crash left
  held: that is the cost of the crash, shown. The workload's clients, which cannot
  be refused a click, get "fail" (the connection was refused: certainly no effect).
- A write to a shard that is down is refused the same way (`shard_down`).
- The trap (`crash_between_phases`) crashes the coordinator at the chosen moment of
  the next transaction across both shards, and only once. "Before it logs its
  decision" and "after it logs its decision" need two-phase commit; "between the two
  shards" is after the first shard was told (in the mode "each shard on its own":
  after the first half, the debit, was committed).
"""

from simulators.engine.bank import EXPLANATIONS
from simulators.engine.clock import EventQueue
from simulators.engine.clocked import ClockedLab
from simulators.engine.declaration import ActionError
from simulators.engine.i18n import gettext_noop as _
from simulators.engine.rng import SplitMix, derive_seed, make_rng
from simulators.labs.two_phase_commit.cluster import (
    ACCOUNTS,
    BANK_OPS,
    CLIENT,
    CLIENT_TIMEOUT_MS,
    COORDINATOR,
    FLIGHT,
    FLIGHTS,
    INQUIRY_MS,
    LOG_MS,
    MAX_TRANSFER,
    NODES,
    SEATS,
    SERVERS,
    TOTAL,
    VOTE_TIMEOUT_MS,
    Bank,
    Cluster,
    account_shard,
    book_parts,
    fare_parts,
    read_parts,
    transfer_parts,
)
from simulators.labs.two_phase_commit.declaration import (
    ACTIONS,
    MODES,
    POINTS,
    TwoPhaseCost,
)
from simulators.labs.two_phase_commit.histories import judged
from simulators.labs.two_phase_commit.tour import TOUR

CLICKS = "you"  # the client name of the visitor's own operations
SERVER_LABEL = dict(NODES)


class TwoPhaseCommitLab(ClockedLab):
    """A coordinator and two shards; bookings, fares, transfers and crashes."""

    slug = "two-phase-commit"
    actions = ACTIONS
    tour = TOUR
    stress = (
        ("start_bank", {}),
        ("advance", {"ms": 60000}),
        ("advance", {"ms": 60000}),
    )
    cost_model = TwoPhaseCost
    # the bank checker's verdicts come as English data: hello carries them translated
    words = tuple(label for _id, label in NODES) + EXPLANATIONS
    creation_cost = 300  # measured 0.13 ms (benchmarks/replay_costs.py)

    def __init__(self, seed: int = 0, **options) -> None:
        super().__init__(seed, **options)
        self.queue = EventQueue(self.queue.clock)
        self.cluster = Cluster(self.queue, make_rng(self.seed, "network"))
        self.bank = Bank(
            self.cluster, SplitMix(derive_seed(self.seed, "bank")), BANK_OPS
        )
        self.passengers = 0

    @property
    def network(self):
        return self.cluster.network

    # -- time --------------------------------------------------------------------------

    def run_until(self, until_ms: int) -> list[dict]:
        self.network.run_until(until_ms)
        return self.collect_events()

    def collect_events(self) -> list[dict]:
        return self.network.take_events()

    # -- checks ------------------------------------------------------------------------

    def _needs_up(self, node: str, field: str | None = None) -> None:
        if self.cluster.up(node):
            return
        if node == COORDINATOR:
            raise ActionError(
                "coordinator_down",
                _(
                    "the coordinator is down: a transaction across both shards needs "
                    "it; recover it first (a write to one shard still goes straight "
                    "to that shard)"
                ),
                field,
            )
        raise ActionError(
            "shard_down",
            _("the %(shard)s is down: recover it first"),
            field,
            words=("shard",),
            shard=SERVER_LABEL[node],
        )

    def _server(self, node: str) -> str:
        if node == CLIENT:
            raise ActionError(
                "not_a_server",
                _("the client is not a server: crash the coordinator or a shard"),
                "node",
            )
        if node not in SERVERS:
            raise ActionError(
                "no_such_server",
                _("there is no server %(node)r; servers are %(servers)s"),
                "node",
                node=node,
                servers=", ".join(SERVERS),
            )
        return node

    def _run(self, parts: dict, field: str | None = None) -> None:
        """Refuse a transaction whose route is down."""
        if len(parts) > 1:
            self._needs_up(COORDINATOR, field)
        else:
            self._needs_up(next(iter(parts)), field)

    # -- client operations -------------------------------------------------------------

    def do_book(self, seat: str) -> list[dict]:
        """Book `seat` for the next passenger: both shards, one transaction."""
        passenger = f"P{self.passengers + 1}"
        parts = book_parts(seat, passenger)
        self._run(parts, "seat")
        self.passengers += 1
        value = {"seat": seat, "passenger": passenger}
        self.cluster.invoke(CLICKS, "write", "book", value, parts)
        return self.collect_events()

    def do_set_fare(self, seat: str, fare: int) -> list[dict]:
        """Change one seat's fare: one row on the flights shard, no coordinator."""
        parts = fare_parts(seat, fare)
        self._run(parts, "seat")
        self.cluster.invoke(
            CLICKS, "write", "fare", {"seat": seat, "fare": fare}, parts
        )
        return self.collect_events()

    def do_transfer(self, source: int, target: int, amount: int) -> list[dict]:
        """Move `amount` from one account to another."""
        if source == target:
            raise ActionError(
                "same_account",
                _("a transfer needs two different accounts"),
                "target",
            )
        parts = transfer_parts(source, target, amount)
        self._run(parts, "source")
        value = {"from": source, "to": target, "amount": amount}
        self.cluster.invoke(CLICKS, "write", "transfer", value, parts)
        return self.collect_events()

    def do_read_accounts(self) -> list[dict]:
        """Read all eight accounts on both shards."""
        parts = read_parts()
        self._run(parts)
        self.cluster.invoke(CLICKS, "read", "read", None, parts)
        return self.collect_events()

    # -- the workload ------------------------------------------------------------------

    def do_start_bank(self) -> list[dict]:
        """Three clients: transfers of at most 5 and reads of every account."""
        if self.bank.running:
            raise ActionError("bank_running", _("the bank workload is already running"))
        self.bank.start()
        event = {"type": "bank_started", "ops": BANK_OPS, "mode": self.cluster.mode}
        return [event, *self.collect_events()]

    def do_stop_bank(self) -> list[dict]:
        """Stop the workload: no new operations (those under way finish)."""
        if not self.bank.running:
            raise ActionError("bank_stopped", _("the bank workload is not running"))
        self.bank.stop()
        return [{"type": "bank_stopped", "invoked": self.bank.invoked}]

    def do_set_mode(self, mode: str) -> list[dict]:
        """Two-phase commit, or each shard commits on its own."""
        before = self.cluster.mode
        self.cluster.mode = mode
        disarmed = None
        if mode == "independent" and self.cluster.trap in POINTS[:2]:
            disarmed, self.cluster.trap = self.cluster.trap, None
        return [
            {"type": "mode_set", "mode": mode, "before": before, "disarmed": disarmed}
        ]

    # -- faults ------------------------------------------------------------------------

    def do_crash_between_phases(self, point: str) -> list[dict]:
        """Crash the coordinator at `point` of the next transaction on both shards."""
        self._needs_up(COORDINATOR, "point")
        if self.cluster.mode == "independent" and point != "between_shards":
            raise ActionError(
                "no_decision",
                _(
                    "with each shard committing on its own there is no decision to "
                    "log: crash it between the two shards instead"
                ),
                "point",
            )
        self.cluster.trap = point
        return [{"type": "trap_set", "point": point}]

    def do_crash_server(self, node: str) -> list[dict]:
        """Crash a server: it loses its memory, keeps its log."""
        node = self._server(node)
        if not self.cluster.up(node):
            raise ActionError(
                "already_down",
                _("the %(server)s is already down"),
                "node",
                words=("server",),
                server=SERVER_LABEL[node],
            )
        self.cluster.crash(node)
        return self.collect_events()

    def do_recover_server(self, node: str) -> list[dict]:
        """Start a crashed server again from its log."""
        node = self._server(node)
        if self.cluster.up(node):
            raise ActionError(
                "already_up",
                _("the %(server)s is running: only a crashed server recovers"),
                "node",
                words=("server",),
                server=SERVER_LABEL[node],
            )
        self.cluster.recover(node)
        return self.collect_events()

    # -- what the renderer reads -------------------------------------------------------

    def snapshot(self) -> dict:
        cluster = self.cluster
        return {
            "playback": self.playback(),
            "network": self.network.snapshot(),
            "flight": FLIGHT,
            "seats": list(SEATS),
            "accounts": [
                {"account": a, "shard": account_shard(a)}
                for a in range(1, ACCOUNTS + 1)
            ],
            "total": TOTAL,
            "max_transfer": MAX_TRANSFER,
            "mode": cluster.mode,
            "modes": list(MODES),
            "trap": cluster.trap,
            "servers": list(SERVERS),
            "coordinator": cluster.coordinator.snapshot(cluster.up(COORDINATOR)),
            "shards": [s.snapshot(cluster.up(s.name)) for s in cluster.shards.values()],
            "txns": [t.as_dict() for t in cluster.txns.values()],
            "recent": [t.costs() | {"state": t.state} for t in cluster.recent],
            "costs": {
                key: (txn.costs() if txn is not None else None)
                for key, txn in cluster.last_costs.items()
            },
            "ops": [op.as_dict() for op in cluster.ops],
            "ops_total": cluster.next_id - 1,
            "bank": self.bank.snapshot(),
            "checker": judged(cluster),
            "timing": {
                "log_ms": LOG_MS,
                "vote_timeout_ms": VOTE_TIMEOUT_MS,
                "client_timeout_ms": CLIENT_TIMEOUT_MS,
                "inquiry_ms": INQUIRY_MS,
            },
        }

    def metrics(self) -> dict:
        cluster, net = self.cluster, self.network
        shards = cluster.shards
        return {
            **cluster.tally,
            "operations": cluster.next_id - 1,
            "open": len(cluster.open),
            "locks_held": sum(len(s.locks) for s in shards.values()),
            "waiting": sum(len(s.waiting) for s in shards.values()),
            "prepared": sum(len(s.prepared) for s in shards.values()),
            "log_writes": {
                COORDINATOR: cluster.coordinator.log_total,
                **{name: s.forced for name, s in shards.items()},
            },
            "messages_sent": net.sent,
            "messages_lost": net.lost,
            "total_now": cluster.total(),
            "bank_reads": self.bank.reads_ok,
            "bank_reads_off": self.bank.off,
            "flights_up": cluster.up(FLIGHTS),
        }
