"""A sloppy quorum: M nodes on a ring, N owners, stand-ins whose acks count toward W,
and the read of the owners that misses an acknowledged write until the handoff."""

import pytest

from simulators.engine import ActionError
from simulators.engine.history import check_linearizable
from simulators.labs.quorum import QuorumLab, histories

SEEDS = range(8)
W2 = {"w": 2, "coordinator": "C"}
R2 = {"r": 2, "coordinator": "A"}


def ring_lab(seed: int, *, sloppy: bool) -> QuorumLab:
    """Five nodes, three copies (owners A, B, C); A and B cut off from C, D and E."""
    lab = QuorumLab(seed=seed)
    lab.apply("set_nodes", {"nodes": 5})
    lab.apply("set_sloppy", {"on": sloppy})
    lab.apply("split", {"group": "A,B"})
    return lab


def last(lab: QuorumLab) -> dict:
    return lab.snapshot()["history"][-1]


def test_the_ring_puts_the_owners_first_on_the_preference_list():
    lab = QuorumLab(seed=1)
    events = lab.apply("set_nodes", {"nodes": 5})
    ring = {"nodes": 5, "preference": list("ABCDE"), "owners": list("ABC")}
    assert events == [{"type": "nodes_set", **ring, "sloppy": False}]
    snap = lab.snapshot()
    assert snap["ring"] == {**ring, "sloppy": False}
    assert snap["nodes"] == list("ABCDE") and snap["copies"] == 3
    assert [c["node"] for c in snap["replicas"]] == list("ABC")
    assert snap["ring_nodes"] == 5 and snap["sloppy"] is False


def test_by_default_every_node_is_an_owner_and_the_quorum_is_strict():
    snap = QuorumLab(seed=1).snapshot()
    assert snap["ring"] == {
        "nodes": 3,
        "preference": list("ABC"),
        "owners": list("ABC"),
        "sloppy": False,
    }
    assert snap["sloppy"] is False


@pytest.mark.parametrize("seed", SEEDS)
def test_a_strict_quorum_fails_the_write_when_the_owners_are_cut_off(seed):
    lab = ring_lab(seed, sloppy=False)
    lab.apply("write", W2)
    lab.apply("advance", {"ms": 600})
    write = last(lab)
    assert write["status"] == "failed" and write["confirmed"] == ["C"]
    assert write["stand_ins"] == {}
    # D and E never hold it: the coordinator keeps the hints for A and B
    hints = lab.snapshot()["hints"]
    held = {(h["holder"], h["target"], h["stand_in"]) for h in hints}
    assert held == {("C", "A", False), ("C", "B", False)}


@pytest.mark.parametrize("seed", SEEDS)
def test_a_sloppy_quorum_acknowledges_it_on_stand_ins_and_the_owners_miss_it(seed):
    lab = ring_lab(seed, sloppy=True)
    lab.apply("write", W2)
    lab.apply("advance", {"ms": 600})
    write = last(lab)
    assert write["status"] == "ok"
    assert write["stand_ins"] == {"A": "D", "B": "E"}
    assert write["confirmed"][0] == "C" and write["confirmed"][1] in ("D", "E")
    snap = lab.snapshot()
    hints = snap["hints"]
    held = {(h["holder"], h["target"], h["value"], h["stand_in"]) for h in hints}
    assert held == {("D", "A", 119, True), ("E", "B", 119, True)}
    values = {c["node"]: c["value"] for c in snap["replicas"]}
    assert values == {"A": 120, "B": 120, "C": 119}

    # a read of the owners (A and B answer) misses the acknowledged write
    lab.apply("read", R2)
    lab.apply("advance", {"ms": 600})
    read = last(lab)
    assert read["status"] == "ok" and read["value"] == 120 and read["stale"] is True
    assert sorted(read["confirmed"]) == ["A", "B"]
    verdict = check_linearizable(
        histories.history_of(lab.cluster), lab.cluster.first_value
    )
    assert not verdict.ok

    # healed, the stand-ins hand the hints back; the same read returns the write
    events = lab.apply("heal_all", {})
    lab.apply("advance", {"ms": 600})
    assert lab.snapshot()["hints"] == []
    assert lab.metrics()["hints_delivered"] == 2
    assert any(e["type"] == "healed_all" for e in events)
    lab.apply("read", R2)
    lab.apply("advance", {"ms": 600})
    read = last(lab)
    assert read["status"] == "ok" and read["value"] == 119 and read["stale"] is False


