"""Checks a browser test runs on a page it has open: axe-core, English left on a
Chinese or Thai page, the stage in the first screen, the primary action moving it,
quick labels cut at phone width. tests/browser/test_lab_sweep.py runs them all on one
visit of each (lab, language, size); the other browser tests use them one at a time.
"""

import re
from contextlib import contextmanager
from pathlib import Path

from babel.messages.pofile import read_po
from playwright.sync_api import expect

from playground.catalogues import LOCALE
from playground.liveserver import next_frames

REPO = Path(__file__).resolve().parents[2]
AXE = REPO / "node_modules" / "axe-core" / "axe.min.js"
TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"]
FOLDERS = {"zh-hans": "zh_Hans", "th": "th"}
WIDE = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
PROJECTOR = {"width": 1920, "height": 1080}

# -- axe-core --------------------------------------------------------------------------

# what axe finds, as one line a failing test prints
RUN = """async (tags) => {
  const result = await axe.run(document, {
    runOnly: { type: "tag", values: tags }, resultTypes: ["violations"] });
  const where = (n) =>
    n.target.join(" ") + " | " + (n.failureSummary || "").slice(0, 160);
  return result.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => ({ id: v.id, impact: v.impact, help: v.help,
                   nodes: v.nodes.slice(0, 4).map(where) }));
}"""


def violations(page) -> list[dict]:
    """axe-core's serious and critical findings (axe is added to the page here, so its
    context must bypass CSP, which allows only the page's own scripts, unless axe came
    in an init script: `context.add_init_script(path=AXE)`, which CSP does not see)."""
    if not page.evaluate("typeof axe !== 'undefined'"):
        page.add_script_tag(path=str(AXE))
    return page.evaluate(RUN, TAGS)


def assert_clean(page, what: str) -> None:
    found = violations(page)
    assert not found, f"{what}: " + "\n".join(
        f"{v['impact']} {v['id']}: {v['help']}\n    " + "\n    ".join(v["nodes"])
        for v in found
    )


# -- the Content-Security-Policy -------------------------------------------------------

# An init script (the listener is there before the page's first script) that records
# every `securitypolicyviolation` event in `window.violations`.
RECORD_VIOLATIONS = """
window.violations = [];
document.addEventListener("securitypolicyviolation", (event) => {
  window.violations.push(`${event.effectiveDirective} ${event.blockedURI}`);
});
"""


def assert_within_policy(page) -> None:
    """No CSP violation so far (the page's context has RECORD_VIOLATIONS)."""
    next_frames(page)  # violations are reported asynchronously, in a task of their own
    assert page.evaluate("window.violations") == []


# -- English left on a Chinese or Thai page --------------------------------------------

WORD = re.compile(r"[A-Za-z]+(?:'[a-z]+)?")
# an email address is data (replication's passengers), not words: it is not translated;
# nor is the domain of one, shown alone where there is little room (a phone)
EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+|\b[\w-]+(?:\.[\w-]+)*\.example\b")

# Everything a page shows, as a screen reader would meet it: visible text nodes and
# the accessible names and descriptions written as attributes.
SHOWN = """() => {
  const out = [];
  const skip = ["SCRIPT", "STYLE", "NOSCRIPT", "TEMPLATE"];
  const named = ["aria-label", "title", "alt", "placeholder", "aria-description"];
  const visible = (el) => !el.checkVisibility || el.checkVisibility(
    { checkOpacity: false, checkVisibilityCSS: true });
  const heard = (el) => el.closest("svg title, .visually-hidden");
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const parent = node.parentElement;
    if (!parent || skip.includes(parent.tagName)) continue;
    if (parent.closest(".language-switch")) continue;  // each language in itself
    if (parent.closest('[translate="no"]')) continue;  // code (SQL), not words
    if (!visible(parent) && !heard(parent)) continue;
    const text = node.textContent.trim();
    if (text) out.push([text, parent.tagName.toLowerCase() + "." + parent.className]);
  }
  for (const el of document.querySelectorAll(named.map((n) => `[${n}]`).join())) {
    if (el.closest(".language-switch")) continue;
    // code's own title (a pattern cut short, whole in its tooltip) is code too
    if (el.closest('[translate="no"]')) continue;
    for (const name of named) {
      const value = el.getAttribute(name);
      if (value && value.trim()) out.push([value, el.tagName + "@" + name]);
    }
  }
  return out;
}"""


