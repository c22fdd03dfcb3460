"""Embeds on another site, in headless Chromium.

docs/embed-example.html is served from a second loopback port (another origin), with its
embeds' origin rewritten to the live daphne's. Its four iframes must show their labs
at the chosen moments and work, each on its own; a page of that origin that frames a lab
page is refused by the browser; a forged link never runs script; a read-only embed sends
nothing but open_link; the Embed dialog makes a snippet for this moment.
"""

import html
import re
import threading
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import quote

import pytest
from playwright.sync_api import expect

from playground.history import Entry
from playground.links import make_link
from playground.liveserver import click_link, free_port

pytestmark = pytest.mark.browser

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "docs" / "embed-example.html"
PLACEHOLDER = "http://127.0.0.1:8000"
# seq of each link's room after open_link: one per entry of the link
EXAMPLE_SEQ = {"hash-placement": 1, "range-splits": 2, "quorum": 5, "partition-cap": 6}


class QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def other_origin(tmp_path_factory, live_server_url):
    """A static server on a second loopback port: the docs site that embeds the labs."""
    root = tmp_path_factory.mktemp("docs-site")
    text = EXAMPLE.read_text()
    assert text.count(PLACEHOLDER) == len(EXAMPLE_SEQ)
    (root / "embed-example.html").write_text(text.replace(PLACEHOLDER, live_server_url))
    (root / "frames-a-lab.html").write_text(
        "<!doctype html><title>framing a lab page</title>"
        f'<iframe id="lab" src="{live_server_url}/labs/hash-placement/" width="800" '
        'height="400"></iframe>'
        f'<iframe id="embed" src="{live_server_url}/embed/hash-placement/" width="800" '
        'height="400"></iframe>'
    )
    forged = quote('1.x"><img src=x onerror="top.pwned=1;window.pwned=1">', safe="")
    raw = '1."><script>window.pwned=1</script><img src=x onerror=window.pwned=1>'
    (root / "forged.html").write_text(
        "<!doctype html><title>forged links</title>"
        f'<iframe id="f1" src="{live_server_url}/embed/quorum/#link={forged}" '
        'width="800" height="500"></iframe>'
        f'<iframe id="f2" src="{live_server_url}/embed/quorum/#link='
        f'{html.escape(raw)}" width="800" height="500"></iframe>'
    )
    port = free_port()
    server = ThreadingHTTPServer(
        ("127.0.0.1", port), partial(QuietHandler, directory=str(root))
    )
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{port}"
    server.shutdown()
    server.server_close()


def embed_frame(page, slug):
    """The Frame of the example page's iframe for `slug`, once its lab is drawn."""
    element = page.locator(f"#embed-{slug}")
    element.scroll_into_view_if_needed()  # loading="lazy"
    handle = element.element_handle()
    frame = handle.content_frame()
    while frame is None or f"/embed/{slug}/" not in frame.url:
        page.wait_for_event("framenavigated", timeout=10_000)
        frame = handle.content_frame()
    frame.wait_for_selector("#lab[data-drawn]", timeout=15_000)
    return frame


def lab_data(frame, name):
    return frame.locator("#lab").get_attribute(f"data-{name}")


def test_the_example_page_shows_four_live_embeds_at_their_moments(
    page, other_origin, live_server_url
):
    page.goto(f"{other_origin}/embed-example.html")
    frames = {slug: embed_frame(page, slug) for slug in EXAMPLE_SEQ}
    for slug, frame in frames.items():
        assert frame.url.startswith(f"{live_server_url}/embed/{slug}/")
        assert lab_data(frame, "state") == "link", slug
        expect(frame.locator("#lab")).to_have_attribute(
            "data-seq", str(EXAMPLE_SEQ[slug])
        )
        expect(frame.locator("#connection-status")).to_have_attribute(
            "data-state", "open"
        )
        expect(frame.locator("#lab-error")).to_be_hidden()

    ring = frames["hash-placement"]
    expect(ring.locator("#stage")).to_contain_text("mod 5")
    quorum = frames["quorum"]
    expect(
        quorum.locator('.q-history tr[data-kind="read"][data-stale="true"]')
    ).to_have_count(1)
    ranges = frames["range-splits"]
    # the timestamps all went to one shard, by size and by load
    for policy in ("size", "load"):
        share = ranges.locator(
            f'.rs-heat-row[data-placement="{policy}"] .rs-heat-share'
        )
        expect(share).to_have_text(re.compile(r"^[A-D] took [5-9]\d%$"))
    cap = frames["partition-cap"]
    expect(cap.locator("#stage")).to_contain_text("XGGDSW")  # Tokyo's booking kept
    expect(cap.locator("html")).to_have_attribute("data-theme", "dark")
    expect(cap.locator("#controls")).to_have_count(0)
    rooms = {lab_data(f, "room") for f in frames.values()}
    assert len(rooms) == len(EXAMPLE_SEQ)  # each embed its own private room
    assert page.console_errors == []

    # one embed changes; the others do not
    ring.get_by_role("button", name=re.compile("Add a shard")).click()
    expect(ring.locator("#lab")).to_have_attribute("data-seq", "2")
    expect(ring.locator("#stage")).to_contain_text("mod 6")
    click_link(cap.locator('.net-link[data-link="B-C"]'))
    expect(cap.locator("#lab")).to_have_attribute("data-seq", "7")
    expect(cap.locator('.net-link[data-link="B-C"]')).to_have_attribute(
        "data-state", "cut"
    )
    # the read-only one refuses a click on its drawing, and says why
    click_link(quorum.locator('.net-link[data-link="A-B"]'))
    expect(quorum.locator("#stage")).to_contain_text("read-only")
    page.wait_for_timeout(500)
    assert lab_data(quorum, "seq") == "5"
    assert lab_data(ring, "seq") == "2"
    assert lab_data(cap, "seq") == "7"
    assert page.console_errors == []


