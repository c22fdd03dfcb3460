"""The JavaScript checkers stay pinned, complete and wired into `make test`.

`make jscheck` runs ESLint and TypeScript; these tests keep what it runs honest: exact
versions that the lock really holds, every module checked, vendored d3 left alone, and
the Makefile running both before pytest.
"""

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHECKERS = ["@eslint/js", "eslint", "globals", "typescript"]
EXACT = re.compile(r"\d+\.\d+\.\d+")


def read_json(name):
    return json.loads((ROOT / name).read_text(encoding="utf-8"))


def read_jsonc(name):
    """tsconfig.json allows // comments (ours has no "//" inside strings)."""
    text = (ROOT / name).read_text(encoding="utf-8")
    return json.loads(re.sub(r"^\s*//.*$", "", text, flags=re.MULTILINE))


def make_rule(target):
    """The prerequisites and recipe lines of `target` in the Makefile."""
    lines = (ROOT / "Makefile").read_text(encoding="utf-8").splitlines()
    for index, line in enumerate(lines):
        if line.startswith(f"{target}:"):
            recipe = []
            for step in lines[index + 1 :]:
                if not step.startswith("\t"):
                    break
                recipe.append(step.strip())
            return line.split(":", 1)[1].split(), recipe
    raise AssertionError(f"no rule for {target} in the Makefile")


def test_package_json_pins_every_checker_to_one_exact_version():
    package = read_json("package.json")
    assert package["private"] is True
    assert "dependencies" not in package  # checkers only: nothing is built or shipped
    pins = package["devDependencies"]
    assert set(CHECKERS) <= set(pins)
    loose = {name: v for name, v in pins.items() if not EXACT.fullmatch(v)}
    assert loose == {}, f"not exact versions (no ^, ~ or ranges): {loose}"


def test_the_lock_holds_exactly_the_pinned_versions():
    pins = read_json("package.json")["devDependencies"]
    lock = read_json("package-lock.json")
    assert lock["lockfileVersion"] >= 2
    assert lock["packages"][""]["devDependencies"] == pins
    packages = lock["packages"]
    locked = {name: packages[f"node_modules/{name}"]["version"] for name in pins}
    assert locked == pins


def test_typescript_checks_every_browser_module_strictly_and_emits_nothing():
    options = read_jsonc("tsconfig.json")
    compiler = options["compilerOptions"]
    assert compiler["checkJs"] is True
    assert compiler["allowJs"] is True
    assert compiler["noEmit"] is True
    assert compiler["strict"] is True
    # every module, the labs' included: an untyped parameter is an error, not `any`
    assert compiler["noImplicitAny"] is True
    assert "static/js/**/*.js" in options["include"]
    assert compiler["paths"]["d3"]  # `import d3 from "d3"` is typed, not `any`


def test_eslint_checks_static_js_and_leaves_the_vendored_d3_alone():
    config = (ROOT / "eslint.config.js").read_text(encoding="utf-8")
    ignores = re.search(r"ignores:\s*\[([^\]]*)\]", config)
    assert ignores and '"static/vendor/**"' in ignores.group(1)
    assert "js.configs.recommended" in config
    assert '"static/js/**/*.js"' in config


@pytest.mark.parametrize("target", ["test", "lint"])
def test_make_runs_the_javascript_checks(target):
    prerequisites, recipe = make_rule(target)
    if "setup" in prerequisites:  # `make test` sets up first, jscheck among the rest
        _, setup = make_rule("setup")
        assert any("jscheck" in line.split() for line in setup), setup
    else:
        assert "jscheck" in prerequisites
    if target == "test":
        # the checks come before the (long) pytest run, so a type error fails fast:
        # pytest runs in the recipe, or in .ci/suite, which the recipe runs
        steps = "\n".join(recipe)
        if ".ci/suite" in steps:
            steps += (ROOT / ".ci" / "suite").read_text()
        assert "pytest" in steps


def test_jscheck_installs_from_the_lock_and_runs_both_checkers():
    prerequisites, recipe = make_rule("jscheck")
    stamp = prerequisites[0]
    stamp_prerequisites, install = make_rule(stamp)
    assert {"package.json", "package-lock.json"} <= set(stamp_prerequisites)
    assert any(step.startswith("npm ci") for step in install)
    assert any("eslint static/js" in step for step in recipe)
    assert any("tsc -p tsconfig.json" in step for step in recipe)


def test_every_lab_renderer_is_typed_against_the_renderer_interface():
    renderers = sorted((ROOT / "static/js/labs").glob("*.js"))
    assert renderers, "no renderer modules found"
    untyped = [
        path.name
        for path in renderers
        if not re.search(
            r"@returns \{Renderer\}\s*\*/\s*export function createRenderer\(",
            path.read_text(encoding="utf-8"),
        )
    ]
    assert untyped == [], "createRenderer without `@returns {Renderer}` (types.js)"


# ---- noImplicitAny everywhere --------------------------------------------------------


@pytest.mark.skipif(
    not (ROOT / "node_modules/typescript").is_dir(), reason="make jscheck installs it"
)
def test_tsc_fails_on_an_implicit_any_in_any_module(tmp_path):
    """A parameter without a type fails `make jscheck`: a new lab's modules are typed
    from their first line, as every module of static/js is."""
    import shutil
    import subprocess

    node = shutil.which("node")
    if node is None:
        pytest.skip("no Node.js")
    scratch = tmp_path / "scratch.js"
    scratch.write_text("export function f(x) {\n  return x;\n}\n", encoding="utf-8")
    config = tmp_path / "tsconfig.json"
    config.write_text(
        json.dumps({"extends": str(ROOT / "tsconfig.json"), "include": ["scratch.js"]}),
        encoding="utf-8",
    )
    run = subprocess.run(
        [node, str(ROOT / "node_modules/typescript/bin/tsc"), "-p", str(config)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode != 0, run.stdout + run.stderr
    assert "TS7006" in run.stdout and scratch.name in run.stdout
