"""Colour is never the only signal: message kinds differ by shape or fill (issue 12).

The network labs' legends list every kind a lab declares. Each kind's mark is drawn the
same way on the canvas (messages.js) as in the legend, so two kinds whose legend marks
have the same outline and the same fill would differ by colour alone. cache-stampede
draws its readers as dots of its own (stage.js), listed in its own legend.
"""

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

LEGEND_JS = """
() => [...document.querySelectorAll("#stage .net-legend li")].map((li) => {
  const path = li.querySelector("path");
  return {
    label: li.textContent.trim(),
    outline: path.getAttribute("d"),
    hollow: ["#fff", "none"].includes(path.getAttribute("fill")),
  };
})
"""


@pytest.mark.parametrize("slug", ["quorum", "partition-cap"])
def test_no_two_message_kinds_differ_by_colour_alone(page, live_server_url, slug):
    page.goto(f"{live_server_url}/labs/{slug}/?seed=1")
    expect(page.locator("#connection-status")).to_have_attribute("data-state", "open")
    expect(page.locator("#stage .net-legend li").first).to_be_visible()
    marks = page.evaluate(LEGEND_JS)
    assert len(marks) >= 7, marks
    seen = {}
    for mark in marks:
        look = (mark["outline"], mark["hollow"])
        twin = seen.get(look)
        assert twin is None, f"{mark['label']} looks like {twin} but for colour"
        seen[look] = mark["label"]


CACHE_LEGEND_JS = """
() => [...document.querySelectorAll("#stage .cs-legend li")].map((li) => {
  const path = li.querySelector("path");
  return {
    label: li.textContent.trim(),
    outline: path.getAttribute("d"),
    hollow: ["#fff", "none"].includes(path.getAttribute("fill")),
  };
})
"""


def test_cache_stampede_dots_differ_by_shape_or_fill(page, live_server_url):
    """A hit, a miss, an early refresh, a reader waiting for the lock, one that gave
    up, one the full queue refused: six marks, no two alike but for colour; the lane
    watched says so."""
    page.goto(f"{live_server_url}/labs/cache-stampede/?seed=1")
    expect(page.locator("#connection-status")).to_have_attribute("data-state", "open")
    marks = page.evaluate(CACHE_LEGEND_JS)
    assert len(marks) == 6, marks
    seen = {}
    for mark in marks:
        look = (mark["outline"], mark["hollow"])
        twin = seen.get(look)
        assert twin is None, f"{mark['label']} looks like {twin} but for colour"
        seen[look] = mark["label"]
    watched = page.locator('#stage .cs-strip[aria-pressed="true"]')
    expect(watched).to_have_count(1)
    expect(watched).to_contain_text("watching")
