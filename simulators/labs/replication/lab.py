"""replication: one primary, its replicas, lag, read-your-writes and failover.

The cluster (`cluster.py`) holds the log and the servers; this lab adds the clients.
Two passengers, Ana and Ben, each change the email on their booking (a write to
their own row) and read it back from a server they choose; the fleet's position
reports arrive in bursts. Every client operation is recorded as Jepsen records it:
an id, the client, "write" or "read", the value, when it was invoked and completed
(virtual ms and a step counter that orders events inside one millisecond) and its
outcome: "ok", "fail" (certainly no effect) or "info" (unknown: the primary died
before the commit came back).

A read by a passenger is *stale* when it returns their row as it was before their
own last acknowledged write (the email-change story: the old address). The three
read-your-writes fixes change where, or how long, a read goes:

- `primary_after_write`: for `STICKY_MS` after a passenger's own write (or while it
  waits for its commit) their reads go to the primary;
- `retry`: a replica that has not yet applied the passenger's last write is asked
  again every `RETRY_MS`, until the row is that write or newer (after
  `RETRY_LIMIT_MS` the read fails);
- `current_rows_primary`: reads of a current row (the passenger's own booking) always
  go to the primary; other reads (an aircraft's position) go where asked.

Choices made here, so the lab says what it does:

- Killing the primary is refused when no replica is running (nothing could take
  over); while there is no primary, writes are refused (`no_primary`) and so are
  reads sent to "the primary". A commit still waiting when the primary dies ends
  "info".
- Promoting is refused while the primary runs (two primaries), for a replica that is
  down, while a sync replica is down (it may hold commits no running server has),
  and under majority acknowledgement without a majority of the servers running
  (MongoDB would elect no one). With these rules a sync replica or majority
  acknowledgement loses no acknowledged write in any failover; `w:1` with async
  replicas loses the ones no replica had received.
- A replica taken down comes back by itself after the time asked; "Bring a server
  back" brings it (or a killed primary) back at once.
"""

from simulators.engine.clock import EventQueue
from simulators.engine.clocked import ClockedLab
from simulators.engine.declaration import ActionError
from simulators.engine.history import EXPLANATIONS, check_read_your_writes
from simulators.engine.history import Op as HistoryOp
from simulators.engine.i18n import gettext_noop as _
from simulators.engine.rng import make_rng
from simulators.labs.replication.cluster import (
    APPLY_MS,
    LSN,
    OP,
    OPS,
    ROW,
    VALUE,
    WRITTEN,
    Cluster,
)
from simulators.labs.replication.declaration import (
    ACTIONS,
    CLIENTS,
    HISTORY,
    LAG_BUCKET_MS,
    MAX_BURST,
    MAX_RECORDS,
    OPTIONS,
    PRIMARY,
    RETRY_LIMIT_MS,
    RETRY_MS,
    STICKY_MS,
    ReplicationCost,
)
from simulators.labs.replication.tour import TOUR

BOOKING = {"ana": "QX7R2P", "ben": "K4M9TD"}
EMAIL_ROW = {c: f"booking {BOOKING[c]} email" for c in CLIENTS}
NAMES = {"ana": "ana.lopez", "ben": "ben.okafor"}
FIRST_DOMAIN = "oldmail.example"
AIRCRAFT = ("N12345", "N24680", "N31415", "N47110", "N52020", "N68001")
POSITION_ROW = {a: f"aircraft {a} position" for a in AIRCRAFT}
READ_POSITION = POSITION_ROW[AIRCRAFT[0]]
FLEET = "fleet"
INITIAL_ROWS = {
    **{EMAIL_ROW[c]: f"{NAMES[c]}@{FIRST_DOMAIN}" for c in CLIENTS},
    **dict.fromkeys(POSITION_ROW.values(), "at the gate"),
}
# where the replicas stand when a cluster is made: one near, one across an ocean
PLACES = ("zone", "zone", "ocean", "region")
LOG_SHOWN = 24
LOST_SHOWN = 200
LAG_POINTS = 200  # 10 s of lag at one point per 50 ms


