"""The guided tour in real headless Chromium: every lab's, to its end by "Show me"
alone and by the visitor's own clicks; skipped and resumed; opened at a step by a link;
and run by a class's host for everyone."""

import re

import pytest
from playwright.sync_api import expect

from playground.liveserver import click_link
from simulators.labs import LABS

pytestmark = pytest.mark.browser
WIDE = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
SLUGS = sorted(LABS)
WAIT_MS = 15_000  # a step that waits for messages to land takes a few seconds


def step_ids(slug):
    return [step.id for step in LABS[slug].tour]


class Visitors:
    """New visitors of the live server: a test's pages, each in a kept context of the
    module's (`kept_contexts`, tests/browser/conftest.py; playground.liveserver's
    KeptContext), the first page in the first."""

    def __init__(self, contexts, url):
        self.contexts = contexts
        self.url = url
        self.pages = []

    def page(self, viewport=WIDE):
        page = self.contexts[len(self.pages)].new_page(viewport)
        self.pages.append(page)
        return page

    def __call__(self, slug, viewport=WIDE, query=""):
        """A new visitor's page of `slug`, connected."""
        page = self.page(viewport)
        page.goto(f"{self.url}/labs/{slug}/{query}")
        connected(page)
        return page

    def close(self):
        for page in self.pages:
            page.close()


@pytest.fixture
def visit(kept_contexts, live_server_url):
    """Open a lab as a new visitor: `visit(slug, viewport=WIDE, query="")` → page."""
    visitors = Visitors(kept_contexts, live_server_url)
    yield visitors
    visitors.close()


def connected(page):
    expect(page.locator("#connection-status")).to_have_attribute("data-state", "open")


def card(page):
    return page.locator("#tour")


def at_step(page, number):
    expect(card(page)).to_be_visible()
    expect(card(page)).to_have_attribute("data-step", str(number), timeout=WAIT_MS)
    expect(card(page)).to_have_attribute("data-done", "false")


def highlighted(page):
    """The control or the spot the step rings."""
    target = page.locator('[data-tour-highlight="target"]')
    expect(target).to_have_count(1)
    expect(page.locator(".tour-ring")).to_be_visible()
    return target


def done(page):
    expect(card(page)).to_have_attribute("data-done", "true", timeout=WAIT_MS)
    expect(card(page).locator(".tour-notice")).to_be_visible()
    expect(card(page).locator(".tour-error")).to_be_hidden()


def next_step(page):
    card(page).locator(".tour-next").click()


def show_me(page):
    button = card(page).get_by_role("button", name="Show me")
    expect(button).not_to_have_attribute("aria-disabled", "true")
    button.click()


def assert_the_labs_point_shows(page, slug):
    if slug == "hash-placement":
        mod = page.locator('#stage article[data-scheme="mod"] .moved-big')
        expect(mod).to_contain_text("%")
        expect(page.locator("#lab")).to_have_attribute("data-length", "4")
    elif slug == "range-splits":
        # a fifth lane, slices on it, and the range query's band still lit
        lanes = page.locator('.rs-panel[data-policy="size"] g.rs-lane')
        expect(lanes).to_have_count(5)
        new = page.locator('.rs-panel[data-policy="size"] g.rs-slice[data-shard="E"]')
        expect(new.first).to_be_attached()
        expect(page.locator("#lab")).to_have_attribute("data-length", "5")
    elif slug == "scatter-gather":
        # the global index read that missed the fresh write, said so
        expect(page.locator(".sg-missed")).to_contain_text("flight 501")
        expect(page.locator(".sg-tail .sg-point")).to_have_count(14)
    elif slug == "replication":
        # the read asked C and was answered by the primary, with the new address
        read = page.locator('#stage .rp-read[data-stale="false"]')
        expect(read).to_contain_text("(asked C)", timeout=WAIT_MS)
        expect(read).to_contain_text("ana.lopez+2@newmail.example")
    elif slug == "quorum":
        stale = page.locator('.q-history tr[data-kind="read"][data-stale="true"]')
        expect(stale).to_have_count(1)
        expect(page.locator(".q-trials")).not_to_have_attribute("data-stale", "0")
    elif slug == "cache-stampede":
        # the plain lane's herd, said in its strip; the watched board stale after the
        # update that kept it cached
        plain = page.locator('.cs-strip[data-strategy="plain"] .cs-strip-refill')
        expect(plain).to_contain_text(re.compile(r"\d+ queries"))
        assert int(plain.get_attribute("data-queries")) >= 10
        stale = page.locator("#stage .cs-card.is-stale")
        expect(stale).to_have_count(1, timeout=WAIT_MS)
        expect(page.locator("#stage .cs-version")).to_contain_text("stale")
    elif slug == "rate-limit-race":
        # INCR: every one of the 6 orderings admits exactly 100
        expect(page.locator(".rlr-orderings-sum")).to_have_text(
            "0 of 6 orderings admit more than 100"
        )
        expect(page.locator(".rlr-result-big")).to_have_text("100 admitted — limit 100")
    elif slug == "graph-traversal":
        # grown 10×: the same 13 edges read, a table of 130 routes instead of 13
        costs = page.locator('[data-spot="costs"]')
        expect(costs).to_contain_text("13 → 13 edges read", timeout=WAIT_MS)
        expect(costs).to_contain_text("table: 13 → 130 rows")
    elif slug == "two-phase-commit":
        # the recovered coordinator's commit landed: seat 12B is P2's, unlocked, and
        # the booking whose client never heard is marked committed afterwards
        seat = page.locator('#stage [data-panel="flights"] [data-row="seat:12B"]')
        expect(seat).to_contain_text("P2", timeout=WAIT_MS)
        expect(seat).not_to_contain_text("lock")
        ops = page.locator(".tp-ops")
        expect(ops).to_contain_text("info (unknown)")
        expect(ops).to_contain_text("committed")
    elif slug == "partition-cap":
        expect(page.locator(".pc-vanished")).to_be_visible(timeout=WAIT_MS)
    # a lab with no check of its own here is checked by its tour's steps alone (each
    # step done, by its own `done_when`)


