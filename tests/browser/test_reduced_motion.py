"""prefers-reduced-motion: keys and messages fade where a flight would be (issue 12).

A key that changes shard normally flies from its old bin to its new one. A visitor who
asked for less motion sees it fade out where it was and fade in where it lands instead:
it is never drawn anywhere in between. The page is sampled every animation frame (where
the canvas draws each moving key: `__drawn`, set by painter.js), with the same probe run
without the setting as the control, so the test fails if the probe sees nothing.
"""

import re
from contextlib import contextmanager

import pytest
from playwright.sync_api import expect

from playground.liveserver import next_frames

pytestmark = pytest.mark.browser

# Every frame until the change has settled, the drawn place and opacity of each moving
# key dot of one card; resolves with a summary per dot that moved.
SAMPLE_JS = """
async (scheme) => {
  const card = document.querySelector(`article[data-scheme="${scheme}"]`);
  // the key dots' circles: a record in an inert template (card.js), drawn on a canvas
  const record = card.querySelector("template.dot-record").content;
  const seen = new Map();
  let running = true;
  const sample = () => {
    for (const node of record.querySelectorAll(".bin-dots circle")) {
      const dot = node.__drawn;
      if (!dot) continue;
      if (!seen.has(node)) seen.set(node, {places: new Set(), alphas: []});
      const entry = seen.get(node);
      entry.places.add(`${dot.x.toFixed(2)},${dot.y.toFixed(2)}`);
      entry.alphas.push(dot.alpha ?? 1);
    }
    if (running) requestAnimationFrame(sample);
  };
  requestAnimationFrame(sample);
  const form = document.querySelector('#quick-controls form[data-action="add_shard"]');
  form.requestSubmit();
  await new Promise((resolve) => {
    const started = performance.now();
    const poll = setInterval(() => {
      const bins = card.querySelectorAll("g.bin").length;
      const dots = [...record.querySelectorAll(".bin-dots circle")];
      const moving = dots.some((n) => n.__drawn);
      if ((bins === 5 && seen.size && !moving) || performance.now() - started > 8000) {
        clearInterval(poll);
        resolve();
      }
    }, 50);
  });
  running = false;
  return [...seen.values()].map((e) => ({places: e.places.size, alphas: e.alphas}));
}
"""


@contextmanager
def lab_page(browser, url, path, reduced: bool, init_script: str = ""):
    """A connected lab page in a context with or without reduced motion."""
    context = browser.new_context(
        viewport={"width": 1280, "height": 900},
        reduced_motion="reduce" if reduced else "no-preference",
    )
    if init_script:
        context.add_init_script(init_script)
    page = context.new_page()
    try:
        page.goto(f"{url}{path}")
        expect(page.locator("#connection-status")).to_have_attribute(
            "data-state", "open"
        )
        yield page
    finally:
        context.close()


def run_change(browser, url, reduced: bool):
    with lab_page(browser, url, "/labs/hash-placement/?seed=5", reduced) as page:
        expect(page.locator('article[data-scheme="mod"] g.bin')).to_have_count(4)
        return page.evaluate(SAMPLE_JS, "mod")


def test_with_motion_reduced_a_moving_key_fades_and_never_travels(
    browser, live_server_url
):
    dots = run_change(browser, live_server_url, reduced=True)
    assert len(dots) > 20, "the change to mod 5 moves most keys: they must be drawn"
    # a key is drawn at most in two places, where it was and where it lands...
    assert max(d["places"] for d in dots) <= 2
    # ...and a key that changed place faded out and in to get there
    changed = [d for d in dots if d["places"] == 2]
    assert changed, "no key changed place"
    for dot in changed:
        assert min(dot["alphas"]) < 0.5
    assert any(0 < a < 1 for d in changed for a in d["alphas"])


def test_without_the_setting_the_same_keys_fly(browser, live_server_url):
    dots = run_change(browser, live_server_url, reduced=False)
    assert len(dots) > 20
    # the control: the probe does see flights as many places in between
    assert max(d["places"] for d in dots) > 5
    assert all(a == 1 for d in dots for a in d["alphas"])


# Every sprite the quorum lab's message canvas copies, with where and how opaque.
RECORD_DRAWS = """
(() => {
  const draws = [];
  globalThis.__messageDraws = draws;
  const original = CanvasRenderingContext2D.prototype.drawImage;
  CanvasRenderingContext2D.prototype.drawImage = function draw(image, x, y, ...rest) {
    if (this.canvas.classList?.contains("net-dots")) {
      draws.push({x, y, alpha: this.globalAlpha});
    }
    return original.call(this, image, x, y, ...rest);
  };
})();
"""


def message_draws(browser, url, reduced: bool):
    path = "/labs/quorum/?seed=3"
    with lab_page(browser, url, path, reduced, RECORD_DRAWS) as page:
        expect(page.locator("#stage .net-node")).to_have_count(3)
        page.locator('form[data-action="write"] button[type="submit"]').click()
        # the write's messages go out and come back (15-60 ms each, at 1/20x)
        page.wait_for_function("() => globalThis.__messageDraws.length > 0")
        # all of them delivered, and the last drawn
        expect(page.locator(".net-counts")).to_contain_text(
            re.compile(r"On the wire: 0 · held at cuts: \d+ · delivered: [1-9]"),
            timeout=15_000,
        )
        next_frames(page)
        return page.evaluate("() => globalThis.__messageDraws")


def test_with_motion_reduced_messages_fade_at_the_ends_of_their_link(
    browser, live_server_url
):
    draws = message_draws(browser, live_server_url, reduced=True)
    places = {(d["x"], d["y"]) for d in draws}
    # a write to two copies and their acknowledgements: four flights on two links, each
    # shown at its sender's end and its receiver's end only
    assert 2 <= len(places) <= 8, places
    assert any(d["alpha"] < 0.6 for d in draws)


def test_without_the_setting_messages_travel(browser, live_server_url):
    draws = message_draws(browser, live_server_url, reduced=False)
    assert len({(d["x"], d["y"]) for d in draws}) > 20
    assert all(d["alpha"] == 1 for d in draws)
