"""The shared network view and playback bar in headless Chromium, on the quorum lab."""

import re

import pytest
from playwright.sync_api import expect

from playground.liveserver import (
    canvas_print,
    click_link,
    next_frames,
    wait_until_canvas_changes,
)

pytestmark = pytest.mark.browser
LAB = "quorum"
DOTS = "canvas.net-dots"


def link(page, link_id):
    """A link's group (clicked on its line: playground.liveserver.click_link)."""
    return page.locator(f'g.net-link[data-link="{link_id}"]')


def node(page, node_id):
    return page.locator(f'g.net-node[data-node="{node_id}"]')


def open_lab(page, url, seed=3):
    page.goto(f"{url}/labs/{LAB}/?seed={seed}")
    expect(page.locator("g.net-node")).to_have_count(3)
    expect(page.locator("#connection-status")).to_have_attribute("data-state", "open")
    expect(page.locator("#timeline")).to_be_visible()


def centre(box):
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def test_clicking_a_link_cuts_it_and_clicking_again_heals_it(page, live_server_url):
    open_lab(page, live_server_url)
    expect(link(page, "A-B")).to_have_attribute("data-state", "up")
    click_link(link(page, "A-B"))
    expect(link(page, "A-B")).to_have_attribute("data-state", "cut")
    expect(link(page, "A-B").locator(".link-label")).to_have_text("cut")
    expect(link(page, "A-B")).to_have_attribute(
        "aria-label", "Link between A and B, cut. Press to heal it."
    )
    click_link(link(page, "A-B"))
    expect(link(page, "A-B")).to_have_attribute("data-state", "up")
    assert page.console_errors == []


def test_clicking_a_node_stops_it_and_says_so_in_words(page, live_server_url):
    open_lab(page, live_server_url)
    node(page, "C").click()
    expect(node(page, "C")).to_have_attribute("data-state", "stopped")
    expect(node(page, "C").locator(".node-stopped")).to_be_visible()
    # the lab may add what the node holds between the state and the verb
    spoken = re.compile(r"^C, stopped\..*Press to restart it\.$")
    expect(node(page, "C")).to_have_attribute("aria-label", spoken)
    node(page, "C").click()
    expect(node(page, "C")).to_have_attribute("data-state", "up")
    expect(node(page, "C").locator(".node-stopped")).to_be_hidden()
    assert page.console_errors == []


def test_dragging_a_line_across_the_drawing_splits_the_network(page, live_server_url):
    open_lab(page, live_server_url)
    a, b, c = (centre(node(page, n).bounding_box()) for n in "ABC")
    # a line halfway between A and the middle of B and C, square to that direction
    others = ((b[0] + c[0]) / 2, (b[1] + c[1]) / 2)
    mid = ((a[0] + others[0]) / 2, (a[1] + others[1]) / 2)
    dx, dy = others[0] - a[0], others[1] - a[1]
    length = (dx * dx + dy * dy) ** 0.5
    px, py = -dy / length, dx / length
    start = (mid[0] - px * 150, mid[1] - py * 150)
    end = (mid[0] + px * 150, mid[1] + py * 150)
    page.mouse.move(*start)
    page.mouse.down()
    page.mouse.move(*mid, steps=6)
    # while dragging, the two sides are marked
    expect(page.locator("g.net-node.side-a, g.net-node.side-b")).to_have_count(3)
    page.mouse.move(*end, steps=6)
    page.mouse.up()
    expect(link(page, "A-B")).to_have_attribute("data-state", "cut")
    expect(link(page, "A-C")).to_have_attribute("data-state", "cut")
    expect(link(page, "B-C")).to_have_attribute("data-state", "up")
    expect(page.locator("g.net-node.side-a, g.net-node.side-b")).to_have_count(0)
    assert page.console_errors == []


def test_links_and_nodes_work_from_the_keyboard(page, live_server_url, lab_driver):
    open_lab(page, live_server_url)
    lab_driver(page).tab_to('g.net-link[data-link="B-C"]')
    page.keyboard.press("Enter")
    expect(link(page, "B-C")).to_have_attribute("data-state", "cut")
    lab_driver(page).tab_to('g.net-node[data-node="A"]')
    page.keyboard.press(" ")
    expect(node(page, "A")).to_have_attribute("data-state", "stopped")
    assert page.console_errors == []


def test_dots_move_while_playing_and_stand_still_when_paused(page, live_server_url):
    open_lab(page, live_server_url)
    play = page.locator("#timeline .timeline-play")
    # alive at once: the lab plays without anyone pressing Play
    expect(play).to_have_attribute("data-playing", "true")
    expect(play).to_have_accessible_name("Pause")
    page.select_option("#timeline-speed", label="1/100×")
    quick = page.locator("#quick-controls")
    quick.locator('form[data-action="write"] button[type="submit"]').click()
    expect(page.locator(".net-counts")).not_to_contain_text("On the wire: 0 ")
    expect(page.locator("#timeline .timeline-state")).to_have_text("Playing.")
    assert canvas_print(page, DOTS)[0] > 0  # dots are drawn
    wait_until_canvas_changes(page, DOTS)  # and they move by themselves
    expect(page.locator("#timeline .timeline-clock")).not_to_have_text("t = 0 ms")
    # Space on the stage pauses: nothing moves
    page.locator("#stage").focus()
    page.keyboard.press(" ")
    expect(play).to_have_attribute("data-playing", "false")
    expect(play).to_have_accessible_name("Play")
    next_frames(page)  # the pause's own frame is drawn
    paused = canvas_print(page, DOTS)
    next_frames(page, 20)  # a third of a second of drawing: dots in flight would move
    assert canvas_print(page, DOTS) == paused
    play.click()
    expect(play).to_have_attribute("data-playing", "true")
    assert page.console_errors == []
