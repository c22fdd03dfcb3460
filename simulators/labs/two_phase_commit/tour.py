"""two-phase-commit's guided tour: a crash between the phases leaves the locks held."""

from simulators.engine.declaration import TourStep
from simulators.engine.i18n import gettext_noop as _

TOUR = (
    TourStep(
        id="book",
        say=_("Press “Book a seat” and watch the two rounds of messages."),
        notice=_(
            "Prepare, vote, then commit, acknowledge: two round trips to each shard. "
            "Between the rounds both rows were locked."
        ),
        target={"action": "book"},
        show_me=("book", {"seat": "12A"}),
        done_when={"event": "txn_done"},
    ),
    TourStep(
        id="set-trap",
        say=_(
            "Set the trap: crash the coordinator after it logs its decision, in the "
            "next booking."
        ),
        notice=_("Nothing crashes yet: the trap waits for the next booking."),
        target={"action": "crash_between_phases"},
        show_me=("crash_between_phases", {"point": "after_decision"}),
        done_when={"event": "trap_set"},
    ),
    TourStep(
        id="book-again",
        say=_("Book another seat, 12B."),
        notice=_(
            "Both shards voted yes, the coordinator wrote “commit” in its log and "
            "crashed before telling anyone. The shards hold the locks and cannot "
            "decide alone; the client's outcome is info: it does not know."
        ),
        target={"action": "book"},
        show_me=("book", {"seat": "12B"}),
        done_when={"event": "trap_sprung"},
    ),
    TourStep(
        id="blocked",
        say=_("Change seat 12B's fare: a write to one row of the flights shard."),
        notice=_(
            "It waits in the shard's queue behind the lock the prepared booking "
            "holds, however long the coordinator stays down."
        ),
        target={"action": "set_fare"},
        show_me=("set_fare", {"seat": "12B", "fare": 99}),
        done_when={"action": "set_fare"},
        look={"spot": "stage"},
    ),
    TourStep(
        id="recover",
        say=_("Recover the coordinator: click it in the drawing."),
        notice=_(
            "It read “commit” in its log and sent it again: the shards applied the "
            "booking, let go of the locks, and the fare change went through."
        ),
        target={"node": "coordinator"},
        show_me=("recover_server", {"node": "coordinator"}),
        done_when={"event": "released", "with": {"shard": "flights", "why": "commit"}},
    ),
)
