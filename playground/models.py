"""What outlives a process: every room and its ordered action log.

A room is a lab, a seed and a log. The log is the room's state: any process rebuilds
the lab by replaying it, so nothing else about a lab is stored. The database assigns the
order of the log: `(room, seq)` is unique, and a process appends only while it holds
the room's row lock (PostgreSQL `SELECT ... FOR UPDATE`; SQLite takes its write lock
when the transaction begins), so two processes never number two actions alike.
"""

from django.db import models


class RoomRecord(models.Model):
    """A room: private (one learner, one embed) or a class (a host and students)."""

    PRIVATE, CLASS = "private", "class"
    HOST_DRIVES, EVERYONE_DRIVES, STUDENT_DRIVES = "host", "everyone", "student"

    id = models.CharField(primary_key=True, max_length=40)
    lab = models.CharField(max_length=64)
    seed = models.BigIntegerField()
    kind = models.CharField(max_length=16, default=PRIVATE)
    # classes only: the code students type, and a hash of the host's secret
    join_code = models.CharField(max_length=12, unique=True, null=True, blank=True)
    host_secret_hash = models.CharField(max_length=64, blank=True, default="")
    mode = models.CharField(max_length=16, default=HOST_DRIVES)
    driver = models.CharField(max_length=40, blank=True, default="")
    driver_name = models.CharField(max_length=60, blank=True, default="")
    control_version = models.PositiveIntegerField(default=0)
    # classes only: the tour step the host is running for everyone ("" when none),
    # with a version that only grows, like the control mode's
    tour_step = models.CharField(max_length=40, blank=True, default="")
    tour_version = models.PositiveIntegerField(default=0)
    # a private branch remembers the class it came from, and the member who made it
    parent = models.CharField(max_length=40, blank=True, default="")
    creator = models.CharField(max_length=40, blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)
    # when a socket last opened it: stored rooms nobody opens for long are pruned
    opened_at = models.DateTimeField(null=True, blank=True)
    # classes end for good at this moment: no code, id or secret lets anyone in, and
    # nothing more is done in them
    closes_at = models.DateTimeField(null=True, blank=True)
    # classes only: who may join (playground/rooms/classes.py): the most members present
    # at once (0: the setting PLAYGROUND_CLASS_SIZE), whether new members wait in the
    # lobby for the host's approval, and a version that only grows, like the mode's
    class_size = models.PositiveIntegerField(default=0)
    approval = models.BooleanField(default=False)
    door_version = models.PositiveIntegerField(default=0)

    class Meta:
        indexes = [
            models.Index(fields=["lab", "kind"]),
            models.Index(fields=["parent", "creator"]),
            models.Index(fields=["kind", "opened_at"]),
        ]

    def __str__(self) -> str:
        return f"{self.kind} room {self.id} ({self.lab})"


class LogRecord(models.Model):
    """One applied action of a room, at its sequence number."""

    room = models.ForeignKey(RoomRecord, on_delete=models.CASCADE, related_name="log")
    seq = models.PositiveIntegerField()
    name = models.CharField(max_length=64)
    args = models.JSONField(default=dict)
    actor = models.CharField(max_length=40, blank=True, default="")
    # the acting client's reference, echoed in the frame by every process
    ref = models.CharField(max_length=32, blank=True, default="")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["room", "seq"], name="one_entry_per_seq")
        ]
        ordering = ["room", "seq"]

    def __str__(self) -> str:
        return f"{self.room_id}#{self.seq} {self.name}"


class Question(models.Model):
    """ "Predict, then run": a question the host asks a class."""

    CHOICE, NUMBER = "choice", "number"

    room = models.ForeignKey(
        RoomRecord, on_delete=models.CASCADE, related_name="questions"
    )
    number = models.PositiveIntegerField()
    text = models.CharField(max_length=300)
    kind = models.CharField(max_length=16, default=CHOICE)
    choices = models.JSONField(default=list)
    asked_at_seq = models.PositiveIntegerField(default=0)
    revealed = models.BooleanField(default=False)
    # who may answer: the members in the class when it opened (more may be approved)
    voters = models.JSONField(default=list)
    # the last Member row (its id) when it opened: "joined since the question opened"
    members_before = models.PositiveBigIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["room", "number"], name="one_question_per_number"
            )
        ]


class Answer(models.Model):
    """One student's answer; answering again replaces it."""

    question = models.ForeignKey(
        Question, on_delete=models.CASCADE, related_name="answers"
    )
    member = models.CharField(max_length=40)
    value = models.JSONField()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["question", "member"], name="one_answer_per_member"
            )
        ]


class Member(models.Model):
    """Someone who joined a class (or waits in its lobby): the host sees them and may
    approve, turn away or remove them."""

    MEMBER, WAITING, REMOVED, TURNED_AWAY = (
        "member",
        "waiting",
        "removed",
        "turned_away",
    )

    room = models.ForeignKey(
        RoomRecord, on_delete=models.CASCADE, related_name="people"
    )
    member = models.CharField(max_length=40)
    name = models.CharField(max_length=60, blank=True, default="")
    joined_at = models.DateTimeField(auto_now_add=True)
    # "member"; "waiting" in the lobby for the host; "removed" by the host (their
    # answers are gone, this id cannot come back, and new members from their address
    # wait in the lobby); "turned_away" from the lobby (this id cannot come back)
    state = models.CharField(max_length=16, default=MEMBER)
    # claimed the host's role (their name is reserved; a flood clear keeps them)
    host = models.BooleanField(default=False)
    # let in by the host from the lobby: may answer a question already open
    approved = models.BooleanField(default=False)
    # a keyed hash of the address they joined from, never the address itself
    address = models.CharField(max_length=64, blank=True, default="")

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["room", "member"], name="one_row_per_member"
            )
        ]
        indexes = [models.Index(fields=["room", "state"])]


class CheckpointRecord(models.Model):
    """The lab as it was after one logged action, pickled with its parts as keys.

    Taken every `STORED_CHECKPOINT_WORK` units of declared work (playground/history.py),
    so loading a room replays only what came after the last one, and a seek after a
    load only what came after the one before it (`data`, zlib-compressed, is read when
    first needed). A cache of the log: a missing or unreadable checkpoint only means
    more replay.
    """

    room = models.ForeignKey(
        RoomRecord, on_delete=models.CASCADE, related_name="checkpoints"
    )
    # the log entry whose action made this state (its branch is the one through it)
    seq = models.PositiveIntegerField()
    # the simulators' code it was made by (playground/checkpoints.py, `code_version`):
    # a checkpoint of other code is not read
    code = models.CharField(max_length=32)
    data = models.BinaryField()
    parts = models.BinaryField()  # the keys of the parts it refers to, concatenated

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["room", "seq"], name="one_checkpoint_per_seq"
            )
        ]


class CheckpointPart(models.Model):
    """A part checkpoints share (a sealed block of a ledger, a key set), by its key."""

    room = models.ForeignKey(
        RoomRecord, on_delete=models.CASCADE, related_name="checkpoint_parts"
    )
    key = models.BinaryField(max_length=16)
    data = models.BinaryField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["room", "key"], name="one_part_per_key")
        ]
