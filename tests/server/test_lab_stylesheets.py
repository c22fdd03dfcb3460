"""Each lab's own stylesheet (static/css/labs/<slug>.css, docs/frontend.md,
"Stylesheets"): every built lab has one, and every page that shows the lab (its page,
a class's page, its embed) links it after app.css and before stage.css, so the
cascade is the one app.css had when the labs' rules were in it."""

import re

import pytest
from django.contrib.staticfiles import finders

from playground.catalogue import built_labs

pytestmark = pytest.mark.django_db

SLUGS = [entry.slug for _, entry in built_labs()]


def stylesheets(html: str) -> list[str]:
    """The static paths of the page's stylesheets, in order."""
    return [
        href.split("/static/", 1)[1]
        for href in re.findall(r'<link rel="stylesheet" href="([^"]+)"', html)
    ]


@pytest.mark.parametrize("slug", SLUGS)
def test_every_built_lab_has_its_own_stylesheet(slug):
    assert finders.find(f"css/labs/{slug}.css"), f"static/css/labs/{slug}.css"


@pytest.mark.parametrize("slug", SLUGS)
@pytest.mark.parametrize("path", ["/labs/{}/", "/labs/{}/?room=ABCD", "/embed/{}/"])
def test_the_pages_that_show_a_lab_link_its_stylesheet(client, slug, path):
    html = client.get(path.format(slug)).content.decode()
    sheets = stylesheets(html)
    own = f"css/labs/{slug}.css"
    assert own in sheets, sheets
    order = [sheets.index(name) for name in ("css/app.css", own, "css/stage.css")]
    assert order == sorted(order), sheets
    # no other lab's look on the page
    assert [s for s in sheets if s.startswith("css/labs/")] == [own]


def test_no_lab_rule_is_left_in_app_css():
    """The labs' own prefixes live in their stylesheets; app.css keeps the kit."""
    with open(finders.find("css/app.css"), encoding="utf-8") as f:
        app = f.read()
    prefixes = r"\.(?:quorum-|q-metrics|pc-|rp-|tp-|rs-|sg-|cs-|rlr-|gt-|scheme-card)"
    left = [
        line
        for line in app.splitlines()
        if re.match(prefixes, line.strip())
        and ("{" in line or line.rstrip().endswith(","))
    ]
    assert left == []
