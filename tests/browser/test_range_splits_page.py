"""range-splits in real headless Chromium against a live daphne (issue 13).

A split seen on the stage, first in place and then moved, by mouse and by keyboard; a
timestamp stream heating one shard; a range query lighting its slices; a new shard's
lane; in English, Chinese and Thai; at desktop and phone widths.
"""

import re

import pytest
from playwright.sync_api import expect

from simulators.labs import LABS

pytestmark = pytest.mark.browser

LANE_Y = {s: 16 + i * 42 for i, s in enumerate("ABCDE")}  # lanes.js: AXIS + i * 42


def slices(page, policy):
    return page.locator(f'.rs-panel[data-policy="{policy}"] g.rs-slice')


def open_lab(page, url, seed=1, lang="en"):
    page.goto(f"{url}/labs/range-splits/?seed={seed}&lang={lang}")
    expect(page.locator("#connection-status")).to_have_attribute("data-state", "open")
    for policy in ("size", "load"):
        expect(slices(page, policy)).to_have_count(1)


def lane_of(page, policy, slice_id) -> float:
    """Where a slice is drawn now: the y of its translate."""
    bar = page.locator(f'.rs-panel[data-policy="{policy}"] g[data-slice="{slice_id}"]')
    transform = bar.get_attribute("transform")
    return float(re.search(r",\s*([-\d.]+)\)", transform).group(1))


def expected(seed, *actions):
    lab = LABS["range-splits"](seed=seed)
    frames = [lab.apply(name, args) for name, args in actions]
    return lab, frames


def write_by_mouse(page, kind=None):
    form = page.locator('#quick-controls form[data-action="write"]')
    if kind:
        form.locator('select[name$="-kind"]').select_option(label=kind)
    form.locator('button[type="submit"]').click()


def test_a_split_is_drawn_in_place_first_then_one_half_moves(page, live_server_url):
    seed = 3
    lab, (events,) = expected(
        seed, ("write", {"kind": "uniform", "count": 20_000, "rate": 5_000})
    )
    moved = [e for e in events if e["type"] == "slice_moved" and e["policy"] == "size"]
    open_lab(page, live_server_url, seed)
    write_by_mouse(page)
    count = len(lab.snapshot()["tables"]["size"]["slices"])
    expect(slices(page, "size")).to_have_count(count)
    # the first moment: every new slice still on shard A, where the keys were
    last = moved[-1]
    assert lane_of(page, "size", last["slice"]) == LANE_Y["A"]
    # the second: it slides to the lane of the shard it moved to
    final = lab.snapshot()["tables"]["size"]["slices"]
    shard = next(r["shard"] for r in final if r["id"] == last["slice"])
    page.wait_for_function(
        """([id, y]) => {
          const g = document.querySelector(
            `.rs-panel[data-policy="size"] g[data-slice="${id}"]`);
          return g && Math.abs(parseFloat(g.getAttribute("transform")
            .split(",")[1]) - y) < 0.01;
        }""",
        arg=[last["slice"], LANE_Y[shard]],
    )
    for row in final:
        bar = page.locator(f'.rs-panel[data-policy="size"] g[data-slice="{row["id"]}"]')
        expect(bar).to_have_attribute("data-shard", row["shard"])
    expect(page.locator("#latest")).to_contain_text("Wrote 20,000 passenger ids")
    splits = lab.metrics()["splits"]["size"]
    expect(page.locator("#latest")).to_contain_text(f"Split by size: {splits} splits")
    # the boundary table beside the drawing, sorted, from the start to the end
    table = page.locator('.rs-boundaries[data-policy="size"] tbody tr')
    expect(table).to_have_count(count)
    expect(table.first.locator("td").nth(1)).to_have_text("(the start)")
    expect(table.last.locator("td").nth(2)).to_have_text("(the end)")
    assert page.console_errors == []


def test_timestamps_heat_one_shard_and_hash_placement_spreads_them(
    page, live_server_url
):
    open_lab(page, live_server_url, seed=4)
    write_by_mouse(page, "Timestamps")
    heat = page.locator(".rs-heat")
    for policy in ("size", "load"):
        expect(
            heat.locator(f'[data-placement="{policy}"] .rs-heat-share')
        ).to_have_text(re.compile(r"^[A-D] took 100%$"))
    share = heat.locator('[data-placement="hash"] .rs-heat-share')
    expect(share).to_have_text(re.compile(r"took 2[5-7]%"))
    label = heat.locator('[data-placement="size"] canvas').get_attribute("aria-label")
    assert re.search(r"[A-D] 20,000", label), label
    # the load table split its hot tail again and again; the latest write is in the
    # last slice, on the shard that took every write
    assert slices(page, "load").count() > 3
    for policy in ("size", "load"):
        newest = page.locator(f'.rs-panel[data-policy="{policy}"] g.rs-slice.is-newest')
        expect(newest).to_have_count(1)
        assert newest.get_attribute("data-slice") == slices(
            page, policy
        ).last.get_attribute("data-slice")
    assert page.console_errors == []


