"""Colour is never the only signal: message kinds differ by shape or fill (issue 12).

The network labs' legends list every kind a lab declares. Each kind's mark is drawn the
same way on the canvas (messages.js) as in the legend, so two kinds whose legend marks
have the same outline and the same fill would differ by colour alone.
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
