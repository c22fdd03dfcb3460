"""partition-cap's guided tour: both sides of a split sell the last seat."""

from simulators.engine.declaration import TourStep
from simulators.engine.i18n import gettext_noop as _

TOUR = (
    TourStep(
        id="split",
        say=_("Cut Tokyo off: press “Split the network” with C alone on its side."),
        notice=_(
            "Tokyo's server C can no longer reach Frankfurt (A) or Singapore (B); "
            "those two still talk to each other."
        ),
        target={"action": "split"},
        show_me=("split", {"group": "C"}),
        done_when={"event": "split"},
    ),
    TourStep(
        id="book-tokyo",
        say=_("In Tokyo, sell the last seat with “Book: answer anyway”."),
        notice=_(
            "C sold the seat from its own copy at once: the Tokyo traveller reads "
            "“booked” and C shows no seat left. It will tell the others when it can "
            "reach them."
        ),
        target={"spot": "tyo-book-anyway"},
        show_me=("book", {"server": "C", "passenger": "P0000002", "mode": "anyway"}),
        done_when={
            "event": "op_completed",
            "with": {"action": "book", "server": "C", "mode": "anyway"},
        },
    ),
    TourStep(
        id="book-frankfurt",
        say=_("Now in Frankfurt, sell the same seat with “Book: answer anyway”."),
        notice=_(
            "A never heard of Tokyo's sale, so it sold the seat too: one seat, two "
            "travellers told “booked”."
        ),
        target={"spot": "fra-book-anyway"},
        show_me=("book", {"server": "A", "passenger": "P0000001", "mode": "anyway"}),
        done_when={
            "event": "op_completed",
            "with": {"action": "book", "server": "A", "mode": "anyway"},
        },
    ),
    TourStep(
        id="heal",
        say=_("Heal every link, and watch the copies meet."),
        notice=_(
            "The copies compare version vectors: {A: 1} and {C: 1} are concurrent. "
            "Last writer wins keeps the booking with the later timestamp and drops "
            "the other from every copy, although a traveller was told “booked”, and "
            "nobody gets an error."
        ),
        target={"action": "heal_all"},
        show_me=("heal_all", {}),
        done_when={"event": "conflict"},
        look={"spot": "verdicts"},
    ),
    TourStep(
        id="board-tokyo",
        say=_("Read the departures board in Tokyo."),
        notice=_(
            "The board shows one booking. The other traveller still holds a "
            "confirmation for a seat no copy remembers. Under “refuse without a "
            "majority” the small side would have said no instead: try it after "
            "“Start over”."
        ),
        target={"spot": "tyo-board-anyway"},
        show_me=("board", {"node": "C", "mode": "anyway"}),
        done_when={
            "event": "op_completed",
            "with": {"action": "board", "server": "C"},
        },
        look={"spot": "verdicts"},
    ),
)
