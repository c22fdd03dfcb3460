"""What the replication lab lets a user choose and do, declared as data."""

from simulators.engine.clocked import PLAYBACK_ACTIONS
from simulators.engine.cost import CostModel
from simulators.engine.declaration import ActionSpec, Param
from simulators.engine.i18n import gettext_noop as _

REPLICA_CHOICES = (1, 2, 3)
MAX_BURST = 2_000  # records one burst appends
MAX_RECORDS = 200_000  # records a lab's log may hold
MAX_DOWN_MS = 30_000
STICKY_MS = 3_000  # "primary after your own write" lasts this long
RETRY_MS = 20  # "retry until the row matches" looks again this often
RETRY_LIMIT_MS = 5_000  # and gives up after this long
HISTORY = 200  # operations kept for the history panel
CLIENTS = ("ana", "ben")
PRIMARY = "primary"  # read from whichever server is the primary now

# replay costs in work units, about a microsecond each (simulators/engine/cost.py):
# a record costs its write, its shipping and its applying on each replica
PER_RECORD = 8
WRITE_COST = 400
SCAN_PER_RECORD = 2  # a promotion or a return may go over the whole log once
LAG_BUCKET_MS = 50  # the lag chart's resolution: one sample per replica each
SAMPLE_COST = 3  # 1.7 µs measured per sample of 3 servers

MODE = Param(
    "mode",
    _("Replication"),
    "choice",
    default="async",
    choices=("async", "sync"),
    choice_labels=(_("async: commit without it"), _("sync: commit waits for it")),
)
PLACE = Param(
    "place",
    _("Distance"),
    "choice",
    default="zone",
    choices=("zone", "region", "ocean"),
    choice_labels=(
        _("same zone (1–2 ms)"),
        _("another region (about 20 ms)"),
        _("across an ocean (about 100 ms)"),
    ),
)
REPLICA = Param(
    "server", _("Replica"), "text", default="B", max_length=8, source="replica_ids"
)
CLIENT = Param(
    "client",
    _("Passenger"),
    "choice",
    default="ana",
    choices=CLIENTS,
    choice_labels=("Ana", "Ben"),
)
FIX_CHOICES = ("off", "primary_after_write", "retry", "current_rows_primary")
FIX_LABELS = (
    _("off: read where asked"),
    _("the primary for 3 s after your own write"),
    _("retry until the row matches"),
    _("current-row reads go to the primary"),
)

OPTIONS = (
    Param(
        "replicas",
        _("Replicas"),
        "choice",
        default=2,
        choices=REPLICA_CHOICES,
        help=_("How many replicas follow the primary."),
    ),
)

