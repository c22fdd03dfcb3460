"""What the scatter-gather lab lets a user choose and do, declared as data."""

from simulators.engine.cost import CostModel
from simulators.engine.declaration import ActionSpec, Param
from simulators.engine.i18n import gettext_noop as _
from simulators.labs.scatter_gather.schedule import (
    AIRPORT_CODES,
    COLUMNS,
    FLEET,
    FLIGHT_COUNT,
    MAX_WRITES,
)

MAX_SHARDS = 64
LADDER = (1, 2, 4, 8, 16, 32, 64)  # the cluster sizes `measure` always plots
MAX_FACTOR = 50
MIN_MEASURE, MAX_MEASURE = 100, 20_000
# an entry reaches the global index at the end of this many operations after its write
GLOBAL_INDEX_LAG_OPS = 1
# replay costs in work units, about a microsecond each (simulators/engine/cost.py)
MEASURE_BASE = 700  # the analytic curve, and sorting what was measured
MEASURE_PER_QUERY = 12  # 64 draws, the running maxima and a transform per cluster size

SHARD_COUNT = Param(
    "count",
    _("Shards"),
    "int",
    default=8,
    minimum=1,
    maximum=MAX_SHARDS,
    help=_("How many shards the router sends queries to."),
    presets=(1, 8, 64),
    current="shard_count",
)
FLIGHT_ID = Param(
    "flight_id",
    _("Flight id"),
    "int",
    default=7,
    minimum=1,
    maximum=FLIGHT_COUNT + MAX_WRITES,
    help=_("The shard key: flights 1 to 500, then any you write."),
)
SHARD = Param(
    "shard",
    _("Shard"),
    "int",
    default=3,
    minimum=0,
    maximum=MAX_SHARDS - 1,
    help=_("Shards are numbered from 0."),
)
FACTOR = Param(
    "factor",
    _("Times slower"),
    "int",
    default=10,
    minimum=1,
    maximum=MAX_FACTOR,
    presets=(1, 5, 10, 50),
    help=_("Every answer from this shard takes this many times as long; 1 is normal."),
)
MEASURE_COUNT = Param(
    "count",
    _("Queries"),
    "int",
    default=10_000,
    minimum=MIN_MEASURE,
    maximum=MAX_MEASURE,
    presets=(1_000, 10_000, 20_000),
    help=_("Scatter queries to time at each number of shards."),
)
AIRPORT = Param("airport", _("Airport"), "choice", default="LAX", choices=AIRPORT_CODES)
BOARD_PLACEMENT = Param(
    "placement",
    _("Flights placed by"),
    "choice",
    default="flight_id",
    choices=("flight_id", "origin_time"),
    choice_labels=(
        _("flight_id (hashed)"),
        _("(origin, departure_time): hash on origin, sorted by time"),
    ),
)
AIRCRAFT = Param("aircraft", _("Aircraft"), "choice", default=FLEET[3], choices=FLEET)
HISTORY_PLACEMENT = Param(
    "placement",
    _("Reports placed by"),
    "choice",
    default="aircraft_time",
    choices=("aircraft_time", "report_id"),
    choice_labels=(
        _("(aircraft, time): hash on aircraft, sorted by time"),
        _("report id (hashed)"),
    ),
)
INDEX_KIND = Param(
    "kind",
    _("Index"),
    "choice",
    default="local",
    choices=("local", "global"),
    choice_labels=(
        _("Local: each shard indexes its own rows"),
        _("Global: one index, partitioned by the value"),
    ),
)
COLUMN = Param(
    "column",
    _("Column"),
    "choice",
    default="destination",
    choices=COLUMNS,
    choice_labels=(_("destination"), _("origin"), _("aircraft")),
)
VALUE = Param(
    "value",
    _("Value"),
    "text",
    default="JFK",
    max_length=8,
    help=_("An airport code (JFK) or an aircraft registration (N10003)."),
)

OPTIONS = (
    Param(
        "shards",
        _("Shards"),
        "int",
        default=8,
        minimum=1,
        maximum=MAX_SHARDS,
        help=_("How many shards the router sends queries to."),
    ),
)
ACTIONS = (
    ActionSpec(
        "query_by_key",
        _("Query by key"),
        (FLIGHT_ID,),
        help=_("WHERE flight_id = …: the router hashes the key and asks one shard."),
        primary=True,
        cost=250,  # 0.15-0.2 ms measured, with its frame's metrics
    ),
    ActionSpec(
        "query_scatter",
        _("Query without the key"),
        help=_(
            "WHERE departure_time > now(): no shard key, so the router asks every "
            "shard and waits for all of them."
        ),
        primary=True,
        cost=500,  # mostly the frame's metrics: 0.23 ms at 1 shard, 0.31-0.48 at 64
    ),
    ActionSpec(
        "set_shards",
        _("Set the number of shards"),
        (SHARD_COUNT,),
        primary=True,
        cost=100,
    ),
    ActionSpec(
        "slow_shard",
        _("Slow a shard down"),
        (SHARD, FACTOR),
        help=_("Make one shard's answers take longer; factor 1 makes it normal."),
        cost=150,
    ),
    ActionSpec(
        "measure",
        _("Measure the tail"),
        (MEASURE_COUNT,),
        help=_(
            "Time many scatter queries at 1, 2, 4 … 64 shards and plot p50 and p99 "
            "of the slowest answer, beside what theory predicts."
        ),
        primary=True,
        cost=MEASURE_BASE + MEASURE_PER_QUERY * MAX_MEASURE,  # charged by count
    ),
    ActionSpec(
        "board",
        _("Show the departures board"),
        (AIRPORT, BOARD_PLACEMENT),
        help=_("The next departures from one airport, as the board shows them."),
        cost=500,  # mostly the frame's metrics: 0.23 ms at 1 shard, 0.31-0.48 at 64
    ),
    ActionSpec(
        "aircraft_history",
        _("Read an aircraft's last hour"),
        (AIRCRAFT, HISTORY_PLACEMENT),
        help=_("Every position report one aircraft sent in the last hour."),
        cost=500,  # mostly the frame's metrics: 0.23 ms at 1 shard, 0.31-0.48 at 64
    ),
    ActionSpec(
        "index_query",
        _("Query a secondary index"),
        (INDEX_KIND, COLUMN, VALUE),
        help=_("Find flights by a column that is not the shard key."),
        cost=500,  # mostly the frame's metrics: 0.23 ms at 1 shard, 0.31-0.48 at 64
    ),
    ActionSpec(
        "write_flight",
        _("Write a new flight"),
        (
            Param(
                "origin", _("Origin"), "choice", default="LAX", choices=AIRPORT_CODES
            ),
            Param(
                "destination",
                _("Destination"),
                "choice",
                default="JFK",
                choices=AIRPORT_CODES,
            ),
            AIRCRAFT,
        ),
        help=_(
            "Insert a flight: its shard and its local index are written at once, "
            "the global index a moment later."
        ),
        cost=150,
    ),
)


class ScatterGatherCost(CostModel):
    """Declared costs of a scatter-gather history: measuring costs per query."""

    def charge(self, spec, args: dict) -> int:
        if spec.name == "measure":
            return MEASURE_BASE + MEASURE_PER_QUERY * args["count"]
        return spec.cost
