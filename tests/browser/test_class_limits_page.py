"""Issue 9's limits as a page shows them, in headless Chromium against live daphnes.

The host removes students (by mouse and by keyboard, with a confirmation) and their
pages say so calmly and stop reconnecting; a revealed question counts distinct people; a
link too heavy to open, and a moment too heavy to share, say why; a class whose hours
ended sends everyone away with a way to go on alone; a busy server is said as busy.
"""

import sqlite3
import time
from datetime import UTC, datetime, timedelta

import pytest
from playwright.sync_api import expect

from playground.links import link_cost, make_link, read_link, seconds_of
from playground.liveserver import (
    migrate,
    next_frames,
    save_screenshot,
    server_env,
    start_daphne,
    watch_errors,
)
from playground.store import Entry

pytestmark = pytest.mark.browser
WIDE = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
MILLION = Entry(0, "load_keys", {"kind": "registration", "count": 1_000_000})


def shards(page):
    return page.locator('article[data-scheme="mod"] g.bin')


def add_shard(page):
    page.locator(
        '#quick-controls form[data-action="add_shard"] button[type="submit"]'
    ).click()


def status(page):
    return page.locator("#connection-status")


def tab_to(page, locator, limit=80):
    for _ in range(limit):
        page.keyboard.press("Tab")
        if locator.evaluate("node => node === document.activeElement"):
            return
    raise AssertionError(f"Tab never reached {locator}")


def counting_sockets(page):
    """Keep the address of every websocket the page opens in `page.sockets`."""
    page.sockets = []
    page.on("websocket", lambda ws: page.sockets.append(ws.url))
    return page


def opens_no_socket_again(page):
    """However long it waits, the page (of a Lesson: its clock installed) opens no
    socket: its clock jumps past the longest wait before a retry (30 s), which fires
    any timer due by then once."""
    sockets = len(page.sockets)
    page.clock.fast_forward(31_000)
    next_frames(page)  # a socket a timer opened is known by now
    assert len(page.sockets) == sockets, page.sockets


def screenshot(page, name, at=None):
    """The page wide and on a phone (the top, or the element `at` at the top): nothing
    may be wider than the screen (a screenshot of each with PLAYGROUND_SCREENSHOTS)."""
    for size, viewport in (("1280", WIDE), ("390", PHONE)):
        page.set_viewport_size(viewport)
        if at:
            page.locator(at).evaluate("node => node.scrollIntoView({block: 'start'})")
        else:
            page.evaluate("window.scrollTo(0, 0)")
        next_frames(page)
        save_screenshot(page, f"{name}-{size}")
        wide = page.evaluate("document.documentElement.scrollWidth")
        assert wide <= viewport["width"], (name, size, wide)


class Lesson:
    """A host and students in one class, each in a browser context of their own."""

    def __init__(self, browser, url, names, seed=3):
        self.browser = browser
        self.url = url
        self.contexts = []
        self.host = self.page(WIDE)
        self.host.goto(f"{url}/labs/hash-placement/?seed={seed}")
        expect(shards(self.host)).to_have_count(4)
        self.host.locator("#start-class").click()
        self.code = self.host.locator(".class-code").inner_text(timeout=15_000)
        self.room = self.host.locator("#lab").get_attribute("data-room")
        self.students = {name: self.join(name) for name in names}
        for name in names:
            expect(self.people()).to_contain_text(name)

    def page(self, viewport):
        context = self.browser.new_context(viewport=viewport)
        # the pages' clock flows as usual, and can jump ahead (opens_no_socket_again)
        context.clock.install()
        self.contexts.append(context)
        return counting_sockets(watch_errors(context.new_page()))

    def join(self, name, viewport=PHONE):
        student = self.page(viewport)
        student.goto(f"{self.url}/join/")
        student.fill("#join-code", self.code)
        student.fill("#join-name", name)
        student.keyboard.press("Enter")
        expect(student.locator(".class-driving")).to_be_visible()
        return student

    def people(self):
        return self.host.locator(".people")

    def row(self, name):
        return self.people().locator("li", has_text=name)

    def ask(self, text, choices):
        self.host.fill("#ask-text", text)
        self.host.fill("#ask-choices", "\n".join(choices))
        self.host.get_by_role("button", name="Ask the class").click()
        for student in self.students.values():
            expect(student.locator(".question-text")).to_have_text(text)

    def everyone(self):
        return [self.host, *self.students.values()]

    def close(self):
        for context in self.contexts:
            context.close()


