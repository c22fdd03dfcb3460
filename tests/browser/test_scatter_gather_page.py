"""scatter-gather in real headless Chromium against a live daphne (issue 13).

A fan-out seen on the stage (every shard asked, each answer arriving, the merge when
the slowest lands), a query by key that asks one shard, by mouse and by keyboard; the
tail measured against N; Chinese and Thai; the first screen at desktop and phone widths.
"""

import re

import pytest
from playwright.sync_api import expect

from playground.liveserver import watch_errors
from simulators.labs import LABS

pytestmark = pytest.mark.browser


def shards(page):
    return page.locator("#stage g.sg-shard")


def asked(page):
    return page.locator('#stage g.sg-shard[data-asked="yes"]')


def open_lab(page, url, seed=1, lang="en"):
    page.goto(f"{url}/labs/scatter-gather/?seed={seed}&lang={lang}")
    expect(page.locator("#connection-status")).to_have_attribute("data-state", "open")
    expect(shards(page)).to_have_count(8)


def expected(seed, *actions):
    lab = LABS["scatter-gather"](seed=seed)
    return [lab.apply(name, args) for name, args in actions]


def submit(page, action):
    where = [
        f'{p} form[data-action="{action}"]' for p in ("#quick-controls", "#controls")
    ]
    form = page.locator(", ".join(where)).first
    form.locator('button[type="submit"]').click()
    return form


def test_a_query_without_the_key_fans_out_and_waits_for_the_slowest(
    page, live_server_url
):
    seed = 2
    ((query,),) = expected(seed, ("query_scatter", {}))
    open_lab(page, live_server_url, seed)
    submit(page, "query_scatter")
    expect(asked(page)).to_have_count(8)
    # the answers come back one by one: the router counts them before it merges
    count = page.locator(".sg-router-count")
    expect(count).to_have_text(re.compile(r"^[0-7] of 8 answers$"))
    expect(count).to_have_text("8 of 8 answers", timeout=10_000)
    slowest_ms = f"{query['latency_us'] / 1000:.1f} ms"
    expect(page.locator(".sg-router-time")).to_have_text(f"merged at {slowest_ms}")
    slowest = page.locator("#stage g.sg-shard.is-slowest")
    expect(slowest).to_have_attribute("data-shard", str(query["slowest"]))
    expect(slowest.locator(".sg-shard-time")).to_have_text(slowest_ms)
    expect(page.locator("#latest")).to_contain_text("asked all 8 shards")
    assert page.console_errors == []


def test_by_keyboard_a_query_by_key_asks_one_shard_and_64_shards_are_drawn(
    page, live_server_url, lab_driver
):
    seed = 3
    ((query,),) = expected(seed, ("query_by_key", {"flight_id": 42}))
    open_lab(page, live_server_url, seed)
    keys = lab_driver(page)
    keys.tab_to('#quick-controls form[data-action="query_by_key"] input')
    page.keyboard.press("Control+A")
    page.keyboard.type("42")
    page.keyboard.press("Enter")
    expect(asked(page)).to_have_count(1)
    expect(asked(page)).to_have_attribute("data-shard", str(query["slowest"]))
    expect(page.locator('#stage g.sg-shard[data-asked="no"]')).to_have_count(7)
    expect(page.locator(".sg-counts")).to_contain_text("1 of 8 shards asked")
    keys.tab_to('#quick-controls form[data-action="set_shards"] input')
    page.keyboard.press("Control+A")
    page.keyboard.type("64")
    page.keyboard.press("Enter")
    expect(shards(page)).to_have_count(64)
    assert page.console_errors == []


def test_the_measured_tail_is_drawn_over_the_analytic_curve(page, live_server_url):
    open_lab(page, live_server_url, seed=4)
    points = page.locator(".sg-tail .sg-point")
    expect(points).to_have_count(0)
    expect(page.locator(".sg-tail path.sg-analytic.sg-p99")).to_have_attribute(
        "d", re.compile("^M")
    )
    form = page.locator('#quick-controls form[data-action="measure"]')
    form.locator("input").fill("2000")
    form.locator('button[type="submit"]').click()
    expect(points).to_have_count(14)  # p50 and p99 at N = 1, 2, 4 ... 64
    label = page.locator(".sg-tail svg").get_attribute("aria-label")
    assert "Measured" in label
    expect(page.locator("#latest")).to_contain_text("2,000 simulated queries")
    assert page.console_errors == []


def test_a_column_that_does_not_exist_is_not_offered_and_bad_values_are_refused(
    page, live_server_url
):
    open_lab(page, live_server_url)
    form = page.locator('#controls form[data-action="index_query"]')
    page.evaluate(
        "() => document.querySelector('#controls details')?.setAttribute('open', '')"
    )
    form.locator("input").fill("XXX")
    form.locator('button[type="submit"]').click()
    expect(form.locator(".form-error")).to_be_visible()
    expect(asked(page)).to_have_count(0)
    assert page.console_errors == []


@pytest.mark.parametrize(
    ("lang", "said"),
    [
        ("zh-hans", re.compile(r"[\u4e00-\u9fff]")),
        ("th", re.compile(r"[\u0e00-\u0e7f]")),
    ],
)
def test_a_fan_out_in_chinese_and_thai(page, live_server_url, lang, said):
    open_lab(page, live_server_url, seed=2, lang=lang)
    submit(page, "query_scatter")
    expect(asked(page)).to_have_count(8)
    expect(page.locator("#latest")).to_contain_text(said)
    expect(page.locator(".sg-router-name")).to_have_text(said)
    assert page.console_errors == []


@pytest.mark.parametrize("size", [(1280, 800), (390, 844)])
def test_the_drawing_is_in_the_first_screen_and_the_first_click_moves_it(
    browser, live_server_url, size
):
    width, height = size
    context = browser.new_context(viewport={"width": width, "height": height})
    page = watch_errors(context.new_page())
    open_lab(page, live_server_url, seed=8)
    for selector in (".sg-cluster", ".sg-tail svg"):
        box = page.locator(selector).bounding_box()
        assert box and box["height"] >= 60, (selector, box)
        assert box["y"] + box["height"] <= height, (selector, box)
        assert box["x"] >= 0 and box["x"] + box["width"] <= width
    button = page.locator(
        '#quick-controls form[data-action="query_scatter"] button[type="submit"]'
    )
    button.scroll_into_view_if_needed()
    button.click()
    expect(asked(page)).to_have_count(8)
    assert page.evaluate("() => document.documentElement.scrollWidth") <= width
    assert page.console_errors == []
    context.close()
