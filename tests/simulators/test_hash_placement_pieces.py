"""hash-placement's big loops, done in pieces (issue 29), give what one call gave.

Hashing, Redis slots, the key set's arrays and every count of keys by shard were single
calls into C over a million keys (up to 0.4 s holding the GIL); now they go a piece of
keys at a time (simulators/engine/pieces.py). Each is checked here against the single
call it replaced, written out as it was, on key counts around the piece size.
"""

from array import array
from binascii import crc_hqx
from collections import Counter
from itertools import repeat

import mmh3
import pytest

from simulators.airline import Airline
from simulators.engine.hashing import murmur, murmur_many
from simulators.engine.pieces import PIECE, SORT_AT_ONCE
from simulators.labs.hash_placement.hashing import (
    REDIS_SLOTS,
    redis_slot,
    redis_slots,
)
from simulators.labs.hash_placement.keyset import KeySet
from simulators.labs.hash_placement.placements import (
    ModPlacement,
    PartitionPlacement,
    moves_from_pairs,
)

COUNTS = (1, PIECE - 1, PIECE, PIECE + 1, 2 * PIECE + 7, SORT_AT_ONCE + 3)


def old_murmur_many(keys):
    if not "".join(keys).isascii():
        return map(murmur, keys)
    return map(mmh3.hash, keys, repeat(0), repeat(False))


def old_redis_slots(keys):
    if "{" in "".join(keys):
        return list(map(redis_slot, keys))
    return [plain_slot(key) for key in keys]


def plain_slot(key: str) -> int:
    return crc_hqx(key.encode("utf-8"), 0) % REDIS_SLOTS


@pytest.mark.parametrize("count", COUNTS)
def test_murmur_many_hashes_as_one_map_did(count):
    keys = Airline(1).keys("registration", count)
    assert list(murmur_many(keys)) == list(old_murmur_many(keys))
    # a key that is not ASCII in one piece only: that piece goes key by key
    mixed = [*keys, "Zürich-ü", *keys[:5]]
    assert list(murmur_many(mixed)) == list(old_murmur_many(mixed))
    assert list(murmur_many(mixed)) == [murmur(k) for k in mixed]


@pytest.mark.parametrize("count", COUNTS)
def test_redis_slots_as_one_pass_did(count):
    keys = Airline(1).keys("booking", count)
    assert redis_slots(keys) == old_redis_slots(keys)
    tagged = [*keys, "{user1000}.following", "a{}b", *keys[:3]]
    assert redis_slots(tagged) == old_redis_slots(tagged)
    assert redis_slots(tagged) == [redis_slot(k) for k in tagged]


@pytest.mark.parametrize("count", COUNTS)
def test_a_key_set_holds_what_one_call_made(count):
    airline = Airline(1)
    keys = KeySet(airline, "passenger", count)
    hashes = list(old_murmur_many(airline.keys("passenger", count)))
    assert keys.hashes == array("I", hashes)
    assert list(keys.sorted_hashes) == sorted(hashes)
    slots = old_redis_slots(airline.keys("passenger", count))
    assert keys.slots() == array("H", slots)
    counts = Counter(slots)
    assert keys.slot_counts() == [counts.get(s, 0) for s in range(REDIS_SLOTS)]


@pytest.mark.parametrize("count", COUNTS)
def test_mod_n_counts_and_moves_as_one_counter_did(count):
    keys = KeySet(Airline(2), "registration", count)
    four, five = ModPlacement(list("ABCD")), ModPlacement(list("ABCDE"))
    counts = Counter(map((4).__rmod__, keys.hashes))
    assert four.tally(keys) == {s: counts.get(i, 0) for i, s in enumerate("ABCD")}
    pairs = Counter(
        zip(map((4).__rmod__, keys.hashes), map((5).__rmod__, keys.hashes), strict=True)
    )
    named = Counter()
    for (old, new), n in pairs.items():
        named[("ABCD"[old], "ABCDE"[new])] += n
    assert four.moves_to(five, keys) == moves_from_pairs(named)


@pytest.mark.parametrize("count", COUNTS)
def test_partitions_look_up_and_move_as_one_call_did(count):
    keys = KeySet(Airline(3), "registration", count)
    slots = PartitionPlacement.dealt(REDIS_SLOTS, "crc16", list("ABC"))
    ranges = PartitionPlacement.dealt(256, "murmur3", list("ABC"))
    owners = list(map(slots.owners.__getitem__, keys.slots()))
    assert slots.key_owners(keys) == owners
    expected = moves_from_pairs(
        Counter(zip(ranges.key_owners(keys), owners, strict=True))
    )
    assert ranges.moves_to(slots, keys) == expected
