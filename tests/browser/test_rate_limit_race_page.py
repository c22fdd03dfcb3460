"""rate-limit-race in real headless Chromium against a live daphne.

The race of the course's order seen to its end (101 admitted, one past the limit) and
the same with INCR (100); the order changed by dragging a step and by the keyboard,
and an order the server refuses; every ordering counted; the key left with no expiry
by a client that died between INCR and EXPIRE; the first screen at desktop and phone
widths. Most tests ask for reduced motion: the steps land at once.
"""

import re

import pytest
from playwright.sync_api import expect

from simulators.labs import LABS

pytestmark = pytest.mark.browser
COURSE = "A1 B1 A2 B2 A3 B3"


@pytest.fixture
def calm(kept_contexts):
    """A page that prefers reduced motion (steps land at once), 1280 × 900."""
    page = kept_contexts[0].new_page(
        {"width": 1280, "height": 900}, reduced_motion="reduce"
    )
    yield page
    page.close()


SKIP_TOUR = (
    "localStorage.setItem('playground:tour:rate-limit-race',"
    " JSON.stringify({state: 'skipped', step: 0}))"
)


def open_lab(page, url, seed=1):
    # the tour skipped: its card, appearing after the first frame, moves the stage
    # down, and a drag measured before it would miss its chips
    page.add_init_script(SKIP_TOUR)
    page.goto(f"{url}/labs/rate-limit-race/?seed={seed}")
    expect(page.locator("#connection-status")).to_have_attribute("data-state", "open")
    expect(page.locator("#lab")).to_have_attribute("data-drawn", "1")
    expect(page.locator("#stage .rlr-chip")).to_have_count(6)


def submit(page, action):
    where = [
        f'{p} form[data-action="{action}"]' for p in ("#quick-controls", "#controls")
    ]
    form = page.locator(", ".join(where)).first
    form.locator('button[type="submit"]').click()
    return form


def chips(page):
    return page.locator("#stage .rlr-chip")


def order_shown(page):
    return " ".join(chips(page).evaluate_all("cs => cs.map((c) => c.dataset.step)"))


def sent(page, seq_before):
    """Wait for the frame after `seq_before`."""
    page.wait_for_function(
        "before => document.querySelector('#lab').dataset.seq !== before",
        arg=seq_before,
    )


def test_run_all_in_the_courses_order_admits_101_and_incr_admits_100(
    calm, live_server_url
):
    lab = LABS["rate-limit-race"](seed=1)
    (*_, done) = lab.apply("run_all", {})
    assert (done["admitted"], done["value"]) == (101, 100)
    open_lab(calm, live_server_url)
    assert order_shown(calm) == COURSE
    submit(calm, "run_all")
    banner = calm.locator(".rlr-banner")
    expect(banner.locator(".rlr-result-big")).to_have_text("101 admitted — limit 100")
    expect(banner).to_contain_text("1 request over the limit")
    # the one past the line: B's request in the slot numbered 101, marked "over"
    over = banner.locator('.rlr-slot[data-over="true"][data-filled="true"]')
    expect(over).to_have_count(1)
    expect(over).to_contain_text("101")
    expect(over).to_contain_text("over")
    expect(calm.locator(".rlr-value")).to_have_text("100")
    for name in ("A", "B"):
        lane = calm.locator(f'.rlr-lane[data-client="{name}"]')
        expect(lane).to_have_attribute("data-outcome", "admitted")
        expect(lane.locator('.rlr-step[data-step$="1"] .rlr-reply')).to_have_text(
            '→ "99"'
        )
    expect(calm.locator("#latest")).to_contain_text("101 requests admitted")
    # INCR: the replies are 100 and 101, and only A is admitted
    form = calm.locator('#quick-controls form[data-action="set_mode"]')
    form.get_by_label("Counting", exact=True).select_option(
        label="INCR, then compare the reply"
    )
    form.locator('button[type="submit"]').click()
    expect(chips(calm)).to_have_count(4)
    submit(calm, "run_all")
    expect(calm.locator(".rlr-result-big")).to_have_text("100 admitted — limit 100")
    expect(calm.locator(".rlr-value")).to_have_text("101")
    expect(calm.locator('.rlr-lane[data-client="B"]')).to_have_attribute(
        "data-outcome", "refused"
    )
    # never colour alone: each outcome and decision says itself with a mark and a word
    expect(calm.locator('.rlr-lane[data-client="A"] .rlr-outcome')).to_have_text(
        "✓ admitted"
    )
    expect(calm.locator('.rlr-lane[data-client="B"] .rlr-outcome')).to_have_text(
        "✗ refused"
    )
    expect(calm.locator('.rlr-step[data-step="B2"] .rlr-reply')).to_have_text(
        "✗ refused"
    )
    expect(calm.locator('.rlr-step[data-step="B1"] .rlr-reply')).to_have_text(
        "→ (integer) 101"
    )
    assert calm.console_errors == []


