"""cache-stampede's guided tour: the herd at expiry, the lock, XFetch, a stale board."""

from simulators.engine.declaration import TourStep
from simulators.engine.i18n import gettext_noop as _

STAGE = {"spot": "stage"}

TOUR = (
    TourStep(
        id="expiry",
        say=_("Press “Jump to just before expiry” and watch LAX's board expire."),
        notice=_(
            "At expiry every read that arrived while the first query ran missed too: "
            "about 20 reads in 20 ms, and each sent the same query to the database."
        ),
        target={"action": "skip_to_expiry"},
        show_me=("skip_to_expiry", {}),
        done_when={"event": "refilled", "with": {"lane": "plain", "board": "LAX"}},
        look=STAGE,
    ),
    TourStep(
        id="lock",
        say=_("Now watch the refill lock: choose “Refill lock” as the strategy."),
        notice=_(
            "Same reads, same moment: the first reader took the lock and ran the "
            "one query; the others looked again 5 ms later and read the new board."
        ),
        target={"action": "set_strategy"},
        show_me=("set_strategy", {"strategy": "lock"}),
        done_when={"event": "strategy_set", "with": {"strategy": "lock"}},
        look=STAGE,
    ),
    TourStep(
        id="xfetch",
        say=_("Choose “XFetch (early refresh)”."),
        notice=_(
            "XFetch refreshed the board before it expired: as expiry nears, each "
            "read is more likely to recompute. One query, no burst, no wait."
        ),
        target={"action": "set_strategy"},
        show_me=("set_strategy", {"strategy": "xfetch"}),
        done_when={"event": "strategy_set", "with": {"strategy": "xfetch"}},
        look=STAGE,
    ),
    TourStep(
        id="stale",
        say=_("Update a flight at LAX without deleting the cached board."),
        notice=_(
            "The database changed, the cache did not: readers get the old board "
            "until it expires, at most one lifetime later. Delete-on-write fixes it."
        ),
        target={"action": "update_flight"},
        show_me=("update_flight", {"airport": "LAX", "delete_on_write": False}),
        done_when={"action": "update_flight"},
        look=STAGE,
    ),
)
