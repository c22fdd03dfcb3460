"""Every lab page and embed, in every language, at a laptop's and a phone's size: one
visit each, every check of the sweeps on it (issue 30).

Four files used to open the same pages, each for its own checks: axe-core
(test_accessibility), English left on a Chinese or Thai page
(test_languages_in_browser), the stage layout and the first click (test_stage), quick
labels cut at phone width (test_phone_labels). Here each (lab, language, size) is
opened once and every check runs on it, in the order a visitor meets them; a failing
check does not hide the ones after it: the test reports them all. The labs, their
primary action and the actions pressed before the second round of checks, and the
embed's frame, come from each lab's manifest (simulators/labs/<lab>/manifest.py): a
new lab is swept without a line here.

- a lab page, 1280×800 and 390×844, English, Chinese and Thai: the stage and "Just
  now" in the first screen; the primary action in view, moving the stage within a
  second, nothing scrolled, nobody pressing Play (issue 10); the drawing's box and
  its text's size as it opens, against issue 31's bars (pagechecks.DRAWING_BARS;
  what each lab misses today is in DRAWING_MISSES); no quick label cut short
  (at 390); at 1280, the sweep's actions pressed, and axe-core with no serious or
  critical violation as it opens (the tour's card open, as a new visitor finds it)
  and after the actions; no English word and no Thai digit left on a Chinese or
  Thai page (after the actions);
- an embed (with its guide), in the frame its manifest proposes (800 wide) and at
  390×844, in the three languages: the same, plus nothing wider than the frame;
- an embed without controls, in the short frame: all stage, nothing wider;
- on every visit, no script error and no breach of the Content-Security-Policy (the
  contexts keep the policy: axe-core comes in an init script, which it does not see).
"""

import re

import pytest
from pagechecks import (
    AXE,
    FOLDERS,
    PHONE,
    PROJECTOR,
    RECORD_VIOLATIONS,
    WIDE,
    Findings,
    assert_clean,
    assert_drawing_fills_the_room,
    assert_drawing_fills_the_screen_presenting,
    assert_drawing_text_reads,
    assert_in_first_viewport,
    assert_latest_in_first_viewport,
    assert_no_english,
    assert_no_quick_label_cut,
    assert_no_quick_value_cut,
    assert_no_thai_digits,
    assert_within_policy,
    click_primary_and_see_it_move,
    kept_words,
    open_page,
)
from playwright.sync_api import expect

from playground.liveserver import watch_errors
from simulators.labs import REGISTRY
from simulators.labs.manifest import EMBED_SHORT_HEIGHT

pytestmark = pytest.mark.browser

LANGUAGES = ["en", "zh-hans", "th"]
SIZES = [pytest.param("wide", id="wide"), pytest.param("phone", id="390")]


def built_slugs() -> list[str]:
    """The labs the sweeps visit: every built lab the registry finds."""
    return [manifest.slug for manifest in REGISTRY.built]


def embed_frame(slug: str, size: str) -> dict:
    """An embed's viewport: the frame its manifest proposes, or a phone."""
    manifest = REGISTRY[slug]
    if size == "phone":
        return PHONE
    return {"width": manifest.embed_width, "height": manifest.embed_height}


# Faults the merged sweep found where the old sweeps never looked, not mended on this
# branch: (page, lab, size): {check: why}. Each makes its visit an expected failure
# that says why, while every other check of the visit still counts.
KNOWN = {
    ("labs", "range-splits", "phone"): {
        "the first click moves the stage": (
            "range-splits' quick bar puts write below the first screen at 390×844 in "
            "English and Thai (the stage sweep never visited range-splits)"
        ),
    },
    ("embed", "range-splits", "phone"): {
        "the first click moves the stage": (
            "range-splits' write is below the first screen of a 390×844 embed"
        ),
    },
}

