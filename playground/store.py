"""The database side of rooms: create, load, append to the log, branch.

Everything here is synchronous Django ORM code; rooms call it from a worker thread
(`asyncio.to_thread`), never on the event loop.
"""

import hashlib
import hmac
import json
import secrets
import threading
import zlib
from collections.abc import Iterable
from contextlib import contextmanager
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import (
    DatabaseError,
    IntegrityError,
    close_old_connections,
    connection,
    transaction,
)
from django.db.models.functions import Coalesce
from django.utils import timezone

from playground import names
from playground.checkpoints import KEY_BYTES, code_version
from playground.history import Entry
from playground.models import (
    Answer,
    CheckpointPart,
    CheckpointRecord,
    LogRecord,
    Member,
    Question,
    RoomRecord,
)

# Join codes: no 0/O, 1/I/L: 31 symbols, 6 long, about 887 million codes.
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 6


def hash_secret(secret: str) -> str:
    """The stored form of a host secret (a 256-bit random token: SHA-256 suffices)."""
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def secret_matches(secret: str, stored_hash: str) -> bool:
    """Whether `secret` is the one whose hash was stored (constant time)."""
    if not stored_hash or not isinstance(secret, str) or len(secret) > 200:
        return False
    return hmac.compare_digest(hash_secret(secret), stored_hash)


class WriteGate:
    """One writer at a time in this process when the database is SQLite, appends first.

    SQLite has one write lock for the whole database, and a writer that finds it taken
    sleeps and tries again, longer each time (1, 2, 5, 10, … 100 ms): with ten rooms
    storing half-megabyte checkpoints, a newcomer's append of one row slept for half a
    second. Writers of this process wait here instead, woken as soon as the one before
    is done, and an append of actions (`urgent`) goes before every waiting checkpoint.
    PostgreSQL locks rows, not the database: there the gate lets everyone through."""

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self._busy = False
        self._urgent = 0

    @contextmanager
    def hold(self, urgent: bool):
        if connection.vendor != "sqlite":
            yield
            return
        with self._changed:
            self._urgent += urgent
            while self._busy or (not urgent and self._urgent):
                self._changed.wait()
            self._urgent -= urgent
            self._busy = True
        try:
            yield
        finally:
            with self._changed:
                self._busy = False
                self._changed.notify_all()


gate = WriteGate()


def fresh() -> None:
    """Drop database connections that went stale (call at the start of thread work)."""
    close_old_connections()


def create_room(
    lab: str,
    seed: int,
    *,
    kind: str = RoomRecord.PRIVATE,
    parent: str = "",
    creator: str = "",
    entries: Iterable[Entry] = (),
) -> tuple[RoomRecord, str]:
    """A new room with a copy of `entries`; returns (record, host secret or "")."""
    fresh()
    secret = ""
    with transaction.atomic():
        if kind == RoomRecord.CLASS:
            secret = secrets.token_urlsafe(32)
            record = _insert_class(lab, seed, parent, secret)
        else:
            record = RoomRecord.objects.create(
                id=f"p-{secrets.token_hex(8)}",
                lab=lab,
                seed=seed,
                parent=parent,
                creator=creator,
                opened_at=timezone.now(),
            )
        LogRecord.objects.bulk_create(
            LogRecord(room=record, seq=e.seq, name=e.name, args=e.args, actor=e.actor)
            for e in entries
        )
    return record, secret


def _insert_class(lab: str, seed: int, parent: str, secret: str) -> RoomRecord:
    hours = settings.PLAYGROUND_CLASS_HOURS
    for _ in range(20):
        code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
        try:
            with transaction.atomic():
                return RoomRecord.objects.create(
                    id=f"c-{secrets.token_hex(8)}",
                    lab=lab,
                    seed=seed,
                    kind=RoomRecord.CLASS,
                    join_code=code,
                    host_secret_hash=hash_secret(secret),
                    parent=parent,
                    opened_at=timezone.now(),
                    closes_at=timezone.now() + timedelta(hours=hours),
                )
        except IntegrityError:  # that code is taken: draw another
            continue
    raise RuntimeError("could not find a free join code")


