"""Which language a page and a websocket speak (playground/language.py), and every bad
input about it: `?lang=xx`, a garbled Accept-Language, a catalogue missing on disk."""

import json
import re

import pytest
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.utils import translation
from django.utils.translation import gettext
from django.utils.translation.trans_real import DjangoTranslation

from playground import language
from playground.asgi import application

ORIGIN = (b"origin", b"http://127.0.0.1")
COOKIE = settings.LANGUAGE_COOKIE_NAME


def words(code: str, english: str) -> str:
    """`english` as the catalogue of `code` has it (checked to be a translation)."""
    with translation.override(code):
        text = gettext(english)
    assert text != english, f"{english!r} has no {code} translation"
    return text


def html_lang(response) -> str:
    return re.search(r'<html lang="([^"]+)"', response.content.decode())[1]


@pytest.mark.parametrize(
    ("header", "code"),
    [
        ("zh-Hans", "zh-hans"),
        ("zh-CN,zh;q=0.9,en;q=0.8", "zh-hans"),
        ("zh", "zh-hans"),
        ("th-TH,th;q=0.9", "th"),
        ("fr-FR,th;q=0.5", "th"),
        ("en-GB", "en"),
    ],
)
def test_the_browsers_language_is_the_default(client, header, code):
    response = client.get("/", HTTP_ACCEPT_LANGUAGE=header)
    assert html_lang(response) == code
    assert response.headers["Content-Language"] == code
    assert "Accept-Language" in response.headers["Vary"]
    if code != "en":
        assert words(code, "Join a class") in response.content.decode()
    assert COOKIE not in response.cookies  # only a choice is remembered


def test_lang_in_the_address_wins_and_is_remembered(client):
    response = client.get("/?lang=th", HTTP_ACCEPT_LANGUAGE="zh-Hans")
    assert html_lang(response) == "th"
    cookie = response.cookies[COOKIE]
    assert cookie.value == "th"
    assert cookie["samesite"] == "Lax"
    assert int(cookie["max-age"]) > 30 * 24 * 3600
    # the next page, with no ?lang=, keeps the choice over the browser's language
    again = client.get("/labs/quorum/", HTTP_ACCEPT_LANGUAGE="zh-Hans")
    assert html_lang(again) == "th"
    assert words("th", "Start a class session") in again.content.decode()


@pytest.mark.parametrize(
    "asked", ["xx", "", "english", "th;drop", "zh-Hans" * 20, "%00", "../th", "ไทย"]
)
def test_an_unknown_lang_falls_back_without_an_error(client, asked):
    response = client.get("/", {"lang": asked})
    assert response.status_code == 200
    assert html_lang(response) == "en"
    assert COOKIE not in response.cookies


@pytest.mark.parametrize(
    "header",
    [
        "!!!,;;;q=abc",
        "zh-Hans;q=nope",
        "*",
        ";q=1",
        "x" * 5000,
        "th-" + "a" * 200,
        "\u00e9\u00e8",
    ],
)
def test_a_garbled_accept_language_is_english_without_an_error(client, header):
    response = client.get("/", HTTP_ACCEPT_LANGUAGE=header)
    assert response.status_code == 200
    assert html_lang(response) == "en"


def test_a_bad_cookie_is_ignored(client):
    client.cookies[COOKIE] = "klingon"
    assert html_lang(client.get("/", HTTP_ACCEPT_LANGUAGE="th")) == "th"


def test_a_catalogue_missing_on_disk_means_english(client, tmp_path):
    language.available.cache_clear()
    try:
        with translation.override("en"):
            settings.LOCALE_PATHS = [tmp_path]  # nothing compiled there
            response = client.get("/?lang=zh-hans", HTTP_ACCEPT_LANGUAGE="th")
    finally:
        settings.LOCALE_PATHS = [settings.BASE_DIR / "locale"]
        language.available.cache_clear()
    assert response.status_code == 200
    assert html_lang(response) == "en"
    assert "Join a class" in response.content.decode()
    assert language.available() == ("en", "zh-hans", "th")


def test_every_page_has_the_switch_and_it_keeps_the_address(client):
    html = client.get("/labs/quorum/?seed=5").content.decode()
    switch = re.search(r'<nav class="language-switch"[^>]*>(.*?)</nav>', html, re.S)[1]
    links = re.findall(r'<a href="([^"]+)" hreflang="([^"]+)"[^>]*>([^<]+)</a>', switch)
    assert [(href, code) for href, code, _ in links] == [
        ("/labs/quorum/?seed=5&amp;lang=en", "en"),
        ("/labs/quorum/?seed=5&amp;lang=zh-hans", "zh-hans"),
        ("/labs/quorum/?seed=5&amp;lang=th", "th"),
    ]
    assert [name for *_, name in links] == ["English", "简体中文", "ไทย"]
    assert 'aria-current="true">English' in switch
    for path in ("/", "/join/", "/labs/hash-placement/", "/labs/partition-cap/"):
        assert 'class="language-switch"' in client.get(path).content.decode(), path


def test_the_javascript_catalogue_follows_lang(client):
    th = client.get("/jsi18n/?lang=th").content.decode()
    copy_link = DjangoTranslation("th", domain="djangojs").gettext("Copy link")
    assert copy_link != "Copy link"
    assert json.dumps(copy_link) in th or copy_link in th
    english = client.get("/jsi18n/?lang=xx").content.decode()
    assert '"Copy link"' not in english  # no catalogue entries: English is the source
    assert COOKIE not in client.get("/jsi18n/?lang=th").cookies


def test_a_lab_page_asks_for_the_catalogue_in_its_language(client):
    html = client.get("/labs/quorum/", HTTP_ACCEPT_LANGUAGE="th").content.decode()
    assert 'src="/jsi18n/?lang=th"' in html


