"""rate-limit-race: what LABS.md and the lab's brief say it must show, pinned.

Read, check, write (GET, compare, SET) admits 101 when both clients read 99; INCR
replies 100 and 101 and admits 100. Every ordering of the small case is counted here
by a brute force of the test's own, not by the lab. INCR then EXPIRE as two commands
leaves a counter that never expires when its client dies between them; a Lua script
and SET … EX 60 NX before the INCR do not.
"""

import pytest

from simulators.engine import ActionError, canonical_json
from simulators.labs.rate_limit_race import RateLimitRaceLab
from simulators.labs.rate_limit_race.declaration import MAX_ORDERINGS

LIMIT = 100
SEEDS = (0, 1, 7)


def make_lab(seed: int = 1) -> RateLimitRaceLab:
    return RateLimitRaceLab(seed=seed)


def of_type(events: list[dict], kind: str) -> list[dict]:
    return [event for event in events if event["type"] == kind]


def steps_by_id(events: list[dict]) -> dict[str, dict]:
    return {event["id"]: event for event in of_type(events, "step")}


def interleavings(letters: str, steps: int):
    """Every distinct order of `steps` turns of each client, in lexicographic order
    (A before B at each place), made without the lab's code."""
    left = dict.fromkeys(letters, steps)

    def walk(prefix):
        if not any(left.values()):
            yield list(prefix)
            return
        for letter in letters:
            if left[letter]:
                left[letter] -= 1
                yield from walk([*prefix, letter])
                left[letter] += 1

    yield from walk([])


def as_ids(turns: list[str]) -> str:
    """Client turns ["A", "B", "A"] as step ids "A1 B1 A2"."""
    done: dict[str, int] = {}
    ids = []
    for letter in turns:
        done[letter] = done.get(letter, 0) + 1
        ids.append(f"{letter}{done[letter]}")
    return " ".join(ids)


def read_check_write(turns: list[str], start: int) -> int:
    """Admitted after one interleaving: GET, compare with the limit, SET read + 1."""
    counter, step, read, admitted = start, {}, {}, {}
    for letter in turns:
        step[letter] = step.get(letter, 0) + 1
        if step[letter] == 1:
            read[letter] = counter
        elif step[letter] == 2:
            admitted[letter] = read[letter] < LIMIT
        elif admitted[letter]:
            counter = read[letter] + 1
    return start + sum(admitted.values())


def incr(turns: list[str], start: int) -> int:
    """Admitted after one interleaving: INCR, then compare its reply."""
    counter, step, got, admitted = start, {}, {}, {}
    for letter in turns:
        step[letter] = step.get(letter, 0) + 1
        if step[letter] == 1:
            counter += 1
            got[letter] = counter
        else:
            admitted[letter] = got[letter] <= LIMIT
    return start + sum(admitted.values())


# -- the course's race ---------------------------------------------------------------


def test_the_lab_starts_as_the_course_tells_it():
    snapshot = make_lab().snapshot()
    assert snapshot["mode"] == "read_check_write"
    assert (snapshot["client_count"], snapshot["starting_admitted"]) == (2, 99)
    assert snapshot["order"] == ["A1", "B1", "A2", "B2", "A3", "B3"]
    assert snapshot["key"]["name"] == "rate:user42"
    assert (snapshot["key"]["value"], snapshot["limit"]) == (99, 100)
    assert snapshot["admitted"] == 99 and snapshot["position"] == 0


def test_read_check_write_admits_101_when_both_clients_read_99():
    lab = make_lab()
    steps = {}
    while not lab.snapshot()["finished"]:
        steps |= steps_by_id(lab.apply("step", {}))
    assert [steps[i]["command"] for i in ("A1", "B1")] == ["GET rate:user42"] * 2
    assert steps["A1"]["reply"] == steps["B1"]["reply"] == '"99"'
    assert steps["A2"]["admitted"] is steps["B2"]["admitted"] is True
    assert steps["A3"]["command"] == steps["B3"]["command"]
    assert steps["A3"]["command"] == "SET rate:user42 100 KEEPTTL"
    snapshot, metrics = lab.snapshot(), lab.metrics()
    assert snapshot["admitted"] == metrics["admitted"] == 101
    assert snapshot["overshoot"] == metrics["overshoot"] == 1
    assert snapshot["key"]["value"] == metrics["counter"] == 100  # a lost update
    assert [c["outcome"] for c in snapshot["clients"]] == ["admitted", "admitted"]