def test_by_keyboard_alone_write_a_range_query_and_add_a_shard(
    page, live_server_url, lab_driver
):
    seed = 6
    lab, frames = expected(
        seed,
        ("write", {"kind": "skewed", "count": 20_000, "rate": 5_000}),
        ("range_query", {"low": "N12300", "high": "N12399"}),
    )
    read = frames[1][0]
    open_lab(page, live_server_url, seed)
    keys = lab_driver(page)
    keys.tab_to('#quick-controls form[data-action="write"] select[name$="-kind"]')
    page.keyboard.press("End")  # the last choice: registrations
    keys.tab_to('#quick-controls form[data-action="write"] button[type="submit"]')
    page.keyboard.press("Enter")
    count = len(lab.snapshot()["tables"]["size"]["slices"])
    expect(slices(page, "size")).to_have_count(count)
    keys.tab_to('#quick-controls form[data-action="range_query"] button[type="submit"]')
    page.keyboard.press("Enter")
    for policy in ("size", "load"):
        lit = page.locator(f'.rs-panel[data-policy="{policy}"] g.rs-slice.is-read')
        expect(lit).to_have_count(len(read["slices"][policy]))
        assert 1 <= len(read["slices"][policy]) <= 2
        band = page.locator(f'.rs-panel[data-policy="{policy}"] rect.rs-band')
        expect(band).to_have_attribute("visibility", "visible")
    expect(page.locator("#latest")).to_contain_text(
        "hash placement must ask every shard, A, B, C, D"
    )
    rows = page.locator('.rs-boundaries[data-policy="size"] tr.is-read')
    expect(rows).to_have_count(len(read["slices"]["size"]))
    keys.tab_to('#quick-controls form[data-action="add_shard"] button[type="submit"]')
    page.keyboard.press("Enter")
    expect(page.locator('.rs-panel[data-policy="size"] g.rs-lane')).to_have_count(5)
    expect(
        page.locator('.rs-panel[data-policy="size"] g.rs-slice[data-shard="E"]').first
    ).to_be_attached()
    expect(page.locator("#latest")).to_contain_text("Shard E added")
    # a change that only moved slices says so, without "0 splits"
    expect(page.locator("#latest")).to_contain_text(
        re.compile(r"Split by size: \d+ slices? moved\.")
    )
    expect(page.locator("#latest")).not_to_contain_text("0 splits")
    assert page.console_errors == []


def test_a_refused_query_says_why_beside_its_form_and_changes_nothing(
    page, live_server_url
):
    open_lab(page, live_server_url)
    form = page.locator('#quick-controls form[data-action="range_query"]')
    form.locator('input[name$="-low"]').fill("N9")
    form.locator('input[name$="-high"]').fill("N1")
    form.locator('button[type="submit"]').click()
    expect(form.locator(".form-error")).to_have_text(
        re.compile("the range starts after it ends: N9 > N1")
    )
    expect(page.locator(".rs-band").first).to_have_attribute("visibility", "hidden")
    assert page.console_errors == []


@pytest.mark.parametrize(
    ("lang", "said"),
    [
        ("zh-hans", re.compile(r"[\u4e00-\u9fff]")),
        ("th", re.compile(r"[\u0e00-\u0e7f]")),
    ],
)
def test_a_split_in_chinese_and_thai(page, live_server_url, lang, said):
    open_lab(page, live_server_url, seed=2, lang=lang)
    expect(page.locator("html")).to_have_attribute("lang", lang)
    write_by_mouse(page)
    expect(slices(page, "size")).not_to_have_count(1)
    expect(page.locator("#latest")).to_contain_text(said)
    expect(page.locator(".rs-panel-title").first).to_have_text(said)
    assert page.console_errors == []


@pytest.mark.parametrize("size", [(1280, 800), (390, 844)])
def test_the_drawing_is_in_the_first_screen_and_the_first_click_moves_it(
    browser, live_server_url, size
):
    from playground.liveserver import watch_errors

    width, height = size
    context = browser.new_context(viewport={"width": width, "height": height})
    page = watch_errors(context.new_page())
    open_lab(page, live_server_url, seed=8)
    for policy in ("size", "load"):
        box = page.locator(f'.rs-panel[data-policy="{policy}"] svg').bounding_box()
        assert box and box["height"] >= 60, box
        assert box["y"] + box["height"] <= height, (policy, box)
        assert box["x"] >= 0 and box["x"] + box["width"] <= width
    heat = page.locator(".rs-heat").bounding_box()
    assert heat and heat["y"] + heat["height"] <= height, heat
    write = page.locator(
        '#quick-controls form[data-action="write"] button[type="submit"]'
    )
    write.scroll_into_view_if_needed()
    write.click()
    expect(slices(page, "size")).not_to_have_count(1)
    widest = page.evaluate("() => document.documentElement.scrollWidth")
    assert widest <= width
    assert page.console_errors == []
    context.close()