def finished(page):
    expect(card(page)).to_be_hidden()
    expect(page.locator("#tour-open")).to_have_text("Take the tour")
    expect(page.locator(".tour-ring")).to_be_hidden()
    assert page.console_errors == []


# -- to the end by "Show me" alone ---------------------------------------------------


@pytest.mark.parametrize("slug", SLUGS)
def test_the_tour_runs_to_its_end_by_show_me_alone(visit, slug):
    """To its end by "Show me", skipped on the way at step 2 and resumed from the
    header (in the same visit: a skip test for each lab opened every page again; the
    reload between them is test_a_skipped_tour_stays_skipped_over_a_reload's)."""
    page = visit(slug)
    steps = step_ids(slug)
    for number in range(1, len(steps) + 1):
        at_step(page, number)  # a new visitor sees it without clicking anything
        if number == 2:
            skip(page)
            resume_at_step_2(page)
        highlighted(page)
        before = stage_size(page)
        show_me(page)
        done(page)
        # the step's notice is shown as its animation plays: the drawing's room keeps
        # its size (issue 31; the card sat over the stage and took its height)
        assert stage_size(page) == before, f"step {number}"
        expect(card(page).locator(".tour-next")).to_have_text(
            "Finish" if number == len(steps) else "Next"
        )
        next_step(page)
    finished(page)
    assert_the_labs_point_shows(page, slug)


def stage_size(page) -> tuple[float, float]:
    return page.locator("#stage").evaluate(
        "s => { const r = s.getBoundingClientRect(); return [r.width, r.height]; }"
    )


def test_on_a_phone_the_card_and_its_ring_are_in_view_and_clear(visit):
    """On the first screen the card sits above the stage; further down it floats at
    the bottom; either way what the step rings is scrolled into view, under neither the
    card nor the stage that stays on top."""
    page = visit("quorum", PHONE)
    steps = step_ids("quorum")
    for number in range(1, len(steps) + 1):
        at_step(page, number)
        highlighted(page)
        page.wait_for_function(
            """() => {
              const box = (s) => document.querySelector(s).getBoundingClientRect();
              const ring = box(".tour-ring"), card = box(".tour-body");
              const stage = document.getElementById("stage");
              const target = document.querySelector("[data-tour-highlight]");
              const s = stage.getBoundingClientRect();
              const clearOfCard = ring.bottom <= card.top || ring.top >= card.bottom;
              const clearOfStage = stage.contains(target) || s.bottom <= 0
                || ring.top >= s.bottom - 1;
              // a control taller than the room left shows its top
              const seen = ring.bottom <= innerHeight
                || ring.top <= Math.max(card.bottom, s.bottom) + 24;
              return card.top >= 0 && card.bottom <= innerHeight && ring.top >= 0
                && seen && clearOfCard && clearOfStage;
            }""",
            timeout=WAIT_MS,
        )
        stage = page.locator("#stage").bounding_box()
        assert stage["height"] >= PHONE["height"] / 3
        before = stage_size(page)
        show_me(page)
        done(page)
        # the card keeps its size as the step's notice takes the place of what to do:
        # the stage under it, and the drawing, keep theirs (issue 31)
        assert stage_size(page) == before, f"step {number}"
        next_step(page)
    finished(page)
    assert_the_labs_point_shows(page, "quorum")


