"""One deterministic airline, made from a seed, for every lab.

Airports, flights, aircraft registrations, passengers and bookings. The same seed gives
the same airline in any process; nothing here iterates a set or reads the clock.
"""

from collections.abc import Callable
from dataclasses import dataclass

from simulators.engine.rng import make_rng

# code, city, latitude, longitude: the hubs and gateways the course material names
AIRPORTS: tuple[tuple[str, str, float, float], ...] = (
    ("LAX", "Los Angeles", 33.94, -118.41),
    ("SFO", "San Francisco", 37.62, -122.38),
    ("DEN", "Denver", 39.86, -104.67),
    ("JFK", "New York", 40.64, -73.78),
    ("ORD", "Chicago", 41.98, -87.90),
    ("ATL", "Atlanta", 33.64, -84.43),
    ("DFW", "Dallas/Fort Worth", 32.90, -97.04),
    ("SEA", "Seattle", 47.45, -122.31),
    ("FRA", "Frankfurt", 50.04, 8.56),
    ("NRT", "Tokyo Narita", 35.77, 140.39),
    ("BOS", "Boston", 42.37, -71.01),
    ("MIA", "Miami", 25.80, -80.29),
    ("LHR", "London Heathrow", 51.47, -0.45),
    ("CDG", "Paris Charles de Gaulle", 49.01, 2.55),
)
AIRLINE_CODES = ("UA", "AA", "DL", "LH", "NH")
LOCATOR_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # 32 symbols, no 0/O or 1/I
LOCATOR_SPACE = 32**6
# every two-symbol chunk, so a locator is three table reads rather than six divisions
LOCATOR_PAIRS = tuple(a + b for a in LOCATOR_ALPHABET for b in LOCATOR_ALPHABET)
KEY_KINDS = ("registration", "passenger", "booking")
REGISTRATION_LETTERS = "ABCDEFGHJKLMNPQRSTUVWXYZ"  # no I or O, as the FAA rules
REGISTRATION_SHAPES = ((5, 0), (4, 1), (3, 2), (4, 2))  # (digits, letters)


@dataclass(frozen=True)
class Flight:
    """One scheduled flight, as the departures board shows it."""

    flight_id: int
    number: str
    origin: str
    destination: str
    departure_minute: int  # minutes after midnight
    seats_remaining: int

    @property
    def departure_time(self) -> str:
        """Departure as HH:MM."""
        return f"{self.departure_minute // 60:02d}:{self.departure_minute % 60:02d}"


def registration(index: int) -> str:
    """The index-th US aircraft registration: N10000 … N99999, N1000A …, N100AA …

    Consecutive indexes give neighbouring registrations (N12345, N12346), which is what
    the partitioning labs need to show that neighbours land far apart under a hash. The
    shapes are the FAA's (digits, then at most two letters, never I or O, five symbols
    at most); past the 824,400 such shapes it goes on with four digits and two letters.
    """
    if index < 0:
        raise ValueError("index must be non-negative")
    for digits, letters in REGISTRATION_SHAPES:
        size = 9 * 10 ** (digits - 1) * len(REGISTRATION_LETTERS) ** letters
        if index < size or (digits, letters) == REGISTRATION_SHAPES[-1]:
            return _registration_of_shape(index, digits, letters)
        index -= size
    raise AssertionError("unreachable")


def _registration_of_shape(index: int, digits: int, letters: int) -> str:
    suffix = ""
    for _ in range(letters):
        index, letter = divmod(index, len(REGISTRATION_LETTERS))
        suffix = REGISTRATION_LETTERS[letter] + suffix
    return f"N{10 ** (digits - 1) + index}{suffix}"


def passenger_id(index: int) -> str:
    """The index-th passenger id: P0000001, P0000002, …"""
    return f"P{index + 1:07d}"


class Airline:
    """The airline for one seed: flights and booking references, made on demand."""

    def __init__(self, seed: int) -> None:
        self.seed = seed
        rng = make_rng(seed, "airline.locators")
        # an affine permutation of 0 … 32⁶−1: distinct indexes, distinct locators
        self._locator_mul = rng.randrange(1, LOCATOR_SPACE, 2)
        self._locator_add = rng.randrange(LOCATOR_SPACE)

    def booking_id(self, index: int) -> str:
        """The index-th booking reference (six symbols, like a record locator)."""
        value = (self._locator_mul * index + self._locator_add) % LOCATOR_SPACE
        # six base-32 symbols, most significant first: three 10-bit pairs of them
        pairs = LOCATOR_PAIRS
        return pairs[value >> 20] + pairs[(value >> 10) & 1023] + pairs[value & 1023]

    def key(self, kind: str, index: int) -> str:
        """The index-th key of a kind: registration, passenger or booking."""
        return self._maker(kind)(index)

    def keys(self, kind: str, count: int) -> list[str]:
        """The first `count` keys of a kind."""
        return list(map(self._maker(kind), range(count)))

    def _maker(self, kind: str) -> Callable[[int], str]:
        if kind == "registration":
            return registration
        if kind == "passenger":
            return passenger_id
        if kind == "booking":
            return self.booking_id
        raise ValueError(f"unknown key kind {kind!r}")

    def flights(self, count: int) -> list[Flight]:
        """`count` flights between distinct airports, numbered from flight_id 1."""
        rng = make_rng(self.seed, "airline.flights")
        codes = [a[0] for a in AIRPORTS]
        flights = []
        for flight_id in range(1, count + 1):
            origin, destination = rng.sample(codes, 2)
            number = f"{rng.choice(AIRLINE_CODES)} {rng.randrange(1, 2000)}"
            minute = rng.randrange(5 * 60, 23 * 60, 5)
            seats = rng.randrange(0, 181)
            flights.append(
                Flight(flight_id, number, origin, destination, minute, seats)
            )
        return flights