# Issue 31: the drawing at the size of the room. What each lab's drawing misses today
# on a first visit with the tour's card open (measured on main before the work began):
# its box under the bar's share of the viewport ("fills"), its text's 10th percentile
# under the bar's size ("reads"); see pagechecks.DRAWING_BARS. A lab leaves this table
# as its drawing is made to meet the bars; a new lab is never in it.
DRAWING_MISSES = {
    ("partition-cap", "phone"): ("reads",),
    ("quorum", "phone"): ("reads",),
    ("two-phase-commit", "phone"): ("reads",),
    ("scatter-gather", "wide"): ("fills",),
    ("scatter-gather", "phone"): ("reads",),
    ("cache-stampede", "wide"): ("fills",),
    ("cache-stampede", "phone"): ("reads",),
    ("graph-traversal", "wide"): ("fills",),
    ("rate-limit-race", "wide"): ("fills",),
    ("rate-limit-race", "phone"): ("reads",),
}
# ... and what it misses in one language and not another (the same check is then
# not required to fail: the table above is held to failing, this one is not)
DRAWING_MISSES_IN_SOME_LANGUAGES = {
    ("cache-stampede", "phone"): ("fills",),  # 32% in Thai, 43% in English
    ("rate-limit-race", "phone"): ("fills",),  # 32% in English and Chinese
    # the ring card's title wraps in Thai: its figure, and its text, are smaller (10.3
    # px at the 10th percentile; 12.3 in English and Chinese)
    ("hash-placement", "wide"): ("reads",),
    # one card at a time: 31% in English, 32% in Thai, 35% in Chinese
    ("hash-placement", "phone"): ("fills",),
}
DRAWING_CHECKS = {
    "fills": "the drawing fills the room",
    "reads": "the drawing's text reads",
}
for _table in (DRAWING_MISSES, DRAWING_MISSES_IN_SOME_LANGUAGES):
    for (_slug, _size), _misses in _table.items():
        _known = KNOWN.setdefault(("labs", _slug, _size), {})
        for _miss in _misses:
            _known[DRAWING_CHECKS[_miss]] = (
                "issue 31: the drawing does not scale with the stage yet"
            )


def held_to_failing(slug: str, size: str) -> frozenset[str]:
    """The drawing checks this visit is known to fail in every language."""
    return frozenset(
        DRAWING_CHECKS[miss] for miss in DRAWING_MISSES.get((slug, size), ())
    )


@pytest.fixture(scope="module")
def allowed():
    return {lang: kept_words(folder) for lang, folder in FOLDERS.items()}


@pytest.fixture(scope="module")
def visit_pages(browser):
    """The module's pages, one with axe-core and one without (made as first needed):
    each visit reuses one, with everything the site stored cleared (see `visitor`)."""
    pages: dict = {}
    yield pages
    for page in pages.values():
        page.context.close()


@pytest.fixture
def visitor(browser, visit_pages, live_server_url):
    """`visitor(viewport, axe=True)`: a page that records script errors and CSP
    violations; its context keeps the page's policy, and axe-core comes in an init
    script (which the policy does not see) where `axe`.

    A new visitor each time, as far as the site can tell: the page is left (for
    about:blank), and its cookies, local and session storage are cleared. What is kept
    from one visit to the next is the browser's: its renderer and its HTTP cache (the
    page's 50-odd scripts and stylesheets, max-age=60), a returning reader's. A new
    context a visit cost 0.3 s of CPU more, some 40 s a sweep."""
    if not AXE.exists():
        pytest.fail(
            "node_modules/axe-core is missing: `make test` installs it (npm ci)"
        )

    def open_visit(viewport, axe=True):
        page = visit_pages.get(axe)
        if page is None:
            context = browser.new_context(viewport=viewport)
            page = watch_errors(context.new_page())  # its about:blank needs no axe
            context.add_init_script(RECORD_VIOLATIONS)
            if axe:
                context.add_init_script(path=str(AXE))
            page.cdp = context.new_cdp_session(page)
            visit_pages[axe] = page
            return page
        page.goto("about:blank")  # the last visit's lab closes its socket, unloaded
        page.context.clear_cookies()
        page.cdp.send(
            "Storage.clearDataForOrigin",
            {
                "origin": live_server_url,
                "storageTypes": "local_storage,session_storage,indexeddb,"
                "cache_storage,service_workers",
            },
        )
        page.console_errors.clear()  # what the last visit's page said is not this one's
        page.set_viewport_size(viewport)
        return page

    return open_visit


