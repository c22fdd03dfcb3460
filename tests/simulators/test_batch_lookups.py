"""Batch lookups and batch hashing give exactly what the one-key versions give."""

import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simulators.engine.hashing import murmur, murmur_many
from simulators.labs.hash_placement.hashing import redis_slot, redis_slots
from simulators.labs.hash_placement.placements import (
    ModPlacement,
    PartitionPlacement,
    RingPlacement,
)
from simulators.labs.hash_placement.steps import StepLookup

TOP = 2**32 - 1
REPO = Path(__file__).resolve().parents[2]
FAST = settings(max_examples=50, deadline=None)

hashes = st.lists(st.integers(0, TOP), max_size=200)
shard_sets = st.lists(
    st.sampled_from("ABCDEFGHIJKL"), min_size=1, max_size=12, unique=True
).map(sorted)


def around(points) -> list[int]:
    """Each point and its neighbours, plus both ends of the hash range."""
    candidates = {0, TOP}
    for p in points:
        candidates.update({p - 1, p, p + 1})
    return sorted(h for h in candidates if 0 <= h <= TOP)


def one_by_one(placement, key_hashes, slots=None):
    slots = slots or [0] * len(key_hashes)
    return [placement.shard_for(h, s) for h, s in zip(key_hashes, slots, strict=True)]


@FAST
@given(shards=shard_sets, vnodes=st.integers(1, 256), extra=hashes)
def test_a_ring_looks_up_many_hashes_as_it_looks_up_one(shards, vnodes, extra):
    ring = RingPlacement(shards, vnodes)
    probe = around(ring.positions) + extra
    assert ring.shard_for_many(probe) == one_by_one(ring, probe)


@FAST
@given(
    shards=shard_sets,
    count=st.sampled_from((16, 256, 1024, 1000, 3, 65536, 100_000)),
    extra=hashes,
)
def test_murmur_partitions_look_up_many_hashes_as_they_look_up_one(
    shards, count, extra
):
    table = PartitionPlacement.dealt(count, "murmur3", shards)
    starts = [-(-p * 2**32 // count) for p in range(0, count, max(1, count // 500))]
    probe = around(starts) + extra
    assert table.shard_for_many(probe) == one_by_one(table, probe)


@FAST
@given(shards=shard_sets, slots=st.lists(st.integers(0, 16383), max_size=200))
def test_redis_slot_partitions_look_up_many_slots_as_they_look_up_one(shards, slots):
    table = PartitionPlacement.dealt(16384, "crc16", shards)
    assert table.shard_for_many([0] * len(slots), slots) == one_by_one(
        table, [0] * len(slots), slots
    )


def test_redis_slot_partitions_need_the_slots():
    table = PartitionPlacement.dealt(16384, "crc16", ["A", "B"])
    with pytest.raises(ValueError):
        table.shard_for_many([1, 2, 3])


@FAST
@given(shards=shard_sets, extra=hashes)
def test_mod_n_looks_up_many_hashes_as_it_looks_up_one(shards, extra):
    mod = ModPlacement(shards)
    probe = [0, 1, TOP, *extra]
    assert mod.shard_for_many(probe) == one_by_one(mod, probe)


@FAST
@given(
    edges=st.lists(
        st.integers(0, 2**32 + 5)
        | st.integers(0, 2**16).map(lambda b: b << 16)  # edges on bucket starts
        | st.integers(0, 2**10).map(lambda b: b << 22)
        | st.sampled_from([0, 1, 65535, 65536, 65537, TOP, 2**32]),
        max_size=60,
    ).map(sorted),
    data=st.data(),
    extra=hashes,
)
def test_a_step_lookup_matches_a_plain_search_whatever_the_edges(edges, data, extra):
    owners = data.draw(
        st.lists(
            st.sampled_from("ABC"), min_size=len(edges) + 1, max_size=len(edges) + 1
        )
    )
    steps = StepLookup(edges, owners)
    probe = around([e for e in edges if e <= TOP]) + extra

    def expected(h):
        return owners[sum(1 for e in edges if e <= h)]

    assert steps.owners_of(probe) == [expected(h) for h in probe]
    assert 2**10 <= len(steps.buckets) == 2 ** (32 - steps.shift) <= 2**16


def test_a_step_lookup_needs_one_more_owner_than_edges():
    with pytest.raises(ValueError):
        StepLookup([5, 10], ["A", "B"])


@FAST
@given(st.lists(st.text(max_size=30), max_size=50))
def test_hashing_many_keys_is_hashing_each_key(keys):
    assert list(murmur_many(keys)) == [murmur(k) for k in keys]
    assert redis_slots(keys) == [redis_slot(k) for k in keys]


def test_hashing_many_ascii_keys_without_a_tag_takes_the_fast_path_correctly():
    keys = [f"N{i}" for i in range(10_000)]
    assert list(murmur_many(keys)) == [murmur(k) for k in keys]
    assert redis_slots(keys) == [redis_slot(k) for k in keys]


def test_text_that_is_not_valid_unicode_is_refused_not_a_crash():
    # mmh3 5.3 dies with SIGSEGV on a str holding a lone surrogate; ours must raise
    script = (
        "from simulators.engine.hashing import murmur, murmur_many\n"
        "from simulators.labs.hash_placement.hashing import redis_slot, redis_slots\n"
        "many = lambda keys: list(murmur_many(keys))\n"
        "for f, arg in [(murmur, '\\ud800'), (many, ['N1', 'a\\udfff']),"
        " (redis_slot, '\\ud800'), (redis_slots, ['\\ud800'])]:\n"
        "    try:\n"
        "        f(arg)\n"
        "    except UnicodeEncodeError:\n"
        "        print('refused')\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["refused"] * 4