def load_room(room_id: str) -> tuple[RoomRecord, list[Entry]] | None:
    """A stored room and its whole log, or None."""
    fresh()
    record = RoomRecord.objects.filter(pk=room_id).first()
    if record is None:
        return None
    return record, whole_log(room_id)


def whole_log(room_id: str) -> list[Entry]:
    """Every logged action of a room, in order: read as rows, the arguments decoded
    once per distinct text (a long log repeats few: a tick's `{"ms": 100}`), so
    50,000 entries take tens of milliseconds, not the half second the ORM takes."""
    table = connection.ops.quote_name(LogRecord._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT seq, name, CAST(args AS TEXT), actor, ref "  # noqa: S608
            f"FROM {table} WHERE room_id = %s ORDER BY seq",
            [room_id],
        )
        rows = cursor.fetchall()
    decoded: dict[str, Any] = {}
    entries = []
    for seq, name, text, actor, ref in rows:
        args = decoded.get(text)
        if args is None:
            args = decoded[text] = json.loads(text)
        entries.append(Entry(seq, name, args, actor, ref))
    return entries


def entries_after(room_id: str, seq: int) -> list[Entry]:
    """The room's logged actions after `seq`, in order."""
    rows = (
        LogRecord.objects.filter(room_id=room_id, seq__gt=seq)
        .order_by("seq")
        .values_list("seq", "name", "args", "actor", "ref")
    )
    return [Entry(*row) for row in rows]


def save_checkpoint(
    room_id: str, seq: int, data: bytes, keys: tuple, parts: dict[bytes, bytes]
) -> None:
    """Store a checkpoint of the room's lab after log entry `seq`, with the parts it
    needs that the room did not have yet (both are kept once: a second copy, from
    another process, is ignored)."""
    save_checkpoints(room_id, [(seq, data, keys, parts)])


def save_checkpoints(
    room_id: str, checkpoints: list[tuple[int, bytes, tuple, dict[bytes, bytes]]]
) -> None:
    """`save_checkpoint` for each of `(seq, data, keys, parts)`, in one transaction.

    A checkpoint's pickle is stored compressed (zlib, level 1: a third to a half of
    its bytes, in well under a millisecond); `checkpoint_data` reads either form."""
    fresh()
    with gate.hold(urgent=False), transaction.atomic():
        CheckpointPart.objects.bulk_create(
            (
                CheckpointPart(room_id=room_id, key=key, data=part)
                for _seq, _data, _keys, parts in checkpoints
                for key, part in parts.items()
            ),
            ignore_conflicts=True,
        )
        CheckpointRecord.objects.bulk_create(
            [
                CheckpointRecord(
                    room_id=room_id,
                    seq=seq,
                    code=code_version(),
                    data=zlib.compress(data, 1),
                    parts=b"".join(keys),
                )
                for seq, data, keys, _parts in checkpoints
            ],
            ignore_conflicts=True,
        )


def load_checkpoints(
    room_id: str,
) -> tuple[dict[int, tuple[None, tuple[bytes, ...]]], dict[bytes, bytes]]:
    """The room's stored checkpoints this code can read, by seq, each as `(None,
    the keys of its parts)`: their pickles are read one by one when needed
    (`checkpoint_data`); and every stored part, by key."""
    fresh()
    table = connection.ops.quote_name(CheckpointRecord._meta.db_table)
    with connection.cursor() as cursor:  # as rows: a long room stores thousands
        cursor.execute(
            f"SELECT seq, parts FROM {table} "  # noqa: S608
            "WHERE room_id = %s AND code = %s",
            [room_id, code_version()],
        )
        rows = cursor.fetchall()
    checkpoints = {}
    decoded: dict[bytes, tuple[bytes, ...]] = {}  # the next one often has the same
    for seq, blob in rows:
        blob = bytes(blob)
        keys = decoded.get(blob)
        if keys is None:
            keys = decoded[blob] = tuple(
                blob[i : i + KEY_BYTES] for i in range(0, len(blob), KEY_BYTES)
            )
        checkpoints[seq] = (None, keys)
    parts = {}
    if checkpoints:
        stored = CheckpointPart.objects.filter(room_id=room_id)
        for key, data in stored.values_list("key", "data"):
            parts[bytes(key)] = bytes(data)
    return checkpoints, parts


