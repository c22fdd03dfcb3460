"""Pages: the catalogue, one page per lab (built, or coming), and joining a class."""

import asyncio
import io
import re
import unicodedata
from urllib.parse import urlencode

import segno
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.templatetags.static import static
from django.urls import reverse
from django.utils.cache import patch_cache_control
from django.utils.translation import gettext as _

from playground import catalogue as course
from playground import store
from playground.addresses import limit_key
from playground.catalogue import Chapter, LabEntry, built_labs, find_lab
from playground.modulepreload import LAB_PAGE_SCRIPT, module_preloads
from playground.protocol import member_id_of
from playground.rooms.door import LineFull, door
from simulators.engine.rng import SEED_MAX
from simulators.labs.manifest import EMBED_SHORT_HEIGHT


def catalogue(request: HttpRequest) -> HttpResponse:
    """The labs that can be opened first, then the ones still coming, by chapter."""
    chapters = [
        {
            "number": chapter.number,
            "title": chapter.title,
            "coming": [lab_card(chapter, e) for e in chapter.labs if not e.built],
        }
        for chapter in course.chapters()
    ]
    ready = [lab_card(*pair) for pair in built_labs()]
    return render(request, "catalogue.html", {"chapters": chapters, "ready": ready})


def lab_card(chapter: Chapter, entry: LabEntry) -> dict:
    """A lab as a card shows it: its names, its chapter, and its page if it is built."""
    return {
        "slug": entry.slug,
        "title": entry.title,
        "promise": entry.promise,
        "built": entry.built,
        "url": entry.url,
        "chapter_title": chapter.title,
        "chapter_number": chapter.number,
    }


def lab(request: HttpRequest, slug: str) -> HttpResponse:
    """A lab's page (the browser opens a websocket to run it), or a page saying it is
    coming, with the labs that can be opened instead."""
    found = find_lab(slug)
    if found is None:
        raise Http404("No such lab")
    if not found[1].built:
        return render(request, "labs/coming.html", coming_context(*found))
    context = lab_context(*found)
    context["seed"] = seed_from(request.GET.get("seed"))
    return render(request, "labs/lab.html", context)


def coming_context(chapter: Chapter, entry: LabEntry) -> dict:
    """What the page of a lab still coming shows: it, and the labs built (its
    chapter's first)."""
    return {
        "lab": lab_card(chapter, entry),
        "ready": [lab_card(*pair) for pair in built_labs(first=chapter)],
    }


def lab_context(chapter: Chapter, entry: LabEntry, script=LAB_PAGE_SCRIPT) -> dict:
    """What every page that runs a lab needs: its names, socket, renderer, stylesheet,
    guide, and the modules to preload (`script`, the page's own module, and all they
    import)."""
    manifest = entry.manifest
    renderer = manifest.renderer
    return {
        "lab": lab_card(chapter, entry),
        "ws_path": f"/ws/labs/{entry.slug}/",
        "renderer_module": static(renderer),
        "module_preloads": module_preloads(script, renderer),
        "narrative_template": manifest.narrative,
        # the lab's own stylesheet's static path (css/labs/<slug>.css), loaded after
        # app.css by every page that shows the lab (docs/frontend.md, "Stylesheets")
        "stylesheet": manifest.stylesheet,
        # the frame the Embed dialog proposes (static/js/embed-dialog.js reads it from
        # the page's data-embed-* attributes; oEmbed proposes the same)
        "embed_width": manifest.embed_width,
        "embed_height": manifest.embed_height,
        "embed_short_height": EMBED_SHORT_HEIGHT,
    }


# ASCII digits only: str.isdigit() is also true of "²" (which int() refuses) and of
# "٧" (which int() reads as 7); 16 of them keep int() far from its 4,300-digit limit.
SEED_TEXT = re.compile(r"[0-9]{1,16}")


def seed_from(text: str | None) -> int:
    """A seed from the query string; anything that is not one gives 0."""
    if text is None or not SEED_TEXT.fullmatch(text):
        return 0
    return min(int(text), SEED_MAX)


# -- joining a class -------------------------------------------------------------------

MAX_NAME_LENGTH = 40  # as the websocket's `name=` (playground.consumers)


async def join(request: HttpRequest) -> HttpResponse:
    """The join form (GET), or a code and a display name sent from it (POST)."""
    if request.method != "POST":
        code = (request.GET.get("code") or "")[:20]
        return _join_form(request, code=code)
    code = (request.POST.get("code") or "")[:40]
    name = (request.POST.get("name") or "")[:200]
    name_error = _name_problem(name)
    if name_error:
        return _join_form(
            request, code=code, name=name, name_error=name_error, status=400
        )
    client = request.POST.get("client") or ""
    return await _enter(request, code, name.strip(), client=client[:64])


