"""Static files, as the server sends them (playground/staticserve.py in front of
Django): gzipped once by collectstatic, with the site's security headers; anything
else goes on to Django."""

from pathlib import Path

from asgiref.testing import ApplicationCommunicator
from django.conf import settings

from playground.staticserve import with_static_files

D3 = "/static/vendor/d3/d3.min.js"
D3_BYTES = 279_706


async def django_stand_in(scope, receive, send):
    """What Django would answer: a 418, so a test sees the request got through."""
    await send({"type": "http.response.start", "status": 418, "headers": []})
    await send({"type": "http.response.body", "body": b"django"})


async def get(path: str, **headers: str) -> tuple[int, dict[str, str], bytes]:
    """One GET through the static layer: status, headers (lower-case), body."""
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": [
            (name.replace("_", "-").encode(), value.encode())
            for name, value in headers.items()
        ],
        "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", 8000),
    }
    talk = ApplicationCommunicator(with_static_files(django_stand_in), scope)
    await talk.send_input({"type": "http.request", "body": b"", "more_body": False})
    start = await talk.receive_output(5)
    sent = {k.decode().lower(): v.decode() for k, v in start["headers"]}
    body = b""
    while True:
        part = await talk.receive_output(5)
        body += part.get("body", b"")
        if not part.get("more_body"):
            break
    await talk.wait(5)
    return start["status"], sent, body


async def test_modules_go_as_the_gzip_collectstatic_wrote():
    status, headers, body = await get(D3, accept_encoding="gzip, deflate, br")
    assert status == 200
    assert headers["content-encoding"] == "gzip"
    assert "Accept-Encoding" in headers["vary"]
    # the very bytes written beside the original, not compressed again per request
    collected = Path(settings.STATIC_ROOT) / "vendor/d3/d3.min.js.gz"
    assert body == collected.read_bytes()
    assert len(body) < 120_000 < D3_BYTES
    assert headers["content-type"].startswith("text/javascript")


async def test_a_client_that_does_not_accept_gzip_gets_plain_bytes():
    status, headers, body = await get(D3)
    assert status == 200
    assert "content-encoding" not in headers
    assert len(body) == D3_BYTES


async def test_static_files_carry_the_sites_security_headers():
    for path in ["/static/css/app.css", "/static/img/favicon.svg", D3]:
        status, headers, _ = await get(path)
        assert status == 200, path
        assert headers["x-content-type-options"] == "nosniff", path
        assert headers["referrer-policy"] == "same-origin", path
        policy = dict(
            (part.split()[0], part.split()[1:])
            for part in headers["content-security-policy"].split(";")
        )
        assert policy["default-src"] == ["'self'"], path
        assert policy["frame-ancestors"] == ["'none'"], path


async def test_anything_else_goes_on_to_django():
    for path in [
        "/",
        "/labs/quorum/",
        "/static/no-such-file.js",
        "/static/../manage.py",
    ]:
        status, _, body = await get(path)
        assert (status, body) == (418, b"django"), path


async def test_with_debug_the_sources_are_served_as_they_are_now(settings, tmp_path):
    """An edit shows at once: the source folder is read on each request."""
    settings.DEBUG = True
    settings.STATICFILES_DIRS = [tmp_path]
    (tmp_path / "fresh.js").write_text("export const a = 1;\n")
    status, _, body = await get("/static/fresh.js")
    assert (status, body) == (200, b"export const a = 1;\n")
    (tmp_path / "fresh.js").write_text("export const a = 2;\n")
    assert (await get("/static/fresh.js"))[2] == b"export const a = 2;\n"
