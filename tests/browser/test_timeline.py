"""The history bar and links in real headless Chromium against a live daphne.

A user scrubs back through what happened (keyboard on the slider, Step back), sees
exactly the earlier state, acts in the past (a fork, the earlier branch's link), copies
a link and opens it in a new browser context: the same state, the same moment. Damaged
and hostile links open the lab fresh with a sentence, never an error or a script.
"""

import pytest
from playwright.sync_api import expect

from playground.links import make_link
from playground.liveserver import save_screenshot, watch_errors
from playground.store import Entry
from simulators.labs.hash_placement import HashPlacementLab

pytestmark = pytest.mark.browser
WIDE = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}


def new_page(browser, url, viewport=WIDE):
    context = browser.new_context(viewport=viewport)
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=url)
    return watch_errors(context.new_page())


def shards(page):
    return page.locator('article[data-scheme="mod"] g.bin')


def lab(page):
    return page.locator("#lab")


def quick(page, action):
    page.locator(
        f'#quick-controls form[data-action="{action}"] button[type="submit"]'
    ).click()


def at(page, cursor, length):
    expect(lab(page)).to_have_attribute("data-cursor", str(cursor))
    expect(lab(page)).to_have_attribute("data-length", str(length))


def open_hash_placement(page, url, seed=5, count=4):
    page.goto(f"{url}/labs/hash-placement/?seed={seed}")
    expect(shards(page)).to_have_count(count)
    expect(page.locator("#connection-status")).to_have_attribute("data-state", "open")


def digest_after(seed, actions):
    lab_ = HashPlacementLab(seed=seed)
    for name, args in actions:
        lab_.apply(name, args)
    return lab_.digest()


def copy_link(page, button=".share-copy", status=".share .share-status"):
    page.locator(button).click()
    expect(page.locator(status)).to_contain_text("Link copied")
    return page.evaluate("navigator.clipboard.readText()")


def test_scrubbing_back_shows_exactly_the_earlier_state_and_acting_there_forks(
    browser, live_server_url
):
    page = new_page(browser, live_server_url)
    open_hash_placement(page, live_server_url)
    bar = page.locator("#history")
    expect(bar.locator(".history-readout")).to_have_text("No actions yet")
    for count in (5, 6, 7):
        quick(page, "add_shard")
        expect(shards(page)).to_have_count(count)
    at(page, 3, 3)
    expect(bar.locator(".history-readout")).to_have_text("Moment 3 of 3")
    expect(bar.locator(".history-past")).to_be_hidden()

    # the keyboard on the slider: one arrow is one action back (each one a moment)
    scrubber = page.locator("#history-scrubber")
    scrubber.focus()
    page.keyboard.press("ArrowLeft")
    at(page, 2, 3)
    expect(shards(page)).to_have_count(6)
    expect(scrubber).to_have_attribute("aria-valuetext", "Moment 2 of 3")
    expect(bar.locator(".history-past")).to_contain_text(
        "You are looking at the past: acting now starts a new branch"
    )
    # the Step back button
    page.locator(".history-back").click()
    at(page, 1, 3)
    expect(shards(page)).to_have_count(5)
    expect(lab(page)).to_have_attribute(
        "data-digest", digest_after(5, [("add_shard", {})])
    )
    # Home: the start, where Step back has nothing left
    scrubber.focus()
    page.keyboard.press("Home")
    at(page, 0, 3)
    expect(shards(page)).to_have_count(4)
    expect(page.locator(".history-back")).to_have_attribute("aria-disabled", "true")
    expect(lab(page)).to_have_attribute("data-digest", digest_after(5, []))
    expect(page.locator("#latest")).to_contain_text("Back at the start")
    page.keyboard.press("End")
    at(page, 3, 3)
    expect(shards(page)).to_have_count(7)
    page.locator(".history-back").click()
    page.locator(".history-back").click()
    at(page, 1, 3)
    expect(shards(page)).to_have_count(5)

    # acting in the past: a new branch, and the old one offered by its link
    quick(page, "remove_shard")
    at(page, 2, 2)
    expect(shards(page)).to_have_count(4)
    forked = bar.locator(".history-forked")
    expect(forked).to_contain_text("a new branch started after moment 1")
    expect(forked).to_contain_text("The 2 moments that came after it")
    expect(bar.locator(".history-past")).to_be_hidden()
    branches = bar.locator(".history-branches")
    expect(branches.locator("summary")).to_have_text("Earlier branch (1)")
    expect(branches.locator(".history-branch")).to_have_text(
        "Left at moment 1: 3 moments in allCopy this branch's link"
    )
    branch_link = copy_link(
        page, ".history-branch-copy", ".history-branch .share-status"
    )
    assert "#link=1." in branch_link

    # the branch left behind opens where it was left: all three shards added
    other = new_page(browser, live_server_url)
    other.goto(branch_link)
    expect(shards(other)).to_have_count(7)
    at(other, 3, 3)
    expect(lab(other)).to_have_attribute(
        "data-digest", digest_after(5, [("add_shard", {})] * 3)
    )
    assert page.console_errors == [] and other.console_errors == []
    other.context.close()
    page.context.close()


