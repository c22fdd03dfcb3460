"""scatter-gather: a router in front of N shards, asking one of them or every one.

Flights are placed by hash(flight_id) mod N. A query that names its flight_id goes to
one shard; a query that does not must ask every shard and answers when the slowest has
answered, so its tail grows with N (`latency.py` draws the answers and gives the
analytic quantiles). The departures board, one aircraft's last hour and the secondary
indexes show what a placement or an index buys: one shard asked, or all of them.

Choices made here, so the lab says what it does:

- Every asked shard answers, even with no rows; a shard's answer time is one lognormal
  draw (times its slow factor), whatever the query; the router's merge takes no time.
- `set_shards` places every row again (mod N); slow factors of shards that no longer
  exist are dropped, and the drawn last query with them.
- The local index of a shard is written with its rows. The global index (partitioned
  by the indexed value over the same shards) receives a new flight's entries
  `GLOBAL_INDEX_LAG_OPS` operations later: a global read in between misses the flight.
  Every accepted action counts as an operation; a refused one does not.
- Randomness: the stream `scatter-gather.<purpose>:<step>`, step being the number of
  operations before this one, so a replay draws the same answers.
"""

from simulators.engine.declaration import ActionError
from simulators.engine.i18n import gettext_noop as _
from simulators.engine.lab import Lab
from simulators.engine.rng import make_rng
from simulators.labs.scatter_gather.declaration import (
    ACTIONS,
    GLOBAL_INDEX_LAG_OPS,
    LADDER,
    MAX_WRITES,
    OPTIONS,
    ScatterGatherCost,
)
from simulators.labs.scatter_gather.latency import (
    MEDIAN_US,
    SIGMA,
    analytic_curve,
    draw_answers,
    measure_curve,
    quantile_of_max_us,
)
from simulators.labs.scatter_gather.queries import QueryPlans
from simulators.labs.scatter_gather.schedule import (
    COLUMNS,
    FLIGHT_COUNT,
    NOW_MINUTE,
    Row,
    clock_time,
    column_values,
    flight_shard,
    flight_table,
    index_term,
    key_shard,
    per_shard,
)
from simulators.labs.scatter_gather.tour import TOUR

QUERY_KINDS = ("by_key", "scatter", "board", "aircraft_history", "index")


