"""replication on the stage, at a laptop's and a phone's size: the drawing is the hero.

Three things went wrong before. On a phone the lines over the drawing (who is primary,
the last read, what the last failover lost) grew with the story and pushed the drawing
down by about 90 px; the history's time diagram ran its emails out of its box at
390 px; and on a laptop, under the tour's card, the cards' text was drawn at 6 to 8 px,
the viewBox scaled down into the room left to it. Now the lines keep one height (they
scroll inside, by keyboard too), the diagram's labels fit their bars, and the drawing's
viewBox is the room it has.
"""

import pytest
from playwright.sync_api import expect

from playground.liveserver import wait_until_still

pytestmark = pytest.mark.browser

WIDE = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
WAIT_MS = 15_000
SKIP_TOUR = (
    "localStorage.setItem('playground:tour:replication',"
    " JSON.stringify({state: 'skipped', step: 0}))"
)

# The drawing's box, measured from the stage's (the page may scroll under a phone's
# sticky stage while the controls under it are used).
DRAWING_BOX = """() => {
  const stage = document.querySelector('#stage').getBoundingClientRect();
  const svg = document.querySelector('#stage .net-svg').getBoundingClientRect();
  return {top: svg.top - stage.top, left: svg.left - stage.left,
          width: svg.width, height: svg.height};
}"""

# Every card text's size on screen: its font size times the drawing's scale.
CARD_TEXT_PX = """() => [...document.querySelectorAll('#stage .rp-card text')]
  .filter((text) => text.textContent.trim())
  .map((text) => [text.textContent,
    parseFloat(getComputedStyle(text).fontSize) * text.getScreenCTM().a])"""

# The texts of a history diagram that run out of its box.
OUT_OF_THE_BOX = """(figure) => {
  const box = figure.getBoundingClientRect();
  return [...figure.querySelectorAll('svg text')]
    .filter((text) => text.textContent.trim())
    .filter((text) => { const r = text.getBoundingClientRect();
      return r.left < box.left - 0.5 || r.right > box.right + 0.5; })
    .map((text) => text.textContent);
}"""


def open_lab(page, url, viewport, tour=False):
    page.set_viewport_size(viewport)
    if not tour:
        page.add_init_script(SKIP_TOUR)
    page.goto(f"{url}/labs/replication/?seed=3")
    expect(page.locator(".net-node")).to_have_count(3)
    expect(page.locator("#connection-status")).to_have_attribute("data-state", "open")
    wait_until_still(page)  # the first layout settles


def press(page, action):
    page.locator(
        f'#quick-controls form[data-action="{action}"] button[type="submit"]'
    ).click()


def play_the_story(page):
    """A burst, the change and a stale read; then B down, a change, the primary killed
    and C promoted: every line over the drawing is shown."""
    press(page, "burst")
    press(page, "write")
    press(page, "read")
    expect(page.locator("#stage .rp-read")).to_have_attribute(
        "data-stale", "true", timeout=WAIT_MS
    )
    group = page.locator('#controls form[data-action="take_down"]').locator(
        "xpath=ancestor::details"
    )
    if group.count() and not group.first.evaluate("d => d.open"):
        group.first.locator("summary").click()
    form = page.locator('#controls form[data-action="take_down"]')
    form.locator("select").first.select_option("B")
    form.locator('button[type="submit"]').click()
    press(page, "write")
    press(page, "kill_primary")
    page.locator('#quick-controls form[data-action="promote"] select').select_option(
        "C"
    )
    press(page, "promote")
    expect(page.locator("#stage .rp-lost")).to_have_attribute(
        "data-lost", "true", timeout=WAIT_MS
    )
    wait_until_still(page)


