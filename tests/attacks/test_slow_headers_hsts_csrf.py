"""Slow requests, HTTPS behind a proxy and forged form posts (issue 29, item 7),
against a live daphne.

Before: 4,000 half-sent HTTP requests were held for 60 s and none timed out (the
open-file limit was the only bound); no Strict-Transport-Security, even with
`X-Forwarded-Proto: https` from a proxy; and `POST /join/` without a CSRF token was
processed (404 "no class") instead of refused.
"""

import asyncio
import re
import time
from urllib.error import HTTPError
from urllib.parse import urlencode
from urllib.request import Request, urlopen

HALF_SENT = 150  # connections that send a header now and then, never the end
SILENT = 50  # connections that send nothing at all
BOUND_S = 2  # the deadline the server is given here
SLACK_S = 6  # a busy, shared machine may be this late to close them


def get(server, path: str = "/", headers: dict | None = None, form=None):
    """(status, headers, body) of one request."""
    request = Request(server.url + path, headers=headers or {})
    if form is not None:
        request.data = urlencode(form).encode()
    try:
        with urlopen(request, timeout=30) as response:
            return response.status, response.headers, response.read().decode()
    except HTTPError as error:
        return error.code, error.headers, error.read().decode()


async def half_sent(server, trickle: bool) -> tuple[float | None, bytes]:
    """A request whose headers never end (one more every half second, if `trickle`);
    how long until the server closed it (None: still open), and what it said."""
    reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
    started = time.monotonic()
    if trickle:
        writer.write(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")
    said = b""
    try:
        async with asyncio.timeout(BOUND_S + SLACK_S):
            n = 0
            while True:
                try:
                    data = await asyncio.wait_for(reader.read(1024), 0.5)
                except TimeoutError:
                    if trickle:
                        writer.write(b"X-Slow-%d: still coming\r\n" % n)
                        n += 1
                    continue
                if not data:
                    return time.monotonic() - started, said
                said += data
    except (TimeoutError, ConnectionError):
        pass
    finally:
        writer.close()
    return None, said


async def test_half_sent_requests_are_cut_off_at_the_header_deadline(serve):
    server = serve(PLAYGROUND_HEADER_SECONDS=str(BOUND_S))
    slow = [half_sent(server, trickle=True) for _ in range(HALF_SENT)]
    silent = [half_sent(server, trickle=False) for _ in range(SILENT)]
    attack = asyncio.gather(*slow, *silent)
    await asyncio.sleep(1)
    # meanwhile a real visitor is served at once
    started = time.monotonic()
    status, _, _ = await asyncio.to_thread(get, server)
    assert status == 200 and time.monotonic() - started < 5
    ends = await attack
    still_open = [end for end, _ in ends if end is None]
    assert not still_open, f"{len(still_open)} of {len(ends)} still open"
    assert all(BOUND_S - 0.5 <= end < BOUND_S + SLACK_S for end, _ in ends)
    assert all(said.startswith(b"HTTP/1.1 408") for _, said in ends[:HALF_SENT])


async def test_hsts_when_a_trusted_proxy_says_the_request_was_https(serve, server):
    proxied = serve(PLAYGROUND_TRUSTED_PROXY="true")
    status, headers, _ = get(proxied, headers={"X-Forwarded-Proto": "https"})
    assert status == 200
    assert headers["Strict-Transport-Security"] == "max-age=31536000"
    # over plain HTTP, no HSTS (a browser ignores it there, and it would say nothing)
    _, headers, _ = get(proxied)
    assert "Strict-Transport-Security" not in headers
    # without the setting the header is anyone's to send: ignored
    _, headers, _ = get(server, headers={"X-Forwarded-Proto": "https"})
    assert "Strict-Transport-Security" not in headers


def test_a_join_post_without_a_csrf_token_is_refused(server):
    status, _, body = get(server, "/join/", form={"code": "ZZZZZZ", "name": "Ada"})
    assert status == 403, body[:300]
    assert "This form was not sent from this site" in body
    assert "No class has the code" not in body  # not processed
    # the same post from the join page itself (its token and cookie) is processed
    jar_cookie, token = csrf_from_join_page(server)
    status, _, body = get(
        server,
        "/join/",
        headers={"Cookie": jar_cookie},
        form={"code": "ZZZZZZ", "name": "Ada", "csrfmiddlewaretoken": token},
    )
    assert status == 404 and "No class has the code" in body


def csrf_from_join_page(server) -> tuple[str, str]:
    """The Cookie header and the form's token, as a browser on the join page has."""
    with urlopen(server.url + "/join/", timeout=30) as response:
        cookies = response.headers.get_all("Set-Cookie") or []
        html = response.read().decode()
    cookie = next(c.split(";")[0] for c in cookies if c.startswith("csrftoken="))
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', html)[1]
    return cookie, token
