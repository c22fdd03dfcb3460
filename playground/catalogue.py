"""Every lab in the course, by chapter, with a one-line promise.

The labs and their places come from their manifests (`simulators.labs.REGISTRY`, one
`manifest.py` a lab folder); only the chapters' names are kept here. The catalogue is
made from the registry each time it is asked for (sixteen entries: nothing to cache),
so a lab the registry finds after `REGISTRY.refresh()` is listed too.
"""

from dataclasses import dataclass

from django.urls import reverse
from django.utils.functional import lazy
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from simulators.labs import REGISTRY, ComingLab, LabManifest

# a manifest's title and promise are marked with gettext_noop in simulators/ (which
# imports no Django): translated here, when shown
translated = lazy(gettext, str)


@dataclass(frozen=True)
class LabEntry:
    """A lab as the catalogue lists it."""

    manifest: LabManifest | ComingLab

    @property
    def slug(self) -> str:
        return self.manifest.slug

    @property
    def title(self) -> str:
        return translated(self.manifest.title)

    @property
    def promise(self) -> str:
        return translated(self.manifest.promise)

    @property
    def built(self) -> bool:
        """True when the lab has a simulator and a page."""
        return self.manifest.built

    @property
    def url(self) -> str | None:
        """The lab's page, or None while it is still coming."""
        return reverse("lab", args=[self.slug]) if self.built else None


@dataclass(frozen=True)
class Chapter:
    """A chapter of the course and its labs."""

    number: int
    title: str
    labs: tuple[LabEntry, ...]


CHAPTER_TITLES = {
    1: _("Partitioning"),
    2: _("Replication and consistency"),
    3: _("Key-value stores and caches"),
    4: _("Data models"),
    5: _("Graphs"),
    6: _("Putting stores together"),
}


def chapters() -> tuple[Chapter, ...]:
    """The course's chapters in order, each with its labs (built and coming) in order;
    a chapter without a lab is left out."""
    found: dict[int, list[LabEntry]] = {}
    for manifest in REGISTRY.manifests.values():
        found.setdefault(manifest.chapter, []).append(LabEntry(manifest))
    return tuple(
        Chapter(number, CHAPTER_TITLES[number], tuple(found[number]))
        for number in sorted(found)
    )


def built_labs(first: Chapter | None = None) -> list[tuple[Chapter, LabEntry]]:
    """Every lab that can be opened, by chapter; the labs of `first` come first."""
    found = [(chapter, e) for chapter in chapters() for e in chapter.labs if e.built]

    def later(pair: tuple[Chapter, LabEntry]) -> bool:
        return first is not None and pair[0].number != first.number

    return sorted(found, key=later)  # stable: the course's order kept


def find_lab(slug: str) -> tuple[Chapter, LabEntry] | None:
    """The chapter and entry for a slug, or None."""
    manifest = REGISTRY.get(slug)
    if manifest is None:
        return None
    chapter = next(c for c in chapters() if c.number == manifest.chapter)
    return chapter, next(e for e in chapter.labs if e.slug == slug)
