"""Checkpoints are placed by declared replay work, never by the clock: the same
history has its checkpoints at the same places in every process (issue 11)."""

import json
import time

from playground import history as history_module
from playground.history import History
from simulators.labs import LABS

# a quorum history: writes, reads, cuts and clock ticks, some of them heavier
STEPS = [
    ("write", {"w": "ONE", "coordinator": "A"}),
    ("advance", {"ms": 20}),
    ("cut_link", {"link": "A-C"}),
    ("read", {"r": "ONE", "coordinator": "C"}),
    ("advance", {"ms": 300}),
    ("heal_all", {}),
    ("write", {"w": "QUORUM", "coordinator": "B"}),
    ("advance", {"ms": 100}),
] * 60

PLACE = """
import json, sys
import django, os
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "playground.settings")
django.setup()
from playground.history import History
from simulators.labs import LABS
steps = json.loads(sys.stdin.read())
timeline = History(LABS["quorum"], 5)
for name, args in steps:
    timeline.apply(name, args)
print(json.dumps(timeline._indexes))
"""


def placed(steps) -> list[int]:
    timeline = History(LABS["quorum"], 5)
    for name, args in steps:
        timeline.apply(name, args)
    return timeline._indexes


def test_checkpoints_fall_where_the_declared_work_says():
    indexes = placed(STEPS)
    assert len(indexes) >= 3  # the history is long enough to have several
    timeline = History(LABS["quorum"], 5)
    for name, args in STEPS:
        timeline.apply(name, args)
    work = timeline._work
    last = 0
    for index in indexes:
        # each one is the first position whose work since the one before reaches it
        assert work[index] - work[last] >= history_module.CHECKPOINT_WORK
        assert work[index - 1] - work[last] < history_module.CHECKPOINT_WORK
        last = index


def test_a_busy_machine_does_not_move_them(monkeypatch):
    """Each action taking 2 ms longer (as on a loaded machine) moves none of them."""
    fast = placed(STEPS[:120])
    lab_class = LABS["quorum"]
    apply = lab_class.apply

    def slowly(self, name, args):
        time.sleep(0.002)
        return apply(self, name, args)

    monkeypatch.setattr(lab_class, "apply", slowly)
    assert placed(STEPS[:120]) == fast


def test_another_process_places_them_at_the_same_actions(another_process):
    elsewhere = another_process.submit(PLACE, input=json.dumps(STEPS))
    here = placed(STEPS)
    done = elsewhere()
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == here
