"""scatter-gather: bad input refused with a code and a reason, the digest unchanged."""

import pytest

from simulators.engine import ActionError
from simulators.labs.scatter_gather import ScatterGatherLab

JFK = {"kind": "global", "column": "destination", "value": "JFK"}
WRITE = {"origin": "LAX", "destination": "JFK", "aircraft": "N10003"}

REFUSED = [
    # the number of shards: 1 to 64
    ("set_shards", {"count": 0}, "out_of_range"),
    ("set_shards", {"count": 65}, "out_of_range"),
    ("set_shards", {"count": -8}, "out_of_range"),
    ("set_shards", {"count": 10**12}, "out_of_range"),
    ("set_shards", {"count": "8"}, "bad_type"),
    ("set_shards", {"count": True}, "bad_type"),
    ("set_shards", {"count": 8.0}, "bad_type"),
    ("set_shards", {}, "missing_argument"),
    ("set_shards", {"count": 8, "shards": 8}, "unknown_argument"),
    ("set_shards", [8], "bad_args"),
    # slowing a shard that does not exist (the lab has 8: 0 … 7)
    ("slow_shard", {"shard": 8, "factor": 5}, "no_such_shard"),
    ("slow_shard", {"shard": 63, "factor": 5}, "no_such_shard"),
    ("slow_shard", {"shard": 64, "factor": 5}, "out_of_range"),
    ("slow_shard", {"shard": -1, "factor": 5}, "out_of_range"),
    ("slow_shard", {"shard": "3", "factor": 5}, "bad_type"),
    ("slow_shard", {"shard": 3, "factor": 0}, "out_of_range"),
    ("slow_shard", {"shard": 3, "factor": 51}, "out_of_range"),
    ("slow_shard", {"shard": 3, "factor": 2.5}, "bad_type"),
    ("slow_shard", {"shard": 3}, "missing_argument"),
    # a column that does not exist, or a value no flight can hold
    ("index_query", {**JFK, "column": "gate"}, "bad_choice"),
    ("index_query", {**JFK, "column": "flight_id"}, "bad_choice"),
    ("index_query", {**JFK, "column": "Destination"}, "bad_choice"),
    ("index_query", {**JFK, "kind": "remote"}, "bad_choice"),
    ("index_query", {**JFK, "value": "XYZ"}, "unknown_value"),
    ("index_query", {**JFK, "value": "jfk"}, "unknown_value"),
    ("index_query", {**JFK, "value": "N10003"}, "unknown_value"),
    ("index_query", {**JFK, "column": "aircraft"}, "unknown_value"),
    ("index_query", {**JFK, "value": ""}, "empty"),
    ("index_query", {**JFK, "value": "N1000000000"}, "too_long"),
    ("index_query", {**JFK, "value": "\ud800"}, "bad_text"),
    ("index_query", {**JFK, "value": 7}, "bad_type"),
    ("index_query", {"kind": "local", "column": "origin"}, "missing_argument"),
    # measuring more queries than the bound, or fewer
    ("measure", {"count": 20_001}, "out_of_range"),
    ("measure", {"count": 10**9}, "out_of_range"),
    ("measure", {"count": 99}, "out_of_range"),
    ("measure", {"count": 0}, "out_of_range"),
    ("measure", {"count": "10000"}, "bad_type"),
    # flights that do not exist
    ("query_by_key", {"flight_id": 0}, "out_of_range"),
    ("query_by_key", {"flight_id": -7}, "out_of_range"),
    ("query_by_key", {"flight_id": 601}, "out_of_range"),
    ("query_by_key", {"flight_id": 10**18}, "out_of_range"),
    ("query_by_key", {"flight_id": 502}, "no_such_flight"),
    ("query_by_key", {"flight_id": 600}, "no_such_flight"),
    ("query_by_key", {"flight_id": "7"}, "bad_type"),
    ("query_by_key", {"flight_id": 7.0}, "bad_type"),
    ("query_by_key", {"flight_id": None}, "bad_type"),
    ("query_by_key", {"flight_id": False}, "bad_type"),
    ("query_by_key", {}, "missing_argument"),
    ("query_scatter", {"where": "departure_time > now()"}, "unknown_argument"),
    # placements, airports and aircraft outside their choices
    ("board", {"airport": "XXX", "placement": "flight_id"}, "bad_choice"),
    ("board", {"airport": "LAX", "placement": "origin"}, "bad_choice"),
    ("board", {"airport": "LAX"}, "missing_argument"),
    (
        "aircraft_history",
        {"aircraft": "N99999", "placement": "report_id"},
        "bad_choice",
    ),
    (
        "aircraft_history",
        {"aircraft": "N10003", "placement": "flight_id"},
        "bad_choice",
    ),
    # a flight that cannot be written
    ("write_flight", {**WRITE, "destination": "LAX"}, "same_airport"),
    ("write_flight", {**WRITE, "origin": "ZZZ"}, "bad_choice"),
    ("write_flight", {**WRITE, "aircraft": "N12345"}, "bad_choice"),
    ("write_flight", {"origin": "LAX", "destination": "JFK"}, "missing_argument"),
    # no such action
    ("fly", {}, "unknown_action"),
    ("do_measure", {"count": 100}, "unknown_action"),
    ("_ask", {}, "unknown_action"),
    ("apply", {}, "unknown_action"),
    (None, {}, "unknown_action"),
]