def test_incr_replies_100_and_101_and_admits_100():
    lab = make_lab()
    lab.apply("set_mode", {"mode": "incr"})
    assert lab.snapshot()["order"] == ["A1", "B1", "A2", "B2"]
    events = lab.apply("run_all", {})
    steps = steps_by_id(events)
    assert steps["A1"]["reply"] == "(integer) 100"
    assert steps["B1"]["reply"] == "(integer) 101"
    assert (steps["A2"]["admitted"], steps["B2"]["admitted"]) == (True, False)
    (done,) = of_type(events, "race_done")
    assert (done["admitted"], done["overshoot"], done["value"]) == (100, 0, 101)
    metrics = lab.metrics()
    assert (metrics["admitted"], metrics["refused"], metrics["overshoot"]) == (
        100,
        1,
        0,
    )


@pytest.mark.parametrize("order", ["A1 A2 A3 B1 B2 B3", "B1 B2 B3 A1 A2 A3"])
def test_one_client_after_the_other_stays_at_the_limit(order):
    lab = make_lab()
    lab.apply("set_order", {"order": order})
    lab.apply("run_all", {})
    snapshot = lab.snapshot()
    assert (snapshot["admitted"], snapshot["key"]["value"]) == (100, 100)
    assert sorted(c["outcome"] for c in snapshot["clients"]) == ["admitted", "refused"]


# -- every ordering, counted by the test's own brute force ---------------------------


def test_every_ordering_of_the_course_case_by_hand():
    """Two clients of three steps: 6! / (3! 3!) = 20 orders. Both admit unless one
    client's SET comes before the other's GET, which only the two orders that run
    one client wholly before the other do: 18 of the 20 admit 101."""
    (event,) = make_lab().apply("every_ordering", {})
    assert (event["orderings"], event["overshooting"]) == (20, 18)
    assert (event["worst_admitted"], event["fewest_admitted"]) == (101, 100)
    assert event["by_admitted"] == [[100, 2], [101, 18]]


@pytest.mark.parametrize(
    ("mode", "letters", "steps", "start", "play"),
    [
        ("read_check_write", "AB", 3, 99, read_check_write),
        ("read_check_write", "ABC", 3, 99, read_check_write),
        ("read_check_write", "ABC", 3, 98, read_check_write),
        ("read_check_write", "AB", 3, 98, read_check_write),
        ("read_check_write", "AB", 3, 100, read_check_write),
        ("incr", "AB", 2, 99, incr),
        ("incr", "ABC", 2, 98, incr),
        ("incr", "ABCD", 2, 99, incr),
    ],
)
def test_every_ordering_matches_a_brute_force(mode, letters, steps, start, play):
    lab = make_lab()
    lab.apply("set_mode", {"mode": mode})
    lab.apply("set_clients", {"count": len(letters)})
    lab.apply("set_admitted", {"count": start})
    (event,) = lab.apply("every_ordering", {})
    orders = list(interleavings(letters, steps))
    results = [play(turns, start) for turns in orders]
    totals = sorted({r: results.count(r) for r in results}.items())
    over = [
        as_ids(turns) for turns, r in zip(orders, results, strict=True) if r > LIMIT
    ]
    assert event["orderings"] == len(orders)
    assert event["overshooting"] == len(over)
    assert event["worst_admitted"] == max(results)
    assert event["by_admitted"] == [list(pair) for pair in totals]
    assert event["examples"] == over[:3]
    metrics = lab.metrics()
    assert metrics["orderings"] == len(orders)
    assert metrics["overshooting_orderings"] == len(over)