def kept_words(folder: str) -> set[str]:
    """The Latin-letter words the translations themselves use (lower case)."""
    words = set()
    for domain in ("django", "djangojs"):
        path = LOCALE / folder / "LC_MESSAGES" / f"{domain}.po"
        with path.open("rb") as source:
            for message in read_po(source, locale=folder):
                if not message.id:
                    continue
                strings = message.string if message.pluralizable else [message.string]
                for text in strings:
                    # placeholders are names, not words of the translation
                    text = re.sub(r"%\(\w+\)[sdr]", " ", text)
                    words.update(w.lower() for w in WORD.findall(text))
    return words


def english_left(page, allowed: set[str]) -> list[tuple[str, str, str]]:
    """(word, where, text) for each English word shown that no translation keeps."""
    left = []
    for text, where in page.evaluate(SHOWN):
        for word in WORD.findall(EMAIL.sub(" ", text)):
            if len(word) < 3 or word.isupper():
                continue  # A, n1, ONE, QUORUM, LAX: names and codes, not prose
            if word.lower() not in allowed:
                left.append((word, where, text[:80]))
    return left


def assert_no_english(page, allowed: set[str], what: str) -> None:
    left = english_left(page, allowed)
    assert not left, f"{len(left)} English words on {what}: {left[:12]}"


def assert_no_thai_digits(page) -> None:
    digits = page.evaluate("document.body.innerText")
    assert not re.search("[\u0e50-\u0e59]", digits), "Thai digits: Thai sites write 0-9"


# -- the stage (issue 10) --------------------------------------------------------------


def stage_box(page) -> dict:
    return page.locator("#stage").evaluate(
        """stage => { const r = stage.getBoundingClientRect();
        return {top: r.top, bottom: r.bottom, left: r.left, right: r.right,
                height: r.height, width: r.width}; }"""
    )


def assert_in_first_viewport(page, viewport) -> None:
    assert page.evaluate("window.scrollY") == 0
    box = stage_box(page)
    assert box["top"] >= 0 and box["left"] >= 0, box
    assert box["bottom"] <= viewport["height"], box
    assert box["right"] <= viewport["width"], box
    # a stage, not a strip: at least a quarter of the screen's height (a phone's
    # hash-placement is three narrow cards, as tall as their rings and bins)
    assert box["height"] >= viewport["height"] / 4, box


# -- the drawing at the size of the room (issue 31) ---------------------------------

# What is drawn inside #stage in the first view, unscrolled: the union box of the svg
# shapes and text, the canvases and the HTML text the lab draws there (clipped to the
# viewport), and the rendered size of that text: an svg text's font size times the
# scale its element is drawn at, an HTML text's font size times its CSS zoom and any
# transform's. The
# stage's own box does not count, nor what is hidden, nor the controls a lab puts on
# its stage (buttons, fields and their labels): they are not the drawing.
DRAWING = """() => {
  const stage = document.querySelector("#stage");
  const vw = innerWidth, vh = innerHeight;
  const controls = "button, select, input, textarea, label, [role=button]";
  const shown = (el) =>
    el.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true })
    && !el.closest(".visually-hidden, defs, clipPath, mask, marker, pattern, title")
    && !el.closest(controls);
  let box = null;
  const add = (r) => {
    const l = Math.max(0, r.left), t = Math.max(0, r.top);
    const rr = Math.min(vw, r.right), b = Math.min(vh, r.bottom);
    if (rr - l < 1 || b - t < 1) return false;
    box = box ? { l: Math.min(box.l, l), t: Math.min(box.t, t), r: Math.max(box.r, rr),
                  b: Math.max(box.b, b) } : { l, t, r: rr, b };
    return true;
  };
  const texts = [];
  const shapes =
    "circle, rect, path, line, polyline, polygon, ellipse, image, canvas, text";
  for (const el of stage.querySelectorAll(shapes)) {
    if (shown(el)) add(el.getBoundingClientRect());
  }
  // svg text: each text without spans of its own, and each span
  for (const el of stage.querySelectorAll("svg text, svg tspan")) {
    if (el.tagName === "text" && el.querySelector("tspan")) continue;
    if (!el.textContent.trim() || !shown(el)) continue;
    const r = el.getBoundingClientRect();
    if (r.width < 1 || r.bottom <= 0 || r.top >= vh) continue;
    const m = el.getScreenCTM();
    const scale = m ? Math.hypot(m.a, m.b) : 1;
    const size = parseFloat(getComputedStyle(el).fontSize) * scale;
    texts.push([size, el.textContent.trim()]);
  }
  // HTML text on the stage
  const walker = document.createTreeWalker(stage, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const el = n.parentElement;
    if (!el || !n.textContent.trim() || el.closest("svg") || !shown(el)) continue;
    const range = document.createRange();
    range.selectNodeContents(n);
    if (!add(range.getBoundingClientRect())) continue;
    // a drawing grown by CSS zoom (stage-fit.js's growWithRoom) renders its text larger
    let scale = el.currentCSSZoom ?? 1;
    for (let p = el; p && p !== document.body; p = p.parentElement) {
      const t = getComputedStyle(p).transform;
      if (t && t !== "none") {
        const m = new DOMMatrix(t);
        scale *= Math.hypot(m.a, m.b);
      }
    }
    const size = parseFloat(getComputedStyle(el).fontSize) * scale;
    texts.push([size, n.textContent.trim()]);
  }
  texts.sort((a, b) => a[0] - b[0]);
  const p10 = texts.length ? texts[Math.floor(texts.length * 0.1)][0] : 0;
  const area = box ? ((box.r - box.l) * (box.b - box.t)) / (vw * vh) : 0;
  const smallest = texts.slice(0, 5)
    .map(([px, t]) => `${px.toFixed(1)}px ${t.slice(0, 24)}`);
  return { area, p10, texts: texts.length, box, smallest };
}"""