def checkpoint_data(room_id: str, seq: int) -> bytes | None:
    """The pickle of the room's checkpoint after entry `seq` (None: there is none
    this code can read, or the database could not be read just now)."""
    fresh()
    try:
        data = (
            CheckpointRecord.objects.filter(
                room_id=room_id, seq=seq, code=code_version()
            )
            .values_list("data", flat=True)
            .first()
        )
    except DatabaseError:  # a checkpoint is a cache: a longer replay instead
        return None
    if data is None:
        return None
    data = bytes(data)
    # a pickle starts with its PROTO opcode (0x80), a zlib stream never does
    return data if data[:1] == b"\x80" else zlib.decompress(data)


def stored_part_keys(room_id: str) -> set[bytes]:
    """The keys of the parts stored with a room."""
    fresh()
    keys = CheckpointPart.objects.filter(room_id=room_id).values_list("key", flat=True)
    return {bytes(key) for key in keys}


def find_class(code: str) -> RoomRecord | None:
    """The class a join code opens, or None (unknown, or the class has closed)."""
    fresh()
    if not isinstance(code, str):
        return None
    code = code.strip().upper()
    if len(code) != CODE_LENGTH or any(c not in CODE_ALPHABET for c in code):
        return None
    record = RoomRecord.objects.filter(join_code=code, kind=RoomRecord.CLASS).first()
    if record is None:
        return None
    if record.closes_at is not None and record.closes_at <= timezone.now():
        return None
    return record


def set_control(room_id: str, mode: str, driver: str, driver_name: str) -> int:
    """Store a new control mode; returns its version (the later version wins)."""
    fresh()
    with transaction.atomic():
        record = RoomRecord.objects.select_for_update().get(pk=room_id)
        record.mode, record.driver, record.driver_name = mode, driver, driver_name
        record.control_version += 1
        record.save(update_fields=["mode", "driver", "driver_name", "control_version"])
        return record.control_version


def set_tour(room_id: str, step: str) -> int:
    """Store the tour step a class is shown ("" for none); returns its version (the
    later version wins)."""
    fresh()
    with transaction.atomic():
        record = RoomRecord.objects.select_for_update().get(pk=room_id)
        record.tour_step = step
        record.tour_version += 1
        record.save(update_fields=["tour_step", "tour_version"])
        return record.tour_version


def ask(
    room_id: str,
    text: str,
    kind: str,
    choices: list,
    at_seq: int,
    voters: Iterable[str] = (),
) -> Question:
    """Store the host's next question; `voters` are the members in the class now,
    the ones who may answer it (with any the host approves later)."""
    fresh()
    with transaction.atomic():
        RoomRecord.objects.select_for_update().get(pk=room_id)
        last = Question.objects.filter(room_id=room_id).order_by("-number").first()
        newest = Member.objects.filter(room_id=room_id).order_by("-pk").first()
        return Question.objects.create(
            room_id=room_id,
            number=(last.number + 1) if last else 1,
            text=text,
            kind=kind,
            choices=choices,
            asked_at_seq=at_seq,
            voters=sorted(set(voters)),
            members_before=newest.pk if newest else 0,
        )


class NotAVoter(Exception):
    """This member was not in the class when the question opened (nor approved)."""


def answer(room_id: str, number: int, member: str, value) -> int | None:
    """Store (or replace) one member's answer; how many have answered (None: the
    host removed this member, and nothing was stored). NotAVoter when the member was
    not in the class when the question opened and the host did not approve them."""
    fresh()
    with transaction.atomic():
        row = Member.objects.filter(room_id=room_id, member=member).first()
        if row is not None and row.state != Member.MEMBER:
            return None
        question = Question.objects.get(room_id=room_id, number=number)
        legacy = not question.voters and not question.members_before
        approved = row is not None and (row.approved or row.host)
        if not legacy and member not in question.voters and not approved:
            raise NotAVoter()
        Answer.objects.update_or_create(
            question=question, member=member, defaults={"value": value}
        )
        return question.answers.count()


