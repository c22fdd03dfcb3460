"""hash-placement in real headless Chromium against a live daphne."""

import re

import pytest
from playwright.sync_api import expect

from simulators.labs.hash_placement import HashPlacementLab

pytestmark = pytest.mark.browser
SCHEMES = ("mod", "partitions", "ring")


def expected_moved_percent(seed: int) -> dict[str, str]:
    """What the page must show after one added shard, computed by the simulator."""
    lab = HashPlacementLab(seed=seed)
    lab.apply("add_shard", {})
    schemes = lab.metrics()["schemes"]
    return {s: f"{schemes[s]['moved_fraction'] * 100:.1f}%" for s in SCHEMES}


def bins(page, scheme):
    return page.locator(f'article[data-scheme="{scheme}"] g.bin')


def moved_figure(page, scheme):
    return page.locator(f'article[data-scheme="{scheme}"] .moved-big')


def open_lab(page, url, seed=0):
    page.goto(f"{url}/labs/hash-placement/?seed={seed}")
    for scheme in SCHEMES:
        expect(bins(page, scheme)).to_have_count(4)
    expect(page.locator("#connection-status")).to_have_attribute("data-state", "open")


def test_adding_a_shard_draws_a_fifth_shard_and_shows_the_moved_fraction(
    page, live_server_url
):
    open_lab(page, live_server_url, seed=5)
    # the commonest actions sit in the quick bar above the drawing
    quick = page.locator("#quick-controls")
    for action in ("add_shard", "remove_shard", "lookup"):
        expect(quick.locator(f'form[data-action="{action}"]')).to_be_visible()
    quick.locator('form[data-action="add_shard"] button[type="submit"]').click()
    expected = expected_moved_percent(5)
    for scheme in SCHEMES:
        expect(bins(page, scheme)).to_have_count(5)
        expect(moved_figure(page, scheme)).to_have_text(expected[scheme])
    assert 75 < float(expected["mod"].rstrip("%")) < 85
    expect(page.locator("#latest")).to_contain_text("Shard E added")
    expect(page.locator("#narration")).to_contain_text("Shard E added")
    assert page.console_errors == []


def tab_to(page, selector, limit=120):
    """Press Tab until the element matching `selector` has the focus."""
    target = page.locator(selector)
    for _ in range(limit):
        page.keyboard.press("Tab")
        if target.evaluate("node => node === document.activeElement"):
            return
    raise AssertionError(f"Tab never reached {selector}")


def test_the_same_by_keyboard_alone(page, live_server_url):
    open_lab(page, live_server_url, seed=5)
    tab_to(page, 'form[data-action="add_shard"] button[type="submit"]')
    page.keyboard.press("Enter")
    expected = expected_moved_percent(5)
    for scheme in SCHEMES:
        expect(bins(page, scheme)).to_have_count(5)
        expect(moved_figure(page, scheme)).to_have_text(expected[scheme])

    tab_to(page, 'form[data-action="lookup"] input')
    page.keyboard.press("Control+A")
    page.keyboard.type("N12346")
    page.keyboard.press("Enter")
    lookup = page.locator('article[data-scheme="mod"] .lookup-text')
    expect(lookup).to_be_visible()
    expect(lookup).to_contain_text("N12346")
    assert page.console_errors == []


def test_a_refused_value_shows_the_servers_reason_next_to_its_form(
    page, live_server_url
):
    open_lab(page, live_server_url)
    form = page.locator('form[data-action="set_vnodes"]')
    form.locator("input").fill("0")
    form.locator('button[type="submit"]').click()
    expect(form.locator(".form-error")).to_have_text(
        re.compile("Virtual nodes per shard must be at least 1")
    )
    for scheme in SCHEMES:
        expect(bins(page, scheme)).to_have_count(4)
    assert page.console_errors == []


def test_the_catalogue_links_the_lab_and_marks_the_rest_as_coming(
    page, live_server_url
):
    page.goto(live_server_url + "/")
    page.get_by_role("link", name=re.compile("Hash rings and moving keys")).click()
    expect(page).to_have_url(re.compile("/labs/hash-placement/$"))
    for scheme in SCHEMES:
        expect(bins(page, scheme)).to_have_count(4)
    assert page.console_errors == []


def test_on_a_phone_one_card_at_a_time_and_tabs_that_say_what_moved(
    kept_contexts, live_server_url
):
    """At 390×844 the three cards take turns at the stage's width: tabs over them name
    each scheme and show the share its last change moved (the simulator's numbers), by
    click and by the arrow keys; the open card's figure is most of the stage's width."""
    page = kept_contexts[0].new_page({"width": 390, "height": 844})
    open_lab(page, live_server_url, seed=5)
    tabs = page.locator(".scheme-tabs [role=tab]")
    expect(tabs).to_have_count(3)
    cards = {s: page.locator(f'article[data-scheme="{s}"]') for s in SCHEMES}
    expect(cards["mod"]).to_be_visible()
    expect(cards["partitions"]).to_be_hidden()
    expect(cards["ring"]).to_be_hidden()
    figure = cards["mod"].locator(".card-figure").bounding_box()
    assert figure and figure["width"] >= 250, figure
    page.locator('#quick-controls form[data-action="add_shard"] button').click()
    expected = expected_moved_percent(5)
    for scheme, tab in zip(SCHEMES, tabs.all(), strict=True):
        expect(tab.locator(".scheme-tab-moved")).to_have_text(expected[scheme])
    tabs.nth(2).click()
    expect(tabs.nth(2)).to_have_attribute("aria-selected", "true")
    expect(cards["ring"]).to_be_visible()
    expect(cards["mod"]).to_be_hidden()
    expect(bins(page, "ring")).to_have_count(5)
    # the arrows move between the tabs, and the focus with them
    page.keyboard.press("ArrowLeft")
    expect(tabs.nth(1)).to_be_focused()
    expect(cards["partitions"]).to_be_visible()
    page.keyboard.press("End")
    expect(cards["ring"]).to_be_visible()
    page.keyboard.press("ArrowRight")  # round to the first
    expect(tabs.nth(0)).to_have_attribute("aria-selected", "true")
    expect(cards["mod"]).to_be_visible()
    assert page.console_errors == []
    page.close()


def test_on_a_laptop_every_card_is_shown_and_no_tabs(page, live_server_url):
    page.set_viewport_size({"width": 1280, "height": 800})
    open_lab(page, live_server_url, seed=5)
    expect(page.locator(".scheme-tabs")).to_be_hidden()
    for scheme in SCHEMES:
        expect(page.locator(f'article[data-scheme="{scheme}"]')).to_be_visible()
