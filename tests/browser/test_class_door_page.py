"""Who gets into a class, as the pages show it (issue 29), in headless Chromium.

The host turns on "new students wait for my approval" and lets a student in from the
lobby by keyboard (and turns one away); the student's page says it waits for the host,
then joins. A flood of late joiners is cleared at once ("since the question opened"),
and their pages say they were removed. Screens of the host and a student at 1280x800,
1920x1080 and 390x844.
"""

import pytest
from playwright.sync_api import expect
from test_class_limits_page import PHONE, WIDE, Lesson, tab_to

from playground.liveserver import next_frames, save_screenshot

pytestmark = pytest.mark.browser
PROJECTOR = {"width": 1920, "height": 1080}


def shoot(page, name, at=None):
    """The page at 1280x800, 1920x1080 and 390x844; nothing wider than the screen."""
    for size, viewport in (("1280", WIDE), ("1920", PROJECTOR), ("390", PHONE)):
        page.set_viewport_size(viewport)
        if at:
            page.locator(at).evaluate("node => node.scrollIntoView({block: 'start'})")
        else:
            page.evaluate("window.scrollTo(0, 0)")
        next_frames(page)
        save_screenshot(page, f"{name}-{size}")
        wide = page.evaluate("document.documentElement.scrollWidth")
        assert wide <= viewport["width"], (name, size, wide)


def knock(lesson, name):
    """A student who fills in the join form and waits (no class bar of a member yet)."""
    student = lesson.page(PHONE)
    student.goto(f"{lesson.url}/join/")
    student.fill("#join-code", lesson.code)
    student.fill("#join-name", name)
    student.keyboard.press("Enter")
    return student


def lobby(lesson):
    return lesson.host.locator(".door-card .lobby")


@pytest.fixture(scope="module")
def lesson(browser, live_server_url):
    made = Lesson(browser, live_server_url, ["Ana", "Ben"])
    yield made
    made.close()


def test_the_host_lets_a_student_in_from_the_lobby_by_keyboard(lesson):
    host = lesson.host
    switch = host.get_by_label("New students wait for my approval")
    host.keyboard.press("Escape")
    tab_to(host, switch, limit=200)
    host.keyboard.press("Space")
    expect(switch).to_be_checked()
    expect(host.locator(".door-status")).to_contain_text(
        "new students wait for your approval"
    )
    eve = knock(lesson, "Eve")
    notice = eve.locator("#class-bar .class-notice")
    expect(notice.locator("h2")).to_have_text("Waiting for the host")
    expect(notice).to_contain_text("you join the class as soon as the host lets you in")
    expect(eve.locator("#connection-status")).to_have_attribute("data-state", "waiting")
    expect(eve.locator("#connection-status")).to_contain_text(
        "Waiting for the host to let you in"
    )
    expect(eve.locator("#start-class")).to_be_hidden()
    expect(lobby(lesson)).to_contain_text("Eve")
    expect(host.locator("#class-lobby-title")).to_have_text("1 waiting to join")
    shoot(host, "class-door-host-lobby", at=".door-card")
    shoot(eve, "class-door-student-waiting")
    let_in = host.get_by_role("button", name="Let Eve in")
    tab_to(host, let_in, limit=200)
    host.keyboard.press("Enter")
    expect(eve.locator(".class-driving")).to_be_visible()
    expect(eve.locator("#class-bar .class-notice")).to_have_count(0)
    expect(lesson.people()).to_contain_text("Eve")
    expect(host.locator("#class-lobby-title")).to_have_text("Nobody is waiting to join")
    expect(host.locator(".door-status")).to_have_text("1 student let in.")
    shoot(eve, "class-door-student-in")
    # one more: turned away, by keyboard too; their page says so and stops
    zed = knock(lesson, "Zed")
    away = host.get_by_role("button", name="Turn Zed away")
    expect(away).to_be_visible()
    tab_to(host, away, limit=200)
    host.keyboard.press("Enter")
    expect(zed.locator("#class-bar .class-notice h2")).to_have_text(
        "The host did not let you in"
    )
    expect(zed.get_by_role("link", name="Open the lab on my own")).to_be_visible()
    assert host.console_errors == [] and eve.console_errors == []
    # switch it off again for the next test
    switch.click()
    expect(switch).not_to_be_checked()


def test_the_host_clears_a_flood_since_the_question_opened(lesson):
    host = lesson.host
    lesson.ask("Which shard holds key 7?", ["A", "B", "C"])
    ana = lesson.students["Ana"]
    ana.locator(".answer-choice").nth(1).click()
    expect(host.locator(".answered-count")).to_have_text("Answered: 1")
    flood = [lesson.join(f"Flood {n}") for n in range(3)]
    for n in range(3):
        expect(lesson.people()).to_contain_text(f"Flood {n}")
    # a late joiner has no vote on the open question
    flood[0].locator(".answer-choice").nth(0).click()
    expect(flood[0].locator("#class-question .form-error")).to_contain_text(
        "you joined after this question was asked"
    )
    since = host.get_by_label("Who joined")
    expect(since).to_have_value("question")
    host.get_by_role("button", name="Remove them…").click()
    confirm = host.locator(".clear-confirm")
    expect(confirm).to_be_focused()
    expect(confirm).to_contain_text(
        "Remove everyone who joined since the question opened?"
    )
    shoot(host, "class-door-host-clear", at=".clear-flood")
    confirm.get_by_role("button", name="Yes, remove them").click()
    expect(host.locator(".door-status")).to_have_text(
        "3 people removed, with their answers."
    )
    for page in flood:
        expect(page.locator("#class-bar .class-notice h2")).to_have_text(
            "You are no longer in this class"
        )
    for n in range(3):
        expect(lesson.people()).not_to_contain_text(f"Flood {n}")
    expect(lesson.people()).to_contain_text("Ana")
    expect(host.locator(".answered-count")).to_have_text("Answered: 1")
    shoot(host, "class-door-host", at=".door-card")
    shoot(ana, "class-door-student")
    assert host.console_errors == [] and ana.console_errors == []