@pytest.fixture(scope="module")
def lesson(browser, live_server_url):
    made = Lesson(browser, live_server_url, ["Ana", "Ben", "Cyd", "Dee"])
    yield made
    made.close()


def test_a_revealed_question_counts_distinct_people(lesson):
    lesson.ask("Which scheme moves the fewest keys?", ["mod N", "partitions", "ring"])
    for index, student in enumerate(lesson.students.values()):
        student.locator(".answer-choice").nth(index % 3).click()
    ana = lesson.students["Ana"]
    # Ana changes her mind twice: still one person, one answer
    for choice in (1, 2):
        ana.locator(".answer-choice").nth(choice).click()
        expect(ana.locator(".question-status")).to_contain_text("Your answer")
    expect(lesson.host.locator(".answered-count")).to_have_text("Answered: 4")
    lesson.host.get_by_role("button", name="Show the answers").click()
    for page in lesson.everyone():
        expect(page.locator(".question-status")).to_have_text("4 people answered.")
        expect(page.locator(".answer-bar-value")).to_have_text(
            ["1 (25%)", "1 (25%)", "2 (50%)"]
        )
        assert page.console_errors == []


def test_the_host_removes_a_student_with_the_mouse(lesson):
    host = lesson.host
    lesson.ask("How many shards after two more?", ["5", "6", "7"])
    for student in lesson.students.values():
        student.locator(".answer-choice").nth(1).click()
    expect(host.locator(".answered-count")).to_have_text("Answered: 4")
    # the host never has a Remove button of their own
    expect(lesson.row("Host").get_by_role("button")).to_have_count(0)
    row = lesson.row("Ana")
    row.get_by_role("button", name="Remove Ana").click()
    expect(row.locator(".confirm-question")).to_have_text("Remove Ana?")
    row.get_by_role("button", name="No, keep Ana").click()  # changed my mind
    expect(row.get_by_role("button", name="Remove Ana")).to_be_focused()
    row.get_by_role("button", name="Remove Ana").click()
    row.get_by_role("button", name="Yes, remove Ana").click()

    expect(lesson.people()).not_to_contain_text("Ana")
    expect(host.locator(".people-status")).to_have_text(
        "Ana was removed from the class; their answers no longer count."
    )
    expect(host.locator(".answered-count")).to_have_text("Answered: 3")
    expect(host.locator("#class-people-title")).to_have_text("4 people here")
    ana = lesson.students["Ana"]
    removed_page_says_so(ana)
    expect(host.locator("#lab-error")).to_be_hidden()
    assert host.console_errors == [] and ana.console_errors == []


def removed_page_says_so(student):
    notice = student.locator("#class-bar .class-notice")
    expect(notice).to_be_visible()
    expect(notice).to_have_attribute("role", "alert")
    expect(notice.locator("h2")).to_have_text("You are no longer in this class")
    expect(notice).to_contain_text("The host removed you from this class session.")
    go = student.get_by_role("link", name="Open the lab on my own")
    expect(go).to_have_attribute("href", "/labs/hash-placement/")
    expect(status(student)).to_have_attribute("data-state", "refused")
    expect(status(student)).to_contain_text("Removed from the class")
    expect(status(student).locator(".status-presence")).to_have_text("")
    # calm: no error box, no question, no second note; the controls are off
    expect(student.locator("#lab-error")).to_be_hidden()
    expect(student.locator("#class-question")).to_be_hidden()
    expect(student.locator("#locked-note-quick-controls")).to_be_hidden()
    expect(
        student.locator('#quick-controls form[data-action="add_shard"] button')
    ).to_be_disabled()
    # and it does not try again
    opens_no_socket_again(student)
    expect(status(student)).to_have_attribute("data-state", "refused")


