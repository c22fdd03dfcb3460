"""Parameters and actions declared as data, and validation driven by that declaration.

The server validates every incoming action against its declaration, and the browser
builds its control panel from the same declaration, so the two cannot disagree.
"""

import re
from dataclasses import dataclass, field
from typing import Any

from simulators.engine.i18n import gettext_noop as _

KINDS = ("int", "choice", "text", "bool")


class ActionError(ValueError):
    """An action that cannot be applied; the lab is left exactly as it was.

    `template` is English text with `%(name)s` placeholders, marked for translation; the
    playground translates it before filling in `params`. The params named in `words`
    are marked text themselves (a parameter's label), translated too.
    """

    def __init__(
        self,
        code: str,
        template: str,
        field_name: str | None = None,
        *,
        words: tuple[str, ...] = (),
        **params: Any,
    ) -> None:
        self.code = code
        self.template = template
        self.field = field_name
        self.words = words
        self.params = params
        super().__init__(self.message)

    @property
    def message(self) -> str:
        """The English sentence."""
        return self.template % self.params if self.params else self.template

    def translated(self, gettext) -> str:
        """The sentence in the language `gettext` speaks."""
        text = gettext(self.template)
        if not self.params:
            return text
        words = getattr(self, "words", ())  # errors pickled before words existed
        params = {
            k: gettext(v) if k in words and isinstance(v, str) else v
            for k, v in self.params.items()
        }
        return text % params

    def __reduce__(self):
        # pickled as its fields (a refusal crosses from a replay's worker process):
        # Exception's own pickling would call __init__ with the message alone
        return (_rebuilt_error, (type(self), dict(self.__dict__)))

    def as_dict(self) -> dict:
        """The error as JSON-safe data."""
        data = {"code": self.code, "message": self.message}
        if self.field:
            data["field"] = self.field
        return data


def _rebuilt_error(kind: type, fields: dict) -> ActionError:
    """An ActionError (or a subclass) made again from its pickled fields."""
    error = kind.__new__(kind)
    error.__dict__.update(fields)
    error.args = (error.message,)
    return error


@dataclass(frozen=True)
class Param:
    """One argument of an action: its type, bounds and what it means."""

    name: str
    label: str
    kind: str
    default: Any = None
    minimum: int | None = None
    maximum: int | None = None
    choices: tuple = ()
    choice_labels: tuple = ()
    max_length: int | None = None
    help: str = ""
    source: str | None = None  # a snapshot list the browser offers as choices
    presets: tuple = ()  # quick values the browser offers as buttons
    # a dotted path into the snapshot holding the value in force now ("levels.w"): the
    # browser shows it in the field until the user changes the field
    current: str | None = None
    # a dotted path into the snapshot holding a number ("copies"): numeric choices above
    # it cannot be done now, and the browser does not offer them (the lab refuses them)
    most: str | None = None
    # the same for the smallest number (quorum's M, nodes on the ring: "copies")
    least: str | None = None
    # text that may be left empty ("" means none: an optional end or a node to avoid)
    blank: bool = False

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"unknown parameter kind {self.kind!r}")

    def as_dict(self) -> dict:
        """The parameter as JSON-safe data for the browser."""
        data = {"name": self.name, "label": self.label, "kind": self.kind}
        optional = {
            "default": self.default,
            "min": self.minimum,
            "max": self.maximum,
            "max_length": self.max_length,
            "help": self.help or None,
            "source": self.source,
            "current": self.current,
            "most": self.most,
            "least": self.least,
            "blank": self.blank or None,
        }
        data.update({k: v for k, v in optional.items() if v is not None})
        if self.presets:
            data["presets"] = list(self.presets)
        if self.choices:
            labels = self.choice_labels or tuple(str(c) for c in self.choices)
            data["choices"] = [
                {"value": v, "label": lbl}
                for v, lbl in zip(self.choices, labels, strict=True)
            ]
        return data

    def check(self, value: Any) -> Any:
        """Return `value` if it fits this parameter, else raise ActionError."""
        checker = getattr(self, f"_check_{self.kind}")
        return checker(value)

    def _check_int(self, value: Any) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise self._error("bad_type", _("%(name)s must be a whole number"))
        if self.minimum is not None and value < self.minimum:
            raise self._error(
                "out_of_range",
                _("%(name)s must be at least %(minimum)s"),
                minimum=f"{self.minimum:,}",
            )
        if self.maximum is not None and value > self.maximum:
            raise self._error(
                "out_of_range",
                _("%(name)s must be at most %(maximum)s"),
                maximum=f"{self.maximum:,}",
            )
        return value

    def _check_choice(self, value: Any) -> Any:
        for choice in self.choices:
            if type(choice) is type(value) and choice == value:
                return value
        allowed = ", ".join(str(c) for c in self.choices)
        raise self._error(
            "bad_choice", _("%(name)s must be one of: %(allowed)s"), allowed=allowed
        )

    def _check_text(self, value: Any) -> str:
        if not isinstance(value, str):
            raise self._error("bad_type", _("%(name)s must be text"))
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:  # lone surrogates ("\ud800") arrive through JSON
            raise self._error("bad_text", _("%(name)s must be valid text")) from None
        if not value.strip() and not (self.blank and value == ""):
            raise self._error("empty", _("%(name)s must not be empty"))
        if not value.isprintable():  # U+0000 and other control characters
            raise self._error("bad_text", _("%(name)s must be printable text"))
        if self.max_length is not None and len(value) > self.max_length:
            raise self._error(
                "too_long",
                _("%(name)s must be at most %(max_length)s characters"),
                max_length=self.max_length,
            )
        return value

    def _check_bool(self, value: Any) -> bool:
        if not isinstance(value, bool):
            raise self._error("bad_type", _("%(name)s must be true or false"))
        return value

    def _error(self, code: str, template: str, **params: Any) -> ActionError:
        # named as the learner sees it: the label beside the field, in their language
        return ActionError(
            code, template, self.name, words=("name",), name=self.label, **params
        )


