"""scatter-gather: what LABS.md says the lab must show, pinned.

By key: one shard, one index lookup, one answer. Without it: N queries for one result,
answered when the slowest shard answers, so the p99 of the answer grows with N. The
departures board asks every shard placed by flight_id and one placed by (origin,
departure_time); one aircraft's last hour is one range on one shard under the compound
key; a local index asks every shard, a global one one shard, and misses a fresh write
until its entry lands.
"""

import pytest

from simulators.engine import canonical_json
from simulators.engine.hashing import murmur
from simulators.labs.scatter_gather import ScatterGatherLab
from simulators.labs.scatter_gather.declaration import LADDER
from simulators.labs.scatter_gather.schedule import BOARD_ROWS, HISTORY_MINUTES

SEEDS = (0, 1, 7)
WRITE = {"origin": "LAX", "destination": "JFK", "aircraft": "N10003"}
GLOBAL_JFK = {"kind": "global", "column": "destination", "value": "JFK"}
LOCAL_JFK = {**GLOBAL_JFK, "kind": "local"}


def make_lab(seed: int = 1, **options) -> ScatterGatherLab:
    return ScatterGatherLab(seed=seed, **options)


def only_query(events: list[dict]) -> dict:
    (query,) = [e for e in events if e["type"] == "query"]
    return query


def assert_gathered(query: dict, shard_count: int) -> None:
    """Every answer from an existing shard, each once, and the latency the slowest's."""
    answers = query["answers"]
    shards = [a["shard"] for a in answers]
    assert shards == sorted(set(shards)) and all(0 <= s < shard_count for s in shards)
    assert query["shards_asked"] == len(answers) == query["index_lookups"]
    slowest = max(a["latency_us"] for a in answers)
    assert query["latency_us"] == slowest
    assert [a["latency_us"] for a in answers if a["shard"] == query["slowest"]] == [
        slowest
    ]
    assert sorted(query["arrival_order"]) == shards
    assert query["arrival_order"][-1] == query["slowest"]
    assert all(a["latency_us"] > 0 for a in answers)


# -- by key, and without it ---------------------------------------------------------


@pytest.mark.parametrize("shards", [1, 5, 8, 64])
@pytest.mark.parametrize("flight_id", [1, 7, 250, 500])
def test_a_query_by_key_asks_one_shard_with_one_index_lookup_and_one_answer(
    shards, flight_id
):
    lab = make_lab(shards=shards)
    query = only_query(lab.apply("query_by_key", {"flight_id": flight_id}))
    assert query["kind"] == "by_key"
    assert (query["shards_asked"], query["index_lookups"], query["rows"]) == (1, 1, 1)
    (answer,) = query["answers"]
    assert answer["shard"] == murmur(str(flight_id)) % shards
    assert query["hash"] == murmur(str(flight_id))
    assert query["flight"]["flight_id"] == flight_id
    assert query["latency_us"] == answer["latency_us"]
    assert_gathered(query, shards)
    assert lab.metrics()["last_query"]["shards_asked"] == 1


@pytest.mark.parametrize("shards", [1, 2, 8, 13, 64])
def test_a_query_without_the_key_asks_all_n_and_answers_with_the_slowest(shards):
    lab = make_lab(3, shards=shards)
    for _ in range(5):
        query = only_query(lab.apply("query_scatter", {}))
        assert query["kind"] == "scatter"
        assert query["shards_asked"] == shards
        assert [a["shard"] for a in query["answers"]] == list(range(shards))
        assert_gathered(query, shards)
        assert sum(a["rows"] for a in query["answers"]) == query["rows"] > 0
    metrics = lab.metrics()
    assert metrics["queries"]["scatter"] == 5
    assert metrics["shard_requests"] == 5 * shards


def test_one_slow_shard_sets_the_pace_of_every_query_without_the_key():
    lab = make_lab(2, shards=8)
    lab.apply("slow_shard", {"shard": 3, "factor": 50})
    slowest = [only_query(lab.apply("query_scatter", {}))["slowest"] for _ in range(30)]
    assert slowest.count(3) >= 28
    by_key = [
        only_query(lab.apply("query_by_key", {"flight_id": f}))["answers"][0]
        for f in range(1, 40)
    ]
    # by key, only the queries that land on shard 3 are slow
    assert {a["shard"] for a in by_key if a["slow_factor"] == 50} == {3}
    assert any(a["slow_factor"] == 1 for a in by_key)


