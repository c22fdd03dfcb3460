"""docs/architecture.md's "Adding a lab", followed to the letter on a scratch lab.

The test writes a tiny lab (a counter) in a root of its own, laid out as this
repository: its folder in simulators/labs/ (with its cost plan and heavy cases), its
renderer and folder in static/js/labs/, its stylesheet, its narrative, its translations
and its own benchmark module, nothing else; then pins its digests with the command the
steps give, which writes them into its folder. Named in `PLAYGROUND_LAB_ROOTS`, the root
is read as if it were this repository, and pytest, in a process of its own, runs the
registry's guard, the page, embed and oEmbed checks, the determinism, tour,
measured-cost and pinned-digest sweeps, the GIL probe's checks and the benchmark
table's on the scratch lab, and collects the browser sweeps with it: no list was edited
for it.
"""

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SLUG = "scratchpad"  # one word: `pytest -k scratchpad` picks its cases

LAB = '''"""scratchpad: a counter, the smallest lab there is."""

from simulators.engine.declaration import ActionSpec, Param
from simulators.engine.i18n import gettext_noop as _
from simulators.engine.lab import Lab
from simulators.labs.scratchpad.tour import TOUR


class ScratchpadLab(Lab):
    slug = "scratchpad"
    actions = (
        ActionSpec(
            "add",
            _("Add"),
            (Param("by", _("By"), "int", default=1, minimum=1, maximum=3),),
            primary=True,
        ),
        ActionSpec("reset", _("Reset"), primary=True),
    )
    tour = TOUR

    def __init__(self, seed: int = 0, **options) -> None:
        super().__init__(seed, **options)
        self.count = 0

    def do_add(self, by: int) -> list[dict]:
        self.count += by
        return [{"type": "added", "by": by, "count": self.count}]

    def do_reset(self) -> list[dict]:
        self.count = 0
        return [{"type": "reset"}]

    def snapshot(self) -> dict:
        return {"count": self.count}

    def metrics(self) -> dict:
        return {"count": self.count}
'''

TOUR = '''"""scratchpad's tour: add, add more, reset."""

from simulators.engine.declaration import TourStep
from simulators.engine.i18n import gettext_noop as _

TOUR = (
    TourStep(
        id="add",
        say=_("Press Add."),
        notice=_("One more."),
        target={"action": "add"},
        show_me=("add", {"by": 1}),
        done_when={"action": "add"},
    ),
    TourStep(
        id="add-three",
        say=_("Add three."),
        notice=_("Three more."),
        target={"action": "add"},
        show_me=("add", {"by": 3}),
        done_when={"event": "added", "with": {"by": 3}},
    ),
    TourStep(
        id="reset",
        say=_("Reset it."),
        notice=_("Back to nothing."),
        target={"action": "reset"},
        show_me=("reset", {}),
        done_when={"action": "reset"},
    ),
)
'''

MANIFEST = '''"""scratchpad: what the site, the sweeps and the benchmarks know of it."""

from simulators.engine.i18n import gettext_noop as _
from simulators.labs.manifest import CostPlan, LabManifest
from simulators.labs.scratchpad.lab import ScratchpadLab


def random_action(rng):
    return rng.choice([("add", {"by": rng.randint(1, 3)}), ("reset", {})])


MANIFEST = LabManifest(
    lab=ScratchpadLab,
    chapter=6,
    order=9,
    title=_("A scratch counter"),
    promise=_("Add to a number and reset it."),
    primary="add",
    sweep=("add", "reset"),
    example=(("add", {"by": 2}), ("add", {"by": 1}), ("reset", {}), ("add", {"by": 3})),
    random_action=random_action,
    cost_cases=(("add one", [], [("add", {"by": 1})]),),
    heavy_cases=(("add three, twice", [("reset", {})], [("add", {"by": 3})] * 2),),
    cost_plan=CostPlan(
        heaviest=((("add", {"by": 3}), ("add", {"by": 3}), ("reset", {})),),
        examples=3,
        length=3,
    ),
)
'''