# The bars of issue 31 by viewport width: the drawing's share of the viewport, and the
# 10th percentile of its text's rendered size in CSS pixels.
DRAWING_BARS = {1280: (0.40, 12.0), 1920: (0.45, 16.0), 390: (0.35, 11.0)}


def drawing(page) -> dict:
    """What the stage draws in the first view: `area` (share of the viewport), `p10`
    (px), `texts` (how many), `box` and the `smallest` texts."""
    return page.evaluate(DRAWING)


def assert_drawing_fills_the_room(page, viewport) -> None:
    """The drawing's box covers the bar's share of the viewport (issue 31)."""
    share, _ = DRAWING_BARS[viewport["width"]]
    seen = drawing(page)
    assert seen["area"] >= share, (
        f"the drawing covers {seen['area']:.0%} of the viewport, under {share:.0%}: "
        f"{seen['box']}"
    )


# Presenter mode at a projector's size: the share of the screen the drawing covers.
PRESENTING_SHARE = 0.70


def assert_drawing_fills_the_screen_presenting(page) -> None:
    """In presenter mode the drawing's box covers PRESENTING_SHARE of the viewport."""
    seen = drawing(page)
    assert seen["area"] >= PRESENTING_SHARE, (
        f"presenting, the drawing covers {seen['area']:.0%} of the screen, under "
        f"{PRESENTING_SHARE:.0%}: {seen['box']}"
    )


def assert_drawing_text_reads(page, viewport) -> None:
    """The drawing's text, at its 10th percentile, renders at the bar's size."""
    _, px = DRAWING_BARS[viewport["width"]]
    seen = drawing(page)
    assert seen["texts"] and seen["p10"] >= px, (
        f"the drawing's text is {seen['p10']:.1f} px at its 10th percentile, under "
        f"{px} px ({seen['texts']} texts; the smallest: {seen['smallest']})"
    )


def assert_latest_in_first_viewport(page, viewport) -> None:
    """The "Just now" line is in the first screen too."""
    bottom = page.locator(".latest").evaluate("e => e.getBoundingClientRect().bottom")
    assert bottom <= viewport["height"], bottom


def open_page(page, url, viewport):
    page.set_viewport_size(viewport)
    page.goto(url)
    expect(page.locator("#connection-status")).to_have_attribute("data-state", "open")
    expect(page.locator("#stage")).not_to_have_attribute("aria-busy", "true")
    # the first drawing settles (rings, bins, a layout), and the tour has had its second
    # look at the step's target (spotlight.js's SETTLE_MS, 600 ms after the step opened,
    # which is before the stage stops being busy): that look may scroll the page, and
    # under load it came after a check had read where the page was scrolled
    page.wait_for_timeout(700)