def test_a_lab_page_is_refused_in_a_frame_while_an_embed_loads(
    page, other_origin, live_server_url
):
    page.goto(f"{other_origin}/frames-a-lab.html")
    embed = page.locator("#embed").element_handle().content_frame()
    embed.wait_for_selector("#lab[data-drawn]", timeout=15_000)
    page.wait_for_load_state("load")  # every frame has loaded, or been refused
    lab = page.locator("#lab").element_handle().content_frame()
    # Chromium replaces a refused frame with its error page: nothing of the lab in it
    assert lab is None or not lab.url.startswith(live_server_url)
    if lab is not None:
        assert lab.locator("#lab").count() == 0
    # the policy's frame-ancestors 'none' refuses it (X-Frame-Options: DENY is there
    # for browsers without CSP; Chromium ignores it when frame-ancestors is given)
    refusals = [m for m in page.console_errors if "frame-ancestors" in m]
    assert refusals and "'none'" in refusals[0]


def test_forged_links_never_run_script(page, other_origin):
    dialogs = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.goto(f"{other_origin}/forged.html")
    for frame_id in ("f1", "f2"):
        frame = page.locator(f"#{frame_id}").element_handle().content_frame()
        frame.wait_for_selector("#lab[data-drawn]", timeout=15_000)
        assert lab_data(frame, "state") == "bad-link"
        error = frame.locator("#lab-error")
        expect(error).to_be_visible()
        expect(error).to_contain_text("could not be opened")
        assert frame.locator("#lab-error *").count() == 0  # text, never markup
        # no injected markup (the one inline classic script is the page's own, nonced:
        # static/js/early-socket.js)
        injected = "img[src='x'], script:not([src]):not([type]):not([data-ws-path])"
        assert frame.locator(injected).count() == 0
        assert frame.evaluate("window.pwned") is None
        expect(frame.locator(".net-node")).to_have_count(3)  # the fresh lab instead
    assert page.evaluate("window.pwned") is None
    assert dialogs == []


def example_links():
    """The links of docs/embed-example.html (made by tests/server/test_embeds.py)."""
    found = re.findall(
        r'/embed/([a-z-]+)/[^"#]*#link=([A-Za-z0-9._-]+)"', EXAMPLE.read_text()
    )
    return dict(found)


def test_a_read_only_embed_sends_nothing(page, live_server_url):
    sent = []
    sockets = []

    def watch(ws):
        sockets.append(ws.url)
        ws.on("framesent", lambda payload: sent.append(payload))

    page.on("websocket", watch)
    link = example_links()["partition-cap"]
    page.goto(
        f"{live_server_url}/embed/partition-cap/?mode=readonly&autoplay=1#link={link}"
    )
    page.wait_for_selector("#lab[data-drawn]")
    expect(page.locator("#lab")).to_have_attribute("data-state", "link")
    # nothing to press: no panel, no quick bar, no playback bar, no client buttons, and
    # one notice that says so (before: three, and buttons that looked live, then failed)
    for gone in ("#controls", "#quick-controls", "#timeline"):
        expect(page.locator(gone)).to_have_count(0)
    expect(page.locator(".pc-client .pc-act")).to_have_count(8)
    for button in page.locator(".pc-client .pc-act").all():
        expect(button).to_be_hidden()
    expect(page.locator("#readonly-note")).to_be_visible()
    expect(page.locator(".embed-readonly, .locked-note:visible")).to_have_count(1)
    # the drawing and Space still send nothing
    click_link(page.locator('.net-link[data-link="A-B"]'))
    page.locator('.net-node[data-node="B"]').click()
    page.locator("#stage").press("Space")
    page.wait_for_timeout(500)
    # the (short) link rides in the socket's address; nothing is ever sent
    assert sent == [] and len(sockets) == 1 and "link=" in sockets[0]
    expect(page.locator("#lab")).to_have_attribute("data-seq", "6")
    expect(page.locator(".net-error")).to_contain_text("read-only")


