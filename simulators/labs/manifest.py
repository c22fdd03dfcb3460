"""What the site knows of a lab, declared once, beside the lab (issue 30).

Every lab folder in `simulators/labs/` has a `manifest.py` whose `MANIFEST` is one of:

- `LabManifest`, for a built lab: its simulator class, its place in the course, its
  title and promise (marked for translation), the size an embed proposes, the primary
  action the stage tests click, the actions the browser sweeps press, a short example
  script (the determinism checks replay it in other processes), a seeded stream of
  typical actions (the seek benchmark builds long histories from it), the replay-cost
  cases the benchmark times, the states at which its actions are heaviest (the GIL
  probe drives them), how its declared costs are measured (`CostPlan`), and the paths
  of its renderer module, narrative template and stylesheet (by convention, from the
  slug);
- `ComingLab`, for a lab the course promises but that is not built yet: its place, its
  title and its promise, nothing else (the catalogue shows it as coming).

`simulators.labs` finds the manifests (`Registry`): the catalogue, the lab pages, the
embeds and oEmbed, the tests' sweeps and the benchmarks read them there, and no other
list of labs is kept. Building a coming lab is replacing its `ComingLab` by a
`LabManifest` in its own folder. docs/architecture.md, "Adding a lab".
"""

import random
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

Action = tuple[str, dict]
# (what, the actions before, the actions timed): benchmarks/replay_costs.py
CostCase = tuple[str, tuple[Action, ...], tuple[Action, ...]]

EMBED_WIDTH = 800  # a docs column
EMBED_HEIGHT = 720  # the stage, "Just now" and the first quick action at 800 wide
EMBED_SHORT_HEIGHT = 520  # with the controls hidden, or read-only (which has none)


@dataclass(frozen=True)
class CostPlan:
    """How tests/simulators/test_measured_costs.py draws a lab's histories, as data.

    The test makes hypothesis strategies of it: int, choice and bool parameters are
    drawn from the lab's declaration itself; a text parameter from `samples`, by
    "action.param" (that action's) or by "param" (every action's of that name): a
    few values each, valid ones and invalid ones (too long, unknown, empty). The
    `heaviest` histories (the declared maxima and their combinations) always run,
    whole. A drawn history has at most `length` actions and stops before the action
    that would take its declared work past `budget`; `examples` histories are drawn.
    """

    samples: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    heaviest: tuple[tuple[Action, ...], ...] = ()
    examples: int = 6
    length: int = 5
    budget: int = 1_500_000


@dataclass(frozen=True)
class ComingLab:
    """A lab of the course still being built: listed, not opened."""

    slug: str
    chapter: int  # the chapter's number (playground/catalogue.py names it)
    order: int  # its place in the chapter, from 1
    title: str
    promise: str

    built = False


@dataclass(frozen=True)
class LabManifest:
    """A built lab, as everything around its simulator needs to know it."""

    lab: type  # the simulator (a simulators.engine.Lab subclass)
    chapter: int
    order: int
    title: str
    promise: str
    # the quick bar's action a student clicks first (tests/browser/test_lab_sweep.py)
    primary: str
    # the actions the browser sweeps press, each with its form's defaults, so the
    # page's narration, tables and charts fill in before they are checked
    sweep: tuple[str, ...]
    # a short script that touches what the lab has of time, messages, faults and
    # randomness: replayed in other processes to the same digest
    example: tuple[Action, ...]
    # one typical action drawn with `rng`: an endless seeded stream (benchmarks/seek.py)
    random_action: Callable[[random.Random], Action]
    # what benchmarks/replay_costs.py times against the declared costs
    cost_cases: tuple[CostCase, ...] = ()
    # the states at which the lab's actions are heaviest, each heavy action at its
    # declared maxima (a lab with none: its dearest action), as (what, the actions
    # before, the actions timed): benchmarks/gil_holds.py drives them
    heavy_cases: tuple[CostCase, ...] = ()
    # actions whose declared cost can reach the heavy lane's units but that no state a
    # case can play makes heavy: action → why (benchmarks/gil_holds.py)
    never_heavy: Mapping[str, str] = field(default_factory=dict)
    # how tests/simulators/test_measured_costs.py measures its declared costs
    cost_plan: CostPlan | None = None
    # True when the example sends messages over the simulated network
    network: bool = False
    embed_width: int = EMBED_WIDTH
    embed_height: int = EMBED_HEIGHT
    # by convention from the slug when left empty
    renderer: str = ""  # a static path: js/labs/<slug>.js
    narrative: str = ""  # a template: labs/narratives/<slug>.html
    stylesheet: str = ""  # a static path: css/labs/<slug>.css

    built = True

    def __post_init__(self) -> None:
        slug = self.lab.slug
        defaults = {
            "renderer": f"js/labs/{slug}.js",
            "narrative": f"labs/narratives/{slug}.html",
            "stylesheet": f"css/labs/{slug}.css",
        }
        for name, value in defaults.items():
            if not getattr(self, name):
                object.__setattr__(self, name, value)

    @property
    def slug(self) -> str:
        return self.lab.slug

    @property
    def tour(self) -> tuple:
        return self.lab.tour

    @property
    def folder(self) -> Path:
        """The lab's folder (simulators/labs/<slug with underscores>/, in whichever
        root it was found)."""
        package = ".".join(self.lab.__module__.split(".")[:3])
        return Path(sys.modules[package].__path__[0])
