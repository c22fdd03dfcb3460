"""The engine's boundary with the labs: what a lab gets by default, and nothing of the
engine's reached around (docs/architecture.md, "A lab")."""

import ast
import functools
from pathlib import Path

import pytest

import simulators
from simulators.engine import Lab, digest_of
from simulators.labs import LABS


class Counter(Lab):
    """A lab whose snapshot says nothing of the one number it shows."""

    slug = "counter"

    def __init__(self, seed: int = 0, **options) -> None:
        super().__init__(seed, **options)
        self.count = 0

    def snapshot(self) -> dict:
        return {"shape": "square"}

    def metrics(self) -> dict:
        return {"count": self.count}


def test_the_digest_covers_the_snapshot_and_the_metrics_by_default():
    lab = Counter()
    assert lab.state() == {"snapshot": {"shape": "square"}, "metrics": {"count": 0}}
    before = lab.digest()
    lab.count = 1
    assert lab.digest() != before
    assert lab.digest() == digest_of(lab.state())


def test_every_lab_digest_covers_its_metrics():
    """A lab that overrides `state` keeps the snapshot and the metrics in it."""
    for slug, lab_class in LABS.items():
        lab = lab_class(seed=3)
        state = lab.state()
        assert state["snapshot"] == lab.snapshot(), slug
        assert state["metrics"] == lab.metrics(), slug


# -- no lab reaches into the engine --------------------------------------------------

SIMULATORS = Path(simulators.__file__).parent
# a named tuple's public API has a leading underscore (so as not to clash with fields)
NAMEDTUPLE_API = {"_replace", "_asdict", "_fields", "_make", "_field_defaults"}


def private(name: str) -> bool:
    return name.startswith("_") and not name.endswith("__")


def defined_private_names(files: list[Path]) -> set[str]:
    """Every private name the files define: functions and methods, classes,
    assignments (`_x = ...`, `self._x = ...`), slots and keyword defaults."""
    names: set[str] = set()
    for path in files:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                names.add(node.name)
            elif isinstance(node, ast.Name | ast.arg) and isinstance(
                getattr(node, "ctx", ast.Store()), ast.Store
            ):
                names.add(node.id if isinstance(node, ast.Name) else node.arg)
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                names.add(node.attr)
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                names.add(node.value)  # __slots__ entries, setattr names
    return {name for name in names if private(name)}


def reaching_in(package: Path, engine: set[str]) -> list[str]:
    """Where the modules of a lab use a private name that is not the lab's own.

    `x._name` on anything but `self`/`cls` must name something the lab defines and
    the engine does not; `self._name`/`cls._name` must not be one the engine defines
    that the lab does not (an engine base class's inside); nothing private is
    imported from the engine.
    """
    files = sorted(package.rglob("*.py"))
    own = defined_private_names(files)
    found = []
    for path in files:
        where = path.relative_to(SIMULATORS.parent).as_posix()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(
                "simulators.engine"
            ):
                found += [
                    f"{where}:{node.lineno} imports {alias.name} from {node.module}"
                    for alias in node.names
                    if private(alias.name)
                ]
            if not isinstance(node, ast.Attribute) or not private(node.attr):
                continue
            name = node.attr
            on_self = isinstance(node.value, ast.Name) and node.value.id in (
                "self",
                "cls",
            )
            if on_self:
                wrong = name in engine and name not in own
            else:
                wrong = name not in NAMEDTUPLE_API and (
                    name in engine or name not in own
                )
            if wrong:
                found.append(f"{where}:{node.lineno} uses {ast.unparse(node)}")
    return found


@functools.cache
def engine_private_names() -> set[str]:
    return defined_private_names(sorted((SIMULATORS / "engine").rglob("*.py")))


@pytest.mark.parametrize(
    "lab", sorted(p.name for p in (SIMULATORS / "labs").iterdir() if p.is_dir())
)
def test_no_lab_uses_a_private_name_of_the_engine(lab):
    package = SIMULATORS / "labs" / lab
    if not (package / "__init__.py").exists():
        pytest.skip("not a package")
    assert reaching_in(package, engine_private_names()) == []


def test_the_check_finds_a_lab_reaching_into_the_engine(tmp_path):
    lab = tmp_path / "reaching"
    lab.mkdir()
    (lab / "__init__.py").write_text("")
    (lab / "cluster.py").write_text(
        "from simulators.engine.network import _topology\n"
        "from simulators.engine.clocked import ClockedLab\n"
        "class Cluster(ClockedLab):\n"
        "    def _mine(self):\n"
        "        self._own = 1\n"
        "        heap = self.network.queue._heap\n"
        "        other._mine()\n"
        "        record._replace(lsn=1)\n"
        "        stranger._secret\n"
        "        return self.queue._seq, self._own, self._mine\n"
    )
    engine = engine_private_names() | {"_mine_engine"}
    found = [line.split(" ", 1)[1] for line in reaching_in_at(lab, engine)]
    assert found == [
        "imports _topology from simulators.engine.network",
        "uses self.network.queue._heap",
        "uses stranger._secret",
        "uses self.queue._seq",
    ]


def reaching_in_at(package: Path, engine: set[str]) -> list[str]:
    """`reaching_in` for a package outside the source tree (paths left as they are)."""
    global SIMULATORS
    kept, SIMULATORS = SIMULATORS, package.parent.parent
    try:
        return reaching_in(package, engine)
    finally:
        SIMULATORS = kept


# -- what the web layer reads from the declaration --------------------------------


def test_the_clock_and_the_settings_are_declared_not_named():
    """The room clock's tick is the one "clock" action; it and the playback settings
    start no moment of the timeline; everything else does (a `step` too)."""
    for slug, lab_class in LABS.items():
        names = [spec.name for spec in lab_class.actions]
        quiet = [name for name in names if not lab_class.starts_moment(name)]
        if getattr(lab_class, "clocked", False):
            assert lab_class.actions_in("clock") == ("advance",), slug
            assert sorted(quiet) == ["advance", "pause", "play", "set_speed"], slug
            assert "step" in lab_class.actions_in("timeline"), slug
        else:
            assert lab_class.actions_in("clock") == (), slug
            assert quiet == [], slug
        assert lab_class.starts_moment("seek"), slug  # the room's own: a moment
