"""partition-cap in real headless Chromium against a live daphne."""

import re

import pytest
from playwright.sync_api import expect

from simulators.airline import Airline

pytestmark = pytest.mark.browser


def link(page, lid):
    return page.locator(f'g.net-link[data-link="{lid}"]')


def client(page, cid):
    return page.locator(f'.pc-client[data-client="{cid}"]')


def latest_answer(page, cid):
    return client(page, cid).locator(".pc-answers li").first


def open_lab(page, url, seed):
    page.goto(f"{url}/labs/partition-cap/?seed={seed}")
    expect(page.locator("#connection-status")).to_have_attribute("data-state", "open")
    expect(page.locator("g.net-node")).to_have_count(3)
    expect(page.locator(".pc-copies tbody tr")).to_have_count(3)


def play(page):
    """Nothing to press: a lab on the clock plays whenever something is in flight."""
    expect(page.locator("#timeline .timeline-play")).to_have_attribute(
        "data-playing", "true"
    )


def test_answer_anyway_on_both_sides_then_lww_silently_drops_a_booking(
    page, live_server_url
):
    seed = 11
    open_lab(page, live_server_url, seed)
    # cut Tokyo off by clicking its two links in the drawing
    link(page, "A-C").click()
    expect(link(page, "A-C")).to_have_attribute("data-state", "cut")
    link(page, "B-C").click()
    expect(link(page, "B-C")).to_have_attribute("data-state", "cut")

    # both travellers book with "answer anyway": both are told "booked"
    client(page, "fra").locator('[data-act="book-anyway"]').click()
    expect(latest_answer(page, "fra")).to_have_attribute("data-result", "booked")
    client(page, "tyo").locator('[data-act="book-anyway"]').click()
    expect(latest_answer(page, "tyo")).to_have_attribute("data-result", "booked")
    frankfurt, tokyo = Airline(seed).booking_id(0), Airline(seed).booking_id(1)
    expect(latest_answer(page, "fra")).to_contain_text(f"booked ({frankfurt})")
    expect(latest_answer(page, "tyo")).to_contain_text(f"booked ({tokyo})")
    for server in "AC":  # each side sold the seat: zero left on both sides
        row = page.locator(f'.pc-copies tr[data-server="{server}"]')
        expect(row).to_have_attribute("data-seats", "0")
    expect(page.locator(".pc-header")).to_have_attribute("data-converged", "no")

    # heal under last writer wins (the default rule) and let the copies meet
    expect(page.locator(".pc-rule")).to_contain_text("last writer wins")
    heal = '#quick-controls form[data-action="heal_all"] button[type="submit"]'
    page.locator(heal).click()
    expect(link(page, "A-C")).to_have_attribute("data-state", "up")
    play(page)

    vanished = page.locator(".pc-vanished")
    expect(vanished).to_be_visible(timeout=30_000)
    items = vanished.locator("li")
    expect(items).to_have_count(1)
    # both were stamped at t = 0 ms: the tie goes to the later server letter, C
    expect(items.first).to_have_attribute("data-booking", frankfurt)
    expect(items.first).to_contain_text("VANISHED")
    # struck through and labelled, not shown by colour alone
    expect(items.first.locator("s")).to_have_text(frankfurt)
    expect(items.first).to_contain_text("nobody was told")
    expect(page.locator(".pc-conflicts li").first).to_contain_text(
        "{A: 1} and {C: 1} are concurrent"
    )
    expect(page.locator(".pc-header")).to_have_attribute(
        "data-converged", "yes", timeout=30_000
    )
    for server in "ABC":
        row = page.locator(f'.pc-copies tr[data-server="{server}"]')
        expect(row).to_contain_text(tokyo)
        expect(row).not_to_contain_text(frankfurt)
        expect(row).to_contain_text("{A: 1, C: 1}")
    # neither client got an error: their last answers still say "booked"
    expect(latest_answer(page, "fra")).to_have_attribute("data-result", "booked")
    expect(latest_answer(page, "tyo")).to_have_attribute("data-result", "booked")
    expect(page.locator('.pc-metrics [data-metric="vanished"] dd')).to_have_text("1")
    expect(page.locator('.pc-metrics [data-metric="confirmed"] dd')).to_have_text("2")
    expect(page.locator('.pc-metrics [data-metric="surviving"] dd')).to_have_text("1")
    assert page.console_errors == []


def test_a_dragged_split_makes_the_small_side_refuse_while_its_board_answers(
    page, live_server_url
):
    open_lab(page, live_server_url, seed=4)
    page.locator("svg.net-svg").scroll_into_view_if_needed()  # below the playback panel
    box = page.locator("svg.net-svg").bounding_box()
    b = page.locator('g.net-node[data-node="B"]').bounding_box()
    c = page.locator('g.net-node[data-node="C"]').bounding_box()
    x = (b["x"] + b["width"] / 2 + c["x"] + c["width"] / 2) / 2
    page.mouse.move(x, box["y"] + 8)
    page.mouse.down()
    page.mouse.move(x, box["y"] + box["height"] / 2, steps=6)
    page.mouse.move(x, box["y"] + box["height"] - 8, steps=6)
    page.mouse.up()
    expect(link(page, "A-C")).to_have_attribute("data-state", "cut")
    expect(link(page, "B-C")).to_have_attribute("data-state", "cut")
    expect(link(page, "A-B")).to_have_attribute("data-state", "up")

    client(page, "fra").locator('[data-act="book-majority"]').click()
    client(page, "tyo").locator('[data-act="book-majority"]').click()
    play(page)
    expect(latest_answer(page, "fra")).to_have_attribute(
        "data-result", "booked", timeout=30_000
    )
    expect(latest_answer(page, "tyo")).to_have_attribute(
        "data-result", "refused", timeout=30_000
    )
    expect(latest_answer(page, "tyo")).to_contain_text(
        "no majority: 1 of 3 copies reachable"
    )
    client(page, "tyo").locator('[data-act="board-anyway"]').click()
    board = latest_answer(page, "tyo")
    expect(board).to_have_attribute("data-result", "answered")
    expect(board).to_contain_text(re.compile(r"1 seat left \(stale"))
    assert page.console_errors == []


PHONE = {"width": 390, "height": 844}


def page_width(page):
    return page.evaluate("document.documentElement.scrollWidth")


def test_at_phone_width_nothing_scrolls_the_page_sideways(page, live_server_url):
    page.set_viewport_size(PHONE)
    open_lab(page, live_server_url, seed=11)
    assert page_width(page) <= PHONE["width"]
    link(page, "A-C").click()
    link(page, "B-C").click()
    expect(link(page, "B-C")).to_have_attribute("data-state", "cut")
    for cid in ("fra", "tyo"):
        client(page, cid).locator('[data-act="book-anyway"]').click()
        expect(latest_answer(page, cid)).to_have_attribute("data-result", "booked")
    client(page, "tyo").locator('[data-act="book-majority"]').click()
    play(page)
    expect(latest_answer(page, "tyo")).to_have_attribute(
        "data-result", re.compile("refused|sold_out"), timeout=30_000
    )
    expect(page.locator(".pc-header")).to_have_attribute("data-converged", "no")
    assert page_width(page) <= PHONE["width"]
    # the copies table fits the phone as it is, without a scroll bar of its own
    wrap = page.locator(".pc-copies-wrap")
    assert wrap.evaluate("e => e.scrollWidth <= e.clientWidth")
    assert page.console_errors == []
