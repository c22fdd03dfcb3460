"""rate-limit-race: bad input refused with a code and a reason, the digest unchanged."""

import pytest

from simulators.engine import ActionError
from simulators.labs.rate_limit_race import RateLimitRaceLab

# the shared lab below races three clients of three steps: A1 … C3
SOUND = "A1 A2 A3 B1 C1 B2 C2 B3 C3"

REFUSED = [
    # the order: every step once, each client's in its own order
    ("set_order", {"order": "A1 A1 A2 A3 B1 B2 B3 C1 C2 C3"}, "step_twice"),
    ("set_order", {"order": "A1 A2 A3 B1 B2 B3 C1 C2 C3 C3"}, "step_twice"),
    ("set_order", {"order": "A1 B1 C1 A2 B2 C2 A3 B3 Z3"}, "unknown_step"),
    ("set_order", {"order": "A1 B1 C1 A2 B2 C2 A3 B3 C3 D1"}, "unknown_step"),
    ("set_order", {"order": "A1 B1 C1 A2 B2 C2 A3 B3 C4"}, "unknown_step"),
    ("set_order", {"order": "A1 B1 C1 A2 B2 C2 A3 B3 C3 A0"}, "unknown_step"),
    ("set_order", {"order": "A1;B1 C1 A2 B2 C2 A3 B3 C3"}, "unknown_step"),
    ("set_order", {"order": "A1 B1 C1 A2 B2 C2 A3 B3"}, "missing_step"),
    ("set_order", {"order": "A1 A2 A3"}, "missing_step"),
    ("set_order", {"order": ", , ,"}, "missing_step"),
    ("set_order", {"order": "A2 A1 A3 B1 B2 B3 C1 C2 C3"}, "out_of_order"),
    ("set_order", {"order": "A1 A3 A2 B1 B2 B3 C1 C2 C3"}, "out_of_order"),
    ("set_order", {"order": "C3 A1 A2 A3 B1 B2 B3 C1 C2"}, "out_of_order"),
    ("set_order", {"order": "   "}, "empty"),
    ("set_order", {"order": ""}, "empty"),
    ("set_order", {"order": "A1 " * 41}, "too_long"),
    ("set_order", {"order": "A1\x00 B1"}, "bad_text"),
    ("set_order", {"order": "A1 \ud800"}, "bad_text"),
    ("set_order", {"order": ["A1", "B1"]}, "bad_type"),
    ("set_order", {"order": 11}, "bad_type"),
    ("set_order", {}, "missing_argument"),
    # numbers: clients 2 to 4, admitted 0 to 100, seconds 1 to 3,600, requests 1 to 200
    ("set_clients", {"count": 1}, "out_of_range"),
    ("set_clients", {"count": 5}, "out_of_range"),
    ("set_clients", {"count": -2}, "out_of_range"),
    ("set_clients", {"count": 10**12}, "out_of_range"),
    ("set_clients", {"count": "3"}, "bad_type"),
    ("set_clients", {"count": True}, "bad_type"),
    ("set_clients", {"count": 3.0}, "bad_type"),
    ("set_clients", {"count": None}, "bad_type"),
    ("set_clients", {"clients": 3}, "unknown_argument"),
    ("set_admitted", {"count": -1}, "out_of_range"),
    ("set_admitted", {"count": 101}, "out_of_range"),
    ("set_admitted", {"count": 10**18}, "out_of_range"),
    ("set_admitted", {"count": "99"}, "bad_type"),
    ("set_admitted", {"count": 99.5}, "bad_type"),
    ("set_admitted", {"count": False}, "bad_type"),
    ("set_admitted", {}, "missing_argument"),
    ("pass_time", {"seconds": 0}, "out_of_range"),
    ("pass_time", {"seconds": -61}, "out_of_range"),
    ("pass_time", {"seconds": 3_601}, "out_of_range"),
    ("pass_time", {"seconds": 2**63}, "out_of_range"),
    ("pass_time", {"seconds": 1.5}, "bad_type"),
    ("pass_time", {"seconds": "61"}, "bad_type"),
    ("new_request", {"count": 0}, "out_of_range"),
    ("new_request", {"count": 201}, "out_of_range"),
    ("new_request", {"count": -1}, "out_of_range"),
    ("new_request", {"count": "1"}, "bad_type"),
    ("new_request", {}, "missing_argument"),
    # the way to count
    ("set_mode", {"mode": "incr_expire"}, "bad_choice"),
    ("set_mode", {"mode": "INCR"}, "bad_choice"),
    ("set_mode", {"mode": "lua "}, "bad_choice"),
    ("set_mode", {"mode": ""}, "bad_choice"),
    ("set_mode", {"mode": 1}, "bad_choice"),
    ("set_mode", {"mode": None}, "bad_choice"),
    ("set_mode", {}, "missing_argument"),
    ("set_mode", {"mode": "incr", "clients": 2}, "unknown_argument"),
    # crashing: a client not in the race, one crashed, one with nothing left to run
    ("crash_client", {"client": "D"}, "no_such_client"),
    ("crash_client", {"client": "E"}, "no_such_client"),
    ("crash_client", {"client": "AB"}, "no_such_client"),
    ("crash_client", {"client": "1"}, "no_such_client"),
    ("crash_client", {"client": "C"}, "already_crashed"),
    ("crash_client", {"client": "c"}, "already_crashed"),
    ("crash_client", {"client": "A"}, "client_finished"),
    ("crash_client", {"client": "ABC"}, "too_long"),
    ("crash_client", {"client": ""}, "empty"),
    ("crash_client", {"client": 1}, "bad_type"),
    ("crash_client", {}, "missing_argument"),
    # actions without arguments take none
    ("step", {"count": 2}, "unknown_argument"),
    ("run_all", {"order": SOUND}, "unknown_argument"),
    ("every_ordering", {"bound": 10**6}, "unknown_argument"),
    ("shuffle", {"seed": 1}, "unknown_argument"),
    ("reset", [], "bad_args"),
    ("step", None, "bad_args"),
    # no such action
    ("race", {}, "unknown_action"),
    ("do_step", {}, "unknown_action"),
    ("_run", {"step_id": "B2"}, "unknown_action"),
    ("apply", {}, "unknown_action"),
    (None, {}, "unknown_action"),
]