BENCHMARK = '''"""scratchpad's own rows of `make bench`: a thousand additions."""

from benchmarks.timing import medians
from simulators.labs.scratchpad.lab import ScratchpadLab


def rows(repeat, keys):
    def adding():
        lab = ScratchpadLab(1)
        for _ in range(1_000):
            lab.apply("add", {"by": 1})

    timing = medians({"add": adding}, repeat)["add"]
    return ["scratchpad: a thousand additions", f"{timing.cpu * 1e3:.1f} ms"]
'''

RENDERER = """/** The scratch counter's renderer: the number, large. */

import { draw } from "./scratchpad/draw.js";

export function createRenderer() {
  let root = null;
  return {
    mount(el, hello) {
      root = el;
      draw(root, hello.snapshot);
    },
    update(frame) {
      draw(root, frame.snapshot);
    },
    describe() {
      return [];
    },
    destroy() {
      root?.replaceChildren();
    },
  };
}
"""

DRAW = """export function draw(root, snapshot) {
  root.textContent = String(snapshot.count);
}
"""

NARRATIVE = """{% load i18n %}
<div class="narrative-body"><p>{% translate "A scratch counter" %}</p></div>
"""

PO = """msgid ""
msgstr ""
"Content-Type: text/plain; charset=UTF-8\\n"

msgid "A scratch counter"
msgstr "{title}"

msgid "Add to a number and reset it."
msgstr "{promise}"
"""
WORDS = {
    "zh_Hans": ("草稿计数器", "给一个数加数，再把它清零。"),
    "th": ("ตัวนับทดลอง", "บวกเลขแล้วล้างกลับเป็นศูนย์"),
}


def write_the_lab(root: Path) -> None:
    """The steps of docs/architecture.md's "Adding a lab", in a root of their own."""
    files = {
        # 1. its folder in simulators/labs/: the simulator, its tour, its manifest
        "simulators/labs/scratchpad/__init__.py": '"""scratchpad: a counter."""\n',
        "simulators/labs/scratchpad/lab.py": LAB,
        "simulators/labs/scratchpad/tour.py": TOUR,
        "simulators/labs/scratchpad/manifest.py": MANIFEST,
        # 2. its renderer, and its folder in static/js/labs/
        "static/js/labs/scratchpad.js": RENDERER,
        "static/js/labs/scratchpad/draw.js": DRAW,
        # 3. its stylesheet
        "static/css/labs/scratchpad.css": ".scratchpad { font-size: 4rem; }\n",
        # 4. its narrative
        "templates/labs/narratives/scratchpad.html": NARRATIVE,
        # 6. its own benchmarks
        "benchmarks/scratchpad.py": BENCHMARK,
    }
    # 5. its translations
    for folder, (title, promise) in WORDS.items():
        path = f"locale/{folder}/LC_MESSAGES/django.po"
        files[path] = PO.format(title=title, promise=promise)
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def python_in(root: Path, *args: str) -> subprocess.CompletedProcess:
    """`python *args` in this repository, with the scratch root's labs."""
    env = {**os.environ, "PLAYGROUND_LAB_ROOTS": str(root)}
    env.pop("PYTEST_ADDOPTS", None)
    return subprocess.run(
        [sys.executable, *args],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


def pytest_in(root: Path, *args: str) -> subprocess.CompletedProcess:
    return python_in(root, "-m", "pytest", "-p", "no:cacheprovider", *args)


def pin_the_digests(root: Path) -> None:
    """The step after the lab's folder: its digests pinned, into that folder."""
    result = python_in(root, "-m", "tests.simulators.test_pinned_digests", SLUG)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]


