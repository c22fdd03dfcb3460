"""Embeds and oEmbed: framing headers, options, and every bad input a clear answer.

The three links of docs/embed-example.html are made here from real histories
(`example_links`); a test checks the page holds exactly them. After a change to a lab
that changes them, rewrite the page with

    EMBED_EXAMPLE_REWRITE=1 .venv/bin/python -m pytest tests/server -k example_page
"""

import base64
import html
import json
import os
import re
import zlib
from pathlib import Path
from urllib.parse import parse_qs, quote, urlsplit

import pytest
from django.conf import settings

from playground.embeds import (
    DEFAULT_WIDTH,
    MAX_SIDE,
    SHORT_HEIGHT,
    EmbedOptions,
)
from playground.history import History
from playground.links import SHORT_LINK_CHARS, make_link, read_link
from playground.store import Entry
from simulators.labs import LABS, REGISTRY

pytestmark = pytest.mark.django_db

REPO = Path(__file__).resolve().parents[2]
EXAMPLE_PAGE = REPO / "docs" / "embed-example.html"
HOST = "http://testserver"
SLUGS = ["hash-placement", "range-splits", "quorum", "partition-cap"]

# The moments docs/embed-example.html shows, as a docs author would make them.
EXAMPLE_HISTORIES = {
    # a fifth shard added: mod N moves four keys in five, the ring about a fifth
    "hash-placement": [("add_shard", {})],
    # passenger ids split and spread; then timestamps, every one on the same shard
    "range-splits": [
        ("write", {"kind": "uniform", "count": 20_000, "rate": 5_000}),
        ("write", {"kind": "timestamps", "count": 20_000, "rate": 5_000}),
    ],
    # W = R = ONE, A–C cut, a write through A, a read through C at once: a stale read
    "quorum": [
        ("set_levels", {"w": "ONE", "r": "ONE"}),
        ("cut_link", {"link": "A-C"}),
        ("write", {"w": "default", "coordinator": "A"}),
        ("read", {"r": "default", "coordinator": "C"}),
        ("advance", {"ms": 400}),
    ],
    # Frankfurt cut off, both sides sell the last seat, healed: last writer wins and
    # Frankfurt's booking is gone
    "partition-cap": [
        ("split", {"group": "A"}),
        ("book", {"server": "A", "passenger": "P0000001", "mode": "anyway"}),
        ("book", {"server": "C", "passenger": "P0000002", "mode": "anyway"}),
        ("advance", {"ms": 1000}),
        ("heal_all", {}),
        ("advance", {"ms": 2000}),
    ],
}
# what each embed of the example page is opened with
EXAMPLE_QUERIES = {
    "hash-placement": "",
    "range-splits": "",
    "quorum": "mode=readonly",
    "partition-cap": "controls=0&theme=dark",
}
EXAMPLE_ORIGIN = "http://127.0.0.1:8000"


def history_of(slug: str, steps: list) -> History:
    timeline = History(LABS[slug], 0)
    for number, (name, args) in enumerate(steps, start=1):
        timeline.apply(name, args, Entry(number, name, args))
    return timeline


def example_links() -> dict[str, str]:
    """The link of each example moment (deterministic: the same in every process)."""
    links = {}
    for slug, steps in EXAMPLE_HISTORIES.items():
        timeline = history_of(slug, steps)
        links[slug] = make_link(slug, 0, timeline.actions, timeline.cursor)
    return links


def example_src(slug: str, link: str) -> str:
    query = EXAMPLE_QUERIES[slug]
    return f"{EXAMPLE_ORIGIN}/embed/{slug}/{'?' + query if query else ''}#link={link}"


# -- the embed page --------------------------------------------------------------------


def policy_of(response) -> list[str]:
    """The directives of a response's Content-Security-Policy."""
    return response.headers["Content-Security-Policy"].split("; ")


@pytest.mark.parametrize("slug", SLUGS)
def test_an_embed_may_be_framed_by_any_site(client, slug):
    response = client.get(f"/embed/{slug}/")
    assert response.status_code == 200
    assert "X-Frame-Options" not in response.headers
    assert "frame-ancestors *" in policy_of(response)
    html_text = response.content.decode()
    assert f'data-ws-path="/ws/labs/{slug}/"' in html_text
    assert f"js/labs/{slug}.js" in html_text
    assert "js/embed.js" in html_text
    assert "site-header" not in html_text and "site-footer" not in html_text


