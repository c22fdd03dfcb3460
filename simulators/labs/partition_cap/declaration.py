"""What partition-cap lets a user choose and do, declared as data."""

from simulators.engine.clocked import PLAYBACK_ACTIONS
from simulators.engine.declaration import ActionSpec, Param
from simulators.engine.i18n import gettext_noop as _

# id, city: Frankfurt on the left of the drawing, Tokyo on the right, the others between
SERVERS = (
    ("A", _("Frankfurt")),
    ("B", _("Singapore")),
    ("C", _("Tokyo")),
    ("D", _("Ashburn")),
    ("E", _("São Paulo")),
)
SERVER_COUNTS = (3, 4, 5)
# one-way delay in ms between two cities (about half the real round trip)
LATENCY_MS = {
    "A-B": 80,
    "A-C": 110,
    "A-D": 45,
    "A-E": 100,
    "B-C": 35,
    "B-D": 110,
    "B-E": 160,
    "C-D": 75,
    "C-E": 130,
    "D-E": 60,
}
JITTER_MS = 8
# how long a server waits for a majority before it answers "no majority"
TIMEOUT_MS = 600
MAX_SKEW_MS = 2000
SEATS = 1  # the last seat on flight 7
FLIGHT_INDEX = 7
PASSENGERS = 6
# the two clients of the story: who they are and which server they talk to
CLIENTS = (
    ("fra", _("Frankfurt"), "A", 0),
    ("tyo", _("Tokyo"), "C", 1),
)
HISTORY = 40  # operations kept in the snapshot (counters cover the rest)
MEETINGS = 12  # copy comparisons kept in the snapshot

BOOK_MODES = ("majority", "anyway")
BOOK_MODE_LABELS = (
    _("Refuse without a majority (CP)"),
    _("Answer anyway (AP)"),
)
RULES = ("lww", "app", "siblings")
RULE_LABELS = (
    _("Last writer wins (by timestamp)"),
    _("Application rule (later booking to standby)"),
    _("Keep both versions (siblings)"),
)

SERVER = Param(
    "server",
    _("Server"),
    "text",
    default="A",
    max_length=2,
    source="servers",
    help=_("The server the client talks to."),
)
NODE = Param("node", _("Server"), "text", default="C", max_length=2, source="servers")
LINK = Param(
    "link",
    _("Link"),
    "text",
    default="A-C",
    max_length=5,
    source="link_ids",
    help=_("Two servers, such as A-C."),
)
GROUP = Param(
    "group",
    _("Servers on one side"),
    "text",
    default="C",
    max_length=16,
    help=_("The servers cut off from the rest, such as C or C,D."),
)
PASSENGER = Param(
    "passenger",
    _("Passenger"),
    "text",
    default="P0000001",
    max_length=12,
    source="passengers",
)
BOOK_MODE = Param(
    "mode",
    _("If the other copies cannot be reached"),
    "choice",
    default="majority",
    choices=BOOK_MODES,
    choice_labels=BOOK_MODE_LABELS,
)
BOARD_MODE = Param(
    "mode",
    _("If the other copies cannot be reached"),
    "choice",
    default="anyway",
    choices=BOOK_MODES,
    choice_labels=BOOK_MODE_LABELS,
)
RULE = Param(
    "rule",
    _("When two versions meet"),
    "choice",
    default="lww",
    choices=RULES,
    choice_labels=RULE_LABELS,
    current="rule",
)
SKEW = Param(
    "skew_ms",
    _("Clock skew (ms)"),
    "int",
    default=0,
    minimum=-MAX_SKEW_MS,
    maximum=MAX_SKEW_MS,
    help=_("How far this server's clock runs ahead (+) or behind (−)."),
    presets=(-500, 0, 500),
)
SERVER_COUNT = Param(
    "servers",
    _("Servers"),
    "choice",
    default=3,
    choices=SERVER_COUNTS,
    choice_labels=("3", "4", "5"),
    help=_("How many copies of the row; 4 tolerate one lost server, the same as 3."),
)

OPTIONS = (SERVER_COUNT, RULE)

ACTIONS = PLAYBACK_ACTIONS + (
    ActionSpec(
        "book",
        _("Book the last seat"),
        (SERVER, PASSENGER, BOOK_MODE),
        help=_("A client asks a server to sell the last seat on the flight."),
        primary=True,
        cost=400,  # with the messages it sends, delivered by later advances
    ),
    ActionSpec(
        "board",
        _("Read the departures board"),
        (NODE, BOARD_MODE),
        help=_("Read the flight's seats and status from one server."),
        primary=True,
        cost=400,
    ),
    ActionSpec(
        "split",
        _("Split the network"),
        (GROUP,),
        help=_("Cut every link between these servers and the rest, heal the others."),
        primary=True,
    ),
    ActionSpec(
        "heal_all", _("Heal every link"), primary=True, cost=2_000
    ),  # with the versions the two sides exchange
    ActionSpec("cut_link", _("Cut a link"), (LINK,)),
    ActionSpec("heal_link", _("Heal a link"), (LINK,)),
    ActionSpec(
        "set_conflict_rule",
        _("Conflict rule"),
        (RULE,),
        help=_("What a copy does when it meets a version written concurrently."),
    ),
    ActionSpec("set_skew", _("Skew a server's clock"), (NODE, SKEW)),
    ActionSpec("stop_node", _("Stop a server"), (NODE,)),
    ActionSpec("restart_node", _("Restart a server"), (NODE,), cost=2_000),
    ActionSpec(
        "reset",
        _("Start over"),
        (SERVER_COUNT,),
        help=_("One seat left again on every copy, the network whole."),
        cost=500,
    ),
)