def test_copy_link_opens_the_same_moment_in_a_new_context(browser, live_server_url):
    page = new_page(browser, live_server_url)
    open_hash_placement(page, live_server_url, seed=11)
    for count in (5, 6):
        quick(page, "add_shard")
        expect(shards(page)).to_have_count(count)
    page.locator("#quick-controls form[data-action='lookup'] input").fill("N777")
    quick(page, "lookup")
    at(page, 3, 3)
    page.locator(".history-back").click()  # the link keeps the moment: 2 of 3
    at(page, 2, 3)
    digest = lab(page).get_attribute("data-digest")
    page.locator(".history-forward").click()
    at(page, 3, 3)
    digest_at_end = lab(page).get_attribute("data-digest")
    page.locator(".history-back").click()
    at(page, 2, 3)

    # keyboard reachable, says how long the link is
    page.locator(".share-copy").focus()
    page.keyboard.press("Enter")
    status = page.locator(".share .share-status")
    expect(status).to_contain_text("Link copied (")
    expect(status).to_contain_text("characters)")
    url = page.evaluate("navigator.clipboard.readText()")
    assert url.startswith(f"{live_server_url}/labs/hash-placement/#link=1.")
    assert "?" not in url
    assert f"({len(url):,} characters)" in status.inner_text()

    other = new_page(browser, live_server_url)
    other.goto(url)
    expect(other.locator("#connection-status")).to_have_attribute("data-state", "open")
    expect(lab(other)).to_have_attribute("data-digest", digest)
    at(other, 2, 3)
    expect(shards(other)).to_have_count(6)
    expect(other.locator(".history-past")).to_be_visible()
    # the link is the page's address: it stays there
    assert other.url == url
    # and the opened room is a room like any other: step forward to the end
    other.locator(".history-forward").click()
    at(other, 3, 3)
    expect(lab(other)).to_have_attribute("data-digest", digest_at_end)
    expect(other.locator("#link-notice")).to_be_hidden()
    assert page.console_errors == [] and other.console_errors == []
    other.context.close()
    page.context.close()


def test_a_damaged_link_opens_the_lab_fresh_with_a_sentence(browser, live_server_url):
    page = new_page(browser, live_server_url)
    page.goto(f"{live_server_url}/labs/hash-placement/?seed=2#link=1.garbage")
    notice = page.locator("#link-notice")
    expect(notice).to_be_visible()
    expect(notice).to_contain_text("This link could not be opened: ")
    expect(notice).to_contain_text("Here is the lab fresh.")
    expect(shards(page)).to_have_count(4)
    at(page, 0, 0)
    expect(page.locator("#connection-status")).to_have_attribute("data-state", "open")
    # the fresh lab works
    quick(page, "add_shard")
    expect(shards(page)).to_have_count(5)

    # a link of another lab says so
    quorum_link = make_link("quorum", 1, [Entry(0, "write", {})], 1)
    other = new_page(browser, live_server_url)
    other.goto(f"{live_server_url}/labs/hash-placement/#link={quorum_link}")
    expect(other.locator("#link-notice")).to_contain_text("another lab")
    expect(shards(other)).to_have_count(4)
    assert page.console_errors == [] and other.console_errors == []
    other.context.close()
    page.context.close()


@pytest.mark.parametrize(
    "payload",
    [
        '<img src=x onerror="window.pwned=1">',
        '1.<img src=x onerror="window.pwned=1">',
        "%3Cimg%20src%3Dx%20onerror%3D%22window.pwned%3D1%22%3E",
    ],
)
def test_markup_in_a_link_never_runs(browser, live_server_url, payload):
    page = new_page(browser, live_server_url)
    page.goto(f"{live_server_url}/labs/hash-placement/#link={payload}")
    notice = page.locator("#link-notice")
    expect(notice).to_contain_text("This link could not be opened")
    expect(shards(page)).to_have_count(4)
    page.wait_for_timeout(300)
    assert page.evaluate("window.pwned") is None
    assert page.locator("#link-notice img, #lab img[src='x']").count() == 0
    assert page.console_errors == []
    page.context.close()


