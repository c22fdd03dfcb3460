"""Labs of the catalogue that are not built yet: a page of the site, and an embed."""

import re

import pytest
from django.utils.html import escape as html_escape

from playground.catalogue import chapters, find_lab
from simulators.labs import REGISTRY

pytestmark = pytest.mark.django_db

COMING = [lab.slug for lab in REGISTRY.coming]
BUILT = [lab.slug for lab in REGISTRY.built]


@pytest.fixture
def coming() -> str:
    """A lab still coming, as the registry has it (the test is skipped when every lab
    is built)."""
    if not COMING:
        pytest.skip("every lab of the course is built")
    return COMING[0]


def escape(text) -> str:
    """`text` (a lazy translation too) as the page's HTML has it."""
    return str(html_escape(str(text)))


def ready_links(html: str) -> list[str]:
    """The lab pages a page links to, in order."""
    return re.findall(r'href="/labs/([a-z-]+)/"', html)


@pytest.mark.parametrize("slug", COMING)
def test_a_coming_lab_has_a_page_with_its_chapter_and_promise(client, slug):
    chapter, entry = find_lab(slug)
    response = client.get(f"/labs/{slug}/")
    assert response.status_code == 200
    html = response.content.decode()
    assert 'class="site-header"' in html and "css/app.css" in html
    assert f'<h1 id="coming-title">{escape(entry.title)}</h1>' in html
    assert escape(entry.promise) in html
    assert escape(f"Chapter {chapter.number} · {chapter.title}") in html
    assert "This lab is still being built" in html
    assert 'href="/"' in html
    assert sorted(ready_links(html)) == sorted(BUILT)


def test_a_coming_lab_lists_its_chapters_built_labs_first(client):
    """The labs that can be opened, its own chapter's first, then the course's order."""
    course = chapters()
    for lab in COMING:
        mine = next(c for c in course if any(e.slug == lab for e in c.labs))
        first = [e.slug for e in mine.labs if e.built]
        rest = [e.slug for c in course if c is not mine for e in c.labs if e.built]
        html = client.get(f"/labs/{lab}/").content.decode()
        assert ready_links(html) == first + rest, lab


def test_the_course_order_is_the_chapters_then_each_labs_place():
    """The manifests' chapters and places give the catalogue's order (and the order
    of the links above): chapter 1's labs first, each chapter in its own order."""
    assert BUILT[:3] == ["hash-placement", "range-splits", "scatter-gather"]
    places = [(m.chapter, m.order) for m in REGISTRY.manifests.values()]
    assert places == sorted(places)
    numbers = sorted({m.chapter for m in REGISTRY.manifests.values()})
    assert [c.number for c in chapters()] == numbers


def test_a_coming_lab_page_runs_no_lab(client, coming):
    html = client.get(f"/labs/{coming}/").content.decode()
    assert "data-ws-path" not in html and "lab-page.js" not in html
    assert 'rel="modulepreload"' not in html


def test_a_coming_lab_page_is_not_framable(client, coming):
    response = client.get(f"/labs/{coming}/")
    assert response.headers["X-Frame-Options"] == "DENY"
    assert "frame-ancestors 'none'" in response.headers["Content-Security-Policy"]


def test_an_unknown_lab_is_still_the_sites_404(client):
    response = client.get("/labs/no-such-lab/")
    assert response.status_code == 404
    assert "There is no page at this address" in response.content.decode()


@pytest.mark.parametrize("slug", COMING)
def test_the_embed_of_a_coming_lab_says_so_and_may_be_framed(client, slug):
    _, entry = find_lab(slug)
    response = client.get(f"/embed/{slug}/?theme=dark")
    assert response.status_code == 200
    assert "X-Frame-Options" not in response.headers
    policy = response.headers["Content-Security-Policy"].split("; ")
    assert "frame-ancestors *" in policy
    html = response.content.decode()
    assert escape(entry.title) in html and escape(entry.promise) in html
    assert "This lab is still being built" in html
    assert 'data-theme="dark"' in html
    assert "<script" not in html and "site-header" not in html
    link = re.search(r'<a id="open-in-playground"[^>]*>', html).group()
    assert f'href="/labs/{slug}/"' in link
    assert 'target="_blank"' in link and 'rel="noopener"' in link


def test_the_catalogue_lists_the_built_labs_before_the_coming_ones(client):
    html = client.get("/").content.decode()
    coming = html.index('id="coming-title"')
    ready = html.index('id="ready-title"')
    assert ready < coming
    for slug in BUILT:
        assert ready < html.index(f'href="/labs/{slug}/"') < coming
    for chapter in chapters():
        for entry in chapter.labs:
            if not entry.built:
                assert html.index(escape(entry.title)) > coming


def test_every_coming_page_and_catalogue_string_is_marked_for_translation():
    """The new templates' words go through {% translate %}: none is bare text."""
    from pathlib import Path

    templates = Path(__file__).resolve().parents[2] / "templates"
    for name in ("labs/coming.html", "embed/coming.html", "catalogue.html"):
        text = (templates / name).read_text()
        text = re.sub(r"{%\s*comment\s*%}.*?{%\s*endcomment\s*%}", "", text, flags=re.S)
        text = re.sub(
            r"{%\s*blocktranslate.*?{%\s*endblocktranslate\s*%}", "", text, flags=re.S
        )
        text = re.sub(r"{%.*?%}|{{.*?}}|<[^>]*>", " ", text, flags=re.S)
        leftover = [w for w in re.findall(r"[A-Za-z]{2,}", text) if w != "doctype"]
        assert leftover == [], name