def email_of(client: str, number: int) -> str:
    """The passenger's `number`-th new address (0 is the one they started with)."""
    if number == 0:
        return f"{NAMES[client]}@{FIRST_DOMAIN}"
    if number == 1:
        return f"{NAMES[client]}@newmail.example"
    return f"{NAMES[client]}+{number}@newmail.example"


class Op:
    """A client's write or read, from its invocation to its outcome."""

    __slots__ = (
        "id",
        "client",
        "kind",
        "row",
        "value",
        "invoke",
        "complete",
        "outcome",
        "asked",
        "server",
        "lsn",
        "reason",
        "expected",
        "stale",
        "attempts",
        "lost",
    )

    def __init__(self, op_id, client, kind, row, value, invoke, asked) -> None:
        self.id, self.client, self.kind, self.row = op_id, client, kind, row
        self.value, self.invoke, self.asked = value, invoke, asked
        self.complete = self.outcome = self.server = self.lsn = None
        self.reason = self.expected = self.stale = None
        self.attempts = 0
        self.lost = False

    def as_dict(self) -> dict:
        return {
            "id": self.id,
            "client": self.client,
            "kind": self.kind,
            "row": self.row,
            "value": self.value,
            "invoke": list(self.invoke),
            "complete": list(self.complete) if self.complete else None,
            "outcome": self.outcome,
            "asked": self.asked,
            "server": self.server,
            "lsn": self.lsn,
            "reason": self.reason,
            "expected": self.expected,
            "stale": self.stale,
            "attempts": self.attempts,
            "lost": self.lost,
        }


