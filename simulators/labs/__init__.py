"""Every lab of the course, found from the manifests of its folders.

Each package in this folder is a lab: its `manifest.py` declares `MANIFEST`, a
`LabManifest` (built) or a `ComingLab` (simulators/labs/manifest.py). Nothing else lists
the labs: `REGISTRY` finds them once, in course order (chapter, then place), and
`LABS` maps the slug of each built lab to its simulator class (`BUILT`: the classes
alone).

A package on another entry of this package's `__path__` is found too: the folders
`simulators/labs` of the roots named in the environment's `PLAYGROUND_LAB_ROOTS`
(os.pathsep between them; playground/settings.py serves their static files, templates
and translations too), or one added before `REGISTRY.refresh()`.
tests/server/test_adding_a_lab.py builds a scratch lab in such a root.
"""

import importlib
import os
import pkgutil
from pathlib import Path

from simulators.labs.manifest import ComingLab, CostPlan, LabManifest

Manifest = LabManifest | ComingLab


class RegistryError(Exception):
    """A lab folder whose manifest is missing, of the wrong kind, or a duplicate."""


class Registry:
    """The manifests of every lab folder, in course order; `refresh()` finds them
    again (the dicts and lists it holds are updated in place)."""

    def __init__(self) -> None:
        self.manifests: dict[str, Manifest] = {}  # slug: manifest, course order
        self.labs: dict[str, type] = {}  # slug: simulator class, built labs only
        self.built: list[LabManifest] = []
        self.classes: list[type] = []  # the built labs' simulator classes, in order
        self.coming: list[ComingLab] = []
        self.refresh()

    def refresh(self) -> None:
        found = sorted(_discover(), key=lambda m: (m.chapter, m.order, m.slug))
        by_slug: dict[str, Manifest] = {}
        for manifest in found:
            if manifest.slug in by_slug:
                raise RegistryError(f"two lab folders declare {manifest.slug!r}")
            by_slug[manifest.slug] = manifest
        self.manifests.clear()
        self.manifests.update(by_slug)
        self.built[:] = [m for m in found if isinstance(m, LabManifest)]
        self.coming[:] = [m for m in found if isinstance(m, ComingLab)]
        self.classes[:] = [m.lab for m in self.built]
        self.labs.clear()
        self.labs.update((m.slug, m.lab) for m in self.built)

    def __getitem__(self, slug: str) -> Manifest:
        return self.manifests[slug]

    def get(self, slug: str) -> Manifest | None:
        return self.manifests.get(slug)

    def first_coming(self) -> ComingLab | None:
        """A lab still coming, for whatever needs one (None when all are built)."""
        return self.coming[0] if self.coming else None


def _discover() -> list[Manifest]:
    """The MANIFEST of every package in this folder (and on its `__path__`)."""
    found = []
    for module in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if not module.ispkg:
            continue
        name = f"{__name__}.{module.name}.manifest"
        try:
            loaded = importlib.import_module(name)
        except ModuleNotFoundError as error:
            if error.name == name:
                raise RegistryError(
                    f"simulators/labs/{module.name}/ has no manifest.py"
                ) from None
            raise
        manifest = getattr(loaded, "MANIFEST", None)
        if not isinstance(manifest, LabManifest | ComingLab):
            raise RegistryError(f"{name}.MANIFEST must be a LabManifest or a ComingLab")
        found.append(manifest)
    return found


for _root in filter(None, os.environ.get("PLAYGROUND_LAB_ROOTS", "").split(os.pathsep)):
    __path__.append(str(Path(_root) / "simulators" / "labs"))

REGISTRY = Registry()
LABS = REGISTRY.labs
BUILT = REGISTRY.classes  # the built labs' classes in the course's order

__all__ = [
    "BUILT",
    "LABS",
    "REGISTRY",
    "ComingLab",
    "CostPlan",
    "LabManifest",
    "Registry",
]
