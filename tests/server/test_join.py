"""Joining a class over HTTP: the form, the join link, the QR code, wrong codes."""

import time
from datetime import timedelta

import pytest
from django.core.cache import cache
from django.test import override_settings
from django.utils import timezone

from playground import store
from playground.models import RoomRecord
from playground.protocol import member_id_of


@pytest.fixture(autouse=True)
def fresh_cache():
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def lesson():
    record, _ = store.create_room("hash-placement", 7, kind=RoomRecord.CLASS)
    return record


def test_the_join_page_has_a_form_for_a_code_and_a_name(client):
    response = client.get("/join/")
    assert response.status_code == 200
    html = response.content.decode()
    assert 'name="code"' in html and 'name="name"' in html
    assert 'for="join-code"' in html and 'for="join-name"' in html


def test_every_page_links_to_the_join_page(client):
    assert 'href="/join/"' in client.get("/").content.decode()


def test_a_good_code_and_name_lead_to_the_class_room(client, lesson):
    code = lesson.join_code.lower()[:3] + " " + lesson.join_code.lower()[3:]
    response = client.post("/join/", {"code": code, "name": "Ada"})
    assert response.status_code == 303
    assert response["Location"] == f"/labs/hash-placement/?room={lesson.id}&name=Ada"


def test_the_join_link_leads_to_the_class_room_without_a_name(client, lesson):
    response = client.get(f"/join/{lesson.join_code}/")
    assert response.status_code == 303
    assert response["Location"] == f"/labs/hash-placement/?room={lesson.id}"
    # and the lab page serves that room's address
    assert client.get(response["Location"]).status_code == 200


def test_a_wrong_code_shows_the_form_again_with_a_message(client, lesson):
    response = client.post("/join/", {"code": "ZZZZZZ", "name": "Ada"})
    assert response.status_code == 404
    html = response.content.decode()
    assert "No class has the code ZZZZZZ" in html
    assert 'role="alert"' in html and 'aria-invalid="true"' in html
    assert 'value="Ada"' in html  # the name is kept
    assert client.get("/join/ZZZZZZ/").status_code == 404


def test_an_empty_code_is_asked_for(client):
    response = client.post("/join/", {"code": "", "name": "Ada"})
    assert response.status_code == 404
    assert "Type the 6-letter code" in response.content.decode()


def test_an_expired_code_no_longer_opens_the_class(client, lesson):
    RoomRecord.objects.filter(pk=lesson.id).update(
        closes_at=timezone.now() - timedelta(minutes=1)
    )
    response = client.get(f"/join/{lesson.join_code}/")
    assert response.status_code == 404
    assert "has ended" in response.content.decode()
    assert client.get(f"/join/{lesson.join_code}/qr.svg").status_code == 404


@override_settings(
    PLAYGROUND_JOIN_WRONG_PER_ADDRESS="3/minute", PLAYGROUND_JOIN_SLOW_SECONDS=0.3
)
def test_after_many_wrong_codes_a_right_code_still_gets_in(client, lesson):
    """Before: after 30 wrong codes from one address, the right code, the join link
    and the host's QR code got 429 for everyone there (a school behind one NAT)."""
    for _ in range(5):
        wrong = client.post("/join/", {"code": "ZZZZZZ", "name": "Ada"})
        assert wrong.status_code == 404
    started = time.monotonic()
    assert client.get(f"/join/{lesson.join_code}/qr.svg").status_code == 200
    assert time.monotonic() - started >= 0.3  # the host's QR waited its turn...
    started = time.monotonic()
    right = client.post("/join/", {"code": lesson.join_code, "name": "Ada"})
    assert right.status_code == 303
    assert client.get(f"/join/{lesson.join_code}/").status_code == 303
    # ...and once this address got into that class, its code waits for nothing
    assert time.monotonic() - started < 0.3


@override_settings(
    PLAYGROUND_JOIN_WRONG_PER_ADDRESS="3/minute", PLAYGROUND_JOIN_SLOW_SECONDS=0.3
)
def test_past_the_limit_each_guess_waits_its_turn(client, lesson):
    for _ in range(3):
        client.post("/join/", {"code": "ZZZZZZ", "name": "Ada"})
    started = time.monotonic()
    for code in ("YYYYYY", "XXXXXX", "WWWWWW"):
        assert client.post("/join/", {"code": code, "name": "Ada"}).status_code == 404
        assert client.get(f"/join/{code[::-1][:5]}Q/qr.svg").status_code == 404
    assert time.monotonic() - started >= 6 * 0.3
    # a code the line just found wrong is answered at once: repeating it costs no
    # lookup, so it cannot crowd the line either
    started = time.monotonic()
    assert client.post("/join/", {"code": "YYYYYY", "name": "Ada"}).status_code == 404
    assert time.monotonic() - started < 0.3
    # another address is not held back by this one's guesses
    started = time.monotonic()
    other = client.post(
        "/join/", {"code": "VVVVVV", "name": "Ada"}, REMOTE_ADDR="10.0.0.9"
    )
    assert other.status_code == 404 and time.monotonic() - started < 0.3