@pytest.mark.parametrize("seed", SEEDS[:3])
def test_a_coordinator_off_the_owners_can_stand_in_itself(seed):
    lab = ring_lab(seed, sloppy=True)
    lab.apply("write", {"w": 2, "coordinator": "D"})
    lab.apply("advance", {"ms": 600})
    write = last(lab)
    assert write["status"] == "ok" and write["stand_ins"] == {"A": "D", "B": "E"}
    assert write["confirmed"][0] == "D"  # its own hint, at once


@pytest.mark.parametrize("seed", SEEDS[:3])
def test_a_stopped_owner_gets_a_stand_in_that_hands_over_on_restart(seed):
    lab = QuorumLab(seed=seed)
    lab.apply("set_nodes", {"nodes": 4})
    lab.apply("set_sloppy", {"on": True})
    lab.apply("stop_node", {"node": "B"})
    lab.apply("write", {"w": "ALL", "coordinator": "A"})
    lab.apply("advance", {"ms": 600})
    assert last(lab)["status"] == "ok"
    assert last(lab)["stand_ins"] == {"B": "D"}
    lab.apply("restart_node", {"node": "B"})
    lab.apply("advance", {"ms": 600})
    values = {c["node"]: c["value"] for c in lab.snapshot()["replicas"]}
    assert values == {"A": 119, "B": 119, "C": 119}


def test_sloppy_with_no_node_past_the_owners_changes_nothing():
    def run(sloppy: bool) -> dict:
        lab = QuorumLab(seed=4)
        lab.apply("set_sloppy", {"on": sloppy})
        lab.apply("split", {"group": "A"})
        lab.apply("write", {"w": 2, "coordinator": "B"})
        lab.apply("advance", {"ms": 900})
        snap = lab.snapshot()
        return {k: snap[k] for k in ("replicas", "history", "hints", "network")}

    assert run(True) == run(False)


def test_counting_trials_on_a_ring_and_replaying_one():
    lab = ring_lab(5, sloppy=True)
    trials = lab.apply("run_trials", {"count": 100})[0]
    assert trials["config"]["nodes"] == 5 and trials["config"]["sloppy"] is True
    assert "D-A" not in trials["config"]["cut"] and "A-D" in trials["config"]["cut"]
    lab.apply("replay_trial", {"index": 0})
    assert lab.snapshot()["ring"]["nodes"] == 5 and lab.snapshot()["sloppy"] is True


def test_setting_the_copies_starts_again_with_m_equal_to_n():
    lab = QuorumLab(seed=2)
    lab.apply("set_nodes", {"nodes": 4})
    lab.apply("set_copies", {"copies": 5})
    assert lab.snapshot()["ring"]["nodes"] == 5
    lab.apply("set_copies", {"copies": 3})
    assert lab.snapshot()["ring"]["nodes"] == 3


def test_the_same_seed_plays_a_sloppy_run_the_same():
    def digest() -> str:
        lab = ring_lab(6, sloppy=True)
        lab.apply("write", W2)
        lab.apply("advance", {"ms": 300})
        lab.apply("heal_all", {})
        lab.apply("advance", {"ms": 300})
        return lab.digest()

    assert digest() == digest()


@pytest.mark.parametrize(
    "name,args,code",
    [
        ("set_nodes", {"nodes": 6}, "bad_choice"),
        ("set_nodes", {"nodes": 2}, "bad_choice"),
        ("set_nodes", {"nodes": "5"}, "bad_choice"),
        ("set_nodes", {}, "missing_argument"),
        ("set_sloppy", {"on": "yes"}, "bad_type"),
        ("set_sloppy", {"on": 1}, "bad_type"),
        ("set_sloppy", {"on": None}, "bad_type"),
    ],
)
def test_bad_ring_input_is_refused_and_changes_nothing(name, args, code):
    lab = ring_lab(3, sloppy=True)
    lab.apply("write", W2)
    lab.apply("advance", {"ms": 20})  # messages in flight
    before = lab.digest()
    with pytest.raises(ActionError) as refused:
        lab.apply(name, args)
    assert refused.value.code == code and refused.value.message
    assert lab.digest() == before


@pytest.mark.parametrize("nodes", [3, 4])
def test_fewer_nodes_than_copies_is_refused(nodes):
    lab = QuorumLab(seed=1, copies=5)
    lab.apply("write", {"w": "ONE", "coordinator": "A"})
    before = lab.digest()
    with pytest.raises(ActionError) as refused:
        lab.apply("set_nodes", {"nodes": nodes})
    assert refused.value.code == "fewer_nodes_than_copies"
    assert "5 copies" in refused.value.message
    assert lab.digest() == before
