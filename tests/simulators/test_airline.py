"""The airline generator: one seed, one airline, in any process."""

import re

import pytest

from simulators.airline import (
    AIRPORTS,
    KEY_KINDS,
    LOCATOR_ALPHABET,
    Airline,
    passenger_id,
    registration,
)

MILLION = 1_000_000
AIRPORT_CODES = {code for code, *_ in AIRPORTS}


def test_the_same_seed_gives_the_same_airline():
    first, second = Airline(11), Airline(11)
    assert first.flights(200) == second.flights(200)
    for kind in KEY_KINDS:
        assert first.keys(kind, 500) == second.keys(kind, 500)


def test_different_seeds_give_different_flights_and_bookings():
    assert Airline(1).flights(50) != Airline(2).flights(50)
    ones, twos = Airline(1).keys("booking", 1000), Airline(2).keys("booking", 1000)
    assert sum(a != b for a, b in zip(ones, twos, strict=True)) > 990


def test_registrations_start_at_n10000_and_count_up_one_by_one():
    assert registration(0) == "N10000"
    assert registration(2345) == "N12345"
    assert registration(2346) == "N12346"
    assert registration(89_999) == "N99999"
    assert [registration(i) for i in range(1000, 1005)] == [
        "N11000",
        "N11001",
        "N11002",
        "N11003",
        "N11004",
    ]


def test_registrations_after_n99999_keep_the_n_prefix():
    assert registration(90_000) == "N1000A"
    assert registration(90_023) == "N1000Z"
    assert registration(90_024) == "N1001A"
    assert registration(90_000 + 216_000) == "N100AA"
    assert registration(824_399) == "N999ZZ"
    assert registration(824_400) == "N1000AA"


def test_registrations_never_use_i_or_o_and_keep_to_five_symbols_while_they_can():
    for i in range(0, 824_400, 331):
        tail = registration(i)[1:]
        assert len(tail) <= 5
        assert "I" not in tail and "O" not in tail
    assert all(registration(i).startswith("N") for i in range(0, MILLION, 997))


def test_the_first_million_registrations_are_all_different():
    assert len(set(map(registration, range(MILLION)))) == MILLION


def test_a_negative_index_has_no_registration():
    with pytest.raises(ValueError):
        registration(-1)


def test_passenger_ids_are_numbered_from_one():
    assert passenger_id(0) == "P0000001"
    assert passenger_id(9_999_998) == "P9999999"


def test_booking_references_are_six_symbols_without_look_alike_letters():
    pattern = re.compile(f"^[{LOCATOR_ALPHABET}]{{6}}$")
    references = Airline(3).keys("booking", 5000)
    assert all(pattern.match(ref) for ref in references)
    assert not set("".join(references)) & set("01IO")


def test_the_first_million_booking_references_of_a_seed_are_all_different():
    booking_id = Airline(2**53 - 1).booking_id
    assert len(set(map(booking_id, range(MILLION)))) == MILLION


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_booking_references_of_other_seeds_are_all_different_too(seed):
    booking_id = Airline(seed).booking_id
    assert len(set(map(booking_id, range(100_000)))) == 100_000


def test_keys_of_an_unknown_kind_are_refused():
    with pytest.raises(ValueError):
        Airline(1).key("aircraft", 0)


def test_flights_are_numbered_from_one_between_two_different_airports():
    flights = Airline(5).flights(2000)
    assert [f.flight_id for f in flights] == list(range(1, 2001))
    for flight in flights:
        assert flight.origin != flight.destination
        assert {flight.origin, flight.destination} <= AIRPORT_CODES
        assert 0 <= flight.seats_remaining <= 180
        assert 5 * 60 <= flight.departure_minute < 23 * 60
        assert flight.departure_minute % 5 == 0
        assert re.match(r"^[A-Z]{2} \d{1,4}$", flight.number)
        assert re.match(r"^([01]\d|2[0-3]):[0-5]\d$", flight.departure_time)


def test_departure_time_is_hours_and_minutes():
    flight = Airline(5).flights(1)[0]
    hours, minutes = divmod(flight.departure_minute, 60)
    assert flight.departure_time == f"{hours:02d}:{minutes:02d}"


def test_flights_use_many_routes_and_every_airport():
    flights = Airline(8).flights(2000)
    assert {f.origin for f in flights} == AIRPORT_CODES
    assert len({(f.origin, f.destination) for f in flights}) > 150
