"""A server that serves as many sockets as it may (issue 29), as a page shows it.

The page turned away says the server is busy and why (the server's sentence, in the
page's language), keeps trying with backoff (a few sockets over several seconds, not a
hot loop), and gets in once there is room, without a reload.
"""

import time

import pytest
from playwright.sync_api import expect

from playground.liveserver import migrate, server_env, start_daphne, watch_errors

pytestmark = pytest.mark.browser
PHONE = {"width": 390, "height": 844}


@pytest.fixture
def one_socket_server(tmp_path):
    """A daphne that serves one websocket at a time."""
    env = server_env(tmp_path, PLAYGROUND_MAX_SOCKETS="1")
    migrate(env)
    server = start_daphne(tmp_path, env, name="one-socket")
    yield server
    server.stop()


def new_page(browser, viewport=None):
    context = browser.new_context(viewport=viewport or {"width": 1280, "height": 800})
    page = watch_errors(context.new_page())
    page.sockets = []
    page.on("websocket", lambda ws: page.sockets.append(time.monotonic()))
    return page


def test_a_full_server_is_said_and_the_page_gets_in_once_there_is_room(
    browser, one_socket_server
):
    url = one_socket_server.url
    first = new_page(browser)
    first.goto(f"{url}/labs/quorum/")
    expect(first.locator("#connection-status")).to_have_attribute("data-state", "open")
    second = new_page(browser, PHONE)
    second.goto(f"{url}/labs/quorum/?lang=zh-hans")
    line = second.locator("#connection-status")
    expect(line).to_have_attribute("data-state", "busy")
    expect(line.locator(".status-text")).to_have_text("服务器繁忙，正在重试……")
    expect(line.locator(".status-detail")).to_have_text(
        "服务器此刻已满；本页面会在几秒后自动重试。"
    )
    # it tries again, with backoff: 1-2 s, then 2-4 s, then 4-8 s after that
    while len(second.sockets) < 3:
        second.wait_for_event("websocket", timeout=15_000)
    gaps = [b - a for a, b in zip(second.sockets, second.sockets[1:], strict=False)]
    assert gaps[0] >= 0.9 and gaps[1] >= 1.9, gaps
    expect(line).to_have_attribute("data-state", "busy")
    # room again: the page gets in by itself, without a reload
    first.context.close()
    expect(line).to_have_attribute("data-state", "open", timeout=20_000)
    expect(second.locator("#lab-error")).to_be_hidden()
    assert second.console_errors == []
    second.context.close()
