"""dynamodb-cost, still coming: its place in the course, title and promise."""

from simulators.engine.i18n import gettext_noop as _
from simulators.labs.manifest import ComingLab

MANIFEST = ComingLab(
    slug="dynamodb-cost",
    chapter=4,
    order=3,
    title=_("The bill is computable before the request"),
    promise=_("Price a Query against a Scan in read units before sending either."),
)