def click_primary_and_see_it_move(page, action: str) -> None:
    """Click the primary action in view; the stage's pixels change within a second."""
    before_scroll = page.evaluate("window.scrollY")
    stage = page.locator("#stage")
    before = stage.screenshot()
    button = page.locator(f'#quick-controls form[data-action="{action}"] button')
    # reachable without scrolling: in the first viewport as it is
    assert button.evaluate(
        "b => { const r = b.getBoundingClientRect(); return r.top >= 0 && "
        "r.bottom <= window.innerHeight; }"
    ), f"the primary action {action} is below the first screen"
    button.click(no_wait_after=True)
    changed = False
    for _ in range(5):  # five looks over one second
        page.wait_for_timeout(200)
        if stage.screenshot() != before:
            changed = True
            break
    assert changed, f"the stage did not change within 1 s of the first {action}"
    assert page.evaluate("window.scrollY") == before_scroll  # nothing scrolled
    # the lab plays by itself: nobody pressed Play
    play = page.locator(".timeline-play")
    if play.count():
        expect(play).to_have_attribute("data-playing", "true")


# -- quick labels at phone width (issue 12) --------------------------------------------

# Labels whose text is wider than their box (cut by overflow), with their text.
CUT_JS = """
() => [...document.querySelectorAll(".lab-rail .action-form.is-quick .field label")]
  .filter((label) => label.offsetParent !== null)
  .filter((label) => label.scrollWidth > label.clientWidth + 1)
  .map((label) => label.textContent.trim())
"""


# Quick fields' selects whose chosen value is wider than the room the select gives it
# (its content box, less the arrow's 20 px): the value is cut there.
CUT_VALUES_JS = """
() => [...document.querySelectorAll(".lab-rail .action-form.is-quick select")]
  .filter((select) => select.offsetParent !== null && select.selectedIndex >= 0)
  .filter((select) => {
    const style = getComputedStyle(select);
    const probe = document.createElement("span");
    probe.style.cssText = "position:absolute;visibility:hidden;white-space:pre";
    probe.style.font = style.font;
    probe.textContent = select.options[select.selectedIndex].text;
    document.body.append(probe);
    const wide = probe.getBoundingClientRect().width;
    probe.remove();
    const room = select.clientWidth - parseFloat(style.paddingLeft)
      - parseFloat(style.paddingRight) - 20;
    return wide > room + 1;
  })
  .map((select) => select.options[select.selectedIndex].text)
"""


def assert_no_quick_value_cut(page) -> None:
    cut = page.evaluate(CUT_VALUES_JS)
    assert cut == [], f"quick values cut short: {cut}"


def assert_no_quick_label_cut(page) -> None:
    page.wait_for_selector("#quick-controls form")
    cut = page.evaluate(CUT_JS)
    assert cut == [], f"quick labels cut short: {cut}"


# -- every failure of a visit, together ------------------------------------------------


class Findings:
    """The failures of the checks run on one page, reported together at the end:
    `with found("what"): assert ...` records an AssertionError (or a Playwright
    timeout) and goes on to the next check. `known` maps a check's name to why it
    fails today (a fault found, not yet mended): its failure makes the test an
    expected failure that says why, while every other check still counts."""

    def __init__(
        self,
        where: str,
        known: dict[str, str] | None = None,
        strict: frozenset[str] = frozenset(),
    ) -> None:
        self.where = where
        self.known = known or {}
        # known failures that must fail: one that passes is reported, so that the
        # table of what is known stays true as faults are mended
        self.strict = strict
        self.failures: list[str] = []
        self.known_failures: list[str] = []

    @contextmanager
    def __call__(self, what: str):
        from playwright.sync_api import Error as PlaywrightError

        try:
            yield
        except (AssertionError, PlaywrightError) as error:
            if what in self.known:
                self.known_failures.append(f"{what}: {self.known[what]}")
            else:
                self.failures.append(f"{what}: {error}")
        else:
            if what in self.known and what in self.strict:
                self.failures.append(
                    f"{what}: known to fail ({self.known[what]}), but it passes now: "
                    "take it out of the table of known faults"
                )

    def assert_none(self) -> None:
        import pytest

        assert not self.failures, (
            f"{self.where}: {len(self.failures)} check(s) failed\n- "
            + "\n- ".join(self.failures)
        )
        if self.known_failures:
            pytest.xfail(f"{self.where}: " + "; ".join(self.known_failures))
