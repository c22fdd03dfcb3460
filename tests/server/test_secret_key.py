"""The secret key and DEBUG: as in production unless the environment says otherwise."""

import json
import os
import stat
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.core.exceptions import ImproperlyConfigured

from playground.liveserver import ROOT
from playground.secret_key import MIN_SECRET_KEY_CHARS, secret_key

pytestmark = pytest.mark.django_db(databases=[])

ENV_KEY = "k" * 20 + "from-the-environment-" + "0123456789" * 2


def settings_of(var_dir, **env: str) -> dict:
    """DEBUG and SECRET_KEY as a fresh process on `var_dir` reads them."""
    environment = {**os.environ, "PLAYGROUND_VAR_DIR": str(var_dir), **env}
    for name in ("DEBUG", "SECRET_KEY"):
        if name not in env:
            environment.pop(name, None)
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "import json; from django.conf import settings as s; "
            "print(json.dumps([s.DEBUG, s.SECRET_KEY]))",
        ],
        cwd=ROOT,
        env={**environment, "DJANGO_SETTINGS_MODULE": "playground.settings"},
        capture_output=True,
        text=True,
        check=True,
    )
    debug, key = json.loads(done.stdout)
    return {"DEBUG": debug, "SECRET_KEY": key}


def test_a_fresh_var_dir_gets_a_key_file_that_the_next_start_reuses(tmp_path):
    first = settings_of(tmp_path)
    kept = tmp_path / "secret_key"
    assert kept.read_text().strip() == first["SECRET_KEY"]
    assert len(first["SECRET_KEY"]) >= MIN_SECRET_KEY_CHARS
    assert stat.S_IMODE(kept.stat().st_mode) == 0o600
    assert settings_of(tmp_path)["SECRET_KEY"] == first["SECRET_KEY"]


def test_debug_is_off_unless_the_environment_turns_it_on(tmp_path):
    assert settings_of(tmp_path)["DEBUG"] is False
    assert settings_of(tmp_path, DEBUG="true")["DEBUG"] is True


def test_a_key_in_the_environment_wins(tmp_path):
    assert secret_key(ENV_KEY, tmp_path / "secret_key") == ENV_KEY
    assert not (tmp_path / "secret_key").exists()


@pytest.mark.parametrize("key", ["", "short", "x" * (MIN_SECRET_KEY_CHARS - 1)])
def test_an_empty_or_short_key_in_the_environment_is_refused(tmp_path, key):
    with pytest.raises(ImproperlyConfigured, match="shorter than"):
        secret_key(key, tmp_path / "secret_key")


def test_processes_starting_together_agree_on_one_key(tmp_path):
    path = tmp_path / "secret_key"
    with ThreadPoolExecutor(8) as pool:
        keys = set(pool.map(lambda _: secret_key(None, path), range(32)))
    assert keys == {path.read_text().strip()}
    assert [p.name for p in tmp_path.iterdir()] == ["secret_key"]  # no drafts left


def test_a_damaged_key_file_is_refused_not_replaced(tmp_path):
    path = tmp_path / "secret_key"
    path.write_text("\n")
    with pytest.raises(ImproperlyConfigured, match="damaged"):
        secret_key(None, path)
    assert path.read_text() == "\n"
