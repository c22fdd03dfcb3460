"""document-modeling, still coming: its place in the course, title and promise."""

from simulators.engine.i18n import gettext_noop as _
from simulators.labs.manifest import ComingLab

MANIFEST = ComingLab(
    slug="document-modeling",
    chapter=4,
    order=1,
    title=_("Embed or reference"),
    promise=_("Change one flight's time and count the writes each model needs."),
)
