"""Replay cost: the work a history of actions takes, known before it is done.

Every action declares its cost in work units (`ActionSpec.cost`); a unit is about one
microsecond of replay on the machine the costs were measured on, and `make bench`
compares what each action declares with what it takes ("Declared replay costs" in
docs/benchmarks.md), so a declaration that drifts shows there. Labs whose actions cost
more as the state grows (a million keys) give a `CostModel` of their own that follows
the one number the cost depends on, without running anything.

The playground adds up these costs before it replays a link (a link over its budget is
refused unopened) and to decide which actions and seeks are heavy enough to run where
they cannot hold up other rooms. An action's declared cost, as a room meters it, is its
charge, the frame that shows the state after it, and the checkpoint taken after it when
one is due (`History.cost_of`). tests/simulators/test_measured_costs.py holds every
lab to it: measured CPU time at most 1.5x the declaration, over the declared ranges.
"""

from typing import Any

from simulators.engine.declaration import ActionSpec

# pickling a small lab's state for a checkpoint: 0.1-2 ms measured (a lab whose state
# grows, a log of records or queries waiting, says how in its model's `checkpoint`)
CHECKPOINT = 1_000


class CostModel:
    """The declared costs of one history, action by action, without applying any."""

    def __init__(self, lab_class) -> None:
        self.lab_class = lab_class
        # what later costs depend on (a key count, say): a tuple, so a history can keep
        # the scale after each action and restore it when it goes back in time
        self.scale: tuple = ()

    def start(self) -> int:
        """The cost of making the lab before its first action."""
        return self.lab_class.creation_cost

    def frame(self) -> int:
        """The cost of showing the state after an action: snapshot, metrics, digest."""
        return self.lab_class.frame_cost

    def checkpoint(self) -> int:
        """The cost of pickling the state for a checkpoint (playground/history.py
        takes one every few milliseconds of declared work, and the action after
        which it is taken pays for it): grows with the state in some labs."""
        return CHECKPOINT

    def charge(self, spec: ActionSpec, args: dict) -> int:
        """The cost of one valid action, and what it changes about later costs."""
        return spec.cost

    def cost_of(self, name: Any, args: Any) -> int:
        """The cost of an action given by name; ActionError when it is not valid."""
        spec = self.lab_class.action_spec(name)
        return self.charge(spec, spec.validate(args))
