"""What hash-placement lets a user choose and do, declared as data."""

from simulators.airline import KEY_KINDS
from simulators.engine.declaration import ActionSpec, Param
from simulators.engine.i18n import gettext_noop as _
from simulators.labs.hash_placement.hashing import REDIS_SLOTS

SHARD_NAMES = "ABCDEFGHIJKL"
MAX_SHARDS = len(SHARD_NAMES)
MAX_KEYS = 1_000_000
SAMPLE_SIZE = 240
PARTITION_CHOICES = (16, 256, 1024, REDIS_SLOTS)

SHARD_COUNT = Param(
    "count",
    _("Shards"),
    "int",
    default=4,
    minimum=1,
    maximum=MAX_SHARDS,
    help=_("How many shards hold the keys."),
    current="shards.length",
)
VNODES = Param(
    "vnodes",
    _("Virtual nodes per shard"),
    "int",
    default=16,
    minimum=1,
    maximum=256,
    help=_("Tokens each shard places on the ring; more tokens, smoother shares."),
    current="schemes.ring.vnodes",
)
PARTITIONS = Param(
    "partitions",
    _("Partitions"),
    "choice",
    default=1024,
    choices=PARTITION_CHOICES,
    choice_labels=("16", "256", "1,024", _("16,384 (Redis Cluster slots, CRC16)")),
    help=_("Fixed partitions, dealt to shards by a table."),
    current="schemes.partitions.count",
)
KEY_KIND = Param(
    "kind",
    _("Keys"),
    "choice",
    default="registration",
    choices=KEY_KINDS,
    choice_labels=(
        _("Aircraft registrations (N12345)"),
        _("Passenger ids (P0000001)"),
        _("Booking references (Q7K2ZD)"),
    ),
)
KEY_COUNT = Param(
    "count",
    _("How many keys"),
    "int",
    default=10_000,
    minimum=1,
    maximum=MAX_KEYS,
    help=_("From one to a million; the drawing shows a sample, the numbers count all."),
    presets=(1_000, 10_000, 100_000, 1_000_000),
)
KEY_TEXT = Param("key", _("Key"), "text", default="N12345", max_length=64)
SHARE = Param(
    "share_percent",
    _("Share of all requests"),
    "int",
    default=50,
    minimum=1,
    maximum=99,
    help=_("Percent of requests that ask for this one key."),
)


OPTIONS = (
    Param("shards", _("Shards"), "int", default=4, minimum=1, maximum=MAX_SHARDS),
    VNODES,
    PARTITIONS,
    Param("key_kind", _("Keys"), "choice", default="registration", choices=KEY_KINDS),
    Param(
        "key_count",
        _("How many keys"),
        "int",
        default=10_000,
        minimum=1,
        maximum=MAX_KEYS,
    ),
)
ACTIONS = (
    ActionSpec("add_shard", _("Add a shard"), primary=True, cost=5_000),
    ActionSpec(
        "remove_shard",
        _("Remove a shard"),
        (Param("shard", _("Shard"), "text", max_length=2, source="shards"),),
        primary=True,
        cost=5_000,
    ),
    ActionSpec(
        "set_shards", _("Set the number of shards"), (SHARD_COUNT,), cost=30_000
    ),
    ActionSpec("set_vnodes", _("Set virtual nodes"), (VNODES,), cost=20_000),
    ActionSpec("set_partitions", _("Set the partition count"), (PARTITIONS,)),
    ActionSpec("load_keys", _("Load keys"), (KEY_KIND, KEY_COUNT)),
    ActionSpec(
        "lookup",
        _("Look up a key"),
        (KEY_TEXT,),
        help=_("Follow one key: hash, then partition or token, then shard."),
        primary=True,
        cost=200,
    ),
    ActionSpec("mark_hot", _("Make a key hot"), (KEY_TEXT, SHARE), cost=200),
    ActionSpec("clear_hot", _("Cool the hot key")),
)
