"""Bad input to the replication lab: each refused with a code, nothing changed."""

import pytest

from simulators.engine import ActionError
from simulators.labs.replication import ReplicationLab
from simulators.labs.replication import lab as lab_module

READ = {"client": "ana", "row": "email", "server": "C"}
REFUSED = [
    ("read", {**READ, "server": "Z"}, "no_such_server"),
    ("read", {**READ, "server": "D"}, "no_such_server"),  # two replicas: A, B, C
    ("read", {**READ, "server": "a"}, "no_such_server"),
    ("read", {**READ, "server": ""}, "empty"),
    ("read", {**READ, "server": "B"}, "server_down"),
    ("read", {**READ, "client": "carol"}, "bad_choice"),
    ("read", {**READ, "row": "seats"}, "bad_choice"),
    ("read", {"client": "ana", "server": "C"}, "missing_argument"),
    ("burst", {"count": 2_001}, "out_of_range"),
    ("burst", {"count": 10**12}, "out_of_range"),
    ("burst", {"count": 0}, "out_of_range"),
    ("burst", {"count": 1.5}, "bad_type"),
    ("burst", {"count": True}, "bad_type"),
    ("write", {"client": "fleet"}, "bad_choice"),
    ("write", {"client": "ana", "value": "x"}, "unknown_argument"),
    ("promote", {"server": "C"}, "primary_alive"),
    ("promote", {"server": "Q"}, "no_such_server"),
    ("take_down", {"server": "A", "ms": 1_000}, "is_primary"),
    ("take_down", {"server": "primary", "ms": 1_000}, "is_primary"),
    ("take_down", {"server": "B", "ms": 1_000}, "already_down"),
    ("take_down", {"server": "C", "ms": 99}, "out_of_range"),
    ("take_down", {"server": "C", "ms": 30_001}, "out_of_range"),
    ("restart", {"server": "C"}, "not_down"),
    ("restart", {"server": "E"}, "no_such_server"),
    ("set_replica", {"server": "A", "mode": "sync", "place": "zone"}, "is_primary"),
    ("set_replica", {"server": "C", "mode": "semi", "place": "zone"}, "bad_choice"),
    ("set_replica", {"server": "C", "mode": "sync", "place": "moon"}, "bad_choice"),
    ("set_acks", {"acks": "all"}, "bad_choice"),
    ("set_acks", {"acks": 2}, "bad_choice"),
    ("set_read_your_writes", {"fix": "hope"}, "bad_choice"),
    ("set_replicas", {"replicas": 4}, "bad_choice"),
    ("set_replicas", {"replicas": 0}, "bad_choice"),
    ("advance", {"ms": 0}, "out_of_range"),
    ("no_such_action", {}, "unknown_action"),
]


def prepared_lab() -> ReplicationLab:
    """A lab with history, a replica down, records in flight and being applied."""
    lab = ReplicationLab(seed=3)
    lab.apply("set_replica", {"server": "C", "mode": "async", "place": "ocean"})
    lab.apply("write", {"client": "ana"})
    lab.apply("burst", {"count": 200})
    lab.apply("advance", {"ms": 40})
    lab.apply("take_down", {"server": "B", "ms": 5_000})
    lab.apply("read", READ)
    lab.apply("write", {"client": "ben"})
    return lab


@pytest.mark.parametrize("name,args,code", REFUSED)
def test_bad_input_is_refused_with_a_code_and_changes_nothing(name, args, code):
    lab = prepared_lab()
    before = lab.digest()
    with pytest.raises(ActionError) as refused:
        lab.apply(name, args)
    assert refused.value.code == code
    assert refused.value.message
    assert lab.digest() == before
    lab.apply("advance", {"ms": 1_000})
    lab.apply("write", {"client": "ana"})


def refused(lab, name, args, code):
    before = lab.digest()
    with pytest.raises(ActionError) as error:
        lab.apply(name, args)
    assert error.value.code == code, error.value.message
    assert lab.digest() == before


def test_failover_refusals():
    lab = prepared_lab()
    lab.apply("kill_primary", {})
    refused(lab, "kill_primary", {}, "no_primary")
    refused(lab, "write", {"client": "ana"}, "no_primary")
    refused(lab, "burst", {"count": 10}, "no_primary")
    refused(lab, "read", {**READ, "server": "primary"}, "no_primary")
    refused(lab, "read", {**READ, "server": "A"}, "server_down")
    refused(lab, "promote", {"server": "B"}, "server_down")  # down for a while
    refused(lab, "promote", {"server": "A"}, "server_down")  # the dead primary
    lab.apply("promote", {"server": "C"})
    refused(lab, "promote", {"server": "B"}, "primary_alive")


def test_killing_the_primary_with_no_replica_running_is_refused():
    lab = ReplicationLab(seed=1, replicas=1)
    lab.apply("take_down", {"server": "B", "ms": 1_000})
    refused(lab, "kill_primary", {}, "no_replica_running")
    lab.apply("advance", {"ms": 1_000})  # B is back
    lab.apply("kill_primary", {})


def test_promotion_waits_for_a_sync_replica_that_is_down():
    lab = ReplicationLab(seed=1)
    lab.apply("set_replica", {"server": "B", "mode": "sync", "place": "zone"})
    lab.apply("take_down", {"server": "B", "ms": 1_000})
    lab.apply("kill_primary", {})
    refused(lab, "promote", {"server": "C"}, "sync_replica_down")
    lab.apply("advance", {"ms": 1_000})
    lab.apply("promote", {"server": "C"})


def test_majority_acknowledgement_elects_no_one_without_a_majority():
    lab = ReplicationLab(seed=1)
    lab.apply("set_acks", {"acks": "majority"})
    lab.apply("take_down", {"server": "B", "ms": 1_000})
    lab.apply("kill_primary", {})
    refused(lab, "promote", {"server": "C"}, "no_majority")
    lab.apply("advance", {"ms": 1_000})
    lab.apply("promote", {"server": "C"})
    # with one replica, majority acknowledgement cannot fail over at all
    lab = ReplicationLab(seed=1, replicas=1)
    lab.apply("set_acks", {"acks": "majority"})
    lab.apply("kill_primary", {})
    refused(lab, "promote", {"server": "B"}, "no_majority")
    lab.apply("restart", {"server": "A"})  # the way out: the old primary comes back
    lab.apply("promote", {"server": "A"})


def test_a_full_log_refuses_more_writes(monkeypatch):
    monkeypatch.setattr(lab_module, "MAX_RECORDS", 150)
    lab = ReplicationLab(seed=1)
    lab.apply("burst", {"count": 150})
    refused(lab, "write", {"client": "ana"}, "log_full")
    refused(lab, "burst", {"count": 1}, "log_full")
    lab.apply("set_replicas", {"replicas": 3})
    lab.apply("write", {"client": "ana"})
