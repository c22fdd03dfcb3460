""".ci/suite, which `make test` runs: .venv's browser tests, then its ALONE tests with
the rest of .venv's suite and the other Pythons' suites beside them at a lower
priority; every part runs whatever another did, their output is all printed, and the
suite fails when any part failed.

Run here in a copy of the script beside stand-ins for `.venv/bin/python` and
`.ci/other-pythons` that record how they were called and exit as told.
"""

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

PYTHON = """#!/usr/bin/env bash
# a stand-in for .venv/bin/python -m pytest: records its arguments and its niceness
echo "python $* nice=$(nice)" >>"$(dirname "$0")/../../calls"
case "$*" in
  *"--ignore=tests/browser"*) exit "${REST_EXIT:-0}" ;;
  *"not ("*) exit "${FIRST_EXIT:-0}" ;;
  *) exit "${SECOND_EXIT:-0}" ;;
esac
"""

OTHERS = """#!/usr/bin/env bash
echo "others $* nice=$(nice)" >>"$(dirname "$0")/../calls"
echo "OTHER PYTHONS' OUTPUT"
exit "${OTHERS_EXIT:-0}"
"""


@pytest.fixture
def suite(tmp_path):
    (tmp_path / ".ci").mkdir()
    shutil.copy(ROOT / ".ci" / "suite", tmp_path / ".ci" / "suite")
    (tmp_path / ".ci" / "other-pythons").write_text(OTHERS)
    (tmp_path / ".venv" / "bin").mkdir(parents=True)
    (tmp_path / ".venv" / "bin" / "python").write_text(PYTHON)
    os.chmod(tmp_path / ".venv" / "bin" / "python", 0o755)

    def run(**exits: str) -> tuple[int, str, list[str]]:
        env = {
            **os.environ,
            "TEST_WORKERS": "2",
            "ALONE": "attack or multiprocess",
            **exits,
        }
        done = subprocess.run(
            ["bash", str(tmp_path / ".ci" / "suite")],
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        calls = (tmp_path / "calls").read_text().splitlines()
        (tmp_path / "calls").unlink()
        return done.returncode, done.stdout, calls

    return run


def test_both_stages_run_and_the_rest_beside_the_second_niced(suite):
    # relative to this process's own niceness: make test runs this file niced itself
    base = os.nice(0)
    full, lowered = f"nice={base}", f"nice={min(base + 10, 19)}"
    status, out, calls = suite()
    assert status == 0, out
    first = next(c for c in calls if "tests/browser" in c and "--ignore" not in c)
    second = next(c for c in calls if c.startswith("python") and "not (" not in c)
    rest = next(c for c in calls if "--ignore=tests/browser" in c)
    others = next(c for c in calls if c.startswith("others"))
    assert "-n 2 --dist loadfile" in first and first.endswith(full)
    assert "not (attack or multiprocess)" in first
    assert "-m attack or multiprocess" in second and second.endswith(full)
    assert "not (attack or multiprocess)" in rest and rest.endswith(lowered)
    assert "--ignore=tests/browser tests " in rest  # every other folder of tests
    assert others.startswith("others test") and others.endswith(lowered)
    # beside the second stage, not the first (which keeps both cores busy); .venv's
    # own suite first, then the other Pythons'
    assert calls.index(first) < calls.index(rest) < calls.index(others)
    assert "OTHER PYTHONS' OUTPUT" in out
    assert "stage one" in out and "stage two" in out and "beside stage two" in out


@pytest.mark.parametrize(
    "failing", ["FIRST_EXIT", "SECOND_EXIT", "REST_EXIT", "OTHERS_EXIT"]
)
def test_any_part_failing_fails_the_suite_after_every_part_ran(suite, failing):
    status, out, calls = suite(**{failing: "1"})
    assert status != 0
    assert len(calls) == 4, calls  # nothing was skipped for the failure
    assert "OTHER PYTHONS' OUTPUT" in out
