"""The GIL probe (benchmarks/gil_holds.py) covers every heavy action, and sees a hold.

The probe is how issue 29's rule is kept: no heavy action of any lab holds the GIL for
more than about 50 ms at a time. It only says so for the actions it drives, so: every
built lab is in it, every action that can be declared heavy has a case, each case's
timed steps are heavy where they are said to be (worked out by the cost models alone,
nothing run), and the watcher thread does see one long call into C.
"""

import random
import time

from django.conf import settings

from benchmarks import gil_holds
from simulators.labs import BUILT, LABS


def declared(slug: str, before: list, timed: list) -> list[int]:
    """What each timed step declares with its frame, after the steps before."""
    lab_class = LABS[slug]
    costs = lab_class.cost_model(lab_class)
    for name, args in before:
        costs.cost_of(name, args)
    return [costs.cost_of(name, args) + costs.frame() for name, args in timed]


def test_every_built_lab_has_cases_and_every_heavy_action_one():
    assert {lab.slug for lab in BUILT} == set(gil_holds.HEAVY_ACTIONS)
    assert {slug for slug, *_ in gil_holds.CASES} == {lab.slug for lab in BUILT}
    assert gil_holds.missing_cases() == []


def test_an_action_declared_heavy_is_listed_or_said_never_to_be():
    heavy = settings.PLAYGROUND_HEAVY_UNITS
    for lab in BUILT:
        for spec in lab.actions:
            if spec.cost + lab.frame_cost < heavy:
                continue  # may still be heavy in a state: HEAVY_ACTIONS says which
            listed = spec.name in gil_holds.HEAVY_ACTIONS[lab.slug]
            assert listed or (lab.slug, spec.name) in gil_holds.NEVER_HEAVY, (
                f"{lab.slug}: {spec.name} declares {spec.cost:,}: no case drives it"
            )


def test_each_heavy_action_has_a_case_where_it_is_heavy():
    heavy = settings.PLAYGROUND_HEAVY_UNITS
    shown = set()
    for slug, _what, before, timed in gil_holds.CASES:
        for (name, _args), units in zip(
            timed, declared(slug, before, timed), strict=True
        ):
            if units >= heavy:
                shown.add((slug, name))
    for slug, names in gil_holds.HEAVY_ACTIONS.items():
        for name in names:
            assert (slug, name) in shown, f"{slug}: no case where {name} is heavy"


def test_the_watcher_sees_a_long_call_into_c():
    values = list(range(400_000))
    random.Random(1).shuffle(values)
    start = time.thread_time()
    sorted(values)
    alone = (time.thread_time() - start) * 1_000
    watch = gil_holds.Watch()
    with watch.running():
        time.sleep(0.02)  # the watcher is ticking
        with watch.phase("sort"):
            sorted(values)
    held, _in_gc = watch.holds()["sort"]
    assert held > alone / 2  # one call: the watcher never woke in it