def test_the_host_removes_a_student_with_the_keyboard(lesson):
    host = lesson.host
    remove = lesson.row("Ben").get_by_role("button", name="Remove Ben")
    host.locator("#ask-text").focus()
    tab_to(host, remove)
    host.keyboard.press("Enter")
    confirm = lesson.row("Ben").locator(".person-confirm")
    expect(confirm).to_be_focused()
    expect(confirm).to_have_attribute("role", "group")
    host.keyboard.press("Escape")  # Escape backs out, the keyboard stays on the row
    expect(remove).to_be_focused()
    host.keyboard.press("Enter")
    expect(confirm).to_be_focused()
    host.keyboard.press("Tab")
    expect(confirm.get_by_role("button", name="Yes, remove Ben")).to_be_focused()
    visible_focus = host.evaluate(
        "() => getComputedStyle(document.activeElement).outlineStyle"
    )
    assert visible_focus != "none"
    host.keyboard.press("Enter")
    expect(lesson.people()).not_to_contain_text("Ben")
    expect(host.locator("#class-people-title")).to_be_focused()
    expect(host.locator(".answered-count")).to_have_text("Answered: 2")
    ben = lesson.students["Ben"]
    removed_page_says_so(ben)
    # the server refuses Ben for good: a reload says the same, calmly
    ben.reload()
    expect(ben.locator("#class-bar .class-notice h2")).to_have_text(
        "You are no longer in this class"
    )
    expect(ben.locator("#lab-error")).to_be_hidden()
    assert host.console_errors == [] and ben.console_errors == []


def test_screens_of_the_people_list_and_a_removed_student(lesson):
    host = lesson.host
    row = lesson.row("Cyd")
    row.get_by_role("button", name="Remove Cyd").click()
    screenshot(host, "host-people-confirm", at=".people-card")
    host.set_viewport_size(WIDE)
    row.get_by_role("button", name="No, keep Cyd").click()
    screenshot(host, "host-people", at=".people-card")
    host.set_viewport_size(WIDE)
    screenshot(host, "host-top")
    host.set_viewport_size(WIDE)
    screenshot(lesson.students["Ana"], "student-removed")
    assert host.console_errors == []


def test_the_removed_student_goes_on_alone(lesson):
    ana = lesson.students["Ana"]
    ana.get_by_role("link", name="Open the lab on my own").click()
    expect(ana).to_have_url(f"{lesson.url}/labs/hash-placement/")
    expect(status(ana)).to_have_attribute("data-state", "open")
    expect(ana.locator("#lab")).to_have_attribute("data-kind", "private")
    expect(ana.locator("#class-bar")).to_be_hidden()
    add_shard(ana)
    expect(shards(ana)).to_have_count(5)
    assert ana.console_errors == []


# -- links too heavy ------------------------------------------------------------------


def test_a_link_too_heavy_to_open_says_why_on_the_first_view(browser, live_server_url):
    link = make_link("hash-placement", 0, [MILLION] * 30, 30)
    seconds = seconds_of(link_cost("hash-placement", read_link(link)[2]))
    for viewport in (PHONE, WIDE):
        context = browser.new_context(viewport=viewport)
        page = watch_errors(context.new_page())
        started = time.monotonic()
        page.goto(f"{live_server_url}/labs/hash-placement/#link={link}")
        notice = page.locator("#link-notice")
        expect(notice).to_contain_text("This link could not be opened: This link")
        expect(notice).to_contain_text(f"would take about {seconds} s of work to open")
        expect(notice).to_contain_text("Here is the lab fresh.")
        expect(notice).to_be_in_viewport()
        expect(shards(page)).to_have_count(4)
        # refused before any replay: thirty million keys were never loaded
        assert time.monotonic() - started < 10
        expect(status(page)).to_have_attribute("data-state", "open")
        if viewport is PHONE:
            save_screenshot(page, "heavy-link-390")
        assert page.console_errors == []
        context.close()


