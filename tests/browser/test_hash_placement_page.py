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
