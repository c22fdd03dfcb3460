"""The SECRET_KEY: from the environment, or made once and kept in the var directory.

A key made on first start and kept in a file stays the same across restarts (so what
it signs stays valid) without anyone having to choose one. Several processes started at
once on the same var directory must agree on it: the file is written whole under a
temporary name and then linked into place, which fails for all but the first process;
the others read the winner's key.
"""

import os
import secrets
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured
from django.core.management.utils import get_random_secret_key

# Django's deploy check (security.W009) calls a shorter key weak.
MIN_SECRET_KEY_CHARS = 50


def secret_key(from_environment: str | None, path: Path) -> str:
    """The key from the environment if set, else the one kept at `path` (made once)."""
    if from_environment is not None:
        return _checked(from_environment, "the SECRET_KEY environment variable")
    if not path.exists():
        _create(path)
    return _checked(path.read_text().strip(), str(path))


def _checked(key: str, source: str) -> str:
    if len(key) < MIN_SECRET_KEY_CHARS:
        raise ImproperlyConfigured(
            f"The secret key in {source} is shorter than {MIN_SECRET_KEY_CHARS} "
            "characters: set a longer one, or unset SECRET_KEY (and delete a damaged "
            "key file) to have one made."
        )
    return key


def _create(path: Path) -> None:
    """Write a new key to `path` unless another process got there first."""
    draft = path.with_name(f".{path.name}.{secrets.token_hex(8)}")
    descriptor = os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(descriptor, "w") as file:
            file.write(get_random_secret_key() + "\n")
            file.flush()
            os.fsync(file.fileno())
        os.link(draft, path)  # fails if the file exists: the first key stays
    except FileExistsError:
        pass
    finally:
        draft.unlink(missing_ok=True)