def test_a_head_request_is_answered_like_a_get(client):
    response = client.head("/embed/quorum/")
    assert response.status_code == 200
    assert "frame-ancestors *" in policy_of(response)


@pytest.mark.parametrize(
    "path", ["/", "/labs/hash-placement/", "/labs/quorum/", "/join/", "/oembed"]
)
def test_every_other_page_still_refuses_to_be_framed(client, path):
    response = client.get(path)
    assert response.headers["X-Frame-Options"] == "DENY"
    assert "frame-ancestors 'none'" in policy_of(response)


def test_an_unknown_lab_has_no_embed(client):
    response = client.get("/embed/no-such-lab/")
    assert response.status_code == 404
    assert response.headers["X-Frame-Options"] == "DENY"


def test_the_default_options(client):
    html_text = client.get("/embed/quorum/").content.decode()
    assert 'data-mode="interactive"' in html_text
    assert 'data-controls="1"' in html_text
    assert 'data-narrative="0"' in html_text
    assert "autoplay" not in html_text  # every embed plays as a lab page does
    assert 'data-theme="light"' in html_text
    assert 'id="controls"' in html_text
    assert 'id="timeline"' in html_text
    assert "narrative-body" not in html_text


def test_the_options_shape_the_page(client):
    html_text = client.get(
        "/embed/quorum/?mode=readonly&controls=0&narrative=1&autoplay=1&theme=dark&seed=7"
    ).content.decode()
    assert 'data-mode="readonly"' in html_text
    assert 'data-controls="0"' in html_text
    assert 'data-narrative="1"' in html_text
    assert 'data-theme="dark"' in html_text
    assert 'data-seed="7"' in html_text
    assert 'id="controls"' not in html_text
    assert 'id="quick-controls"' not in html_text
    assert 'id="timeline"' not in html_text
    assert "narrative-body" in html_text
    assert 'id="readonly-note"' in html_text


@pytest.mark.parametrize(
    "query",
    [
        "mode=admin",
        "mode=",
        "controls=yes",
        "controls=2",
        "narrative=%00",
        "autoplay=-1",
        "theme=%22%3E%3Cscript%3Ealert(1)%3C/script%3E",
        "theme=LIGHT",
        "seed=-3",
        "seed=99999999999999999999999",
        "seed=%C2%B2",  # "²": isdigit(), and int() refuses it
        "seed=%D9%A7",  # "٧": isdigit(), and int() reads 7
        "seed=" + "9" * 5_000,
        "seed=%00",
        "mode=readonly&mode=interactive",
        "x=1&controls[]=0",
    ],
)
def test_bad_option_values_fall_back_to_the_defaults(client, query):
    response = client.get(f"/embed/hash-placement/?{query}")
    assert response.status_code == 200
    html_text = response.content.decode()
    assert "<script>alert" not in html_text
    options = EmbedOptions.from_query(parse_qs(query))
    assert f'data-mode="{options.mode}"' in html_text
    assert f'data-theme="{options.theme}"' in html_text
    assert options.theme in ("light", "dark")
    assert options.mode in ("interactive", "readonly")


def test_options_round_trip_through_their_query():
    chosen = EmbedOptions(mode="readonly", controls=False, narrative=True, theme="dark")
    assert EmbedOptions.from_query(parse_qs(chosen.query())) == chosen
    assert EmbedOptions().query() == ""


def test_the_embed_has_its_own_discovery_link(client):
    html_text = client.get("/embed/quorum/?theme=dark").content.decode()
    match = re.search(
        r'<link rel="alternate" type="application/json\+oembed" href="([^"]+)"',
        html_text,
    )
    assert match
    href = html.unescape(match[1])
    parts = urlsplit(href)
    assert parts.path == "/oembed"
    url = parse_qs(parts.query)["url"][0]
    assert url == f"{HOST}/embed/quorum/?theme=dark"


@pytest.mark.parametrize("slug", SLUGS)
def test_lab_pages_have_a_discovery_link_that_works(client, slug):
    html_text = client.get(f"/labs/{slug}/?seed=3").content.decode()
    match = re.search(
        r'<link rel="alternate" type="application/json\+oembed" href="([^"]+)"',
        html_text,
    )
    assert match, "no oEmbed discovery link in the lab page's head"
    head = html_text.split("</head>")[0]
    assert match[0] in head
    href = html.unescape(match[1])
    parts = urlsplit(href)
    assert f"{parts.scheme}://{parts.netloc}" == HOST
    assert parse_qs(parts.query)["url"][0] == f"{HOST}/labs/{slug}/?seed=3"
    answer = client.get(f"{parts.path}?{parts.query}")
    assert answer.status_code == 200
    assert f"/embed/{slug}/?seed=3" in answer.json()["html"]


