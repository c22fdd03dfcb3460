"""Which shards each query asks, how many rows each returns, and what the query says.

A plan is the arguments of `ScatterGatherLab._ask`: the query's kind, the shards asked
(in shard order), the rows each of them returns, and the facts its event carries:
`sql`, `index_lookups` (one per asked shard: each looks into one of its indexes),
`ranges` (range reads: one per asked shard for a query over a range, none for lookups
by equality) and `rows` (what reaches the client).
"""

from simulators.labs.scatter_gather.schedule import (
    BOARD_ROWS,
    FLIGHT_HASHES,
    HISTORY_MINUTES,
    NOW_MINUTE,
    FlightTable,
    Row,
    clock_time,
    flight_shard,
    index_term,
    key_shard,
    per_shard,
    report_shards,
)


class QueryPlans:
    """The query plans of the scatter-gather lab (mixed into it)."""

    table: FlightTable
    shard_count: int
    step: int
    written: list[tuple[Row, int]]

    def base_rows(self) -> tuple[Row, ...]:
        """The airline's own flights, 1 … 500."""
        return self.table.rows

    def rows(self) -> list[Row]:
        """Every flight: the airline's, then the ones written here."""
        return [*self.base_rows(), *(row for row, _ in self.written)]

    def _everyone(self) -> list[int]:
        return list(range(self.shard_count))

    def _spread(self, rows: list[Row]) -> list[int]:
        """How many of `rows` each shard holds, flights placed by flight_id."""
        n = self.shard_count
        return per_shard([flight_shard(row.flight_id, n) for row in rows], n)

    def plan_by_key(self, row: Row, shard: int) -> dict:
        """`WHERE flight_id = k`: the key's hash picks the one shard to ask."""
        return {
            "kind": "by_key",
            "asked": [shard],
            "answer_rows": [1],
            "sql": f"SELECT * FROM flights WHERE flight_id = {row.flight_id}",
            "flight_id": row.flight_id,
            "hash": FLIGHT_HASHES[row.flight_id],
            "flight": row.as_dict(),
            "index_lookups": 1,
            "ranges": 0,
            "rows": 1,
        }

    def plan_scatter(self) -> dict:
        """`WHERE departure_time > now()`: no shard key, so every shard is asked."""
        later = [row for row in self.rows() if row.departure_minute > NOW_MINUTE]
        n = self.shard_count
        return {
            "kind": "scatter",
            "asked": self._everyone(),
            "answer_rows": self._spread(later),
            "sql": "SELECT * FROM flights WHERE departure_time > now()",
            "now": clock_time(NOW_MINUTE),
            "index_lookups": n,
            "ranges": n,
            "rows": len(later),
        }

    def plan_board(self, airport: str, placement: str) -> dict:
        """The next departures from `airport`: every shard, or one range of one."""
        n = self.shard_count
        departing = sorted(
            (r for r in self.rows() if r.origin == airport),
            key=lambda r: (r.departure_minute, r.flight_id),
        )
        later = [r for r in departing if r.departure_minute > NOW_MINUTE]
        board = later[:BOARD_ROWS]
        if placement == "origin_time":
            home = key_shard(airport, n)
            asked, answer_rows = [home], [len(board)]
            shard_of = {r.flight_id: home for r in board}
        else:
            asked = self._everyone()
            # each shard sends its own first rows (the LIMIT pushed down); the router
            # merges them by departure time and keeps the first eight
            answer_rows = [min(c, BOARD_ROWS) for c in self._spread(later)]
            shard_of = {r.flight_id: flight_shard(r.flight_id, n) for r in board}
        return {
            "kind": "board",
            "asked": asked,
            "answer_rows": answer_rows,
            "sql": (
                f"SELECT * FROM flights WHERE origin = '{airport}' AND departure_time "
                f"> now() ORDER BY departure_time LIMIT {BOARD_ROWS}"
            ),
            "airport": airport,
            "placement": placement,
            "board": [{**r.as_dict(), "shard": shard_of[r.flight_id]} for r in board],
            "index_lookups": len(asked),
            "ranges": len(asked),
            "rows": len(board),
        }

    def plan_history(self, aircraft: str, placement: str) -> dict:
        """One aircraft's last hour of reports: one range, or a piece on every shard."""
        n = self.shard_count
        if placement == "aircraft_time":
            asked, answer_rows = [key_shard(aircraft, n)], [HISTORY_MINUTES]
        else:
            asked, answer_rows = (
                self._everyone(),
                per_shard(report_shards(aircraft, n), n),
            )
        return {
            "kind": "aircraft_history",
            "asked": asked,
            "answer_rows": answer_rows,
            "sql": (
                f"SELECT * FROM positions WHERE aircraft = '{aircraft}' "
                "AND time > now() - interval '1 hour'"
            ),
            "aircraft": aircraft,
            "placement": placement,
            "from": clock_time(NOW_MINUTE - HISTORY_MINUTES + 1),
            "to": clock_time(NOW_MINUTE),
            "index_lookups": len(asked),
            "ranges": len(asked),
            "rows": HISTORY_MINUTES,
        }

    def plan_index(self, kind: str, column: str, value: str) -> dict:
        """`WHERE column = value`, through every local index or the global one."""
        n = self.shard_count
        matching = [row for row in self.rows() if getattr(row, column) == value]
        missed = []
        if kind == "local":
            asked, answer_rows, found = (
                self._everyone(),
                self._spread(matching),
                matching,
            )
            index_shard = None
        else:
            # the global index has every airline flight, and a written one once its
            # entry has landed
            pending = {row.flight_id for row, due in self.written if due > self.step}
            found = [row for row in matching if row.flight_id not in pending]
            missed = [row.flight_id for row in matching if row.flight_id in pending]
            index_shard = key_shard(index_term(column, value), n)
            asked, answer_rows = [index_shard], [len(found)]
        return {
            "kind": "index",
            "asked": asked,
            "answer_rows": answer_rows,
            "sql": f"SELECT * FROM flights WHERE {column} = '{value}'",
            "index": kind,
            "column": column,
            "value": value,
            "index_shard": index_shard,
            "flight_ids": [row.flight_id for row in found],
            "missed": missed,
            "index_lookups": len(asked),
            "ranges": 0,
            "rows": len(found),
        }
