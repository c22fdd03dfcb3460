"""Reading ES modules' static imports, and walking the module graph they make."""

from pathlib import Path

import pytest

from playground.jsimports import ModuleGraph, ModuleGraphError, static_imports

STATIC = Path(__file__).resolve().parents[2] / "static"


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ('import d3 from "d3";', ["d3"]),
        ("import { a, b as c } from './x.js';", ["./x.js"]),
        ('import {\n  fmt,\n  t,\n} from "../i18n.js";\n', ["../i18n.js"]),
        ('import * as all from "./all.js"', ["./all.js"]),
        ('import def, { named } from "./both.js"', ["./both.js"]),
        ('import def, * as ns from "./both.js"', ["./both.js"]),
        ('import "./side-effect.js";', ["./side-effect.js"]),
        ("import'./no-space.js'", ["./no-space.js"]),
        ('export * from "./re.js";', ["./re.js"]),
        ('export * as ns from "./ns.js";', ["./ns.js"]),
        ('export { a, b as c } from "./some.js";', ["./some.js"]),
        ('import { from } from "./f.js";', ["./f.js"]),
        ('import from from "./g.js";', ["./g.js"]),
        ('import { "a-b" as ab } from "./s.js";', ["./s.js"]),
        ('import data from "./d.json" with { type: "json" };', ["./d.json"]),
        ('import a from "./a.js"; import b from "./b.js"', ["./a.js", "./b.js"]),
    ],
)
def test_every_form_of_static_import_is_read(source, expected):
    assert static_imports(source) == expected


@pytest.mark.parametrize(
    "source",
    [
        'const m = await import("./dynamic.js");',
        "const { createRenderer } = await import(rendererUrl);",
        "const here = new URL('./x.js', import.meta.url);",
        "export const a = 1; export function b() {} export default a;",
        "const a = 1; export { a };",
        "export { a as b };",
        'const words = { import: "./key.js", export: "./key2.js" };',
        'thing.import("./method.js"); other.export * from;',
        '// import a from "./line-comment.js"',
        '/* import a from "./block.js";\n export * from "./block2.js" */',
        '/** @import { Hello, Renderer } from "./types.js" */',  # JSDoc: a type only
        "const s = \"import a from './in-a-string.js'\";",
        "const s = 'export * from \"./in-a-string.js\"';",
        'const s = "escaped \\" import \\"./x.js\\"";',
        'const tpl = `import a from "./in-a-template.js"`;',
        'const tpl = `${1} import "./after-a-placeholder.js"`;',
        'const tpl = `a ${`nested ${"import \'./deep.js\'"}`} import "./tail.js"`;',
        'const re = /import "\\.\\/in-a-regex.js"/;',
        'const re = /[/]import "./class.js"/g;',
    ],
)
def test_what_only_looks_like_an_import_is_left_alone(source):
    assert static_imports(source) == []


@pytest.mark.parametrize(
    "before",
    [
        "const q = /'/;",  # a quote in a regex does not open a string
        'const q = /"/g;',
        "const r = /`/;",  # nor a template
        "const half = a / 2; const s = 'x/y';",  # division, then a string
        "if (ok) { x = y / z } /* a / b */ const c = [1] / 2;",
        "const tpl = `${ { a: 1 }.a } and ${ '}' }`;",  # braces inside placeholders
        "return typeof /x/ === 'object';",
        "a = b\n/ c / d;",
        "// a line comment with a quote: it's\n",
        "#!/usr/bin/env node\n",
    ],
)
def test_code_before_an_import_does_not_hide_it(before):
    assert static_imports(before + '\nimport a from "./after.js";') == ["./after.js"]


def test_d3s_bundle_holds_no_import_and_is_read_to_its_end():
    """280 KB of minified code, regular expressions and all: an import put before and
    after it is found, and nothing in between."""
    bundle = (STATIC / "vendor" / "d3" / "d3.min.js").read_text()
    found = static_imports('import "./first.js";\n' + bundle + '\n;import "./last.js";')
    assert found == ["./first.js", "./last.js"]