# -- oEmbed: good requests -------------------------------------------------------------


def oembed(client, **params):
    query = "&".join(f"{k}={quote(str(v), safe='')}" for k, v in params.items())
    return client.get(f"/oembed?{query}")


def iframe_src(snippet: str) -> str:
    match = re.fullmatch(
        r'<iframe src="([^"]*)" width="(\d+)" height="(\d+)".*', snippet
    )
    assert match, snippet
    return html.unescape(match[1])


@pytest.mark.parametrize("slug", SLUGS)
@pytest.mark.parametrize("kind", ["labs", "embed"])
def test_oembed_answers_for_a_lab_page_or_an_embed(client, slug, kind):
    link = example_links()[slug]
    response = oembed(client, url=f"{HOST}/{kind}/{slug}/#link={link}")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    assert response["Access-Control-Allow-Origin"] == "*"
    answer = response.json()
    assert answer["version"] == "1.0"
    assert answer["type"] == "rich"
    assert answer["provider_name"] == "Distributed Data Playground"
    assert answer["provider_url"] == f"{HOST}/"
    assert answer["title"] == str(LABS_TITLES[slug])
    assert answer["width"] == DEFAULT_WIDTH
    assert answer["height"] == REGISTRY[slug].embed_height
    assert iframe_src(answer["html"]) == f"{HOST}/embed/{slug}/#link={link}"
    assert f'width="{DEFAULT_WIDTH}"' in answer["html"]
    assert f'title="{html.escape(answer["title"])}"' in answer["html"]


LABS_TITLES = {}


@pytest.fixture(autouse=True)
def _titles():
    from playground.catalogue import find_lab

    for slug in SLUGS:
        LABS_TITLES[slug] = find_lab(slug)[1].title


def test_oembed_keeps_the_embed_options(client):
    url = f"{HOST}/embed/quorum/?theme=dark&mode=readonly&controls=0&bogus=<x>"
    answer = oembed(client, url=url).json()
    src = iframe_src(answer["html"])
    parts = urlsplit(src)
    assert parse_qs(parts.query) == {
        "mode": ["readonly"],
        "controls": ["0"],
        "theme": ["dark"],
    }
    assert "bogus" not in answer["html"]
    assert answer["height"] < REGISTRY["quorum"].embed_height  # no controls: shorter


def test_a_read_only_embed_is_proposed_without_room_for_controls(client):
    """A read-only embed shows no controls, whatever `controls` says."""
    answer = oembed(client, url=f"{HOST}/embed/quorum/?mode=readonly").json()
    assert answer["height"] == SHORT_HEIGHT
    answer = oembed(client, url=f"{HOST}/embed/quorum/").json()
    assert answer["height"] == REGISTRY["quorum"].embed_height == 680


@pytest.mark.parametrize("slug", sorted(LABS))
def test_the_lab_page_gives_the_embed_dialog_the_sizes_oembed_proposes(client, slug):
    """The dialog (static/js/embed-dialog.js) reads its sizes from the lab page, which
    has them from the lab's manifest, as oEmbed does: one set, kept in one place."""
    manifest = REGISTRY[slug]
    page = client.get(f"/labs/{slug}/").content.decode()
    root = re.search(r'<div id="lab"[^>]*>', page).group(0)
    assert f'data-embed-width="{manifest.embed_width}"' in root
    assert f'data-embed-height="{manifest.embed_height}"' in root
    assert f'data-embed-short-height="{SHORT_HEIGHT}"' in root
    answer = oembed(client, url=f"{HOST}/labs/{slug}/").json()
    assert (answer["width"], answer["height"]) == (
        manifest.embed_width,
        manifest.embed_height,
    )


def test_the_embed_dialog_keeps_no_table_of_labs():
    """No copy of the sizes in the JS to drift: no lab's slug is named there."""
    source = (settings.BASE_DIR / "static/js/embed-dialog.js").read_text()
    assert "data-embed-height" in source or "embedHeight" in source
    for slug in REGISTRY.manifests:
        assert f'"{slug}"' not in source and f"{slug}:" not in source, slug


def test_oembed_respects_maxwidth_and_maxheight(client):
    answer = oembed(
        client, url=f"{HOST}/labs/quorum/", maxwidth=500, maxheight=400
    ).json()
    assert (answer["width"], answer["height"]) == (500, 400)
    assert 'width="500" height="400"' in answer["html"]


