"""What range-splits lets a user choose and do, declared as data."""

from dataclasses import replace

from simulators.engine.declaration import ActionSpec, Param
from simulators.engine.i18n import gettext_noop as _
from simulators.labs.range_splits.streams import STREAM_KINDS
from simulators.labs.range_splits.table import POLICIES

SHARD_NAMES = "ABCDEFGH"
MAX_SHARDS = len(SHARD_NAMES)
MAX_WRITES = 120_000  # writes one lab takes in all (both tables hold every key)
MAX_STREAM = 60_000  # writes one click sends
MAX_RATE = 20_000  # writes a second
MAX_SLICES = 400  # per table: past it a slice stays whole (the drawing's bound)
WINDOW_MS = 1_000  # the load policy counts writes a second
BALANCE_MS = 1_000  # the balancer's rounds, in the stream's time
HEAT_BUCKET_MS = 250  # the heat chart's columns
HEAT_BUCKETS = 240  # a minute of them
MINUTE_MS = 60_000

MAX_KEYS = Param(
    "max_keys",
    _("Split above (keys)"),
    "int",
    default=1_000,
    minimum=100,
    maximum=50_000,
    help=_(
        "Split by size: a slice with more keys than this splits in two "
        "(CockroachDB splits a range above 512 MiB)."
    ),
    current="thresholds.max_keys",
)
MAX_WRITES_PER_SECOND = Param(
    "max_writes",
    _("Split above (writes a second)"),
    "int",
    default=2_500,
    minimum=100,
    maximum=MAX_RATE,
    help=_(
        "Split by load: a slice written more often than this in one second splits "
        "where half of that second's writes fall on each side (CockroachDB: 2,500 "
        "queries a second)."
    ),
    current="thresholds.max_writes",
)
KIND = Param(
    "kind",
    _("Keys"),
    "choice",
    default="uniform",
    choices=STREAM_KINDS,
    choice_labels=(
        _("Passenger ids"),
        _("Timestamps"),
        _("Registrations"),
    ),
    help=_(
        "Passenger ids are spread evenly; timestamps arrive in order; most "
        "registrations start N1, N2 or N3."
    ),
)
COUNT = Param(
    "count",
    _("Writes"),
    "int",
    default=20_000,
    minimum=1,
    maximum=MAX_STREAM,
)
RATE = Param(
    "rate",
    _("Per second"),
    "int",
    default=5_000,
    minimum=1,
    maximum=MAX_RATE,
    help=_("Writes arrive evenly spaced at this rate, on the stream's own clock."),
)
POLICY = Param(
    "policy",
    _("Table"),
    "choice",
    default="size",
    choices=POLICIES,
    choice_labels=(_("Split by size"), _("Split by load")),
)
SLICE = Param(
    "slice",
    _("Slice"),
    "int",
    default=0,
    minimum=0,
    maximum=1_000_000,
    help=_("The slice's number, as the boundary table shows it."),
)
SHARD = Param("shard", _("Shard"), "text", default="B", max_length=2, source="shards")
LOW = Param("low", _("From key"), "text", default="N12300", max_length=32)
HIGH = Param("high", _("To key"), "text", default="N12399", max_length=32)

OPTIONS = (
    Param("shards", _("Shards"), "int", default=4, minimum=1, maximum=MAX_SHARDS),
    # chosen when the lab is made: the same bounds as the action's fields, no help
    replace(MAX_KEYS, help="", current=None),
    replace(MAX_WRITES_PER_SECOND, help="", current=None),
)

ACTIONS = (
    ActionSpec(
        "write",
        _("Write a stream of keys"),
        (KIND, COUNT, RATE),
        help=_("The same writes go to both tables and to hash placement."),
        primary=True,
        cost=500,  # plus a cost per write (RangeSplitsCost); one write: 0.3-0.45 ms
    ),
    ActionSpec("add_shard", _("Add a shard"), primary=True, cost=2_000),
    ActionSpec(
        "range_query",
        _("Run a range query"),
        (LOW, HIGH),
        help=_("Read every key from one key to another, both included."),
        primary=True,
        cost=500,  # plus a little per key held (RangeSplitsCost)
    ),
    ActionSpec(
        "set_thresholds",
        _("Set the split thresholds"),
        (MAX_KEYS, MAX_WRITES_PER_SECOND),
        cost=300,  # plus a pass over the keys held (RangeSplitsCost)
    ),
    ActionSpec("split_now", _("Split a slice now"), (POLICY, SLICE), cost=1_000),
    ActionSpec("move_slice", _("Move a slice"), (POLICY, SLICE, SHARD), cost=500),
)
