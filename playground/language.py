"""Which language a request or a websocket speaks, and remembering a learner's choice.

In order: `?lang=` in the address (a language switch, a link or an embed that names
one), the `playground_language` cookie (the choice remembered), the browser's
Accept-Language, English. A language counts only if this playground has its catalogue
on disk: with it missing (a broken deploy), or with `?lang=xx` or a garbled header, the
page is in English and nothing fails.

The same rules serve the pages (`LanguageMiddleware`) and the websockets (`of_scope`):
each socket speaks its own member's language, so one class can hold a host in English
and students in Chinese and Thai: the simulation is shared, the words are their own.
"""

from functools import lru_cache
from pathlib import Path
from urllib.parse import parse_qs

from django.conf import settings
from django.http.cookie import parse_cookie
from django.utils import translation
from django.utils.cache import patch_vary_headers
from django.utils.deprecation import MiddlewareMixin
from django.utils.translation.trans_real import parse_accept_lang_header

DEFAULT = "en"
MOST_CHARS = 40  # a language tag longer than this is not one we speak
# pages that do not change the remembered choice: an embed in someone's docs, oEmbed
NOT_REMEMBERED = ("/embed/", "/oembed", "/jsi18n/", "/static/")


@lru_cache(maxsize=1)
def available() -> tuple[str, ...]:
    """The codes of LANGUAGES this playground can show: English and each language whose
    compiled catalogue is on disk (checked once; `available.cache_clear()` again)."""
    codes = [DEFAULT]
    for code, _name in settings.LANGUAGES:
        if code == DEFAULT:
            continue
        folder = translation.to_locale(code)
        if any(
            (path / folder / "LC_MESSAGES" / "django.mo").is_file()
            for path in map(Path, settings.LOCALE_PATHS)
        ):
            codes.append(code)
    return tuple(codes)


def supported(text: str | None) -> str | None:
    """The language code `text` names (any case; `zh`, `zh-CN` and `zh-Hans` mean the
    Chinese we have), or None when it names nothing this playground shows."""
    if not text or len(text) > MOST_CHARS:
        return None
    tag = text.strip().lower().replace("_", "-")
    if not tag or not all(c.isascii() and (c.isalnum() or c == "-") for c in tag):
        return None
    try:
        code = translation.get_supported_language_variant(tag)
    except LookupError:
        return None
    return code if code in available() else None


def choose(asked: str | None, cookie: str | None, accept: str | None) -> str:
    """The language to speak, from `?lang=`, the cookie and Accept-Language."""
    for text in (asked, cookie):
        code = supported(text)
        if code:
            return code
    if accept and len(accept) <= 1000:
        for tag, _quality in parse_accept_lang_header(accept):
            if tag == "*":
                break
            code = supported(tag)
            if code:
                return code
    return DEFAULT


class LanguageMiddleware(MiddlewareMixin):
    """Django's LocaleMiddleware with `?lang=` first, and a choice remembered."""

    def process_request(self, request) -> None:
        asked = request.GET.get("lang")
        code = choose(
            asked,
            request.COOKIES.get(settings.LANGUAGE_COOKIE_NAME),
            request.META.get("HTTP_ACCEPT_LANGUAGE"),
        )
        translation.activate(code)
        request.LANGUAGE_CODE = code
        request.language_chosen = code if supported(asked) else None

    def process_response(self, request, response):
        code = getattr(request, "LANGUAGE_CODE", DEFAULT)
        response.headers.setdefault("Content-Language", code)
        patch_vary_headers(response, ("Accept-Language", "Cookie"))
        chosen = getattr(request, "language_chosen", None)
        if (
            chosen
            and not request.path.startswith(NOT_REMEMBERED)
            and request.COOKIES.get(settings.LANGUAGE_COOKIE_NAME) != chosen
        ):
            response.set_cookie(
                settings.LANGUAGE_COOKIE_NAME,
                chosen,
                max_age=settings.LANGUAGE_COOKIE_AGE,
                samesite="Lax",
                secure=request.is_secure(),
            )
        return response


def of_scope(scope: dict) -> str:
    """The language of a websocket: its `?lang=`, the cookie, the Accept-Language."""
    query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
    asked = (query.get("lang") or [None])[-1]
    cookie = accept = None
    for name, value in scope.get("headers", ()):
        if name == b"cookie":
            cookies = parse_cookie(value.decode("latin-1"))
            cookie = cookies.get(settings.LANGUAGE_COOKIE_NAME)
        elif name == b"accept-language":
            accept = value.decode("latin-1")
    return choose(asked, cookie, accept)
