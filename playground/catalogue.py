"""Every lab in the course, by chapter, with a one-line promise."""

from dataclasses import dataclass

from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from simulators.labs import LABS


@dataclass(frozen=True)
class LabEntry:
    """A lab as the catalogue lists it."""

    slug: str
    title: str
    promise: str

    @property
    def built(self) -> bool:
        """True when the lab has a simulator and a page."""
        return self.slug in LABS

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


CHAPTERS = (
    Chapter(
        1,
        _("Partitioning"),
        (
            LabEntry(
                "hash-placement",
                _("Hash rings and moving keys"),
                _(
                    "Add a fifth shard and watch mod N move most keys while partitions "
                    "and a ring move a fifth."
                ),
            ),
            LabEntry(
                "range-splits",
                _("Range splits and hot shards"),
                _(
                    "Split sorted slices as they grow, and see why timestamp keys pile "
                    "every write onto one shard."
                ),
            ),
            LabEntry(
                "scatter-gather",
                _("Routing by key, or asking everyone"),
                _(
                    "One shard answers a query by key; a query without it waits "
                    "for the slowest of them all."
                ),
            ),
        ),
    ),
    Chapter(
        2,
        _("Replication and consistency"),
        (
            LabEntry(
                "replication",
                _("Primary, replicas, lag and failover"),
                _(
                    "Ship the write-ahead log, read from a lagging replica, promote "
                    "one, and count the writes lost."
                ),
            ),
            LabEntry(
                "quorum",
                _("N, W, R and reads that miss the write"),
                _(
                    "Cut a link and find the read that returns the old value, then the "
                    "quorum that never does."
                ),
            ),
            LabEntry(
                "partition-cap",
                _("The last seat during a network partition"),
                _(
                    "Sell flight 7's last seat on both sides of a split and decide who "
                    "keeps it after healing."
                ),
            ),
            LabEntry(
                "two-phase-commit",
                _("The seat and the booking on two shards"),
                _(
                    "Crash the coordinator between prepare and commit and watch the "
                    "locks stay held."
                ),
            ),
        ),
    ),
    Chapter(
        3,
        _("Key-value stores and caches"),
        (
            LabEntry(
                "cache-stampede",
                _("Cache-aside, expiry and the thundering herd"),
                _(
                    "Let the departures board expire under load and see twenty "
                    "identical queries hit the database."
                ),
            ),
            LabEntry(
                "rate-limit-race",
                _("Read, check, write versus one atomic step"),
                _("Interleave two clients step by step and admit the 101st request."),
            ),
            LabEntry(
                "kv-console",
                _("A Redis-like store you can type into"),
                _(
                    "Type GET, SET, INCR and MULTI, count the round trips, then "
                    "crash it."
                ),
            ),
        ),
    ),
    Chapter(
        4,
        _("Data models"),
        (
            LabEntry(
                "document-modeling",
                _("Embed or reference"),
                _("Change one flight's time and count the writes each model needs."),
            ),
            LabEntry(
                "lsm-tree",
                _("The wide-column write path"),
                _(
                    "Follow a write through memtable, flush and compaction, and read "
                    "through the tombstones."
                ),
            ),
            LabEntry(
                "dynamodb-cost",
                _("The bill is computable before the request"),
                _("Price a Query against a Scan in read units before sending either."),
            ),
            LabEntry(
                "modeling-techniques",
                _("The classic NoSQL modelling patterns"),
                _(
                    "Composite keys, index tables, geohashes and inverted indexes on "
                    "an ordered key-value store."
                ),
            ),
        ),
    ),
    Chapter(
        5,
        _("Graphs"),
        (
            LabEntry(
                "graph-traversal",
                _("Paths as pointers, paths as joins"),
                _(
                    "Expand from LAX depth by depth and compare it with the same path "
                    "as recursive SQL."
                ),
            ),
        ),
    ),
    Chapter(
        6,
        _("Putting stores together"),
        (
            LabEntry(
                "polyglot",
                _("The booking page and its copies"),
                _(
                    "Follow one request across three databases and see availability "
                    "multiply down."
                ),
            ),
        ),
    ),
)


def built_labs(first: Chapter | None = None) -> list[tuple[Chapter, LabEntry]]:
    """Every lab that can be opened, by chapter; the labs of `first` come first."""
    found = [(chapter, e) for chapter in CHAPTERS for e in chapter.labs if e.built]
    return sorted(found, key=lambda pair: pair[0] is not first)  # stable: order kept


def find_lab(slug: str) -> tuple[Chapter, LabEntry] | None:
    """The chapter and entry for a slug, or None."""
    for chapter in CHAPTERS:
        for entry in chapter.labs:
            if entry.slug == slug:
                return chapter, entry
    return None
