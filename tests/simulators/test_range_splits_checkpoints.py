"""A range-splits checkpoint holds boundaries and counts, not the key space (issue 13).

Every key written is kept once, in a ledger sealed into shared blocks as it grows:
checkpoints refer to the blocks, so a checkpoint stays small however many keys the lab
holds and however many clicks wrote them, and a later checkpoint shares the earlier
blocks. A lab restored from one sorts the keys
back into its tables and goes on exactly as the lab it was taken from.
"""

from playground.checkpoints import Parts, closure
from simulators.labs import LABS

BOUND = 200 * 1024  # bytes: the current second's writes at most, and the boundaries


def written(seed=1):
    lab = LABS["range-splits"](seed=seed)
    for kind in ("uniform", "timestamps", "skewed"):
        lab.apply("write", {"kind": kind, "count": 30_000, "rate": 5_000})
    return lab


def test_a_checkpoint_of_90000_keys_is_small_and_refers_to_the_blocks():
    lab = written()
    parts = Parts()
    data, keys = parts.dumps(lab)
    assert len(data) < BOUND, len(data)
    assert len(keys) < 3 * 64  # a few levels of blocks, not a block per 64 keys
    for _ in range(500):  # many small clicks: the references stay as few
        lab.apply("write", {"kind": "uniform", "count": 2, "rate": 10})
    data, later = parts.dumps(lab)
    assert len(data) < BOUND and len(later) < 3 * 64
    # what the later checkpoint adds to a room that stored the first: the new keys'
    # blocks (1,000 keys), never the 90,000 again
    first = closure([parts.objects[k] for k in keys], lambda key: False)
    new = closure([parts.objects[k] for k in later], first.__contains__)
    assert sum(map(len, first.values())) > 1_000_000
    assert sum(map(len, new.values())) < 64 * 1024


def test_a_restored_lab_goes_on_exactly_as_the_one_it_was_taken_from():
    lab = written(4)
    parts = Parts()
    again = parts.loads(parts.dumps(lab)[0])
    assert again.digest() == lab.digest()
    for name, args in [
        ("write", {"kind": "skewed", "count": 5_000, "rate": 5_000}),
        ("range_query", {"low": "N1", "high": "N2"}),
        ("add_shard", {}),
        ("set_thresholds", {"max_keys": 300, "max_writes": 900}),
        ("split_now", {"policy": "load", "slice": 0}),
        ("write", {"kind": "timestamps", "count": 3_000, "rate": 9_000}),
    ]:
        assert again.apply(name, args) == lab.apply(name, args), name
        assert again.digest() == lab.digest(), name
    for table in again.tables.values():
        table.check()
