"""The server refuses to start on static files that collectstatic has not copied, or
copied before the sources last changed (playground/collected.py)."""

import os

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.core.management import call_command

from playground.collected import require_collected, stale_files


@pytest.fixture
def sources(settings, tmp_path):
    """A source folder of two files, and an empty STATIC_ROOT."""
    source = tmp_path / "static"
    (source / "js").mkdir(parents=True)
    (source / "js" / "a.js").write_text("export const a = 1;\n")
    (source / "app.css").write_text("body { margin: 0 }\n")
    settings.STATICFILES_DIRS = [source]
    settings.STATIC_ROOT = tmp_path / "collected"
    settings.DEBUG = False
    return source


def test_nothing_collected_stops_the_server_with_the_command_that_fixes_it(sources):
    assert stale_files() == ["app.css", "js/a.js"]
    with pytest.raises(ImproperlyConfigured, match="collectstatic --noinput"):
        require_collected()


def test_collected_files_pass_and_an_edit_since_does_not(sources):
    call_command("collectstatic", interactive=False, verbosity=0)
    assert stale_files() == []
    require_collected()
    edited = sources / "js" / "a.js"
    later = edited.stat().st_mtime + 5
    os.utime(edited, (later, later))
    assert stale_files() == ["js/a.js"]
    with pytest.raises(ImproperlyConfigured, match="js/a.js"):
        require_collected()


def test_with_debug_the_sources_are_served_so_nothing_is_stale(sources, settings):
    settings.DEBUG = True
    assert stale_files() == []
    require_collected()
