"""The shape every lab has: a deterministic state machine with a declaration."""

from typing import Any, ClassVar

from simulators.engine.canonical import digest_of
from simulators.engine.cost import CostModel
from simulators.engine.declaration import ActionError, ActionSpec, Param
from simulators.engine.i18n import gettext_noop as _
from simulators.engine.rng import SEED_MAX


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
    def action_spec(cls, name: Any) -> ActionSpec:
        """The declaration of action `name`, or ActionError if there is none."""
        for spec in cls.actions:
            if spec.name == name:
                return spec
        raise ActionError(
            "unknown_action", _("this lab has no action named %(action)r"), action=name
        )

    @classmethod
    def declaration(cls) -> dict:
        """Options and actions as JSON-safe data: the control panel is built from it."""
        return {
            "lab": cls.slug,
            "options": [p.as_dict() for p in cls.options],
            "actions": [a.as_dict() for a in cls.actions],
        }

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
        """The full state the digest covers (defaults to the snapshot)."""
        return self.snapshot()

    def digest(self) -> str:
        """A hash of the canonical JSON of the state: equal states, equal digests."""
        return digest_of(self.state())
