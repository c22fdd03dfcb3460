"""A snapshot, once taken, never changes; and taking one changes nothing.

A room keeps the snapshot of its last frame and diffs the next one against it
(playground/delta.py): a snapshot that shares a lab's mutable state (a dict the next
action updates in place) changes under the room's feet, and the patch sent leaves the
change out. range-splits' heat chart did exactly that. Every lab, over seeded random
declared actions (their defaults), keeps each snapshot equal to a deep copy taken when
it was made.

A room looks at its lab after every action (a frame); a replay, a link or a seek does
not. If looking changed the lab, the same actions would make two digests: replication's
snapshot applied the records that had come due, while its next due time had already
been read, so a lab looked at twice told another time than a lab looked at once (found
by test_links' random histories, on every Python).
"""

import contextlib
import copy
import random

import pytest
from random_actions import random_args

from simulators.engine.canonical import canonical_json
from simulators.engine.declaration import ActionError
from simulators.labs import LABS

# actions whose work is large at any argument, left out to keep this quick
HEAVY = {"load_keys", "run_trials", "set_copies", "measure"}


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


@pytest.mark.parametrize("slug", sorted(LABS))
def test_looking_at_a_lab_changes_nothing(slug):
    """Over seeded random histories, a lab whose state is read after every action
    (twice, the same both times) ends at the digest of one never looked at."""
    lab_class = LABS[slug]
    actions = [spec for spec in lab_class.actions if spec.name not in HEAVY]
    steps = [spec for spec in actions if spec.name in ("step", "advance")]
    for history in range(8):
        rng = random.Random(f"{slug}/{history}")
        looked, unlooked = lab_class(seed=history), lab_class(seed=history)
        done = []
        for _ in range(25):
            # half the time a step of the clock, where looking was found to matter
            pool = steps if steps and rng.random() < 0.5 else actions
            spec = rng.choice(pool)
            args = random_args(spec, rng)
            try:
                looked.apply(spec.name, args)
            except ActionError:
                continue  # a refusal changes nothing: the other lab is not asked
            unlooked.apply(spec.name, args)
            done.append((spec.name, args))
            first = canonical_json(looked.state())
            assert canonical_json(looked.state()) == first, (
                f"reading the state after {done} changed it"
            )
        assert unlooked.digest() == looked.digest(), (
            f"{slug}: the lab looked at after every action ended elsewhere: {done}"
        )