def test_a_quorum_link_taken_mid_flight_puts_the_same_messages_on_the_wire(
    browser, live_server_url
):
    page = new_page(browser, live_server_url)
    page.goto(f"{live_server_url}/labs/quorum/?seed=4")
    expect(page.locator("#connection-status")).to_have_attribute("data-state", "open")
    page.locator(".timeline-play").click()  # pause, to take the messages one by one
    at(page, 1, 1)
    quick(page, "write")
    at(page, 2, 2)
    page.locator(".timeline-step").click()  # the first delivery: the rest still fly
    at(page, 3, 3)
    counts = page.locator(".net-counts")
    expect(counts).to_contain_text("delivered: 1")
    on_the_wire = counts.inner_text()
    assert "On the wire: 0" not in on_the_wire
    digest = lab(page).get_attribute("data-digest")
    clock = page.locator(".timeline-clock").inner_text()
    url = copy_link(page)

    other = new_page(browser, live_server_url)
    other.goto(url)
    expect(lab(other)).to_have_attribute("data-digest", digest)
    at(other, 3, 3)
    expect(other.locator(".net-counts")).to_have_text(on_the_wire)
    expect(other.locator(".timeline-clock")).to_have_text(clock)
    # one step back there: the write just sent, nothing delivered yet
    other.locator(".history-back").click()
    at(other, 2, 3)
    expect(other.locator(".net-counts")).to_contain_text("delivered: 0")
    expect(other.locator(".timeline-state")).to_have_text(
        "Time waits while you look at the past."
    )
    assert page.console_errors == [] and other.console_errors == []
    other.context.close()
    page.context.close()


def test_replay_walks_through_the_story_again(browser, live_server_url):
    page = new_page(browser, live_server_url)
    open_hash_placement(page, live_server_url, seed=8)
    for count in (5, 6):
        quick(page, "add_shard")
        expect(shards(page)).to_have_count(count)
    replay = page.locator(".history-replay")
    replay.click()
    expect(replay).to_have_attribute("aria-pressed", "true")
    expect(replay).to_have_text("Stop replay")
    at(page, 0, 2)
    expect(shards(page)).to_have_count(4)
    at(page, 1, 2)
    expect(shards(page)).to_have_count(5)
    at(page, 2, 2)
    expect(shards(page)).to_have_count(6)
    expect(replay).to_have_attribute("aria-pressed", "false")
    expect(replay).to_have_text("Replay")
    # the user acting stops a replay, wherever it had got to (its next step may come
    # before the click does, on a busy machine): the new action is the branch's last
    replay.click()
    at(page, 0, 2)
    quick(page, "add_shard")
    expect(replay).to_have_attribute("aria-pressed", "false")
    expect(page.locator("#latest")).to_contain_text("added.")
    cursor, length = (
        lab(page).get_attribute(f"data-{name}") for name in ("cursor", "length")
    )
    assert cursor == length and int(length) in (1, 2, 3)
    page.wait_for_timeout(1000)
    at(page, cursor, length)
    assert page.console_errors == []
    page.context.close()


def test_a_student_cannot_move_the_class_history_while_the_host_drives(
    browser, live_server_url
):
    host = new_page(browser, live_server_url)
    open_hash_placement(host, live_server_url, seed=3)
    quick(host, "add_shard")
    expect(shards(host)).to_have_count(5)
    host.locator("#start-class").click()
    code = host.locator(".class-code").inner_text(timeout=10_000)
    student = new_page(browser, live_server_url, PHONE)
    student.goto(f"{live_server_url}/join/")
    student.fill("#join-code", code)
    student.fill("#join-name", "Ada")
    student.keyboard.press("Enter")
    expect(shards(student)).to_have_count(5)
    note = student.locator("#history-locked-note")
    expect(note).to_contain_text("The host is driving the class")
    back = student.locator(".history-back")
    expect(back).to_have_attribute("aria-disabled", "true")
    expect(back).to_have_attribute("aria-describedby", "history-locked-note")
    expect(student.locator("#history-scrubber")).to_have_attribute(
        "aria-disabled", "true"
    )
    back.click(force=True)  # aria-disabled: it keeps the focus, and does nothing
    student.locator("#history-scrubber").focus()
    student.keyboard.press("Home")
    student.wait_for_timeout(500)
    at(student, 1, 1)
    expect(shards(host)).to_have_count(5)
    # the host steps back: everyone sees the past
    host.locator(".history-back").click()
    at(host, 0, 1)
    at(student, 0, 1)
    expect(shards(student)).to_have_count(4)
    expect(student.locator(".history-past")).to_be_visible()
    # a student may still copy the moment's link
    expect(student.locator(".share-copy")).to_be_enabled()
    assert host.console_errors == [] and student.console_errors == []
    host.context.close()
    student.context.close()