def test_on_a_phone_the_drawing_keeps_its_place_and_size_through_the_story(
    page, live_server_url
):
    open_lab(page, live_server_url, PHONE)
    before = page.evaluate(DRAWING_BOX)
    summary = page.locator("#stage .rp-summary")
    play_the_story(page)
    after = page.evaluate(DRAWING_BOX)
    for key in ("top", "left", "width", "height"):
        assert abs(after[key] - before[key]) <= 1, (key, before, after)
    # the lines over it scroll inside their box: reachable by keyboard, named, and the
    # last line that came (the failover's lost write) is in its view
    expect(summary).to_have_attribute("tabindex", "0")
    assert summary.get_attribute("aria-label")
    lost = page.locator("#stage .rp-lost")
    assert summary.evaluate(
        """(box, line) => { const b = box.getBoundingClientRect();
           const r = line.getBoundingClientRect();
           return r.top >= b.top - 1 && r.bottom <= b.bottom + 1; }""",
        lost.element_handle(),
    )
    # readable on a phone too: no card text under 12 px
    sizes = page.evaluate(CARD_TEXT_PX)
    assert sizes and all(px >= 11.9 for _, px in sizes), sizes
    assert page.console_errors == []


def test_on_a_phone_the_history_diagram_keeps_its_labels_in_its_box(
    page, live_server_url
):
    open_lab(page, live_server_url, PHONE)
    play_the_story(page)
    figure = page.locator(".rp-ops .history-diagram")
    figure.scroll_into_view_if_needed()
    expect(figure.locator(".hd-op")).not_to_have_count(0)
    assert figure.evaluate(OUT_OF_THE_BOX) == []
    # what tells the old address from the new one is still read on the bars
    labels = " ".join(figure.locator(".hd-label").all_text_contents())
    assert "oldmail" in labels and "newmail" in labels, labels
    assert page.console_errors == []


def test_on_a_laptop_the_cards_read_at_12_px_or_more(page, live_server_url):
    # with the tour's card over the stage, as a first visit has it: its notices take
    # four lines of the stage's height (the cards were drawn at 6 to 8 px then)
    open_lab(page, live_server_url, WIDE, tour=True)
    expect(page.locator("#tour")).to_be_visible()
    sizes = page.evaluate(CARD_TEXT_PX)
    assert sizes and all(px >= 11.9 for _, px in sizes), sizes
    play_the_story(page)
    sizes = page.evaluate(CARD_TEXT_PX)
    assert sizes and all(px >= 11.9 for _, px in sizes), sizes
    # every card inside the drawing
    inside = page.evaluate(
        """() => {
           const svg = document.querySelector('#stage .net-svg')
             .getBoundingClientRect();
           const cards = document.querySelectorAll('#stage .rp-card-box');
           return [...cards].every((card) => {
             const r = card.getBoundingClientRect();
             return r.left >= svg.left - 1 && r.right <= svg.right + 1
               && r.top >= svg.top - 1 && r.bottom <= svg.bottom + 1; }); }"""
    )
    assert inside
    assert page.console_errors == []


@pytest.mark.parametrize("viewport", [WIDE, PHONE], ids=["1280", "390"])
def test_quorum_history_diagram_keeps_its_labels_in_its_box(
    page, live_server_url, viewport
):
    """quorum draws the same diagram on its stage: its labels stay in the box too."""
    page.set_viewport_size(viewport)
    page.add_init_script(
        "localStorage.setItem('playground:tour:quorum',"
        " JSON.stringify({state: 'skipped', step: 0}))"
    )
    page.goto(f"{live_server_url}/labs/quorum/?seed=385")
    expect(page.locator("#connection-status")).to_have_attribute("data-state", "open")
    figure = page.locator(".q-judged .history-diagram")
    for count, action in enumerate(("write", "read", "write", "read", "read"), 1):
        page.locator(f'#quick-controls form[data-action="{action}"] button').click()
        # asked (and drawn) before the next is: some are still on their way
        expect(figure.locator(".hd-op")).to_have_count(count, timeout=WAIT_MS)
    # every one answered, and drawn so
    expect(figure.locator(".hd-op.is-open")).to_have_count(0, timeout=WAIT_MS)
    wait_until_still(page)
    assert figure.evaluate(OUT_OF_THE_BOX) == []
    # the short labels are whole: "W 1", "R → 1" and the like are not cut
    labels = figure.locator(".hd-label").all_text_contents()
    assert labels and not any(label.endswith("…") for label in labels), labels
    assert page.console_errors == []
