"""The pages that are not labs in Chinese and Thai, in a real browser: no English left
on screen; the language switch. Every lab page and embed is checked for English left in
tests/browser/test_lab_sweep.py, with the other checks of the same visit.

A string shown in the UI that is not marked for translation (in a template, in Python,
in an ES module) stays English on a Chinese or Thai page. Here each page is opened in
both languages and every English word visible (text, and the names a screen reader
reads: aria-label, title, alt, placeholder) must be one a translation itself keeps (a
product name, a term Thai engineers write in Latin letters) or lab data (shard and
node names).
"""

import pytest
from pagechecks import FOLDERS, english_left, kept_words
from playwright.sync_api import expect

LANGUAGES = ["zh-hans", "th"]


@pytest.fixture(scope="module")
def allowed():
    return {lang: kept_words(FOLDERS[lang]) for lang in LANGUAGES}


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
