"""What the rate-limit-race lab lets a user choose and do, declared as data."""

from simulators.engine.cost import CostModel
from simulators.engine.declaration import ActionSpec, Param
from simulators.engine.i18n import gettext_noop as _
from simulators.labs.rate_limit_race.orderings import ordering_count
from simulators.labs.rate_limit_race.programs import LIMIT, MODES, READ_CHECK_WRITE

MIN_CLIENTS, MAX_CLIENTS = 2, 4
DEFAULT_CLIENTS = 2
DEFAULT_ADMITTED = LIMIT - 1  # the course's story: both clients read 99
MAX_PASS_S = 3_600
MAX_REQUESTS = 200  # later requests one action sends
# `every_ordering` plays at most this many interleavings (about 4 µs each, so at most
# about 45 ms): every case but four clients of three steps (369,600) is under it
MAX_ORDERINGS = 10_000
# replay costs in work units, about a microsecond each (simulators/engine/cost.py),
# measured as `make bench` does (benchmarks/replay_costs.py: through a History, with
# the frame's metrics, after a garbage collection): an action that does next to
# nothing takes 80-220 µs there, whatever it does (5-30 µs warm), and declares about
# 1.5 times that; so does the work that grows with the orderings or the requests
ORDERINGS_BASE = 300
PER_ORDERING = 7  # 2.6-5.0 µs an interleaving, by mode and clients
REQUESTS_BASE = 200
PER_REQUEST = 5  # 2.3-3.2 µs a request

MODE = Param(
    "mode",
    _("Counting"),
    "choice",
    default=READ_CHECK_WRITE,
    choices=MODES,
    choice_labels=(
        _("Read, check, write: GET, compare, SET"),
        _("INCR, then compare the reply"),
        _("INCR, then EXPIRE: two commands"),
        _("A Lua script: INCR and EXPIRE in one step"),
        _("SET … EX 60 NX, then INCR"),
    ),
    help=_(
        "How each client counts its request against the limit. INCR alone gives a "
        "new counter no expiry; every other way gives it one."
    ),
    current="mode",
)
CLIENTS = Param(
    "count",
    _("Clients"),
    "int",
    default=DEFAULT_CLIENTS,
    minimum=MIN_CLIENTS,
    maximum=MAX_CLIENTS,
    presets=(2, 3, 4),
    help=_("How many clients send a request at the same moment (A, B, C, D)."),
    current="client_count",
)
ADMITTED = Param(
    "count",
    _("Already admitted"),
    "int",
    default=DEFAULT_ADMITTED,
    minimum=0,
    maximum=LIMIT,
    presets=(0, 98, 99),
    help=_(
        "How many requests this minute were admitted before the race: the counter "
        "starts there. 0 starts a new minute, with no counter yet."
    ),
    current="starting_admitted",
)
ORDER = Param(
    "order",
    _("Order"),
    "text",
    default="A1 B1 A2 B2 A3 B3",
    max_length=120,
    help=_(
        "Every step once, separated by spaces or commas: A2 is client A's second "
        "step. Each client's steps keep their own order."
    ),
    current="order_text",
)
CLIENT = Param(
    "client",
    _("Client"),
    "text",
    default="A",
    max_length=2,
    source="crashable",
    help=_("It dies after the last step it ran and never sends the rest."),
)
SECONDS = Param(
    "seconds",
    _("Seconds"),
    "int",
    default=61,
    minimum=1,
    maximum=MAX_PASS_S,
    presets=(1, 61, 3_600),
    help=_("Move the lab's clock on: a key whose expiry comes is deleted."),
)
REQUESTS = Param(
    "count",
    _("Requests"),
    "int",
    default=1,
    minimum=1,
    maximum=MAX_REQUESTS,
    presets=(1, 100),
    help=_("Requests sent one after another, each counted whole, with no race."),
)

OPTIONS = ()
ACTIONS = (
    ActionSpec(
        "step",
        _("Step"),
        help=_("Run the next step of the order."),
        primary=True,
        cost=200,  # 115 µs measured (see above)
    ),
    ActionSpec(
        "run_all",
        _("Run all"),
        help=_("Run every step left, in the order."),
        primary=True,
        cost=250,  # 130-145 µs, two to four clients
    ),
    ActionSpec(
        "reset",
        _("Reset"),
        help=_("Back to the start of the race: the counter as it was, nothing run."),
        primary=True,
        cost=150,  # 80-95 µs
    ),
    ActionSpec(
        "shuffle",
        _("Shuffle"),
        help=_("Let the scheduler pick an interleaving at random, and start it."),
        primary=True,
        cost=300,  # 220 µs with four clients: a new seeded stream
    ),
    ActionSpec(
        "every_ordering",
        _("Every ordering"),
        help=_(
            "Play every interleaving of the clients' steps from the same start and "
            "count how many admit more than the limit."
        ),
        primary=True,
        cost=ORDERINGS_BASE + PER_ORDERING * MAX_ORDERINGS,  # charged by the count
    ),
    ActionSpec(
        "set_mode",
        _("Set the way to count"),
        (MODE,),
        help=_("Choose how each client counts; the race starts again."),
        primary=True,
        cost=250,  # 160 µs
    ),
    ActionSpec(
        "set_clients",
        _("Set the number of clients"),
        (CLIENTS,),
        cost=250,  # 160 µs
    ),
    ActionSpec(
        "set_admitted",
        _("Set how many were already admitted"),
        (ADMITTED,),
        cost=200,  # 120 µs
    ),
    ActionSpec(
        "set_order",
        _("Set the order"),
        (ORDER,),
        help=_("Write the interleaving to play; the race starts again."),
        cost=250,  # 155 µs with four clients
    ),
    ActionSpec(
        "crash_client",
        _("Crash a client"),
        (CLIENT,),
        help=_(
            "The client dies where it is: its steps not yet run are taken out of the "
            "order."
        ),
        cost=200,  # 135 µs
    ),
    ActionSpec(
        "pass_time",
        _("Let time pass"),
        (SECONDS,),
        help=_("Keys whose expiry comes are deleted; a key with no expiry stays."),
        cost=200,  # 140-155 µs
    ),
    ActionSpec(
        "new_request",
        _("Send more requests"),
        (REQUESTS,),
        help=_(
            "After the race, more requests from user42, each counted the chosen way "
            "in one go: are they still admitted?"
        ),
        cost=REQUESTS_BASE + PER_REQUEST * MAX_REQUESTS,  # charged by the count
    ),
)


class RateLimitRaceCost(CostModel):
    """Declared costs of a rate-limit-race history: enumerating costs per ordering.

    The scale is (mode, clients): what the number of interleavings depends on.
    """

    def __init__(self, lab_class) -> None:
        super().__init__(lab_class)
        self.scale = (READ_CHECK_WRITE, DEFAULT_CLIENTS)

    def charge(self, spec, args: dict) -> int:
        mode, clients = self.scale
        if spec.name == "set_mode":
            self.scale = (args["mode"], clients)
        elif spec.name == "set_clients":
            self.scale = (mode, args["count"])
        elif spec.name == "every_ordering":
            count = ordering_count(mode, clients)
            if count > MAX_ORDERINGS:  # refused at once
                return ORDERINGS_BASE
            return ORDERINGS_BASE + PER_ORDERING * count
        elif spec.name == "new_request":
            return REQUESTS_BASE + PER_REQUEST * args["count"]
        return spec.cost