# -- to the end by the visitor's own clicks ------------------------------------------


def submit(target):
    target.locator('button[type="submit"]').click()


def choose(target, field, **option):
    target.get_by_label(field, exact=True).select_option(**option)


# what a visitor does on each step's highlighted control, by lab and step id, through
# the words the visitor reads (a lab not here is clicked from its steps' "Show me")
OWN_CLICKS = {
    "hash-placement": {
        "add-shard": submit,
        "remove-shard": lambda t: (choose(t, "Shard", value="B"), submit(t)),
        "lookup": submit,
        "hot-key": submit,
    },
    "range-splits": {
        "write-ids": submit,
        "write-timestamps": lambda t: (
            choose(t, "Keys", label="Timestamps"),
            submit(t),
        ),
        "write-registrations": lambda t: (
            choose(t, "Keys", label="Registrations"),
            submit(t),
        ),
        "range-query": submit,
        "add-shard": submit,
    },
    "scatter-gather": {
        "by-key": submit,
        "scatter": submit,
        "measure": submit,
        "board": lambda t: (
            choose(t, "Flights placed by", index=1),
            submit(t),
        ),
        "write": submit,
        "global-index": lambda t: (choose(t, "Index", index=1), submit(t)),
    },
    "replication": {
        "burst": submit,
        "change-email": submit,
        "read-from-c": submit,
        "fix-sticky": lambda t: (
            choose(t, "Fix", label="the primary for 3 s after your own write"),
            submit(t),
        ),
        "change-again": submit,
        "read-again": submit,
    },
    "quorum": {
        "levels-one": lambda t: (
            choose(t, "W", label="ONE (1 copy)"),
            choose(t, "R", label="ONE (1 copy)"),
            submit(t),
        ),
        "cut-a-c": click_link,
        "write-a": lambda t: (choose(t, "Coordinator", value="A"), submit(t)),
        "read-c": lambda t: (choose(t, "Coordinator", value="C"), submit(t)),
        "count-stale": lambda t: t.click(),
    },
    "cache-stampede": {
        "expiry": submit,
        "lock": lambda t: (choose(t, "Strategy", label="Refill lock"), submit(t)),
        "xfetch": lambda t: (
            choose(t, "Strategy", label="XFetch (early refresh)"),
            submit(t),
        ),
        "stale": submit,
    },
    "rate-limit-race": {
        "race": submit,
        "every-ordering": submit,
        "incr": lambda t: (
            choose(t, "Counting", label="INCR, then compare the reply"),
            submit(t),
        ),
        "incr-race": submit,
        "incr-orderings": submit,
    },
    "graph-traversal": {
        "one-stop": lambda t: t.click(),
        "within-three": lambda t: t.click(),
        "fewest-to-sea": lambda t: t.click(),
        "avoid-ord": lambda t: t.click(),
        "grow": lambda t: t.get_by_role("switch").click(),
    },
    "two-phase-commit": {
        "book": submit,
        "set-trap": submit,
        "book-again": lambda t: (choose(t, "Seat", value="12B"), submit(t)),
        "blocked": lambda t: (choose(t, "Seat", value="12B"), submit(t)),
        "recover": lambda t: t.click(),
    },
    "partition-cap": {
        "split": submit,
        "book-tokyo": lambda t: t.click(),
        "book-frankfurt": lambda t: t.click(),
        "heal": submit,
        "board-tokyo": lambda t: t.click(),
    },
}


def click_from_the_step(slug, step):
    """What a visitor does on a step's highlighted control, read from the step itself
    (for a lab OWN_CLICKS has no entry for): its form filled with "Show me"'s
    arguments, through the fields' labels, and sent; anything else clicked."""
    if "action" not in step.target:
        return lambda target: target.click()
    action, args = step.show_me
    spec = next(s for s in LABS[slug].actions if s.name == action)
    params = {param.name: param for param in spec.params}

    def fill_and_submit(target):
        if action == step.target["action"]:
            for name, value in args.items():
                param = params[name]
                field = target.get_by_label(param.label, exact=True)
                if param.kind == "choice":
                    field.select_option(value=str(value))
                elif param.kind == "bool":
                    field.set_checked(bool(value))
                else:
                    field.fill(str(value))
        submit(target)

    return fill_and_submit


