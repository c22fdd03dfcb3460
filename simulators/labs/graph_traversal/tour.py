"""graph-traversal's guided tour: one stop, depth by depth, the fewest stops, a
condition on the way, and the graph grown 10×."""

from simulators.engine.declaration import TourStep
from simulators.engine.i18n import gettext_noop as _
from simulators.labs.graph_traversal.declaration import COURSE

STAGE = {"spot": "stage"}  # the graph, the expansion and the three engines' costs


def _asked(question: str) -> dict:
    return {"event": "question", "with": {"pattern": COURSE[question]}}


TOUR = (
    TourStep(
        id="one-stop",
        say=_("Press “LAX → JFK, one stop” to ask the course's first question."),
        notice=_(
            "One path fits: LAX → DEN → JFK, 140 + 240 = 380 minutes, against 320 "
            "for the direct route. The traversal read LAX's list of routes, then "
            "each stop's: it never looked at the rest of the table."
        ),
        target={"spot": "course-one_stop"},
        show_me=("course_query", {"question": "one_stop"}),
        done_when=_asked("one_stop"),
        look=STAGE,
    ),
    TourStep(
        id="within-three",
        say=_("Press “Within 3 edges of LAX”: watch the expansion, depth by depth."),
        notice=_(
            "One edge away: SFO, DEN, DFW and JFK. Two: SEA, ORD and ATL. The third "
            "depth finds nothing new. Beside it, the SQL joined the routes table "
            "once a round, one index lookup for every row of the round before."
        ),
        target={"spot": "course-within_three"},
        show_me=("course_query", {"question": "within_three"}),
        done_when=_asked("within_three"),
        look=STAGE,
    ),
    TourStep(
        id="fewest-to-sea",
        say=_("Press “Fewest stops to SEA”: shortestPath."),
        notice=_(
            "LAX → SFO → SEA: 2 edges. The search ran from both ends at once and "
            "stopped where they met, at SFO, after reading 5 routes."
        ),
        target={"spot": "course-fewest_to_sea"},
        show_me=("course_query", {"question": "fewest_to_sea"}),
        done_when=_asked("fewest_to_sea"),
        look=STAGE,
    ),
    TourStep(
        id="avoid-ord",
        say=_("Press “LAX → JFK avoiding ORD”: a condition on every node of the path."),
        notice=_(
            "Four routes: direct, via DEN, via SFO and DEN, via DFW and ATL. The path "
            "through ORD was dropped the moment it reached ORD, before it grew. The "
            "SQL had to carry each path in a column to check the same thing."
        ),
        target={"spot": "course-avoid_ord"},
        show_me=("course_query", {"question": "avoid_ord"}),
        done_when=_asked("avoid_ord"),
        look=STAGE,
    ),
    TourStep(
        id="grow",
        say=_("Switch on “Grow the graph 10×” and compare the costs."),
        notice=_(
            "The table has ten times the routes. The traversal read exactly the "
            "edges it read before: they are LAX's and its neighbours', and none of "
            "the new routes leaves from them. Each of the SQL's index lookups now "
            "searches a larger index."
        ),
        target={"action": "set_grown"},
        show_me=("set_grown", {"on": True}),
        done_when={"action": "set_grown"},
        look={"spot": "costs"},
    ),
)
