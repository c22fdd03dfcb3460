"""partition-cap: every must of the lab, each over many seeds."""

import pytest

from simulators.labs.partition_cap import PartitionCapLab
from simulators.labs.partition_cap.declaration import TIMEOUT_MS

SEEDS = range(40)


def settle(lab, limit: int = 200) -> None:
    """Advance until nothing is scheduled (every message delivered or lost)."""
    for _ in range(limit):
        if lab.next_due_ms() is None:
            return
        lab.apply("advance", {"ms": 1000})
    raise AssertionError("the lab never went quiet")


def book(lab, server, mode, passenger=None):
    passenger = passenger or {"A": "P0000001", "C": "P0000002"}.get(server, "P0000003")
    lab.apply("book", {"server": server, "passenger": passenger, "mode": mode})
    return lab.ops[-1]


def copy(lab, server):
    return next(c for c in lab.snapshot()["copies"] if c["server"] == server)


def errors_to_clients(lab):
    return [op for op in lab.ops if op["result"] not in ("booked", "answered")]


# ----- majority rule ------------------------------------------------------------------
@pytest.mark.parametrize("seed", SEEDS)
def test_majority_side_sells_minority_refuses_and_nothing_to_reconcile(seed):
    lab = PartitionCapLab(seed=seed)
    lab.apply("split", {"group": "C"})
    frankfurt = book(lab, "A", "majority")
    lab.apply("advance", {"ms": 1 + seed % 50})
    tokyo = book(lab, "C", "majority")
    settle(lab)
    assert frankfurt["result"] == "booked"
    assert frankfurt["reachable"] == 2
    assert tokyo["result"] == "refused"
    assert tokyo["reason"] == "no_majority"
    assert (tokyo["reachable"], tokyo["copies"], tokyo["needed"]) == (1, 3, 2)
    assert tokyo["complete_ms"] - tokyo["invoke_ms"] == TIMEOUT_MS
    assert copy(lab, "C")["seats_remaining"] == 1  # the refused write left no trace
    assert copy(lab, "B")["seats_remaining"] == 0

    lab.apply("heal_all", {})
    settle(lab)
    snap, metrics = lab.snapshot(), lab.metrics()
    assert metrics["conflicts"] == 0 and snap["conflicts"] == []
    assert all(m["verdict"] != "concurrent" for m in snap["meetings"])
    assert snap["converged"] and metrics["copies_agree"]
    assert metrics["surviving"] == metrics["confirmed"] == 1
    assert metrics["vanished"] == 0
    for c in snap["copies"]:
        assert c["vv"] == {"A": 1}
        assert [b["passenger"] for b in c["versions"][0]["bookings"]] == ["P0000001"]


@pytest.mark.parametrize("seed", SEEDS)
def test_minority_copy_just_receives_what_it_missed(seed):
    lab = PartitionCapLab(seed=seed)
    lab.apply("split", {"group": "C"})
    book(lab, "A", "majority")
    settle(lab)
    assert copy(lab, "C")["behind"]
    lab.apply("heal_link", {"link": "A-C"})
    settle(lab)
    meetings = lab.snapshot()["meetings"]
    assert meetings and {m["verdict"] for m in meetings} <= {"ordered", "equal"}
    assert any(m["verdict"] == "ordered" and m["newer"] == "A" for m in meetings)
    assert copy(lab, "C")["vv"] == {"A": 1}
    assert lab.metrics()["conflicts"] == 0


# ----- answer anyway ------------------------------------------------------------------
def ap_split_brain(seed, rule="lww", gap_ms=40, skew=None):
    """Split off Tokyo, book from both sides with "answer anyway", heal, settle."""
    lab = PartitionCapLab(seed=seed)
    if rule != "lww":
        lab.apply("set_conflict_rule", {"rule": rule})
    if skew:
        lab.apply("set_skew", {"node": skew[0], "skew_ms": skew[1]})
    lab.apply("split", {"group": "C"})
    first = book(lab, "A", "anyway")
    lab.apply("advance", {"ms": gap_ms})
    second = book(lab, "C", "anyway")
    settle(lab)
    during = lab.snapshot()
    lab.apply("heal_all", {})
    settle(lab)
    return lab, first, second, during


@pytest.mark.parametrize("seed", SEEDS)
def test_answer_anyway_both_clients_hear_booked_and_both_sides_sell_out(seed):
    lab, first, second, during = ap_split_brain(seed)
    for op in (first, second):
        assert op["result"] == "booked"
        assert op["complete_ms"] == op["invoke_ms"]  # no waiting for anyone
    seats = {c["server"]: c["seats_remaining"] for c in during["copies"]}
    assert seats == {"A": 0, "B": 0, "C": 0}
    assert during["copies"][0]["vv"] == {"A": 1}
    assert during["copies"][2]["vv"] == {"C": 1}


