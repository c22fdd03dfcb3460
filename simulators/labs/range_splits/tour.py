"""range-splits' guided tour: slices split and move, until the keys come in order."""

from simulators.engine.declaration import TourStep
from simulators.engine.i18n import gettext_noop as _

STAGE = {"spot": "stage"}
HEAT = {"spot": "heat"}

TOUR = (
    TourStep(
        id="write-ids",
        say=_("Press “Write a stream of keys”: 20,000 passenger ids, 5,000 a second."),
        notice=_(
            "Each table splits a slice in two once it grows past its threshold: by "
            "size above 1,000 keys, by load above 2,500 writes in one second. Both "
            "halves stay on their shard first; then one half moves to the shard with "
            "the least load."
        ),
        target={"action": "write"},
        show_me=("write", {"kind": "uniform", "count": 20_000, "rate": 5_000}),
        done_when={"event": "written", "with": {"kind": "uniform"}},
        look=STAGE,
    ),
    TourStep(
        id="write-timestamps",
        say=_("Choose “Timestamps” and write another 20,000 keys."),
        notice=_(
            "Each new timestamp is above every key before it, so every write goes to "
            "the last slice. It splits, by size and by load, yet the half being "
            "written stays where it was: one shard takes every write, while hash "
            "placement spreads the same writes over all of them."
        ),
        target={"action": "write"},
        show_me=("write", {"kind": "timestamps", "count": 20_000, "rate": 5_000}),
        done_when={"event": "written", "with": {"kind": "timestamps"}},
        look=HEAT,
    ),
    TourStep(
        id="write-registrations",
        say=_("Now choose “Registrations” and write 20,000 more."),
        notice=_(
            "Most registrations start N1, N2 or N3, so the slices there fill up and "
            "split far more often than the rest: the boundary table grows where the "
            "keys are."
        ),
        target={"action": "write"},
        show_me=("write", {"kind": "skewed", "count": 20_000, "rate": 5_000}),
        done_when={"event": "written", "with": {"kind": "skewed"}},
        look=STAGE,
    ),
    TourStep(
        id="range-query",
        say=_("Run a range query from N12300 to N12399."),
        notice=_(
            "Under range placement those keys sit side by side in one or two slices, "
            "on one or two shards. Hash placement scattered them, so it has to ask "
            "every shard."
        ),
        target={"action": "range_query"},
        show_me=("range_query", {"low": "N12300", "high": "N12399"}),
        done_when={"action": "range_query"},
        look=STAGE,
    ),
    TourStep(
        id="add-shard",
        say=_("Press “Add a shard”."),
        notice=_(
            "Whole slices migrate to the new shard until it holds about its share of "
            "the keys; every other slice stays put. Hash placement, mod N, moved most "
            "of its keys."
        ),
        target={"action": "add_shard"},
        show_me=("add_shard", {}),
        done_when={"action": "add_shard"},
        look=STAGE,
    ),
)
