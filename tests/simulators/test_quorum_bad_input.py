"""Bad input to the quorum lab: each refused with a code, the digest left as it was."""

import pytest

from simulators.engine import ActionError
from simulators.labs.quorum import QuorumLab

WRITE = {"w": "default", "coordinator": "auto"}
LADDER = {"node": "A", "ladder": "0,-1,-5,-20,-100,-1000", "count": 100}
NINE_RUNGS = "0,-1,-2,-3,-4,-5,-6,-7,-8"
REFUSED = [
    ("set_levels", {"w": 4, "r": 2}, "level_too_high"),
    ("set_levels", {"w": 2, "r": 5}, "level_too_high"),
    ("set_levels", {"w": 0, "r": 2}, "bad_choice"),
    ("set_levels", {"w": 2, "r": -1}, "bad_choice"),
    ("set_levels", {"w": "2", "r": 2}, "bad_choice"),
    ("set_levels", {"w": "default", "r": 2}, "bad_choice"),
    ("set_levels", {"w": "MAJORITY", "r": 2}, "bad_choice"),
    ("set_levels", {"w": 2}, "missing_argument"),
    ("write", {"w": 4, "coordinator": "auto"}, "level_too_high"),
    ("write", {"w": 0, "coordinator": "auto"}, "bad_choice"),
    ("read", {"r": 5, "coordinator": "auto"}, "level_too_high"),
    ("read", {"r": True, "coordinator": "auto"}, "bad_choice"),
    ("write", {"w": "default", "coordinator": "Z"}, "no_such_node"),
    ("write", {"w": "default", "coordinator": "D"}, "no_such_node"),
    ("write", {"w": "default", "coordinator": ""}, "empty"),
    ("read", {"r": "default", "coordinator": "C"}, "node_stopped"),
    ("write", {**WRITE, "value": 3}, "unknown_argument"),
    ("cut_link", {"link": "A-D"}, "no_such_link"),
    ("cut_link", {"link": "A-A"}, "no_such_link"),
    ("cut_link", {"link": "AB"}, "no_such_link"),
    ("cut_link", {"link": "A-B-C"}, "no_such_link"),
    ("cut_link", {"link": "B-C"}, "already_cut"),
    ("heal_link", {"link": "A-B"}, "not_cut"),
    ("heal_link", {"link": "X-Y"}, "no_such_link"),
    ("stop_node", {"node": "C"}, "already_stopped"),
    ("stop_node", {"node": "E"}, "no_such_node"),
    ("stop_node", {"node": "a"}, "no_such_node"),
    ("restart_node", {"node": "A"}, "not_stopped"),
    ("restart_node", {"node": "Q"}, "no_such_node"),
    ("split", {"group": "A,B,C"}, "empty_group"),
    ("split", {"group": " , ,"}, "empty_group"),
    ("split", {"group": ""}, "empty"),
    ("split", {"group": "A,Q"}, "no_such_node"),
    ("set_skew", {"node": "A", "skew_ms": 5_001}, "out_of_range"),
    ("set_skew", {"node": "A", "skew_ms": -5_001}, "out_of_range"),
    ("set_skew", {"node": "A", "skew_ms": 10**12}, "out_of_range"),
    ("set_skew", {"node": "A", "skew_ms": 1.5}, "bad_type"),
    ("set_skew", {"node": "F", "skew_ms": 10}, "no_such_node"),
    ("set_copies", {"copies": 4}, "bad_choice"),
    ("set_copies", {"copies": 1}, "bad_choice"),
    ("set_read_repair", {"on": "yes"}, "bad_type"),
    ("run_trials", {"count": 10**9}, "bad_choice"),
    ("run_trials", {"count": 0}, "bad_choice"),
    ("skew_ladder", {**LADDER, "ladder": NINE_RUNGS}, "ladder_too_long"),
    ("skew_ladder", {**LADDER, "ladder": "0,-5001"}, "out_of_range"),
    ("skew_ladder", {**LADDER, "ladder": "6000"}, "out_of_range"),
    ("skew_ladder", {**LADDER, "ladder": "-99999999999"}, "out_of_range"),
    ("skew_ladder", {**LADDER, "ladder": "--5"}, "bad_ladder"),
    ("skew_ladder", {**LADDER, "ladder": "0,abc"}, "bad_ladder"),
    ("skew_ladder", {**LADDER, "ladder": "-1.5"}, "bad_ladder"),
    ("skew_ladder", {**LADDER, "ladder": "0,-1,0"}, "ladder_repeats"),
    ("skew_ladder", {**LADDER, "ladder": " , ,"}, "empty"),
    ("skew_ladder", {**LADDER, "ladder": ""}, "empty"),
    ("skew_ladder", {**LADDER, "ladder": "0," * 41}, "too_long"),
    ("skew_ladder", {**LADDER, "ladder": -1}, "bad_type"),
    ("skew_ladder", {**LADDER, "count": 5_000}, "bad_choice"),
    ("skew_ladder", {**LADDER, "node": "C"}, "node_stopped"),
    ("skew_ladder", {**LADDER, "node": "E"}, "no_such_node"),
    ("skew_ladder", {"node": "A", "ladder": "0,-1"}, "missing_argument"),
    ("replay_trial", {"index": 0}, "no_trials"),
    ("replay_trial", {"index": -1}, "out_of_range"),
    ("advance", {"ms": 0}, "out_of_range"),
    ("no_such_action", {}, "unknown_action"),
]