def reveal(room_id: str, number: int) -> tuple[Question, list]:
    """Mark a question revealed; returns it with every answer's value."""
    fresh()
    question = Question.objects.get(room_id=room_id, number=number)
    question.revealed = True
    question.save(update_fields=["revealed"])
    return question, list(question.answers.values_list("value", flat=True))


def questions(room_id: str) -> list[Question]:
    """Every question of a room, in order."""
    fresh()
    return list(Question.objects.filter(room_id=room_id).order_by("number"))


class Conflict(Exception):
    """The log moved on: another process appended after the seq an append expected."""


def append(room_id: str, entries: list[Entry], after: int) -> None:
    """Append applied actions to a room's log: one INSERT, its own transaction.

    `after` is the last seq the appender's replica has, and the entries follow it.
    The log has every seq from 1, and `(room, seq)` is unique: if anything is in the
    log past `after` (another process appended first: this replica applied the
    entries to a stale state), or the room is gone, the insert fails whole, and
    Conflict is raised. One statement, so the database holds its lock (SQLite's
    write lock, PostgreSQL's index entries) for that long only, never while a lab
    works: rooms apply first and append after (playground/rooms/room.py).
    """
    if entries[0].seq != after + 1:
        raise ValueError(f"entry {entries[0].seq} does not follow {after}")
    fresh()
    # One statement in autocommit, not the ORM's BEGIN, INSERT and COMMIT: each call
    # into the database lets go of the GIL, and getting it back beside lab work in
    # other threads took milliseconds each time (tests/attacks/test_heavy_work.py).
    table = connection.ops.quote_name(LogRecord._meta.db_table)
    args = LogRecord._meta.get_field("args")
    row = "(%s, %s, %s, %s, %s, %s)"
    values = []
    for entry in entries:
        prepared = args.get_db_prep_save(entry.args, connection)
        values += [room_id, entry.seq, entry.name, prepared, entry.actor, entry.ref]
    try:
        with gate.hold(urgent=True), connection.cursor() as cursor:
            cursor.execute(
                f"INSERT INTO {table} (room_id, seq, name, args, actor, ref) "  # noqa: S608
                f"VALUES {', '.join([row] * len(entries))}",
                values,
            )
    except IntegrityError as error:
        raise Conflict(room_id) from error


# -- what a room's limits and clean-up need -------------------------------------------


def touch(room_id: str) -> None:
    """Note that a socket opened the room now (stored rooms nobody opens are pruned)."""
    fresh()
    RoomRecord.objects.filter(pk=room_id).update(opened_at=timezone.now())


def branches_of(parent: str, creator: str) -> int:
    """How many private branches of class `parent` member `creator` made."""
    fresh()
    return RoomRecord.objects.filter(parent=parent, creator=creator).count()


def member_status(room_id: str, member: str) -> str:
    """ "new", "known", "waiting" or "removed": whether this member joined the class
    before (turned away from the lobby counts as removed)."""
    fresh()
    row = Member.objects.filter(room_id=room_id, member=member).first()
    if row is None:
        return "new"
    if row.state in (Member.REMOVED, Member.TURNED_AWAY):
        return "removed"
    return "known" if row.state == Member.MEMBER else "waiting"


def remove_member(room_id: str, member: str) -> dict[int, int] | None:
    """Mark a member removed and delete their answers; the answer count of each
    question they had answered, after (None: nobody by that id joined the class).
    New members from their address wait in the lobby from now on."""
    fresh()
    with transaction.atomic():
        updated = (
            Member.objects.filter(room_id=room_id, member=member)
            .exclude(state=Member.TURNED_AWAY)
            .update(state=Member.REMOVED)
        )
        if not updated:
            return None
        return _delete_answers(room_id, [member])