@pytest.mark.parametrize("huge", [10**12, 10**100, MAX_SIDE + 1, "0" * 30 + "900"])
def test_a_huge_maxwidth_is_clamped(client, huge):
    response = oembed(client, url=f"{HOST}/labs/quorum/", maxwidth=huge, maxheight=huge)
    assert response.status_code == 200
    answer = response.json()
    assert answer["width"] <= MAX_SIDE and answer["height"] <= MAX_SIDE


def test_a_https_page_gets_a_https_embed(client):
    answer = oembed(client, url="https://testserver/labs/quorum/").json()
    assert iframe_src(answer["html"]).startswith("https://testserver/embed/quorum/")


def test_a_fragment_that_is_not_a_link_is_left_out(client):
    answer = oembed(client, url=f"{HOST}/labs/quorum/#controls-title").json()
    assert iframe_src(answer["html"]) == f"{HOST}/embed/quorum/"


# -- oEmbed: bad requests --------------------------------------------------------------


def assert_error(response, status: int, code: str | None = None):
    assert response.status_code == status, response.content
    assert response["Content-Type"] == "application/json"
    body = response.json()
    assert set(body) == {"error", "message"}
    assert body["message"] and body["message"][-1] in ".)"
    if code:
        assert body["error"] == code
    assert "<" not in response.content.decode()
    return body


@pytest.mark.parametrize("fmt", ["xml", "XML", "html", ""])
def test_only_json_is_offered(client, fmt):
    assert_error(oembed(client, url=f"{HOST}/labs/quorum/", format=fmt), 501)


def test_format_json_is_fine(client):
    assert oembed(client, url=f"{HOST}/labs/quorum/", format="json").status_code == 200


def test_a_missing_url_is_refused(client):
    assert_error(client.get("/oembed"), 400, "missing_url")
    assert_error(client.get("/oembed?url="), 400, "missing_url")


@pytest.mark.parametrize(
    "url",
    [
        "https://evil.example/labs/quorum/",
        "http://testserver.evil.example/labs/quorum/",
        "http://evil.example/?u=http://testserver/labs/quorum/",
        "http://user@testserver/labs/quorum/",
        "http://testserver:8080/labs/quorum/",
        f"{HOST}/",
        f"{HOST}/join/",
        f"{HOST}/labs/quorum",
        f"{HOST}/labs/quorum/extra/",
        f"{HOST}/static/js/embed.js",
        f"{HOST}/labs/../oembed",
    ],
)
def test_a_foreign_or_non_lab_url_is_not_found(client, url):
    assert_error(oembed(client, url=url), 404)


@pytest.mark.parametrize(
    "url",
    [
        "javascript:alert(1)//testserver/labs/quorum/",
        "ftp://testserver/labs/quorum/",
        "//testserver/labs/quorum/",
        "/labs/quorum/",
        "not a url",
        "http://testserver:99999/labs/quorum/",
        "http://testserver:²/labs/quorum/",
        "http://testserver:٧/labs/quorum/",
        "http://testserver:" + "9" * 5_000 + "/labs/quorum/",
        "http://[::1/labs/quorum/",
        "http://testserver/" + "a" * 70_000,
    ],
)
def test_a_url_that_is_not_a_web_address_is_refused(client, url):
    assert_error(oembed(client, url=url), 400)


@pytest.mark.parametrize("seed", ["²", "٧", "9" * 5_000, "\x00"])
def test_a_seed_that_is_not_ascii_digits_is_left_out_of_the_snippet(client, seed):
    response = oembed(client, url=f"{HOST}/labs/quorum/?seed={seed}")
    assert response.status_code == 200
    assert iframe_src(response.json()["html"]) == f"{HOST}/embed/quorum/"


@pytest.mark.parametrize(
    "slug", [*(lab.slug for lab in REGISTRY.coming[:1]), "no-such-lab"]
)
def test_an_unknown_lab_is_not_found(client, slug):
    assert_error(oembed(client, url=f"{HOST}/labs/{slug}/"), 404, "unknown_lab")


@pytest.mark.parametrize(
    "value",
    ["abc", "-5", "12.5", "1e3", "0x20", " 300", "²", "٣٠٠", "300px", "0", "10"],
)
@pytest.mark.parametrize("name", ["maxwidth", "maxheight"])
def test_absurd_sizes_are_refused_with_a_reason(client, name, value):
    body = assert_error(
        oembed(client, url=f"{HOST}/labs/quorum/", **{name: value}), 400, f"bad_{name}"
    )
    assert name in body["message"]


