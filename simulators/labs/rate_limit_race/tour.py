"""rate-limit-race's guided tour: the race, every ordering of it, and INCR instead."""

from simulators.engine.declaration import TourStep
from simulators.engine.i18n import gettext_noop as _

STAGE = {"spot": "stage"}  # the counter, the clients' steps and the order they ran in

TOUR = (
    TourStep(
        id="race",
        say=_(
            "Press “Run all” to play clients A and B in the course's order: "
            "A1 B1 A2 B2 A3 B3."
        ),
        notice=_(
            "Both clients read 99 before either wrote, both found 99 below 100 and "
            "both wrote 100: 101 requests admitted this minute, and the counter says "
            "100."
        ),
        target={"action": "run_all"},
        show_me=("run_all", {}),
        done_when={"action": "run_all"},
        look=STAGE,
    ),
    TourStep(
        id="every-ordering",
        say=_(
            "Press “Every ordering” to play all 20 interleavings of their six steps "
            "from the same start."
        ),
        notice=_(
            "18 of the 20 admit 101. Only the two orders in which one client finishes "
            "before the other starts stay at 100: read, check, write is safe only if "
            "nothing runs between a client's GET and its SET."
        ),
        target={"action": "every_ordering"},
        show_me=("every_ordering", {}),
        done_when={"action": "every_ordering"},
        look=STAGE,
    ),
    TourStep(
        id="incr",
        say=_("Set the way to count to “INCR, then compare the reply”."),
        notice=_(
            "The race starts again from 99, in the order A1 B1 A2 B2. Each client now "
            "sends one INCR: Redis runs one command at a time, so reading and writing "
            "the counter can no longer be pulled apart."
        ),
        target={"action": "set_mode"},
        show_me=("set_mode", {"mode": "incr"}),
        done_when={"action": "set_mode"},
        look=STAGE,
    ),
    TourStep(
        id="incr-race",
        say=_("Press “Run all” again."),
        notice=_(
            "INCR replied 100 to A and 101 to B: A is within the limit, B is not. "
            "100 admitted; the counter says 101, because it counts refused requests "
            "too."
        ),
        target={"action": "run_all"},
        show_me=("run_all", {}),
        done_when={"action": "run_all"},
        look=STAGE,
    ),
    TourStep(
        id="incr-orderings",
        say=_("Press “Every ordering” again."),
        notice=_(
            "Each of the 6 interleavings admits exactly 100: no client can slip in "
            "between a read and a write. One trap is left: count with INCR, then "
            "EXPIRE from 0 admitted, crash a client after its INCR, and let a minute "
            "pass: the counter never expires."
        ),
        target={"action": "every_ordering"},
        show_me=("every_ordering", {}),
        done_when={"action": "every_ordering"},
        look=STAGE,
    ),
)
