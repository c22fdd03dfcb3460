"""Every lab's manifest is whole (issue 30): a built lab missing any part fails here.

The registry (simulators/labs/__init__.py) is the only list of labs; everything else
reads it. So a lab must not be able to enter it half made: its renderer module, its
narrative, its tour, its title and promise in every language, its example script, the
actions the sweeps press, its cost plan and its heavy cases are checked here, for every
lab the registry finds.
"""

import inspect
import random
import re
from pathlib import Path

import pytest
from babel.messages.pofile import read_po
from django.conf import settings
from django.contrib.staticfiles import finders
from django.template import TemplateDoesNotExist
from django.template.loader import get_template

from playground.catalogue import CHAPTER_TITLES
from playground.catalogues import LOCALE
from simulators.engine.declaration import ActionError
from simulators.labs import LABS, REGISTRY, ComingLab, LabManifest, RegistryError

LANGUAGES = ("zh_Hans", "th")
BUILT = [m.slug for m in REGISTRY.built]
EVERY = list(REGISTRY.manifests)


def translations(folder: str) -> dict[str, str]:
    """msgid: msgstr of the Python side's catalogues (this repository's, and those of
    any other root of labs), fuzzy and empty ones left out."""
    found = {}
    for root in [LOCALE, *settings.LOCALE_PATHS]:
        path = Path(root) / folder / "LC_MESSAGES" / "django.po"
        if not path.exists():
            continue
        with path.open("rb") as source:
            catalogue = read_po(source, locale=folder)
        found.update(
            (m.id, m.string)
            for m in catalogue
            if m.id and isinstance(m.id, str) and m.string and not m.fuzzy
        )
    return found


@pytest.fixture(scope="module")
def translated():
    return {folder: translations(folder) for folder in LANGUAGES}


def test_the_registry_finds_the_built_labs_and_the_coming_ones():
    assert BUILT and REGISTRY.coming
    assert list(LABS) == BUILT
    assert all(isinstance(m, LabManifest) for m in REGISTRY.built)
    assert all(isinstance(m, ComingLab) for m in REGISTRY.coming)


@pytest.mark.parametrize("slug", EVERY)
def test_every_lab_has_a_chapter_a_place_and_its_words_in_every_language(
    slug, translated
):
    manifest = REGISTRY[slug]
    assert manifest.chapter in CHAPTER_TITLES, "a chapter the catalogue names"
    places = [(m.chapter, m.order) for m in REGISTRY.manifests.values()]
    assert places.count((manifest.chapter, manifest.order)) == 1, "a place of its own"
    for folder in LANGUAGES:
        for text in (manifest.title, manifest.promise):
            assert translated[folder].get(text), f"{slug}: {text!r} in {folder}"


@pytest.mark.parametrize("slug", BUILT)
def test_a_built_lab_has_every_part(slug):
    """Its manifest beside it, its renderer module, its narrative, its tour, a frame
    that can hold it; every part missing is named."""
    manifest = REGISTRY[slug]
    lab = manifest.lab
    missing = []
    if lab.slug != slug:
        missing.append(f"the lab's slug is {lab.slug!r}")
    if not (Path(inspect.getfile(lab)).parent / "manifest.py").is_file():
        missing.append("the manifest beside the lab")
    if manifest.renderer != f"js/labs/{slug}.js":
        missing.append(f"the renderer at js/labs/{slug}.js, not {manifest.renderer}")
    if not finders.find(manifest.renderer):
        missing.append(f"static/{manifest.renderer} is missing")
    try:
        get_template(manifest.narrative)
    except TemplateDoesNotExist:
        missing.append(f"the narrative templates/{manifest.narrative} is missing")
    if manifest.stylesheet != f"css/labs/{slug}.css":
        missing.append(f"the stylesheet at css/labs/{slug}.css")
    elif not finders.find(manifest.stylesheet):
        missing.append(f"static/{manifest.stylesheet} is missing")
    if not manifest.tour:
        missing.append("a tour")
    if not (240 <= manifest.embed_width <= 4000 and manifest.embed_height >= 200):
        missing.append("an embed frame of at least 240 × 200")
    if manifest.cost_plan is None:
        missing.append("a cost_plan (tests/simulators/test_measured_costs.py)")
    if not manifest.heavy_cases:
        missing.append("heavy_cases (benchmarks/gil_holds.py)")
    assert not missing, f"{slug}: " + "; ".join(missing)