def _delete_answers(room_id: str, members: list[str]) -> dict[int, int]:
    """Delete these members' answers; the count of each question they had answered,
    after."""
    theirs = Answer.objects.filter(question__room_id=room_id, member__in=members)
    answered = set(theirs.values_list("question__number", flat=True))
    theirs.delete()
    return {
        number: Answer.objects.filter(
            question__room_id=room_id, question__number=number
        ).count()
        for number in sorted(answered)
    }


def prune(keep_days: int) -> dict[str, int]:
    """Delete private rooms nobody opened for `keep_days` days and classes that ended
    that long ago (with their logs, questions and members); how many of each."""
    fresh()
    cutoff = timezone.now() - timedelta(days=keep_days)
    private = RoomRecord.objects.filter(kind=RoomRecord.PRIVATE).annotate(
        last=Coalesce("opened_at", "created_at")
    )
    stale = list(private.filter(last__lt=cutoff).values_list("id", flat=True))
    ended = list(
        RoomRecord.objects.filter(
            kind=RoomRecord.CLASS, closes_at__lt=cutoff
        ).values_list("id", flat=True)
    )
    for chunk in range(0, len(stale) + len(ended), 500):
        ids = (stale + ended)[chunk : chunk + 500]
        RoomRecord.objects.filter(id__in=ids).delete()
    return {"private": len(stale), "class": len(ended)}


# -- a class's door: who joins, the lobby, names, a flood cleared ---------------------
# (playground/rooms/classes.py decides; these store it, each under the class's row lock
# where two joins at once could otherwise take one name)


def address_key(address: str) -> str:
    """How an address is stored with a member: a keyed hash, never the address."""
    key = settings.SECRET_KEY.encode("utf-8")
    return hmac.new(key, address.encode("utf-8"), hashlib.sha256).hexdigest()


def _taken_names(room_id: str, member: str) -> tuple[set[str], set[str]]:
    """The folded names others in the class (or its lobby) hold, and the hosts'."""
    rows = Member.objects.filter(
        room_id=room_id, state__in=(Member.MEMBER, Member.WAITING)
    ).exclude(member=member)
    taken, hosts = set(), set()
    for name, host in rows.values_list("name", "host"):
        taken.add(names.fold(name))
        if host:
            hosts.add(names.fold(name))
    return taken, hosts


def free_name(room_id: str, member: str, wanted: str, fallback: str) -> str:
    """`wanted`, made unique in the class; `fallback` (made unique) when it is a host's
    or the word for one (only a host may use those)."""
    taken, hosts = _taken_names(room_id, member)
    if not wanted or names.is_reserved(wanted) or names.fold(wanted) in hosts:
        wanted = fallback
    return names.unique(wanted, taken)


def name_problem(room_id: str, name: str, member: str = "") -> str:
    """ "taken", "reserved" or "": whether a student may join the class as `name`
    (`member`, when known, may keep their own)."""
    fresh()
    taken, hosts = _taken_names(room_id, member)
    if names.is_reserved(name) or names.fold(name) in hosts:
        return "reserved"
    return "taken" if names.fold(name) in taken else ""


def join_class(
    room_id: str,
    member: str,
    wanted: str,
    fallback: str,
    address: str,
    lobby: bool,
    full: bool,
) -> tuple[str, str, bool]:
    """Let a student in, or into the lobby: (state, name, flagged).

    A member the class knows comes back as they were (removed or turned away stay
    so); a new one is a member, or waits in the lobby when `lobby` (the host approves
    joins) or when someone the host removed joined from the same address (`flagged`);
    a new one who would be neither while the class is `full` gets the state "full",
    and nothing is stored. The name is `wanted` made unique (`free_name`).
    """
    fresh()
    with transaction.atomic():
        RoomRecord.objects.select_for_update().only("id").get(pk=room_id)
        row = Member.objects.filter(room_id=room_id, member=member).first()
        if row is not None and row.state in (Member.REMOVED, Member.TURNED_AWAY):
            return row.state, row.name, False
        name = free_name(room_id, member, wanted, fallback)
        if row is not None:
            if row.name != name:
                row.name = name
                row.save(update_fields=["name"])
            return row.state, name, False
        key = address_key(address)
        flagged = Member.objects.filter(
            room_id=room_id, state=Member.REMOVED, address=key
        ).exists()
        state = Member.WAITING if (lobby or flagged) else Member.MEMBER
        if full and state == Member.MEMBER:
            return "full", name, False
        Member.objects.create(
            room_id=room_id, member=member, name=name, state=state, address=key
        )
        return state, name, flagged


