"""The database side of rooms: create, load, append under the room's lock, branch.

Everything here is synchronous Django ORM code; rooms call it from a worker thread
(`asyncio.to_thread`), never on the event loop.
"""

import hashlib
import hmac
import json
import secrets
from collections.abc import Iterable
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import IntegrityError, close_old_connections, connection, transaction
from django.db.models.functions import Coalesce
from django.utils import timezone

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
    fresh()
    with transaction.atomic():
        CheckpointPart.objects.bulk_create(
            (
                CheckpointPart(room_id=room_id, key=key, data=part)
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
                    data=data,
                    parts=b"".join(keys),
                )
            ],
            ignore_conflicts=True,
        )


def load_checkpoints(
    room_id: str,
) -> tuple[dict[int, tuple[bytes, tuple[bytes, ...]]], dict[bytes, bytes]]:
    """The room's stored checkpoints this code can read, by seq (each with the keys
    of its parts), and every stored part, by key."""
    fresh()
    rows = CheckpointRecord.objects.filter(room_id=room_id, code=code_version())
    checkpoints = {}
    for seq, data, keys in rows.values_list("seq", "data", "parts"):
        keys = bytes(keys)
        checkpoints[seq] = (
            bytes(data),
            tuple(keys[i : i + KEY_BYTES] for i in range(0, len(keys), KEY_BYTES)),
        )
    parts = {}
    if checkpoints:
        stored = CheckpointPart.objects.filter(room_id=room_id)
        for key, data in stored.values_list("key", "data"):
            parts[bytes(key)] = bytes(data)
    return checkpoints, parts


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


def ask(room_id: str, text: str, kind: str, choices: list, at_seq: int) -> Question:
    """Store the host's next question."""
    fresh()
    with transaction.atomic():
        RoomRecord.objects.select_for_update().get(pk=room_id)
        last = Question.objects.filter(room_id=room_id).order_by("-number").first()
        return Question.objects.create(
            room_id=room_id,
            number=(last.number + 1) if last else 1,
            text=text,
            kind=kind,
            choices=choices,
            asked_at_seq=at_seq,
        )


def answer(room_id: str, number: int, member: str, value) -> int | None:
    """Store (or replace) one member's answer; how many have answered (None: the
    host removed this member, and nothing was stored)."""
    fresh()
    with transaction.atomic():
        if Member.objects.filter(room_id=room_id, member=member, removed=True).exists():
            return None
        question = Question.objects.get(room_id=room_id, number=number)
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


class Appender:
    """Append one action to a room's log while holding the room's row lock.

    Used as a context manager around applying the action to this process's replica:
    entering locks the room and reads, into `missed`, the entries other processes
    appended since `seq` (apply them first); `insert` writes the new entry; leaving
    commits, or rolls back if the block raised (a refused action leaves the log as it
    was).
    """

    def __init__(self, room_id: str, seq: int) -> None:
        self.room_id = room_id
        self.seq = seq
        self.missed: list[Entry] = []
        self._atomic = transaction.atomic()

    def __enter__(self) -> "Appender":
        fresh()
        self._atomic.__enter__()
        try:
            RoomRecord.objects.select_for_update().only("id").get(pk=self.room_id)
            self.missed = entries_after(self.room_id, self.seq)
            return self
        except BaseException as error:
            self._atomic.__exit__(type(error), error, error.__traceback__)
            raise

    def insert(self, entry: Entry) -> None:
        LogRecord.objects.create(
            room_id=self.room_id,
            seq=entry.seq,
            name=entry.name,
            args=entry.args,
            actor=entry.actor,
            ref=entry.ref,
        )

    def __exit__(self, kind, error, traceback) -> bool:
        return bool(self._atomic.__exit__(kind, error, traceback))


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
    """ "new", "known" or "removed": whether this member joined the class before."""
    fresh()
    row = Member.objects.filter(room_id=room_id, member=member).first()
    if row is None:
        return "new"
    return "removed" if row.removed else "known"


def add_member(room_id: str, member: str, name: str) -> None:
    """Record a member who joined a class (a second join changes nothing)."""
    fresh()
    Member.objects.get_or_create(
        room_id=room_id, member=member, defaults={"name": name[:60]}
    )


def remove_member(room_id: str, member: str) -> dict[int, int] | None:
    """Mark a member removed and delete their answers; the answer count of each
    question they had answered, after (None: nobody by that id joined the class)."""
    fresh()
    with transaction.atomic():
        if not Member.objects.filter(room_id=room_id, member=member).update(
            removed=True
        ):
            return None
        answered = list(
            Answer.objects.filter(question__room_id=room_id, member=member).values_list(
                "question__number", flat=True
            )
        )
        Answer.objects.filter(question__room_id=room_id, member=member).delete()
        return {
            number: Answer.objects.filter(
                question__room_id=room_id, question__number=number
            ).count()
            for number in answered
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