def act(page, action: str) -> None:
    """Press `action`'s button (quick bar or rail) and wait for its frame."""
    forms = (
        f'#quick-controls form[data-action="{action}"], '
        f'#controls form[data-action="{action}"]'
    )
    before = page.locator("#lab").get_attribute("data-seq")
    page.locator(forms).first.locator('button[type="submit"]').click()
    page.wait_for_function(
        "before => document.querySelector('#lab').dataset.seq !== before", arg=before
    )


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("slug", built_slugs())
def test_a_lab_page_passes_every_check(
    visitor, live_server_url, allowed, slug, lang, size
):
    manifest = REGISTRY[slug]
    viewport = PHONE if size == "phone" else WIDE
    page = visitor(viewport, axe=size == "wide")
    where = f"{slug} ({lang}, {viewport['width']}×{viewport['height']})"
    found = Findings(
        where, KNOWN.get(("labs", slug, size)), held_to_failing(slug, size)
    )
    open_page(page, f"{live_server_url}/labs/{slug}/?seed=3&lang={lang}", viewport)
    with found("the page's language"):
        expect(page.locator("html")).to_have_attribute("lang", lang)
    with found("the stage in the first screen"):
        assert_in_first_viewport(page, viewport)
    with found('"Just now" in the first screen'):
        assert_latest_in_first_viewport(page, viewport)
    with found(DRAWING_CHECKS["fills"]):
        assert_drawing_fills_the_room(page, viewport)
    with found(DRAWING_CHECKS["reads"]):
        assert_drawing_text_reads(page, viewport)
    if size == "phone":
        with found("quick labels at phone width"):
            assert_no_quick_label_cut(page)
    if size == "wide":
        with found("quick values whole"):
            assert_no_quick_value_cut(page)
        with found("axe as it opens, the tour's card open"):
            expect(page.locator("#tour")).to_be_visible()  # a new visitor's
            assert_clean(page, "as it opens, with the tour's card")
    with found("the first click moves the stage"):
        click_primary_and_see_it_move(page, manifest.primary)
    if size == "wide":  # the actions, where the old sweeps pressed them
        for action in manifest.sweep:
            act(page, action)
        page.wait_for_timeout(400)
        with found("axe after the actions"):
            assert_clean(page, f"after {manifest.sweep}")
    if lang != "en":
        with found("no English left"):
            assert_no_english(page, allowed[lang], f"{slug} in {lang}")
        with found("no Thai digits"):
            assert_no_thai_digits(page)
    with found("within the Content-Security-Policy"):
        assert_within_policy(page)
    with found("no script error"):
        assert page.console_errors == []
    found.assert_none()


