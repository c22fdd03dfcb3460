"""The rows this lab queries, and the shard each placement puts them on.

Flights come from the airline generator (simulators/airline.py), each given one of a
fleet of aircraft; position reports are one per aircraft per minute. The airline's
flights never change, so they are `Shared`: checkpoints of a lab refer to them instead
of copying them (playground/checkpoints.py).
"""

import functools
from dataclasses import dataclass

from simulators.airline import AIRPORTS, Airline, registration
from simulators.engine.hashing import murmur
from simulators.engine.ledger import Shared
from simulators.engine.rng import make_rng

FLIGHT_COUNT = 500  # the airline's flights, flight_id 1 … 500
MAX_WRITES = 100  # flights a learner may add, flight_id 501 … 600
FLEET = tuple(registration(index) for index in range(16))  # N10000 … N10015
AIRPORT_CODES = tuple(airport[0] for airport in AIRPORTS)
NOW_MINUTE = 12 * 60  # "now()" is noon: the board and the scatter query look after it
BOARD_ROWS = 8  # the departures board shows the next eight departures
HISTORY_MINUTES = 60  # "the last hour" of an aircraft's position reports
# a flight's shard key hashed once: MurmurHash3 of its id as text ("7")
FLIGHT_HASHES = tuple(murmur(str(i)) for i in range(FLIGHT_COUNT + MAX_WRITES + 1))
COLUMNS = ("destination", "origin", "aircraft")


@dataclass(frozen=True)
class Row:
    """One row of the flights table."""

    flight_id: int
    number: str
    origin: str
    destination: str
    departure_minute: int
    aircraft: str

    def as_dict(self) -> dict:
        """The row as JSON-safe data, departure as HH:MM."""
        return {
            "flight_id": self.flight_id,
            "number": self.number,
            "origin": self.origin,
            "destination": self.destination,
            "departure_time": clock_time(self.departure_minute),
            "aircraft": self.aircraft,
        }


def clock_time(minute: int) -> str:
    """Minutes after midnight as HH:MM."""
    return f"{minute // 60:02d}:{minute % 60:02d}"


class FlightTable(Shared):
    """The airline's flights for one seed, each flown by one aircraft of the fleet."""

    def __init__(self, seed: int) -> None:
        self.part_key: bytes | None = None
        self.seed = seed
        rng = make_rng(seed, "scatter-gather.aircraft")
        self.rows = tuple(
            Row(
                flight.flight_id,
                flight.number,
                flight.origin,
                flight.destination,
                flight.departure_minute,
                FLEET[rng.randrange(len(FLEET))],
            )
            for flight in Airline(seed).flights(FLIGHT_COUNT)
        )

    def __getstate__(self) -> tuple:
        return (self.seed, self.rows)

    def __setstate__(self, state: tuple) -> None:
        self.seed, self.rows = state
        self.part_key = None


@functools.lru_cache(maxsize=16)
def flight_table(seed: int) -> FlightTable:
    """The flight table of `seed`, made once per process (it never changes)."""
    return FlightTable(seed)


def flight_shard(flight_id: int, shards: int) -> int:
    """Where a flight lives when flights are placed by hash(flight_id) mod N."""
    return FLIGHT_HASHES[flight_id] % shards


def key_shard(key: str, shards: int) -> int:
    """Where a key (an airport, an aircraft, an index term) lives: its hash mod N."""
    return murmur(key) % shards


def index_term(column: str, value: str) -> str:
    """The key a global index is partitioned by: the column and the value."""
    return f"{column}={value}"


def column_values(column: str) -> tuple[str, ...]:
    """The values a column can hold: airport codes, or the fleet's registrations."""
    return FLEET if column == "aircraft" else AIRPORT_CODES


def report_shards(aircraft: str, shards: int) -> list[int]:
    """The shard of each of an aircraft's reports of the last hour, placed by report id.

    Reports are numbered in order of arrival, every aircraft once a minute; report id
    r goes to hash(r) mod N, so one aircraft's hour is spread over the shards.
    """
    index = FLEET.index(aircraft)
    first = NOW_MINUTE - HISTORY_MINUTES + 1
    return [
        murmur(str(minute * len(FLEET) + index + 1)) % shards
        for minute in range(first, NOW_MINUTE + 1)
    ]


def per_shard(shards_of_rows: list[int], shards: int) -> list[int]:
    """How many of the rows each shard holds, in shard order."""
    counts = [0] * shards
    for shard in shards_of_rows:
        counts[shard] += 1
    return counts
