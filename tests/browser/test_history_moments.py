"""The history in moments, in real headless Chromium against a live daphne.

On quorum, which plays from the start: a write and its deliveries, a cut, a read and its
reply are some tens of clock ticks but three moments. Step back lands just before the
read, again just before the cut; Step forward comes back; the scrubber still reaches
the time between moments; the keyboard does all of it.
"""

import pytest
from playwright.sync_api import expect

from playground.liveserver import click_link, save_screenshot, watch_errors

pytestmark = pytest.mark.browser
WIDE = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}


def lab(page):
    return page.locator("#lab")


def cursor(page):
    return int(lab(page).get_attribute("data-cursor"))


def length(page):
    return int(lab(page).get_attribute("data-length"))


def at(page, position, end):
    expect(lab(page)).to_have_attribute("data-cursor", str(position))
    expect(lab(page)).to_have_attribute("data-length", str(end))


def quick(page, action):
    page.locator(
        f'#quick-controls form[data-action="{action}"] button[type="submit"]'
    ).click()


def settled(page):
    """Wait until nothing is scheduled: the clock stops ticking, the length stays."""
    expect(page.locator(".timeline-state")).to_have_attribute(
        "data-state", "idle", timeout=15_000
    )
    return length(page)


def rows(page, kind):
    return page.locator(f'.q-history tr[data-kind="{kind}"]')


def link_ab(page):
    return page.locator('.net-link[data-link="A-B"]')


@pytest.mark.parametrize("viewport", [WIDE, PHONE], ids=["1280", "390"])
def test_step_back_after_write_cut_read_lands_just_before_the_read(
    browser, live_server_url, viewport
):
    context = browser.new_context(viewport=viewport)
    page = watch_errors(context.new_page())
    page.goto(f"{live_server_url}/labs/quorum/?seed=3")
    expect(page.locator("#connection-status")).to_have_attribute("data-state", "open")
    bar = page.locator("#history")
    readout = bar.locator(".history-readout")
    expect(readout).to_have_text("No actions yet")
    # the clock at 1× (1/20× by default): the same ticks, twenty times sooner; a speed
    # is not a moment
    seq = lab(page).get_attribute("data-seq")
    page.select_option("#timeline-speed", label="1×")
    expect(lab(page)).not_to_have_attribute("data-seq", seq or "")
    expect(readout).to_have_text("No actions yet")

    # a write, delivered: one moment, however many ticks carried it
    quick(page, "write")
    expect(rows(page, "write")).to_have_attribute("data-status", "ok", timeout=15_000)
    cut_at = settled(page)
    assert cut_at > 3  # the clock's ticks came after the write
    expect(readout).to_have_text("Moment 1 of 1")

    # cut A-B in the drawing
    click_link(link_ab(page))
    expect(link_ab(page)).to_have_attribute("data-state", "cut")
    read_at = settled(page)
    expect(readout).to_have_text("Moment 2 of 2")

    # a read, until its reply
    quick(page, "read")
    expect(rows(page, "read")).to_have_attribute("data-status", "ok", timeout=15_000)
    end = settled(page)
    assert end > read_at + 1
    expect(readout).to_have_text("Moment 3 of 3")
    digest_at_end = lab(page).get_attribute("data-digest")

    # Step back: just before the read (the cut is there, the read is not)
    back = bar.locator(".history-back")
    back.click()
    at(page, read_at, end)
    expect(rows(page, "read")).to_have_count(0)
    expect(rows(page, "write")).to_have_count(1)
    expect(link_ab(page)).to_have_attribute("data-state", "cut")
    expect(readout).to_have_text("Moment 2 of 3")
    expect(page.locator(".timeline-state")).to_have_text(
        "Time waits while you look at the past."
    )
    # Step back again: just before the cut, the link whole, the write delivered
    back.click()
    at(page, cut_at, end)
    expect(link_ab(page)).not_to_have_attribute("data-state", "cut")
    expect(rows(page, "write")).to_have_attribute("data-status", "ok")
    expect(readout).to_have_text("Moment 1 of 3")
    clock_before_cut = page.locator(".timeline-clock").inner_text()

    # Step forward: the end of the cut's moment, then the end
    forward = bar.locator(".history-forward")
    forward.click()
    at(page, read_at, end)
    expect(link_ab(page)).to_have_attribute("data-state", "cut")
    forward.click()
    at(page, end, end)
    expect(lab(page)).to_have_attribute("data-digest", digest_at_end)
    expect(forward).to_have_attribute("aria-disabled", "true")
    scrubber = page.locator("#history-scrubber")
    expect(scrubber).to_have_attribute("aria-valuetext", "Moment 3 of 3")  # time runs

    # the keyboard: PageDown and PageUp on the scrubber move by a moment
    scrubber.focus()
    page.keyboard.press("PageDown")
    at(page, read_at, end)
    page.keyboard.press("PageDown")
    at(page, cut_at, end)
    expect(scrubber).to_have_attribute(
        "aria-valuetext", f"Moment 1 of 3, at {clock_ms(clock_before_cut)} ms"
    )
    # an arrow moves one position: into the write's ticks, between two moments
    page.keyboard.press("ArrowLeft")
    at(page, cut_at - 1, end)
    expect(readout).to_have_text("Moment 1 of 3")
    expect(page.locator(".timeline-clock")).not_to_have_text(clock_before_cut)
    between_ms = clock_ms(page.locator(".timeline-clock").inner_text())
    expect(scrubber).to_have_attribute(
        "aria-valuetext", f"Moment 1 of 3, at {between_ms} ms"
    )
    page.keyboard.press("PageUp")  # the end of the write's moment: before the cut
    at(page, cut_at, end)
    page.keyboard.press("PageDown")
    page.keyboard.press("PageDown")  # the start: before the write
    at(page, 0, end)
    expect(rows(page, "write")).to_have_count(0)
    expect(readout).to_have_text("Before moment 1 of 3")
    expect(back).to_have_attribute("aria-disabled", "true")
    page.keyboard.press("End")
    at(page, end, end)

    # a drag-free way to the time between moments: the middle of the write's ticks
    middle = cut_at // 2
    scrubber.fill(str(middle))
    at(page, middle, end)
    expect(readout).to_have_text("Moment 1 of 3")
    page.locator(".playback-panel").scroll_into_view_if_needed()
    save_screenshot(page, f"history-moments-quorum-{viewport['width']}")
    assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
    assert page.console_errors == []
    context.close()


