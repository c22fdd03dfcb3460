"""partition-cap: bad input is refused with a code and leaves the lab as it was."""

import pytest

from simulators.engine import ActionError
from simulators.labs.partition_cap import PartitionCapLab

BOOK = {"server": "A", "passenger": "P0000001", "mode": "majority"}

REFUSED = [
    ("cut_link", {"link": "A-Z"}, "no_such_link"),
    ("cut_link", {"link": "A-D"}, "no_such_link"),  # no D among three servers
    ("cut_link", {"link": "A-A"}, "no_such_link"),
    ("cut_link", {"link": "AC"}, "no_such_link"),
    ("heal_link", {"link": "B-E"}, "no_such_link"),
    ("cut_link", {"link": ""}, "empty"),
    ("split", {"group": "A,B,C"}, "empty_group"),
    ("split", {"group": "ABC"}, "empty_group"),
    ("split", {"group": ","}, "empty_group"),
    ("split", {"group": "   "}, "empty"),
    ("split", {"group": "C,Z"}, "no_such_server"),
    ("split", {"group": "Tokyo"}, "no_such_server"),
    ("book", {**BOOK, "server": "Z"}, "no_such_server"),
    ("book", {**BOOK, "server": "D"}, "no_such_server"),
    ("book", {**BOOK, "passenger": "P9999999"}, "no_such_passenger"),
    ("book", {**BOOK, "mode": "quorum"}, "bad_choice"),
    ("book", {"server": "A", "passenger": "P0000001"}, "missing_argument"),
    ("board", {"node": "Q", "mode": "anyway"}, "no_such_server"),
    ("set_skew", {"node": "A", "skew_ms": 2001}, "out_of_range"),
    ("set_skew", {"node": "A", "skew_ms": -5000}, "out_of_range"),
    ("set_skew", {"node": "A", "skew_ms": "500"}, "bad_type"),
    ("set_skew", {"node": "X", "skew_ms": 100}, "no_such_server"),
    ("stop_node", {"node": "X"}, "no_such_server"),
    ("restart_node", {"node": "X"}, "no_such_server"),
    ("set_conflict_rule", {"rule": "newest"}, "bad_choice"),
    ("reset", {"servers": 2}, "bad_choice"),
    ("reset", {"servers": 6}, "bad_choice"),
    ("advance", {"ms": 0}, "out_of_range"),
]


@pytest.mark.parametrize(("action", "args", "code"), REFUSED)
def test_bad_input_is_refused_and_changes_nothing(action, args, code):
    lab = PartitionCapLab(seed=4)
    lab.apply("book", BOOK)
    before = lab.digest()
    with pytest.raises(ActionError) as caught:
        lab.apply(action, args)
    assert caught.value.code == code
    assert caught.value.message
    assert lab.digest() == before


def test_the_last_running_server_cannot_be_stopped():
    lab = PartitionCapLab(seed=1)
    lab.apply("stop_node", {"node": "A"})
    lab.apply("stop_node", {"node": "B"})
    before = lab.digest()
    with pytest.raises(ActionError) as caught:
        lab.apply("stop_node", {"node": "C"})
    assert caught.value.code == "last_server"
    assert "C is the last running server" in caught.value.message
    assert lab.digest() == before
    assert lab.network.nodes["C"].up


def test_booking_from_a_stopped_server_is_refused():
    lab = PartitionCapLab(seed=1)
    lab.apply("stop_node", {"node": "C"})
    before = lab.digest()
    for action, args in [
        ("book", {**BOOK, "server": "C"}),
        ("board", {"node": "C", "mode": "anyway"}),
    ]:
        with pytest.raises(ActionError) as caught:
            lab.apply(action, args)
        assert caught.value.code == "server_stopped"
        assert "restart it" in caught.value.message
    assert lab.digest() == before


def test_an_even_count_is_accepted_and_explained():
    lab = PartitionCapLab(seed=1, servers=4)
    quorum = lab.snapshot()["quorum"]
    assert quorum == {"copies": 4, "majority": 3, "tolerates": 1, "even": True}


def test_nothing_to_step_to_is_a_clear_error():
    lab = PartitionCapLab(seed=1)
    before = lab.digest()
    with pytest.raises(ActionError) as caught:
        lab.apply("step", {})
    assert caught.value.code == "nothing_scheduled"
    assert lab.digest() == before


def test_bad_options_are_refused():
    with pytest.raises(ActionError) as caught:
        PartitionCapLab(seed=1, servers=7)
    assert caught.value.code == "bad_choice"
