"""A snapshot, once taken, never changes.

A room keeps the snapshot of its last frame and diffs the next one against it
(playground/delta.py): a snapshot that shares a lab's mutable state (a dict the next
action updates in place) changes under the room's feet, and the patch sent leaves the
change out. range-splits' heat chart did exactly that. Every lab, over seeded random
declared actions (their defaults), keeps each snapshot equal to a deep copy taken when
it was made.
"""

import contextlib
import copy
import random

import pytest

from simulators.engine.declaration import ActionError
from simulators.labs import LABS


@pytest.mark.parametrize("slug", sorted(LABS))
def test_a_snapshot_taken_does_not_change_later(slug):
    lab_class = LABS[slug]
    lab = lab_class(seed=3)
    actions = lab_class.declaration()["actions"]
    choose = random.Random(slug).choice
    kept = []
    for _ in range(30):
        action = choose(actions)
        args = {param["name"]: param["default"] for param in action["params"]}
        with contextlib.suppress(ActionError):  # a refusal changes nothing
            lab.apply(action["name"], args)
        snapshot = lab.snapshot()
        kept.append((action["name"], snapshot, copy.deepcopy(snapshot)))
    for name, snapshot, then in kept:
        assert snapshot == then, f"the snapshot after {name} changed later"
