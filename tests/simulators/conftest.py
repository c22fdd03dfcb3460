"""Shared pieces of the simulator tests: making labs and checking their invariants.

The helpers are handed out as session fixtures (plain functions underneath), so tests
and hypothesis properties can use them without importing this file.
"""

import pytest

from simulators.engine import canonical_json
from simulators.engine.hashing import murmur
from simulators.labs import LABS
from simulators.labs.hash_placement.hashing import redis_slot

SCHEMES = ("mod", "partitions", "ring")


def make_lab(seed: int = 1, **options):
    """A hash-placement lab with `options` (lab defaults otherwise)."""
    return LABS["hash-placement"](seed=seed, **options)


def partition_owners(lab) -> list[str]:
    """The partition table, one owner per partition, read from the snapshot's runs."""
    described = lab.snapshot()["schemes"]["partitions"]
    owners = []
    for start, end, owner in described["runs"]:
        assert start == len(owners), "runs must tile the partitions in order"
        owners.extend([owner] * (end - start))
    assert len(owners) == described["count"]
    return owners


def assert_invariants(lab) -> None:
    """Every key on exactly one current shard, and moves that add up, per scheme."""
    snapshot, metrics = lab.snapshot(), lab.metrics()
    shards, total = snapshot["shards"], snapshot["keys"]["count"]
    assert shards == sorted(shards) and len(set(shards)) == len(shards)
    assert metrics["total_keys"] == total
    for scheme in SCHEMES:
        numbers = metrics["schemes"][scheme]
        per_shard = numbers["per_shard"]
        assert list(per_shard) == shards, scheme
        assert sum(per_shard.values()) == total, scheme
        assert min(per_shard.values()) >= 0
        moved, sent, received = numbers["moved"], numbers["sent"], numbers["received"]
        assert sum(sent.values()) == sum(received.values()) == moved, scheme
        assert 0 <= moved <= total
        assert numbers["moved_fraction"] == (round(moved / total, 4) if total else 0)
        assert set(received) <= set(shards), scheme
        assert abs(sum(numbers["request_share"].values()) - 100) <= 0.05 * len(shards)
    for key in snapshot["sample"]:
        assert key["hash"] == murmur(key["key"])
        assert key["slot"] == redis_slot(key["key"])
        assert set(key["where"]) == set(SCHEMES)
        assert all(shard in shards for shard in key["where"].values()), key
    canonical_json(lab.state())


@pytest.fixture(scope="session")
def new_lab():
    """Make a hash-placement lab: `new_lab(seed=1, **options)`."""
    return make_lab


@pytest.fixture(scope="session")
def check_invariants():
    """Assert the placement invariants of a lab: `check_invariants(lab)`."""
    return assert_invariants


@pytest.fixture(scope="session")
def owners_of_partitions():
    """The partition table of a lab, one owner per partition."""
    return partition_owners
