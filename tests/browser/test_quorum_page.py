"""quorum in real headless Chromium against a live daphne: stale reads, seen and not."""

import re

import pytest
from playwright.sync_api import expect

from playground.liveserver import click_link, watch_errors
from simulators.labs.quorum import QuorumLab

pytestmark = pytest.mark.browser
SEED = 3


def expected_trials(w, r, cut=()):
    """What the counter must show for this page's seed, computed by the simulator."""
    lab = QuorumLab(seed=SEED)
    lab.apply("set_levels", {"w": w, "r": r})
    for link in cut:
        lab.apply("cut_link", {"link": link})
    return lab.apply("run_trials", {"count": 1000})[0]


def open_lab(page, url):
    page.goto(f"{url}/labs/quorum/?seed={SEED}")
    expect(page.locator(".net-node")).to_have_count(3)
    expect(page.locator("#connection-status")).to_have_attribute("data-state", "open")


def set_levels(page, w_label, r_label):
    form = page.locator('#controls form[data-action="set_levels"]')
    form.locator("select").nth(0).select_option(label=w_label)
    form.locator("select").nth(1).select_option(label=r_label)
    form.locator('button[type="submit"]').click()


def stale_rows(page):
    return page.locator('.q-history tr[data-kind="read"][data-stale="true"]')


def test_w1_r1_with_a_cut_link_shows_a_stale_read_and_w2_r2_none(page, live_server_url):
    open_lab(page, live_server_url)
    set_levels(page, "ONE (1 copy)", "ONE (1 copy)")
    expect(page.locator(".q-levels")).to_contain_text("W = ONE (1 of 3)")
    expect(page.locator(".q-promise")).to_have_attribute("data-guaranteed", "false")

    click_link(page.locator('.net-link[data-link="A-B"]'))
    expect(page.locator('.net-link[data-link="A-B"]')).to_have_attribute(
        "data-state", "cut"
    )

    expected = expected_trials("ONE", "ONE", cut=("A-B",))
    assert expected["stale"] > 0
    page.locator('[data-q="run-trials"]').click()
    counter = page.locator(".q-trials")
    expect(counter).to_have_attribute("data-stale", str(expected["stale"]))
    expect(counter).to_contain_text("links cut: A-B")

    replay = page.locator('[data-q="replay-first-stale"]')
    expect(replay).to_contain_text(f"#{expected['first_stale']}")
    replay.click()
    expect(page.locator(".q-replay")).to_be_visible()
    # no Play to press: the replayed trial's messages fly at once
    expect(stale_rows(page)).to_have_count(1, timeout=15_000)
    expect(stale_rows(page)).to_contain_text("STALE")
    expect(stale_rows(page).locator("td").nth(1)).to_have_text("120")
    expect(stale_rows(page).locator("td").nth(2)).to_have_text("119")
    expect(page.locator("#narration")).to_contain_text("STALE")
    expect(page.locator('dd[data-metric="stale_reads"]')).to_have_text("1")

    # the same cut link under W=2, R=2: the counter finds none, and a live read is fresh
    page.locator(".timeline-play").click()  # pause
    set_levels(page, "QUORUM (a majority)", "QUORUM (a majority)")
    expect(page.locator(".q-promise")).to_have_attribute("data-guaranteed", "true")
    assert expected_trials("QUORUM", "QUORUM", cut=("A-B",))["stale"] == 0
    page.locator('[data-q="run-trials"]').click()
    expect(counter).to_have_attribute("data-stale", "0")
    expect(replay).to_be_hidden()

    quick = page.locator("#quick-controls")
    quick.locator('form[data-action="write"] button[type="submit"]').click()
    page.locator(".timeline-play").click()
    writes = page.locator('.q-history tr[data-kind="write"][data-status="ok"]')
    expect(writes).to_have_count(2, timeout=15_000)
    quick.locator('form[data-action="read"] button[type="submit"]').click()
    fresh = page.locator('.q-history tr[data-kind="read"][data-stale="false"]')
    expect(fresh).to_have_count(1, timeout=15_000)
    expect(fresh).to_contain_text("latest")
    expect(stale_rows(page)).to_have_count(1)  # only the replayed one, from before
    expect(page.locator(".q-overlap")).to_contain_text("Shared copy")
    assert page.console_errors == []


def test_a_stopped_node_blocks_writes_at_all(page, live_server_url):
    open_lab(page, live_server_url)
    set_levels(page, "ALL (every copy)", "ONE (1 copy)")
    page.locator('.net-node[data-node="C"]').click()
    expect(page.locator('.net-node[data-node="C"]')).to_have_attribute(
        "data-state", "stopped"
    )
    quick = page.locator("#quick-controls")
    quick.locator('form[data-action="write"] button[type="submit"]').click()
    failed = page.locator('.q-history tr[data-kind="write"][data-status="failed"]')
    expect(failed).to_have_count(1, timeout=15_000)
    expect(failed).to_contain_text("only 2 of 3 copies confirmed; W=3 needs 3")
    expect(page.locator('dd[data-metric="failed_writes"]')).to_have_text("1")
    assert page.console_errors == []


