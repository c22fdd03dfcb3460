"""`manage.py prune_rooms`: delete stored rooms nobody will come back to.

Every page view stores a private room, so a busy site grows by thousands of rooms a day.
A private room nobody opened for `--days` days (PLAYGROUND_ROOM_KEEP_DAYS, 30 by
default) is deleted with its log; so is a class that ended that long ago, with its log,
questions, answers and members. `make run` runs this at start; a deployment runs it
daily (cron, a systemd timer).
"""

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from playground import store


class Command(BaseCommand):
    help = "Delete private rooms nobody opened, and classes that ended, long ago."

    def add_arguments(self, parser) -> None:
        parser.add_argument(
            "--days",
            type=int,
            default=settings.PLAYGROUND_ROOM_KEEP_DAYS,
            help="keep what was opened (or a class that ended) within this many days",
        )

    def handle(self, *args, days: int, **options) -> None:
        if days < 0:
            raise CommandError("--days must be 0 or more")
        deleted = store.prune(days)
        self.stdout.write(
            f"Deleted {deleted['private']} private rooms not opened for {days} days "
            f"and {deleted['class']} classes that ended {days} days ago."
        )