@pytest.mark.parametrize("seed", SEEDS)
def test_lww_silently_deletes_one_booking(seed):
    lab, first, second, _ = ap_split_brain(seed, gap_ms=1 + seed * 7)
    metrics, snap = lab.metrics(), lab.snapshot()
    assert errors_to_clients(lab) == []  # neither client got an error
    assert metrics["confirmed"] == 2
    assert metrics["surviving"] == 1
    assert metrics["vanished"] == 1
    assert snap["converged"]
    survivor = snap["copies"][0]["versions"][0]["bookings"]
    assert [b["id"] for b in survivor] == [second["booking"]["id"]]  # the later write
    [gone] = snap["vanished"]
    assert gone["booking"] == first["booking"]["id"]
    assert gone["passenger"] == "P0000001" and gone["server"] == "A"
    for c in snap["copies"]:
        assert c["seats_remaining"] == 0
        assert c["vv"] == {"A": 1, "C": 1}


@pytest.mark.parametrize("seed", SEEDS)
def test_with_skew_the_write_that_happened_first_wins(seed):
    # Tokyo's clock runs 500 ms behind: its booking, made 200 ms after Frankfurt's,
    # carries the earlier timestamp and loses.
    lab, first, second, _ = ap_split_brain(seed, gap_ms=200, skew=("C", -500))
    assert first["invoke_ms"] < second["invoke_ms"]
    assert second["booking"]["ts"] < first["booking"]["ts"]
    held = lab.bookings_held()
    assert list(held) == [first["booking"]["id"]]  # the earlier write won
    [gone] = lab.snapshot()["vanished"]
    assert gone["booking"] == second["booking"]["id"]
    assert errors_to_clients(lab) == []


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("rule", ["lww", "app", "siblings"])
def test_version_vectors_report_concurrent_not_ordered(seed, rule):
    lab, *_ = ap_split_brain(seed, rule=rule)
    snap = lab.snapshot()
    [conflict] = snap["conflicts"]
    assert conflict["verdict"] == "concurrent"
    assert conflict["vectors"] == [{"A": 1}, {"C": 1}]
    assert conflict["rule"] == rule
    concurrent = [m for m in snap["meetings"] if m["verdict"] == "concurrent"]
    assert concurrent
    assert {
        (lab_vv_text(m["local"]), lab_vv_text(m["incoming"])) for m in concurrent
    } <= {
        ("{A: 1}", "{C: 1}"),
        ("{C: 1}", "{A: 1}"),
    }


def lab_vv_text(vv):
    from simulators.labs.partition_cap.versions import vv_text

    return vv_text(vv)


@pytest.mark.parametrize("seed", SEEDS)
def test_application_rule_keeps_both_and_moves_the_later_to_standby(seed):
    lab, first, second, _ = ap_split_brain(seed, rule="app", gap_ms=1 + seed)
    snap, metrics = lab.snapshot(), lab.metrics()
    assert snap["converged"]
    assert metrics["surviving"] == 2 and metrics["vanished"] == 0
    assert metrics["standby"] == 1
    bookings = {
        b["id"]: b["status"] for b in snap["copies"][0]["versions"][0]["bookings"]
    }
    assert bookings == {
        first["booking"]["id"]: "confirmed",  # booked first by its server's clock
        second["booking"]["id"]: "standby",
    }
    assert snap["copies"][0]["seats_remaining"] == 0


@pytest.mark.parametrize("seed", SEEDS)
def test_siblings_keep_both_versions_for_the_next_reader(seed):
    lab, first, second, _ = ap_split_brain(seed, rule="siblings")
    snap = lab.snapshot()
    assert snap["converged"]
    for c in snap["copies"]:
        assert c["conflicting"]
        assert [v["vv"] for v in c["versions"]] == [{"A": 1}, {"C": 1}]
    lab.apply("board", {"node": "B", "mode": "anyway"})
    answer = lab.ops[-1]["answer"]
    assert answer["conflicting"]
    ids = [v["bookings"][0]["id"] for v in answer["versions"]]
    assert ids == [first["booking"]["id"], second["booking"]["id"]]
    assert lab.metrics()["vanished"] == 0


