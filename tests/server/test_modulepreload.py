"""Every page that runs modules lists its whole module graph as modulepreload links."""

import json
import re
from pathlib import Path

import pytest
from django.core.management import call_command

from playground.jsimports import ModuleGraphError
from playground.modulepreload import check_module_graphs, warm
from simulators.labs import LABS

pytestmark = pytest.mark.django_db

STATIC = Path(__file__).resolve().parents[2] / "static"
SLUGS = sorted(LABS)


def naive_graph(*entries: str) -> set[str]:
    """The URLs of the entries' graph, walked another way: `from "…"` and `import "…"`
    found by a plain regular expression once block comments are cut out (JSDoc's
    `@import … from "./types.js"` is a type, not a module), enough for this site's
    own modules."""
    seen: set[Path] = set()
    todo = [STATIC / entry for entry in entries]
    while todo:
        path = todo.pop()
        if path in seen:
            continue
        seen.add(path)
        code = re.sub(r"/\*.*?\*/", "", path.read_text(), flags=re.S)
        for specifier in re.findall(r'(?:from|import)\s*"([^"]+)"', code):
            if specifier == "d3":
                todo.append(STATIC / "vendor/d3/d3.js")
            else:
                todo.append((path.parent / specifier).resolve())
    return {f"/static/{p.relative_to(STATIC).as_posix()}" for p in seen}


def preloads(html: str) -> list[str]:
    return re.findall(r'<link rel="modulepreload" href="([^"]+)">', html)


@pytest.mark.parametrize("slug", SLUGS)
def test_a_lab_page_preloads_its_page_module_its_renderer_and_all_they_import(
    client, slug
):
    html = client.get(f"/labs/{slug}/").content.decode()
    listed = preloads(html)
    assert len(listed) == len(set(listed))
    assert set(listed) == naive_graph("js/lab-page.js", f"js/labs/{slug}.js")
    assert listed[:2] == ["/static/js/lab-page.js", f"/static/js/labs/{slug}.js"]
    assert f'data-renderer="{listed[1]}"' in html
    assert f'<script type="module" src="{listed[0]}"></script>' in html
    # history-bar.js imports moments.js; d3's shim imports the bundle
    assert "/static/js/moments.js" in listed
    assert "/static/vendor/d3/d3.min.js" in listed


@pytest.mark.parametrize("slug", SLUGS)
def test_an_embed_preloads_its_own_graph(client, slug):
    html = client.get(f"/embed/{slug}/").content.decode()
    listed = preloads(html)
    assert set(listed) == naive_graph("js/embed.js", f"js/labs/{slug}.js")
    assert "/static/js/lab-page.js" not in listed
    assert "/static/js/classroom.js" not in listed


def test_with_the_setting_off_only_the_pages_own_module_is_preloaded(client, settings):
    settings.PLAYGROUND_MODULEPRELOAD = False
    page = client.get("/labs/quorum/").content.decode()
    assert preloads(page) == ["/static/js/lab-page.js"]
    embed = client.get("/embed/quorum/").content.decode()
    assert preloads(embed) == ["/static/js/embed.js"]


@pytest.mark.parametrize("path", ["/", "/labs/quorum/", "/embed/quorum/"])
def test_the_import_map_is_the_one_the_graph_resolves_with(client, path):
    html = client.get(path).content.decode()
    found = re.search(r'<script type="importmap" nonce="[^"]+">(.*?)</script>', html)
    assert json.loads(found[1]) == {"imports": {"d3": "/static/vendor/d3/d3.js"}}


def test_every_pages_modules_are_found_at_start_up():
    assert check_module_graphs() == []
    warm()


def test_a_module_importing_a_missing_file_fails_the_start_up(settings, tmp_path):
    broken = tmp_path / "js" / "lab-page.js"
    broken.parent.mkdir()
    broken.write_text('import { gone } from "./nowhere.js";\n')
    settings.STATICFILES_DIRS = [tmp_path, STATIC]  # the first one found wins
    errors = check_module_graphs()
    assert [e.id for e in errors] == ["playground.E001"]
    assert "js/nowhere.js" in errors[0].msg
    with pytest.raises(ModuleGraphError, match="js/nowhere.js"):
        warm()


def test_with_hashed_static_names_the_preloads_are_the_urls_the_browser_imports(
    client, settings, tmp_path
):
    """A manifest storage hashes what {% static %} names (the page's module, the
    renderer, d3 in the import map); modules import each other by relative address,
    which the browser resolves to the plain names beside the hashed ones."""
    settings.STATIC_ROOT = tmp_path
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {
            "BACKEND": "django.contrib.staticfiles.storage.ManifestStaticFilesStorage"
        },
    }
    call_command("collectstatic", interactive=False, verbosity=0)
    html = client.get("/labs/quorum/").content.decode()
    listed = preloads(html)
    page, renderer = listed[:2]
    assert re.fullmatch(r"/static/js/lab-page\.[0-9a-f]{12}\.js", page)
    assert f'<script type="module" src="{page}"></script>' in html
    assert f'data-renderer="{renderer}"' in html
    assert re.fullmatch(r"/static/js/labs/quorum\.[0-9a-f]{12}\.js", renderer)
    importmap = re.search(r'<script type="importmap"[^>]*>(.*?)</script>', html)[1]
    assert json.loads(importmap)["imports"]["d3"] in listed
    assert "/static/js/i18n.js" in listed and "/static/js/moments.js" in listed
    assert "/static/vendor/d3/d3.min.js" in listed  # imported by the shim: plain