class ReplicationLab(ClockedLab):
    """A primary and one to three replicas, the log between them, and failover."""

    slug = "replication"
    options = OPTIONS
    actions = ACTIONS
    tour = TOUR
    stress = (
        ("set_replicas", {"replicas": 3}),
        ("burst", {"count": 2000}),
        ("advance", {"ms": 60000}),
        ("burst", {"count": 2000}),
        ("kill_primary", {}),
        ("advance", {"ms": 60000}),
    )
    # the history checker's verdicts come as English data: hello carries them translated
    words = EXPLANATIONS
    cost_model = ReplicationCost
    creation_cost = 300  # 0.13 ms measured (benchmarks/replay_costs.py)

    def __init__(self, seed: int = 0, **options) -> None:
        super().__init__(seed, **options)
        self.generation = 0
        self.fix = "off"
        self._fresh(self.option_values["replicas"])

    def _fresh(self, replicas: int) -> None:
        """A new cluster: the primary and `replicas` async replicas, nothing written."""
        self.queue = EventQueue(self.queue.clock)
        rng = make_rng(self.seed, f"network:{self.generation}")
        self.generation += 1
        self.cluster = Cluster(
            self.queue,
            rng,
            PLACES[: replicas + 1],
            INITIAL_ROWS,
            on_commit=self._committed,
            on_event=self._on_event,
        )
        self.step_count = 0
        self.history: list[Op] = []
        self.history_total = 0
        self.open: dict[int, Op] = {}  # ops still waiting, by id
        self.next_op = 1
        self.clients = {
            c: {"changes": 0, "last_write": None, "last_write_ms": None, "acked": None}
            for c in CLIENTS
        }
        self.reports = 0
        self.return_at: dict[str, int] = {}  # replicas taken down: when they return
        self.rolled_back: list[tuple] = []
        self.last_promotion: dict | None = None
        self.tally = dict.fromkeys(
            (
                "writes",
                "commits",
                "reads",
                "stale_reads",
                "failed_reads",
                "unknown_writes",
                "rolled_back",
            ),
            0,
        )
        self.last_commit_wait_ms: int | None = None
        self._fleet_done = {"ok": 0, "info": 0}  # reports ended since the last frame
        self._ryw_key: tuple | None = None  # _ryw_verdict's cache
        self._ryw: dict | None = None
        self.lag_series: dict[str, list[list[int]]] = {
            s: [] for s in self.cluster.servers
        }
        self._sample_lag()

    @property
    def network(self):
        return self.cluster.network

    # -- time --------------------------------------------------------------------------

    def next_due_ms(self) -> int | None:
        """The next event, or the next record a replica applies (applies are computed,
        not queued: cluster.py), so the room's clock runs while replicas catch up."""
        due = [self.queue.peek_time()]
        due += [s.due[0] for s in self.cluster.servers.values() if s.due]
        due = [d for d in due if d is not None]
        return min(due) if due else None

    def run_until(self, until_ms: int) -> list[dict]:
        """Run to `until_ms`, sampling the lag at every bucket edge passed (edges of
        the timeline, not of the `advance` actions: however time is cut into
        advances, the samples are the same)."""
        net = self.network
        edge = (self.now_ms // LAG_BUCKET_MS + 1) * LAG_BUCKET_MS
        while edge <= until_ms:
            net.run_until(edge)
            self._sample_lag()
            edge += LAG_BUCKET_MS
        net.run_until(until_ms)
        # what is due by now is applied now, not when someone next looks: a snapshot
        # (or the next due time) read later must find nothing left to catch up, or the
        # state would depend on whether it was looked at (a room looks after every
        # action; a replay does not)
        self.cluster.settle()
        return self.collect_events()

    def collect_events(self) -> list[dict]:
        """What happened since the last call; the fleet's position reports, which come
        by the thousand, as one count (a frame must stay small)."""
        events = self.network.take_events()
        done = self._fleet_done
        if done["ok"] or done["info"]:
            events.append({"type": "reports_done", **done, "at_ms": self.now_ms})
            self._fleet_done = {"ok": 0, "info": 0}
        return events

    def _sample_lag(self) -> None:
        """One point per replica per bucket: the largest lag seen in it."""
        cluster, now = self.cluster, self.now_ms
        bucket = now // LAG_BUCKET_MS * LAG_BUCKET_MS
        for server in cluster.servers.values():
            series = self.lag_series[server.id]
            if server.id == cluster.primary:
                records, ms = 0, 0
            else:
                records, ms = cluster.lag(server)
            if series and series[-1][0] == bucket:
                point = series[-1]
                point[1], point[2] = max(point[1], records), max(point[2], ms)
            else:
                series.append([bucket, records, ms])
                if len(series) > LAG_POINTS:
                    del series[: len(series) - LAG_POINTS]

    # -- operations --------------------------------------------------------------------

    def _tick(self) -> list[int]:
        self.step_count += 1
        return [self.now_ms, self.step_count]

    def _invoke(self, client, kind, row, value, asked) -> Op:
        op = Op(self.next_op, client, kind, row, value, self._tick(), asked)
        self.next_op += 1
        self.history.append(op)
        self.history_total += 1
        if len(self.history) > HISTORY:
            del self.history[: len(self.history) - HISTORY]
        self.open[op.id] = op
        return op

    def _finish(self, op: Op, outcome: str, reason: str | None = None) -> None:
        op.complete = self._tick()
        op.outcome = outcome
        op.reason = reason
        self.open.pop(op.id, None)
        if op.kind == "read":
            self.tally["reads"] += 1
            self.tally["stale_reads"] += bool(op.stale)
            self.tally["failed_reads"] += outcome == "fail"
        if op.client == FLEET:
            self._fleet_done[outcome] += 1  # counted, said once (collect_events)
        else:
            self.cluster.emit({"type": "op_completed", **op.as_dict()})

    def _committed(self, record: tuple) -> None:
        """The cluster returned a commit: the write it belongs to is acknowledged."""
        self.tally["commits"] += 1
        op = self.open.get(record[OP])
        if op is None:
            return  # its client heard "unknown" when the primary died
        self.last_commit_wait_ms = self.now_ms - record[WRITTEN]
        if op.client in self.clients:
            self.clients[op.client]["acked"] = (op.id, op.value)
        self._finish(op, "ok")

    def _primary(self) -> str:
        if self.cluster.primary is None:
            raise ActionError(
                "no_primary",
                _("there is no primary: promote a replica first"),
            )
        return self.cluster.primary

    def _room_for(self, count: int) -> None:
        if len(self.cluster.log) + count > MAX_RECORDS:
            raise ActionError(
                "log_full",
                _("the log holds at most %(most)s records; start again"),
                most=f"{MAX_RECORDS:,}",
            )

    def do_write(self, client: str) -> list[dict]:
        """The passenger changes their email: one record, committed by the rule."""
        primary = self._primary()
        self._room_for(1)
        state = self.clients[client]
        value = email_of(client, state["changes"] + 1)
        row = EMAIL_ROW[client]
        op = self._invoke(client, "write", row, value, primary)
        op.server = primary
        state["changes"] += 1
        state["last_write"] = op.id
        state["last_write_ms"] = self.now_ms
        self.tally["writes"] += 1
        self.cluster.emit({"type": "op_invoked", **op.as_dict()})
        op.lsn = self.cluster.write(row, value, op.id)
        self._sample_lag()
        return self.collect_events()

    def do_burst(self, count: int) -> list[dict]:
        """`count` position reports at once, shipped to each replica as one batch."""
        primary = self._primary()
        self._room_for(count)
        changes = []
        ops = []
        for _i in range(count):
            self.reports += 1
            aircraft = AIRCRAFT[(self.reports - 1) % len(AIRCRAFT)]
            value = f"report {self.reports}"
            op = self._invoke(FLEET, "write", POSITION_ROW[aircraft], value, primary)
            op.server = primary
            ops.append(op)
            changes.append((op.row, value, op.id))
        self.tally["writes"] += count
        lsns = self.cluster.write_many(changes)
        for op, lsn in zip(ops, lsns, strict=True):
            op.lsn = lsn
        self._sample_lag()
        return [
            {"type": "burst", "count": count, "first": lsns[0], "last": lsns[-1]},
            *self.collect_events(),
        ]

    def do_read(self, client: str, row: str, server: str) -> list[dict]:
        """Read the passenger's email (or a position) from a server, as the fix
        routes it."""
        asked = self._server(server, "server")
        if not self.cluster.up(asked):
            raise ActionError(
                "server_down",
                _("server %(server)s is down; read from another one"),
                "server",
                server=asked,
            )
        key = EMAIL_ROW[client] if row == "email" else READ_POSITION
        op = self._invoke(client, "read", key, None, asked)
        acked = self.clients[client]["acked"] if row == "email" else None
        op.expected = acked[1] if acked else None
        target = self._route(client, row, asked)
        if target is None:
            op.server = asked
            self._finish(op, "fail", "no_primary")
            return self.collect_events()
        op.server = target
        self._attempt(op)
        return self.collect_events()

    def _route(self, client: str, row: str, asked: str) -> str | None:
        """Where the fix sends a read (None: to the primary, and there is none)."""
        fix, primary = self.fix, self.cluster.primary
        state = self.clients[client]
        if fix == "primary_after_write" and row == "email":
            waiting = state["last_write"] in self.open
            recent = (
                state["last_write_ms"] is not None
                and self.now_ms - state["last_write_ms"] < STICKY_MS
            )
            if waiting or recent:
                return primary
        if fix == "current_rows_primary" and row == "email":
            return primary
        return asked

    def _attempt(self, op: Op) -> None:
        """Answer the read from its server now, or (retry fix) look again later."""
        op.attempts += 1
        server = self.cluster.servers[op.server]
        self.cluster.catch_up(server)
        written = server.rows[op.row]
        value, writer = written[VALUE], written[OP]
        mine = self.clients[op.client]["last_write"] if op.client in CLIENTS else None
        behind = mine is not None and writer < mine and op.row == EMAIL_ROW[op.client]
        if (
            self.fix == "retry"
            and behind
            and op.server != self.cluster.primary
            and self.now_ms - op.invoke[0] < RETRY_LIMIT_MS
        ):
            self.network.set_timer(OPS, RETRY_MS, "retry", op.id)
            if op.attempts == 1:
                self.cluster.emit({"type": "op_invoked", **op.as_dict()})
            return
        if self.fix == "retry" and behind and op.server != self.cluster.primary:
            self._finish(op, "fail", "gave_up")
            return
        op.value = value
        acked = self.clients[op.client]["acked"] if op.client in CLIENTS else None
        op.stale = bool(acked and op.row == EMAIL_ROW[op.client] and writer < acked[0])
        self._finish(op, "ok")

    def _on_event(self, kind: str, payload) -> None:
        """The OPS node's timers: a read retrying, a replica coming back."""
        if kind == "retry":
            op = self.open.get(payload)
            if op is None:
                return
            if not self.cluster.up(op.server):
                self._finish(op, "fail", "server_down")
            else:
                self._attempt(op)
        elif kind == "return":
            server, at_ms = payload
            if self.return_at.get(server) == at_ms and not self.cluster.up(server):
                self._start(server)

    # -- faults ------------------------------------------------------------------------

    def _server(self, server: str, field: str) -> str:
        """A server id (or "primary") checked against the cluster."""
        if server == PRIMARY:
            return self._primary()
        if server not in self.cluster.servers:
            raise ActionError(
                "no_such_server",
                _("there is no server %(server)r; the servers are %(servers)s"),
                field,
                server=server,
                servers=", ".join(self.cluster.servers),
            )
        return server

    def _replica(self, server: str) -> str:
        found = self._server(server, "server")
        if found == self.cluster.primary:
            raise ActionError(
                "is_primary",
                _("%(server)s is the primary, not a replica"),
                "server",
                server=found,
            )
        return found

    def do_take_down(self, server: str, ms: int) -> list[dict]:
        """A replica goes down for `ms`, then comes back and catches up."""
        found = self._replica(server)
        if not self.cluster.up(found):
            raise ActionError(
                "already_down",
                _("server %(server)s is already down"),
                "server",
                server=found,
            )
        self.cluster.stop(found)
        back = self.now_ms + ms
        self.return_at[found] = back
        self.network.set_timer(OPS, ms, "return", (found, back))
        blocked = self.cluster.blockers()
        return [
            *self.collect_events(),
            {"type": "taken_down", "server": found, "back_at_ms": back},
            *([{"type": "commits_blocked", "by": blocked}] if blocked else []),
        ]

    def do_restart(self, server: str) -> list[dict]:
        """Bring a down server back now, as a replica."""
        found = self._server(server, "server")
        if self.cluster.up(found):
            raise ActionError(
                "not_down",
                _("server %(server)s is running"),
                "server",
                server=found,
            )
        self._start(found)
        return self.collect_events()

    def _start(self, server: str) -> None:
        self.return_at.pop(server, None)
        rolled = self.cluster.start(server)
        self.tally["rolled_back"] += len(rolled)
        event = {"type": "server_back", "server": server, "rolled_back": len(rolled)}
        if rolled:
            self.rolled_back = rolled[:LOST_SHOWN]
            event["records"] = [self._record_view(r) for r in rolled[:LOST_SHOWN]]
        self.cluster.emit(event)

    def do_kill_primary(self) -> list[dict]:
        """The primary crashes; commits it had not returned end "info"."""
        primary = self._primary()
        if not self.cluster.running_replicas():
            raise ActionError(
                "no_replica_running",
                _(
                    "no replica is running: with the primary gone no server could "
                    "take over; bring a replica back first"
                ),
            )
        held = max(s.received for s in self.cluster.replicas())
        unshipped = len(self.cluster.log) - held
        self.cluster.kill_primary()
        unknown = [op for op in self.open.values() if op.kind == "write"]
        for op in unknown:
            self.tally["unknown_writes"] += 1
            self._finish(op, "info", "primary_died")
        self._sample_lag()
        return [
            *self.collect_events(),
            {
                "type": "primary_killed",
                "server": primary,
                "unknown": [op.id for op in unknown],
                "held_by_no_replica": unshipped,
            },
        ]

    def do_promote(self, server: str) -> list[dict]:
        """A running replica becomes the primary; lost acknowledged writes are
        listed."""
        found = self._server(server, "server")
        cluster = self.cluster
        if cluster.primary is not None:
            raise ActionError(
                "primary_alive",
                _(
                    "%(primary)s is still the primary: two primaries would take "
                    "writes apart; kill it first"
                ),
                "server",
                primary=cluster.primary,
            )
        if not cluster.up(found):
            raise ActionError(
                "server_down",
                _("server %(server)s is down; a down replica cannot be promoted"),
                "server",
                server=found,
            )
        sync_down = [
            s.id
            for s in cluster.replicas()
            if s.mode == "sync" and not cluster.up(s.id)
        ]
        if sync_down:
            raise ActionError(
                "sync_replica_down",
                _(
                    "sync replica %(server)s is down and may hold commits no running "
                    "server has; bring it back first"
                ),
                "server",
                server=sync_down[0],
            )
        running = len(cluster.running_replicas())
        if cluster.acks == "majority" and running < cluster.majority():
            raise ActionError(
                "no_majority",
                _(
                    "only %(running)s of %(servers)s servers are running; with "
                    "majority acknowledgement %(needed)s must agree on a new primary"
                ),
                "server",
                running=running,
                servers=len(cluster.servers),
                needed=cluster.majority(),
            )
        result = cluster.promote(found)
        lost_ops = {record[OP] for record, _ms in result["lost"]}
        for op in self.history:
            if op.id in lost_ops:
                op.lost = True
        self.last_promotion = {
            "server": found,
            "at_ms": self.now_ms,
            "caught_up_from": result["caught_up_from"],
            "caught_up": result["caught_up"],
            "log_length": result["log_length"],
            "lost_count": len(result["lost"]),
            "unacknowledged": result["unacknowledged"],
        }
        self._sample_lag()
        events = self.collect_events()
        return [
            {
                "type": "promoted",
                **self.last_promotion,
                "lost": [
                    self._lost_view(r, ms) for r, ms in result["lost"][:LOST_SHOWN]
                ],
            },
            *events,
        ]

    def _record_view(self, record: tuple) -> dict:
        return {
            "lsn": record[LSN],
            "row": record[ROW],
            "value": record[VALUE],
            "op": record[OP],
            "written_ms": record[WRITTEN],
        }

    def _lost_view(self, record: tuple, commit_ms: int) -> dict:
        return {**self._record_view(record), "committed_ms": commit_ms}

    # -- settings ----------------------------------------------------------------------

    def do_set_replica(self, server: str, mode: str, place: str) -> list[dict]:
        """Make a replica sync or async and move it."""
        found = self._replica(server)
        self.cluster.set_place(found, place)
        self.cluster.set_mode(found, mode)
        blocked = self.cluster.blockers()
        return [
            {"type": "replica_set", "server": found, "mode": mode, "place": place},
            *([{"type": "commits_blocked", "by": blocked}] if blocked else []),
            *self.collect_events(),
        ]

    def do_set_acks(self, acks: str) -> list[dict]:
        """w:1 or majority acknowledgement."""
        self.cluster.set_acks(acks)
        return [{"type": "acks_set", "acks": acks}, *self.collect_events()]

    def do_set_read_your_writes(self, fix: str) -> list[dict]:
        """Choose one of the three read-your-writes fixes, or none."""
        self.fix = fix
        return [{"type": "read_your_writes_set", "fix": fix}]

    def do_set_replicas(self, replicas: int) -> list[dict]:
        """Start again with a fresh cluster."""
        self._fresh(replicas)
        return [{"type": "cluster_reset", "replicas": replicas}]

    # -- what the renderer reads -------------------------------------------------------

    def _server_view(self, server) -> dict:
        cluster = self.cluster
        cluster.catch_up(server)
        records, ms = (0, 0) if server.id == cluster.primary else cluster.lag(server)
        return {
            "id": server.id,
            "place": server.place,
            "mode": server.mode,
            "role": server.role,
            "up": cluster.up(server.id),
            "received": server.received,
            "applied": server.applied,
            "buffered": len(server.buffer),
            "tail": len(server.tail),
            "lag_records": records,
            "lag_ms": ms,
            "back_at_ms": self.return_at.get(server.id),
            "rows": {
                "ana": server.rows[EMAIL_ROW["ana"]][VALUE],
                "ben": server.rows[EMAIL_ROW["ben"]][VALUE],
                "position": server.rows[READ_POSITION][VALUE],
            },
        }

    def _ryw_verdict(self) -> dict | None:
        """The history checker's verdict on Ana's email, a register she alone writes:
        did each of her reads see her own acknowledged changes? (None: no read yet.)"""
        key = (self.generation, self.step_count)
        if self._ryw_key == key:
            return self._ryw
        row = EMAIL_ROW["ana"]
        ops = []
        for op in self.history:
            if op.row != row or op.client != "ana":
                continue
            if op.kind == "read" and op.outcome != "ok":
                continue
            if op.kind == "write" and op.outcome == "fail":
                continue
            done = op.outcome == "ok"
            ops.append(
                HistoryOp(
                    op.id,
                    op.client,
                    op.kind,
                    op.value,
                    tuple(op.invoke),
                    tuple(op.complete) if done else None,
                    "ok" if done else "info",
                )
            )
        verdict = None
        if any(op.kind == "read" for op in ops):
            verdict = check_read_your_writes(ops, email_of("ana", 0)).as_dict()
        self._ryw_key, self._ryw = key, verdict
        return verdict

    def _farthest_first(self) -> list[str]:
        """The replicas, the farthest from the first primary's zone first."""
        rank = {"ocean": 0, "region": 1, "zone": 2}
        replicas = self.cluster.replicas()
        return [s.id for s in sorted(replicas, key=lambda s: (rank[s.place], s.id))]

    def _network_view(self) -> dict:
        """The network as drawn: the servers (the timers' node is not one)."""
        view = self.network.snapshot()
        view["nodes"] = [n for n in view["nodes"] if n["id"] != OPS]
        return view

    def snapshot(self) -> dict:
        cluster = self.cluster
        log = cluster.log
        shown = log[-LOG_SHOWN:]
        return {
            "playback": self.playback(),
            "network": self._network_view(),
            "servers": [self._server_view(s) for s in cluster.servers.values()],
            "primary": cluster.primary,
            "term": cluster.term,
            "acks": cluster.acks,
            "majority": cluster.majority(),
            "read_your_writes": self.fix,
            # running replicas first: what "Promote" offers first can be promoted
            "replica_ids": [
                s.id
                for s in sorted(cluster.replicas(), key=lambda s: not cluster.up(s.id))
            ],
            "down_ids": [s for s in cluster.servers if not cluster.up(s)],
            # the farthest replica first: the quick bar's read goes there unless told
            "read_targets": [*self._farthest_first(), PRIMARY],
            "blocked_by": cluster.blockers(),
            "apply_ms": APPLY_MS,
            "sticky_ms": STICKY_MS,
            "max_burst": MAX_BURST,
            "log": {
                "length": len(log),
                "committed": cluster.committed,
                "records": [
                    {**self._record_view(r), "committed": r[LSN] <= cluster.committed}
                    for r in shown
                ],
            },
            "emails": {c: email_of(c, self.clients[c]["changes"]) for c in CLIENTS},
            "lost": {
                "last": [self._lost_view(r, ms) for r, ms in cluster.lost[:LOST_SHOWN]],
                "last_count": len(cluster.lost),
                "total": cluster.lost_total,
                "unacknowledged": cluster.unacknowledged_lost,
                "promotion": self.last_promotion,
            },
            "rolled_back": [self._record_view(r) for r in self.rolled_back],
            "lag": {s: [list(p) for p in pts] for s, pts in self.lag_series.items()},
            "history": [op.as_dict() for op in self.history],
            "history_total": self.history_total,
            "read_your_writes_verdict": self._ryw_verdict(),
        }

    def metrics(self) -> dict:
        cluster = self.cluster
        lags = {
            s.id: dict(zip(("records", "ms"), cluster.lag(s), strict=True))
            for s in cluster.replicas()
        }
        net = self.network
        return {
            **self.tally,
            "pending_commits": len(cluster.log) - cluster.committed,
            "lost_acknowledged": cluster.lost_total,
            "lost_last_failover": len(cluster.lost),
            "failovers": cluster.failovers,
            "last_commit_wait_ms": self.last_commit_wait_ms,
            "lag": lags,
            "max_lag_records": max((v["records"] for v in lags.values()), default=0),
            "max_lag_ms": max((v["ms"] for v in lags.values()), default=0),
            "messages_sent": net.sent,
            "messages_delivered": net.delivered,
            "messages_lost": net.lost,
        }

    def state(self) -> dict:
        return {
            "snapshot": self.snapshot(),
            "metrics": self.metrics(),
            "open": sorted(self.open),
            "clients": self.clients,
        }
