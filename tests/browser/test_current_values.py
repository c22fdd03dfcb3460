"""Forms show the value in force (W and R, a rule, vnodes), not only their default."""

import pytest
from playwright.sync_api import expect

from playground.links import make_link
from playground.store import Entry

pytestmark = pytest.mark.browser


def test_a_form_follows_the_state_until_the_user_changes_it(page, live_server_url):
    link = make_link("quorum", 2, [Entry(1, "set_levels", {"w": "ONE", "r": "ALL"})], 1)
    page.goto(f"{live_server_url}/labs/quorum/#link={link}")
    w = page.locator("#field-set_levels-w")
    r = page.locator("#field-set_levels-r")
    expect(w.locator("option:checked")).to_have_text("ONE (1 copy)")
    expect(r.locator("option:checked")).to_contain_text("ALL")
    # paused, so that the clock's own frames do not come between these
    page.locator("#timeline").get_by_role("button", name="Pause").click()
    expect(page.locator("#lab")).to_have_attribute("data-seq", "2")
    # the user's own choice is kept while the state moves on ...
    w.select_option(label="QUORUM (a majority)")
    page.locator('form[data-action="write"] button[type="submit"]').first.click()
    expect(page.locator("#lab")).to_have_attribute("data-seq", "3")
    expect(w.locator("option:checked")).to_have_text("QUORUM (a majority)")
    # ... and once sent, the form shows what is in force again
    page.locator('form[data-action="set_levels"] button[type="submit"]').first.click()
    expect(page.locator("#lab")).to_have_attribute("data-seq", "4")
    expect(w.locator("option:checked")).to_have_text("QUORUM (a majority)")
    checkbox = page.locator("#field-set_read_repair-on")
    expect(checkbox).to_be_checked()
    assert page.console_errors == []


def test_the_number_of_shards_follows_the_shards_there_are(page, live_server_url):
    """Before: "Shards" still showed 4 after a fifth shard was added."""
    page.goto(f"{live_server_url}/labs/hash-placement/")
    count = page.locator("#field-set_shards-count")
    expect(count).to_have_value("4")
    page.locator(
        '#quick-controls form[data-action="add_shard"] button[type="submit"]'
    ).click()
    expect(count).to_have_value("5")
    assert page.console_errors == []


def test_levels_beyond_the_copies_are_not_offered(page, live_server_url):
    """Before: R of 4 or 5 was offered with N = 3 (and refused when sent)."""
    page.goto(f"{live_server_url}/labs/quorum/")
    for field in ("#field-set_levels-r", "#field-read-r", "#field-write-w"):
        select = page.locator(field)
        expect(select.locator("option", has_text="5")).to_be_disabled()
        expect(select.locator("option", has_text="4")).to_be_disabled()
        expect(select.locator("option", has_text="3").last).to_be_enabled()
    copies = page.locator("#field-set_copies-copies")
    copies.select_option(label="5")
    page.locator('form[data-action="set_copies"] button[type="submit"]').click()
    expect(page.locator("#field-set_levels-r option", has_text="5")).to_be_enabled()
    assert page.console_errors == []


def test_the_quick_bar_offers_each_field_once(page, live_server_url):
    """Before: quorum's quick bar had W and R twice (Write, Read, and Set W and R)."""
    page.goto(f"{live_server_url}/labs/quorum/")
    quick = page.locator("#quick-controls")
    expect(quick.locator("form")).to_have_count(2)
    labels = quick.locator("label").all_inner_texts()
    assert labels.count("W") == 1 and labels.count("R") == 1, labels
    assert page.console_errors == []


def test_a_switch_acts_when_toggled(page, live_server_url):
    """Before: read repair and hinted handoff were a checkbox and a button to press."""
    page.goto(f"{live_server_url}/labs/quorum/")
    switch = page.get_by_role("switch", name="Read repair")
    expect(switch).to_be_checked()
    expect(page.locator('form[data-action="set_read_repair"] button')).to_be_hidden()
    seq = int(page.locator("#lab").get_attribute("data-seq"))
    switch.click()
    expect(page.locator("#lab")).to_have_attribute("data-seq", str(seq + 1))
    expect(switch).not_to_be_checked()
    handoff = page.get_by_role("switch", name="Hinted handoff")
    handoff.focus()
    page.keyboard.press(" ")
    expect(page.locator("#lab")).to_have_attribute("data-seq", str(seq + 2))
    expect(handoff).not_to_be_checked()
    assert page.console_errors == []


def test_a_refusal_goes_away_after_the_next_success(page, live_server_url):
    page.goto(f"{live_server_url}/labs/hash-placement/")
    vnodes = page.locator("#field-set_vnodes-vnodes")
    vnodes.fill("999")
    page.locator('form[data-action="set_vnodes"] button[type="submit"]').click()
    error = page.locator("#error-set_vnodes")
    expect(error).to_be_visible()
    expect(error).to_contain_text("at most 256")
    page.locator(
        '#quick-controls form[data-action="add_shard"] button[type="submit"]'
    ).click()
    expect(error).to_be_hidden()
    assert page.console_errors == []