@pytest.fixture(scope="module")
def lab():
    """One lab shared by every refusal: three clients, A finished, C crashed after
    C1, an enumeration done and a later request sent. None of them may change it."""
    lab = RateLimitRaceLab(seed=4)
    lab.apply("set_clients", {"count": 3})
    lab.apply("every_ordering", {})
    lab.apply("set_order", {"order": SOUND})
    for _ in range(5):  # A1 A2 A3 B1 C1
        lab.apply("step", {})
    lab.apply("crash_client", {"client": "C"})
    lab.apply("pass_time", {"seconds": 5})
    lab.apply("new_request", {"count": 1})
    return lab


def assert_refused(lab, name, args, code) -> ActionError:
    before = lab.digest()
    with pytest.raises(ActionError) as caught:
        lab.apply(name, args)
    error = caught.value
    assert error.code == code
    assert error.message and error.message[0].isalpha()
    assert error.as_dict()["code"] == code
    assert lab.digest() == before
    return error


@pytest.mark.parametrize(("name", "args", "code"), REFUSED)
def test_a_bad_action_is_refused_with_a_reason_and_changes_nothing(
    lab, name, args, code
):
    assert_refused(lab, name, args, code)


@pytest.mark.parametrize(
    ("args", "code", "words"),
    [
        ({"order": "A1 A1 A2 A3 B1 B2 B3 C1 C2 C3"}, "step_twice", ("A1", "twice")),
        ({"order": "A1 B1 C1 A2 B2 C2 A3 B3 Z3"}, "unknown_step", ("'Z3'", "C3")),
        ({"order": "A1 B1 C1 A2 B2 C2 A3 B3"}, "missing_step", ("C3",)),
        ({"order": "A1 A2 A3 B1 B2 B3"}, "missing_step", ("C1, C2, C3",)),
        ({"order": "A2 A1 A3 B1 B2 B3 C1 C2 C3"}, "out_of_order", ("A2", "A1")),
    ],
)
def test_a_refused_order_names_the_argument_and_the_step(lab, args, code, words):
    error = assert_refused(lab, "set_order", args, code)
    assert error.field == "order"
    for word in words:
        assert word in error.message