@pytest.mark.parametrize("slug", BUILT)
def test_the_actions_a_manifest_names_are_the_labs(slug):
    manifest = REGISTRY[slug]
    declared = {spec.name: spec for spec in manifest.lab.actions}
    assert manifest.primary in declared
    assert declared[manifest.primary].primary, "the primary action is a quick one"
    assert manifest.sweep and set(manifest.sweep) <= set(declared)
    assert len(manifest.example) >= 3
    for name, args in manifest.example:
        assert name in declared and isinstance(args, dict)
    for _what, before, timed in (*manifest.cost_cases, *manifest.heavy_cases):
        assert {name for name, _ in [*before, *timed]} <= set(declared)
    assert set(manifest.never_heavy) <= set(declared)
    plan = manifest.cost_plan
    if plan is not None:
        for steps in plan.heaviest:
            assert steps and {name for name, _ in steps} <= set(declared)
        texts = {
            key
            for spec in declared.values()
            for param in spec.params
            if param.kind == "text"
            for key in (param.name, f"{spec.name}.{param.name}")
        }
        assert set(plan.samples) <= texts, "samples name the lab's text parameters"
        assert all(plan.samples.values()), "a text parameter's samples"


@pytest.mark.parametrize("slug", BUILT)
def test_the_example_script_runs_and_the_random_stream_mostly_does(slug):
    """The example is accepted action by action; the seek benchmark's stream draws
    declared actions, most of them accepted (a refused one is skipped there)."""
    manifest = REGISTRY[slug]
    lab = manifest.lab(seed=5)
    for name, args in manifest.example:
        lab.apply(name, args)
    rng = random.Random(11)
    lab = manifest.lab(seed=11)
    accepted = 0
    for _ in range(60):
        name, args = manifest.random_action(rng)
        try:
            lab.apply(name, args)
        except ActionError:
            continue
        accepted += 1
    assert accepted >= 30, accepted


def test_a_lab_folder_without_a_manifest_is_refused(tmp_path, monkeypatch):
    """A folder in simulators/labs/ is a lab: without its manifest the registry says
    so, instead of leaving the lab out of every sweep."""
    import simulators.labs as labs

    (tmp_path / "half_made").mkdir()
    (tmp_path / "half_made" / "__init__.py").write_text("")
    monkeypatch.setattr(labs, "__path__", [*labs.__path__, str(tmp_path)])
    with pytest.raises(RegistryError, match="half_made/ has no manifest.py"):
        labs.Registry()
    assert list(LABS) == BUILT  # the registry in use is untouched


@pytest.mark.django_db
@pytest.mark.parametrize("slug", BUILT)
def test_a_built_lab_is_in_the_catalogue_with_its_page_embed_and_oembed(client, slug):
    """What the manifest says reaches the site, with no other list to edit."""
    manifest = REGISTRY[slug]
    catalogue = client.get("/").content.decode()
    assert f'href="/labs/{slug}/"' in catalogue
    page = client.get(f"/labs/{slug}/")
    assert page.status_code == 200
    html = page.content.decode()
    assert f'data-ws-path="/ws/labs/{slug}/"' in html
    assert re.search(rf'data-renderer="[^"]*/{re.escape(manifest.renderer)}"', html)
    assert f'data-embed-height="{manifest.embed_height}"' in html
    embed = client.get(f"/embed/{slug}/")
    assert embed.status_code == 200
    answer = client.get("/oembed", {"url": f"http://testserver/labs/{slug}/"}).json()
    assert (answer["width"], answer["height"]) == (
        manifest.embed_width,
        manifest.embed_height,
    )
