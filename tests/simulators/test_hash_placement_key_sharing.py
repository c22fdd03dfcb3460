"""hash-placement's key set in memory (issue 29): arrays of 4-byte hashes, and one key
set for every lab of a process with the same keys, which changes nothing a lab shows."""

import gc
import pickle
from array import array

from simulators.labs.hash_placement import keyset
from simulators.labs.hash_placement.keyset import KeySet
from simulators.labs.hash_placement.lab import HashPlacementLab


def test_fresh_labs_on_one_seed_share_one_key_set():
    first, second = HashPlacementLab(seed=0), HashPlacementLab(seed=0)
    assert first.keys is second.keys
    assert (
        HashPlacementLab(seed=1).keys is not first.keys
    )  # booking keys differ by seed
    assert isinstance(first.keys.hashes, array)
    assert isinstance(first.keys.sorted_hashes, array)
    assert first.keys.sorted_hashes.itemsize == 4
    assert list(first.keys.sorted_hashes) == sorted(first.keys.hashes)


def test_loading_the_same_keys_shares_them_and_changes_nothing_another_lab_sees():
    first, second = HashPlacementLab(seed=3), HashPlacementLab(seed=3)
    before = second.digest()
    first.apply("load_keys", {"kind": "passenger", "count": 5_000})
    assert second.digest() == before
    second.apply("load_keys", {"kind": "passenger", "count": 5_000})
    assert first.keys is second.keys
    first.apply("add_shard", {})
    second.apply("add_shard", {})
    assert first.digest() == second.digest()
    # the same as a lab whose key set was made for it alone
    alone = HashPlacementLab(seed=3)
    alone.keys = KeySet(alone.airline, "passenger", 5_000)
    alone.apply("add_shard", {})
    assert alone.digest() == first.digest()


def test_a_shared_key_set_pickles_as_one_of_its_own():
    lab = HashPlacementLab(seed=0)
    own = KeySet(lab.airline, lab.keys.kind, lab.keys.count)
    assert pickle.dumps(own) == pickle.dumps(lab.keys)
    restored = pickle.loads(pickle.dumps(lab.keys))
    assert restored.sorted_hashes == lab.keys.sorted_hashes


def test_a_key_set_no_lab_holds_leaves_memory():
    lab = HashPlacementLab(seed=9_999)
    key = (9_999, lab.keys.kind, lab.keys.count)
    assert key in keyset._made
    del lab
    gc.collect()
    assert key not in keyset._made
