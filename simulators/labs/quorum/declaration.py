"""What the quorum lab lets a user choose and do, declared as data."""

import re
from dataclasses import replace

from simulators.engine.clocked import PLAYBACK_ACTIONS
from simulators.engine.cost import CostModel
from simulators.engine.declaration import ActionError, ActionSpec, Param
from simulators.engine.i18n import gettext_noop as _

COPY_CHOICES = (3, 5)
NODE_CHOICES = (3, 4, 5)  # M: nodes on the ring, never fewer than the copies
SKEW_BOUND_MS = 5_000
TRIAL_CHOICES = (100, 1_000, 5_000)
MAX_TRIALS = max(TRIAL_CHOICES)
TRIAL_COST = 250  # work units per trial (simulators/engine/cost.py)
NAMED_LEVELS = ("ONE", "QUORUM", "ALL")
LEVELS = (*NAMED_LEVELS, 1, 2, 3, 4, 5)
LEVEL_LABELS = (
    _("ONE (1 copy)"),
    _("QUORUM (a majority)"),
    _("ALL (every copy)"),
    "1",
    "2",
    "3",
    "4",
    "5",
)
AUTO = "auto"  # the coordinator: the next running node in turn
# lost writes against skew: the same trials at each skew of one node's clock
LADDER_DEFAULT = "0,-1,-5,-20,-100,-1000"
LADDER_MAX_RUNGS = 8
LADDER_CHOICES = (100, 1_000)
LADDER_MAX_LENGTH = 80
INTEGER = re.compile(r"[-+\u2212]?[0-9]+")


def parse_ladder(text: str) -> tuple[int, ...]:
    """The skews of a ladder ("0, -1, -5"), largest first; ActionError if it is not one.

    Commas or spaces separate the rungs; a minus may be typed as "−" (U+2212)."""
    parts = [part for part in re.split(r"[,;\s]+", text) if part]
    if not parts:
        raise ActionError(
            "empty",
            _("give at least one skew in milliseconds, e.g. 0,-1,-100"),
            "ladder",
        )
    if len(parts) > LADDER_MAX_RUNGS:
        raise ActionError(
            "ladder_too_long",
            _("a ladder has at most %(most)s skews; this one has %(count)s"),
            "ladder",
            most=LADDER_MAX_RUNGS,
            count=len(parts),
        )
    rungs = []
    for part in parts:
        if not INTEGER.fullmatch(part):
            raise ActionError(
                "bad_ladder",
                _("%(part)s is not a whole number of milliseconds"),
                "ladder",
                part=part[:12],
            )
        skew_ms = int(part.replace("\u2212", "-"))
        if not -SKEW_BOUND_MS <= skew_ms <= SKEW_BOUND_MS:
            raise ActionError(
                "out_of_range",
                _("a skew of %(skew)s ms is out of range: -%(bound)s to %(bound)s"),
                "ladder",
                skew=skew_ms,
                bound=f"{SKEW_BOUND_MS:,}",
            )
        if skew_ms in rungs:
            raise ActionError(
                "ladder_repeats",
                _("the skew %(skew)s ms is in the ladder twice"),
                "ladder",
                skew=skew_ms,
            )
        rungs.append(skew_ms)
    return tuple(sorted(rungs, reverse=True))


def level_param(name: str, label: str, help_text: str, *, per_operation: bool):
    """W or R: a named consistency level or a number of copies."""
    if per_operation:
        return Param(
            name,
            label,
            "choice",
            default="default",
            choices=("default", *LEVELS),
            choice_labels=(_("As set for the lab"), *LEVEL_LABELS),
            help=help_text,
            most="copies",
        )
    return Param(
        name,
        label,
        "choice",
        default="QUORUM",
        choices=LEVELS,
        choice_labels=LEVEL_LABELS,
        help=help_text,
        current=f"levels.{name}",
        most="copies",
    )


W_HELP = _("How many copies must confirm before the write is acknowledged.")
R_HELP = _("How many copies must answer before the read returns the newest of them.")
COORDINATOR = Param(
    "coordinator",
    _("Coordinator"),
    "text",
    default=AUTO,
    max_length=8,
    source="coordinators",
    help=_(
        "The node that takes the client's request; auto takes running nodes in turn."
    ),
)
NODE = Param("node", _("Node"), "text", default="A", max_length=8, source="nodes")
LINK = Param("link", _("Link"), "text", default="A-B", max_length=8, source="link_ids")
SWITCH = Param("on", _("On"), "bool", default=True)

OPTIONS = (
    Param(
        "copies",
        _("Copies"),
        "choice",
        default=3,
        choices=COPY_CHOICES,
        help=_("How many copies of the row the cluster keeps (N)."),
    ),
)

