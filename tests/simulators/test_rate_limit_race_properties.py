"""rate-limit-race: properties over random orders, client counts and starting counts.

The outcomes are checked against a model of the five ways to count written here from
their description (a counter and what each client holds; no code of the lab's), and
against the plain arithmetic of an atomic counter: with INCR (or a Lua script) each of
c clients gets its own number, so exactly min(limit, admitted + c) are admitted in
every interleaving; read, check, write never admits fewer than that, and may admit
more.
"""

from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simulators.engine import ActionError, digest_of
from simulators.labs.rate_limit_race import RateLimitRaceLab
from simulators.labs.rate_limit_race.declaration import MAX_ORDERINGS

REPO = Path(__file__).resolve().parents[2]
LIMIT = 100
LETTERS = "ABCD"
MODES = ("read_check_write", "incr", "incr_then_expire", "lua", "set_nx_then_incr")
STEPS = {
    "read_check_write": 3,
    "incr": 2,
    "incr_then_expire": 2,
    "lua": 1,
    "set_nx_then_incr": 2,
}
SEEDS = st.integers(0, 2**53 - 1)


def model(mode: str, turns: list[str], start: int) -> tuple[int, int | None]:
    """(admitted, counter) after the clients take `turns` from `start` admitted.

    The counter is None when there is none (a new minute). No time passes.
    """
    counter = start if start else None
    step, held, admitted = Counter(), {}, {}
    for letter in turns:
        step[letter] += 1
        n = step[letter]
        if mode == "read_check_write":
            if n == 1:
                held[letter] = counter or 0
            elif n == 2:
                admitted[letter] = held[letter] < LIMIT
            elif admitted[letter]:
                counter = held[letter] + 1
        elif mode == "set_nx_then_incr" and n == 1:
            counter = 0 if counter is None else counter
        elif mode == "incr" and n == 2:
            admitted[letter] = held[letter] <= LIMIT
        elif n == 1 or mode == "set_nx_then_incr":  # the INCR (EXPIRE sets no count)
            counter = (counter or 0) + 1
            held[letter] = counter
            admitted[letter] = counter <= LIMIT
    return start + sum(admitted.values()), counter


def as_ids(turns: list[str]) -> str:
    seen: Counter = Counter()
    ids = []
    for letter in turns:
        seen[letter] += 1
        ids.append(f"{letter}{seen[letter]}")
    return " ".join(ids)


@st.composite
def races(draw, modes=MODES):
    """A mode, a number of clients, how many were admitted before, and an order."""
    mode = draw(st.sampled_from(modes))
    clients = draw(st.integers(2, 4))
    start = draw(st.integers(0, LIMIT))
    turns = [letter for letter in LETTERS[:clients] for _ in range(STEPS[mode])]
    turns = draw(st.permutations(turns))
    return mode, clients, start, list(turns)


def race(mode: str, clients: int, start: int, turns: list[str], seed: int = 1):
    lab = RateLimitRaceLab(seed=seed)
    lab.apply("set_mode", {"mode": mode})
    lab.apply("set_clients", {"count": clients})
    lab.apply("set_admitted", {"count": start})
    lab.apply("set_order", {"order": as_ids(turns)})
    events = lab.apply("run_all", {})
    return lab, events


# -- admitted, in every interleaving -------------------------------------------------


@settings(max_examples=300, deadline=None)
@given(races(modes=("incr", "incr_then_expire", "lua", "set_nx_then_incr")))
def test_an_atomic_incr_admits_exactly_the_limit_or_every_client(case):
    mode, clients, start, turns = case
    lab, events = race(mode, clients, start, turns)
    assert lab.metrics()["admitted"] == min(LIMIT, start + clients)
    assert lab.metrics()["overshoot"] == 0
    incrs = [e["reply"] for e in events if e.get("command") == "INCR rate:user42"]
    incrs += [e["reply"] for e in events if (e.get("command") or "").startswith("EVAL")]
    # every client its own number: start + 1 … start + c, in the order they ran
    assert incrs == [f"(integer) {start + i}" for i in range(1, clients + 1)]
    assert (lab.metrics()["admitted"], lab.snapshot()["key"]["value"]) == model(
        mode, turns, start
    )