def test_three_clients_overshoot_in_all_but_the_orders_that_read_after_a_write():
    lab = make_lab()
    lab.apply("set_clients", {"count": 3})
    (event,) = lab.apply("every_ordering", {})
    assert event["orderings"] == 1_680  # 9! / 3!^3
    assert event["worst_admitted"] == 102
    assert 0 < event["overshooting"] < 1_680


def test_every_ordering_leaves_the_race_as_it_was():
    lab = make_lab()
    lab.apply("step", {})
    lab.apply("step", {})
    race = {k: v for k, v in lab.snapshot().items() if k != "enumeration"}
    lab.apply("every_ordering", {})
    after = {k: v for k, v in lab.snapshot().items() if k != "enumeration"}
    assert after == race
    assert lab.snapshot()["enumeration"]["this_case"] is True
    lab.apply("set_mode", {"mode": "lua"})
    assert lab.snapshot()["enumeration"]["this_case"] is False


def test_four_clients_of_three_steps_are_refused_and_say_how_many():
    lab = make_lab()
    lab.apply("set_clients", {"count": 4})
    assert lab.snapshot()["orderings_possible"] == 369_600 > MAX_ORDERINGS
    before = lab.digest()
    with pytest.raises(ActionError) as caught:
        lab.apply("every_ordering", {})
    assert caught.value.code == "too_many_orderings"
    assert "369,600" in caught.value.message
    assert lab.digest() == before
    lab.apply("set_mode", {"mode": "incr"})  # four clients of two steps: 2,520
    (event,) = lab.apply("every_ordering", {})
    assert (event["orderings"], event["overshooting"]) == (2_520, 0)


# -- the pitfall: INCR and EXPIRE as two commands ------------------------------------


def new_minute(mode: str) -> RateLimitRaceLab:
    """A lab counting in `mode` from a new minute: no counter yet."""
    lab = make_lab()
    lab.apply("set_mode", {"mode": mode})
    lab.apply("set_admitted", {"count": 0})
    assert lab.snapshot()["key"]["exists"] is False
    return lab


def test_a_client_dying_between_incr_and_expire_leaves_a_counter_for_ever():
    lab = new_minute("incr_then_expire")
    (incr_step,) = lab.apply("step", {})
    assert (incr_step["command"], incr_step["reply"]) == (
        "INCR rate:user42",
        "(integer) 1",
    )
    (crash,) = lab.apply("crash_client", {"client": "A"})
    assert (crash["after"], crash["dropped"]) == ("A1", ["A2"])
    assert (crash["value"], crash["ttl"]) == (1, "none")
    steps = steps_by_id(lab.apply("run_all", {}))
    assert steps["B1"]["reply"] == "(integer) 2"
    assert steps["B2"]["skipped"] is True  # only the INCR that replied 1 sends EXPIRE
    assert lab.snapshot()["clients"][0]["crashed"] is True
    (passed,) = lab.apply("pass_time", {"seconds": 61})
    assert passed["expired"] is False
    key = lab.snapshot()["key"]
    assert (key["exists"], key["value"], key["ttl"]) == (True, 2, "none")
    # it counts on across minutes: the limit's worth of requests later, locked out
    (sent,) = lab.apply("new_request", {"count": 100})
    assert (sent["admitted"], sent["refused"]) == (98, 2)
    assert sent["locked_out"] is True
    lab.apply("pass_time", {"seconds": 3_600})
    (later,) = lab.apply("new_request", {"count": 1})
    assert (later["admitted"], later["refused"]) == (0, 1)
    snapshot = lab.snapshot()
    assert snapshot["locked_out"] is True and lab.metrics()["locked_out"] is True
    assert snapshot["key"]["ttl"] == "none" and snapshot["key"]["value"] == 103
    assert snapshot["later"]["last"][-1]["admitted"] is False


def test_without_the_crash_incr_then_expire_gives_the_counter_its_minute():
    lab = new_minute("incr_then_expire")
    steps = steps_by_id(lab.apply("run_all", {}))
    assert steps["A2"]["command"] == "EXPIRE rate:user42 60"
    assert steps["A2"]["reply"] == "(integer) 1"
    assert lab.snapshot()["key"]["ttl"] == 60
    (passed,) = lab.apply("pass_time", {"seconds": 61})
    assert passed["expired"] is True and passed["expired_at"] == 60


