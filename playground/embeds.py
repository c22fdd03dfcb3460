"""Embeds: a lab with minimal chrome for an <iframe> on any site, and oEmbed.

`/embed/<slug>/` is the only page that may be framed by another site: it drops
X-Frame-Options and its Content-Security-Policy says `frame-ancestors *`; every other
page keeps `X-Frame-Options: DENY` and `frame-ancestors 'none'`. For a lab still coming
it is a small page that says so and links to the site. Its options are query
parameters (`EmbedOptions`); a value that is not one of the allowed ones falls back to
the default. The state comes from the fragment (`#link=1.…`), which never reaches the
server: the page sends it over the websocket, and the socket gets a private room of
its own.

`/oembed?url=…` answers docs tools (https://oembed.com): for a URL of this site's
`/labs/<slug>/` or `/embed/<slug>/` it returns the <iframe> snippet. The snippet's
address is rebuilt from checked parts (this host, a known lab, known options, a link
that reads as one), never copied from the request, and every part is escaped.
"""

import re
from dataclasses import dataclass
from urllib.parse import parse_qs, urlencode, urlsplit

from csp.decorators import csp_replace
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils import translation
from django.utils.html import format_html
from django.utils.translation import gettext as _
from django.views.decorators.clickjacking import xframe_options_exempt
from django.views.decorators.http import require_safe

from playground import language
from playground.catalogue import find_lab
from playground.links import MAX_LINK_CHARS, LinkError, read_link
from playground.modulepreload import EMBED_SCRIPT
from playground.views import lab_card, lab_context, seed_from
from simulators.labs import REGISTRY
from simulators.labs.manifest import EMBED_SHORT_HEIGHT, EMBED_WIDTH

PROVIDER_NAME = "Distributed Data Playground"

# The snippet's size: as wide as a docs column, tall enough for the drawing and the
# controls under it (the page scrolls inside the frame when it needs more). Each lab's
# manifest holds its own (simulators/labs/<lab>/manifest.py: the stage, "Just now" and
# the first quick action in the frame, tests/browser/test_lab_sweep.py); the Embed
# dialog reads the same numbers from the lab page (data-embed-*).
DEFAULT_WIDTH = EMBED_WIDTH
SHORT_HEIGHT = EMBED_SHORT_HEIGHT
MIN_WIDTH, MIN_HEIGHT = 240, 200  # smaller than this, no lab can be used
MAX_SIDE = 4000  # a larger maxwidth or maxheight asks for nothing smaller: clamped

LAB_PATH = re.compile(r"/(labs|embed)/(?P<slug>[-a-zA-Z0-9_]{1,50})/")
LINK_TEXT = re.compile(r"[0-9]{1,8}\.[A-Za-z0-9_-]+")
DIGITS = re.compile(r"[0-9]+")


def proposed_size(slug: str, options: "EmbedOptions") -> tuple[int, int]:
    """The frame's width and height to propose for a built lab: room for the controls
    only where there are any."""
    manifest = REGISTRY[slug]
    if options.controls and options.mode != "readonly":
        return manifest.embed_width, manifest.embed_height
    return manifest.embed_width, SHORT_HEIGHT


@dataclass(frozen=True)
class EmbedOptions:
    """What an embed shows and allows; every field has a safe default."""

    mode: str = "interactive"  # or "readonly": nothing can act, only open_link is sent
    controls: bool = True
    narrative: bool = False
    theme: str = "light"  # or "dark"
    seed: int = 0
    lang: str = ""  # a language code the playground speaks; "" follows the reader

    @classmethod
    def from_query(cls, query) -> "EmbedOptions":
        """Options from a QueryDict or a parse_qs dict; bad values give the default."""

        def first(name: str) -> str | None:
            value = query.get(name)
            if isinstance(value, list):
                value = value[-1] if value else None  # as QueryDict.get: the last
            return value

        def flag(name: str, default: bool) -> bool:
            value = first(name)
            if value in ("1", "0"):
                return value == "1"
            return default

        mode = first("mode")
        theme = first("theme")
        return cls(
            mode=mode if mode in ("interactive", "readonly") else "interactive",
            controls=flag("controls", True),
            narrative=flag("narrative", False),
            theme=theme if theme in ("light", "dark") else "light",
            seed=seed_from(first("seed")),
            lang=language.supported(first("lang")) or "",
        )

    def query(self) -> str:
        """The query string of these options (only what differs from the defaults)."""
        default = EmbedOptions()
        pairs = []
        for name in ("mode", "controls", "narrative", "theme", "seed", "lang"):
            value = getattr(self, name)
            if value == getattr(default, name):
                continue
            pairs.append(
                (name, ("1" if value else "0") if value in (True, False) else value)
            )
        return urlencode(pairs)


def _built_lab(slug: str):
    found = find_lab(slug)
    if found is None or not found[1].built:
        return None
    return found


@xframe_options_exempt
@csp_replace({"frame-ancestors": "*"})
@require_safe
def embed(request: HttpRequest, slug: str) -> HttpResponse:
    """A lab with minimal chrome, for an <iframe> on any site; for a lab still coming,
    a small page that says so and links to the site."""
    found = find_lab(slug)
    if found is None:
        raise Http404("No such lab")
    options = EmbedOptions.from_query(request.GET)
    if not found[1].built:
        context = {
            "lab": lab_card(*found),
            "options": options,
            "page_url": reverse("lab", args=[slug]),
        }
        return render(request, "embed/coming.html", context)
    page_options = {"seed": options.seed, "lang": options.lang}
    page_query = urlencode({k: v for k, v in page_options.items() if v})
    page_query = f"?{page_query}" if page_query else ""
    context = lab_context(*found, script=EMBED_SCRIPT)
    context.update(
        options=options,
        page_url=reverse("lab", args=[found[1].slug]) + page_query,
        oembed_href=_oembed_href(request),
    )
    return render(request, "embed/lab.html", context)