@pytest.fixture(scope="module")
def lab():
    """One lab shared by every refusal (one flight written, one shard slow): none of
    them may change it."""
    lab = ScatterGatherLab(seed=2, shards=8)
    lab.apply("write_flight", WRITE)
    lab.apply("slow_shard", {"shard": 3, "factor": 7})
    lab.apply("measure", {"count": 100})
    lab.apply("query_scatter", {})
    return lab


@pytest.mark.parametrize(("name", "args", "code"), REFUSED)
def test_a_bad_action_is_refused_with_a_reason_and_changes_nothing(
    lab, name, args, code
):
    before = lab.digest()
    with pytest.raises(ActionError) as caught:
        lab.apply(name, args)
    error = caught.value
    assert error.code == code
    assert error.message and error.message[0].isalpha()
    assert error.as_dict()["code"] == code
    assert lab.digest() == before


@pytest.mark.parametrize(
    ("name", "args", "field", "words"),
    [
        ("slow_shard", {"shard": 8, "factor": 5}, "shard", ("8", "0 to 7")),
        ("query_by_key", {"flight_id": 502}, "flight_id", ("502", "1 to 501")),
        ("index_query", {**JFK, "value": "XYZ"}, "value", ("'XYZ'", "destination")),
        ("write_flight", {**WRITE, "destination": "LAX"}, "destination", ()),
    ],
)
def test_a_refusal_of_the_state_names_the_field_and_says_why(
    lab, name, args, field, words
):
    with pytest.raises(ActionError) as caught:
        lab.apply(name, args)
    assert caught.value.field == field
    for word in words:
        assert word in caught.value.message


def test_a_column_that_does_not_exist_is_named_in_the_refusal(lab):
    with pytest.raises(ActionError) as caught:
        lab.apply("index_query", {**JFK, "column": "gate"})
    error = caught.value
    assert (error.code, error.field) == ("bad_choice", "column")
    assert "destination, origin, aircraft" in error.message


@pytest.mark.parametrize(
    ("options", "code"),
    [
        ({"shards": 0}, "out_of_range"),
        ({"shards": 65}, "out_of_range"),
        ({"shards": "8"}, "bad_type"),
        ({"replicas": 3}, "unknown_option"),
    ],
)
def test_bad_options_are_refused_when_the_lab_is_made(options, code):
    with pytest.raises(ActionError) as caught:
        ScatterGatherLab(seed=1, **options)
    assert caught.value.code == code


def test_no_more_than_a_hundred_flights_can_be_written():
    lab = ScatterGatherLab(seed=1, shards=4)
    for _ in range(100):
        lab.apply("write_flight", WRITE)
    lab.apply("query_by_key", {"flight_id": 600})
    before = lab.digest()
    with pytest.raises(ActionError) as caught:
        lab.apply("write_flight", WRITE)
    assert caught.value.code == "too_many_writes"
    assert lab.digest() == before


def test_a_refused_action_is_not_an_operation_for_the_global_index():
    lab = ScatterGatherLab(seed=1, shards=8)
    lab.apply("write_flight", WRITE)
    for name, args, _ in REFUSED:
        with pytest.raises(ActionError):
            lab.apply(name, args)
    # the first accepted read after the write still misses the fresh flight
    (query, landed) = lab.apply("index_query", JFK)
    assert query["missed"] == [501] and landed["type"] == "global_index_written"
