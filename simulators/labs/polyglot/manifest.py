"""polyglot, still coming: its place in the course, title and promise."""

from simulators.engine.i18n import gettext_noop as _
from simulators.labs.manifest import ComingLab

MANIFEST = ComingLab(
    slug="polyglot",
    chapter=6,
    order=1,
    title=_("The booking page and its copies"),
    promise=_(
        "Follow one request across three databases and see availability multiply down."
    ),
)
