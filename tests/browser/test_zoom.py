"""The page works at 200% zoom (issue 12).

A 1280 × 800 window at 200% zoom lays the page out in 640 × 400 CSS pixels (at twice
the device pixels). Then nothing may need sideways scrolling, the stage keeps room for
its drawing (it is not squeezed into half of a 400-pixel window under its headings),
and the first action of each lab works from the keyboard.
"""

import pytest

from playground.liveserver import watch_errors

pytestmark = pytest.mark.browser

DRAWING = {
    "hash-placement": "#stage .card-figure",
    "quorum": "#stage .net-figure",
    "partition-cap": "#stage .net-figure",
}


@pytest.fixture
def zoomed(browser):
    context = browser.new_context(
        viewport={"width": 640, "height": 400}, device_scale_factor=2
    )
    yield watch_errors(context.new_page())
    context.close()


@pytest.mark.parametrize("slug", ["hash-placement", "quorum", "partition-cap"])
def test_a_lab_at_200_percent_zoom(zoomed, lab_driver, slug):
    driver = lab_driver(zoomed)
    driver.open(f"/labs/{slug}/?seed=2")
    assert zoomed.evaluate("() => document.documentElement.scrollWidth") <= 640
    stage = zoomed.locator("#stage").bounding_box()
    assert stage["height"] >= 300, stage
    drawing = zoomed.locator(DRAWING[slug]).first.bounding_box()
    assert drawing["height"] >= 120, drawing
    # the first quick action, from the keyboard
    before = zoomed.locator("#lab").get_attribute("data-seq")
    driver.tab_to('#quick-controls form[data-action] button[type="submit"]')
    zoomed.keyboard.press("Enter")
    zoomed.wait_for_function(
        "before => document.querySelector('#lab').dataset.seq !== before", arg=before
    )
    assert zoomed.console_errors == []


@pytest.mark.parametrize("path", ["/", "/join/"])
def test_other_pages_at_200_percent_zoom(zoomed, live_server_url, path):
    zoomed.goto(f"{live_server_url}{path}")
    assert zoomed.evaluate("() => document.documentElement.scrollWidth") <= 640
