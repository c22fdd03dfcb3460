"""Links that reproduce a state: lab, seed, the actions of a history, the moment.

A link is `<version>.<payload>`. Version 1's payload is URL-safe base64 (no padding) of
zlib-compressed JSON: `{"l": slug, "s": seed, "a": [[name, args?], ...], "c": cursor}`.
Opening it replays the actions on a fresh lab with that seed and seeks to the cursor,
so the same link gives the same digest in any process. Consecutive ticks of the room
clock (`advance`, the lab's action of group "clock") are merged when a link is made
(running the clock to t1 and then to t2 runs the same events, at the same times, as
running it to t2), which keeps the links of labs that played for a while short.

Every later version must keep opening version 1 links: add a decoder, never change
this one. Anything that is not a valid link raises `LinkError` with a clear message;
the page then opens the lab fresh and shows it.
"""

import base64
import binascii
import json
import zlib
from typing import Any

from django.conf import settings
from django.utils.translation import gettext_noop

from playground.history import SEEK, Entry, History, declared_work
from simulators.engine.clocked import MAX_ADVANCE_MS
from simulators.engine.declaration import ActionError
from simulators.engine.rng import SEED_MAX
from simulators.labs import LABS

VERSION = "1"
MAX_LINK_CHARS = 60_000  # fits in one websocket message (64 KiB)
MAX_ACTIONS = 10_000
MAX_JSON_BYTES = 2_000_000  # a link never inflates beyond this (zip bombs)
# A link's JSON is four levels deep (payload, actions, step, args). Far deeper is
# forged, and code that walks it would recurse until it failed (json.loads itself
# stops at the recursion limit with RecursionError).
MAX_JSON_DEPTH = 32
# Links meant for a docs page or a chat should stay under 2,000 characters: the length
# every browser, server and docs tool accepts in a URL (tests/server/test_links.py).
SHORT_LINK_CHARS = 2_000


class LinkError(ActionError):
    """A link that cannot be opened, and why: an ActionError about the field "link".

    `cause` is the lab's own refusal of a step, translated with the rest.
    """

    def __init__(
        self, code: str, template: str, cause: ActionError | None = None, **params: Any
    ) -> None:
        self.cause = cause
        super().__init__(code, template, "link", **params)

    def translated(self, gettext) -> str:
        if self.cause is None:
            return super().translated(gettext)
        params = {**self.params, "why": self.cause.translated(gettext)}
        return gettext(self.template) % params


def make_link(slug: str, seed: int, actions: list[Entry], cursor: int) -> str:
    """The link of a history: its actions (advances merged) and where the cursor is."""
    merged: list[list] = []
    cursor_after = 0
    ticks = LABS[slug].actions_in("clock")  # the room clock's: `advance`
    for index, entry in enumerate(actions):
        if (
            entry.name in ticks
            and merged
            and merged[-1][0] == entry.name
            and merged[-1][1]["ms"] + entry.args["ms"] <= MAX_ADVANCE_MS
            and index != cursor  # never merge across the cursor
        ):
            merged[-1][1] = {"ms": merged[-1][1]["ms"] + entry.args["ms"]}
        else:
            merged.append(
                [entry.name, dict(entry.args)] if entry.args else [entry.name]
            )
        if index + 1 == cursor:
            cursor_after = len(merged)
    payload = {"l": slug, "s": seed, "a": merged, "c": cursor_after}
    data = json.dumps(payload, separators=(",", ":"), ensure_ascii=False).encode()
    packed = base64.urlsafe_b64encode(zlib.compress(data, 9)).rstrip(b"=")
    return f"{VERSION}.{packed.decode('ascii')}"


def read_link(link: Any) -> tuple[str, int, list[tuple[str, dict]], int]:
    """(slug, seed, actions, cursor) from a link; LinkError if it is not one."""
    if not isinstance(link, str) or not link:
        raise LinkError("bad_link", gettext_noop("a link must be text"))
    if len(link) > MAX_LINK_CHARS:
        raise LinkError(
            "link_too_long",
            gettext_noop("a link may be at most %(most)s characters"),
            most=f"{MAX_LINK_CHARS:,}",
        )
    version, _, body = link.partition(".")
    if version != VERSION:
        raise LinkError(
            "unknown_version",
            gettext_noop(
                "this link was made by a version of the playground (%(v)s) "
                "that this server does not know"
            ),
            v=version[:8],
        )
    try:
        packed = base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))
        inflater = zlib.decompressobj()
        data = inflater.decompress(packed, MAX_JSON_BYTES)
        if inflater.unconsumed_tail or inflater.unused_data or not inflater.eof:
            raise ValueError("truncated or too large")
        payload = json.loads(data)
        if _deeper_than(payload, MAX_JSON_DEPTH):
            raise ValueError("nested too deep")
    except (ValueError, RecursionError, binascii.Error, zlib.error, UnicodeDecodeError):
        raise LinkError(
            "damaged_link",
            gettext_noop("this link is damaged (cut short, or changed by hand)"),
        ) from None
    return _checked(payload)


