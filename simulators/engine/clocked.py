"""Labs that run on the virtual clock: playback actions shared by every one of them.

Time moves only through logged actions. The room turns real time into `advance(ms)`
actions while the lab is playing (`speed` virtual milliseconds per real second); `step`
jumps to the next scheduled event. `play`, `pause` and `set_speed` change no simulated
state, but they are actions too, so everyone watching a room sees the same moment and a
replay of the log reproduces it.
"""

from typing import Any, ClassVar

from simulators.engine.clock import EventQueue
from simulators.engine.declaration import ActionError, ActionSpec, Param
from simulators.engine.i18n import gettext_noop as _
from simulators.engine.lab import Lab

# Virtual milliseconds per real second. Network latencies are tens of milliseconds, so
# the default plays them 20 times slower than life: a 40 ms message flies for 0.8 s.
SPEEDS = (10, 25, 50, 100, 250, 1000)
SPEED_LABELS = ("1/100×", "1/40×", "1/20×", "1/10×", "1/4×", "1×")
DEFAULT_SPEED = 50
MAX_ADVANCE_MS = 60_000

SPEED = Param(
    "speed",
    _("Speed"),
    "choice",
    default=DEFAULT_SPEED,
    choices=SPEEDS,
    choice_labels=SPEED_LABELS,
    help=_("How fast simulated time runs compared with real time."),
)

PLAYBACK_ACTIONS = (
    ActionSpec("play", _("Play"), group="timeline", moment=False),
    ActionSpec("pause", _("Pause"), group="timeline", moment=False),
    ActionSpec(
        "step",
        _("Step"),
        group="timeline",
        help=_("Jump to the next event."),
        cost=200,
    ),
    ActionSpec("set_speed", _("Speed"), (SPEED,), group="timeline", moment=False),
    ActionSpec(
        "advance",
        _("Advance time"),
        (
            Param(
                "ms",
                _("Milliseconds"),
                "int",
                default=100,
                minimum=1,
                maximum=MAX_ADVANCE_MS,
            ),
        ),
        group="clock",
        moment=False,
        help=_("Move simulated time forward; the room sends these while playing."),
        cost=200,
    ),
)


class ClockedLab(Lab):
    """A lab with a virtual clock, an event queue and the playback actions.

    Subclasses add their own actions after `PLAYBACK_ACTIONS`, schedule work on
    `self.queue` (usually through a `Network`), and implement `collect_events()` to
    return what happened since the last call (a Network's `take_events`).
    """

    clocked: ClassVar[bool] = True
    actions: ClassVar[tuple[ActionSpec, ...]] = PLAYBACK_ACTIONS

    def __init__(self, seed: int = 0, **options: Any) -> None:
        super().__init__(seed, **options)
        self.queue = EventQueue()
        # alive at once: time runs whenever something is scheduled (the room sends
        # `advance` only then), until someone pauses to step
        self.playing = True
        self.speed = DEFAULT_SPEED

    @property
    def now_ms(self) -> int:
        return self.queue.clock.now_ms

    def next_due_ms(self) -> int | None:
        """When the next scheduled event happens, or None when nothing waits."""
        return self.queue.peek_time()

    def handle(self, event: Any) -> None:
        """Run one scheduled event (subclasses that schedule directly override this)."""
        raise NotImplementedError

    def collect_events(self) -> list[dict]:
        """Events recorded since the last call."""
        return []

    def run_until(self, until_ms: int) -> list[dict]:
        """Run everything due by `until_ms`, move the clock there, return the events."""
        self.queue.run_until(until_ms, self.handle)
        return self.collect_events()

    def playback(self) -> dict:
        """The clock as the timeline shows it."""
        return {
            "now_ms": self.now_ms,
            "playing": self.playing,
            "speed": self.speed,
            "next_due_ms": self.next_due_ms(),
        }

    def do_play(self) -> list[dict]:
        self.playing = True
        return [{"type": "played", "at_ms": self.now_ms}]

    def do_pause(self) -> list[dict]:
        self.playing = False
        return [{"type": "paused", "at_ms": self.now_ms}]

    def do_set_speed(self, speed: int) -> list[dict]:
        self.speed = speed
        return [{"type": "speed_set", "speed": speed}]

    def do_step(self) -> list[dict]:
        due = self.next_due_ms()
        if due is None:
            raise ActionError(
                "nothing_scheduled",
                _("nothing is waiting to happen; do something first"),
            )
        self.playing = False
        return [{"type": "paused", "at_ms": self.now_ms}, *self.run_until(due)]

    def do_advance(self, ms: int) -> list[dict]:
        return self.run_until(self.now_ms + ms)
