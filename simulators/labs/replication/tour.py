"""replication's guided tour: the email change a lagging replica has not seen yet."""

from simulators.engine.declaration import TourStep
from simulators.engine.i18n import gettext_noop as _

# Ana's change and her read from C, each done twice in the story (before the fix and
# after it): what the step points at, what "Show me" sends, and what ends it
ANA_WRITES = {
    "target": {"action": "write"},
    "show_me": ("write", {"client": "ana"}),
    "done_when": {
        "event": "op_completed",
        "with": {"kind": "write", "client": "ana", "outcome": "ok"},
    },
}
ANA_READS_C = {
    "target": {"action": "read"},
    "show_me": ("read", {"client": "ana", "row": "email", "server": "C"}),
    "done_when": {"event": "op_completed", "with": {"kind": "read", "client": "ana"}},
}

TOUR = (
    TourStep(
        id="burst",
        say=_("Press “Burst of writes”: the fleet reports 2,000 positions at once."),
        notice=_(
            "2,000 records joined the primary's log in one go. Each replica applies "
            "one record per millisecond, in log order, so both now trail the primary "
            "by about two seconds: watch the boxes under them fill and the lag chart "
            "fall."
        ),
        target={"action": "burst"},
        show_me=("burst", {"count": 2_000}),
        done_when={"action": "burst"},
    ),
    TourStep(
        id="change-email",
        say=_("Press “Change email”: Ana gives her booking a new address."),
        notice=_(
            "The primary returned the commit at once: both replicas are async. On "
            "each replica Ana's record waits behind the fleet's reports."
        ),
        **ANA_WRITES,
    ),
    TourStep(
        id="read-from-c",
        say=_("Read Ana's email from replica C, the far one."),
        notice=_(
            "C has not applied Ana's record yet, so she sees her old address right "
            "after changing it. Nothing is broken: C is simply behind."
        ),
        **ANA_READS_C,
        look={"spot": "history"},
    ),
    TourStep(
        id="fix-sticky",
        say=_(
            "Choose the read-your-writes fix “the primary for 3 s after your own "
            "write”."
        ),
        notice=_(
            "For a few seconds after Ana writes, her reads go to the primary, "
            "wherever she asked."
        ),
        target={"action": "set_read_your_writes"},
        show_me=("set_read_your_writes", {"fix": "primary_after_write"}),
        done_when={"action": "set_read_your_writes"},
    ),
    TourStep(
        id="change-again",
        say=_("Change Ana's email again."),
        notice=_("Another record, another commit returned at once."),
        **ANA_WRITES,
    ),
    TourStep(
        id="read-again",
        say=_("Read Ana's email from C again."),
        notice=_(
            "The read went to the primary instead, and Ana sees the address she "
            "just gave. Now try the failover: kill the primary, then promote C."
        ),
        **ANA_READS_C,
        look={"spot": "history"},
    ),
)