@settings(max_examples=300, deadline=None)
@given(races(modes=("read_check_write",)))
def test_read_check_write_never_admits_fewer_than_incr_and_matches_the_model(case):
    mode, clients, start, turns = case
    lab, _events = race(mode, clients, start, turns)
    admitted = lab.metrics()["admitted"]
    assert admitted >= min(LIMIT, start + clients)
    assert admitted <= start + clients
    assert (admitted, lab.snapshot()["key"]["value"]) == model(mode, turns, start)
    # it overshoots only when a client read below the limit before the limit was hit
    assert lab.metrics()["overshoot"] == max(0, admitted - LIMIT)


@settings(max_examples=100, deadline=None)
@given(races(modes=("read_check_write",)))
def test_read_check_write_in_turn_is_as_safe_as_incr(case):
    """One client wholly after another: each reads what the last one wrote."""
    mode, clients, start, _turns = case
    serial = [letter for letter in LETTERS[:clients] for _ in range(STEPS[mode])]
    lab, _events = race(mode, clients, start, serial)
    assert lab.metrics()["admitted"] == min(LIMIT, start + clients)


CASES = [
    (mode, clients)
    for mode in MODES
    for clients in (2, 3, 4)
    if not (mode == "read_check_write" and clients == 4)
]


def interleavings(letters: str, steps: int) -> list[list[str]]:
    """Every distinct order of `steps` turns per client, lexicographic."""
    if not letters:
        return [[]]
    orders = [[]]
    for letter in letters:  # place each client's turns among those placed so far
        grown = []
        for order in orders:
            size = len(order) + steps
            for places in _places(size, steps):
                it = iter(order)
                grown.append([letter if i in places else next(it) for i in range(size)])
        orders = grown
    return sorted(orders)


def _places(size: int, count: int, first: int = 0):
    if count == 0:
        yield frozenset()
        return
    for i in range(first, size - count + 1):
        for rest in _places(size, count - 1, i + 1):
            yield rest | {i}


@pytest.mark.parametrize(("mode", "clients"), CASES)
@pytest.mark.parametrize("start", [0, 97, 99])
def test_every_ordering_counts_what_the_model_counts(mode, clients, start):
    lab = RateLimitRaceLab(seed=1)
    lab.apply("set_mode", {"mode": mode})
    lab.apply("set_clients", {"count": clients})
    lab.apply("set_admitted", {"count": start})
    (event,) = lab.apply("every_ordering", {})
    orders = interleavings(LETTERS[:clients], STEPS[mode])
    admitted = [model(mode, turns, start)[0] for turns in orders]
    over = [as_ids(t) for t, a in zip(orders, admitted, strict=True) if a > LIMIT]
    assert event["orderings"] == len(orders) <= MAX_ORDERINGS
    assert event["by_admitted"] == sorted([a, n] for a, n in Counter(admitted).items())
    assert event["overshooting"] == len(over)
    assert event["examples"] == over[:3]
    if mode != "read_check_write":
        assert set(admitted) == {min(LIMIT, start + clients)}


# -- the scheduler -------------------------------------------------------------------


def test_shuffled_interleavings_are_drawn_uniformly():
    """2,000 draws over the 20 orders of the course's case: a chi-squared test with
    19 degrees of freedom, the bound its 1-in-a-million tail (about 61)."""
    lab = RateLimitRaceLab(seed=11)
    drawn = Counter(tuple(lab.apply("shuffle", {})[0]["order"]) for _ in range(2_000))
    assert len(drawn) == 20
    expected = 2_000 / 20
    chi2 = sum((n - expected) ** 2 / expected for n in drawn.values())
    assert chi2 < 61, chi2


@settings(max_examples=50, deadline=None)
@given(SEEDS, st.sampled_from(MODES), st.integers(2, 4), st.integers(1, 5))
def test_a_shuffled_order_is_one_the_lab_accepts(seed, mode, clients, draws):
    lab = RateLimitRaceLab(seed=seed)
    lab.apply("set_mode", {"mode": mode})
    lab.apply("set_clients", {"count": clients})
    for _ in range(draws):
        (event,) = lab.apply("shuffle", {})
    other = RateLimitRaceLab(seed=seed)
    other.apply("set_mode", {"mode": mode})
    other.apply("set_clients", {"count": clients})
    other.apply("set_order", {"order": " ".join(event["order"])})
    assert other.snapshot()["order"] == event["order"]


def test_other_seeds_shuffle_otherwise():
    def draws(seed):
        lab = RateLimitRaceLab(seed=seed)
        return [tuple(lab.apply("shuffle", {})[0]["order"]) for _ in range(5)]

    assert len({tuple(draws(seed)) for seed in (1, 2, 3)}) == 3