@dataclass(frozen=True)
class ActionSpec:
    """Something a user can do to a lab, with the arguments it takes."""

    name: str
    label: str
    params: tuple[Param, ...] = field(default_factory=tuple)
    help: str = ""
    primary: bool = False  # shown next to the drawing, not only in the full panel
    # where the browser puts it: "" the control panel, "timeline" the playback bar,
    # "clock" nowhere (sent by the room itself), "drawing" only by clicking the drawing.
    # A "clock" action is the room clock's tick: it takes one argument, `ms`, and two
    # in a row do what one does with their sum (links merge them)
    group: str = ""
    # whether doing it starts a moment of the room's timeline (playground/history.py):
    # not for the clock's tick, nor for a playback setting (play, pause, the speed),
    # which changes how the room plays and not what the lab holds
    moment: bool = True
    # replay cost in work units (about a microsecond each; simulators/engine/cost.py);
    # a lab whose costs grow with its state says how in its own CostModel
    cost: int = 100

    def as_dict(self) -> dict:
        """The action as JSON-safe data for the browser."""
        data = {
            "name": self.name,
            "label": self.label,
            "params": [p.as_dict() for p in self.params],
        }
        if self.help:
            data["help"] = self.help
        if self.primary:
            data["primary"] = True
        if self.group:
            data["group"] = self.group
        return data

    def validate(self, args: Any) -> dict:
        """Check `args` against the declaration: every argument present, none extra."""
        if not isinstance(args, dict):
            raise ActionError("bad_args", _("args must be an object"))
        known = {p.name for p in self.params}
        extra = sorted(k for k in args if k not in known)
        if extra:
            raise ActionError(
                "unknown_argument",
                _("%(action)s takes no argument named %(argument)r"),
                extra[0],
                action=self.name,
                argument=extra[0],
            )
        checked = {}
        for param in self.params:
            if param.name not in args:
                raise ActionError(
                    "missing_argument",
                    _("%(action)s needs the argument %(argument)r"),
                    param.name,
                    action=self.name,
                    argument=param.name,
                )
            checked[param.name] = param.check(args[param.name])
        return checked


# What a tour step may point at: a control (by the action it sends), a node or a link of
# the network drawing, or a named spot the page or the renderer marks (`data-spot`).
TARGET_KINDS = ("action", "node", "link", "spot")
STEP_ID = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
STEP_ID_MAX = 40


@dataclass(frozen=True)
class TourStep:
    """One step of a lab's guided tour: what to do, where, and what to notice.

    `target` is one of `{"action": name}`, `{"node": id}`, `{"link": id}` or
    `{"spot": name}` ("stage" is the drawing). `show_me` is the action and arguments
    "Show me" sends, exactly as a click would. `done_when` ends the step: a frame whose
    action is `{"action": name}`, or that carries `{"event": type}` (with `"with"`, a
    dict of fields the event must hold). `look`, a target like `target`, is where to
    look once the step is done (the target itself when None).
    """

    id: str
    say: str
    notice: str
    target: dict
    show_me: tuple[str, dict]
    done_when: dict
    look: dict | None = None

    def __post_init__(self) -> None:
        if not STEP_ID.fullmatch(self.id) or len(self.id) > STEP_ID_MAX:
            raise ValueError(f"tour step id {self.id!r} is not a short slug")
        for where in (self.target, self.look):
            if where is not None and (
                len(where) != 1 or next(iter(where)) not in TARGET_KINDS
            ):
                raise ValueError(f"step {self.id}: bad target {where!r}")
        ends = set(self.done_when)
        if len(ends & {"action", "event"}) != 1 or ends - {"action", "event", "with"}:
            raise ValueError(f"step {self.id}: bad done_when {self.done_when!r}")
        if "with" in ends and "event" not in ends:
            raise ValueError(f"step {self.id}: 'with' needs an 'event'")

    def as_dict(self) -> dict:
        """The step as JSON-safe data for the browser."""
        action, args = self.show_me
        data = {
            "id": self.id,
            "say": self.say,
            "notice": self.notice,
            "target": dict(self.target),
            "show_me": {"action": action, "args": dict(args)},
            "done_when": dict(self.done_when),
        }
        if self.look is not None:
            data["look"] = dict(self.look)
        return data

    def done_by(self, action: str, events: list[dict]) -> bool:
        """Whether a frame of `action` with `events` ends this step (as the browser
        decides it)."""
        if "action" in self.done_when:
            return action == self.done_when["action"]
        wanted = self.done_when.get("with", {})
        return any(
            event.get("type") == self.done_when["event"]
            and all(event.get(key) == value for key, value in wanted.items())
            for event in events
        )
