"""Labs still coming, and the catalogue on a phone, in headless Chromium.

A coming lab's page is a page of the site at 1280×800 and at 390×844: its title in the
first screen, the labs that can be opened within reach of the keyboard, nothing wider
than the screen. On a phone the catalogue shows a lab that can be opened in its first
screen. The embed of a coming lab can be framed and says so.
"""

import re

import pytest
from playwright.sync_api import expect

from playground.liveserver import watch_errors
from simulators.labs import REGISTRY

pytestmark = pytest.mark.browser

WIDE = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
SIZES = [pytest.param(WIDE, id="1280x800"), pytest.param(PHONE, id="390x844")]
# a lab still coming, as the registry has it (every test here is skipped once none is)
COMING_LABS = REGISTRY.coming[:1]
COMING = COMING_LABS[0].slug if COMING_LABS else ""
TITLE = COMING_LABS[0].title if COMING_LABS else ""
if not COMING_LABS:
    pytestmark = [pytestmark, pytest.mark.skip("every lab of the course is built")]


@pytest.fixture(params=SIZES)
def sized(browser, request):
    """A page of the given viewport size that records console and page errors."""
    context = browser.new_context(viewport=request.param)
    page = watch_errors(context.new_page())
    page.viewport = request.param
    yield page
    context.close()


def assert_in_first_screen(page, locator) -> None:
    box = locator.bounding_box()
    assert box is not None
    assert box["y"] >= 0 and box["y"] + box["height"] <= page.viewport["height"], box
    assert box["x"] >= 0 and box["x"] + box["width"] <= page.viewport["width"], box


def assert_no_sideways_scroll(page) -> None:
    width = page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= page.viewport["width"]


def test_a_coming_lab_has_a_page_of_the_site(sized, live_server_url):
    response = sized.goto(f"{live_server_url}/labs/{COMING}/")
    assert response.status == 200
    title = sized.get_by_role("heading", level=1)
    expect(title).to_have_text(TITLE)
    assert_in_first_screen(sized, title)
    chapter = sized.locator(".coming-page .eyebrow")
    expect(chapter).to_have_text("Chapter 3 · Key-value stores and caches")
    expect(sized.get_by_text("This lab is still being built")).to_be_visible()
    assert_no_sideways_scroll(sized)
    # the same chapter's built labs come first
    links = sized.locator(".ready-labs a.lab-link")
    expect(links.first).to_have_text("Cache-aside, expiry and the thundering herd")
    assert sized.console_errors == []


def test_the_built_labs_are_reached_by_keyboard_from_a_coming_lab(
    sized, live_server_url
):
    sized.goto(f"{live_server_url}/labs/{COMING}/")
    for _ in range(8):
        sized.keyboard.press("Tab")
        if sized.evaluate("() => document.activeElement.matches('a.lab-link')"):
            break
    else:
        pytest.fail("no lab link took the focus after 8 presses of Tab")
    sized.keyboard.press("Enter")
    expect(sized).to_have_url(re.compile(r"/labs/cache-stampede/$"))
    expect(sized.locator("#stage")).not_to_have_attribute("aria-busy", "true")


def test_a_coming_lab_page_leads_back_to_the_catalogue(sized, live_server_url):
    sized.goto(f"{live_server_url}/labs/{COMING}/")
    sized.get_by_role("link", name="See every lab").click()
    expect(sized).to_have_url(f"{live_server_url}/")


def test_on_a_phone_the_catalogue_shows_a_lab_to_open_in_its_first_screen(
    browser, live_server_url
):
    context = browser.new_context(viewport=PHONE)
    page = watch_errors(context.new_page())
    page.viewport = PHONE
    try:
        page.goto(f"{live_server_url}/")
        first = page.locator("a.lab-link").first
        expect(first).to_have_attribute("href", re.compile(r"^/labs/[a-z-]+/$"))
        assert_in_first_screen(page, first)
        assert_no_sideways_scroll(page)
        ready = page.locator("#ready-title").bounding_box()["y"]
        coming = page.locator("#coming-title").bounding_box()["y"]
        assert ready < coming
        assert page.console_errors == []
    finally:
        context.close()


def test_the_embed_of_a_coming_lab_can_be_framed_and_says_so(page, live_server_url):
    page.goto(f"{live_server_url}/")
    page.evaluate(
        """(url) => {
          const frame = document.createElement("iframe");
          frame.src = url;
          frame.width = "390";
          frame.height = "300";
          document.body.prepend(frame);
        }""",
        f"{live_server_url}/embed/{COMING}/",
    )
    inside = page.frame_locator("iframe")
    expect(inside.get_by_role("heading", level=1)).to_have_text(TITLE)
    open_site = inside.locator("#open-in-playground")
    expect(open_site).to_have_attribute("target", "_blank")
    expect(open_site).to_have_attribute("href", f"/labs/{COMING}/")
    assert page.console_errors == []
