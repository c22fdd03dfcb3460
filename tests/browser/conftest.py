"""A live daphne and a headless Chromium for the browser tests.

daphne runs as a subprocess on a free loopback port with its own SQLite file; Chromium
is Debian's (or Playwright's own where that is what `make test` installed). Playwright's
sync API keeps an event loop running, so browser tests live in their own modules and
never mix with async tests.
"""

import os

import pytest

from playground.liveserver import (
    CHROMIUM_ARGS,
    chromium_path,
    live_daphne,
    watch_errors,
)


@pytest.fixture(scope="session")
def live_server_url(tmp_path_factory):
    """The base URL of a daphne serving the playground, for the whole session."""
    with live_daphne(tmp_path_factory.mktemp("var")) as url:
        yield url


@pytest.fixture(scope="module")
def browser():
    """One headless Chromium per test module."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        path = chromium_path()
        try:
            launched = playwright.chromium.launch(
                executable_path=path, headless=True, args=CHROMIUM_ARGS
            )
        except Exception as error:
            if os.environ.get("CI") == "true":
                raise
            pytest.skip(f"no headless Chromium could be started here: {error}")
        yield launched
        launched.close()


@pytest.fixture
def page(browser):
    """A fresh page that records console errors and page errors."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    new_page = watch_errors(context.new_page())
    yield new_page
    context.close()