@pytest.mark.parametrize(
    "path", sorted(p.relative_to(STATIC).as_posix() for p in STATIC.rglob("*.js"))
)
def test_every_module_of_the_site_is_read_to_its_end(path):
    source = (STATIC / path).read_text()
    found = static_imports(source + '\n;import "./sentinel.js";')
    assert found[-1:] == ["./sentinel.js"]


# -- the graph -------------------------------------------------------------------------


def graph_of(files: dict[str, str], **options) -> ModuleGraph:
    """A graph over made-up static files, served under /static/."""

    def read(path: str) -> str:
        if path not in files:
            raise FileNotFoundError(path)
        return files[path]

    url_for = options.pop("url_for", lambda path: f"/static/{path}")
    return ModuleGraph(read, url_for, {"d3": "vendor/d3/d3.js"}, **options)


def urls(modules) -> list[str]:
    return [m.url for m in modules]


def test_the_graph_resolves_relative_and_bare_specifiers_breadth_first():
    graph = graph_of(
        {
            "js/page.js": 'import "./a.js"; import { b } from "./sub/b.js";',
            "js/a.js": 'import d3 from "d3";',
            "js/sub/b.js": 'import { a } from "../a.js"; import "/static/js/c.js";',
            "js/c.js": "",
            "vendor/d3/d3.js": 'import "./d3.min.js";',
            "vendor/d3/d3.min.js": "!function(){}()",
        }
    )
    assert urls(graph.closure(["js/page.js"])) == [
        "/static/js/page.js",
        "/static/js/a.js",
        "/static/js/sub/b.js",
        "/static/vendor/d3/d3.js",
        "/static/js/c.js",
        "/static/vendor/d3/d3.min.js",
    ]


def test_a_cycle_ends_and_every_module_is_listed_once():
    graph = graph_of(
        {
            "js/a.js": 'import "./b.js";',
            "js/b.js": 'import "./c.js"; import "./a.js";',
            "js/c.js": 'import "./a.js"; import "./b.js"; import "./c.js";',
            "js/r.js": 'import "./c.js";',
        }
    )
    assert urls(graph.closure(["js/a.js", "js/r.js"])) == [
        "/static/js/a.js",
        "/static/js/r.js",
        "/static/js/b.js",
        "/static/js/c.js",
    ]


def test_a_missing_module_is_an_error_that_names_who_imports_it():
    graph = graph_of({"js/page.js": 'import "./gone.js";'})
    with pytest.raises(ModuleGraphError, match="js/gone.js"):
        graph.closure(["js/page.js"])
    with pytest.raises(ModuleGraphError, match="js/missing-entry.js"):
        graph.closure(["js/missing-entry.js"])


@pytest.mark.parametrize(
    "specifier", ["lodash", "https://cdn.example/x.js", "../../../etc/x.js"]
)
def test_a_specifier_outside_the_static_files_is_an_error(specifier):
    graph = graph_of({"js/page.js": f'import "{specifier}";'})
    with pytest.raises(ModuleGraphError, match="js/page.js"):
        graph.closure(["js/page.js"])


def hashed(path: str) -> str:
    """A manifest storage's URL of a file: its name with a hash in it."""
    stem, dot, ext = path.rpartition(".")
    return f"/static/{stem}.0123abcd{dot}{ext}"


def test_with_hashed_names_an_import_is_fetched_under_the_url_the_browser_makes():
    files = {"js/page.js": 'import "./dep.js"; import d3 from "d3";', "js/dep.js": ""}
    files["vendor/d3/d3.js"] = ""
    # modules import by relative address: from a hashed page, an unhashed name
    plain = graph_of(files, url_for=hashed)
    assert urls(plain.closure(["js/page.js"])) == [
        "/static/js/page.0123abcd.js",
        "/static/js/dep.js",
        "/static/vendor/d3/d3.0123abcd.js",  # the import map holds {% static %}
    ]
    # a storage that rewrites the imports inside modules makes them hashed too
    rewritten = graph_of(files, url_for=hashed, imports_rewritten=True)
    assert urls(rewritten.closure(["js/page.js"]))[1] == "/static/js/dep.0123abcd.js"
