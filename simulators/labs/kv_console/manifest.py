"""kv-console, still coming: its place in the course, title and promise."""

from simulators.engine.i18n import gettext_noop as _
from simulators.labs.manifest import ComingLab

MANIFEST = ComingLab(
    slug="kv-console",
    chapter=3,
    order=3,
    title=_("A Redis-like store you can type into"),
    promise=_("Type GET, SET, INCR and MULTI, count the round trips, then crash it."),
)
