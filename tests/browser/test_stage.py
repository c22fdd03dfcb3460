"""The stage layout (issue 10): on every lab page and embed, at 1280×800 and 390×844,
the drawing is in the first viewport, and the first click of the primary action moves
it at once: no scrolling, no Play. Those checks run for every lab, language and size in
tests/browser/test_lab_sweep.py (the primary action is each lab's manifest's); here,
what one page shows of the layout: an embed without controls, a phone scrolling to a
control, the tour squeezing the stage.

Before the stage layout the drawings started 885 px down on a laptop and 1,091–2,144 px
down on a phone, and in quorum and partition-cap nothing moved until Play was found.
"""

import pytest
from pagechecks import PHONE, WIDE, assert_in_first_viewport, open_page, stage_box
from playwright.sync_api import expect

SIZES = [pytest.param(WIDE, id="1280"), pytest.param(PHONE, id="390")]


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