def test_damaged_and_forged_links_are_refused(client):
    good = example_links()["quorum"]
    for link in [
        good[:-10],
        "9." + good[2:],
        '1.abc"><script>alert(1)</script>',
        "1.<img src=x onerror=alert(1)>",
        example_links()["hash-placement"],  # another lab's
    ]:
        body = assert_error(
            oembed(client, url=f"{HOST}/labs/quorum/#link={quote(link)}"),
            400,
            "bad_link",
        )
        assert "script" not in body["message"]


def test_a_link_nested_past_the_recursion_limit_is_a_bad_link(client):
    text = b"[" * 100_000 + b"]" * 100_000
    link = "1." + base64.urlsafe_b64encode(zlib.compress(text, 9)).decode().rstrip("=")
    response = oembed(client, url=f"{HOST}/labs/quorum/#link={link}")
    body = assert_error(response, 400, "bad_link")
    assert "damaged" in body["message"]


def test_markup_anywhere_in_the_url_never_reaches_the_snippet(client):
    for url in [
        f'{HOST}/labs/quorum/?seed="><script>alert(1)</script>',
        f"{HOST}/labs/quorum/?theme=<b>&mode='onload='",
        f'{HOST}/embed/quorum/?x="><svg/onload=alert(1)>#a=<b>',
    ]:
        response = oembed(client, url=url)
        assert response.status_code == 200
        snippet = response.json()["html"]
        assert (
            "<script" not in snippet and "<svg" not in snippet and "<b>" not in snippet
        )
        assert "onload" not in snippet
        assert snippet.count("<") == 2  # <iframe ...></iframe>


def test_oembed_takes_only_safe_methods(client):
    assert client.post("/oembed", {"url": f"{HOST}/labs/quorum/"}).status_code == 405


# -- the example page's links ----------------------------------------------------------


def test_the_example_moments_are_what_they_say():
    quorum = history_of("quorum", EXAMPLE_HISTORIES["quorum"]).lab.snapshot()
    reads = [h for h in quorum["history"] if h["kind"] == "read"]
    assert reads and reads[-1]["stale"] is True
    cap = history_of("partition-cap", EXAMPLE_HISTORIES["partition-cap"]).lab.snapshot()
    assert cap["rule"] == "lww" and cap["converged"]
    assert all(link["up"] for link in cap["network"]["links"])
    booked = {
        b["passenger"] for c in cap["copies"] for b in c["versions"][0]["bookings"]
    }
    assert booked == {"P0000002"}  # Frankfurt's booking lost to the last writer
    ring = history_of("hash-placement", EXAMPLE_HISTORIES["hash-placement"])
    assert len(ring.lab.snapshot()["shards"]) == 5
    ranges = history_of("range-splits", EXAMPLE_HISTORIES["range-splits"]).lab
    heat = ranges.snapshot()["heat"]["columns"][-8:]  # the last two seconds
    for policy in ("size", "load"):
        assert len({s for c in heat for s, n in c[policy].items() if n}) == 1
    assert all(n > 0 for n in heat[-1]["hash"].values())


def test_the_example_links_are_short_and_open():
    for slug, link in example_links().items():
        assert len(example_src(slug, link)) < SHORT_LINK_CHARS
        assert read_link(link)[0] == slug


def test_the_example_page_embeds_the_four_moments():
    links = example_links()
    text = EXAMPLE_PAGE.read_text()
    if os.environ.get("EMBED_EXAMPLE_REWRITE") == "1":
        for slug, link in links.items():
            text = re.sub(
                rf'src="{re.escape(EXAMPLE_ORIGIN)}/embed/{slug}/[^"]*"',
                f'src="{html.escape(example_src(slug, link))}"',
                text,
            )
        EXAMPLE_PAGE.write_text(text)
    srcs = [html.unescape(s) for s in re.findall(r'<iframe[^>]* src="([^"]+)"', text)]
    assert srcs == [example_src(slug, links[slug]) for slug in SLUGS]


def test_the_example_links_open_in_a_socket():
    """Each example link is a valid link of its lab (replay_link replays it)."""
    from playground.links import replay_link

    for slug, link in example_links().items():
        entries, _ = replay_link(*read_link(link))
        assert [e.name for e in entries] == [s[0] for s in EXAMPLE_HISTORIES[slug]]
    json.dumps(example_links())