@pytest.fixture(scope="module")
def root(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("scratch-root")
    write_the_lab(root)
    pin_the_digests(root)
    return root


def test_the_scratch_labs_digests_are_pinned_in_its_own_folder(root):
    pinned = root / "simulators/labs/scratchpad/pinned_digests.json"
    assert pinned.is_file()
    assert not (REPO / "simulators/labs/scratchpad").exists()


def test_the_scratch_lab_passes_the_guard_and_the_sweeps_that_run_without_a_browser(
    root,
):
    result = pytest_in(
        root,
        "-q",
        "-rA",  # a line for each test passed
        "tests/server/test_lab_manifests.py",
        "tests/simulators/test_determinism.py",
        "tests/simulators/test_tours.py",
        "tests/simulators/test_measured_costs.py",
        "tests/simulators/test_pinned_digests.py",
        "tests/server/test_gil_holds.py",
        "tests/server/test_benchmark_modules.py",
        "-k",
        SLUG,
    )
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    summary = result.stdout.strip().splitlines()[-1]
    # the guard (every part, words, actions, example, page, embed, oEmbed), the
    # catalogue's places, the determinism replay, the tour's three checks, its
    # measured costs, its pinned digests, the GIL probe's three checks, its benchmark
    # module and the rows every lab has
    passed = int(summary.split(" passed")[0].split()[-1])
    assert passed >= 18, summary
    for test in (
        "test_measured_work_within_declared_scratchpad",
        "test_the_digests_are_as_pinned[scratchpad]",
        "test_each_heavy_action_has_a_case_where_it_is_heavy[scratchpad]",
        "test_a_labs_own_module_gives_its_rows_with_the_one_signature[scratchpad]",
    ):
        assert any(
            line.startswith("PASSED") and line.endswith(test)
            for line in result.stdout.splitlines()
        ), test


def test_the_benchmark_table_finds_the_scratch_labs_own_rows(root):
    """`python -m benchmarks` takes the lab's module by its slug: its rows, and the
    rows every lab has (its replay costs and GIL cases from its manifest)."""
    result = python_in(
        root,
        "-c",
        "from benchmarks.__main__ import lab_modules; "
        "from benchmarks import gil_holds, replay_costs; "
        "print(list(lab_modules())); "
        f"print(lab_modules()[{SLUG!r}].rows(1, 10)); "
        f"print([c[1] for c in replay_costs.cases() if c[0] == {SLUG!r}]); "
        f"print([c[1] for c in gil_holds.CASES if c[0] == {SLUG!r}])",
    )
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    modules, rows, costs, holds = result.stdout.strip().splitlines()[-4:]
    assert SLUG in modules and "hash-placement" in modules
    assert "scratchpad: a thousand additions" in rows
    assert costs == "['add one']"
    assert holds == "['add three, twice']"


def test_the_browser_sweeps_visit_the_scratch_lab(root):
    result = pytest_in(
        root,
        "--collect-only",
        "-q",
        "tests/browser/test_lab_sweep.py",
        "tests/browser/test_tour_in_browser.py",
        "tests/browser/test_content_security_policy.py",
        "-k",
        SLUG,
    )
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    ids = [line for line in result.stdout.splitlines() if "::" in line]
    for test in (
        "test_a_lab_page_passes_every_check",
        "test_an_embed_passes_every_check",
        "test_an_embed_without_controls_is_all_stage_in_the_short_frame",
        "test_the_tour_runs_to_its_end_by_the_visitors_own_clicks",
        "test_the_tour_runs_to_its_end_by_show_me_alone",
    ):
        assert any(test in line and SLUG in line for line in ids), test
    # one visit per (lab page or embed, language, size): 3 × 2 each
    assert sum("test_a_lab_page_passes_every_check" in line for line in ids) == 6


def test_without_the_root_the_scratch_lab_is_nowhere():
    """The scratch lab lives only in its root: this process has never seen it."""
    from simulators.labs import REGISTRY

    assert SLUG not in REGISTRY.manifests


def test_a_lab_missing_a_part_is_stopped_by_the_guard(tmp_path):
    """The same lab without its renderer, its narrative and its Thai words: the guard
    names each missing part."""
    write_the_lab(tmp_path)
    (tmp_path / "static/js/labs/scratchpad.js").unlink()
    (tmp_path / "templates/labs/narratives/scratchpad.html").unlink()
    (tmp_path / "locale/th/LC_MESSAGES/django.po").unlink()
    result = pytest_in(tmp_path, "-q", "tests/server/test_lab_manifests.py", "-k", SLUG)
    assert result.returncode == 1, result.stdout[-4000:]
    out = result.stdout
    assert "static/js/labs/scratchpad.js is missing" in out
    assert "the narrative templates/labs/narratives/scratchpad.html is missing" in out
    assert "'A scratch counter' in th" in out
