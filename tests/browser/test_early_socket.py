"""The websocket a page opens before its modules have arrived
(static/js/early-socket.js) is the one it goes on using: one socket per page, one
room, whatever the page was opened with (a link, a name kept in the tab, an embed);
and where the page would open another address, the early socket is closed and the
page still works."""

import re

import pytest
from playwright.sync_api import expect

from playground.links import make_link
from playground.store import Entry

pytestmark = pytest.mark.browser


def watch_sockets(page) -> list:
    sockets: list = []
    page.on("websocket", lambda socket: sockets.append(socket))
    return sockets


def query_of(socket) -> dict[str, str]:
    from urllib.parse import parse_qsl, urlsplit

    return dict(parse_qsl(urlsplit(socket.url).query))


def drawn_and_open(page) -> None:
    expect(page.locator("#lab")).to_have_attribute("data-drawn", "1")
    expect(page.locator("#connection-status")).to_have_attribute("data-state", "open")


def test_a_lab_page_uses_the_socket_it_opened_early_and_acts_through_it(
    page, live_server_url
):
    sockets = watch_sockets(page)
    page.goto(f"{live_server_url}/labs/hash-placement/?seed=7")
    drawn_and_open(page)
    assert len(sockets) == 1
    query = query_of(sockets[0])
    assert query["seed"] == "7" and len(query["client"]) == 36
    assert "link" not in query and "name" not in query
    # the early script's hand-over is done: nothing is left on the window
    assert page.evaluate("'playgroundEarlySocket' in window") is False
    # the first action goes out on that socket and is answered
    seq = int(page.locator("#lab").get_attribute("data-seq"))
    page.locator('#quick-controls form[data-action="add_shard"] button').click()
    expect(page.locator("#lab")).to_have_attribute("data-seq", str(seq + 1))
    assert len(sockets) == 1 and not sockets[0].is_closed()


def test_a_short_link_rides_in_the_early_sockets_address(page, live_server_url):
    sockets = watch_sockets(page)
    link = make_link("quorum", 2, [Entry(1, "set_levels", {"w": "ONE", "r": "ALL"})], 1)
    page.goto(f"{live_server_url}/labs/quorum/#link={link}")
    drawn_and_open(page)
    expect(page.locator("#field-set_levels-w option:checked")).to_have_text(
        "ONE (1 copy)"
    )
    assert len(sockets) == 1
    assert query_of(sockets[0])["link"] == link


def test_a_refused_long_link_is_said_once_on_the_one_socket(page, live_server_url):
    """Over 4,000 characters a link is sent after the hello (open_link), as before."""
    sockets = watch_sockets(page)
    page.goto(f"{live_server_url}/labs/quorum/#link=1.{'A' * 4100}")
    drawn_and_open(page)
    expect(page.locator("#link-notice")).to_be_visible()
    assert len(sockets) == 1
    assert "link" not in query_of(sockets[0])


def test_the_name_kept_in_the_tab_goes_with_the_early_socket(page, live_server_url):
    page.add_init_script("sessionStorage.setItem('playground:name', 'Ann')")
    sockets = watch_sockets(page)
    page.goto(f"{live_server_url}/labs/partition-cap/")
    drawn_and_open(page)
    assert len(sockets) == 1
    assert query_of(sockets[0])["name"] == "Ann"


def test_an_embed_opens_one_socket_and_never_sends_a_name(page, live_server_url):
    page.add_init_script("sessionStorage.setItem('playground:name', 'Ann')")
    sockets = watch_sockets(page)
    page.goto(f"{live_server_url}/embed/quorum/?seed=3")
    drawn_and_open(page)
    assert len(sockets) == 1
    assert "name" not in query_of(sockets[0]) and query_of(sockets[0])["seed"] == "3"


def test_a_page_for_a_room_opens_no_early_socket(page, live_server_url):
    """A class (?room=) asks who you are first: only the page's own socket opens."""
    sockets = watch_sockets(page)
    # wait for the socket's own event: the status can change before Playwright has
    # told this process about the socket (they come over different sessions)
    with page.expect_websocket() as first:
        page.goto(f"{live_server_url}/labs/quorum/?room=r-nosuchroom&name=Ann")
    # an early socket would come first, from the page's head, and carry no room
    assert query_of(first.value)["room"] == "r-nosuchroom"
    expect(page.locator("#connection-status")).not_to_have_attribute(
        "data-state", "connecting"
    )
    page.wait_for_load_state("load")
    assert len(sockets) == 1
    assert query_of(sockets[0])["room"] == "r-nosuchroom"


def test_an_early_socket_to_another_address_is_closed_and_the_page_still_works(
    page, live_server_url
):
    """Made to differ on purpose: the tab's name reads "Ann" for the early script and
    "Bea" afterwards, so the page's own address is not the early one."""
    page.add_init_script(
        """(() => {
          const read = Storage.prototype.getItem;
          let asked = 0;
          Storage.prototype.getItem = function (key) {
            if (key === "playground:name") return (asked++ === 0) ? "Ann" : "Bea";
            return read.call(this, key);
          };
        })()"""
    )
    sockets = watch_sockets(page)
    page.goto(f"{live_server_url}/labs/quorum/")
    drawn_and_open(page)
    assert [query_of(s)["name"] for s in sockets] == ["Ann", "Bea"]
    if not sockets[0].is_closed():
        sockets[0].wait_for_event("close")
    assert not sockets[1].is_closed()


def test_a_class_page_says_connecting_on_its_first_join_not_connection_lost(
    page, live_server_url
):
    """Until a room has greeted the page, the page is connecting; "Connection lost,
    reconnecting…" is for a room that had greeted it. The socket is held unanswered, so
    the words before the hello stay on the screen."""
    held = []
    page.route_web_socket(re.compile(r"/ws/labs/"), lambda route: held.append(route))
    page.goto(f"{live_server_url}/labs/quorum/?room=r-someroom&name=Ann")
    page.wait_for_load_state("load")
    status = page.locator("#connection-status")
    expect(status).to_have_attribute("data-state", "connecting")
    expect(status.locator(".status-text")).to_have_text("Connecting…")
    assert len(held) == 1
