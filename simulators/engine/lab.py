"""The shape every lab has: a deterministic state machine with a declaration."""

from typing import Any, ClassVar

from simulators.engine.canonical import digest_of
from simulators.engine.cost import CostModel
from simulators.engine.declaration import ActionError, ActionSpec, Param, TourStep
from simulators.engine.i18n import gettext_noop as _
from simulators.engine.rng import SEED_MAX

MIN_TOUR_STEPS, MAX_TOUR_STEPS = 3, 6
# actions that have no form of their own on the page (the playback bar's, the room's)
NO_CONTROL = ("timeline", "clock")


class Lab:
    """A lab is `state' = apply(state, action)`, driven only by its seed and actions.

    Subclasses declare `slug`, `options` (chosen when the lab is created) and `actions`,
    and implement one `do_<action>(**args) -> list[event]` per action, plus `snapshot()`
    and `metrics()`. A `do_` method checks everything before it changes anything, so an
    ActionError always leaves the lab as it was.
    """

    slug: ClassVar[str] = ""
    options: ClassVar[tuple[Param, ...]] = ()
    actions: ClassVar[tuple[ActionSpec, ...]] = ()
    # the guided tour: a few steps over the stage (docs/architecture.md, "Writing a
    # lab's tour"); the browser runs it from the declaration
    tour: ClassVar[tuple[TourStep, ...]] = ()
    # words the lab's snapshot carries as data (partition-cap's city names), marked for
    # translation: `hello` brings each socket their translation, so that a browser can
    # show the data in the page's language
    words: ClassVar[tuple[str, ...]] = ()
    # steps that drive the lab through its heaviest actions to its largest state, each
    # at the most its declaration allows: the server's tests of frame sizes, measured
    # costs and a bystander's wait under attack run them (tests/simulators/
    # test_stress.py checks every lab declares steps that apply and reach heavy work)
    stress: ClassVar[tuple[tuple[str, dict], ...]] = ()
    # keyword arguments the host (the playground) may give the lab besides its
    # options: what the server provides, never the visitor, and never part of the
    # state (graph-traversal's `sql_database`)
    hosted: ClassVar[tuple[str, ...]] = ()
    # declared costs (simulators/engine/cost.py): of making the lab, of showing a
    # state (snapshot, metrics, digest), and of actions (the model)
    creation_cost: ClassVar[int] = 1_000
    frame_cost: ClassVar[int] = 5_000
    cost_model: ClassVar[type[CostModel]] = CostModel

    def __init__(self, seed: int = 0, **options: Any) -> None:
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise ActionError("bad_seed", _("seed must be a whole number"), "seed")
        if not 0 <= seed <= SEED_MAX:
            raise ActionError(
                "bad_seed",
                _("seed must be between 0 and %(maximum)s"),
                "seed",
                maximum=f"{SEED_MAX:,}",
            )
        self.seed = seed
        self.option_values = self.validate_options(options)

    @classmethod
    def validate_options(cls, options: dict) -> dict:
        """Check creation options; missing ones take their declared default."""
        known = {p.name: p for p in cls.options}
        extra = sorted(k for k in options if k not in known)
        if extra:
            raise ActionError(
                "unknown_option",
                _("no option named %(option)r"),
                extra[0],
                option=extra[0],
            )
        values = {}
        for param in cls.options:
            value = options.get(param.name, param.default)
            values[param.name] = param.check(value)
        return values

    @classmethod
    def forget_caches(cls) -> None:
        """Drop what the lab caches per process (graphs, rings), so the next lab
        starts as a replay in a fresh worker does: what tests and benchmarks that
        time the lab call between runs. A lab that caches nothing has nothing to do."""

    @classmethod
    def action_spec(cls, name: Any) -> ActionSpec:
        """The declaration of action `name`, or ActionError if there is none."""
        for spec in cls.actions:
            if spec.name == name:
                return spec
        raise ActionError(
            "unknown_action", _("this lab has no action named %(action)r"), action=name
        )

    @classmethod
    def actions_in(cls, group: str) -> tuple[str, ...]:
        """The names of the lab's actions in `group` (see `ActionSpec.group`): "clock"
        gives the room clock's tick, if the lab has a clock."""
        return tuple(spec.name for spec in cls.actions if spec.group == group)

    @classmethod
    def starts_moment(cls, name: str) -> bool:
        """Whether doing action `name` starts a moment of the room's timeline
        (`ActionSpec.moment`; a name the lab does not know, a room's own, does)."""
        for spec in cls.actions:
            if spec.name == name:
                return spec.moment
        return True

    @classmethod
    def declaration(cls) -> dict:
        """Options and actions as JSON-safe data: the control panel is built from it."""
        return {
            "lab": cls.slug,
            "options": [p.as_dict() for p in cls.options],
            "actions": [a.as_dict() for a in cls.actions],
            "tour": [step.as_dict() for step in cls.tour],
            "words": list(cls.words),
        }

    @classmethod
    def tour_problems(cls) -> list[str]:
        """What is wrong with the lab's tour, in words (empty when it is sound).

        A tour has 3 to 6 steps with distinct ids; every control a step points at and
        every action that ends a step is one of the lab's, shown on the page; every
        "Show me" is an action the lab's own checks accept.
        """
        steps = cls.tour
        problems = []
        if not MIN_TOUR_STEPS <= len(steps) <= MAX_TOUR_STEPS:
            problems.append(f"{len(steps)} steps; a tour has 3 to 6")
        ids = [step.id for step in steps]
        twice = sorted({i for i in ids if ids.count(i) > 1})
        problems += [f"step id {i!r} is used twice" for i in twice]
        for step in steps:
            shown = [step.target.get("action"), (step.look or {}).get("action")]
            for name in filter(None, shown):
                problems += cls._action_problems(step.id, name, NO_CONTROL)
            for name in filter(None, [step.done_when.get("action"), step.show_me[0]]):
                problems += cls._action_problems(step.id, name, ("clock",))
            try:
                cls.action_spec(step.show_me[0]).validate(step.show_me[1])
            except ActionError as error:
                problems.append(f"step {step.id}: show me is refused: {error.message}")
        return problems

    @classmethod
    def _action_problems(cls, step_id: str, name: str, groups: tuple) -> list[str]:
        """Whether `name` is an action of the lab outside `groups`, in words."""
        spec = next((a for a in cls.actions if a.name == name), None)
        if spec is None:
            return [f"step {step_id}: no action named {name!r}"]
        if spec.group == "clock":
            return [f"step {step_id}: {name!r} is the room's, not a visitor's"]
        if spec.group in groups:
            return [f"step {step_id}: {name!r} has no form to point at"]
        return []

    def apply(self, name: Any, args: Any) -> list[dict]:
        """Validate and apply one action; return events that describe what happened."""
        spec = self.action_spec(name)
        checked = spec.validate(args)
        return getattr(self, f"do_{spec.name}")(**checked)

    def snapshot(self) -> dict:
        """Everything a renderer needs to draw the current moment from scratch."""
        raise NotImplementedError

    def metrics(self) -> dict:
        """The numbers the lab shows, computed over the whole state."""
        raise NotImplementedError

    def state(self) -> dict:
        """The full state the digest covers: the snapshot and every number the lab
        shows. A lab whose hidden state matters (an RNG, a history) adds it."""
        return {"snapshot": self.snapshot(), "metrics": self.metrics()}

    def digest(self) -> str:
        """A hash of the canonical JSON of the state: equal states, equal digests."""
        return digest_of(self.state())