def test_an_embed_honours_lang_and_remembers_nothing(client):
    response = client.get("/embed/quorum/?lang=zh-hans")
    assert html_lang(response) == "zh-hans"
    assert COOKIE not in response.cookies
    html = response.content.decode()
    assert 'src="/jsi18n/?lang=zh-hans"' in html
    assert 'href="/labs/quorum/?lang=zh-hans"' in html  # "Open in the playground"


def test_oembed_carries_lang_into_the_snippet_and_the_title(client):
    url = "http://testserver/labs/quorum/?lang=th&seed=4"
    answer = client.get("/oembed", {"url": url}).json()
    src = re.search(r'src="([^"]+)"', answer["html"])[1]
    assert "lang=th" in src and "seed=4" in src
    with translation.override("th"):
        from playground.catalogue import find_lab

        title = str(find_lab("quorum")[1].title)
    assert answer["title"] == title
    assert title != str(find_lab("quorum")[1].title)  # in English here
    plain = client.get(
        "/oembed", {"url": "http://testserver/labs/quorum/?lang=xx"}
    ).json()
    assert "lang=" not in plain["html"]


async def hello_over(path: str, headers=()):
    communicator = WebsocketCommunicator(application, path, headers=[ORIGIN, *headers])
    connected, _ = await communicator.connect()
    assert connected
    while True:
        message = json.loads(await communicator.receive_from(timeout=5))
        if message["type"] == "hello":
            return communicator, message


async def next_error(communicator) -> dict:
    while True:
        message = json.loads(await communicator.receive_from(timeout=5))
        if message["type"] == "error":
            return message


def action_labels(hello) -> dict:
    return {a["name"]: a["label"] for a in hello["declaration"]["actions"]}


async def test_a_socket_speaks_its_own_language():
    en, hello_en = await hello_over("/ws/labs/hash-placement/?seed=1")
    th, hello_th = await hello_over("/ws/labs/hash-placement/?seed=1&lang=th")
    zh, hello_zh = await hello_over(
        "/ws/labs/hash-placement/?seed=1",
        [(b"accept-language", b"zh-CN,zh;q=0.9")],
    )
    english = action_labels(hello_en)["add_shard"]
    assert action_labels(hello_th)["add_shard"] == words("th", english)
    assert action_labels(hello_zh)["add_shard"] == words("zh-hans", english)
    # the same simulation: only the words differ
    assert hello_en["digest"] == hello_th["digest"] == hello_zh["digest"]
    for communicator in (en, th, zh):
        await communicator.send_json_to({"type": "nonsense"})
    errors = [await next_error(c) for c in (en, th, zh)]
    assert errors[0]["code"] == errors[1]["code"] == errors[2]["code"]
    assert errors[0]["message"].startswith("unknown message type")
    assert errors[1]["message"] != errors[0]["message"] != errors[2]["message"]
    for communicator in (en, th, zh):
        await communicator.disconnect()


async def test_the_cookie_chooses_a_sockets_language_and_lang_overrides_it():
    cookie = [(b"cookie", f"other=1; {COOKIE}=th".encode())]
    _, by_cookie = await hello_over("/ws/labs/quorum/", cookie)
    _, by_lang = await hello_over("/ws/labs/quorum/?lang=zh-hans", cookie)
    _, garbled = await hello_over("/ws/labs/quorum/?lang=xx", [(b"cookie", b"=;;=")])
    english = action_labels(garbled)
    assert action_labels(by_cookie)["write"] == words("th", english["write"])
    assert action_labels(by_lang)["write"] == words("zh-hans", english["write"])


async def next_of(communicator, kind: str) -> dict:
    while True:
        message = json.loads(await communicator.receive_from(timeout=5))
        if message["type"] == kind:
            return message


async def test_a_class_holds_members_of_three_languages():
    owner, _ = await hello_over("/ws/labs/quorum/?seed=2&lang=th")
    await owner.send_json_to({"type": "start_class"})
    started = await next_of(owner, "class_started")
    room = started["room"]
    host, seen_th = await hello_over(f"/ws/labs/quorum/?room={room}&lang=th")
    await host.send_json_to({"type": "claim_host", "secret": started["secret"]})
    assert (await next_of(host, "role"))["role"] == "host"
    student, seen_zh = await hello_over(f"/ws/labs/quorum/?room={room}&lang=zh-hans")
    other, seen_en = await hello_over(f"/ws/labs/quorum/?room={room}&lang=en")
    write = action_labels(seen_en)["write"]
    assert action_labels(seen_zh)["write"] == words("zh-hans", write)
    assert action_labels(seen_th)["write"] == words("th", write)
    # the host (Thai) removes the Chinese student, who is told so in Chinese
    await host.send_json_to({"type": "remove_member", "member": seen_zh["member"]})
    error = await next_error(student)
    assert error["code"] == "removed"
    assert error["message"] == words(
        "zh-hans", "the host removed you from this class session"
    )
    for communicator in (owner, host, other):
        await communicator.disconnect()


async def test_a_refused_value_names_the_field_as_the_learner_reads_it():
    en, _ = await hello_over("/ws/labs/hash-placement/")
    th, _ = await hello_over("/ws/labs/hash-placement/?lang=th")
    for communicator in (en, th):
        await communicator.send_json_to(
            {"type": "action", "action": "set_vnodes", "args": {"vnodes": 0}}
        )
    english, thai = [await next_error(c) for c in (en, th)]
    assert english["message"] == "Virtual nodes per shard must be at least 1"
    assert english["field"] == thai["field"] == "vnodes"
    assert words("th", "Virtual nodes per shard") in thai["message"]
    assert "vnodes" not in thai["message"]
    for communicator in (en, th):
        await communicator.disconnect()