# Issue 31 at a projector's size (1920×1080): the drawing is larger than on a laptop, in
# proportion. What each lab's drawing misses there today, as DRAWING_MISSES.
PROJECTOR_MISSES = {
    "rate-limit-race": ("fills",),
}
# ... and in presenter mode (English), the drawing's box under 70% of the screen: how
# much of it each one covers, measured when the mode was made
PRESENTING_MISSES = {
    "scatter-gather": "67%",
    "partition-cap": "68%",
    "two-phase-commit": "64%",
    "cache-stampede": "57%",
    "rate-limit-race": "40%",
    "graph-traversal": "60%",
    "replication": "69%",
}
PRESENTING = "presenting, the drawing fills the screen"


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("slug", built_slugs())
def test_a_lab_page_on_a_projector(visitor, live_server_url, slug, lang):
    """The first view at 1920×1080: the stage and "Just now" in it, the drawing's box
    and its text over the projector's bars, and no script error."""
    page = visitor(PROJECTOR, axe=False)
    held = frozenset(DRAWING_CHECKS[miss] for miss in PROJECTOR_MISSES.get(slug, ()))
    why = "issue 31: the drawing does not scale with the stage yet"
    known = dict.fromkeys(held, why)
    if lang == "en" and slug in PRESENTING_MISSES:
        known[PRESENTING] = f"issue 31: {PRESENTING_MISSES[slug]} of the screen"
        held |= {PRESENTING}
    found = Findings(f"{slug} ({lang}, 1920×1080)", known, held)
    open_page(page, f"{live_server_url}/labs/{slug}/?seed=3&lang={lang}", PROJECTOR)
    with found("the stage in the first screen"):
        assert_in_first_viewport(page, PROJECTOR)
    with found('"Just now" in the first screen'):
        assert_latest_in_first_viewport(page, PROJECTOR)
    with found(DRAWING_CHECKS["fills"]):
        assert_drawing_fills_the_room(page, PROJECTOR)
    with found(DRAWING_CHECKS["reads"]):
        assert_drawing_text_reads(page, PROJECTOR)
    if lang == "en":  # the mode's layout is the same in every language
        page.keyboard.press("p")  # presenter mode (presenter.js)
        expect(page.locator("body")).to_have_class(re.compile(r"\bis-presenting\b"))
        page.wait_for_timeout(300)  # the drawings follow the stage's new size
        with found(PRESENTING):
            assert_drawing_fills_the_screen_presenting(page)
        with found("presenting, Just now and the primary action in view"):
            assert_latest_in_first_viewport(page, PROJECTOR)
            primary = page.locator(
                f'#quick-controls form[data-action="{REGISTRY[slug].primary}"] button'
            )
            expect(primary).to_be_in_viewport(ratio=1)
    with found("no script error"):
        assert page.console_errors == []
    found.assert_none()


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("slug", built_slugs())
def test_an_embed_passes_every_check(
    visitor, live_server_url, allowed, slug, lang, size
):
    manifest = REGISTRY[slug]
    frame = embed_frame(slug, size)
    page = visitor(frame, axe=size != "phone")
    where = f"the {slug} embed ({lang}, {frame['width']}×{frame['height']})"
    found = Findings(where, KNOWN.get(("embed", slug, size)))
    url = f"{live_server_url}/embed/{slug}/?seed=7&lang={lang}&narrative=1"
    open_page(page, url, frame)
    with found("the stage in the first screen"):
        assert_in_first_viewport(page, frame)
    with found("nothing wider than the frame"):
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= frame["width"], width
    with found("quick labels whole"):  # beside their fields in the 800 px frame
        assert_no_quick_label_cut(page)
    if size != "phone":
        with found("axe"):
            assert_clean(page, "the embed with its guide")
    if lang != "en":
        with found("no English left"):
            assert_no_english(page, allowed[lang], f"the {slug} embed in {lang}")
    with found("the first click moves the stage"):
        click_primary_and_see_it_move(page, manifest.primary)
    with found("within the Content-Security-Policy"):
        assert_within_policy(page)
    with found("no script error"):
        assert page.console_errors == []
    found.assert_none()


@pytest.mark.parametrize("slug", built_slugs())
def test_an_embed_without_controls_is_all_stage_in_the_short_frame(
    visitor, live_server_url, slug
):
    """The size the Embed dialog and oEmbed propose without controls holds the stage."""
    manifest = REGISTRY[slug]
    frame = {"width": manifest.embed_width, "height": EMBED_SHORT_HEIGHT}
    page = visitor(frame, axe=False)
    open_page(page, f"{live_server_url}/embed/{slug}/?controls=0", frame)
    assert_in_first_viewport(page, frame)
    expect(page.locator("#quick-controls")).to_have_count(0)
    assert page.evaluate("document.documentElement.scrollWidth") <= frame["width"]
    assert_within_policy(page)
    assert page.console_errors == []