def claim_host(room_id: str, member: str, name: str) -> str:
    """Mark a member as a host of the class: their name (any, the words for host
    included) is reserved from now on; returns it, made unique among the hosts."""
    fresh()
    with transaction.atomic():
        RoomRecord.objects.select_for_update().only("id").get(pk=room_id)
        _, hosts = _taken_names(room_id, member)
        name = names.unique(name, hosts)
        Member.objects.update_or_create(
            room_id=room_id,
            member=member,
            defaults={"name": name, "host": True, "state": Member.MEMBER},
        )
        return name


def lobby(room_id: str) -> list[dict]:
    """Who waits in the class's lobby, first come first."""
    fresh()
    rows = Member.objects.filter(room_id=room_id, state=Member.WAITING).order_by("pk")
    removed = set(
        Member.objects.filter(room_id=room_id, state=Member.REMOVED).values_list(
            "address", flat=True
        )
    )
    return [
        {
            "id": row.member,
            "name": row.name,
            "since": row.joined_at.isoformat(),
            "flagged": row.address in removed,
        }
        for row in rows
    ]


def approve(room_id: str, members: list[str] | None) -> list[str]:
    """Let these waiting members in (None: everyone waiting); the ids let in."""
    fresh()
    with transaction.atomic():
        rows = Member.objects.select_for_update().filter(
            room_id=room_id, state=Member.WAITING
        )
        if members is not None:
            rows = rows.filter(member__in=members)
        ids = list(rows.values_list("member", flat=True))
        Member.objects.filter(room_id=room_id, member__in=ids).update(
            state=Member.MEMBER, approved=True
        )
        return ids


def turn_away(room_id: str, member: str) -> bool:
    """Refuse a waiting member for good (False: nobody by that id waits)."""
    fresh()
    return bool(
        Member.objects.filter(
            room_id=room_id, member=member, state=Member.WAITING
        ).update(state=Member.TURNED_AWAY)
    )


def leave_lobby(room_id: str, member: str) -> None:
    """A waiting member went away before the host answered: forget them."""
    fresh()
    Member.objects.filter(room_id=room_id, member=member, state=Member.WAITING).delete()


def set_door(room_id: str, size: int, approval: bool) -> int:
    """Store a class's size and whether joins wait for approval; returns the version
    (the later version wins)."""
    fresh()
    with transaction.atomic():
        record = RoomRecord.objects.select_for_update().get(pk=room_id)
        record.class_size, record.approval = size, approval
        record.door_version += 1
        record.save(update_fields=["class_size", "approval", "door_version"])
        return record.door_version


def clear_since(
    room_id: str, *, question: int | None = None, since=None
) -> tuple[list[str], dict[int, int]]:
    """Remove every member who joined after question `question` opened, or at or
    after the moment `since`, with their answers: the ids removed, and the answer
    count of each question they had answered, after. Hosts, and members the host let
    in from the lobby, stay. Their addresses go to the lobby, as a removal's do."""
    fresh()
    with transaction.atomic():
        RoomRecord.objects.select_for_update().only("id").get(pk=room_id)
        rows = Member.objects.filter(
            room_id=room_id, state=Member.MEMBER, host=False, approved=False
        )
        if question is not None:
            opened = Question.objects.get(room_id=room_id, number=question)
            rows = rows.filter(pk__gt=opened.members_before)
        else:
            rows = rows.filter(joined_at__gte=since)
        ids = list(rows.values_list("member", flat=True))
        if not ids:
            return [], {}
        Member.objects.filter(room_id=room_id, member__in=ids).update(
            state=Member.REMOVED
        )
        return ids, _delete_answers(room_id, ids)