def test_the_lua_script_counts_and_sets_the_expiry_in_one_step():
    lab = new_minute("lua")
    (step,) = lab.apply("step", {})
    assert step["command"].startswith("EVAL ") and step["reply"] == "(integer) 1"
    assert lab.snapshot()["key"]["ttl"] == 60
    # its one step is done: there is no moment between INCR and EXPIRE to die in
    with pytest.raises(ActionError) as caught:
        lab.apply("crash_client", {"client": "A"})
    assert caught.value.code == "client_finished"
    lab.apply("crash_client", {"client": "B"})
    (passed,) = lab.apply("pass_time", {"seconds": 61})
    assert passed["expired"] is True
    assert lab.snapshot()["key"]["exists"] is False
    (later,) = lab.apply("new_request", {"count": 1})
    assert (later["admitted"], later["value"], later["ttl"]) == (1, 1, 60)


def test_set_nx_before_the_incr_gives_the_counter_its_expiry_first():
    lab = new_minute("set_nx_then_incr")
    (set_step,) = lab.apply("step", {})
    assert set_step["command"] == "SET rate:user42 0 EX 60 NX"
    assert set_step["reply"] == "OK"
    lab.apply("crash_client", {"client": "A"})
    assert lab.snapshot()["key"]["ttl"] == 60
    steps = steps_by_id(lab.apply("run_all", {}))
    assert steps["B1"]["reply"] == "(nil)"  # the key is there: NX sets nothing
    assert steps["B2"]["reply"] == "(integer) 1"
    (passed,) = lab.apply("pass_time", {"seconds": 61})
    assert passed["expired"] is True
    assert lab.snapshot()["key"]["exists"] is False
    assert lab.snapshot()["locked_out"] is False


@pytest.mark.parametrize(
    "mode", ["read_check_write", "incr", "incr_then_expire", "lua", "set_nx_then_incr"]
)
def test_a_counter_made_before_the_race_expires_with_its_minute(mode):
    lab = make_lab()
    lab.apply("set_mode", {"mode": mode})
    assert lab.snapshot()["key"]["ttl"] == 30
    lab.apply("run_all", {})
    (early,) = lab.apply("pass_time", {"seconds": 29})
    assert early["expired"] is False and early["ttl"] == 1
    (late,) = lab.apply("pass_time", {"seconds": 1})
    assert late["expired"] is True and late["value"] is None


# -- the rest of the controls --------------------------------------------------------


def test_an_order_set_is_played_from_the_start():
    lab = make_lab()
    lab.apply("run_all", {})
    lab.apply("pass_time", {"seconds": 5})
    (event,) = lab.apply("set_order", {"order": "a1, a2,b1 ,B2 A3 B3"})
    assert event["order"] == ["A1", "A2", "B1", "B2", "A3", "B3"]
    snapshot = lab.snapshot()
    assert (snapshot["position"], snapshot["clock_s"]) == (0, 0)
    assert snapshot["key"]["value"] == 99 and snapshot["admitted"] == 99
    assert snapshot["order_text"] == "A1 A2 B1 B2 A3 B3"
    lab.apply("run_all", {})
    assert lab.snapshot()["admitted"] == 101


def test_a_crash_takes_the_clients_steps_out_of_the_order_until_reset():
    lab = make_lab()
    lab.apply("step", {})  # A1
    lab.apply("crash_client", {"client": "B"})  # before its first step
    snapshot = lab.snapshot()
    assert snapshot["order"] == ["A1", "A2", "A3"]
    assert snapshot["crashed"] == [
        {"client": "B", "after": None, "dropped": ["B1", "B2", "B3"]}
    ]
    assert snapshot["crashable"] == ["A"]
    b = snapshot["clients"][1]
    assert b["outcome"] == "crashed" and all(s["dropped"] for s in b["steps"])
    lab.apply("run_all", {})
    assert lab.snapshot()["admitted"] == 100
    lab.apply("reset", {})
    snapshot = lab.snapshot()
    assert snapshot["order"] == ["A1", "B1", "A2", "B2", "A3", "B3"]
    assert snapshot["crashed"] == [] and snapshot["crashable"] == ["A", "B"]