def clock_ms(text):
    """ "t = 1,234 ms" → "1,234"."""
    return text.removeprefix("t = ").removesuffix(" ms")


def test_the_stops_when_only_the_moments_around_the_cursor_are_listed(
    page, live_server_url
):
    """moments.js on the part of a long timeline the server lists (docs/protocol.md)."""
    page.goto(f"{live_server_url}/labs/hash-placement/")
    expect(page.locator("#connection-status")).to_have_attribute("data-state", "open")
    got = page.evaluate(
        """async () => {
          const m = await import("/static/js/moments.js");
          // 1,000 moments every 10 positions; 200 listed from moment 401 on
          const timeline = { cursor: 5003, length: 10000, ...m.momentsOf({
            length: 10000, moments_skipped: 400, moments_total: 1000,
            moments: Array.from({ length: 200 }, (_, i) => (400 + i) * 10),
          }) };
          const old = { length: 3, ...m.momentsOf({ length: 3 }) };  // none listed
          return {
            back: m.stopBefore(timeline, 5003),
            backAtStop: m.stopBefore(timeline, 5000),
            forward: m.stopAfter(timeline, 5003),
            begun: m.momentsBegun(timeline, 5003),
            beforeListed: m.stopBefore(timeline, 4000),
            afterListed: m.stopAfter(timeline, 5990),
            old: [old.moments, m.stopBefore(old, 2), m.stopAfter(old, 2)],
            marks: m.marksBackground(timeline) !== null,
          };
        }"""
    )
    assert got == {
        "back": 5000,  # the start of the moment the cursor is in
        "backAtStop": 4990,  # already there: the one before
        "forward": 5010,  # the end of the moment
        "begun": 501,
        "beforeListed": 3999,  # none listed below: one position, the frame lists more
        "afterListed": 5991,
        "old": [[0, 1, 2], 1, 3],
        "marks": True,
    }
    assert page.console_errors == []
