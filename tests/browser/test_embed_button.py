"""A lab page's "Embed" button gives an <iframe> snippet of the moment on screen."""

import re

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser


def test_the_embed_snippet_reproduces_the_state_on_screen(
    page, browser, live_server_url
):
    page.goto(f"{live_server_url}/labs/hash-placement/?seed=4")
    bins = page.locator('article[data-scheme="mod"] g.bin')
    expect(bins).to_have_count(4)
    page.locator(
        '#quick-controls form[data-action="add_shard"] button[type="submit"]'
    ).click()
    expect(bins).to_have_count(5)
    digest = page.locator("#lab").get_attribute("data-digest")
    page.get_by_role("button", name="Embed", exact=True).click()
    snippet = page.get_by_label("The snippet to paste")
    expect(snippet).to_have_value(re.compile(r"/embed/hash-placement/.*#link=1\."))
    src = re.search(r'src="([^"]+)"', snippet.input_value()).group(1)
    src = src.replace("&amp;", "&")
    assert src.startswith(live_server_url)

    reader = browser.new_context(viewport={"width": 800, "height": 640})
    try:
        embed = reader.new_page()
        embed.goto(src)
        expect(embed.locator("#lab")).to_have_attribute("data-drawn", re.compile("."))
        expect(embed.locator('article[data-scheme="mod"] g.bin')).to_have_count(5)
        expect(embed.locator("#lab")).to_have_attribute("data-digest", digest)
    finally:
        reader.close()
    assert page.console_errors == []
