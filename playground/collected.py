"""Whether the static files servestatic serves are the ones in the source folders.

Without DEBUG, servestatic serves STATIC_ROOT, where `manage.py collectstatic` copies
the source folders (STATICFILES_DIRS) with a gzipped copy beside each file. A server
started without that step would send pages without their styles and modules, and one
started after an edit but before collecting again would send the old files. Either
stops the server from starting (playground/asgi.py), with the command that fixes it.
(Not a system check: collectstatic and migrate run those, before anything is collected.)
"""

from pathlib import Path

from django.conf import settings
from django.contrib.staticfiles import finders
from django.core.exceptions import ImproperlyConfigured

FIX = "Run `python manage.py collectstatic --noinput` (make run does), or set DEBUG."


def stale_files() -> list[str]:
    """Static files (paths under STATIC_URL) missing from STATIC_ROOT or older there
    than in the source folders; none with DEBUG, which serves the sources."""
    if settings.DEBUG:
        return []
    root = Path(settings.STATIC_ROOT)
    stale = []
    for finder in finders.get_finders():
        for path, storage in finder.list(ignore_patterns=None):
            collected = root / path
            source = Path(storage.path(path))
            if (
                not collected.is_file()
                or collected.stat().st_mtime < source.stat().st_mtime
            ):
                stale.append(path)
    return sorted(stale)


def describe(stale: list[str]) -> str:
    """One sentence about what is stale, naming a few files."""
    named = ", ".join(stale[:3]) + (
        f" and {len(stale) - 3} more" if len(stale) > 3 else ""
    )
    root = settings.STATIC_ROOT
    return f"The static files in {root} are missing or out of date: {named}."


def require_collected() -> None:
    """Raise ImproperlyConfigured (the server does not start) if files are stale."""
    if stale := stale_files():
        raise ImproperlyConfigured(f"{describe(stale)} {FIX}")
