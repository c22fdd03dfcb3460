"""Pages: the catalogue and one page per built lab."""

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.templatetags.static import static

from playground.catalogue import CHAPTERS, find_lab
from simulators.engine.rng import SEED_MAX


def catalogue(request: HttpRequest) -> HttpResponse:
    """Every lab by chapter; the ones still coming have no link."""
    chapters = [
        {
            "number": chapter.number,
            "title": chapter.title,
            "labs": [
                {
                    "slug": e.slug,
                    "title": e.title,
                    "promise": e.promise,
                    "built": e.built,
                    "url": e.url,
                }
                for e in chapter.labs
            ],
        }
        for chapter in CHAPTERS
    ]
    return render(request, "catalogue.html", {"chapters": chapters})


def lab(request: HttpRequest, slug: str) -> HttpResponse:
    """A lab's page; the browser opens a websocket to run it."""
    found = find_lab(slug)
    if found is None or not found[1].built:
        raise Http404("No such lab")
    chapter, entry = found
    context = {
        "lab": {
            "slug": entry.slug,
            "title": entry.title,
            "promise": entry.promise,
            "chapter_title": chapter.title,
            "chapter_number": chapter.number,
        },
        "ws_path": f"/ws/labs/{entry.slug}/",
        "renderer_module": static(f"js/labs/{entry.slug}.js"),
        "narrative_template": f"labs/narratives/{entry.slug}.html",
        "seed": seed_from(request.GET.get("seed")),
    }
    return render(request, "labs/lab.html", context)


def seed_from(text: str | None) -> int:
    """A seed from the query string; anything that is not one gives 0."""
    if text is None or not text.isdigit() or len(text) > 16:
        return 0
    return min(int(text), SEED_MAX)
