"""No page breaks its Content-Security-Policy, in headless Chromium.

Each page records the `securitypolicyviolation` events it sees (an init script, so the
listener is there before the page's first script), is used a little (a lab draws,
talks over its websocket and acts; a class shows its QR code; the Embed dialog opens
and loads its styles), and must have seen none, nor any console error. A page that
is refused an inline script shows that the recording works.
"""

import re

import pagechecks
import pytest
from pagechecks import RECORD_VIOLATIONS
from playwright.sync_api import expect

from simulators.labs import REGISTRY

pytestmark = pytest.mark.browser

COMING = [lab.slug for lab in REGISTRY.coming[:1]]  # a lab still coming, if any


@pytest.fixture
def watched(page):
    """The page fixture, recording every CSP violation in `window.violations`."""
    page.add_init_script(RECORD_VIOLATIONS)
    return page


def visit(page, url: str):
    """Open `url`; check it came with the policy (no policy would mean no violation)."""
    response = page.goto(url)
    policy = response.headers["content-security-policy"]
    assert "script-src 'self'" in policy and "'unsafe-inline'" not in policy
    return response


def assert_within_policy(page, *, expected_errors: tuple[str, ...] = ()) -> None:
    """No violation, and no console error but those expected."""
    pagechecks.assert_within_policy(page)
    errors = [
        m for m in page.console_errors if not any(e in m for e in expected_errors)
    ]
    assert errors == []


def act_once(page) -> None:
    """Submit the lab's first quick control and wait until the state has changed."""
    digest = page.locator("#lab").get_attribute("data-digest")
    page.locator("#quick-controls form button[type=submit]").first.click()
    expect(page.locator("#lab")).not_to_have_attribute("data-digest", digest or "")


@pytest.mark.parametrize(
    "path", ["/", "/join/", "/join/?code=%00", *(f"/labs/{c}/" for c in COMING)]
)
def test_the_plain_pages_keep_to_the_policy(watched, live_server_url, path):
    visit(watched, live_server_url + path)
    expect(watched.locator(".site-header")).to_be_visible()
    assert_within_policy(watched)


def test_the_404_page_keeps_to_the_policy(watched, live_server_url):
    watched.goto(f"{live_server_url}/no-such-page/")
    expect(watched.locator("h1")).to_have_text("There is no page at this address")
    assert_within_policy(watched, expected_errors=("status of 404",))


def test_a_lab_page_draws_connects_and_acts_within_the_policy(watched, live_server_url):
    """Every built lab's page and embed, in every language and size, is checked
    against the policy by tests/browser/test_lab_sweep.py, on the visit its other
    checks make; here the import map's nonce and the Embed dialog's styles."""
    response = visit(watched, f"{live_server_url}/labs/hash-placement/?seed=3")
    nonce = re.search(r"'nonce-([^']+)'", response.headers["content-security-policy"])
    importmap = watched.locator('script[type="importmap"]')
    # the browser hides a nonce from the DOM attribute; the property keeps it
    assert importmap.evaluate("script => script.nonce") == nonce[1]
    # the websocket is ws:// to this host: 'self' in connect-src must allow it
    status = watched.locator("#connection-status")
    expect(status).to_have_attribute("data-state", "open")
    expect(watched.locator("#stage")).not_to_have_attribute("aria-busy", "true")
    act_once(watched)
    watched.get_by_role("button", name="Embed", exact=True).click()
    expect(watched.get_by_label("The snippet to paste")).to_be_visible()
    assert_within_policy(watched)


def test_a_class_session_with_its_qr_code_keeps_to_the_policy(watched, live_server_url):
    visit(watched, f"{live_server_url}/labs/hash-placement/")
    expect(watched.locator("#connection-status")).to_have_attribute(
        "data-state", "open"
    )
    watched.locator("#start-class").click()
    qr = watched.locator("img.class-qr")
    expect(qr).to_be_visible()
    watched.wait_for_function(
        "() => document.querySelector('img.class-qr').naturalWidth > 0"
    )
    assert_within_policy(watched)


def test_an_embed_keeps_to_the_policy(watched, live_server_url):
    visit(watched, f"{live_server_url}/embed/quorum/?theme=dark&narrative=1&seed=2")
    expect(watched.locator("#lab")).to_have_attribute("data-drawn", "1")
    act_once(watched)
    assert_within_policy(watched)


@pytest.mark.parametrize("slug", COMING)
def test_the_embed_of_a_coming_lab_keeps_to_the_policy(watched, live_server_url, slug):
    visit(watched, f"{live_server_url}/embed/{slug}/?theme=dark")
    expect(watched.locator("h1")).to_have_text(REGISTRY[slug].title)
    assert_within_policy(watched)


def test_an_inline_script_is_refused_and_reported(watched, live_server_url):
    visit(watched, f"{live_server_url}/join/")
    watched.evaluate(
        """() => {
          const script = document.createElement("script");
          script.textContent = "window.ran = true";
          document.body.append(script);
        }"""
    )
    watched.wait_for_function("() => window.violations.length > 0")
    assert watched.evaluate("window.ran") is None
    assert watched.evaluate("window.violations")[0].startswith("script-src")
