"""`python -m benchmarks` finds each lab's own benchmarks by the lab's slug, and every
built lab, with a module of its own or not, is in the rows every lab has.

A lab's benchmarks are `benchmarks/<slug with underscores>.py` (benchmarks/__main__.py,
`lab_modules`), so a new lab's module is picked up without editing the table's list;
what every lab has (declared replay costs, seek and cold load, the GIL holds of its
heavy actions) comes from its manifest.
"""

import importlib.util
import inspect
import random

import pytest

from benchmarks import gil_holds, replay_costs, seek
from benchmarks.__main__ import lab_modules
from simulators.labs import REGISTRY

SLUGS = [m.slug for m in REGISTRY.built]


@pytest.fixture(scope="module")
def modules():
    return lab_modules()


def test_the_labs_modules_are_found_in_the_courses_order(modules):
    assert modules, "the labs' own modules are found"
    assert list(modules) == [slug for slug in SLUGS if slug in modules]


@pytest.mark.parametrize("slug", SLUGS)
def test_a_labs_own_module_gives_its_rows_with_the_one_signature(modules, slug):
    name = f"benchmarks.{slug.replace('-', '_')}"
    module = modules.get(slug)
    if module is None:
        assert importlib.util.find_spec(name) is None
        return  # the rows every lab has, below, are its rows
    assert module.__name__ == name
    assert list(inspect.signature(module.rows).parameters) == ["repeat", "keys"]
    if hasattr(module, "browser_rows"):
        assert list(inspect.signature(module.browser_rows).parameters) == ["repeat"]


@pytest.mark.parametrize("slug", SLUGS)
def test_every_built_lab_has_the_rows_every_lab_has(slug):
    """Replay costs (its cost cases), seek and cold load (its random actions), the GIL
    holds (its heavy cases): a lab without a module of its own is benchmarked too."""
    assert any(case[0] == slug for case in replay_costs.cases())
    assert any(case[0] == slug for case in gil_holds.CASES)
    name, _args = next(seek.script(slug, random.Random(1)))
    assert name in {spec.name for spec in REGISTRY[slug].lab.actions}
