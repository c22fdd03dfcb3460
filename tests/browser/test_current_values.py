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