ACTIONS = (
    *PLAYBACK_ACTIONS,
    ActionSpec(
        "write",
        _("Write"),
        (level_param("w", "W", W_HELP, per_operation=True), COORDINATOR),
        help=_("Book one seat: the row gets a new value on every copy it reaches."),
        primary=True,
        cost=400,  # with the messages it sends, delivered by later advances
    ),
    ActionSpec(
        "read",
        _("Read"),
        (level_param("r", "R", R_HELP, per_operation=True), COORDINATOR),
        help=_("Ask the copies for the row and return the newest version among R."),
        primary=True,
        cost=400,
    ),
    ActionSpec(
        "set_levels",
        _("Set W and R"),
        (
            level_param("w", "W", W_HELP, per_operation=False),
            level_param("r", "R", R_HELP, per_operation=False),
        ),
        help=_("The levels writes and reads use unless they say otherwise."),
    ),
    ActionSpec(
        "set_copies",
        _("Set the number of copies"),
        (OPTIONS[0],),
        help=_("Start again with a fresh cluster of 3 or 5 copies."),
        cost=500,
    ),
    ActionSpec(
        "set_nodes",
        _("Set the nodes on the ring"),
        (
            Param(
                "nodes",
                _("Nodes (M)"),
                "choice",
                default=3,
                choices=NODE_CHOICES,
                current="ring_nodes",
                least="copies",
                help=_(
                    "How many nodes stand on the ring (M, at least N): the row's "
                    "owners are the first N clockwise, the others can stand in."
                ),
            ),
        ),
        help=_("Start again with a fresh cluster of M nodes, keeping N copies."),
        cost=500,  # a fresh cluster, as set_copies (0.03 ms measured)
    ),
    ActionSpec(
        "set_sloppy",
        _("Sloppy quorum"),
        (replace(SWITCH, default=False, current="sloppy"),),
        help=_(
            "When an owner is unreachable, the next node on the ring takes the write "
            "as a hint for it, and its ack counts toward W."
        ),
    ),
    ActionSpec("cut_link", _("Cut a link"), (LINK,), group="drawing"),
    ActionSpec("heal_link", _("Heal a link"), (LINK,), group="drawing", cost=1_000),
    ActionSpec("stop_node", _("Stop a node"), (NODE,), group="drawing"),
    # restarting or healing hands over the hints waiting for the node (a restart
    # measured 0.23 ms with its delivery: 0.19 of 1,200 declared)
    ActionSpec("restart_node", _("Restart a node"), (NODE,), group="drawing", cost=600),
    ActionSpec(
        "split",
        _("Split the network"),
        (
            Param(
                "group",
                _("One side"),
                "text",
                default="A",
                max_length=16,
                help=_("Node ids, e.g. A,B; the other nodes form the other side."),
            ),
        ),
        group="drawing",
    ),
    ActionSpec("heal_all", _("Heal every link"), cost=1_000),
    ActionSpec(
        "set_skew",
        _("Skew a clock"),
        (
            NODE,
            Param(
                "skew_ms",
                _("Skew (ms)"),
                "int",
                default=0,
                minimum=-SKEW_BOUND_MS,
                maximum=SKEW_BOUND_MS,
                presets=(-1_000, 0, 1_000),
                help=_("How far this node's clock runs ahead (+) or behind (−)."),
            ),
        ),
    ),
    ActionSpec(
        "set_read_repair",
        _("Read repair"),
        (replace(SWITCH, current="read_repair"),),
        help=_("After a read, send the newest version to copies that answered older."),
    ),
    ActionSpec(
        "set_hinted_handoff",
        _("Hinted handoff"),
        (replace(SWITCH, current="hinted_handoff"),),
        help=_("Keep writes a copy missed and hand them over when it is back."),
    ),
    ActionSpec(
        "run_trials",
        _("Count stale reads"),
        (
            Param(
                "count",
                _("Trials"),
                "choice",
                default=1_000,
                choices=TRIAL_CHOICES,
                choice_labels=("100", "1,000", "5,000"),
                help=_(
                    "Each trial: a fresh cluster like this one, one write, one read."
                ),
            ),
        ),
        help=_("Run many seeded write-then-read trials of this configuration."),
        cost=TRIAL_COST * MAX_TRIALS,  # QuorumCost charges the count asked for
    ),
    ActionSpec(
        "skew_ladder",
        _("Lost writes against skew"),
        (
            replace(
                NODE,
                label=_("Clock skewed on"),
                help=_("The node whose clock each rung sets; the other clocks stay."),
            ),
            Param(
                "ladder",
                _("Skews (ms)"),
                "text",
                default=LADDER_DEFAULT,
                max_length=LADDER_MAX_LENGTH,
                help=_(
                    "Up to 8 skews, separated by commas; negative runs behind. "
                    "The same trials run at each."
                ),
            ),
            Param(
                "count",
                _("Trials per skew"),
                "choice",
                default=1_000,
                choices=LADDER_CHOICES,
                choice_labels=("100", "1,000"),
            ),
        ),
        help=_(
            "Run the same seeded trials with that node's clock at each skew and count "
            "the acknowledged writes that no copy kept."
        ),
        # QuorumCost charges the trials asked for: count × rungs
        cost=TRIAL_COST * LADDER_CHOICES[-1] * LADDER_MAX_RUNGS,
    ),
    ActionSpec(
        "replay_trial",
        _("Replay a trial"),
        (
            Param(
                "index",
                _("Trial"),
                "int",
                default=0,
                minimum=0,
                maximum=MAX_TRIALS - 1,
            ),
        ),
        help=_("Rebuild the cluster as that trial had it and play it live."),
        cost=600,  # 0.17-0.22 ms measured
    ),
)


class QuorumCost(CostModel):
    """Declared costs of a quorum history: counting trials costs per trial."""

    def charge(self, spec, args: dict) -> int:
        if spec.name == "run_trials":
            return TRIAL_COST * args["count"]
        if spec.name == "skew_ladder":  # a ladder that does not parse is refused here
            return TRIAL_COST * args["count"] * len(parse_ladder(args["ladder"]))
        return spec.cost