def test_crashing_the_last_client_ends_the_race():
    lab = make_lab()
    lab.apply("set_order", {"order": "A1 A2 A3 B1 B2 B3"})
    lab.apply("run_all", {})
    lab.apply("reset", {})
    for _ in range(3):
        lab.apply("step", {})
    events = lab.apply("crash_client", {"client": "B"})
    assert [e["type"] for e in events] == ["client_crashed", "race_done"]
    assert lab.snapshot()["finished"] is True and lab.snapshot()["next"] is None


def test_shuffles_draw_new_interleavings_from_the_seed():
    lab = make_lab(3)
    orders = [lab.apply("shuffle", {})[0]["order"] for _ in range(12)]
    assert len({tuple(order) for order in orders}) > 3
    again = make_lab(3)
    assert [again.apply("shuffle", {})[0]["order"] for _ in range(12)] == orders
    assert lab.snapshot()["shuffles"] == 12 and lab.snapshot()["position"] == 0


def test_a_client_step_shows_its_command_before_and_its_reply_after():
    lab = make_lab()
    lab.apply("step", {})  # A1: GET
    a_steps = lab.snapshot()["clients"][0]["steps"]
    assert [s["done"] for s in a_steps] == [True, False, False]
    assert a_steps[0]["reply"] == '"99"' and a_steps[0]["seq"] == 1
    assert a_steps[1]["command"] == "99 < 100 ?" and a_steps[1]["kind"] == "local"
    assert a_steps[2]["command"] == "SET rate:user42 100 KEEPTTL"
    assert a_steps[2]["condition"] == "if_admitted"
    assert [s["decides"] for s in a_steps] == [False, True, False]
    canonical_json(lab.state())


def test_a_refused_read_check_write_request_writes_nothing():
    lab = make_lab()
    lab.apply("set_admitted", {"count": 100})
    steps = steps_by_id(lab.apply("run_all", {}))
    assert steps["A2"]["admitted"] is False and steps["A3"]["skipped"] is True
    assert steps["A3"]["command"] is None
    assert lab.snapshot()["key"]["value"] == 100 and lab.metrics()["refused"] == 2


def test_the_first_request_of_a_minute_sets_the_expiry_with_its_write():
    lab = new_minute("read_check_write")
    steps = steps_by_id(lab.apply("run_all", {}))
    assert steps["A1"]["reply"] == "(nil)"
    assert steps["A3"]["command"] == "SET rate:user42 1 EX 60"
    snapshot = lab.snapshot()
    assert (snapshot["key"]["value"], snapshot["key"]["ttl"]) == (1, 60)
    assert snapshot["admitted"] == 2  # both read nothing: two admitted, counter 1


# -- declared costs --------------------------------------------------------------------


def test_the_declared_cost_of_every_ordering_follows_the_count():
    """Declared by the number of orderings (20, 1,680, 2,520), known from the mode
    and the clients alone: a straight line in the count; refused ones cost least."""
    costs = RateLimitRaceLab.cost_model(RateLimitRaceLab)
    two = costs.cost_of("every_ordering", {})
    costs.cost_of("set_clients", {"count": 3})
    three = costs.cost_of("every_ordering", {})
    costs.cost_of("set_clients", {"count": 4})
    refused = costs.cost_of("every_ordering", {})  # 369,600: refused unplayed
    costs.cost_of("set_mode", {"mode": "incr"})
    four_incr = costs.cost_of("every_ordering", {})
    assert refused < two < three < four_incr
    per_ordering = (three - two) / (1_680 - 20)
    assert (four_incr - three) / (2_520 - 1_680) == pytest.approx(per_ordering)
    assert per_ordering >= 1  # a microsecond or more an ordering
    assert costs.cost_of("new_request", {"count": 200}) > costs.cost_of(
        "new_request", {"count": 1}
    )