def own_clicks(slug):
    """step id: what a visitor does on it, by hand where OWN_CLICKS says (through the
    words a visitor reads), from the step's own "Show me" otherwise."""
    written = OWN_CLICKS.get(slug, {})
    if written:
        assert set(written) == set(step_ids(slug)), "a step without its own click"
    return {
        step.id: written.get(step.id) or click_from_the_step(slug, step)
        for step in LABS[slug].tour
    }


@pytest.mark.parametrize("slug", SLUGS)
def test_the_tour_runs_to_its_end_by_the_visitors_own_clicks(visit, slug):
    page = visit(slug)
    steps = step_ids(slug)
    clicks = own_clicks(slug)
    for number, step_id in enumerate(steps, start=1):
        at_step(page, number)
        next_button = card(page).locator(".tour-next")
        expect(next_button).to_have_attribute("aria-disabled", "true")
        clicks[step_id](highlighted(page))
        done(page)
        next_step(page)
    finished(page)
    assert_the_labs_point_shows(page, slug)


def test_a_step_done_another_way_does_not_count(visit):
    page = visit("quorum")
    at_step(page, 1)
    click_link(page.locator('.net-link[data-link="A-B"]'))  # not the link the step asks
    expect(page.locator('.net-link[data-link="A-B"]')).to_have_attribute(
        "data-state", "cut"
    )
    expect(card(page)).to_have_attribute("data-done", "false")
    click_link(highlighted(page))
    done(page)


# -- skipped, then resumed -----------------------------------------------------------


def skip(page):
    """Escape in the card skips the tour; the keyboard goes to the header's button."""
    card(page).locator(".tour-next").focus()
    page.keyboard.press("Escape")
    expect(card(page)).to_be_hidden()
    opener = page.locator("#tour-open")
    expect(opener).to_have_text("Resume the tour")
    expect(opener).to_be_focused()


def resume_at_step_2(page):
    page.locator("#tour-open").press("Enter")
    at_step(page, 2)
    expect(page.locator("#tour-title")).to_be_focused()


def test_a_skipped_tour_stays_skipped_over_a_reload(visit):
    page = visit("quorum")
    at_step(page, 1)
    show_me(page)
    done(page)
    next_step(page)
    at_step(page, 2)
    skip(page)
    # the choice is remembered: a new page of this lab shows no card
    page.reload()
    connected(page)
    expect(page.locator("#tour-open")).to_have_text("Resume the tour")
    expect(card(page)).to_be_hidden()
    resume_at_step_2(page)
    card(page).get_by_role("button", name="Skip tour").click()
    expect(card(page)).to_be_hidden()
    assert page.console_errors == []


def test_every_button_of_the_card_is_reached_by_the_keyboard(visit):
    page = visit("hash-placement")
    at_step(page, 1)
    card(page).get_by_role("button", name="Show me").focus()
    page.keyboard.press("Enter")
    done(page)
    for name in ("Next", "Skip tour"):
        page.keyboard.press("Tab")
        expect(card(page).get_by_role("button", name=name)).to_be_focused()
    page.keyboard.press("Shift+Tab")
    page.keyboard.press("Enter")
    at_step(page, 2)


# -- a link opens a lab at a step ----------------------------------------------------


@pytest.mark.parametrize(
    ("slug", "step_id"),
    [("hash-placement", "lookup"), ("quorum", "read-c"), ("partition-cap", "heal")],
)
def test_a_link_opens_the_lab_at_a_step_with_the_earlier_ones_done(
    visit, slug, step_id
):
    page = visit(slug, query=f"?tour={step_id}")
    number = step_ids(slug).index(step_id) + 1
    at_step(page, number)
    expect(card(page).locator(".tour-status")).to_be_hidden(timeout=WAIT_MS)
    # the earlier steps were done for the visitor: one moment each
    expect(page.locator("#history")).to_contain_text(
        f"Moment {number - 1} of {number - 1}"
    )
    show_me(page)
    done(page)
    if slug == "quorum":  # the read found the lab as the tour left it: stale
        stale = page.locator('.q-history tr[data-kind="read"][data-stale="true"]')
        expect(stale).to_have_count(1)
    if slug == "partition-cap":
        expect(page.locator(".pc-verdicts")).to_contain_text("concurrent")
    assert page.console_errors == []