@pytest.mark.parametrize(
    ("client", "code", "words"),
    [
        ("D", "no_such_client", ("'D'", "A, B, C")),
        ("C", "already_crashed", ("C",)),
        ("A", "client_finished", ("A",)),
    ],
)
def test_a_refused_crash_names_the_client(lab, client, code, words):
    error = assert_refused(lab, "crash_client", {"client": client}, code)
    assert error.field == "client"
    for word in words:
        assert word in error.message


def test_a_number_out_of_range_names_its_field(lab):
    error = assert_refused(lab, "set_clients", {"count": 5}, "out_of_range")
    assert error.field == "count" and "4" in error.message


def test_a_step_or_run_when_every_step_has_run_is_refused():
    lab = RateLimitRaceLab(seed=1)
    lab.apply("run_all", {})
    for name in ("step", "run_all"):
        assert_refused(lab, name, {}, "race_over")
    lab.apply("reset", {})
    lab.apply("step", {})  # a reset race runs again


def test_a_race_whose_clients_all_crashed_has_no_step_left():
    lab = RateLimitRaceLab(seed=1)
    lab.apply("step", {})
    lab.apply("crash_client", {"client": "A"})
    lab.apply("crash_client", {"client": "B"})
    assert lab.snapshot()["finished"] is True
    assert_refused(lab, "step", {}, "race_over")
    assert_refused(lab, "crash_client", {"client": "B"}, "already_crashed")


def test_a_client_of_a_race_that_is_over_cannot_crash():
    lab = RateLimitRaceLab(seed=1)
    lab.apply("run_all", {})
    for client in ("A", "B"):
        assert_refused(lab, "crash_client", {"client": client}, "client_finished")


@pytest.mark.parametrize("mode", ["read_check_write"])
def test_every_ordering_over_the_bound_is_refused_with_the_count(mode):
    lab = RateLimitRaceLab(seed=1)
    lab.apply("set_mode", {"mode": mode})
    lab.apply("set_clients", {"count": 4})
    lab.apply("step", {})
    error = assert_refused(lab, "every_ordering", {}, "too_many_orderings")
    assert "369,600" in error.message and "10,000" in error.message


def test_bad_options_are_refused_when_the_lab_is_made():
    for options, code in [
        ({"clients": 3}, "unknown_option"),
        ({"mode": "incr"}, "unknown_option"),
    ]:
        with pytest.raises(ActionError) as caught:
            RateLimitRaceLab(seed=1, **options)
        assert caught.value.code == code
    for seed, code in [(-1, "bad_seed"), (2**53, "bad_seed"), ("1", "bad_seed")]:
        with pytest.raises(ActionError) as caught:
            RateLimitRaceLab(seed=seed)
        assert caught.value.code == code


def test_refusals_interleaved_with_a_race_do_not_change_it():
    """Every refusal before every step: the race ends as it does without them (an
    action accepted in that state is done to both labs)."""
    plain, noisy = RateLimitRaceLab(seed=9), RateLimitRaceLab(seed=9)
    for lab in (plain, noisy):
        lab.apply("set_clients", {"count": 3})
        lab.apply("set_order", {"order": SOUND})
    accepted = []
    while not noisy.snapshot()["finished"]:
        for name, args, _code in REFUSED:
            try:
                noisy.apply(name, args)
            except ActionError:
                continue
            plain.apply(name, args)
            accepted.append(name)
        assert noisy.digest() == plain.digest()
        noisy.apply("step", {})
        plain.apply("step", {})
    assert noisy.digest() == plain.digest()
    assert "crash_client" in accepted  # in a state where it can be done