def _checked(payload: Any) -> tuple[str, int, list[tuple[str, dict]], int]:
    damaged = LinkError(
        "damaged_link",
        gettext_noop("this link is damaged (cut short, or changed by hand)"),
    )
    if not isinstance(payload, dict) or set(payload) != {"l", "s", "a", "c"}:
        raise damaged
    slug, seed, actions, cursor = (payload[k] for k in ("l", "s", "a", "c"))
    if not isinstance(slug, str) or slug not in LABS:
        raise LinkError(
            "unknown_lab",
            gettext_noop("this link is for a lab this server does not have"),
        )
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= SEED_MAX:
        raise damaged
    if not isinstance(actions, list):
        raise damaged
    if len(actions) > MAX_ACTIONS:
        raise LinkError(
            "too_many_actions",
            gettext_noop(
                "a link may hold at most %(most)s actions; this one has %(count)s"
            ),
            most=f"{MAX_ACTIONS:,}",
            count=f"{len(actions):,}",
        )
    steps = []
    for item in actions:
        if (
            not isinstance(item, list)
            or not 1 <= len(item) <= 2
            or not isinstance(item[0], str)
            or (len(item) == 2 and not isinstance(item[1], dict))
        ):
            raise damaged
        steps.append((item[0], item[1] if len(item) == 2 else {}))
    if isinstance(cursor, bool) or not isinstance(cursor, int):
        raise damaged
    if not 0 <= cursor <= len(steps):
        raise damaged
    return slug, seed, steps, cursor


def _deeper_than(value: Any, most: int) -> bool:
    """Whether JSON `value` nests lists and objects more than `most` levels deep."""
    level = [value] if isinstance(value, list | dict) else []
    for _ in range(most):
        level = [
            child
            for container in level
            for child in (
                container.values() if isinstance(container, dict) else container
            )
            if isinstance(child, list | dict)
        ]
        if not level:
            return False
    return bool(level)


def link_cost(slug: str, steps: list) -> int:
    """The declared work of opening a link (simulators/engine/cost.py), replaying none.

    LinkError names the first step that is not a valid action of the lab.
    """
    if any(name == SEEK for name, _ in steps):
        raise LinkError(
            "damaged_link",
            gettext_noop("this link is damaged (cut short, or changed by hand)"),
        )
    try:
        return declared_work(LABS[slug], steps)
    except ActionError as error:
        raise _bad_step(error.step, error) from None


def check_cost(slug: str, steps: list) -> int:
    """The link's declared work; LinkError if it passes the budget a link may use."""
    units = link_cost(slug, steps)
    budget = settings.PLAYGROUND_LINK_BUDGET_UNITS
    if units > budget:
        raise LinkError(
            "link_too_heavy",
            gettext_noop(
                "this link would take about %(seconds)s s of work to open; a link may "
                "take at most %(most)s s (fewer steps, or fewer keys, fit)"
            ),
            seconds=seconds_of(units),
            most=seconds_of(budget),
        )
    return units


def seconds_of(units: int) -> str:
    """Declared work as the seconds it takes, about (a unit is about a microsecond)."""
    seconds = units / 1e6
    return f"{seconds:,.1f}" if seconds >= 1 else f"{seconds:.2f}"


def replay_link(
    slug: str, seed: int, steps: list, cursor: int
) -> tuple[list[Entry], History]:
    """The log a link's room starts with, and its history: one replay, every step
    checked as it is applied.

    Raises LinkError naming the first step the lab refuses. Runs in a worker process
    for a heavy link (playground/rooms/work.py): it touches no database.
    """
    timeline = History(LABS[slug], seed)
    entries = []
    for number, (name, args) in enumerate(steps, start=1):
        if name == SEEK:
            raise LinkError(
                "damaged_link",
                gettext_noop("this link is damaged (cut short, or changed by hand)"),
            )
        entry = Entry(number, name, args)
        try:
            timeline.apply(name, args, entry)
        except ActionError as error:
            raise _bad_step(number, error) from None
        entries.append(entry)
    if cursor < len(entries):
        entry = Entry(len(entries) + 1, SEEK, {"to": cursor})
        timeline.apply(SEEK, entry.args, entry)
        entries.append(entry)
    return entries, timeline


def _bad_step(number: int, error: ActionError) -> LinkError:
    return LinkError(
        "bad_step",
        gettext_noop("step %(number)s of this link cannot be done: %(why)s"),
        cause=error,
        number=number,
        why=error.message,
    )


def shareable_link(
    slug: str, seed: int, actions: list, cursor: int
) -> tuple[str, bool]:
    """The link of a branch at its cursor, and whether what lies after the cursor was
    left out to keep it within what a link may cost.

    LinkError `link_too_heavy` when even the moment itself would cost more.
    """
    trimmed = False
    for kept in (actions, actions[:cursor]):
        link = make_link(slug, seed, kept, cursor)
        try:
            check_cost(slug, read_link(link)[2])
            return link, trimmed
        except LinkError as error:
            refusal = error
            trimmed = True
    raise LinkError(
        "link_too_heavy",
        gettext_noop(
            "this moment would take about %(seconds)s s of work to open from a link; "
            "a link may take at most %(most)s s, so it cannot be shared as one"
        ),
        **refusal.params,
    )
