"""What the two-phase-commit lab lets a user do, declared as data, with its costs."""

from simulators.engine.clocked import PLAYBACK_ACTIONS
from simulators.engine.cost import CostModel
from simulators.engine.declaration import ActionSpec, Param
from simulators.engine.i18n import gettext_noop as _
from simulators.labs.two_phase_commit.cluster import (
    ACCOUNTS,
    BANK_CLIENTS,
    BANK_OPS,
    MAX_TRANSFER,
    SEATS,
)

MODES = ("2pc", "independent")
MODE_LABELS = (_("Two-phase commit"), _("Commit each shard on its own"))
POINTS = ("after_decision", "before_decision", "between_shards")
POINT_LABELS = (
    _("After it logs its decision"),
    _("Before it logs its decision"),
    _("Between the two shards"),
)
SERVER_IDS = ("coordinator", "flights", "bookings")
# work units (about a microsecond of replay each; simulators/engine/cost.py): an
# action pays for the messages it starts too, delivered by the advances after it
TXN_COST = 600
PER_BANK_OP = 150  # one operation of the workload with its messages and log writes
BANK_OP_MS = 20  # an operation's round trips take at least this long (virtual ms)

SEAT = Param(
    "seat",
    _("Seat"),
    "choice",
    default=SEATS[0],
    choices=SEATS,
    help=_("A seat of flight UA 455."),
)
SERVER = Param(
    "node",
    _("Server"),
    "text",
    default="coordinator",
    max_length=16,
    source="servers",
    help=_("The coordinator or one of the two shards."),
)


def account(name: str, label: str, default: int) -> Param:
    """An account number: 1 to 8 (another is refused as out of range)."""
    return Param(
        name,
        label,
        "int",
        default=default,
        minimum=1,
        maximum=ACCOUNTS,
        help=_("Accounts 1-4 are on the flights shard, 5-8 on the bookings shard."),
    )


ACTIONS = (
    *PLAYBACK_ACTIONS,
    ActionSpec(
        "book",
        _("Book a seat"),
        (SEAT,),
        help=_(
            "One transaction on both shards: the seat on the flights shard, the "
            "booking on the bookings shard."
        ),
        primary=True,
        cost=TXN_COST,
    ),
    ActionSpec(
        "crash_between_phases",
        _("Crash the coordinator between the phases"),
        (
            Param(
                "point",
                _("When"),
                "choice",
                default=POINTS[0],
                choices=POINTS,
                choice_labels=POINT_LABELS,
                help=_("The next transaction across both shards crashes it there."),
            ),
        ),
        help=_(
            "Set a trap: the coordinator crashes at that moment of the next commit."
        ),
        primary=True,
    ),
    ActionSpec(
        "set_fare",
        _("Change a seat's fare"),
        (
            SEAT,
            Param(
                "fare",
                _("Fare"),
                "int",
                default=199,
                minimum=1,
                maximum=9_999,
                presets=(99, 199, 499),
                help=_("A write to one row of one shard: no coordinator."),
            ),
        ),
        help=_("A one-shard commit: the flights shard alone, one log write."),
        primary=True,
        cost=TXN_COST,
    ),
    ActionSpec(
        "transfer",
        _("Transfer between accounts"),
        (
            account("source", _("From account"), 1),
            account("target", _("To account"), 5),
            Param(
                "amount",
                _("Amount"),
                "int",
                default=5,
                minimum=1,
                maximum=MAX_TRANSFER,
                help=_("At most 5."),
            ),
        ),
        help=_(
            "Accounts 1-4 are on the flights shard, 5-8 on the bookings shard: "
            "across shards it is two-phase commit."
        ),
        cost=TXN_COST,
    ),
    ActionSpec(
        "read_accounts",
        _("Read every account"),
        help=_("Read all eight accounts, on both shards, and add them up."),
        cost=TXN_COST,
    ),
    ActionSpec(
        "start_bank",
        _("Run the bank workload"),
        help=_(
            "Three clients make 200 transfers and reads; every read should add up "
            "to 100."
        ),
        cost=2_000,  # its operations are charged to the advances that run them
    ),
    ActionSpec("stop_bank", _("Stop the bank workload")),
    ActionSpec(
        "set_mode",
        _("How a transaction commits"),
        (
            Param(
                "mode",
                _("Commit"),
                "choice",
                default=MODES[0],
                choices=MODES,
                choice_labels=MODE_LABELS,
                current="mode",
            ),
        ),
        help=_("Two-phase commit, or each shard commits its half on its own."),
    ),
    ActionSpec(
        "crash_server",
        _("Crash a server"),
        (SERVER,),
        group="drawing",
        help=_("It loses what it holds in memory; its log survives."),
    ),
    ActionSpec(
        "recover_server",
        _("Recover a server"),
        (SERVER,),
        group="drawing",
        help=_("It starts again from its log."),
        cost=400,
    ),
)


class TwoPhaseCost(CostModel):
    """Declared costs: the bank workload's operations are paid for by the advances
    that run them (three clients, an operation at least `BANK_OP_MS` each), up to the
    workload's 200; a server that recovers may let every one of them still run.

    The scale is (operations the workload may still run, whether it was started).
    """

    def __init__(self, lab_class) -> None:
        super().__init__(lab_class)
        self.scale = (0, False)

    def charge(self, spec, args: dict) -> int:
        left, started = self.scale
        name = spec.name
        if name == "start_bank":
            self.scale = (BANK_OPS, True)
        elif name == "stop_bank":
            self.scale = (0, False)
        elif name == "recover_server" and started:
            self.scale = (BANK_OPS, True)  # stalled operations go on
        elif name in ("advance", "step"):
            ms = args["ms"] if name == "advance" else BANK_OP_MS
            ops = min(left, len(BANK_CLIENTS) * (ms // BANK_OP_MS + 1))
            self.scale = (left - ops, started)
            return spec.cost + PER_BANK_OP * ops
        return spec.cost