def drag(page, step, onto):
    """Drag chip `step` with the mouse and drop it just before chip `onto`."""
    page.locator(f'.rlr-chip[data-step="{step}"]').scroll_into_view_if_needed()
    a = page.locator(f'.rlr-chip[data-step="{step}"]').bounding_box()
    b = page.locator(f'.rlr-chip[data-step="{onto}"]').bounding_box()
    start = (a["x"] + a["width"] / 2, a["y"] + a["height"] / 2)
    page.mouse.move(*start)
    page.mouse.down()
    for i in range(1, 9):  # a drag, not a click: several moves
        x = start[0] + (b["x"] + 4 - start[0]) * i / 8
        page.mouse.move(x, start[1] + 2)
    page.mouse.up()


def test_the_order_is_changed_by_dragging_and_by_the_keyboard(
    calm, live_server_url, lab_driver
):
    open_lab(calm, live_server_url)
    seq = calm.locator("#lab").get_attribute("data-seq")
    drag(calm, "B1", "A1")
    sent(calm, seq)
    expect(calm.locator("#field-set_order-order")).to_have_value("B1 A1 A2 B2 A3 B3")
    assert order_shown(calm) == "B1 A1 A2 B2 A3 B3"
    expect(calm.locator("#latest")).to_contain_text("The order is now B1 A1 A2 B2")
    # a move its client's own order forbids is not made, and the page says why
    seq = calm.locator("#lab").get_attribute("data-seq")
    drag(calm, "A2", "A1")
    expect(calm.locator(".rlr-strip-note")).to_contain_text(
        "A2 stays after A1: a client runs its own steps in their order"
    )
    assert calm.locator("#lab").get_attribute("data-seq") == seq
    # the keyboard: Tab reaches the row (one stop), the arrows move along it, and
    # Alt+← moves the focused step one place back
    keys = lab_driver(calm)
    keys.tab_to('.rlr-chip[tabindex="0"]')
    calm.keyboard.press("Home")
    expect(calm.locator('.rlr-chip[data-step="B1"]')).to_be_focused()
    for _ in range(3):
        calm.keyboard.press("ArrowRight")
    expect(calm.locator('.rlr-chip[data-step="B2"]')).to_be_focused()
    calm.keyboard.press("Alt+ArrowLeft")
    sent(calm, seq)
    expect(calm.locator("#field-set_order-order")).to_have_value("B1 A1 B2 A2 A3 B3")
    assert order_shown(calm) == "B1 A1 B2 A2 A3 B3"
    expect(calm.locator(".rlr-strip-note")).to_have_text(
        "B2 moved to place 3 of 6. Order sent: B1 A1 B2 A2 A3 B3."
    )
    expect(calm.locator('.rlr-chip[data-step="B2"]')).to_be_focused()
    assert calm.console_errors == []


def test_every_ordering_counts_18_of_20_and_loads_an_example(calm, live_server_url):
    lab = LABS["rate-limit-race"](seed=1)
    (every,) = lab.apply("every_ordering", {})
    open_lab(calm, live_server_url)
    submit(calm, "every_ordering")
    panel = calm.locator(".rlr-orderings")
    expect(panel.locator(".rlr-orderings-sum")).to_have_text(
        "18 of 20 orderings admit more than 100"
    )
    bars = panel.locator("g.rlr-bar")
    expect(bars).to_have_count(2)
    expect(panel.locator('g.rlr-bar[data-over="true"] .rlr-bar-count')).to_have_text(
        "18"
    )
    example = every["examples"][1]
    panel.get_by_role("button", name=f"Play the order {example}").click()
    expect(calm.locator("#field-set_order-order")).to_have_value(example)
    assert order_shown(calm) == example
    expect(
        panel.get_by_role("button", name=f"Play the order {example}")
    ).to_have_attribute("aria-pressed", "true")
    assert calm.console_errors == []


