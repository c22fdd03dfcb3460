"""range-splits' declared replay costs follow what an action can do (issue 13).

A size threshold as high as the last one set, or higher, splits nothing: the model
declares a pass over the slices, not over the keys. It must never declare that for
a click that then splits: checked against the lab itself over random histories.
"""

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from simulators.engine import ActionError
from simulators.labs import LABS
from simulators.labs.range_splits.cost import (
    PER_KEY,
    PER_SECOND,
    PER_WRITE,
    RangeSplitsCost,
)

LAB = LABS["range-splits"]
SPEC = {spec.name: spec for spec in LAB.actions}

clicks = st.lists(
    st.one_of(
        st.tuples(
            st.just("write"),
            st.fixed_dictionaries(
                {
                    "kind": st.sampled_from(["uniform", "timestamps", "skewed"]),
                    "count": st.integers(1, 600),
                    "rate": st.sampled_from([10, 1_000, 9_000]),
                }
            ),
        ),
        st.tuples(
            st.just("set_thresholds"),
            st.fixed_dictionaries(
                {"max_keys": st.integers(100, 900), "max_writes": st.just(2_500)}
            ),
        ),
        st.tuples(st.just("add_shard"), st.just({})),
    ),
    max_size=25,
)


def test_a_threshold_declares_a_pass_over_the_keys_unless_it_rises():
    model = RangeSplitsCost(LAB)
    spec = SPEC["set_thresholds"]
    model.charge(SPEC["write"], {"kind": "uniform", "count": 5_000, "rate": 10})
    first = model.charge(spec, {"max_keys": 800, "max_writes": 2_500})
    assert first == spec.cost + 5_000 * PER_KEY  # the lab's options are not known
    assert model.charge(spec, {"max_keys": 900, "max_writes": 2_500}) == spec.cost
    assert model.charge(spec, {"max_keys": 900, "max_writes": 100}) == spec.cost
    lower = model.charge(spec, {"max_keys": 899, "max_writes": 2_500})
    assert lower == spec.cost + 5_000 * PER_KEY
    write = model.charge(SPEC["write"], {"kind": "uniform", "count": 2, "rate": 10})
    assert write == SPEC["write"].cost + 2 * PER_WRITE + PER_SECOND  # within a second
    slow = model.charge(SPEC["write"], {"kind": "uniform", "count": 60, "rate": 1})
    assert slow == SPEC["write"].cost + 60 * PER_WRITE + 60 * PER_SECOND


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 50), history=clicks)
def test_a_click_declared_not_to_split_never_splits(seed, history):
    lab = LAB(seed=seed)
    model = RangeSplitsCost(LAB)
    for name, args in history:
        declared = model.charge(SPEC[name], args)
        try:
            events = lab.apply(name, args)
        except ActionError:  # a refused click (a ninth shard) changes nothing
            continue
        if name == "set_thresholds" and declared == SPEC[name].cost:
            assert not [e for e in events if e["type"] == "slice_split"], args
        if name == "set_thresholds":  # no slice is left above it (unless full)
            size = lab.tables["size"]
            assert size.full or all(p.size <= args["max_keys"] for p in size.pieces)
