"""Every module a page loads was preloaded, in headless Chromium.

The page's modulepreload links (playground/modulepreload.py) must name every module the
page imports, under the very URL it is imported by: a module fetched that was not
preloaded is a round trip the list missed, and a module fetched twice is a preload
wasted on another URL or another credentials mode.
"""

from collections import Counter

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

PAGES = [
    "/labs/hash-placement/",
    "/labs/quorum/",
    "/labs/partition-cap/",
    "/embed/quorum/",
    "/embed/hash-placement/?controls=0",
]


@pytest.mark.parametrize("path", PAGES)
def test_every_module_the_page_loads_was_preloaded_once(page, live_server_url, path):
    requested = []
    page.on("request", lambda r: requested.append(r.url))
    page.goto(live_server_url + path)
    expect(page.locator("#lab")).to_have_attribute("data-drawn", "1")
    preloaded = page.eval_on_selector_all(
        'link[rel="modulepreload"]', "links => links.map((link) => link.href)"
    )
    loaded = page.evaluate(
        """() => performance.getEntriesByType("resource")
          .filter((entry) => new URL(entry.name).pathname.endsWith(".js"))
          .map((entry) => entry.name)"""
    )
    modules = [url for url in requested if url.split("?")[0].endswith(".js")]
    assert loaded and modules
    assert set(loaded) <= set(preloaded)
    assert set(modules) <= set(preloaded)
    twice = [url for url, n in Counter(modules).items() if n > 1]
    assert twice == []
    # the mark the first-drawing benchmark reads
    marks = page.evaluate(
        """() => performance.getEntriesByName("lab:first-drawing", "mark")
          .map((mark) => mark.startTime)"""
    )
    assert len(marks) == 1 and marks[0] > 0
    assert page.console_errors == []
