"""modeling-techniques, still coming: its place in the course, title and promise."""

from simulators.engine.i18n import gettext_noop as _
from simulators.labs.manifest import ComingLab

MANIFEST = ComingLab(
    slug="modeling-techniques",
    chapter=4,
    order=4,
    title=_("The classic NoSQL modelling patterns"),
    promise=_(
        "Composite keys, index tables, geohashes and inverted indexes on "
        "an ordered key-value store."
    ),
)
