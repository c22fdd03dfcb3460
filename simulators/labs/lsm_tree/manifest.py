"""lsm-tree, still coming: its place in the course, title and promise."""

from simulators.engine.i18n import gettext_noop as _
from simulators.labs.manifest import ComingLab

MANIFEST = ComingLab(
    slug="lsm-tree",
    chapter=4,
    order=2,
    title=_("The wide-column write path"),
    promise=_(
        "Follow a write through memtable, flush and compaction, and read "
        "through the tombstones."
    ),
)