@pytest.mark.parametrize("options", ["controls=0", "mode=readonly", "autoplay=0"])
def test_every_embed_moves_at_once_with_or_without_controls(
    page, live_server_url, options
):
    """Before: an embed with controls=0 never moved (nobody could press Play); now a
    lab on the clock plays whenever something is in flight (autoplay=, from older
    snippets, is ignored)."""
    write = Entry(1, "write", {"w": "ALL", "coordinator": "A"})
    link = make_link("quorum", 3, [write], 1)
    page.goto(f"{live_server_url}/embed/quorum/?{options}#link={link}")
    page.wait_for_selector("#lab[data-drawn]")
    lab = page.locator("#lab")
    expect(lab).to_have_attribute("data-state", "link")
    # the room's clock sends `advance` by itself until the write is delivered
    expect(lab).not_to_have_attribute("data-seq", "1")
    expect(page.locator(".q-history")).to_contain_text("ok", timeout=15_000)
    assert page.console_errors == []


def test_the_embed_fits_a_phone_frame(browser, live_server_url):
    context = browser.new_context(viewport={"width": 390, "height": 700})
    phone = context.new_page()
    link = example_links()["quorum"]
    phone.goto(f"{live_server_url}/embed/quorum/#link={link}")
    phone.wait_for_selector("#lab[data-drawn]")
    overflow = phone.evaluate(
        "document.documentElement.scrollWidth - document.documentElement.clientWidth"
    )
    assert overflow <= 0
    context.close()


def test_the_embed_dialog_makes_a_snippet_of_this_moment(page, live_server_url):
    """The dialog module on a lab page, mounted as lab-page.js would mount it."""
    page.goto(f"{live_server_url}/labs/quorum/")
    expect(page.locator("#connection-status")).to_have_attribute("data-state", "open")
    dialog_id = page.evaluate(
        """async () => {
          const { createEmbedDialog } = await import('/static/js/embed-dialog.js');
          const parts = createEmbedDialog({
            slug: 'quorum',
            clocked: true,
            getLink: async () => ({ link: '1.abc_DEF-123', chars: 13 }),
          });
          document.querySelector('.lab-tools').append(parts.trigger, parts.dialog);
          return parts.dialog.id;
        }"""
    )
    trigger = page.locator(f'button[aria-controls="{dialog_id}"]')
    trigger.focus()
    page.keyboard.press("Enter")
    dialog = page.locator(f"#{dialog_id}")
    expect(dialog).to_have_accessible_name("Embed this lab")
    expect(dialog).to_be_visible()
    code = dialog.locator("textarea")
    origin = live_server_url
    expect(code).to_have_value(
        f'<iframe src="{origin}/embed/quorum/#link=1.abc_DEF-123" width="800" '
        'height="680" title="N, W, R and reads that miss the write" loading="lazy" '
        'style="border:0;max-width:100%" allow="clipboard-write"></iframe>'
    )
    # read-only shows no controls: the frame it proposes is the short one at once
    dialog.get_by_label("Only look (read-only)").check()
    expect(code).to_have_value(re.compile('height="520"'))
    dialog.get_by_label("Dark").check()
    dialog.get_by_label("The controls").uncheck()
    expect(code).to_have_value(
        re.compile(r"\?mode=readonly&amp;controls=0&amp;theme=dark#")
    )
    expect(code).to_have_value(re.compile('height="520"'))
    dialog.get_by_label("Width (px)").fill("600")
    expect(code).to_have_value(re.compile('width="600"'))
    expect(dialog.locator(".embed-note")).to_contain_text("characters")
    page.keyboard.press("Escape")
    expect(dialog).to_be_hidden()
    assert page.evaluate("document.activeElement.textContent") == "Embed"
    assert page.console_errors == []


def test_a_read_only_quorum_offers_no_trial_buttons(page, live_server_url):
    """Before: "Count 1,000 trials" looked live in a read-only embed, then failed."""
    link = example_links()["quorum"]
    page.goto(f"{live_server_url}/embed/quorum/?mode=readonly#link={link}")
    page.wait_for_selector("#lab[data-drawn]")
    expect(page.locator(".q-trials")).to_be_visible()  # the counts are still shown
    expect(page.locator('[data-q="run-trials"]')).to_be_hidden()
    expect(page.locator("#stage button:visible, #side button:visible")).to_have_count(0)
    expect(page.locator("#readonly-note")).to_have_count(1)
    assert page.console_errors == []
