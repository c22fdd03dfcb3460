"""Presenter mode (static/js/presenter.js, issue 31): a lab page as a projector shows
it.

"Present", the P key or `?present=1` lets the drawing take the screen, with "Just now",
the playback row and the quick actions under it; the rest of the controls open behind
"All controls"; Escape leaves. Nothing of it on a phone."""

import re

import pytest
from pagechecks import PHONE, PROJECTOR, drawing
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

PRESENTING = re.compile(r"\bis-presenting\b")


def open_quorum(page, url, query=""):
    page.goto(f"{url}/labs/quorum/?seed=3{query}")
    expect(page.locator("#connection-status")).to_have_attribute("data-state", "open")
    expect(page.locator("#lab")).to_have_attribute("data-drawn", "1")


def test_present_gives_the_drawing_the_screen_and_escape_gives_it_back(
    kept_contexts, live_server_url
):
    page = kept_contexts[0].new_page(PROJECTOR)
    open_quorum(page, live_server_url)
    body = page.locator("body")
    before = drawing(page)["area"]
    present = page.locator(".present-toggle")
    expect(present).to_have_text("Present")
    expect(present).to_have_attribute("aria-pressed", "false")
    present.click()
    expect(body).to_have_class(PRESENTING)
    expect(present).to_have_text("Stop presenting")
    expect(present).to_have_attribute("aria-pressed", "true")
    expect(page.locator(".site-header")).to_be_hidden()
    expect(page.locator(".lab-side")).to_be_hidden()
    page.wait_for_timeout(300)  # the drawing follows the stage's new size
    now = drawing(page)["area"]
    assert now >= 0.70 and now > before + 0.15, (before, now)
    # "Just now" and the quick actions stay, large, under the drawing: and they act
    expect(page.locator(".latest")).to_be_in_viewport(ratio=1)
    write = page.locator('#quick-controls form[data-action="write"] button')
    expect(write).to_be_in_viewport(ratio=1)
    seq = page.locator("#lab").get_attribute("data-seq")
    write.click()
    expect(page.locator("#lab")).not_to_have_attribute("data-seq", seq or "")
    # every other control behind one button; Escape closes it, then leaves the mode
    more = page.locator("#controls")
    expect(more).to_be_hidden()
    controls = page.locator(".present-controls")
    expect(controls).to_have_attribute("aria-expanded", "false")
    controls.click()
    expect(controls).to_have_attribute("aria-expanded", "true")
    expect(more).to_be_visible()
    page.keyboard.press("Escape")
    expect(more).to_be_hidden()
    expect(body).to_have_class(PRESENTING)
    page.keyboard.press("Escape")
    expect(body).not_to_have_class(PRESENTING)
    expect(page.locator(".site-header")).to_be_visible()
    expect(controls).to_be_hidden()
    assert page.console_errors == []
    page.close()


def test_the_p_key_and_the_address_turn_it_on_and_typing_a_p_does_not(
    kept_contexts, live_server_url
):
    page = kept_contexts[0].new_page(PROJECTOR)
    open_quorum(page, live_server_url, "&present=1")
    body = page.locator("body")
    expect(body).to_have_class(PRESENTING)
    page.locator("#stage").focus()
    page.keyboard.press("p")
    expect(body).not_to_have_class(PRESENTING)
    page.keyboard.press("P")
    expect(body).to_have_class(PRESENTING)
    page.keyboard.press("Escape")
    # a P typed into a field is a letter, not the shortcut
    field = page.locator("#controls input, #controls select").first
    page.locator("#controls details").first.evaluate("d => d.open = true")
    field.focus()
    page.keyboard.press("p")
    expect(body).not_to_have_class(PRESENTING)
    page.close()


def test_a_phone_has_no_presenter_mode(kept_contexts, live_server_url):
    page = kept_contexts[0].new_page(PHONE)
    open_quorum(page, live_server_url, "&present=1")
    expect(page.locator(".present-toggle")).to_be_hidden()
    expect(page.locator("body")).not_to_have_class(PRESENTING)
    page.keyboard.press("p")
    expect(page.locator("body")).not_to_have_class(PRESENTING)
    page.close()


def test_the_buttons_speak_chinese_and_thai(kept_contexts, live_server_url):
    page = kept_contexts[0].new_page(PROJECTOR)
    for lang, present, stop, controls in (
        ("zh-hans", "投影", "退出投影", "全部控件"),
        ("th", "โหมดนำเสนอ", "ออกจากโหมดนำเสนอ", "ตัวควบคุมทั้งหมด"),
    ):
        open_quorum(page, live_server_url, f"&lang={lang}")
        toggle = page.locator(".present-toggle")
        expect(toggle).to_have_text(present)
        toggle.click()
        expect(toggle).to_have_text(stop)
        expect(page.locator(".present-controls")).to_have_text(controls)
    page.close()