def test_a_link_to_a_step_the_tour_does_not_have_starts_at_the_beginning(visit):
    page = visit("quorum", query="?tour=no-such-step")
    at_step(page, 1)
    expect(page.locator("#lab")).to_have_attribute("data-length", "0")


# -- a class: the host runs the tour for everyone ------------------------------------


def start_class(visit, slug):
    """A host's page and a student's (on a phone), in one class of `slug`."""
    host = visit(slug)
    host.locator("#start-class").click()
    code = host.locator(".class-code").inner_text(timeout=10_000)
    student = visit.page(PHONE)
    student.goto(f"{visit.url}/join/")
    student.fill("#join-code", code)
    student.fill("#join-name", "Ada")
    student.keyboard.press("Enter")
    expect(student.locator(".class-driving")).to_be_visible()
    return host, student


@pytest.mark.parametrize("slug", SLUGS)
def test_a_host_runs_the_tour_for_everyone(visit, slug):
    host, student = start_class(visit, slug)
    # a class does not start anyone's own tour
    for page in (host, student):
        expect(card(page)).to_be_hidden()
    host.locator("#tour-open").click()
    at_step(host, 1)
    lead = card(host).get_by_role("button", name="Run the tour for everyone")
    lead.click()
    expect(lead).to_have_attribute("aria-pressed", "true")
    at_step(student, 1)
    expect(card(student)).to_have_attribute("data-mode", "following")
    # the host drives: the student's "Show me" is off, and says so
    expect(card(student).get_by_role("button", name="Show me")).to_have_attribute(
        "aria-disabled", "true"
    )
    expect(card(student).locator(".tour-status")).to_contain_text(
        "The host is running this tour for everyone"
    )
    expect(card(student).locator(".tour-next")).to_be_hidden()
    show_me(host)
    done(host)
    done(student)  # the student saw the host's step happen
    next_step(host)
    at_step(student, 2)
    highlighted(student)
    # the host ends it for everyone
    card(host).get_by_role("button", name="Skip tour").click()
    expect(card(student)).to_be_hidden()
    expect(student.locator("#tour-open")).to_be_visible()
    assert host.console_errors == [] and student.console_errors == []


# -- the ring's pulse ----------------------------------------------------------------

# every animation event of the ring's pulse, in order (before the page's scripts run)
RECORD_PULSES = """
window.pulses = [];
for (const kind of ["animationstart", "animationiteration", "animationend"]) {
  document.addEventListener(kind, (event) => {
    if (event.target.classList?.contains("tour-ring")) {
      window.pulses.push(`${kind.slice(9)} ${event.animationName}`);
    }
  });
}
"""

PULSE_STYLE = """() => {
  const style = getComputedStyle(document.querySelector(".tour-ring"), "::after");
  return [style.animationName, style.animationIterationCount];
}"""


def pulsing_page(visit, reduced_motion=None):
    page = visit.page()
    page.add_init_script(RECORD_PULSES)
    if reduced_motion:
        page.emulate_media(reduced_motion=reduced_motion)
    page.goto(f"{visit.url}/labs/quorum/")
    connected(page)
    at_step(page, 1)
    highlighted(page)
    return page


def test_the_ring_pulses_twice_at_each_new_spot_then_keeps_still(visit):
    """A pulse that never ended drew frames for as long as a step was open (a tenth of
    a core of an idle page) and moved for longer than the 5 s after which WCAG 2.2.2
    asks for a way to stop it: it pulses twice, and again at the next step."""
    page = pulsing_page(visit)
    assert page.evaluate(PULSE_STYLE) == ["tour-pulse", "2"]
    page.wait_for_function("() => window.pulses.length === 3", timeout=WAIT_MS)
    assert page.evaluate("window.pulses") == [
        "start tour-pulse",
        "iteration tour-pulse",
        "end tour-pulse",  # after two: still, while the step stays open
    ]
    show_me(page)
    done(page)
    next_step(page)
    at_step(page, 2)
    page.wait_for_function("() => window.pulses.length >= 4", timeout=WAIT_MS)
    assert page.evaluate("window.pulses[3]") == "start tour-pulse"


def test_with_reduced_motion_the_ring_does_not_pulse(visit):
    page = pulsing_page(visit, reduced_motion="reduce")
    # three frames: the pulse's class is back after two
    page.evaluate(
        "() => new Promise((done) => requestAnimationFrame(() =>"
        " requestAnimationFrame(() => requestAnimationFrame(done))))"
    )
    assert page.evaluate(PULSE_STYLE)[0] == "none"
    assert page.evaluate("window.pulses") == []
    assert page.console_errors == []
