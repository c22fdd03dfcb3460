"""axe-core on the pages that are not labs, the Embed dialog, the live region's pace
and the drawing worked by keyboard, in all three languages. Every lab page and embed
is checked with axe in tests/browser/test_lab_sweep.py, with the other checks of the
same visit.

axe-core (npm, pinned in package.json, used by the tests only) checks what a screen
reader and a keyboard user meet: names, roles, landmarks, contrast, focusable things.
No serious or critical violation may remain, in English, Chinese or Thai. The page's
CSP allows only its own scripts, so this context bypasses it to add axe's.
"""

import pytest
from pagechecks import AXE, assert_clean, violations
from playwright.sync_api import expect

from playground.liveserver import KeptContext

LANGUAGES = ["en", "zh-hans", "th"]


@pytest.fixture
def axe_page(axe_context):
    if not AXE.exists():
        pytest.fail(
            "node_modules/axe-core is missing: `make test` installs it (npm ci)"
        )
    page = axe_context.new_page({"width": 1280, "height": 800})
    yield page
    page.close()


@pytest.fixture(scope="module")
def axe_context(browser, live_server_url):
    """The module's kept context (KeptContext) that lets axe-core into the page."""
    context = KeptContext(browser, live_server_url, bypass_csp=True)
    yield context
    context.close()


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("path", ["/", "/join/", "/labs/replication/", "/nowhere/"])
def test_the_other_pages_pass_axe(axe_page, live_server_url, path, lang):
    page = axe_page
    page.goto(f"{live_server_url}{path}?lang={lang}")
    expect(page.locator("html")).to_have_attribute("lang", lang)
    assert_clean(page, f"{path} ({lang})")


def test_the_embed_dialog_passes_axe(axe_page, lab_driver):
    page = axe_page
    lab_driver(page).open("/labs/quorum/?lang=th")
    page.locator(".embed-trigger").click()
    expect(page.locator("dialog.embed-dialog")).to_be_visible()
    assert_clean(page, "the Embed dialog (th)")


def test_axe_is_not_blind(axe_page, live_server_url):
    """The check fails a page that breaks the rules (so a pass means something)."""
    page = axe_page
    page.goto(f"{live_server_url}/?lang=en")
    page.evaluate(
        """() => { const b = document.createElement("button");
        b.innerHTML = "<svg width=10 height=10></svg>";
        document.querySelector("main").append(b); }"""
    )
    found = violations(page)
    assert any(v["id"] == "button-name" for v in found), found


def test_the_live_region_keeps_a_pace_a_screen_reader_can_follow(page, lab_driver):
    """A playing lab sends ten frames a second; the live region speaks at most every
    two seconds (what came meanwhile, gathered), while the caption keeps up."""
    lab = lab_driver(page)
    lab.open("/labs/quorum/?seed=3&lang=en")
    page.evaluate(
        """() => {
        window.spoken = []; window.captions = 0;
        new MutationObserver(() => {
          const text = document.getElementById("narration").textContent;
          if (text) window.spoken.push([performance.now(), text]);
        }).observe(document.getElementById("narration"), { childList: true,
                                                          characterData: true,
                                                          subtree: true });
        new MutationObserver(() => { window.captions += 1; })
          .observe(document.getElementById("latest"), { childList: true,
                                                       characterData: true,
                                                       subtree: true });
      }"""
    )
    for _ in range(3):
        lab.act("write")
        lab.act("read")
    page.wait_for_timeout(6000)
    spoken = page.evaluate("window.spoken")
    captions = page.evaluate("window.captions")
    assert spoken, "nothing was said"
    gaps = [b[0] - a[0] for a, b in zip(spoken, spoken[1:], strict=False)]
    assert all(gap >= 1900 for gap in gaps), gaps
    assert captions > len(spoken), (captions, len(spoken))
    assert any("left out" in text or len(text) > 40 for _, text in spoken), spoken


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("slug", ["quorum", "partition-cap"])
def test_the_drawing_is_worked_by_keyboard_in_every_language(
    page, lab_driver, slug, lang
):
    """Cut a link with Enter and stop a server with Space, by Tab alone; each is named
    with what a sighted user reads on it, in the page's language."""
    lab = lab_driver(page)
    lab.open(f"/labs/{slug}/?seed=3&lang={lang}")
    lab.tab_to('g.net-link[data-state="up"]')
    name = page.evaluate("document.activeElement.getAttribute('aria-label')")
    cut = page.evaluate("document.activeElement.dataset.link")
    assert name and cut, name
    page.keyboard.press("Enter")
    expect(page.locator(f'g.net-link[data-link="{cut}"]')).to_have_attribute(
        "data-state", "cut"
    )
    lab.tab_to('g.net-node[data-node="A"]')
    visible = page.locator('g.net-node[data-node="A"] .node-id').text_content()
    assert visible in page.evaluate("document.activeElement.getAttribute('aria-label')")
    page.keyboard.press(" ")
    expect(page.locator('g.net-node[data-node="A"]')).to_have_attribute(
        "data-state", "stopped"
    )
    assert page.console_errors == []
