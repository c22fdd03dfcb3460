"""Security headers on every response, and what an error answers with."""

import re

import pytest
from django.conf import settings
from django.test import override_settings
from django.urls import path

from playground import store
from playground.models import RoomRecord
from playground.urls import urlpatterns as site_urlpatterns

PAGES = ["/", "/labs/hash-placement/", "/labs/quorum/", "/labs/partition-cap/"]
PAGES += ["/embed/quorum/", "/join/"]


def crash(request):
    raise RuntimeError(f"a bug, beside {settings.BASE_DIR} and the secret")


# A test-only address that fails, so the 500 page is served as a real request gets it.
urlpatterns = [path("crash/", crash), *site_urlpatterns]


def directives(response) -> dict[str, list[str]]:
    """The Content-Security-Policy of a response, directive by directive."""
    policy = response.headers["Content-Security-Policy"]
    return {
        name: sources for name, *sources in (part.split() for part in policy.split(";"))
    }


@pytest.fixture
def lesson():
    record, _ = store.create_room("hash-placement", 7, kind=RoomRecord.CLASS)
    return record


EARLY_SOCKET = (settings.BASE_DIR / "static/js/early-socket.js").read_text()


@pytest.mark.parametrize("page", PAGES)
def test_every_page_allows_only_its_own_scripts_and_the_nonced_inline_ones(
    client, page
):
    """Inline: the import map, and on a lab page or an embed the script that opens the
    websocket early (static/js/early-socket.js, as it is); both carry the nonce."""
    response = client.get(page)
    policy = directives(response)
    nonces = [s for s in policy["script-src"] if s.startswith("'nonce-")]
    assert policy["script-src"] == ["'self'", *nonces] and len(nonces) == 1
    nonce = nonces[0][7:-1]
    html = response.content.decode()
    inline = re.findall(r"(<script\b(?![^>]*\bsrc=)[^>]*>)(.*?)</script>", html, re.S)
    assert [tag for tag, _ in inline if "importmap" in tag] == [
        f'<script type="importmap" nonce="{nonce}">'
    ]
    others = [(tag, text) for tag, text in inline if "importmap" not in tag]
    lab_page = page.startswith(("/labs/", "/embed/"))
    assert len(others) == (1 if lab_page else 0)
    for tag, text in others:
        assert tag.startswith(f'<script nonce="{nonce}" data-ws-path="/ws/labs/')
        assert text == EARLY_SOCKET


@pytest.mark.parametrize("page", PAGES)
def test_every_page_loads_and_connects_only_to_its_own_site(client, page):
    policy = directives(client.get(page))
    for name in ("default-src", "style-src", "img-src", "connect-src"):
        assert policy[name] == ["'self'"], name
    assert policy["object-src"] == ["'none'"]
    assert policy["base-uri"] == ["'self'"]
    assert policy["form-action"] == ["'self'"]


def test_each_page_gets_a_fresh_nonce(client):
    first, second = (directives(client.get("/"))["script-src"] for _ in range(2))
    assert first != second


@pytest.mark.parametrize("page", [p for p in PAGES if not p.startswith("/embed/")])
def test_pages_may_not_be_framed(client, page):
    response = client.get(page)
    assert directives(response)["frame-ancestors"] == ["'none'"]
    assert response.headers["X-Frame-Options"] == "DENY"


def test_an_embed_may_be_framed_by_any_site(client):
    response = client.get("/embed/hash-placement/?theme=dark")
    assert directives(response)["frame-ancestors"] == ["*"]
    assert "X-Frame-Options" not in response.headers


def test_every_kind_of_response_says_nosniff_and_same_origin_referrers(client, lesson):
    for address in [
        *PAGES,
        "/oembed?url=http://testserver/labs/quorum/",
        f"/join/{lesson.join_code}/qr.svg",
        "/jsi18n/",
        "/no-such-page/",
    ]:
        response = client.get(address)
        assert response.headers["X-Content-Type-Options"] == "nosniff", address
        assert response.headers["Referrer-Policy"] == "same-origin", address
        assert directives(response)["default-src"] == ["'self'"], address


@override_settings(ROOT_URLCONF=__name__)
def test_a_crash_gets_the_sites_500_page_and_nothing_internal(client):
    client.raise_request_exception = False
    response = client.get("/crash/")
    assert response.status_code == 500
    html = response.content.decode()
    assert "Something went wrong on our side" in html and 'href="/"' in html
    for leak in ("Traceback", "RuntimeError", str(settings.BASE_DIR), "secret"):
        assert leak not in html, leak
    assert settings.SECRET_KEY not in html
    assert directives(response)["script-src"] == ["'self'"]