# -- any history ---------------------------------------------------------------------

ORDER_TEXT = st.lists(
    st.sampled_from([f"{c}{n}" for c in "ABCDE" for n in range(0, 5)]), max_size=13
).map(" ".join)
ACTION = st.one_of(
    st.tuples(st.just("step"), st.just({})),
    st.tuples(st.just("run_all"), st.just({})),
    st.tuples(st.just("reset"), st.just({})),
    st.tuples(st.just("shuffle"), st.just({})),
    st.tuples(st.just("every_ordering"), st.just({})),
    st.tuples(
        st.just("set_mode"), st.fixed_dictionaries({"mode": st.sampled_from(MODES)})
    ),
    st.tuples(
        st.just("set_clients"), st.fixed_dictionaries({"count": st.integers(1, 5)})
    ),
    st.tuples(
        st.just("set_admitted"),
        st.fixed_dictionaries({"count": st.integers(-1, 101)}),
    ),
    st.tuples(st.just("set_order"), st.fixed_dictionaries({"order": ORDER_TEXT})),
    st.tuples(
        st.just("crash_client"),
        st.fixed_dictionaries({"client": st.sampled_from(list("ABCDE"))}),
    ),
    st.tuples(
        st.just("pass_time"),
        st.fixed_dictionaries({"seconds": st.integers(0, 200)}),
    ),
    st.tuples(
        st.just("new_request"), st.fixed_dictionaries({"count": st.integers(0, 120)})
    ),
)


def play(seed: int, actions: list) -> tuple[RateLimitRaceLab, list]:
    """A lab after `actions` (refused ones change nothing and are skipped)."""
    lab = RateLimitRaceLab(seed=seed)
    costs = RateLimitRaceLab.cost_model(RateLimitRaceLab)
    events = []
    for name, args in actions:
        before = lab.digest()
        try:
            declared = costs.cost_of(name, args)
        except ActionError:
            declared = None
        try:
            events.append(lab.apply(name, args))
        except ActionError:
            assert lab.digest() == before, (seed, name, args)
            continue
        assert declared is not None, (name, args)  # what the lab takes, costs know
        assert_sound(lab)
        # the cost model follows the case the lab is in
        assert costs.scale == (lab.mode, lab.client_count)
    return lab, events


def assert_sound(lab) -> None:
    """What holds after every action."""
    snapshot, metrics = lab.snapshot(), lab.metrics()
    clients = snapshot["clients"]
    assert [c["name"] for c in clients] == list(LETTERS[: snapshot["client_count"]])
    done = sorted((s["seq"], s["id"]) for c in clients for s in c["steps"] if s["done"])
    assert [seq for seq, _ in done] == list(range(1, snapshot["position"] + 1))
    assert [step for _, step in done] == snapshot["order"][: snapshot["position"]]
    assert snapshot["finished"] == (snapshot["position"] == len(snapshot["order"]))
    for client in clients:
        ids = [s["id"] for s in client["steps"]]
        assert ids == [f"{client['name']}{n}" for n in range(1, len(ids) + 1)]
        flags = [s["done"] for s in client["steps"]]
        assert flags == sorted(flags, reverse=True)  # in program order
        assert not any(s["done"] and s["dropped"] for s in client["steps"])
    admitted = sum(c["outcome"] == "admitted" for c in clients)
    assert snapshot["admitted"] == metrics["admitted"]
    assert metrics["admitted"] == snapshot["starting_admitted"] + admitted
    assert metrics["overshoot"] == max(0, metrics["admitted"] - LIMIT)
    key = snapshot["key"]
    if key["exists"]:
        assert key["ttl"] == "none" or 0 < key["ttl"] <= 60
        assert metrics["locked_out"] == (key["ttl"] == "none" and key["value"] >= LIMIT)
    else:
        assert key["value"] is key["ttl"] is None and not metrics["locked_out"]
    crashable = [
        c["name"]
        for c in clients
        if not c["crashed"] and not all(s["done"] for s in c["steps"])
    ]
    assert snapshot["crashable"] == crashable


@settings(max_examples=60, deadline=None)
@given(SEEDS, st.lists(ACTION, max_size=16))
def test_the_same_seed_and_actions_reach_the_same_digest(seed, actions):
    first, first_events = play(seed, actions)
    second, second_events = play(seed, actions)
    assert first.digest() == second.digest()
    assert digest_of(first_events) == digest_of(second_events)