@pytest.fixture(scope="module")
def small_server(tmp_path_factory):
    """A daphne whose links may cost little (a fresh lab's fits, one more shard does
    not), whose classes leave memory a second after the last member leaves, and where
    a member may take one private branch."""
    var = tmp_path_factory.mktemp("small")
    env = server_env(
        var,
        PLAYGROUND_LINK_BUDGET_UNITS="44000",
        PLAYGROUND_ROOM_IDLE_SECONDS="1",
        PLAYGROUND_BRANCHES_PER_MEMBER="1",
    )
    migrate(env)
    server = start_daphne(var, env, name="small")
    server.var = var
    yield server
    server.stop()


def new_page(browser, url, viewport=WIDE):
    context = browser.new_context(viewport=viewport)
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=url)
    return counting_sockets(watch_errors(context.new_page()))


def test_copy_link_says_when_a_moment_is_too_heavy_to_share(browser, small_server):
    page = new_page(browser, small_server.url)
    page.goto(f"{small_server.url}/labs/hash-placement/?seed=1")
    expect(shards(page)).to_have_count(4)
    share_status = page.locator(".share .share-status")
    page.locator(".share-copy").click()
    expect(share_status).to_contain_text("Link copied")
    add_shard(page)
    expect(shards(page)).to_have_count(5)
    page.locator(".share-copy").click()
    # the server's sentence, instead of a link
    expect(share_status).to_contain_text(
        "This moment would take about 0.05 s of work to open from a link; a link may "
        "take at most 0.04 s, so it cannot be shared as one"
    )
    assert not share_status.inner_text().startswith("No link")
    expect(share_status).to_have_attribute("data-state", "error")
    expect(page.locator(".share .share-field")).to_be_hidden()
    # the Embed dialog says the same instead of a snippet
    page.get_by_role("button", name="Embed").click()
    note = page.locator(".embed-dialog .embed-note")
    expect(note).to_contain_text("so it cannot be shared as one")
    expect(page.locator(".embed-dialog .embed-code")).to_have_value("")
    expect(page.locator(".embed-dialog .embed-copy")).to_be_disabled()
    page.keyboard.press("Escape")
    expect(page.get_by_role("button", name="Embed")).to_be_focused()
    assert page.console_errors == []
    page.context.close()


def test_a_refused_branch_is_said_beside_the_button(browser, small_server):
    lesson = Lesson(browser, small_server.url, ["Fay"], seed=5)
    try:
        fay = lesson.students["Fay"]
        fay.get_by_role("button", name="Explore on my own").click()
        expect(fay.locator(".branch-banner")).to_be_visible()
        fay.get_by_role("button", name="Back to the class").click()
        expect(fay.locator("#lab")).to_have_attribute("data-kind", "class")
        explore = fay.get_by_role("button", name="Explore on my own")
        explore.focus()
        fay.keyboard.press("Enter")
        why = fay.locator(".class-bar-actions .branch-error")
        expect(why).to_have_text(
            "You have made 1 private branch of this class, the most one person "
            "may; go on in it, or follow the class."
        )
        expect(why).to_have_attribute("role", "alert")
        expect(explore).to_be_focused()  # the bar was drawn again around it
        expect(explore).to_have_attribute("aria-describedby", "branch-error")
        expect(fay.locator("#lab-error")).to_be_hidden()
        expect(fay.locator("#lab")).to_have_attribute("data-kind", "class")
        save_screenshot(fay, "branch-refused-390")
        assert fay.console_errors == []
    finally:
        lesson.close()


# -- a class that ends ---------------------------------------------------------------


def set_closes_at(server, room, when):
    """End a class's hours at `when` in the live server's database."""
    stamp = when.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S.%f")
    with sqlite3.connect(server.var / "playground.sqlite3", timeout=10) as db:
        changed = db.execute(
            "UPDATE playground_roomrecord SET closes_at = ? WHERE id = ?",
            (stamp, room),
        ).rowcount
    assert changed == 1


