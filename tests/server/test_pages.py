"""The catalogue and the lab pages."""

import re
from pathlib import Path

import pytest
from django.conf import settings

from playground.catalogue import chapters
from simulators.labs import REGISTRY

pytestmark = pytest.mark.django_db


def test_the_catalogue_lists_every_lab_by_chapter(client):
    response = client.get("/")
    assert response.status_code == 200
    html = response.content.decode()
    for chapter in chapters():
        assert str(chapter.title) in html
        for entry in chapter.labs:
            assert str(entry.title) in html


def test_only_built_labs_are_links_and_no_link_is_dead(client):
    html = client.get("/").content.decode()
    for built in REGISTRY.built:
        assert f'href="/labs/{built.slug}/"' in html
    for coming in REGISTRY.coming:
        assert f'href="/labs/{coming.slug}/"' not in html
    assert 'href="#"' not in html
    for href in set(re.findall(r'href="(/[^"]*)"', html)):
        if href.startswith(settings.STATIC_URL):
            # served in front of Django (tests/server/test_static_files.py)
            collected = Path(settings.STATIC_ROOT) / href.removeprefix(
                settings.STATIC_URL
            )
            assert collected.is_file(), href
        else:
            assert client.get(href).status_code == 200, href


def test_the_hash_placement_page_boots_its_renderer(client):
    response = client.get("/labs/hash-placement/?seed=42")
    assert response.status_code == 200
    html = response.content.decode()
    assert 'data-ws-path="/ws/labs/hash-placement/"' in html
    assert 'data-seed="42"' in html
    assert "js/labs/hash-placement.js" in html


@pytest.mark.parametrize("slug", ["quorum", "partition-cap"])
def test_the_network_lab_pages_boot_their_renderers(client, slug):
    html = client.get(f"/labs/{slug}/?seed=3").content.decode()
    assert f'data-ws-path="/ws/labs/{slug}/"' in html
    assert f"js/labs/{slug}.js" in html


@pytest.mark.parametrize(
    "seed",
    ["-1", "abc", "1" * 40, "", "%C2%B2", "%D9%A7", "9" * 5_000, "%00", "1%002"],
)
def test_a_bad_seed_in_the_page_address_falls_back_to_zero(client, seed):
    html = client.get(f"/labs/hash-placement/?seed={seed}").content.decode()
    assert 'data-seed="0"' in html


def test_pages_refuse_to_be_framed(client):
    assert client.get("/").headers["X-Frame-Options"] == "DENY"


def test_static_modules_and_the_translation_catalogue_are_served(client):
    assert client.get("/jsi18n/").status_code == 200


def assert_error_page(html: str, status: int) -> None:
    """The site's own error page: its look, one sentence, the way back, no internals."""
    assert f"Error {status}" in html
    assert 'class="site-header"' in html and "css/app.css" in html
    assert 'href="/"' in html
    for leak in ("Traceback", "Django", "urlpatterns", "settings", "<slug", ".py"):
        assert leak not in html, leak


@pytest.mark.parametrize("path", ["/no-such-page/", "/labs/no-such-lab/", "/static/x"])
def test_a_missing_page_is_the_sites_own_404_and_lists_no_routes(client, path):
    response = client.get(path)
    assert response.status_code == 404
    html = response.content.decode()
    assert_error_page(html, 404)
    assert "There is no page at this address" in html
    assert "join/" not in html and "oembed" not in html and "jsi18n" not in html


def test_the_500_page_is_the_sites_own_and_needs_no_request():
    from django.template.loader import get_template

    html = get_template("500.html").render()  # as Django's handler does: no context
    assert_error_page(html, 500)
    assert "<script" not in html


def test_a_bad_host_gets_the_sites_own_400(client):
    response = client.get("/", HTTP_HOST="evil.example")
    assert response.status_code == 400
    assert_error_page(response.content.decode(), 400)
