"""Properties of hash-placement over random labs and random action sequences.

Hypothesis prints the falsifying configuration, seed included, that reproduces it.
"""

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from simulators.airline import KEY_KINDS
from simulators.engine import ActionError

PROPERTY = settings(
    max_examples=50,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
SHARD_LETTERS = "ABCDEFGHIJKL"

configs = st.fixed_dictionaries(
    {
        "seed": st.integers(0, 2**53 - 1),
        "shards": st.integers(1, 12),
        "vnodes": st.integers(1, 256),
        "partitions": st.sampled_from((16, 256, 1024, 16384)),
        "key_kind": st.sampled_from(KEY_KINDS),
        "key_count": st.integers(1, 2500),
    }
)


def _action(name, **args):
    return name, args


actions = st.one_of(
    st.just(("add_shard", {})),
    st.builds(
        lambda shard: _action("remove_shard", shard=shard),
        st.sampled_from([*SHARD_LETTERS, "Z", "", "AB", "abc"]),
    ),
    st.builds(lambda n: _action("set_shards", count=n), st.integers(-1, 14)),
    st.builds(lambda n: _action("set_vnodes", vnodes=n), st.integers(-1, 260)),
    st.builds(
        lambda p: _action("set_partitions", partitions=p),
        st.sampled_from([16, 256, 1024, 16384, 17, "1024", 1024.0]),
    ),
    st.builds(
        lambda kind, n: _action("load_keys", kind=kind, count=n),
        st.sampled_from([*KEY_KINDS, "aircraft"]),
        st.integers(-1, 2500) | st.just(10**12),
    ),
    st.builds(lambda key: _action("lookup", key=key), st.text(max_size=70)),
    st.builds(
        lambda key, share: _action("mark_hot", key=key, share_percent=share),
        st.text(max_size=70),
        st.integers(0, 100) | st.booleans(),
    ),
    st.just(("clear_hot", {})),
    st.tuples(
        st.text(max_size=12),
        st.dictionaries(st.text(max_size=8), st.integers() | st.text(max_size=4)),
    ),
)


def schemes(lab, name: str) -> dict:
    return lab.metrics()["schemes"][name]


@PROPERTY
@given(config=configs)
def test_every_key_sits_on_exactly_one_current_shard_under_every_scheme(
    new_lab, check_invariants, config
):
    lab = new_lab(**config)
    check_invariants(lab)


@PROPERTY
@given(config=configs, data=st.data())
def test_removing_a_shard_moves_only_its_keys(new_lab, check_invariants, config, data):
    config["shards"] = max(config["shards"], 2)
    lab = new_lab(**config)
    shard = data.draw(st.sampled_from(lab.snapshot()["shards"]), label="shard")
    before = {s: schemes(lab, s)["per_shard"] for s in ("partitions", "ring")}
    events = lab.apply("remove_shard", {"shard": shard})
    for scheme, held in before.items():
        after = schemes(lab, scheme)
        assert after["moved"] == held[shard]
        assert after["sent"] == ({shard: held[shard]} if held[shard] else {})
        for survivor, count in after["per_shard"].items():
            assert count >= held[survivor], "a survivor lost keys"
        (moves,) = [e for e in events if e.get("scheme") == scheme]
        assert all(old == shard for _, old, _ in moves["sample_moves"])
    check_invariants(lab)


@PROPERTY
@given(config=configs)
def test_adding_a_shard_moves_keys_only_onto_the_new_shard(
    new_lab, check_invariants, config
):
    config["shards"] = min(config["shards"], 11)
    lab = new_lab(**config)
    before = {s: schemes(lab, s)["per_shard"] for s in ("partitions", "ring")}
    events = lab.apply("add_shard", {})
    new = events[0]["shard"]
    assert new not in before["ring"]
    for scheme, held in before.items():
        after = schemes(lab, scheme)
        assert set(after["received"]) <= {new}
        assert after["per_shard"][new] == after["moved"]
        for old, count in held.items():
            assert after["per_shard"][old] <= count, "an old shard gained keys"
        (moves,) = [e for e in events if e.get("scheme") == scheme]
        assert all(fresh == new for _, _, fresh in moves["sample_moves"])
    check_invariants(lab)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(config=configs, steps=st.lists(actions, min_size=1, max_size=8))
def test_random_actions_keep_the_invariants_and_refusals_change_nothing(
    new_lab, check_invariants, config, steps
):
    config["key_count"] = min(config["key_count"], 1500)
    lab = new_lab(**config)
    for name, args in steps:
        before = lab.digest()
        try:
            lab.apply(name, args)
        except ActionError as refusal:
            assert refusal.code and refusal.message
            assert lab.digest() == before, f"refused {name} {args} changed the lab"
            continue
        check_invariants(lab)
