"""The GIL probe (benchmarks/gil_holds.py) covers every heavy action, and sees a hold.

The probe is how issue 29's rule is kept: no heavy action of any lab holds the GIL for
more than about 50 ms at a time. It only says so for the actions it drives, so: every
built lab is in it (its manifest's `heavy_cases`), every action that can be declared
heavy (`HEAVY_ACTIONS`, worked out from the cost models along the manifest's cost plan
and cost cases) has a case, each case's timed steps are heavy where they are said to
be (worked out by the cost models alone, nothing run), and the watcher thread does see
one long call into C.
"""

import random
import time

import pytest
from django.conf import settings

from benchmarks import gil_holds
from simulators.labs import BUILT, LABS

SLUGS = [lab.slug for lab in BUILT]


def declared(slug: str, before: list, timed: list) -> list[int]:
    """What each timed step declares with its frame, after the steps before."""
    lab_class = LABS[slug]
    costs = lab_class.cost_model(lab_class)
    for name, args in before:
        costs.cost_of(name, args)
    return [costs.cost_of(name, args) + costs.frame() for name, args in timed]


@pytest.mark.parametrize("slug", SLUGS)
def test_every_built_lab_has_cases_and_every_heavy_action_one(slug):
    assert slug in gil_holds.HEAVY_ACTIONS
    assert any(case[0] == slug for case in gil_holds.CASES), (
        f"{slug} has no heavy_cases in its manifest: the states at which its actions "
        "are heaviest (its dearest one when none is heavy)"
    )
    assert [m for m in gil_holds.missing_cases() if m.startswith(f"{slug}: ")] == []


def test_the_probe_has_every_built_lab_and_no_other():
    assert set(gil_holds.HEAVY_ACTIONS) == set(SLUGS)
    assert {slug for slug, *_ in gil_holds.CASES} == set(SLUGS)


@pytest.mark.parametrize("slug", SLUGS)
def test_an_action_declared_heavy_is_listed_or_said_never_to_be(slug):
    heavy = settings.PLAYGROUND_HEAVY_UNITS
    lab = LABS[slug]
    declared_names = {spec.name for spec in lab.actions}
    for spec in lab.actions:
        if spec.cost + lab.frame_cost < heavy:
            continue  # may still be heavy in a state: HEAVY_ACTIONS says which
        listed = spec.name in gil_holds.HEAVY_ACTIONS[slug]
        assert listed or (slug, spec.name) in gil_holds.NEVER_HEAVY, (
            f"{slug}: {spec.name} declares {spec.cost:,}: no case drives it"
        )
    for (lab_slug, name), why in gil_holds.NEVER_HEAVY.items():
        if lab_slug == slug:
            assert name in declared_names and why, f"{slug}: never_heavy {name!r}"
            assert name not in gil_holds.HEAVY_ACTIONS[slug]


@pytest.mark.parametrize("slug", SLUGS)
def test_each_heavy_action_has_a_case_where_it_is_heavy(slug):
    heavy = settings.PLAYGROUND_HEAVY_UNITS
    shown = set()
    for case_slug, _what, before, timed in gil_holds.CASES:
        if case_slug != slug:
            continue
        for (name, _args), units in zip(
            timed, declared(slug, before, timed), strict=True
        ):
            if units >= heavy:
                shown.add(name)
    for name in gil_holds.HEAVY_ACTIONS[slug]:
        assert name in shown, f"{slug}: no case where {name} is heavy"


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
