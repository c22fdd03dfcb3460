"""HTTP hardening (issue 29, item 7): CSRF on every form POST, HSTS over HTTPS (a
trusted proxy's header included), and a deadline for a request's headers."""

import re

import pytest
from django.test import Client, override_settings
from twisted.internet.task import Clock
from twisted.internet.testing import StringTransport
from twisted.web import http

from playground import httpdeadline, store
from playground.httpdeadline import DeadlineChannel
from playground.models import RoomRecord

PROXY = ("HTTP_X_FORWARDED_PROTO", "https")


@pytest.fixture
def lesson():
    record, _ = store.create_room("quorum", 3, kind=RoomRecord.CLASS)
    return record


# -- CSRF ------------------------------------------------------------------------------


def test_the_join_form_carries_a_csrf_token_and_its_cookie():
    client = Client(enforce_csrf_checks=True)
    response = client.get("/join/")
    html = response.content.decode()
    assert re.search(r'name="csrfmiddlewaretoken" value="[^"]{32,}"', html)
    assert "csrftoken" in response.cookies


def test_a_join_post_with_the_form_s_token_is_processed(lesson):
    client = Client(enforce_csrf_checks=True)
    html = client.get("/join/").content.decode()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', html)[1]
    response = client.post(
        "/join/",
        {"code": lesson.join_code, "name": "Ada", "csrfmiddlewaretoken": token},
    )
    assert response.status_code == 303
    assert response["Location"].startswith(f"/labs/quorum/?room={lesson.id}")


@pytest.mark.parametrize(
    ("lang", "heading"),
    [
        ("en", "This form was not sent from this site"),
        ("zh-hans", "这份表单不是从本站的页面提交的"),
        ("th", "ฟอร์มนี้ไม่ได้ส่งมาจากหน้าของเว็บไซต์นี้"),
    ],
)
def test_a_join_post_without_a_token_is_refused_with_the_site_s_403(
    lesson, lang, heading
):
    client = Client(enforce_csrf_checks=True)
    response = client.post(
        f"/join/?lang={lang}", {"code": lesson.join_code, "name": "Ada"}
    )
    assert response.status_code == 403
    html = response.content.decode()
    assert heading in html
    assert 'class="intro error-page"' in html  # the site's own error page
    assert 'href="/join/"' in html  # and the way back to the form
    assert "Ada" not in html and lesson.join_code not in html  # nothing processed


def test_a_post_with_a_wrong_token_is_refused_too(lesson):
    client = Client(enforce_csrf_checks=True)
    client.get("/join/")
    response = client.post(
        "/join/", {"code": "XXXXXX", "name": "Ada", "csrfmiddlewaretoken": "x" * 64}
    )
    assert response.status_code == 403


# -- HSTS ------------------------------------------------------------------------------


def test_hsts_over_https(client, settings):
    assert settings.SECURE_HSTS_SECONDS >= 180 * 24 * 3600
    response = client.get("/", secure=True)
    assert response["Strict-Transport-Security"] == (
        f"max-age={settings.SECURE_HSTS_SECONDS}"
    )


def test_no_hsts_over_plain_http(client):
    assert "Strict-Transport-Security" not in client.get("/").headers


def test_a_forwarded_proto_counts_only_from_a_trusted_proxy(client, settings):
    """Without the setting, any client could send the header: it is ignored."""
    assert settings.SECURE_PROXY_SSL_HEADER is None  # not trusted unless set
    untrusted = client.get("/", headers={"X-Forwarded-Proto": "https"})
    assert "Strict-Transport-Security" not in untrusted.headers
    with override_settings(SECURE_PROXY_SSL_HEADER=PROXY):
        trusted = client.get("/", headers={"X-Forwarded-Proto": "https"})
        plain = client.get("/", headers={"X-Forwarded-Proto": "http"})
    assert trusted["Strict-Transport-Security"].startswith("max-age=")
    assert "Strict-Transport-Security" not in plain.headers


# -- the header deadline -------------------------------------------------------------


class Served(http.Request):
    """A request that answers at once (the application, in these tests)."""

    def process(self):
        self.setResponseCode(200)
        self.write(b"ok")
        self.finish()


def channel(seconds: float = 5) -> tuple[DeadlineChannel, StringTransport, Clock]:
    clock = Clock()
    made = DeadlineChannel()
    made.clock = clock
    made.callLater = clock.callLater  # Twisted's own idle timeout, on the same clock
    made.header_seconds = seconds
    made.requestFactory = Served
    transport = StringTransport()
    made.makeConnection(transport)
    return made, transport, clock


def test_headers_sent_one_by_one_past_the_deadline_get_408_and_a_close():
    made, transport, clock = channel(5)
    made.dataReceived(b"GET / HTTP/1.1\r\nHost: x\r\n")
    for n in range(4):  # a header a second: Twisted's idle timeout never fires
        clock.advance(1)
        made.dataReceived(b"X-%d: y\r\n" % n)
    assert not transport.disconnecting
    clock.advance(1.01)
    assert transport.value().startswith(b"HTTP/1.1 408 Request Timeout\r\n")
    assert transport.disconnecting


def test_a_connection_that_sends_nothing_is_closed_at_the_deadline():
    made, transport, clock = channel(5)
    clock.advance(4.9)
    assert not transport.disconnecting
    clock.advance(0.2)
    assert transport.disconnecting


def test_a_request_in_time_is_served_and_its_connection_kept():
    made, transport, clock = channel(5)
    clock.advance(4)
    made.dataReceived(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
    assert b"200 OK" in transport.value()
    clock.advance(30)  # idle between requests: Twisted's idle timeout (60 s) governs
    assert not transport.disconnecting
    # the next request on the kept connection has its own deadline, from its first byte
    transport.clear()
    made.dataReceived(b"GET /again HTTP/1.1\r\n")
    clock.advance(5.1)
    assert transport.value().startswith(b"HTTP/1.1 408")
    assert transport.disconnecting


def test_the_deadline_ends_with_the_headers_not_the_body():
    made, transport, clock = channel(5)
    made.dataReceived(b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\n\r\nab")
    clock.advance(10)  # a slow body: not this deadline's business
    assert not transport.disconnecting
    made.dataReceived(b"cd")
    assert b"200 OK" in transport.value()


def test_daphne_makes_deadline_channels_once_installed():
    from daphne.http_protocol import HTTPFactory

    assert httpdeadline.install(7)
    protocol = HTTPFactory.protocol(None)
    assert isinstance(protocol._channel, DeadlineChannel)
    assert DeadlineChannel.header_seconds == 7
    from django.conf import settings

    httpdeadline.install(settings.PLAYGROUND_HEADER_SECONDS)