def test_a_client_dying_between_incr_and_expire_leaves_a_key_that_never_expires(
    calm, live_server_url
):
    open_lab(calm, live_server_url)
    form = calm.locator('#quick-controls form[data-action="set_mode"]')
    form.get_by_label("Counting", exact=True).select_option(
        label="INCR, then EXPIRE: two commands"
    )
    form.locator('button[type="submit"]').click()
    pitfall = calm.locator(".rlr-pitfall")
    expect(pitfall).to_be_visible()
    pitfall.get_by_role("button", name="A new minute: 0 admitted").click()
    expect(calm.locator(".rlr-value")).to_have_text("(nil)")
    submit(calm, "step")  # A's INCR makes the key: 1, no expiry yet
    expect(calm.locator('.rlr-step[data-step="A1"] .rlr-reply')).to_have_text(
        "→ (integer) 1"
    )
    expect(calm.locator(".rlr-packet")).to_have_count(0)  # reduced motion: no flight
    calm.get_by_role("button", name="Crash client A").click()
    expect(calm.locator('.rlr-step[data-step="A2"]')).to_have_attribute(
        "data-state", "dropped"
    )
    submit(calm, "run_all")
    pitfall.get_by_role("button", name="Let 61 s pass").click()
    expect(calm.locator(".rlr-clock")).to_have_text("clock: 61 s")
    ttl = calm.locator(".rlr-ttl")
    expect(ttl).to_have_attribute("data-ttl", "never")
    expect(ttl).to_contain_text("no expiry")
    expect(ttl).to_contain_text("TTL → (integer) -1")
    expect(calm.locator(".rlr-value")).to_have_text("2")
    expect(pitfall.locator(".rlr-pitfall-now")).to_contain_text(
        "rate:user42 = 2 with no expiry"
    )
    # a hundred more requests: the counter passes 100 and never expires
    pitfall.get_by_role("button", name="Send 100 more").click()
    expect(calm.locator(".rlr-locked")).to_be_visible()
    expect(pitfall.locator(".rlr-pitfall-later")).to_contain_text("Locked out")
    assert calm.console_errors == []


def test_an_order_naming_a_step_twice_is_refused_in_the_servers_words(
    calm, live_server_url
):
    open_lab(calm, live_server_url)
    form = calm.locator('#controls form[data-action="set_order"]')
    form.locator("input").fill("A1 A1 B1 A2 B2 A3")
    form.locator('button[type="submit"]').click()
    error = form.locator(".form-error")
    expect(error).to_have_text(
        "Not applied: A1 is named twice in the order: every step runs once"
    )
    expect(form.locator("input")).to_have_attribute("aria-invalid", "true")
    assert order_shown(calm) == COURSE
    assert calm.console_errors == []


@pytest.mark.parametrize("size", [(1280, 800), (390, 844)])
def test_the_drawing_is_in_the_first_screen_and_the_first_click_moves_it(
    kept_contexts, live_server_url, size
):
    width, height = size
    page = kept_contexts[0].new_page({"width": width, "height": height})
    open_lab(page, live_server_url, seed=8)
    for selector in (".rlr-banner", ".rlr-arena", ".rlr-redis", ".rlr-chips"):
        box = page.locator(selector).bounding_box()
        assert box and box["height"] >= 30, (selector, box)
        assert box["y"] >= 0 and box["y"] + box["height"] <= height, (selector, box)
        assert box["x"] >= 0 and box["x"] + box["width"] <= width, (selector, box)
    button = page.locator(
        '#quick-controls form[data-action="step"] button[type="submit"]'
    )
    assert button.evaluate("b => b.getBoundingClientRect().bottom <= innerHeight")
    button.click()
    # the command is on its way to Redis, then A1 shows the reply
    expect(page.locator(".rlr-packet")).to_have_count(1)
    expect(page.locator('.rlr-step[data-step="A1"] .rlr-reply')).to_have_text('→ "99"')
    expect(page.locator('.rlr-chip[data-step="B1"]')).to_have_attribute(
        "data-state", "next"
    )
    assert page.evaluate("() => document.documentElement.scrollWidth") <= width
    assert page.console_errors == []
    page.close()