def test_p99_of_the_slowest_answer_grows_with_n_measured_over_the_ladder():
    lab = make_lab(5, shards=8)
    (event,) = lab.apply("measure", {"count": 10_000})
    points = [p for p in event["points"] if p["on_ladder"]]
    assert [p["shards"] for p in points] == list(LADDER)
    measured = [p["p99_us"] for p in points]
    analytic = [p["analytic_p99_us"] for p in points]
    assert all(a < b for a, b in zip(measured, measured[1:], strict=False)), measured
    assert all(a < b for a, b in zip(analytic, analytic[1:], strict=False)), analytic
    medians = [p["p50_us"] for p in points]
    assert all(a < b for a, b in zip(medians, medians[1:], strict=False)), medians
    # about 16 ms at one shard, about 35 ms at 64: what the tour says
    assert analytic[0] == pytest.approx(16_150, abs=50)
    assert analytic[-1] == pytest.approx(34_750, abs=50)
    assert measured[-1] > 1.8 * measured[0]  # the worst of 64 draws, not of one
    assert lab.snapshot()["measured"] == {k: v for k, v in event.items() if k != "type"}
    assert lab.metrics()["measured"]["shards"] == 8


# -- placements: the board and the compound key -------------------------------------


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("airport", ["LAX", "JFK", "NRT"])
def test_the_board_placed_by_flight_id_asks_every_shard_and_by_origin_time_one(
    seed, airport
):
    lab = make_lab(seed, shards=8)
    spread = only_query(
        lab.apply("board", {"airport": airport, "placement": "flight_id"})
    )
    ranged = only_query(
        lab.apply("board", {"airport": airport, "placement": "origin_time"})
    )
    assert spread["shards_asked"] == 8 and ranged["shards_asked"] == 1
    assert ranged["answers"][0]["shard"] == murmur(airport) % 8
    assert ranged["ranges"] == 1
    assert_gathered(spread, 8)
    # the same board either way: the next departures, in order, at most eight
    rows = [(r["flight_id"], r["departure_time"]) for r in spread["board"]]
    assert rows == [(r["flight_id"], r["departure_time"]) for r in ranged["board"]]
    assert 0 < len(rows) <= BOARD_ROWS == 8
    assert [t for _, t in rows] == sorted(t for _, t in rows)
    assert all(t > "12:00" for _, t in rows)
    assert spread["rows"] == ranged["rows"] == len(rows)
    assert {r["shard"] for r in ranged["board"]} == {ranged["answers"][0]["shard"]}


@pytest.mark.parametrize("aircraft", ["N10000", "N10003", "N10015"])
def test_one_aircrafts_last_hour_is_one_range_on_one_shard_under_the_compound_key(
    aircraft,
):
    lab = make_lab(4, shards=16)
    compound = only_query(
        lab.apply(
            "aircraft_history", {"aircraft": aircraft, "placement": "aircraft_time"}
        )
    )
    assert (compound["shards_asked"], compound["ranges"]) == (1, 1)
    assert compound["answers"][0]["shard"] == murmur(aircraft) % 16
    assert compound["answers"][0]["rows"] == compound["rows"] == HISTORY_MINUTES
    spread = only_query(
        lab.apply("aircraft_history", {"aircraft": aircraft, "placement": "report_id"})
    )
    assert spread["shards_asked"] == spread["ranges"] == 16
    assert sum(a["rows"] for a in spread["answers"]) == HISTORY_MINUTES
    assert sum(a["rows"] > 0 for a in spread["answers"]) > 8  # an hour spread wide


# -- secondary indexes ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("column", "value"),
    [("destination", "JFK"), ("origin", "FRA"), ("aircraft", "N10007")],
)
def test_a_local_index_asks_every_shard_and_the_global_one_one_shard(column, value):
    lab = make_lab(6, shards=12)
    local = only_query(
        lab.apply("index_query", {"kind": "local", "column": column, "value": value})
    )
    global_ = only_query(
        lab.apply("index_query", {"kind": "global", "column": column, "value": value})
    )
    assert local["shards_asked"] == local["index_lookups"] == 12
    assert global_["shards_asked"] == global_["index_lookups"] == 1
    assert global_["answers"][0]["shard"] == murmur(f"{column}={value}") % 12
    assert global_["index_shard"] == global_["answers"][0]["shard"]
    assert local["flight_ids"] == global_["flight_ids"] != []
    assert sum(a["rows"] for a in local["answers"]) == local["rows"]


