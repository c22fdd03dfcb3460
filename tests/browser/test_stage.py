"""The stage layout (issue 10): on every lab page and embed, at 1280×800 and 390×844,
the drawing is in the first viewport, and the first click of the primary action moves
it at once: no scrolling, no Play.

Before the stage layout the drawings started 885 px down on a laptop and 1,091–2,144 px
down on a phone, and in quorum and partition-cap nothing moved until Play was found.
"""

import pytest
from playwright.sync_api import expect

WIDE = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
SIZES = [pytest.param(WIDE, id="1280"), pytest.param(PHONE, id="390")]

# each lab's first primary action: the quick bar's button a student clicks first
PRIMARY = {
    "hash-placement": "add_shard",
    "replication": "write",
    "quorum": "write",
    "partition-cap": "book",
    "two-phase-commit": "book",
    "cache-stampede": "skip_to_expiry",
    "graph-traversal": "course_query",
}


def stage_box(page) -> dict:
    return page.locator("#stage").evaluate(
        """stage => { const r = stage.getBoundingClientRect();
        return {top: r.top, bottom: r.bottom, left: r.left, right: r.right,
                height: r.height, width: r.width}; }"""
    )


def assert_in_first_viewport(page, viewport) -> None:
    assert page.evaluate("window.scrollY") == 0
    box = stage_box(page)
    assert box["top"] >= 0 and box["left"] >= 0, box
    assert box["bottom"] <= viewport["height"], box
    assert box["right"] <= viewport["width"], box
    # a stage, not a strip: at least a quarter of the screen's height (a phone's
    # hash-placement is three narrow cards, as tall as their rings and bins)
    assert box["height"] >= viewport["height"] / 4, box


def open_page(page, url, viewport):
    page.set_viewport_size(viewport)
    page.goto(url)
    expect(page.locator("#connection-status")).to_have_attribute("data-state", "open")
    expect(page.locator("#stage")).not_to_have_attribute("aria-busy", "true")
    page.wait_for_timeout(400)  # the first drawing settles (rings, bins, a layout)


def click_primary_and_see_it_move(page, slug) -> None:
    """Click the primary action in view; the stage's pixels change within a second."""
    before_scroll = page.evaluate("window.scrollY")
    stage = page.locator("#stage")
    before = stage.screenshot()
    button = page.locator(f'#quick-controls form[data-action="{PRIMARY[slug]}"] button')
    # reachable without scrolling: in the first viewport as it is
    assert button.evaluate(
        "b => { const r = b.getBoundingClientRect(); return r.top >= 0 && "
        "r.bottom <= window.innerHeight; }"
    ), "the primary action is below the first screen"
    button.click(no_wait_after=True)
    changed = False
    for _ in range(5):  # five looks over one second
        page.wait_for_timeout(200)
        if stage.screenshot() != before:
            changed = True
            break
    assert changed, f"{slug}: the stage did not change within 1 s of the first click"
    assert page.evaluate("window.scrollY") == before_scroll  # nothing scrolled
    # the lab plays by itself: nobody pressed Play
    play = page.locator(".timeline-play")
    if play.count():
        expect(play).to_have_attribute("data-playing", "true")


@pytest.mark.parametrize("viewport", SIZES)
@pytest.mark.parametrize("slug", list(PRIMARY))
def test_a_lab_page_is_its_stage_and_moves_on_the_first_click(
    page, live_server_url, slug, viewport
):
    open_page(page, f"{live_server_url}/labs/{slug}/?seed=7", viewport)
    assert_in_first_viewport(page, viewport)
    # the "Just now" line is in the first screen too
    latest = page.locator(".latest")
    bottom = latest.evaluate("e => e.getBoundingClientRect().bottom")
    assert bottom <= viewport["height"]
    click_primary_and_see_it_move(page, slug)
    assert page.console_errors == []


@pytest.mark.parametrize("viewport", SIZES)
@pytest.mark.parametrize("slug", list(PRIMARY))
def test_an_embed_is_its_stage_and_moves_on_the_first_click(
    page, live_server_url, slug, viewport
):
    open_page(page, f"{live_server_url}/embed/{slug}/?seed=7", viewport)
    assert_in_first_viewport(page, viewport)
    click_primary_and_see_it_move(page, slug)
    assert page.console_errors == []


@pytest.mark.parametrize("viewport", SIZES)
def test_an_embed_without_controls_is_all_stage(page, live_server_url, viewport):
    open_page(page, f"{live_server_url}/embed/quorum/?controls=0", viewport)
    assert_in_first_viewport(page, viewport)
    expect(page.locator("#quick-controls")).to_have_count(0)
    assert page.console_errors == []


def test_on_a_phone_the_stage_stays_in_view_while_the_controls_are_used(
    page, live_server_url
):
    open_page(page, f"{live_server_url}/labs/quorum/", PHONE)
    # a control of the full panel, far below the first screen
    group = page.locator('.controls-group[data-group="settings"]')
    if not group.evaluate("d => d.open"):
        group.locator("summary").click()
    form = page.locator('#controls form[data-action="set_copies"]')
    form.locator("button").click()
    page.wait_for_timeout(300)
    assert page.evaluate("window.scrollY") > 0  # the page did scroll to the control
    box = stage_box(page)
    assert box["top"] >= 0 and box["bottom"] <= PHONE["height"], box
    # and the control is not under the stage
    top = form.locator("button").evaluate("b => b.getBoundingClientRect().top")
    assert top >= box["bottom"] - 1
    assert page.console_errors == []


@pytest.mark.parametrize("controls", [True, False], ids=["controls", "no-controls"])
@pytest.mark.parametrize("slug", list(PRIMARY))
def test_the_proposed_embed_size_frames_the_stage_and_the_first_action(
    page, live_server_url, slug, controls
):
    """The size the Embed dialog and oEmbed propose holds the stage and, with controls,
    the primary action: nothing a reader needs first is below the frame."""
    from playground.embeds import DEFAULT_HEIGHTS, DEFAULT_WIDTH, SHORT_HEIGHT

    frame = {
        "width": DEFAULT_WIDTH,
        "height": DEFAULT_HEIGHTS[slug] if controls else SHORT_HEIGHT,
    }
    query = "" if controls else "?controls=0"
    open_page(page, f"{live_server_url}/embed/{slug}/{query}", frame)
    assert_in_first_viewport(page, frame)
    if controls:
        click_primary_and_see_it_move(page, slug)
    assert page.evaluate("document.documentElement.scrollWidth") <= frame["width"]
    assert page.console_errors == []


def test_the_drawings_stay_when_the_tour_squeezes_the_stage(page, live_server_url):
    """After the first click the tour's second step (four lines) leaves the cards
    little height; every figure keeps at least its floor instead of vanishing (it fell
    to 0 × 0: the fit box's container height was taken before its min-height)."""
    open_page(page, f"{live_server_url}/labs/hash-placement/", WIDE)
    page.locator('#quick-controls form[data-action="add_shard"] button').click()
    page.wait_for_timeout(2500)  # the flight, and the tour's next step
    sizes = page.locator(".card-figure").evaluate_all(
        "figures => figures.map(f => [f.getBoundingClientRect().width,"
        " f.getBoundingClientRect().height])"
    )
    assert len(sizes) == 3
    assert all(w >= 60 and h >= 60 for w, h in sizes), sizes