async def join_code(request: HttpRequest, code: str) -> HttpResponse:
    """The join link (and the QR code's target): straight into the class."""
    return await _enter(request, code, "")


async def join_qr(request: HttpRequest, code: str) -> HttpResponse:
    """The join link as a QR code (SVG), for the host to show."""
    try:
        record = await door.find(_normalise(code)[:20], _address(request))
    except LineFull:
        return HttpResponse(_too_busy(), status=429)
    if record is None:
        raise Http404("No such class")
    url = request.build_absolute_uri(reverse("join-code", args=[record.join_code]))
    buffer = io.BytesIO()
    segno.make(url, error="m").save(
        buffer,
        kind="svg",
        scale=8,
        border=2,
        dark="#1b1f24",
        light="#ffffff",
        xmldecl=False,
        omitsize=True,
        title=url,
    )
    response = HttpResponse(buffer.getvalue(), content_type="image/svg+xml")
    # the code's picture never changes while the class lives (12 hours at most)
    patch_cache_control(response, private=True, max_age=3600)
    return response


async def _enter(
    request: HttpRequest, code: str, name: str, client: str = ""
) -> HttpResponse:
    """Redirect to the class's room, or show the form again saying why not.

    A right code is never refused (playground/rooms/door.py): after many wrong ones
    from this network it only takes a moment longer.
    """
    try:
        record = await door.find(_normalise(code)[:20], _address(request))
    except LineFull:
        return _join_form(
            request, code=code, name=name, code_error=_too_busy(), status=429
        )
    if record is None:
        message = (
            _("Type the 6-letter code your teacher shows.")
            if not code.strip()
            else _(
                "No class has the code %(code)s, or that class has ended. "
                "Check the code on the board and try again."
            )
            % {"code": _printable(_normalise(code))[:20]}
        )
        return _join_form(request, code=code, name=name, code_error=message, status=404)
    if name:
        problem = await _name_in_class(record, name, client)
        if problem:
            return _join_form(
                request, code=code, name=name, name_error=problem, status=409
            )
    query = {"room": record.id}
    if name:
        query["name"] = name
    target = f"{reverse('lab', args=[record.lab])}?{urlencode(query)}"
    return HttpResponseRedirect(target, status=303)


def _too_busy() -> str:
    return _(
        "Too many codes were tried from this network just now. "
        "Wait a minute, then check the code on the board and try again."
    )


def _join_form(request, *, code="", name="", code_error="", name_error="", status=200):
    context = {
        "code": _printable(code).strip()[:20],
        "name": _printable(name)[:MAX_NAME_LENGTH],
        "code_error": code_error,
        "name_error": name_error,
        "max_name": MAX_NAME_LENGTH,
    }
    return render(request, "join.html", context, status=status)


def _normalise(code: str) -> str:
    """What a student typed, as a code: capitals, no spaces or dashes."""
    return "".join(c for c in code if c not in " -\t").upper()


def _printable(text: str) -> str:
    """`text` without control characters (U+0000 and the like), to show it back."""
    return "".join(c for c in text if c.isprintable())


def _name_problem(name: str) -> str:
    """Why a display name will not do ("" when it will)."""
    name = unicodedata.normalize("NFC", name).strip()
    if not name:
        return _("Type a name for the class to see (a first name or a nickname).")
    if len(name) > MAX_NAME_LENGTH or not name.isprintable():
        return _("A name is 1 to %(most)s ordinary characters.") % {
            "most": MAX_NAME_LENGTH
        }
    return ""


async def _name_in_class(record, name: str, client: str) -> str:
    """Why `name` will not do in this class ("" when it will): another member has it,
    or it is the host's, or the word for one. `client` is this tab's token, so a
    student coming back keeps their own name."""
    member = member_id_of(client) if client else ""
    problem = await asyncio.to_thread(store.name_problem, record.id, name, member)
    if problem == "reserved":
        return _(
            "Only the host may use the name %(name)s in this class. "
            "Choose another: a first name or a nickname."
        ) % {"name": name}
    if problem == "taken":
        return _(
            "Someone in this class already has the name %(name)s. "
            "Add an initial or choose another."
        ) % {"name": name}
    return ""


def _address(request: HttpRequest) -> str:
    """The key the per-address limits count this client by (its IPv4 address or IPv6
    /64: playground/addresses.py; a proxy's X-Forwarded-For with daphne
    --proxy-headers), as a websocket's `client_address`."""
    return limit_key(request.META.get("REMOTE_ADDR"))