@override_settings(
    PLAYGROUND_JOIN_WRONG_TOTAL="2/minute", PLAYGROUND_JOIN_SLOW_SECONDS=0.3
)
def test_guesses_spread_over_many_addresses_are_slowed_too(client, lesson):
    for n in range(2):
        client.post(
            "/join/", {"code": "ZZZZZZ", "name": "A"}, REMOTE_ADDR=f"10.0.1.{n}"
        )
    started = time.monotonic()
    client.post("/join/", {"code": "ZZZZZZ", "name": "A"}, REMOTE_ADDR="10.0.1.9")
    assert time.monotonic() - started >= 0.3


def test_the_qr_code_is_an_svg_of_the_absolute_join_link(client, lesson):
    response = client.get(f"/join/{lesson.join_code}/qr.svg")
    assert response.status_code == 200
    assert response["Content-Type"] == "image/svg+xml"
    assert "max-age=3600" in response["Cache-Control"]
    svg = response.content.decode()
    assert svg.startswith("<svg") and "viewBox" in svg
    assert f"http://testserver/join/{lesson.join_code}/" in svg


def test_a_name_with_markup_stays_text(client, lesson):
    name = '<img src=x onerror="alert(1)">'
    wrong = client.post("/join/", {"code": "ZZZZZZ", "name": name})
    html = wrong.content.decode()
    assert "<img src=x" not in html
    assert "&lt;img src=x onerror=&quot;alert(1)&quot;&gt;" in html
    good = client.post("/join/", {"code": lesson.join_code, "name": name})
    assert good.status_code == 303
    assert "<" not in good["Location"] and "%3Cimg" in good["Location"]


def test_a_name_that_is_too_long_or_empty_is_refused_with_a_reason(client, lesson):
    long = client.post("/join/", {"code": lesson.join_code, "name": "x" * 10_000})
    assert long.status_code == 400
    assert "1 to 40" in long.content.decode()
    empty = client.post("/join/", {"code": lesson.join_code, "name": "  "})
    assert empty.status_code == 400
    assert "Type a name" in empty.content.decode()


def test_control_characters_are_a_wrong_code_or_name_and_never_shown_back(client):
    for code, name, status in [
        ("ABC\x00DE", "Ada", 404),
        ("\x00", "", 400),
        ("ZZZZZZ", "A\x00da", 400),
        ("9" * 5_000, "9" * 5_000, 400),
    ]:
        response = client.post("/join/", {"code": code, "name": name})
        assert response.status_code == status, (code[:10], name[:10])
        assert "\x00" not in response.content.decode()
    for path in ["/join/?code=%00", "/join/%00/", "/join/%C2%B2/"]:
        response = client.get(path)
        assert response.status_code in (200, 404), path
        assert "\x00" not in response.content.decode()
    assert client.get("/join/%00/qr.svg").status_code == 404


# -- names are unique in a class, and the host's is kept for the host (issue 29) ------


def test_a_name_taken_in_the_class_is_refused_with_a_reason(client, lesson):
    store.join_class(lesson.id, "m-00000000000a", "Ana", "S", "10.0.0.1", False, False)
    for name in ("Ana", "ana", " ANA ", "Ａｎａ"):  # case, spaces, full-width letters
        taken = client.post("/join/", {"code": lesson.join_code, "name": name})
        assert taken.status_code == 409, name
        html = taken.content.decode()
        assert "already has the name" in html and 'role="alert"' in html
        assert 'aria-invalid="true"' in html
    assert (
        client.post("/join/", {"code": lesson.join_code, "name": "Ana B"}).status_code
        == 303
    )


def test_the_hosts_name_and_the_words_for_host_are_the_hosts(client, lesson):
    store.claim_host(lesson.id, "m-00000000000h", "Ms Okafor")
    for name in (
        "Ms Okafor",
        "Teacher",
        "the host",
        "T.E.A.C.H.E.R",
        "王老师",
        "ครูแดง",
    ):
        reserved = client.post("/join/", {"code": lesson.join_code, "name": name})
        assert reserved.status_code == 409, name
        assert "Only the host may use the name" in reserved.content.decode()
    # a name that only contains the letters is fine
    ok = client.post("/join/", {"code": lesson.join_code, "name": "Hostetler"})
    assert ok.status_code == 303


def test_a_student_coming_back_from_the_same_tab_keeps_their_name(client, lesson):
    token = "tab-token-0123456789abcdef"
    member = member_id_of(token)
    store.join_class(lesson.id, member, "Ana", "S", "10.0.0.1", False, False)
    back = client.post(
        "/join/", {"code": lesson.join_code, "name": "Ana", "client": token}
    )
    assert back.status_code == 303
    other = client.post(
        "/join/", {"code": lesson.join_code, "name": "Ana", "client": "x" * 20}
    )
    assert other.status_code == 409
    assert "data-client-token" in client.get("/join/").content.decode()
