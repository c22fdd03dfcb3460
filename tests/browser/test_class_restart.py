"""A class survives its server: kill -9 mid-lesson, start again, every page resumes.

Issue 4's "done when": a host and two students in one room; the server is killed and
started again on the same port and database; all three pages reconnect on their own (no
reload), the host is the host again, and the lesson goes on.
"""

import pytest
from playwright.sync_api import expect

from playground.liveserver import migrate, server_env, start_daphne, watch_errors

pytestmark = pytest.mark.browser
WIDE = {"width": 1280, "height": 900}


def shards(page):
    return page.locator('article[data-scheme="mod"] g.bin')


def add_shard(page):
    page.locator(
        '#quick-controls form[data-action="add_shard"] button[type="submit"]'
    ).click()


def watched(context):
    # console errors are expected here: the pages log the connections that fail while
    # the server is down; uncaught script errors are not
    return watch_errors(context.new_page(), console=False)


@pytest.fixture
def server(tmp_path):
    env = server_env(tmp_path)
    migrate(env)
    running = start_daphne(tmp_path, env, name="before")
    holder = {"server": running, "env": env, "var": tmp_path}
    yield holder
    holder["server"].stop()


def test_host_and_students_resume_after_the_server_is_killed(server, browser):
    url = server["server"].url
    contexts = [browser.new_context(viewport=WIDE) for _ in range(3)]
    try:
        host, ada, bob = (watched(c) for c in contexts)
        host.goto(f"{url}/labs/hash-placement/?seed=2")
        expect(shards(host)).to_have_count(4)
        host.locator("#start-class").click()
        code = host.locator(".class-code").inner_text(timeout=10_000)
        for student, name in ((ada, "Ada"), (bob, "Bob")):
            student.goto(f"{url}/join/")
            student.fill("#join-code", code)
            student.fill("#join-name", name)
            student.keyboard.press("Enter")
            expect(student.locator(".class-driving")).to_be_visible()
        add_shard(host)
        for page in (host, ada, bob):
            expect(shards(page)).to_have_count(5)

        port = server["server"].port
        server["server"].kill()
        for page in (host, ada, bob):
            expect(page.locator("#connection-status")).not_to_have_attribute(
                "data-state", "open", timeout=10_000
            )
        server["server"] = start_daphne(
            server["var"], server["env"], port=port, name="after"
        )
        for page in (host, ada, bob):
            expect(page.locator("#connection-status")).to_have_attribute(
                "data-state", "open", timeout=20_000
            )
            expect(shards(page)).to_have_count(5)
        # the host claimed the class again on its own, and the lesson goes on
        expect(host.locator(".class-code")).to_have_text(code, timeout=10_000)
        add_shard(host)
        for page in (host, ada, bob):
            expect(shards(page)).to_have_count(6)
        # students still watch: their controls stay locked after the restart
        expect(ada.locator(".class-driving")).to_be_visible()
        for page in (host, ada, bob):
            assert page.console_errors == []
    finally:
        for context in contexts:
            context.close()