PHONE = {"width": 390, "height": 844}


def page_width(page):
    return page.evaluate("document.documentElement.scrollWidth")


def test_at_phone_width_nothing_scrolls_the_page_sideways(page, live_server_url):
    page.set_viewport_size(PHONE)
    open_lab(page, live_server_url)
    assert page_width(page) <= PHONE["width"]
    quick = page.locator("#quick-controls")
    for action in ("write", "read", "write", "read"):
        quick.locator(f'form[data-action="{action}"] button[type="submit"]').click()
    done = page.locator('.q-history tbody tr[data-status="ok"]')
    expect(done).to_have_count(4, timeout=15_000)
    page.locator('[data-q="run-trials"]').click()
    expect(page.locator(".q-trials")).to_have_attribute("data-stale", re.compile(r"\d"))
    # the wide history table scrolls inside its own box, not the page
    assert page_width(page) <= PHONE["width"]
    wrap = page.locator(".q-table-wrap")
    assert wrap.evaluate("e => e.scrollWidth > e.clientWidth")
    assert page.console_errors == []


def test_a_held_hint_is_counted_in_words(page, live_server_url):
    """Before: "1 hint(s)"."""
    open_lab(page, live_server_url)
    page.locator('.net-node[data-node="C"]').click()
    expect(page.locator('.net-node[data-node="C"]')).to_have_attribute(
        "data-state", "stopped"
    )
    quick = page.locator("#quick-controls")
    quick.locator("#field-write-w").select_option(label="ONE (1 copy)")
    quick.locator('form[data-action="write"] button[type="submit"]').click()
    expect(page.locator("#stage")).to_contain_text("1 hint", timeout=15_000)
    expect(page.locator("#stage")).not_to_contain_text("hint(s)")
    assert page.console_errors == []


def test_on_a_phone_the_stale_verdict_is_in_view(page, live_server_url):
    """Before: the verdict was the ninth column, off screen inside a 336 px box."""
    page.set_viewport_size(PHONE)
    open_lab(page, live_server_url)
    for name in ("settings", "drawing"):  # a phone's panel starts folded
        group = page.locator(f'.controls-group[data-group="{name}"]')
        if not group.evaluate("d => d.open"):
            group.locator("summary").click()
    set_levels(page, "ONE (1 copy)", "ONE (1 copy)")
    page.locator('#controls form[data-action="cut_link"] button').click()
    expect(page.locator('.net-link[data-link="A-B"]')).to_have_attribute(
        "data-state", "cut"
    )
    page.locator('[data-q="run-trials"]').click()
    page.locator('[data-q="replay-first-stale"]').click()
    expect(stale_rows(page)).to_have_count(1, timeout=15_000)
    verdict = stale_rows(page).locator("td.q-verdict-stale")
    expect(verdict).to_have_text("⚠ STALE")
    # brought into view as a reader scrolls down to it: up and down only
    page.evaluate(
        "y => window.scrollBy(0, y)",
        verdict.evaluate("e => e.getBoundingClientRect().top - window.innerHeight / 2"),
    )
    wrap = page.locator(".q-table-wrap")
    assert wrap.evaluate("e => e.scrollLeft") == 0
    right = verdict.evaluate("e => e.getBoundingClientRect().right")
    assert right <= wrap.evaluate("e => e.getBoundingClientRect().right")
    assert right <= PHONE["width"]
    assert page_width(page) <= PHONE["width"]
    assert page.console_errors == []


def pause(page):
    play = page.locator(".timeline-play")
    expect(play).to_have_attribute("data-playing", "true")
    play.click()
    expect(play).to_have_attribute("data-playing", "false")


def quick_write(page, coordinator, level="ONE (1 copy)"):
    quick = page.locator("#quick-controls")
    quick.locator("#field-write-w").select_option(label=level)
    quick.locator("#field-write-coordinator").select_option(coordinator)
    quick.locator('form[data-action="write"] button[type="submit"]').click()


