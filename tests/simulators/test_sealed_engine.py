"""The engine's boundary with the labs: what a lab gets by default, and nothing of the
engine's reached around (docs/architecture.md, "A lab")."""

from simulators.engine import Lab, digest_of
from simulators.labs import LABS


class Counter(Lab):
    """A lab whose snapshot says nothing of the one number it shows."""

    slug = "counter"

    def __init__(self, seed: int = 0, **options) -> None:
        super().__init__(seed, **options)
        self.count = 0

    def snapshot(self) -> dict:
        return {"shape": "square"}

    def metrics(self) -> dict:
        return {"count": self.count}


def test_the_digest_covers_the_snapshot_and_the_metrics_by_default():
    lab = Counter()
    assert lab.state() == {"snapshot": {"shape": "square"}, "metrics": {"count": 0}}
    before = lab.digest()
    lab.count = 1
    assert lab.digest() != before
    assert lab.digest() == digest_of(lab.state())


def test_every_lab_digest_covers_its_metrics():
    """A lab that overrides `state` keeps the snapshot and the metrics in it."""
    for slug, lab_class in LABS.items():
        lab = lab_class(seed=3)
        state = lab.state()
        assert state["snapshot"] == lab.snapshot(), slug
        assert state["metrics"] == lab.metrics(), slug
