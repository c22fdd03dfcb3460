"""hash-placement: what the site, the sweeps and the benchmarks know of it."""

import random

from simulators.engine.i18n import gettext_noop as _
from simulators.labs.hash_placement.lab import HashPlacementLab
from simulators.labs.manifest import CostPlan, LabManifest

MILLION = ("load_keys", {"kind": "registration", "count": 1_000_000})

# a short script: replayed in other processes to the same digest
EXAMPLE = (
    ("add_shard", {}),
    ("mark_hot", {"key": "N12345", "share_percent": 35}),
    ("remove_shard", {"shard": "B"}),
    ("set_vnodes", {"vnodes": 100}),
    ("load_keys", {"kind": "booking", "count": 7000}),
    ("set_shards", {"count": 9}),
    ("set_partitions", {"partitions": 256}),
    ("lookup", {"key": "Zürich{N12345}"}),
)


def random_action(rng: random.Random):
    """One typical action, drawn with `rng` (benchmarks/seek.py's long histories)."""
    return rng.choice(
        [
            ("lookup", {"key": f"N{rng.randint(10000, 99999)}"}),
            ("add_shard", {}),
            ("remove_shard", {"shard": rng.choice("ABCDEFGHIJKL")}),
            ("set_vnodes", {"vnodes": rng.randint(1, 256)}),
            (
                "mark_hot",
                {"key": "N12345", "share_percent": rng.randint(1, 99)},
            ),
        ]
    )


# (what, the actions before, the actions timed): benchmarks/replay_costs.py
COST_CASES = (
    ("make the lab (10,000 keys)", [], []),
    ("load a million keys", [], [MILLION]),
    ("add a shard, 1M keys", [MILLION], [("add_shard", {})]),
    ("remove a shard, 1M keys", [MILLION], [("remove_shard", {"shard": "D"})]),
    ("set 12 shards, 1M keys", [MILLION], [("set_shards", {"count": 12})]),
    ("256 virtual nodes, 1M keys", [MILLION], [("set_vnodes", {"vnodes": 256})]),
    (
        "16,384 CRC16 slots, 1M keys",
        [MILLION],
        [("set_partitions", {"partitions": 16_384})],
    ),
    ("256 partitions, 1M keys", [MILLION], [("set_partitions", {"partitions": 256})]),
    ("look a key up", [], [("lookup", {"key": "N12345"})]),
)

# the states at which its actions are heaviest: benchmarks/gil_holds.py
HEAVY_CASES = (
    ("load a million keys", [], [MILLION]),
    (
        "load a million booking ids",
        [],
        [("load_keys", {"kind": "booking", "count": 1_000_000})],
    ),
    ("add a shard, 1M keys", [MILLION], [("add_shard", {})]),
    ("remove a shard, 1M keys", [MILLION], [("remove_shard", {"shard": "D"})]),
    ("12 shards, 1M keys", [MILLION], [("set_shards", {"count": 12})]),
    ("256 virtual nodes, 1M keys", [MILLION], [("set_vnodes", {"vnodes": 256})]),
    (
        "16,384 CRC16 slots, 1M keys",
        [MILLION],
        [("set_partitions", {"partitions": 16_384})],
    ),
    ("256 partitions, 1M keys", [MILLION], [("set_partitions", {"partitions": 256})]),
    (
        "add a shard, 1M keys in 16,384 slots",
        [MILLION, ("set_partitions", {"partitions": 16_384})],
        [("add_shard", {})],
    ),
)

# how tests/simulators/test_measured_costs.py measures its declared costs
COST_PLAN = CostPlan(
    samples={
        "remove_shard.shard": ("A", "B", "C", "D", "E", "L", "Z", ""),
        "key": (
            "N12345",
            "x" * 64,
            "B1",
            "Zürich{N12345}",
            "{N12345}",
            "{",
            "a{}b",
            " ",
            "\x00",
            "é" * 64,
            "\U0001f600" * 64,
            "x" * 65,
            "",
        ),
    },
    heaviest=(
        (
            ("set_partitions", {"partitions": 16_384}),
            MILLION,
            ("set_vnodes", {"vnodes": 256}),
            ("set_shards", {"count": 12}),
            ("remove_shard", {"shard": "A"}),
            ("set_partitions", {"partitions": 1_024}),
            ("set_partitions", {"partitions": 16_384}),
        ),
    ),
    examples=6,
    length=4,
    budget=1_000_000,
)

MANIFEST = LabManifest(
    lab=HashPlacementLab,
    chapter=1,
    order=1,
    title=_("Hash rings and moving keys"),
    promise=_(
        "Add a fifth shard and watch mod N move most keys while partitions "
        "and a ring move a fifth."
    ),
    primary="add_shard",
    sweep=("add_shard", "lookup"),
    example=EXAMPLE,
    random_action=random_action,
    cost_cases=COST_CASES,
    heavy_cases=HEAVY_CASES,
    cost_plan=COST_PLAN,
)
