"""Each page's `<link rel="modulepreload">` list: its whole ES module graph.

Read from the static files (through Django's staticfiles finders, so it works with
`make run`, the tests and a collected STATIC_ROOT alike) once per process: `warm()` at
start-up (playground/asgi.py) walks every page's graph, so a module that imports a
missing file stops the server from starting, and the system check `playground.E001`
says the same to `manage.py check` and `migrate`. URLs are the ones `{% static %}`
gives, resolved as the browser resolves them (docs/frontend.md, "Module loading").

`PLAYGROUND_MODULEPRELOAD = False` (environment `PLAYGROUND_MODULEPRELOAD=0`) lists only
the page's own script, as before the graph was listed: the benchmark's peer
(benchmarks/first_drawing.py).
"""

import json
from functools import cache
from pathlib import Path

from django.conf import settings
from django.contrib.staticfiles import finders
from django.contrib.staticfiles.storage import staticfiles_storage
from django.core import checks
from django.core.signals import setting_changed
from django.dispatch import receiver
from django.templatetags.static import static

from playground.jsimports import IMPORT_MAP, ModuleGraph, ModuleGraphError

# The module each kind of page loads with <script type="module">.
LAB_PAGE_SCRIPT = "js/lab-page.js"
EMBED_SCRIPT = "js/embed.js"


def read_static(path: str) -> str:
    """The text of a static file, found as whitenoise and collectstatic find it."""
    found = finders.find(path)
    if found:
        return Path(found).read_text(encoding="utf-8")
    if staticfiles_storage.exists(path):
        with staticfiles_storage.open(path) as file:
            return file.read().decode("utf-8")
    raise FileNotFoundError(path)


@cache
def site_graph() -> ModuleGraph:
    """The module graph of this site's static files (each module read once)."""
    storage = staticfiles_storage
    rewritten = getattr(storage, "support_js_module_import_aggregation", False)
    return ModuleGraph(read_static, static, IMPORT_MAP, imports_rewritten=rewritten)


@cache
def graph_urls(entries: tuple[str, ...]) -> tuple[str, ...]:
    """The URL of every module the entries load, breadth first from the entries."""
    return tuple(module.url for module in site_graph().closure(entries))


def module_preloads(*entries: str) -> list[str]:
    """What a page whose modules are `entries` lists as modulepreload links."""
    if not settings.PLAYGROUND_MODULEPRELOAD:
        return [static(entries[0])]
    return list(graph_urls(entries))


def page_entries() -> list[tuple[str, ...]]:
    """The entry modules of every page that runs modules: each lab and its embed."""
    from simulators.labs import REGISTRY

    return [
        (script, manifest.renderer)
        for manifest in REGISTRY.built
        for script in (LAB_PAGE_SCRIPT, EMBED_SCRIPT)
    ]


def warm() -> None:
    """Walk every page's graph now; ModuleGraphError if a module cannot be found."""
    if settings.PLAYGROUND_MODULEPRELOAD:
        for entries in page_entries():
            graph_urls(entries)


def import_map_json() -> str:
    """The pages' import map as JSON that is safe inside a <script> element."""
    imports = {name: static(path) for name, path in IMPORT_MAP.items()}
    text = json.dumps({"imports": imports})
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


@checks.register(checks.Tags.staticfiles)
def check_module_graphs(app_configs=None, **kwargs) -> list[checks.CheckMessage]:
    """A system check: every page's modules, and all they import, can be found."""
    broken: dict[str, None] = {}  # each error once, in order
    for entries in page_entries():
        try:
            site_graph().closure(entries)
        except ModuleGraphError as error:
            broken[str(error)] = None
    return [
        checks.Error(
            f"A page's ES modules cannot all be loaded: {error}",
            hint="Fix the import, or add the missing file under static/.",
            id="playground.E001",
        )
        for error in broken
    ]


@receiver(setting_changed)
def _forget_graphs(setting: str, **kwargs) -> None:
    """Tests that change where static files are, or their URLs, get fresh graphs."""
    if setting in {"STATIC_URL", "STATICFILES_DIRS", "STORAGES", "STATIC_ROOT"}:
        site_graph.cache_clear()
        graph_urls.cache_clear()