def _oembed_href(request: HttpRequest) -> str:
    """The discovery link's address for the page being served."""
    here = request.build_absolute_uri()
    return (
        request.build_absolute_uri(reverse("oembed")) + "?" + urlencode({"url": here})
    )


# -- oEmbed ----------------------------------------------------------------------------


class OEmbedError(Exception):
    """A request oEmbed cannot answer: a status, a code and a sentence."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message


@require_safe
def oembed(request: HttpRequest) -> HttpResponse:
    """The oEmbed answer (JSON, type "rich") for a lab page or an embed of this site."""
    try:
        answer = _oembed_answer(request)
        response = JsonResponse(answer)
    except OEmbedError as error:
        response = JsonResponse(
            {"error": error.code, "message": error.message}, status=error.status
        )
    # public, no credentials: docs tools may ask from a browser
    response["Access-Control-Allow-Origin"] = "*"
    return response


def _oembed_answer(request: HttpRequest) -> dict:
    fmt = request.GET.get("format", "json")
    if fmt != "json":
        raise OEmbedError(
            501,
            "format_not_supported",
            _("Only format=json is supported."),
        )
    max_width = _dimension(request.GET.get("maxwidth"), "maxwidth", MIN_WIDTH)
    max_height = _dimension(request.GET.get("maxheight"), "maxheight", MIN_HEIGHT)
    url = request.GET.get("url")
    if not url:
        raise OEmbedError(
            400, "missing_url", _("Give the address of a lab page as url=.")
        )
    slug, options, link = _parse_lab_url(url, request)
    chapter, entry = _built_lab(slug)
    scheme = urlsplit(url).scheme.lower()
    src = f"{scheme}://{request.get_host()}{reverse('embed', args=[slug])}"
    query = options.query()
    if query:
        src += f"?{query}"
    if link:
        src += f"#link={link}"
    width, height = proposed_size(slug, options)
    if max_width is not None:
        width = min(width, max_width)
    if max_height is not None:
        height = min(height, max_height)
    with translation.override(options.lang or translation.get_language()):
        title = str(entry.title)
    html = format_html(
        '<iframe src="{}" width="{}" height="{}" title="{}" loading="lazy" '
        'style="border:0;max-width:100%" allow="clipboard-write"></iframe>',
        src,
        width,
        height,
        title,
    )
    return {
        "version": "1.0",
        "type": "rich",
        "provider_name": PROVIDER_NAME,
        "provider_url": f"{scheme}://{request.get_host()}/",
        "title": title,
        "html": str(html),
        "width": width,
        "height": height,
    }


def _dimension(text: str | None, name: str, least: int) -> int | None:
    """A maxwidth or maxheight: None when absent, clamped when huge, 400 when bad."""
    if text is None or text == "":
        return None
    if not DIGITS.fullmatch(text):
        raise OEmbedError(
            400,
            f"bad_{name}",
            _("%(name)s must be a whole number of pixels.") % {"name": name},
        )
    if len(text) > 9 or int(text) > MAX_SIDE:
        return MAX_SIDE
    value = int(text)
    if value < least:
        raise OEmbedError(
            400,
            f"bad_{name}",
            _("%(name)s must be at least %(least)s pixels: a lab needs that much room.")
            % {"name": name, "least": least},
        )
    return value


def _parse_lab_url(url: str, request: HttpRequest) -> tuple[str, EmbedOptions, str]:
    """(slug, options, link) of a URL of this site's lab page or embed."""
    not_ours = OEmbedError(
        404,
        "not_found",
        _("Only the addresses of this site's lab pages (/labs/…/) can be embedded."),
    )
    if len(url) > MAX_LINK_CHARS + 1000:
        raise OEmbedError(400, "url_too_long", _("That address is too long."))
    try:
        parts = urlsplit(url)
        port = parts.port  # raises ValueError when it is not a number
    except ValueError:
        raise OEmbedError(400, "bad_url", _("That is not a web address.")) from None
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        raise OEmbedError(400, "bad_url", _("That is not a web address.")) from None
    if parts.username is not None or parts.password is not None:
        raise not_ours
    netloc = parts.hostname.lower() + (f":{port}" if port is not None else "")
    if netloc != request.get_host().lower():
        raise not_ours
    match = LAB_PATH.fullmatch(parts.path)
    if match is None:
        raise not_ours
    slug = match["slug"]
    if _built_lab(slug) is None:
        raise OEmbedError(404, "unknown_lab", _("This site has no such lab."))
    options = EmbedOptions.from_query(parse_qs(parts.query))
    fragment = parse_qs(parts.fragment)
    link = (fragment.get("link") or [""])[0]
    if link:
        if not LINK_TEXT.fullmatch(link):
            raise OEmbedError(
                400,
                "bad_link",
                _("The link in this address is damaged (cut short, or changed)."),
            )
        try:
            linked_slug, *_rest = read_link(link)
        except LinkError as error:
            raise OEmbedError(
                400,
                "bad_link",
                _("The link in this address cannot be opened: %(why)s.")
                % {"why": error.translated(_)},
            ) from None
        if linked_slug != slug:
            raise OEmbedError(400, "bad_link", _("This link is for another lab."))
    return slug, options, link
