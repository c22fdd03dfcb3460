"""The heat chart's columns: sealed blocks read back as the plain dicts they were.

Against the plainest model (a dict of columns, each placement's counts per shard, a
new shard counted 0 everywhere, old columns deleted), over random writes, new shards
and forgetting; and a checkpoint shares the sealed blocks instead of copying them.
"""

from hypothesis import given, settings
from hypothesis import strategies as st

from playground.checkpoints import Parts
from simulators.labs.range_splits.heat import BLOCK, Heat, HeatBlock

PLACEMENTS = ("size", "load", "hash")
NAMES = "ABCDEFGH"

steps = st.lists(
    st.one_of(
        st.tuples(st.just("write"), st.integers(0, 40), st.integers(0, 2)),
        st.tuples(st.just("shard"), st.none(), st.none()),
        # the lab forgets only columns before the one being written
        st.tuples(st.just("forget"), st.integers(1, 30), st.none()),
    ),
    max_size=120,
)


@settings(max_examples=150, deadline=None)
@given(steps=steps)
def test_sealed_columns_read_back_as_the_plain_dicts(steps):
    heat, plain = Heat(PLACEMENTS), {}
    shards = ["A", "B"]
    now, cut = 0, -1  # columns only move forward, as stream time does
    for op, number, which in steps:
        if op == "write":
            now += number
            if now not in plain:
                plain[now] = {p: dict.fromkeys(shards, 0) for p in PLACEMENTS}
            shard = shards[now % len(shards)]
            heat.column(now, shards)[PLACEMENTS[which]][shard] += 1
            plain[now][PLACEMENTS[which]][shard] += 1
        elif op == "shard" and len(shards) < len(NAMES):
            shards.append(NAMES[len(shards)])
            heat.add_shard(shards[-1])
            for column in plain.values():
                for counts in column.values():
                    counts.setdefault(shards[-1], 0)
        elif op == "forget":
            cut = max(cut, now - number)
            heat.forget(cut)
            plain = {n: c for n, c in plain.items() if n > cut}
        assert list(heat.columns(cut, shards)) == sorted(plain.items())
    assert len(heat.open) <= BLOCK  # the older columns are sealed


def test_a_checkpoint_shares_the_sealed_blocks():
    heat = Heat(PLACEMENTS)
    for number in range(10 * BLOCK):
        heat.column(number, ["A", "B", "C"])["size"]["A"] += number
    assert len(heat.sealed) == 9 and all(isinstance(b, HeatBlock) for b in heat.sealed)
    parts = Parts()
    data, keys = parts.dumps(heat)
    assert len(keys) == 9
    again = parts.loads(data)
    assert again.sealed[0] is heat.sealed[0]
    assert list(again.columns(-1, ["A", "B", "C"])) == list(
        heat.columns(-1, ["A", "B", "C"])
    )
