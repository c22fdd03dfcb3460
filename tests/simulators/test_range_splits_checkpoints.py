"""A range-splits checkpoint holds boundaries and counts, not the key space (issue 13).

Each slice keeps its keys as sorted runs that never change once made, and a run big
enough is a part that checkpoints share: a checkpoint refers to the runs, so it stays
small however many keys the lab holds and however many clicks wrote them, and a later
checkpoint shares the earlier runs. A lab restored from one takes the very same runs
back (nothing is sorted or copied, so a seek costs the same at 1,000 keys as at
100,000) and goes on exactly as the lab it was taken from.
"""

from playground.checkpoints import Parts, closure
from simulators.labs import LABS
from simulators.labs.range_splits.table import MAX_MERGE, SHARE_AT, SharedRun

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
    slices = sum(len(table.slices) for table in lab.tables.values())
    assert len(keys) < 4 * slices  # a few runs a slice, not a part per click
    for _ in range(500):  # many small clicks: the references stay as few
        lab.apply("write", {"kind": "uniform", "count": 2, "rate": 10})
    data, later = parts.dumps(lab)
    slices = sum(len(table.slices) for table in lab.tables.values())
    assert len(data) < BOUND and len(later) < 4 * slices
    # what the later checkpoint adds to a room that stored the first: the new keys'
    # runs (1,000 keys, merged into the runs they joined), never the 90,000 again
    first = closure([parts.objects[k] for k in keys], lambda key: False)
    new = closure([parts.objects[k] for k in later], first.__contains__)
    assert sum(map(len, first.values())) > 1_000_000
    # (the chunks of slices those keys changed, with their neighbours' keys of the
    # last window written, at most twice max_writes a slice: 318 KB of 3.9 MB)
    assert sum(map(len, new.values())) < 400 * 1024


def test_a_slice_keeps_a_few_runs_however_many_clicks_wrote_to_it():
    lab = LABS["range-splits"](seed=2)
    for _ in range(2_000):  # the load table's one slice takes every click's keys
        lab.apply("write", {"kind": "uniform", "count": 3, "rate": 10})
    (piece,) = lab.tables["load"].slices.values()
    assert piece.size > 5_000
    sizes = [len(run.keys) for run in piece.runs]
    # runs merge as they fill, up to MAX_MERGE keys: a few full runs and about
    # log2(MAX_MERGE) smaller ones, never a run per click, never one merge of them all
    assert len(sizes) <= piece.size // (MAX_MERGE // 2) + 13, sizes
    assert max(sizes) <= MAX_MERGE
    assert sum(sizes) == piece.size
    assert list(piece.keys) == sorted(set(piece.keys))


def test_a_restore_takes_the_same_runs_back_and_sorts_nothing():
    lab = written(3)
    parts = Parts()
    again = parts.loads(parts.dumps(lab)[0])
    shared = copied = 0
    for policy, table in lab.tables.items():
        for piece, twin in zip(
            table.slices.values(), again.tables[policy].slices.values(), strict=True
        ):
            for run, run_again in zip(piece.runs, twin.runs, strict=True):
                if isinstance(run, SharedRun):
                    assert run_again is run  # the part itself: not copied, not sorted
                    shared += len(run.keys)
                else:
                    assert len(run.keys) < SHARE_AT
                    copied += len(run.keys)
    assert shared > 150_000 and copied < 10_000, (shared, copied)


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
