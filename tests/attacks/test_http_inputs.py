"""Hostile HTTP inputs against a live daphne configured as in production.

Every query parameter and form field a page reads gets digits that are not ASCII
('²', which int() refuses, and '٧', which it reads as 7), a 5,000-digit number (past
int()'s 4,300-digit limit) and U+0000; /oembed also gets a link nested 100,000 deep.
Each is answered with a clear 4xx or the normal page, never a 500, and no answer shows
a traceback, a file path, a setting or the secret key. The server's log must hold no
"Internal Server Error" at the end.
"""

import base64
import http.cookiejar
import zlib
from urllib.error import HTTPError
from urllib.parse import quote, urlencode
from urllib.request import HTTPCookieProcessor, Request, build_opener, urlopen

import pytest

from playground.liveserver import ROOT

SLUGS = ["hash-placement", "quorum", "partition-cap"]
BAD = {
    "superscript": "²",
    "arabic-indic": "٧",
    "5000-digits": "9" * 5_000,
    "nul": "\x00",
    "nul-inside": "1\x002",
}
EMBED_PARAMS = ["mode", "controls", "narrative", "autoplay", "theme", "seed"]
OEMBED_SIZES = ["maxwidth", "maxheight"]
INTERNALS = ["Traceback", 'File "', "site-packages", str(ROOT), "REDIS_URL"]
INTERNALS += ["SECRET_KEY", "DATABASES", "urlpatterns", "Django tried"]


def fetch(server, path: str, form: dict | None = None) -> tuple[int, str, dict]:
    """(status, body, headers) of a GET, or of a POST of `form` with the CSRF token
    the join page gives (as the page's own form sends it)."""
    data = None
    request = Request(server.url + path)
    if form is not None:
        token = csrf_token(server)
        form = {**form, "csrfmiddlewaretoken": token}
        request.add_header("Cookie", f"csrftoken={token}")
        data = urlencode(form).encode()
    request.data = data
    try:
        with urlopen(request, timeout=30) as response:
            return response.status, response.read().decode(), dict(response.headers)
    except HTTPError as error:
        return error.code, error.read().decode(), dict(error.headers)


def csrf_token(server) -> str:
    """The CSRF cookie the join page sets ("" where the server sets none)."""
    jar = http.cookiejar.CookieJar()
    with build_opener(HTTPCookieProcessor(jar)).open(server.url + "/join/", timeout=30):
        pass
    return next((c.value for c in jar if c.name == "csrftoken"), "")


def assert_answered(server, status: int, body: str, allowed: set[int]) -> None:
    """A status we expect (never 500), and nothing internal in the body."""
    assert status in allowed, (status, body[:300])
    secret = (server.log_path.parent / "secret_key").read_text().strip()
    for leak in [*INTERNALS, secret]:
        assert leak not in body, leak


def packed(text: str) -> str:
    """A version-1 link of any JSON text, encoded as playground.links.make_link does."""
    data = base64.urlsafe_b64encode(zlib.compress(text.encode(), 9))
    return "1." + data.decode().rstrip("=")


@pytest.mark.parametrize("value", BAD.values(), ids=BAD.keys())
@pytest.mark.parametrize("slug", SLUGS)
def test_a_bad_seed_on_a_lab_page_gives_the_page_with_seed_0(server, slug, value):
    status, body, _ = fetch(server, f"/labs/{slug}/?seed={quote(value)}")
    assert_answered(server, status, body, {200})
    assert 'data-seed="0"' in body


@pytest.mark.parametrize("value", BAD.values(), ids=BAD.keys())
@pytest.mark.parametrize("name", EMBED_PARAMS)
def test_a_bad_embed_option_gives_the_embed_with_the_default(server, name, value):
    status, body, _ = fetch(server, f"/embed/quorum/?{name}={quote(value)}")
    assert_answered(server, status, body, {200})
    assert 'data-seed="0"' in body and 'data-mode="interactive"' in body


@pytest.mark.parametrize("value", BAD.values(), ids=BAD.keys())
def test_bad_values_in_oembed_parameters_are_clear_errors(server, value):
    lab = f"{server.url}/labs/quorum/"
    huge = value.isascii() and value.isdigit()  # a huge size is clamped, not refused
    cases = [
        ({"url": f"{lab}?seed={value}"}, {200}),
        ({"url": f"{lab}?seed=1", "seed": value}, {200}),
        ({"url": value}, {400}),
        ({"url": f"http://127.0.0.1:{value}/labs/quorum/"}, {400, 404}),
        ({"url": lab, "format": value}, {501}),  # oEmbed's "not implemented"
        *(({"url": lab, size: value}, {200 if huge else 400}) for size in OEMBED_SIZES),
    ]
    for params, allowed in cases:
        status, body, headers = fetch(server, f"/oembed?{urlencode(params)}")
        assert_answered(server, status, body, allowed)
        assert headers["Content-Type"] == "application/json"


@pytest.mark.parametrize(
    "text",
    [
        "[" * 100_000 + "]" * 100_000,
        '{"l":"quorum","s":0,"a":[["pause",' + '{"x":' * 40 + "1" + "}" * 40 + "]],"
        '"c":0}',
        '{"l":"quorum","s":' + "9" * 5_000 + ',"a":[],"c":0}',
        '{"l":"quorum\\u0000","s":0,"a":[],"c":0}',
    ],
    ids=["nested-100000", "nested-args", "5000-digits", "nul-in-slug"],
)
def test_a_forged_link_in_oembed_is_a_bad_link(server, text):
    url = f"{server.url}/labs/quorum/#link={packed(text)}"
    status, body, _ = fetch(server, f"/oembed?{urlencode({'url': url})}")
    assert_answered(server, status, body, {400})
    assert '"error": "bad_link"' in body


@pytest.mark.parametrize("value", BAD.values(), ids=BAD.keys())
def test_bad_values_in_every_join_field_are_refused_or_ignored(server, value):
    quoted = quote(value, safe="")
    cases = [
        ("/join/", {"code": value, "name": "Ada"}, {404}),
        ("/join/", {"code": "ABCDEF", "name": value}, {400, 404}),
        ("/join/", {"code": value, "name": value}, {400, 404}),
    ]
    for path, form, allowed in cases:
        status, body, _ = fetch(server, path, form)
        assert_answered(server, status, body, allowed)
        assert "\x00" not in body
    for path, allowed in [
        (f"/join/?code={quoted}", {200}),
        (f"/join/{quoted}/", {404}),
        (f"/join/{quoted}/qr.svg", {404}),
        (f"/jsi18n/?language={quoted}&domain={quoted}", {200}),
        (f"/?seed={quoted}", {200}),
    ]:
        status, body, _ = fetch(server, path)
        assert_answered(server, status, body, allowed)
        assert "\x00" not in body


@pytest.mark.parametrize("path", ["/no-such-page/", "/labs/no-such-lab/"])
def test_a_missing_page_is_the_styled_404_and_lists_no_routes(server, path):
    status, body, _ = fetch(server, path)
    assert_answered(server, status, body, {404})
    assert "There is no page at this address" in body
    assert 'class="site-header"' in body
    for route in ("jsi18n", "oembed", "qr.svg", "<slug", "<str:code>"):
        assert route not in body


def test_nothing_above_failed_inside_the_server(server):
    """Run last in the module: the log has no 500 from any request above."""
    status, _, _ = fetch(server, "/")
    assert status == 200
    log = server.log_path.read_text(errors="replace")
    assert "Internal Server Error" not in log and "Traceback" not in log