# ----- an even number of copies ------------------------------------------------------
@pytest.mark.parametrize("seed", SEEDS)
def test_four_copies_split_two_two_leaves_no_majority_anywhere(seed):
    lab = PartitionCapLab(seed=seed, servers=4)
    assert lab.snapshot()["quorum"] == {
        "copies": 4,
        "majority": 3,
        "tolerates": 1,
        "even": True,
    }
    assert PartitionCapLab(seed=seed).snapshot()["quorum"]["tolerates"] == 1
    lab.apply("split", {"group": "C,D"})
    left, right = book(lab, "A", "majority"), book(lab, "C", "majority")
    settle(lab)
    for op in (left, right):
        assert op["result"] == "refused" and op["reason"] == "no_majority"
        assert (op["reachable"], op["copies"], op["needed"]) == (2, 4, 3)
    assert lab.metrics()["confirmed"] == 0


@pytest.mark.parametrize("seed", SEEDS[:10])
def test_four_copies_still_sell_with_three_together(seed):
    lab = PartitionCapLab(seed=seed)
    lab.apply("reset", {"servers": 4})
    lab.apply("split", {"group": "D"})
    op = book(lab, "A", "majority")
    settle(lab)
    assert op["result"] == "booked" and op["reachable"] == 3


@pytest.mark.parametrize("seed", SEEDS[:10])
def test_five_copies_sell_on_the_side_of_three(seed):
    lab = PartitionCapLab(seed=seed, servers=5)
    lab.apply("split", {"group": "B,C"})
    west, east = book(lab, "A", "majority"), book(lab, "C", "majority")
    settle(lab)
    assert west["result"] == "booked"
    assert east["result"] == "refused" and east["reachable"] == 2


# ----- one database, two choices ------------------------------------------------------
@pytest.mark.parametrize("seed", SEEDS)
def test_seat_sale_refuses_on_the_small_side_while_the_board_answers(seed):
    lab = PartitionCapLab(seed=seed)
    lab.apply("split", {"group": "C"})
    sold = book(lab, "A", "majority")
    settle(lab)
    refused = book(lab, "C", "majority")  # the seat sale: defaults to majority
    lab.apply("board", {"node": "C", "mode": "anyway"})  # the board: answers anyway
    board = lab.ops[-1]
    assert board["result"] == "answered"
    assert board["complete_ms"] == board["invoke_ms"]
    assert board["answer"]["seats_remaining"] == 1  # stale: A sold it
    assert board["answer"]["stale"]
    lab.apply("board", {"node": "C", "mode": "majority"})
    strict = lab.ops[-1]
    lab.apply("board", {"node": "B", "mode": "majority"})
    fresh = lab.ops[-1]
    settle(lab)
    assert sold["result"] == "booked"
    assert refused["result"] == "refused"
    assert strict["result"] == "refused" and strict["reason"] == "no_majority"
    assert fresh["result"] == "answered"
    assert fresh["answer"]["seats_remaining"] == 0 and not fresh["answer"]["stale"]


def test_the_defaults_are_a_cp_sale_and_an_ap_board():
    actions = {a["name"]: a for a in PartitionCapLab.declaration()["actions"]}
    modes = {
        name: next(p for p in actions[name]["params"] if p["name"] == "mode")["default"]
        for name in ("book", "board")
    }
    assert modes == {"book": "majority", "board": "anyway"}


# ----- protocol details -------------------------------------------------------------
@pytest.mark.parametrize("seed", SEEDS[:20])
def test_two_majority_bookings_at_once_sell_the_seat_once(seed):
    lab = PartitionCapLab(seed=seed)
    a = book(lab, "A", "majority")
    lab.apply("advance", {"ms": 1 + seed * 3})
    c = book(lab, "C", "majority")
    settle(lab)
    results = sorted([a["result"], c["result"]])
    assert results.count("booked") <= 1
    assert lab.metrics()["surviving"] == lab.metrics()["confirmed"] <= 1
    assert lab.metrics()["conflicts"] == 0
    assert lab.converged()


def test_a_stopped_coordinator_fails_its_open_booking():
    lab = PartitionCapLab(seed=3)
    op = book(lab, "A", "majority")
    lab.apply("stop_node", {"node": "A"})
    assert op["result"] == "failed" and op["reason"] == "server_stopped"
    settle(lab)
    lab.apply("restart_node", {"node": "A"})
    settle(lab)
    assert all(lock is None for lock in lab.locks.values())
    assert book(lab, "C", "majority") and settle(lab) is None
    assert lab.ops[-1]["result"] == "booked"


def test_sold_out_is_an_answer_not_a_conflict():
    lab = PartitionCapLab(seed=5)
    book(lab, "A", "majority")
    settle(lab)
    op = book(lab, "C", "anyway")
    assert op["result"] == "sold_out"
    assert lab.metrics()["conflicts"] == 0