@pytest.mark.parametrize("viewport", [WIDE, PHONE], ids=["1280", "390"])
def test_screenshots_of_the_history_bar(browser, live_server_url, viewport):
    width = viewport["width"]
    page = new_page(browser, live_server_url, viewport)
    open_hash_placement(page, live_server_url, seed=5)
    for count in (5, 6, 7):
        quick(page, "add_shard")
        expect(shards(page)).to_have_count(count)
    page.locator(".history-back").click()
    at(page, 2, 3)
    quick(page, "remove_shard")
    expect(page.locator(".history-forked")).to_be_visible()
    page.locator(".share-copy").click()
    expect(page.locator(".share .share-status")).to_contain_text("Link copied")
    page.locator(".playback-panel").scroll_into_view_if_needed()
    save_screenshot(page, f"timeline-hash-placement-{width}")

    page.goto(f"{live_server_url}/labs/quorum/?seed=4")
    expect(page.locator("#connection-status")).to_have_attribute("data-state", "open")
    page.locator(".timeline-play").click()  # pause
    at(page, 1, 1)
    quick(page, "write")
    page.locator(".timeline-step").click()
    at(page, 3, 3)
    page.locator(".history-back").click()
    at(page, 2, 3)
    page.locator(".playback-panel").scroll_into_view_if_needed()
    save_screenshot(page, f"timeline-quorum-{width}")
    # nothing sticks out sideways on a phone
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    assert page.console_errors == []
    page.context.close()


def test_after_a_dropped_connection_the_page_resumes_the_links_room(
    browser, live_server_url
):
    """The link is opened once: a reconnect resumes the room it made."""
    page = new_page(browser, live_server_url)
    sent = []  # what the page sent, per connection
    routes = []

    def proxy(route):
        messages = []
        sent.append(messages)
        routes.append(route)
        server = route.connect_to_server()

        def from_page(message):
            messages.append(message)
            server.send(message)

        route.on_message(from_page)

    page.route_web_socket("**/ws/labs/**", proxy)
    link = make_link(
        "hash-placement", 9, [Entry(0, "add_shard", {}), Entry(0, "add_shard", {})], 1
    )
    page.goto(f"{live_server_url}/labs/hash-placement/#link={link}")
    at(page, 1, 2)
    expect(shards(page)).to_have_count(5)
    room = lab(page).get_attribute("data-room")
    # a short link rides in the socket's address: the room is made from it at once
    assert "link=" in routes[0].url and not any('"open_link"' in m for m in sent[0])
    quick(page, "remove_shard")  # a fork in the link's room
    at(page, 2, 2)
    routes[0].close(code=1011, reason="dropped")
    expect(page.locator("#connection-status")).to_have_attribute(
        "data-state", "reconnecting"
    )
    expect(page.locator("#connection-status")).to_have_attribute(
        "data-state", "open", timeout=15_000
    )
    assert len(sent) == 2
    quick(page, "add_shard")
    at(page, 3, 3)
    assert lab(page).get_attribute("data-room") == room
    assert not any('"open_link"' in m for m in sent[1])
    assert "link=" not in routes[1].url and f"room={room}" in routes[1].url
    expect(page.locator(".history-branches summary")).to_have_text("Earlier branch (1)")
    assert page.console_errors == []
    page.context.close()


def test_where_copying_is_refused_the_link_is_shown_selected(browser, live_server_url):
    page = new_page(browser, live_server_url)
    page.add_init_script(
        """
        navigator.clipboard.writeText = () => Promise.reject(new Error("refused"));
        document.execCommand = () => false;
        """
    )
    open_hash_placement(page, live_server_url, seed=6)
    quick(page, "add_shard")
    at(page, 1, 1)
    page.locator(".share-copy").click()
    status = page.locator(".share .share-status")
    expect(status).to_contain_text("Could not copy by itself")
    field = page.locator(".share .share-field")
    expect(field).to_be_visible()
    expect(field).to_be_focused()
    url = field.input_value()
    assert url.startswith(f"{live_server_url}/labs/hash-placement/#link=1.")
    assert page.evaluate(
        "() => { const f = document.activeElement;"
        " return f.selectionStart === 0 && f.selectionEnd === f.value.length; }"
    )
    assert f"{len(url):,} characters" in status.inner_text()
    assert page.console_errors == []
    page.context.close()