def test_a_write_lost_to_a_timestamp_tie_is_explained_where_the_learner_looks(
    page, live_server_url
):
    """Before: B's write and A's later one, both at 0 ms: A's vanished unexplained."""
    open_lab(page, live_server_url)
    pause(page)  # so that no time passes between the two writes
    quick_write(page, "B")
    expect(page.locator('.q-history tr[data-kind="write"]')).to_have_count(1)
    quick_write(page, "A")
    expect(page.locator('.q-history tr[data-kind="write"]')).to_have_count(2)
    page.locator(".timeline-play").click()
    headline = page.locator("#stage .q-tie")  # one sentence on the stage
    expect(headline).to_be_visible(timeout=15_000)
    expect(headline).to_have_attribute("data-lost", "2")
    expect(headline).to_contain_text(
        "Same timestamp, t=0 ms: write #1 by B beat the later write #2 by A, "
        "which was discarded."
    )
    tie = page.locator(".q-tie-note")  # why, in full, in the side panel
    expect(tie).to_be_visible()
    expect(tie).to_contain_text("Timestamp tie")
    for words in (
        "Same timestamp",
        "write #1 (119 seats, by B)",
        "write #2 (118 seats, by A)",
        "t=0 ms",
        "The tie goes to the larger writer id, B.",
        "The later write #2 by A was discarded",
        "Cassandra breaks such ties just as blindly: it keeps the larger value.",
    ):
        expect(tie).to_contain_text(words)
    expect(page.locator("#event-log")).to_contain_text("Timestamp tie at t=0 ms")
    # every copy ends with B's 119 (the panels carry their copy's value)
    copies = page.locator("#stage [data-copy-value]")
    expect(copies).to_have_count(3)
    for i in range(3):
        expect(copies.nth(i)).to_have_attribute("data-copy-value", "119", timeout=9_000)
    assert page.console_errors == []


def test_lost_writes_are_plotted_against_the_clock_skew(page, live_server_url):
    lab = QuorumLab(seed=SEED)
    ladder = {"node": "A", "ladder": "0,-1,-5,-20,-100,-1000", "count": 1000}
    (expected,) = lab.apply("skew_ladder", ladder)
    lost = [str(rung["lost_writes"]) for rung in expected["rungs"]]
    assert lost[0] == "0" and int(lost[-1]) > 100
    open_lab(page, live_server_url)
    run = page.locator('[data-q="skew-ladder"]')
    expect(run).to_contain_text("A's clock skew")
    run.click()
    bars = page.locator(".q-ladder-bar")
    expect(bars).to_have_count(6, timeout=15_000)
    for i, count in enumerate(lost):
        expect(bars.nth(i)).to_have_attribute("data-lost", count)
        expect(bars.nth(i).locator("text")).to_have_text(count)
    chart = page.locator(".q-ladder-chart")
    expect(chart).to_have_attribute("role", "img")
    expect(chart).to_have_attribute(
        "aria-label", re.compile(r"Lost writes of 1,000 trials against A's clock skew")
    )
    ticks = chart.locator(".q-axis-x .tick text")
    expect(ticks).to_have_text(["0", "−1", "−5", "−20", "−100", "−1,000"])
    rows = page.locator(".q-ladder-table tbody tr")
    expect(rows).to_have_count(6)
    expect(rows.nth(5)).to_contain_text("−1,000 ms")
    expect(rows.nth(5)).to_contain_text(f"{int(lost[-1]):,}")
    expect(page.locator(".q-ladder")).to_contain_text("lost writes at 0 ms")
    # reachable by keyboard: the chart takes focus right after the button
    run.focus()
    page.keyboard.press("Tab")
    assert chart.evaluate("e => e === document.activeElement")
    expect(page.locator("#event-log")).to_contain_text(
        "Lost writes against A's clock skew"
    )
    assert page.console_errors == []


def test_a_sloppy_quorum_acknowledges_on_stand_ins_and_the_owners_miss_it(
    page, live_server_url
):
    """Five nodes, three copies: A and B cut off, a W=2 write through C lands on the
    stand-ins D and E (said in words on their cards), a read through A misses it."""
    open_lab(page, live_server_url)
    page.locator("#field-set_nodes-nodes").select_option(label="5")
    page.locator('form[data-action="set_nodes"] button[type="submit"]').click()
    expect(page.locator(".net-node")).to_have_count(5)
    expect(page.locator('#stage [data-role="spare"]')).to_have_count(2)
    expect(page.locator("#stage")).to_contain_text("no copy of the row")
    page.get_by_role("switch", name="Sloppy quorum").click()
    expect(page.locator(".q-levels")).to_contain_text("sloppy quorum on")
    split = page.locator('#controls form[data-action="split"]')
    split.locator("input").fill("A,B")
    split.locator('button[type="submit"]').click()
    expect(page.locator('.net-link[data-link="A-C"]')).to_have_attribute(
        "data-state", "cut"
    )
    quick_write(page, "C", level="2")
    ok = page.locator('.q-history tr[data-kind="write"][data-status="ok"]')
    expect(ok).to_have_count(1, timeout=15_000)
    stand_ins = page.locator('#stage [data-role="stand-in"]')
    expect(stand_ins).to_have_count(2)
    expect(stand_ins.first).to_contain_text("stand-in for A")
    expect(stand_ins.first).to_contain_text("hint: 119 seats")
    expect(page.locator("#event-log")).to_contain_text("stands in for unreachable A")

    quick = page.locator("#quick-controls")
    quick.locator("#field-read-r").select_option(label="2")
    quick.locator("#field-read-coordinator").select_option("A")
    quick.locator('form[data-action="read"] button[type="submit"]').click()
    expect(stale_rows(page)).to_have_count(1, timeout=15_000)

    page.locator('#controls form[data-action="heal_all"] button').click()
    expect(page.locator('#stage [data-role="stand-in"]')).to_have_count(
        0, timeout=15_000
    )
    quick.locator('form[data-action="read"] button[type="submit"]').click()
    fresh = page.locator('.q-history tr[data-kind="read"][data-stale="false"]')
    expect(fresh).to_have_count(1, timeout=15_000)
    assert page.console_errors == []