@pytest.mark.parametrize(
    ("lang", "said"),
    [
        ("zh-hans", re.compile(r"[\u4e00-\u9fff]")),
        ("th", re.compile(r"[\u0e00-\u0e7f]")),
    ],
)
def test_the_race_in_chinese_and_thai(calm, live_server_url, lang, said):
    calm.goto(f"{live_server_url}/labs/rate-limit-race/?seed=1&lang={lang}")
    expect(calm.locator("#connection-status")).to_have_attribute("data-state", "open")
    submit(calm, "run_all")
    expect(calm.locator(".rlr-value")).to_have_text("100")
    # the server's words (the way of counting) come in the page's language
    expect(
        calm.locator('#quick-controls form[data-action="set_mode"]')
    ).to_contain_text(said)
    assert calm.console_errors == []


@pytest.mark.parametrize(
    ("lang", "result_101", "result_100"),
    [
        ("zh-hans", "已放行 101 个 — 限额 100", "已放行 100 个 — 限额 100"),
        ("th", "ปล่อยผ่าน 101 — ขีดจำกัด 100", "ปล่อยผ่าน 100 — ขีดจำกัด 100"),
    ],
)
def test_101_then_100_and_every_ordering_in_chinese_and_thai(
    kept_contexts, live_server_url, lang, result_101, result_100
):
    page = kept_contexts[0].new_page(
        {"width": 1280, "height": 900}, reduced_motion="reduce"
    )
    page.goto(f"{live_server_url}/labs/rate-limit-race/?seed=1&lang={lang}")
    expect(page.locator("#connection-status")).to_have_attribute("data-state", "open")
    submit(page, "run_all")
    expect(page.locator(".rlr-result-big")).to_have_text(result_101)
    submit(page, "every_ordering")
    summary = page.locator(".rlr-orderings .rlr-orderings-sum")
    expect(summary).to_contain_text("18")
    expect(summary).to_contain_text("20")
    expect(summary).not_to_contain_text("orderings admit")
    form = page.locator('#quick-controls form[data-action="set_mode"]')
    form.locator("select").select_option(index=1)  # INCR, then compare the reply
    form.locator('button[type="submit"]').click()
    expect(chips(page)).to_have_count(4)
    submit(page, "run_all")
    expect(page.locator(".rlr-result-big")).to_have_text(result_100)
    assert page.console_errors == []
    page.close()


def test_on_a_projector_the_drawing_grows_and_a_command_lands_on_the_counter(
    kept_contexts, live_server_url
):
    """At 1920×1080 the drawing (laid out in HTML) is zoomed with the stage (stage-fit's
    growWithRoom): its text is larger than a laptop's, and a command still flies from
    its card to Redis's counter, whatever the zoom."""
    page = kept_contexts[0].new_page({"width": 1920, "height": 1080})
    open_lab(page, live_server_url, seed=8)
    root = page.locator("#stage .rlr-lab")
    zoom = float(root.evaluate("r => r.currentCSSZoom"))
    assert 1.5 <= zoom <= 1.601, zoom
    size = page.locator(".rlr-step .rlr-command").first.evaluate(
        "c => parseFloat(getComputedStyle(c).fontSize) * c.currentCSSZoom"
    )
    assert size >= 16, size
    # the flight, held at its end: the packet sits on the counter
    page.locator('#quick-controls form[data-action="step"] button').click()
    packet = page.locator(".rlr-packet")
    expect(packet).to_have_count(1)
    centre = packet.evaluate(
        """p => {
          const flight = p.getAnimations()[0];
          flight.pause();
          flight.currentTime = flight.effect.getComputedTiming().endTime - 1;
          const r = p.getBoundingClientRect();
          return { x: r.left + r.width / 2, y: r.top + r.height / 2 };
        }"""
    )
    counter = page.locator(".rlr-counter").bounding_box()
    assert counter
    assert abs(centre["x"] - (counter["x"] + counter["width"] / 2)) < 6, (
        centre,
        counter,
    )
    assert abs(centre["y"] - (counter["y"] + counter["height"] / 2)) < 6, (
        centre,
        counter,
    )
    assert page.console_errors == []
    page.close()
