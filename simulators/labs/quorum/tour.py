"""quorum's guided tour: W + R ≤ N lets a read miss a finished write."""

from simulators.engine.declaration import TourStep
from simulators.engine.i18n import gettext_noop as _

TOUR = (
    TourStep(
        id="cut-a-c",
        say=_("Cut the link between A and C: click it in the drawing."),
        notice=_(
            "A and C can no longer reach each other: whatever A writes now cannot "
            "get to C's copy."
        ),
        target={"link": "A-C"},
        show_me=("cut_link", {"link": "A-C"}),
        done_when={"event": "link_cut", "with": {"link": "A-C"}},
    ),
    TourStep(
        id="levels-one",
        say=_(
            "Set W and R to ONE: a write then waits for one copy, and a read asks one."
        ),
        notice=_(
            "W + R = 2 is not more than N = 3: a read may ask only a copy the last "
            "write never reached, such as C behind the cut."
        ),
        target={"action": "set_levels"},
        show_me=("set_levels", {"w": "ONE", "r": "ONE"}),
        done_when={"event": "levels_set", "with": {"w_needed": 1, "r_needed": 1}},
    ),
    TourStep(
        id="write-a",
        say=_("Write through A: choose A as the coordinator, then press “Write”."),
        notice=_(
            "A's own copy confirmed at once, so the client was told the write is "
            "done. B gets the new value too; the message to C dies at the cut."
        ),
        target={"action": "write"},
        show_me=("write", {"w": "default", "coordinator": "A"}),
        done_when={
            "event": "op_completed",
            "with": {"kind": "write", "coordinator": "A", "status": "ok"},
        },
    ),
    TourStep(
        id="read-c",
        say=_("Read through C: choose C as the coordinator, then press “Read”."),
        notice=_(
            "C answered from its own copy, which the write never reached: the old "
            "value. The history marks the read STALE, although the write had "
            "finished before it began."
        ),
        target={"action": "read"},
        show_me=("read", {"r": "default", "coordinator": "C"}),
        done_when={
            "event": "op_completed",
            "with": {"kind": "read", "coordinator": "C", "status": "ok"},
        },
        look={"spot": "history"},
    ),
    TourStep(
        id="count-stale",
        say=_("How often does that happen? Press “Count 1,000 trials”."),
        notice=_(
            "About half of a thousand fresh runs like this one read the old value. "
            "Set W and R back to QUORUM and count again: W + R = 4 is more than 3, "
            "and not one read is stale, even with the link cut."
        ),
        target={"spot": "count-trials"},
        show_me=("run_trials", {"count": 1000}),
        done_when={"action": "run_trials"},
    ),
)