@pytest.mark.parametrize("size", [(1280, 800), (390, 844)])
def test_a_ring_of_five_stays_in_the_first_screen(browser, live_server_url, size):
    width, height = size
    context = browser.new_context(viewport={"width": width, "height": height})
    page = watch_errors(context.new_page())
    page.goto(f"{live_server_url}/labs/quorum/?seed={SEED}")
    expect(page.locator("#connection-status")).to_have_attribute("data-state", "open")
    form = page.locator('#controls form[data-action="set_nodes"]')
    if not form.is_visible():  # a phone's panel starts folded
        form.locator("xpath=ancestor::details/summary").click()
    form.locator("select").select_option(label="5")
    form.locator('button[type="submit"]').click()
    expect(page.locator(".net-node")).to_have_count(5)
    page.evaluate("window.scrollTo(0, 0)")
    cards = page.locator("#stage .q-card")
    expect(cards).to_have_count(5)
    for i in range(5):
        box = cards.nth(i).bounding_box()
        assert box and box["y"] >= 0 and box["y"] + box["height"] <= height, (i, box)
        assert box["x"] >= 0 and box["x"] + box["width"] <= width, (i, box)
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    assert page.console_errors == []
    context.close()


def wait_for_offered(page, count):
    """Until the Nodes (M) list offers `count` choices."""
    page.wait_for_function(
        "n => [...document.querySelector('#field-set_nodes-nodes').options]"
        ".filter(o => !o.disabled).length === n",
        arg=count,
    )


def test_the_ring_offers_no_fewer_nodes_than_copies(page, live_server_url):
    """M below N cannot be done: with five copies the Nodes (M) list offers 5 alone,
    and with three again 3, 4 and 5."""
    open_lab(page, live_server_url)
    nodes = page.locator("#field-set_nodes-nodes")
    offered = "e => [...e.options].filter(o => !o.disabled).map(o => o.text)"
    assert nodes.evaluate(offered) == ["3", "4", "5"]
    copies = page.locator('#controls form[data-action="set_copies"]')
    copies.locator("select").select_option(label="5")
    copies.locator('button[type="submit"]').click()
    expect(page.locator(".net-node")).to_have_count(5)
    wait_for_offered(page, 1)
    assert nodes.evaluate(offered) == ["5"]
    assert nodes.evaluate("e => e.options[e.selectedIndex].text") == "5"
    copies.locator("select").select_option(label="3")
    copies.locator('button[type="submit"]').click()
    expect(page.locator(".net-node")).to_have_count(3)
    wait_for_offered(page, 3)
    assert page.console_errors == []


def test_on_a_phone_the_verdicts_leave_the_cluster_its_room(browser, live_server_url):
    """At 390 x 844, with the checker's box full (three operations) and the lines above
    the cluster long (Thai), the cluster is still drawn large: its nodes span at least
    70 px (the box and the lines left them 44 px before they were made compact)."""
    context = browser.new_context(viewport={"width": 390, "height": 844})
    page = watch_errors(context.new_page())
    page.goto(f"{live_server_url}/labs/quorum/?seed={SEED}&lang=th")
    expect(page.locator("#connection-status")).to_have_attribute("data-state", "open")
    skip = page.locator(".tour-skip")
    if skip.is_visible():
        skip.click()
    quick = page.locator("#quick-controls")
    for action in ("write", "read", "read"):
        quick.locator(f'form[data-action="{action}"] button[type="submit"]').click()
    expect(page.locator(".q-judged .hd-op")).to_have_count(3, timeout=15_000)
    page.evaluate("window.scrollTo(0, 0)")
    ys = [
        page.locator(f'#stage .net-node[data-node="{n}"]').bounding_box()["y"]
        for n in "ABC"
    ]
    assert max(ys) - min(ys) >= 70, ys
    summary = page.locator("#stage .q-summary")
    assert summary.evaluate("e => e.tabIndex") == 0
    assert summary.get_attribute("aria-label")
    assert page.console_errors == []
    context.close()
