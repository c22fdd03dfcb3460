"""Hash-placement's key dots are drawn on each card's canvas, at rest as in motion.

Their SVG circles are a record kept in an inert template (no style, layout or paint,
issue 11's frame times), so the canvas is the only place a dot is seen and a transparent
stand-in carries the title of the ring dot under the pointer. These tests read the
canvas's pixels where the record says a dot is, and hover a ring dot as a learner would.
"""

import pytest
from playwright.sync_api import expect

from playground.liveserver import wait_until_still, watch_errors

pytestmark = pytest.mark.browser


@pytest.fixture
def page(browser):
    """A tall window: the drawings large enough that few dots cover one another."""
    context = browser.new_context(viewport={"width": 1400, "height": 1300})
    yield watch_errors(context.new_page())
    context.close()


# One card's dots as the record has them at rest: where (in CSS pixels of the page),
# which colour, and the canvas pixel there.
DOTS_JS = """
(scheme) => {
  const card = document.querySelector(`article[data-scheme="${scheme}"]`);
  const record = card.querySelector("template.dot-record").content;
  const back = card.querySelector("svg.card-back");
  const matrix = back.getScreenCTM();
  const canvas = card.querySelector("canvas.card-canvas");
  const box = canvas.getBoundingClientRect();
  const {width, height} = canvas;
  const pixels = canvas.getContext("2d").getImageData(0, 0, width, height);
  const dots = [];
  for (const group of [".ring-dots", ".bin-dots"]) {
    for (const circle of record.querySelectorAll(`${group} circle`)) {
      const at = new DOMPoint(+circle.getAttribute("cx"), +circle.getAttribute("cy"))
        .matrixTransform(matrix);
      const px = Math.round((at.x - box.left) * (canvas.width / box.width));
      const py = Math.round((at.y - box.top) * (canvas.height / box.height));
      const i = 4 * (py * canvas.width + px);
      dots.push({
        group,
        x: at.x,
        y: at.y,
        fill: circle.getAttribute("fill"),
        title: circle.querySelector("title")?.textContent ?? null,
        rgba: Array.from(pixels.data.slice(i, i + 4)),
      });
    }
  }
  const rendered = card.querySelectorAll("svg circle:not(.dot-hover)").length;
  return {dots, rendered};
}
"""


def settled(page, bins=12):
    """The lab drawn with `bins` bins in all, and no card painting motion any more."""
    page.wait_for_function(
        "n => document.querySelectorAll('article.scheme-card g.bin').length === n",
        arg=bins,
    )
    page.wait_for_function(
        "() => [...document.querySelectorAll('.card-figure')]"
        ".every((figure) => !figure.__painting)"
    )
    wait_until_still(page)


def hex_rgb(colour: str) -> tuple[int, int, int]:
    colour = colour.lstrip("#")
    return tuple(int(colour[i : i + 2], 16) for i in (0, 2, 4))


def test_the_canvas_draws_every_dot_at_rest_and_no_circle_is_rendered(
    page, live_server_url
):
    page.goto(f"{live_server_url}/labs/hash-placement/?seed=4")
    settled(page)
    found = page.evaluate(DOTS_JS, "ring")
    dots = found["dots"]
    assert len(dots) > 100, "the record holds the sample's dots"
    # no circle of the record is in the rendered page: only the hover stand-in
    assert found["rendered"] == 0
    # the canvas pixel at each dot's centre is that dot's colour, opaque (dots drawn on
    # top of each other may hide one another: nearly every one shows its own colour)
    matches = 0
    for dot in dots:
        r, g, b, a = dot["rgba"]
        want = hex_rgb(dot["fill"])
        if a > 200 and all(
            abs(c - w) <= 40 for c, w in zip((r, g, b), want, strict=True)
        ):
            matches += 1
    assert matches >= 0.9 * len(dots), (
        f"{matches} of {len(dots)} dots seen on the canvas"
    )


def test_a_change_is_drawn_on_the_canvas_where_the_record_says(page, live_server_url):
    page.goto(f"{live_server_url}/labs/hash-placement/?seed=4")
    settled(page)
    before = {
        (d["group"], d["title"], d["x"], d["y"])
        for d in page.evaluate(DOTS_JS, "mod")["dots"]
    }
    page.locator(
        '#quick-controls form[data-action="add_shard"] button[type=submit]'
    ).click()
    settled(page, bins=15)
    dots = page.evaluate(DOTS_JS, "mod")["dots"]
    after = {(d["group"], d["title"], d["x"], d["y"]) for d in dots}
    assert before != after, "adding a shard moves keys in mod"
    bins = [d for d in dots if d["group"] == ".bin-dots"]
    seen = sum(
        1
        for d in bins
        if d["rgba"][3] > 200
        and all(
            abs(c - w) <= 40
            for c, w in zip(d["rgba"][:3], hex_rgb(d["fill"]), strict=True)
        )
    )
    assert seen >= 0.9 * len(bins)


def test_hovering_a_ring_dot_gives_its_key_as_a_title(page, live_server_url):
    page.goto(f"{live_server_url}/labs/hash-placement/?seed=4")
    settled(page)
    dots = [
        d for d in page.evaluate(DOTS_JS, "ring")["dots"] if d["group"] == ".ring-dots"
    ]
    dot = dots[len(dots) // 2]
    assert dot["title"], "each ring dot's record names its key"
    page.mouse.move(dot["x"] + 0.5, dot["y"] + 0.5)
    # what the pointer rests on is a circle that carries that key's title
    under = page.evaluate(
        """([x, y]) => {
          const node = document.elementFromPoint(x, y);
          const title = node.querySelector("title")?.textContent;
          return {cls: node.getAttribute("class"), title};
        }""",
        [dot["x"] + 0.5, dot["y"] + 0.5],
    )
    assert under == {"cls": "dot-hover", "title": dot["title"]}
    # away from every dot, the stand-in is gone
    page.mouse.move(5, 5)
    expect(page.locator("article[data-scheme=ring] circle.dot-hover")).to_be_hidden()
