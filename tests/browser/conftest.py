"""A live daphne and a headless Chromium for the browser tests.

daphne runs as a subprocess on a free loopback port with its own SQLite file; Chromium
is Debian's (or Playwright's own where that is what `make test` installed). Playwright's
sync API keeps an event loop running, so browser tests live in their own modules and
never mix with async tests.
"""

import os
from contextlib import contextmanager

import pytest

from playground.liveserver import (
    CHROMIUM_ARGS,
    KeptContext,
    chromium_path,
    live_daphne,
    wait_until_still,
)

# One renderer process a browser context, kept from one page to the next. Chromium
# starts a renderer for each cross-site navigation (to about:blank and back, as the
# sweep's visits and many tests do) and keeps a spare one warm for the next: a lab page
# opened in a fresh renderer cost 0.3 core-seconds more than in the renderer that drew
# the last one (its compiled scripts, parsed styles and fonts are the process's). With
# the limit, a page's navigations stay in its renderer; contexts still get one each
# (Chromium never shares a renderer between them), so a class's host and students, each
# a context of their own, still run on main threads of their own. The sweep's 30 wide
# lab visits: 90 core-seconds before, 81 with it; the first stage 863 before, 780 with
# it (docs/architecture.md, "The test suite"). Tests only: the benchmarks measure pages
# in Chromium as a visitor runs it.
TEST_CHROMIUM_ARGS = [*CHROMIUM_ARGS, "--renderer-process-limit=1"]

# Set when every test this session collected is a browser test (as in `make test`'s
# first stage): one Chromium then serves the whole session.
BROWSER_ONLY = pytest.StashKey[bool]()


def pytest_collection_modifyitems(config, items):
    """The browser files with the most tests first, each file's own order kept: under
    pytest-xdist's --dist loadfile a file goes to one worker, and the longest files
    (the sweep, the tours) dealt last were the suite's tail."""
    browser = [item for item in items if "tests/browser/" in str(item.path)]
    config.stash[BROWSER_ONLY] = bool(browser) and len(browser) == len(items)
    if not browser:
        return
    files: dict = {}
    for item in browser:
        files.setdefault(item.path, []).append(item)
    ordered = sorted(files.values(), key=len, reverse=True)
    at = items.index(browser[0])  # where the folder was: the rest keeps its place
    rest = [item for item in items if "tests/browser/" not in str(item.path)]
    items[:] = rest[:at] + [item for group in ordered for item in group] + rest[at:]


@pytest.fixture(scope="session")
def live_server_url(tmp_path_factory):
    """The base URL of a daphne serving the playground, for the whole session."""
    with live_daphne(tmp_path_factory.mktemp("var")) as url:
        yield url


@contextmanager
def chromium():
    """A headless Chromium, under Playwright's sync API, closed on the way out."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        path = chromium_path()
        try:
            launched = playwright.chromium.launch(
                executable_path=path, headless=True, args=TEST_CHROMIUM_ARGS
            )
        except Exception as error:
            if os.environ.get("CI") == "true":
                raise
            pytest.skip(f"no headless Chromium could be started here: {error}")
        yield launched
        launched.close()


@pytest.fixture(scope="session")
def session_chromium():
    with chromium() as launched:
        yield launched


@pytest.fixture(scope="module")
def browser(request):
    """A headless Chromium for a test module: the session's one where the session holds
    browser tests alone (a launch is 0.75 s of CPU, and there are some 35 modules);
    otherwise the module's own, since Playwright's sync API keeps its event loop
    running while it is open, and an async test after it could not run its own."""
    if request.config.stash.get(BROWSER_ONLY, False):
        shared = request.getfixturevalue("session_chromium")
        yield shared
        # what the module left open goes with it, as with a Chromium of its own: a
        # page left open keeps its lab playing and drawing for the rest of the session
        for context in shared.contexts:
            context.close()
        return
    with chromium() as launched:
        yield launched


@pytest.fixture(scope="module")
def kept_contexts(browser, live_server_url):
    """The module's kept contexts: `kept_contexts[i]` is made as first needed (a test
    with a host and a student takes two)."""

    class Contexts(list):
        def __getitem__(self, index):
            while len(self) <= index:
                self.append(KeptContext(browser, live_server_url))
            return super().__getitem__(index)

    contexts = Contexts()
    yield contexts
    for context in contexts:
        context.close()


@pytest.fixture
def page(kept_contexts):
    """A new visitor's page, recording console errors and page errors, in the module's
    kept context (KeptContext)."""
    new_page = kept_contexts[0].new_page()
    yield new_page
    new_page.close()


class LabDriver:
    """Opens a lab page (or embed) and presses its actions as a learner would."""

    def __init__(self, page, base: str) -> None:
        self.page = page
        self.base = base

    def open(self, path: str) -> None:
        """Go to `path` and wait until the lab is connected and drawn."""
        from playwright.sync_api import expect

        self.page.goto(f"{self.base}{path}")
        expect(self.page.locator("#connection-status")).to_have_attribute(
            "data-state", "open"
        )
        expect(self.page.locator("#stage")).not_to_have_attribute("aria-busy", "true")
        wait_until_still(self.page)

    def tab_to(self, selector: str, limit: int = 150) -> None:
        """Press Tab until the (first) element matching `selector` has the focus."""
        target = self.page.locator(selector).first
        for _ in range(limit):
            self.page.keyboard.press("Tab")
            if target.evaluate("el => el === document.activeElement"):
                return
        raise AssertionError(f"Tab never reached {selector}")

    def act(self, action: str) -> None:
        """Press the button of `action` (quick bar or rail) and wait for its frame."""
        forms = (
            f'#quick-controls form[data-action="{action}"], '
            f'#controls form[data-action="{action}"]'
        )
        before = self.page.locator("#lab").get_attribute("data-seq")
        self.page.locator(forms).first.locator('button[type="submit"]').click()
        self.page.wait_for_function(
            "before => document.querySelector('#lab').dataset.seq !== before",
            arg=before,
        )


@pytest.fixture
def lab_driver(live_server_url):
    """A LabDriver for a page: `lab_driver(page).open(path)`, `.act(name)`."""
    return lambda page: LabDriver(page, live_server_url)