def test_a_long_link_is_opened_over_the_socket_instead(browser, live_server_url):
    """Links over 4,000 characters do not ride in the socket's address: open_link."""
    import random

    rng = random.Random(3)
    steps = [
        Entry(0, "lookup", {"key": f"N{rng.randint(10**6, 10**7)}"}) for _ in range(700)
    ]
    link = make_link("hash-placement", 2, steps, 650)
    assert len(link) > 4000
    page = new_page(browser, live_server_url)
    sockets, sent = [], []

    def watch(ws):
        sockets.append(ws.url)
        ws.on("framesent", lambda payload: sent.append(str(payload)))

    page.on("websocket", watch)
    page.goto(f"{live_server_url}/labs/hash-placement/#link={link}")
    at(page, 650, 700)
    assert "link=" not in sockets[0]
    assert sum('"open_link"' in m for m in sent) == 1
    assert page.console_errors == []
    page.context.close()


def test_a_link_the_server_is_too_busy_to_open_can_be_tried_again(
    browser, live_server_url
):
    """The server answers open_link with `busy`: the page says the link could not be
    opened just now, shows the fresh lab meanwhile, and a button tries again."""
    import json
    import random

    rng = random.Random(4)
    steps = [
        Entry(0, "lookup", {"key": f"N{rng.randint(10**6, 10**7)}"}) for _ in range(700)
    ]
    link = make_link("hash-placement", 2, steps, 650)
    page = new_page(browser, live_server_url, PHONE)
    busy = {"times": 1}

    def answer_busy_once(route):
        server = route.connect_to_server()

        def from_page(message):
            sent = json.loads(message)
            if sent.get("type") == "open_link" and busy["times"]:
                busy["times"] -= 1
                route.send(
                    json.dumps(
                        {
                            "type": "error",
                            "code": "busy",
                            "ref": sent["ref"],
                            "field": "link",
                            "message": "the server is busy with other heavy work just "
                            "now; nothing changed, try again in a few seconds",
                        }
                    )
                )
                return
            server.send(message)

        route.on_message(from_page)

    page.route_web_socket("**/ws/labs/**", answer_busy_once)
    page.goto(f"{live_server_url}/labs/hash-placement/#link={link}")
    notice = page.locator("#link-notice")
    expect(notice).to_contain_text(
        "This link was not opened: The server is busy with other heavy work just now; "
        "nothing changed, try again in a few seconds. Here is the lab fresh meanwhile."
    )
    expect(notice).to_be_in_viewport()
    at(page, 0, 0)
    expect(page.locator("#connection-status")).to_have_attribute("data-state", "open")
    again = notice.get_by_role("button", name="Try the link again")
    again.focus()
    page.keyboard.press("Enter")  # a reload: the link is still the page's address
    at(page, 650, 700)
    expect(notice).to_be_hidden()
    assert page.console_errors == []
    page.context.close()


@pytest.mark.parametrize(
    ("lang", "said"),
    [
        ("en", "Moment 2 of 2: the room as it stands. Step back to see how it"),
        ("th", "สภาพของห้องตอนนี้"),
    ],
)
def test_a_page_and_an_embed_opened_at_a_moment_say_where_the_room_stands(
    page, live_server_url, lang, said
):
    """A link's moment (or a class joined after the host acted) is not "Nothing has
    happened yet": "Just now" says which moment the room stands at, until the first
    thing happens here, which it then tells."""
    link = make_link(
        "hash-placement", 5, [Entry(1, "add_shard", {}), Entry(2, "add_shard", {})], 2
    )
    for path in ("labs", "embed"):
        page.goto(f"{live_server_url}/{path}/hash-placement/?lang={lang}#link={link}")
        expect(lab(page)).to_have_attribute("data-drawn", "1")
        expect(page.locator("#latest")).to_contain_text(said)
    quick(page, "remove_shard")  # the embed's quick bar: the first thing done here
    expect(page.locator("#latest")).not_to_contain_text(said)
    assert page.console_errors == []