class ScatterGatherLab(QueryPlans, Lab):
    """A router, N shards with a latency tail, and the queries that ask one or all."""

    slug = "scatter-gather"
    options = OPTIONS
    actions = ACTIONS
    tour = TOUR
    stress = (
        ("set_shards", {"count": 64}),
        ("measure", {"count": 20000}),
        ("query_scatter", {}),
        ("board", {"airport": "LAX", "placement": "origin_time"}),
    )
    cost_model = ScatterGatherCost
    creation_cost = 200
    frame_cost = 600

    def __init__(self, seed: int = 0, **options) -> None:
        super().__init__(seed, **options)
        self.table = flight_table(seed)
        self.shard_count: int = self.option_values["shards"]
        self.slow: dict[int, int] = {}  # shard → factor, only factors above 1
        self.written: list[tuple[Row, int]] = []  # (row, step its global entry lands)
        self.step = 0  # accepted operations so far
        self.last_query: dict | None = None
        self.measured: dict | None = None
        self.queries = dict.fromkeys(QUERY_KINDS, 0)
        self.shard_requests = 0

    def apply(self, name, args) -> list[dict]:
        """Apply one action, then count it as an operation; global entries may land."""
        events = super().apply(name, args)
        self.step += 1
        landed = [row.flight_id for row, due in self.written if due == self.step]
        if landed:
            events.append({"type": "global_index_written", "flight_ids": landed})
        return events

    def _rng(self, purpose: str):
        return make_rng(self.seed, f"scatter-gather.{purpose}:{self.step}")

    # ----- queries (the plans are in queries.py) --------------------------------------
    def _ask(self, kind: str, asked: list[int], answer_rows: list[int], **facts):
        """Send a query to the `asked` shards; the event that says how each answered."""
        answers = draw_answers(self._rng("query"), asked, self.slow)
        for answer, count in zip(answers, answer_rows, strict=True):
            answer["rows"] = count
        slowest = max(answers, key=lambda a: (a["latency_us"], -a["shard"]))
        arrival = sorted(answers, key=lambda a: (a["latency_us"], a["shard"]))
        event = {
            "type": "query",
            "kind": kind,
            "shards_asked": len(asked),
            "answers": answers,
            "arrival_order": [a["shard"] for a in arrival],
            "slowest": slowest["shard"],
            "latency_us": slowest["latency_us"],
            **facts,
        }
        self.last_query = event
        self.queries[kind] += 1
        self.shard_requests += len(asked)
        return event

    def do_query_by_key(self, flight_id: int) -> list[dict]:
        """Route `WHERE flight_id = k` to the one shard that holds k."""
        row = self._row(flight_id)
        shard = flight_shard(flight_id, self.shard_count)
        return [self._ask(**self.plan_by_key(row, shard))]

    def do_query_scatter(self) -> list[dict]:
        """Ask every shard for the flights departing after now; wait for them all."""
        return [self._ask(**self.plan_scatter())]

    def do_board(self, airport: str, placement: str) -> list[dict]:
        """The departures board of `airport`, under either placement of the flights."""
        return [self._ask(**self.plan_board(airport, placement))]

    def do_aircraft_history(self, aircraft: str, placement: str) -> list[dict]:
        """One aircraft's position reports of the last hour."""
        return [self._ask(**self.plan_history(aircraft, placement))]

    def do_index_query(self, kind: str, column: str, value: str) -> list[dict]:
        """Flights whose `column` is `value`, through a local or the global index."""
        if value not in column_values(column):
            raise ActionError(
                "unknown_value",
                _("no flight can have %(value)r as its %(column)s"),
                "value",
                words=("column",),
                value=value,
                column=column,
            )
        return [self._ask(**self.plan_index(kind, column, value))]

    # ----- changes --------------------------------------------------------------------
    def do_set_shards(self, count: int) -> list[dict]:
        """Use `count` shards: every row placed again; gone shards lose their factor."""
        dropped = sorted(shard for shard in self.slow if shard >= count)
        before = self.shard_count
        for shard in dropped:
            del self.slow[shard]
        self.shard_count = count
        if count != before:
            self.last_query = None
        event = {"type": "shards_set", "count": count, "before": before}
        return [{**event, "cleared_slow": dropped}]

    def do_slow_shard(self, shard: int, factor: int) -> list[dict]:
        """Make one shard's answers `factor` times slower (1: normal again)."""
        self._check_shard(shard)
        before = self.slow.get(shard, 1)
        if factor == 1:
            self.slow.pop(shard, None)
        else:
            self.slow[shard] = factor
        return [
            {"type": "shard_slowed", "shard": shard, "factor": factor, "before": before}
        ]

    def do_write_flight(
        self, origin: str, destination: str, aircraft: str
    ) -> list[dict]:
        """Insert a flight: row and local index now, global index entries later."""
        if origin == destination:
            raise ActionError(
                "same_airport",
                _("a flight cannot leave from and land at the same airport"),
                "destination",
            )
        if len(self.written) >= MAX_WRITES:
            raise ActionError(
                "too_many_writes",
                _("this lab holds at most %(maximum)s new flights"),
                maximum=MAX_WRITES,
            )
        count = len(self.written)
        flight_id = FLIGHT_COUNT + count + 1
        minute = NOW_MINUTE + 5 * (1 + count % 24)  # within the next two hours
        row = Row(
            flight_id, f"UA {2000 + count}", origin, destination, minute, aircraft
        )
        lands = self.step + GLOBAL_INDEX_LAG_OPS + 1
        self.written.append((row, lands))
        terms = {column: index_term(column, getattr(row, column)) for column in COLUMNS}
        return [
            {
                "type": "flight_written",
                "flight": row.as_dict(),
                "shard": flight_shard(flight_id, self.shard_count),
                "local_index": "written",
                "global_index": "pending",
                "global_index_shards": {
                    column: key_shard(term, self.shard_count)
                    for column, term in terms.items()
                },
                "global_lag_ops": GLOBAL_INDEX_LAG_OPS,
            }
        ]

    def do_measure(self, count: int) -> list[dict]:
        """Time `count` scatter queries at every size of the ladder and at N."""
        sizes = sorted({*LADDER, self.shard_count})
        points = measure_curve(self._rng("measure"), count, sizes, self.slow)
        for point in points:
            point["on_ladder"] = point["shards"] in LADDER
        self.measured = {
            "count": count,
            "shard_count": self.shard_count,
            "slow": self._slow_list(),
            "points": points,
        }
        return [{"type": "measured", **self.measured}]

    # ----- checks ---------------------------------------------------------------------
    def _row(self, flight_id: int) -> Row:
        """The flight with this id, or ActionError if there is none yet."""
        if flight_id <= FLIGHT_COUNT:
            return self.base_rows()[flight_id - 1]
        if flight_id - FLIGHT_COUNT <= len(self.written):
            return self.written[flight_id - FLIGHT_COUNT - 1][0]
        raise ActionError(
            "no_such_flight",
            _("there is no flight %(flight_id)s: flights run 1 to %(last)s"),
            "flight_id",
            flight_id=flight_id,
            last=FLIGHT_COUNT + len(self.written),
        )

    def _check_shard(self, shard: int) -> None:
        if shard >= self.shard_count:
            raise ActionError(
                "no_such_shard",
                _("there is no shard %(shard)s: the shards are 0 to %(last)s"),
                "shard",
                shard=shard,
                last=self.shard_count - 1,
            )

    # ----- what the renderer and the tests read ---------------------------------------
    def _slow_list(self) -> list[list[int]]:
        return [[shard, self.slow[shard]] for shard in sorted(self.slow)]

    def snapshot(self) -> dict:
        """Shards and their factors, the last query, the measured curve, new flights."""
        n = self.shard_count
        rows = per_shard([flight_shard(r.flight_id, n) for r in self.rows()], n)
        return {
            "seed": self.seed,
            "shard_count": n,
            "shards": [
                {
                    "id": shard,
                    "slow_factor": self.slow.get(shard, 1),
                    "flights": rows[shard],
                }
                for shard in range(n)
            ],
            "latency_model": {
                "median_us": MEDIAN_US,
                "sigma": SIGMA,
                "p99_us": round(quantile_of_max_us(0.99, ((1, 1),))),
            },
            "now": clock_time(NOW_MINUTE),
            "flights": FLIGHT_COUNT + len(self.written),
            "last_query": self.last_query,
            "measured": self.measured,
            "written": [
                {
                    **row.as_dict(),
                    "shard": flight_shard(row.flight_id, n),
                    "in_global_index": due <= self.step,
                }
                for row, due in self.written
            ],
            "global_index_lag_ops": GLOBAL_INDEX_LAG_OPS,
            "step": self.step,
        }

    def metrics(self) -> dict:
        """What the last query cost, the tail in theory, and what was measured."""
        last = self.last_query
        summary = None
        if last is not None:
            keys = ("kind", "shards_asked", "index_lookups", "ranges", "rows")
            summary = {key: last[key] for key in keys}
            summary |= {"latency_us": last["latency_us"], "slowest": last["slowest"]}
        n, measured = self.shard_count, None
        if self.measured is not None:
            at = self.measured["shard_count"]
            point = next(p for p in self.measured["points"] if p["shards"] == at)
            measured = {"count": self.measured["count"], **point}
        return {
            "shard_count": n,
            "slow_shards": len(self.slow),
            "queries": dict(self.queries),
            "shard_requests": self.shard_requests,
            "last_query": summary,
            "analytic": analytic_curve(sorted({*LADDER, n}), self.slow),
            "measured": measured,
            "global_index_pending": sum(due > self.step for _, due in self.written),
        }