ACTIONS = (
    *PLAYBACK_ACTIONS,
    ActionSpec(
        "write",
        _("Change email"),
        (CLIENT,),
        help=_("The passenger changes the email on their booking: one commit."),
        primary=True,
        cost=WRITE_COST + PER_RECORD,
    ),
    ActionSpec(
        "read",
        _("Read"),
        (
            CLIENT,
            Param(
                "row",
                _("Row"),
                "choice",
                default="email",
                choices=("email", "position"),
                choice_labels=(
                    _("their booking's email (a current row)"),
                    _("an aircraft's last position"),
                ),
            ),
            Param(
                "server",
                _("From"),
                "text",
                default="C",
                max_length=8,
                source="read_targets",
                help=_("The server the passenger's app asks."),
            ),
        ),
        help=_("Read a row from the primary or from a replica."),
        primary=True,
        cost=300,
    ),
    ActionSpec(
        "burst",
        _("Burst of writes"),
        (
            Param(
                "count",
                _("Position reports"),
                "int",
                default=MAX_BURST,
                minimum=1,
                maximum=MAX_BURST,
                presets=(100, 500, 2_000),
                help=_("Aircraft report their positions: that many records at once."),
            ),
        ),
        help=_("Many records at once: watch the replicas fall behind and catch up."),
        primary=True,
        cost=WRITE_COST + PER_RECORD * MAX_BURST,  # ReplicationCost charges the count
    ),
    ActionSpec(
        "kill_primary",
        _("Kill the primary"),
        help=_("The primary crashes; what it had not shipped stays on it alone."),
        primary=True,
        cost=300,
    ),
    ActionSpec(
        "promote",
        _("Promote a replica"),
        (REPLICA,),
        help=_(
            "Make a running replica the primary; it first copies what it lacks "
            "from the most advanced running replica."
        ),
        primary=True,
        cost=WRITE_COST + SCAN_PER_RECORD * MAX_RECORDS,  # ReplicationCost: the log
    ),
    ActionSpec(
        "take_down",
        _("Take a replica down"),
        (
            REPLICA,
            Param(
                "ms",
                _("For (ms)"),
                "int",
                default=2_000,
                minimum=100,
                maximum=MAX_DOWN_MS,
                presets=(500, 2_000, 10_000),
            ),
        ),
        help=_("It misses everything meanwhile and comes back that far behind."),
        cost=300,
    ),
    ActionSpec(
        "restart",
        _("Bring a server back"),
        (
            Param(
                "server",
                _("Server"),
                "text",
                default="A",
                max_length=8,
                source="down_ids",
            ),
        ),
        help=_(
            "A killed primary comes back as a replica, throwing away what no "
            "one else kept."
        ),
        cost=WRITE_COST + SCAN_PER_RECORD * MAX_RECORDS,
    ),
    ActionSpec(
        "set_replica",
        _("Set up a replica"),
        (REPLICA, MODE, PLACE),
        help=_("Sync or async, and how far from the first primary it stands."),
        cost=300,
    ),
    ActionSpec(
        "set_acks",
        _("Acknowledge commits"),
        (
            Param(
                "acks",
                _("Return the commit when"),
                "choice",
                default="one",
                choices=("one", "majority"),
                choice_labels=(
                    _("the primary has it (w:1)"),
                    _("a majority has it (w:majority)"),
                ),
                current="acks",
            ),
        ),
        help=_("Sync replicas are always waited for, whichever you choose."),
        cost=300,
    ),
    ActionSpec(
        "set_read_your_writes",
        _("Read your writes"),
        (
            Param(
                "fix",
                _("Fix"),
                "choice",
                default="off",
                choices=FIX_CHOICES,
                choice_labels=FIX_LABELS,
                current="read_your_writes",
            ),
        ),
        help=_("Three ways an app can make a passenger see their own change."),
        cost=100,
    ),
    ActionSpec(
        "set_replicas",
        _("Start again"),
        (OPTIONS[0],),
        help=_("A fresh cluster: one primary and this many async replicas."),
        cost=1_000,
    ),
)


CHECKPOINT_PER_RECORD = 2


class ReplicationCost(CostModel):
    """Declared costs: a burst pays per record; a promotion or a restart may go over
    the whole log, so the model follows how many records it holds."""

    def __init__(self, lab_class) -> None:
        super().__init__(lab_class)
        self.scale = (0,)

    def checkpoint(self) -> int:
        # a checkpoint pickles every record the log holds (1.5 µs each measured)
        return super().checkpoint() + CHECKPOINT_PER_RECORD * self.scale[0]

    def charge(self, spec, args: dict) -> int:
        (records,) = self.scale
        name = spec.name
        if name == "write":
            self.scale = (min(MAX_RECORDS, records + 1),)
        elif name == "burst":
            self.scale = (min(MAX_RECORDS, records + args["count"]),)
            return WRITE_COST + PER_RECORD * args["count"]
        elif name == "set_replicas":
            self.scale = (0,)
        elif name in ("promote", "restart"):
            return WRITE_COST + SCAN_PER_RECORD * records
        elif name == "advance":  # the lag is sampled every 50 ms of it
            return spec.cost + SAMPLE_COST * (args["ms"] // LAG_BUCKET_MS + 1)
        return spec.cost
