"""partition-cap keeps its operations in a ledger (issue 11).

A checkpoint stays as small after 8,000 actions as after 1,000 (the settled
operations are shared blocks, not part of it); a lab restored from one goes on exactly
like a replay from scratch, and never changes the blocks it shares; an operation is
settled only once nothing can change it again.
"""

import random

from playground.checkpoints import Parts
from simulators.engine.canonical import canonical_json
from simulators.engine.declaration import ActionError
from simulators.labs.partition_cap import PartitionCapLab

SEED = 11


def script(rng: random.Random, every: bool = False, resets: bool = False):
    """An endless seeded stream of (action, args): the seek benchmark's mix
    (benchmarks/seek.py), or with `every` the other actions too, resets if asked."""
    while True:
        server = rng.choice("ABC")
        if resets and rng.random() < 0.0008:
            yield ("reset", {"servers": 3})
        elif every and rng.random() < 0.5:
            yield rng.choice(
                [
                    ("board", {"node": server, "mode": "majority"}),
                    ("cut_link", {"link": rng.choice(["A-B", "A-C", "B-C"])}),
                    ("heal_link", {"link": rng.choice(["A-B", "A-C", "B-C"])}),
                    ("stop_node", {"node": server}),
                    ("restart_node", {"node": server}),
                    ("set_skew", {"node": server, "skew_ms": rng.randint(-400, 400)}),
                    ("set_conflict_rule", {"rule": rng.choice(["lww", "app"])}),
                    ("step", {}),
                    ("advance", {"ms": rng.randint(300, 1500)}),
                ]
            )
        else:
            yield rng.choice(
                [
                    (
                        "book",
                        {
                            "server": server,
                            "passenger": rng.choice(["P0000001", "P0000002"]),
                            "mode": rng.choice(["majority", "anyway"]),
                        },
                    ),
                    ("board", {"node": server, "mode": "anyway"}),
                    ("advance", {"ms": rng.randint(10, 200)}),
                    ("split", {"group": rng.choice("ABC")}),
                    ("heal_all", {}),
                ]
            )


def play(lab: PartitionCapLab, stream, count: int, each=None) -> list[tuple]:
    """Apply `count` accepted actions of `stream` (refused ones are skipped)."""
    done: list[tuple] = []
    while len(done) < count:
        name, args = next(stream)
        try:
            lab.apply(name, args)
        except ActionError:
            continue
        done.append((name, args))
        if each is not None:
            each(len(done))
    return done


def replay(actions: list[tuple]) -> PartitionCapLab:
    lab = PartitionCapLab(seed=SEED)
    for name, args in actions:
        lab.apply(name, args)
    return lab


def test_a_checkpoint_is_as_small_after_8000_actions_as_after_1000():
    lab = PartitionCapLab(seed=SEED)
    sizes: dict[int, int] = {}

    def measure(done: int) -> None:
        # the open tail of the ledger fills and empties as blocks are sealed: sizes
        # are compared over windows of 500 actions (about 200 operations)
        if done % 10 == 0 and (500 <= done <= 1000 or 7500 <= done <= 8000):
            sizes[done] = len(Parts().dumps(lab)[0])

    play(lab, script(random.Random(SEED)), 8000, measure)
    early = [size for done, size in sizes.items() if done <= 1000]
    late = [size for done, size in sizes.items() if done >= 7500]
    assert len(lab.ops) > 3000  # a long past: it would be ~270 KB as a plain pickle
    assert lab.ops.settled > len(lab.ops) - 64
    assert max(late) <= 1.3 * max(early), (max(early), max(late))
    assert sizes[8000] <= max(early)


def test_a_restored_lab_goes_on_like_a_replay_and_leaves_the_shared_blocks_alone():
    actions = play(PartitionCapLab(seed=SEED), script(random.Random(5), True), 5000)
    first, later = actions[:3000], actions[3000:]
    original = replay(first)
    settled = original.ops.settled
    assert settled > 256
    sealed = [canonical_json(op) for op in original.ops[:settled]]
    before = original.digest()

    parts = Parts()
    data, keys = parts.dumps(original)
    assert keys  # the sealed operations are shared, not in the checkpoint
    restored = parts.loads(data)
    assert restored.digest() == before
    assert restored.ops[0] is original.ops[0]  # the very same blocks

    for name, args in later:
        restored.apply(name, args)
    assert restored.digest() == replay(first + later).digest()
    # the original, whose blocks the restored lab shares, did not move
    assert original.digest() == before
    assert [canonical_json(op) for op in original.ops[:settled]] == sealed
    again = parts.loads(parts.dumps(restored)[0])
    assert again.digest() == restored.digest()

    for name, args in later:
        original.apply(name, args)
    assert original.digest() == restored.digest()


def test_only_operations_nothing_can_change_are_settled_and_they_never_change():
    lab = PartitionCapLab(seed=3)
    ledger, seen = lab.ops, []  # seen: each settled operation as it was settled

    def check(done: int) -> None:
        nonlocal ledger, seen
        if lab.ops is not ledger:  # a reset: a new ledger
            assert [canonical_json(op) for op in ledger[: len(seen)]] == seen
            ledger, seen = lab.ops, []
        settled = ledger.settled
        assert settled >= len(seen)
        newly = ledger[len(seen) : settled]
        assert all(op["result"] != "pending" for op in newly)
        # settled as soon as they can be: the next one is still pending
        assert settled == len(ledger) or ledger[settled]["result"] == "pending"
        seen.extend(canonical_json(op) for op in newly)
        if done % 500 == 0:
            assert [canonical_json(op) for op in ledger[: len(seen)]] == seen
            ops = list(ledger)
            metrics = lab.metrics()
            assert metrics["confirmed"] == sum(o["result"] == "booked" for o in ops)
            assert metrics["refused"] == sum(o["result"] == "refused" for o in ops)
            assert metrics["operations"] == len(ops)

    stream = script(random.Random(3), every=True, resets=True)
    play(lab, stream, 4000, check)
    assert [canonical_json(op) for op in ledger[: len(seen)]] == seen