def prepared_lab() -> QuorumLab:
    """A lab with a fault of each kind, some history and messages in flight."""
    lab = QuorumLab(seed=3)
    lab.apply("cut_link", {"link": "B-C"})
    lab.apply("write", WRITE)
    lab.apply("advance", {"ms": 500})
    lab.apply("stop_node", {"node": "C"})
    lab.apply("read", {"r": "ONE", "coordinator": "A"})
    lab.apply("advance", {"ms": 20})  # leave messages in flight
    return lab


@pytest.mark.parametrize("name,args,code", REFUSED)
def test_bad_input_is_refused_with_a_code_and_changes_nothing(name, args, code):
    lab = prepared_lab()
    before = lab.digest()
    with pytest.raises(ActionError) as refused:
        lab.apply(name, args)
    assert refused.value.code == code
    assert refused.value.message  # a sentence a person can read
    assert lab.digest() == before
    # and the lab still works afterwards
    lab.apply("advance", {"ms": 1_000})
    lab.apply("write", WRITE)


def test_stopping_the_last_running_node_is_refused():
    lab = QuorumLab(seed=1)
    lab.apply("stop_node", {"node": "A"})
    lab.apply("stop_node", {"node": "B"})
    before = lab.digest()
    with pytest.raises(ActionError) as refused:
        lab.apply("stop_node", {"node": "C"})
    assert refused.value.code == "last_node"
    assert "last one running" in refused.value.message
    assert lab.digest() == before


def test_replaying_a_trial_beyond_the_last_count_is_refused():
    lab = QuorumLab(seed=1)
    lab.apply("run_trials", {"count": 100})
    before = lab.digest()
    with pytest.raises(ActionError) as refused:
        lab.apply("replay_trial", {"index": 100})
    assert refused.value.code == "no_such_trial"
    assert "0 to 99" in refused.value.message
    assert lab.digest() == before


def test_levels_given_as_numbers_larger_than_the_new_n_become_n():
    lab = QuorumLab(seed=1, copies=5)
    lab.apply("set_levels", {"w": 5, "r": "ONE"})
    events = lab.apply("set_copies", {"copies": 3})
    assert events[0] == {"type": "copies_set", "copies": 3, "clamped": ["w"]}
    assert lab.snapshot()["levels"]["w"] == 3
    assert [r["node"] for r in lab.snapshot()["replicas"]] == ["A", "B", "C"]


def test_step_with_nothing_scheduled_is_refused():
    lab = QuorumLab(seed=1)
    before = lab.digest()
    with pytest.raises(ActionError) as refused:
        lab.apply("step", {})
    assert refused.value.code == "nothing_scheduled"
    assert lab.digest() == before


@pytest.mark.parametrize(
    "ladder,code",
    [(NINE_RUNGS, "ladder_too_long"), ("0,-5001", "out_of_range")],
)
def test_a_bad_ladder_is_refused_before_it_is_replayed_too(ladder, code):
    """The cost model reads the ladder (a link is costed before it is played): the
    same refusal, and the lab's state and skew ladder stay as they were."""
    lab = QuorumLab(seed=2)
    lab.apply("skew_ladder", {**LADDER, "ladder": "0,-100"})
    before, shown = lab.digest(), lab.snapshot()["skew_ladder"]
    with pytest.raises(ActionError) as costed:
        lab.cost_model(QuorumLab).cost_of("skew_ladder", {**LADDER, "ladder": ladder})
    with pytest.raises(ActionError) as refused:
        lab.apply("skew_ladder", {**LADDER, "ladder": ladder})
    assert costed.value.code == refused.value.code == code
    assert "8" in refused.value.message or "5,000" in refused.value.message
    assert lab.digest() == before and lab.snapshot()["skew_ladder"] == shown
