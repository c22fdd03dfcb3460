"""replication in real headless Chromium against a live daphne: the email-change story
by mouse and by keyboard, a fix, and a failover's lost writes."""

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser
SEED = 3
OLD = "ana.lopez@oldmail.example"
NEW = "ana.lopez@newmail.example"
WAIT_MS = 15_000


def open_lab(page, url):
    page.goto(f"{url}/labs/replication/?seed={SEED}")
    expect(page.locator(".net-node")).to_have_count(3)
    expect(page.locator("#connection-status")).to_have_attribute("data-state", "open")


def quick(page, action):
    return page.locator(f'#quick-controls form[data-action="{action}"]')


def test_the_email_story_by_mouse_then_a_fix(page, live_server_url):
    open_lab(page, live_server_url)
    # three clicks: a burst puts the replicas behind, the change, the read from C
    quick(page, "burst").locator('button[type="submit"]').click()
    expect(page.locator("#narration")).to_contain_text("position reports")
    quick(page, "write").locator('button[type="submit"]').click()
    expect(page.locator("#narration")).to_contain_text("was committed")
    quick(page, "read").locator('button[type="submit"]').click()
    read = page.locator("#stage .rp-read")
    expect(read).to_have_attribute("data-stale", "true", timeout=WAIT_MS)
    expect(read).to_contain_text(OLD)
    expect(page.locator('[data-metric="stale_reads"] dd')).to_have_text("1")
    # the history checker's verdict under the time diagram says the same
    expect(page.locator(".history-diagram-verdict")).to_contain_text(OLD)
    # the primary for 3 s after one's own write: the next read asks C, A answers
    fix = page.locator('#controls form[data-action="set_read_your_writes"]')
    sticky = "the primary for 3 s after your own write"
    fix.locator("select").select_option(label=sticky)
    fix.locator('button[type="submit"]').click()
    quick(page, "write").locator('button[type="submit"]').click()
    quick(page, "read").locator('button[type="submit"]').click()
    expect(read).to_have_attribute("data-stale", "false", timeout=WAIT_MS)
    expect(read).to_contain_text("(asked C)")
    expect(read).to_contain_text("ana.lopez+2@newmail.example")


def test_the_email_story_by_keyboard(page, live_server_url):
    open_lab(page, live_server_url)
    for action in ("burst", "write", "read"):
        button = quick(page, action).locator('button[type="submit"]')
        button.focus()
        page.keyboard.press("Enter")
        if action != "read":
            expect(page.locator("#narration")).not_to_be_empty()
    read = page.locator("#stage .rp-read")
    expect(read).to_have_attribute("data-stale", "true", timeout=WAIT_MS)
    expect(read).to_contain_text(OLD)


def test_a_failover_lists_the_acknowledged_writes_no_server_has(page, live_server_url):
    open_lab(page, live_server_url)
    # C across the ocean, B taken down: the change reaches no replica before A dies
    form = page.locator('#controls form[data-action="take_down"]')
    form.locator("select, input").first.select_option("B")
    form.locator('button[type="submit"]').click()
    quick(page, "write").locator('button[type="submit"]').click()
    quick(page, "kill_primary").locator('button[type="submit"]').click()
    promote = quick(page, "promote")
    promote.locator("select").select_option("C")
    promote.locator('button[type="submit"]').click()
    lost = page.locator("#stage .rp-lost")
    expect(lost).to_have_attribute("data-lost", "true", timeout=WAIT_MS)
    expect(lost).to_contain_text(NEW)
    table = page.locator(".rp-lost-list table")
    expect(table).to_contain_text(NEW)
    expect(page.locator('[data-metric="lost_acknowledged"] dd')).to_have_text("1")
