"""scatter-gather's guided tour: one shard by key, every shard without it, the tail."""

from simulators.engine.declaration import TourStep
from simulators.engine.i18n import gettext_noop as _

STAGE = {"spot": "stage"}  # the router, the shards and each answer on its way back

TOUR = (
    TourStep(
        id="by-key",
        say=_("Press “Query by key” to ask for flight 7."),
        notice=_(
            "The router hashed the flight_id and took it mod N: one shard asked, one "
            "index lookup, one answer. No other shard heard of the query."
        ),
        target={"action": "query_by_key"},
        show_me=("query_by_key", {"flight_id": 7}),
        done_when={"action": "query_by_key"},
        look=STAGE,
    ),
    TourStep(
        id="scatter",
        say=_("Now press “Query without the key”: every flight departing after noon."),
        notice=_(
            "With no shard key the router asked every shard and merged their answers. "
            "The result came when the slowest shard answered: each answer time is a "
            "draw with a long tail, and the more draws, the worse the worst one."
        ),
        target={"action": "query_scatter"},
        show_me=("query_scatter", {}),
        done_when={"action": "query_scatter"},
        look=STAGE,
    ),
    TourStep(
        id="measure",
        say=_(
            "Press “Measure the tail” to time 10,000 such queries at 1 to 64 shards."
        ),
        notice=_(
            "The p99 of the slowest answer climbs with every doubling of the shards, "
            "from about 16 ms with one shard to about 35 ms with 64, along the curve "
            "theory gives for the worst of N draws."
        ),
        target={"action": "measure"},
        show_me=("measure", {"count": 10_000}),
        done_when={"action": "measure"},
        look=STAGE,
    ),
    TourStep(
        id="board",
        say=_(
            "Show the LAX departures board with flights placed by "
            "(origin, departure_time)."
        ),
        notice=_(
            "Hashed on the origin and sorted by departure time, the LAX board is one "
            "range on one shard. Placed by flight_id, the same board asks every shard "
            "for its own next departures, and waits for the slowest."
        ),
        target={"action": "board"},
        show_me=("board", {"airport": "LAX", "placement": "origin_time"}),
        done_when={"action": "board"},
        look=STAGE,
    ),
    TourStep(
        id="write",
        say=_("Write a new flight from LAX to JFK."),
        notice=_(
            "Its shard and that shard's local index have it now. The global index, "
            "partitioned by value over the shards, receives its entries one operation "
            "later."
        ),
        target={"action": "write_flight"},
        show_me=(
            "write_flight",
            {"origin": "LAX", "destination": "JFK", "aircraft": "N10003"},
        ),
        done_when={"action": "write_flight"},
        look=STAGE,
    ),
    TourStep(
        id="global-index",
        say=_("Query the global index for the flights to JFK."),
        notice=_(
            "One index shard answered, not all of them. Asked right after the write, "
            "it had not received the new flight yet and missed it; ask again and it "
            "is there. A local index finds it at once, by asking every shard."
        ),
        target={"action": "index_query"},
        show_me=(
            "index_query",
            {"kind": "global", "column": "destination", "value": "JFK"},
        ),
        done_when={"event": "query", "with": {"kind": "index", "index": "global"}},
        look=STAGE,
    ),
)