def test_a_global_index_read_misses_a_fresh_write_and_finds_it_later():
    lab = make_lab(1, shards=8)
    (written,) = lab.apply("write_flight", WRITE)
    fresh = written["flight"]["flight_id"]
    assert (written["local_index"], written["global_index"]) == ("written", "pending")
    assert lab.metrics()["global_index_pending"] == 1
    missed, *landed = lab.apply("index_query", GLOBAL_JFK)
    assert fresh not in missed["flight_ids"] and missed["missed"] == [fresh]
    assert landed == [{"type": "global_index_written", "flight_ids": [fresh]}]
    assert lab.metrics()["global_index_pending"] == 0
    found = only_query(lab.apply("index_query", GLOBAL_JFK))
    assert fresh in found["flight_ids"] and found["missed"] == []
    assert found["rows"] == missed["rows"] + 1


def test_a_local_index_finds_a_fresh_write_at_once():
    lab = make_lab(1, shards=8)
    (written,) = lab.apply("write_flight", WRITE)
    fresh = written["flight"]["flight_id"]
    local = only_query(lab.apply("index_query", LOCAL_JFK))
    assert fresh in local["flight_ids"] and local["missed"] == []
    (holder,) = [a for a in local["answers"] if a["shard"] == written["shard"]]
    assert holder["rows"] >= 1
    # and the row itself, by its key, on the shard the write said
    by_key = only_query(lab.apply("query_by_key", {"flight_id": fresh}))
    assert by_key["answers"][0]["shard"] == written["shard"]
    assert by_key["flight"]["destination"] == "JFK"


def test_any_operation_lets_the_global_entry_land():
    lab = make_lab(1, shards=8)
    lab.apply("write_flight", WRITE)
    events = lab.apply("slow_shard", {"shard": 2, "factor": 4})
    assert events[-1]["type"] == "global_index_written"
    assert lab.snapshot()["written"][0]["in_global_index"] is True
    assert only_query(lab.apply("index_query", GLOBAL_JFK))["missed"] == []


# -- the shards ----------------------------------------------------------------------


def test_fewer_shards_forget_the_slow_factors_of_the_shards_that_went():
    lab = make_lab(1, shards=16)
    lab.apply("slow_shard", {"shard": 2, "factor": 5})
    lab.apply("slow_shard", {"shard": 12, "factor": 9})
    lab.apply("query_scatter", {})
    (event,) = lab.apply("set_shards", {"count": 8})
    assert event == {
        "type": "shards_set",
        "count": 8,
        "before": 16,
        "cleared_slow": [12],
    }
    snapshot = lab.snapshot()
    assert [s["slow_factor"] for s in snapshot["shards"]] == [1, 1, 5, 1, 1, 1, 1, 1]
    assert snapshot["last_query"] is None
    assert sum(s["flights"] for s in snapshot["shards"]) == snapshot["flights"] == 500
    lab.apply("slow_shard", {"shard": 2, "factor": 1})
    assert lab.metrics()["slow_shards"] == 0


def test_the_analytic_curve_follows_a_slowed_shard():
    lab = make_lab(1, shards=8)
    healthy = {p["shards"]: p for p in lab.metrics()["analytic"]}
    lab.apply("slow_shard", {"shard": 5, "factor": 10})
    slowed = {p["shards"]: p for p in lab.metrics()["analytic"]}
    # shard 5 is only in clusters of six shards or more
    assert slowed[1] == healthy[1] and slowed[4] == healthy[4]
    assert slowed[8]["p99_us"] > 9 * healthy[1]["p99_us"]
    # one shard ten times slower is the tail: 63 healthy ones hardly add to it
    assert slowed[64]["p99_us"] >= slowed[8]["p99_us"] > healthy[64]["p99_us"]


# -- the tour ------------------------------------------------------------------------


def test_the_tour_is_sound():
    assert 3 <= len(ScatterGatherLab.tour) <= 6
    assert ScatterGatherLab.tour_problems() == []
    canonical_json(ScatterGatherLab.declaration())


@pytest.mark.parametrize("seed", SEEDS)
def test_the_tour_runs_by_show_me_alone_and_shows_its_point(seed):
    lab = make_lab(seed)
    frames = {}
    for step in lab.tour:
        name, args = step.show_me
        events = lab.apply(name, args)
        assert step.done_by(name, events), step.id
        frames[step.id] = events
    assert only_query(frames["by-key"])["shards_asked"] == 1
    assert only_query(frames["scatter"])["shards_asked"] == 8
    points = frames["measure"][0]["points"]
    p99 = [p["p99_us"] for p in points if p["on_ladder"]]
    assert p99 == sorted(p99) and p99[0] < 20_000 < 30_000 < p99[-1]
    assert only_query(frames["board"])["shards_asked"] == 1
    fresh = frames["write"][0]["flight"]["flight_id"]
    assert only_query(frames["global-index"])["missed"] == [fresh]
    canonical_json(lab.state())
