"""Every page and lab in Chinese and Thai, in a real browser: no English left on screen.

A string shown in the UI that is not marked for translation (in a template, in Python,
in an ES module) stays English on a Chinese or Thai page. Here each page is opened in
both languages, a lab is clicked a little so its narration, tables and charts fill in,
and every English word visible (text, and the names a screen reader reads: aria-label,
title, alt, placeholder) must be one a translation itself keeps (a product name, a
term Thai engineers write in Latin letters) or lab data (shard and node names).
"""

import re

import pytest
from babel.messages.pofile import read_po
from playwright.sync_api import expect

from playground.catalogues import LOCALE

LANGUAGES = ["zh-hans", "th"]
FOLDERS = {"zh-hans": "zh_Hans", "th": "th"}
LABS = {
    "hash-placement": ["add_shard", "lookup"],
    "range-splits": ["write", "range_query"],
    "scatter-gather": ["query_scatter", "measure"],
    "replication": ["burst", "read"],
    "quorum": ["write", "read"],
    "partition-cap": ["book", "split"],
    "two-phase-commit": ["book", "set_fare"],
    "cache-stampede": ["skip_to_expiry", "set_strategy"],
    "rate-limit-race": ["run_all", "every_ordering"],
    "graph-traversal": ["course_query", "run"],
}
WORD = re.compile(r"[A-Za-z]+(?:'[a-z]+)?")
# an email address is data (replication's passengers), not words: it is not translated
EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")

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


@pytest.fixture(scope="module")
def allowed():
    return {lang: kept_words(FOLDERS[lang]) for lang in LANGUAGES}


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("slug", sorted(LABS))
def test_a_lab_in_chinese_and_thai_shows_no_english(
    page, lab_driver, allowed, slug, lang
):
    lab = lab_driver(page)
    lab.open(f"/labs/{slug}/?seed=3&lang={lang}")
    expect(page.locator("html")).to_have_attribute("lang", lang)
    for action in LABS[slug]:
        lab.act(action)
    page.wait_for_timeout(300)
    left = english_left(page, allowed[lang])
    assert not left, f"{len(left)} English words on {slug} in {lang}: {left[:12]}"
    digits = page.evaluate("document.body.innerText")
    assert not re.search("[\u0e50-\u0e59]", digits), "Thai digits: Thai sites write 0-9"


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("path", ["/", "/join/", "/labs/replication/", "/nowhere/"])
def test_the_other_pages_in_chinese_and_thai_show_no_english(
    page, live_server_url, allowed, path, lang
):
    page.goto(f"{live_server_url}{path}?lang={lang}")
    expect(page.locator("html")).to_have_attribute("lang", lang)
    left = english_left(page, allowed[lang])
    assert not left, f"{len(left)} English words on {path} in {lang}: {left[:12]}"


def test_the_switch_keeps_the_lab_as_it_was(page, live_server_url, lab_driver):
    lab = lab_driver(page)
    lab.open("/labs/hash-placement/?seed=3&lang=en")  # no clock: seq stays
    lab.act("add_shard")
    lab.act("add_shard")
    seq = page.locator("#lab").get_attribute("data-seq")
    digest = page.locator("#lab").get_attribute("data-digest")
    page.locator(".language-switch summary").click()  # the menu opens
    page.locator('.language-switch a[data-lang="th"]').click()
    expect(page.locator("html")).to_have_attribute("lang", "th")
    expect(page.locator("#connection-status")).to_have_attribute("data-state", "open")
    expect(page.locator("#lab")).to_have_attribute("data-seq", seq)
    expect(page.locator("#lab")).to_have_attribute("data-digest", digest)
    # remembered: the next page, with no ?lang=, is Thai too
    page.goto(f"{live_server_url}/")
    expect(page.locator("html")).to_have_attribute("lang", "th")


def test_the_switch_is_reachable_by_keyboard(page, live_server_url):
    page.goto(f"{live_server_url}/?lang=en")
    focused = "document.activeElement.closest('.language-switch summary') !== null"
    for _ in range(12):
        page.keyboard.press("Tab")
        if page.evaluate(focused):
            break
    else:
        pytest.fail("Tab never reached the language switch")
    page.keyboard.press("Enter")  # opens the menu
    expect(page.locator('.language-switch a[data-lang="zh-hans"]')).to_be_visible()
    page.keyboard.press("Tab")  # English (the page's own, marked)
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.dataset.lang") == "zh-hans"
    page.keyboard.press("Enter")
    expect(page.locator("html")).to_have_attribute("lang", "zh-hans")