def test_a_class_whose_hours_end_sends_everyone_on_alone(browser, small_server):
    lesson = Lesson(browser, small_server.url, ["Eve"], seed=4)
    try:
        host, eve = lesson.host, lesson.students["Eve"]
        # everyone leaves, the class leaves memory (1 s), and its hours are cut short
        for page in (host, eve):
            page.goto("about:blank")
        time.sleep(2)
        set_closes_at(
            small_server, lesson.room, datetime.now(UTC) + timedelta(seconds=8)
        )
        class_page = f"{small_server.url}/labs/hash-placement/?room={lesson.room}"
        for page in (host, eve):
            page.goto(class_page)
            expect(page.locator("#lab")).to_have_attribute("data-kind", "class")
        expect(host.locator("#class-panel")).to_be_visible()
        for page in (host, eve):
            notice = page.locator("#class-bar .class-notice")
            expect(notice).to_be_visible(timeout=20_000)
            expect(notice.locator("h2")).to_have_text("The class is over")
            expect(notice).to_contain_text(
                "This class session has ended; open the lab again to go on alone."
            )
            go = page.get_by_role("link", name="Open the lab on my own")
            expect(go).to_be_visible()
            expect(status(page)).to_contain_text("The class has ended")
            expect(page.locator("#lab-error")).to_be_hidden()
        expect(host.locator("#class-panel")).to_be_hidden()
        opens_no_socket_again(eve)  # 4410: no reconnecting
        screenshot(eve, "student-class-ended")

        # opening the ended class's room again: a fresh lab of one's own, said so
        eve.set_viewport_size(PHONE)
        eve.goto(class_page)
        expect(eve.locator("#lab")).to_have_attribute("data-kind", "private")
        notice = eve.locator("#class-bar .class-notice")
        expect(notice).to_have_text(
            "That class session has ended; this is a fresh lab of your own."
        )
        expect(notice).to_be_in_viewport()
        save_screenshot(eve, "ended-class-reopened-390")
        expect(status(eve)).to_have_attribute("data-state", "open")
        expect(eve.locator("#lab-error")).to_be_hidden()
        add_shard(eve)
        expect(shards(eve)).to_have_count(5)
        for page in (host, eve):
            assert page.console_errors == []
    finally:
        lesson.close()


# -- a busy server --------------------------------------------------------------------


@pytest.fixture
def one_room_server(tmp_path):
    """A daphne that lets one address open one lab a day."""
    # a day, not a minute: the sliding-window counter weighs the last window by how
    # much of it remains, so a first room just before a minute turns counts as less
    # than one just after it, and a second room is let in
    env = server_env(tmp_path, PLAYGROUND_ROOMS_PER_ADDRESS="1/day")
    migrate(env)
    server = start_daphne(tmp_path, env, name="one-room")
    yield server
    server.stop()


def test_a_server_that_refuses_for_now_is_said_to_be_busy(browser, one_room_server):
    url = one_room_server.url
    first = new_page(browser, url)
    first.goto(f"{url}/labs/hash-placement/")
    expect(status(first)).to_have_attribute("data-state", "open")
    second = new_page(browser, url, PHONE)
    second.goto(f"{url}/labs/hash-placement/")
    line = status(second)
    expect(line).to_have_attribute("data-state", "busy")
    expect(line.locator(".status-text")).to_have_text(
        "The server is busy; trying again…"
    )
    expect(line.locator(".status-detail")).to_have_text(
        "Too many labs were opened from your network just now; wait a minute, "
        "then try again."
    )
    expect(second.locator("#lab-error")).to_be_hidden()
    # 4503 is not "refused for good": the page keeps trying, with backoff
    while len(second.sockets) < 2:
        second.wait_for_event("websocket", timeout=8_000)
    expect(line).to_have_attribute("data-state", "busy")
    save_screenshot(second, "busy-390")
    assert first.console_errors == [] and second.console_errors == []
    first.context.close()
    second.context.close()
