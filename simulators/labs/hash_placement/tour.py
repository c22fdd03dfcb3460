"""hash-placement's guided tour: what one more shard costs under each rule."""

from simulators.engine.declaration import TourStep
from simulators.engine.i18n import gettext_noop as _

STAGE = {"spot": "stage"}  # each card says what the change moved, big

TOUR = (
    TourStep(
        id="add-shard",
        say=_("Press “Add a shard”: four shards become five."),
        notice=_(
            "Hash mod N moved about 4 keys in 5: a key stays only when its hash "
            "leaves the same remainder for 4 and for 5. Fixed partitions and the "
            "ring moved about 1 in 5, every one of them onto the new shard E."
        ),
        target={"action": "add_shard"},
        show_me=("add_shard", {}),
        done_when={"action": "add_shard"},
        look=STAGE,
    ),
    TourStep(
        id="remove-shard",
        say=_("Now remove shard B: choose B, then press “Remove a shard”."),
        notice=_(
            "Partitions and the ring moved only the keys B held; every other key "
            "stayed where it was. Hash mod N reshuffled almost everything again."
        ),
        target={"action": "remove_shard"},
        show_me=("remove_shard", {"shard": "B"}),
        done_when={"action": "remove_shard"},
        look=STAGE,
    ),
    TourStep(
        id="lookup",
        say=_("Look up the key N12345."),
        notice=_(
            "Each card draws the key's path: its hash, then the remainder, the "
            "partition or the next token clockwise, then the shard. The hash never "
            "changes; only the table from hashes to shards does."
        ),
        target={"action": "lookup"},
        show_me=("lookup", {"key": "N12345"}),
        done_when={"action": "lookup"},
        look=STAGE,
    ),
    TourStep(
        id="hot-key",
        say=_("Make N12345 hot: give it half of all requests."),
        notice=_(
            "Under every rule that one key lives on one shard, so that shard serves "
            "half of all requests. More shards spread many keys; they never split "
            "the requests for one key."
        ),
        target={"action": "mark_hot"},
        show_me=("mark_hot", {"key": "N12345", "share_percent": 50}),
        done_when={"action": "mark_hot"},
        look=STAGE,
    ),
)
