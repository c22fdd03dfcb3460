"""One primary, its replicas, and the write-ahead log between them.

Every change is a *record* appended to the primary's log: `(lsn, term, row, value,
op, written_ms)`. The primary applies it at once and ships it to every replica that
is up (one `wal` message each; a burst travels as one `wal_batch`). A replica keeps
what arrives in log order (a record that overtakes another waits for it), answers
with its position when the primary needs to know (`ack`: a sync replica, or majority
acknowledgement), and applies its records one after another, `APPLY_MS` each, in log
order. So a replica has two positions: *received* (what it holds) and *applied*
(what its rows show); its rows always equal the primary's rows as of its last applied
record.

Applying takes no events of its own: when a record arrives its apply time is known
(`APPLY_MS` after the arrival, or after the record before it is applied, whichever
is later), so a replica keeps those times in order (`due`) and applies what is due
whenever anyone looks (`catch_up`: a read, the lag, a failover, the end of every
stretch of time the lab runs). What is seen is the same as if each apply were an
event; a run of 100,000 writes spends no heap entries on it.

A commit is returned to the client when the record is on every sync replica and, with
majority acknowledgement, on a majority of all the servers (the primary counts, down
servers too). Records are committed in log order.

Every log is a prefix of the current primary's log, so the cluster keeps one `log`
and each server keeps its length. Failover (`promote`): the chosen replica first takes
the records it lacks from the most advanced replica still running (as Patroni and
MongoDB's catch-up do), becomes the primary of a new term, and the log is cut to what
it holds. Whatever lay beyond is on no running server: the committed records there
are the *lost acknowledged writes*. A server that held some of them (the old primary,
a replica that was down) keeps them as a divergent tail, and throws it away when it
comes back (a rollback).

`record=False` runs the same cluster without events, for the benchmark; with
`stream=True` as well, a record on its way to a replica is not a `Message` but an
entry in the replica's `flying` queue, its delay drawn as `Network.send` would draw
it (`Network.draw_delay`), and it lands when anyone looks (`land`). The log is a
stream: a record that would overtake the one before it waits for it (which is when
the replica, keeping records in log order, would have taken it from its buffer), so
the queue is in arrival order. Only while no commit waits for acknowledgements (acks
need messages), so a streaming cluster refuses sync replicas and majority
acknowledgement. One difference: a record flying to a replica that stops is lost
even if the replica is back before it would have arrived (a message would then be
delivered). `tests/simulators/test_replication_stream.py` holds the two ways equal.
"""

from collections import deque
from random import Random

from simulators.engine.clock import EventQueue
from simulators.engine.ledger import Shared
from simulators.engine.network import Latency, Network

SERVER_IDS = ("A", "B", "C", "D")
OPS = "ops"  # a node without links that keeps the clients' and operator's timers
PLACES = ("zone", "region", "ocean")
APPLY_MS = 1  # a replica applies one record per millisecond
# one-way latency between two places (the first primary is in "zone")
LATENCIES = {
    ("zone", "zone"): Latency(1, 1),
    ("region", "region"): Latency(1, 1),
    ("ocean", "ocean"): Latency(1, 1),
    ("region", "zone"): Latency(18, 4),
    ("ocean", "zone"): Latency(95, 10),
    ("ocean", "region"): Latency(85, 10),
}


def latency_between(a: str, b: str) -> Latency:
    """The one-way latency between two places, either order."""
    return LATENCIES[(a, b) if a <= b else (b, a)]


# a record: (lsn, term, row, value, op id, written at ms)
LSN, TERM, ROW, VALUE, OP, WRITTEN = range(6)
CHUNK = 1024  # records a checkpoint shares as one part (LogChunk)


class LogChunk(Shared):
    """`CHUNK` records (or commit times) of the log that no failover can cut any more:
    checkpoints share them instead of copying them (simulators/engine/ledger.py)."""

    __slots__ = ("items", "part_key")

    def __init__(self, items: tuple) -> None:
        self.items = items
        self.part_key: bytes | None = None

    def __reduce__(self):
        return (LogChunk, (self.items,))


def _chunks_of(chunks: list, items: list, settled: int) -> list:
    """`chunks` grown to cover the first `settled` items, whole chunks only (the
    chunks already made are kept: their items never change)."""
    chunks = list(chunks)
    while (len(chunks) + 1) * CHUNK <= settled:
        start = len(chunks) * CHUNK
        chunks.append(LogChunk(tuple(items[start : start + CHUNK])))
    return chunks


class Server:
    """One server: its place, its role and how far its copy of the log goes."""

    __slots__ = (
        "id",
        "place",
        "mode",
        "role",
        "received",
        "applied",
        "acked",
        "rows",
        "buffer",
        "due",
        "busy_until",
        "flying",
        "stream_at",
        "tail",
        "dirty",
        "term",
    )

    def __init__(self, server_id: str, place: str, rows: dict) -> None:
        self.id = server_id
        self.place = place
        self.mode = "async"  # sync replicas hold every commit up
        self.role = "replica"
        self.received = 0  # records held, in log order
        self.applied = 0  # records applied to the rows
        self.acked = 0  # what the primary has heard this replica holds
        self.rows = dict(rows)  # row -> the record that wrote it last
        self.buffer: dict[int, tuple] = {}  # records that arrived early, by lsn
        self.due: deque[int] = deque()  # when each received, unapplied record applies
        self.busy_until = 0  # when the last of them is applied
        self.flying: deque[tuple] = deque()  # a stream's records: (at, lsn, record)
        self.stream_at = 0  # when the last of them lands
        self.tail: list[tuple] = []  # records beyond the current log (divergent)
        self.dirty = False  # rows ahead of `applied`: rebuilt when it comes back
        self.term = 1


class Cluster:
    """Servers on a fully meshed network, one of them the primary."""

    def __init__(
        self,
        queue: EventQueue,
        rng: Random,
        places: tuple[str, ...],
        rows: dict,
        *,
        on_commit=None,
        on_event=None,
        record: bool = True,
        stream: bool = False,
    ) -> None:
        if stream and record:
            raise ValueError("a stream carries no events: record=False")
        self.stream = stream
        self._targets: list | None = None  # the stream's replicas (_stream_targets)
        ids = SERVER_IDS[: len(places)]
        links = [
            (a, b, latency_between(places[i], places[j]))
            for i, a in enumerate(ids)
            for j, b in enumerate(ids)
            if i < j
        ]
        self.network = Network(
            queue,
            rng,
            (*ids, OPS),
            links,
            on_message=self._on_message,
            on_timer=self._on_timer,
            record=record,
        )
        self.record = record
        # every row starts as written by record 0 (lsn 0, term 0, op 0)
        rows = {row: (0, 0, row, value, 0, 0) for row, value in rows.items()}
        self.initial_rows = rows
        self.servers = {
            s: Server(s, place, rows) for s, place in zip(ids, places, strict=True)
        }
        self.primary: str | None = ids[0]
        self.servers[ids[0]].role = "primary"
        self.term = 1
        self.log: list[tuple] = []
        self.committed = 0  # records committed (in log order)
        self.commit_ms: list[int] = []  # when each committed record was committed
        self.acks = "one"  # or "majority"
        self.on_commit = on_commit  # (record) -> None, when a commit is returned
        self.on_event = on_event  # timers of the lab's own, on the OPS node
        self.waits = False  # whether any commit waits for acknowledgements
        self._chunks: tuple[list, list] = ([], [])  # shared parts of log, commit_ms
        self.lost: list[tuple] = []  # (record, commit_ms) lost at the last failover
        self.lost_total = 0
        self.unacknowledged_lost = 0
        self.failovers = 0

    # -- checkpoints -----------------------------------------------------------------

    def __getstate__(self) -> dict:
        """The cluster with the settled part of its log as shared chunks: records every
        server has received can never be cut by a failover (each promotion keeps at
        least what every running replica holds), nor can their commit times."""
        settled = min(s.received for s in self.servers.values())
        log_chunks, commit_chunks = self._chunks
        log_chunks = _chunks_of(log_chunks, self.log, settled)
        commit_chunks = _chunks_of(
            commit_chunks, self.commit_ms, min(settled, self.committed)
        )
        self._chunks = (log_chunks, commit_chunks)
        state = dict(self.__dict__)
        state["log"] = self.log[len(log_chunks) * CHUNK :]
        state["commit_ms"] = self.commit_ms[len(commit_chunks) * CHUNK :]
        return state

    def __setstate__(self, state: dict) -> None:
        log_chunks, commit_chunks = state["_chunks"]
        state["log"] = [r for c in log_chunks for r in c.items] + state["log"]
        state["commit_ms"] = [ms for c in commit_chunks for ms in c.items] + state[
            "commit_ms"
        ]
        self.__dict__.update(state)

    # -- who is who ------------------------------------------------------------------

    def up(self, server: str) -> bool:
        return self.network.nodes[server].up

    def replicas(self) -> list[Server]:
        """Every server but the primary, in id order."""
        return [s for s in self.servers.values() if s.id != self.primary]

    def running_replicas(self) -> list[Server]:
        return [s for s in self.replicas() if self.up(s.id)]

    def majority(self) -> int:
        return len(self.servers) // 2 + 1

    def emit(self, event: dict) -> None:
        if self.record:
            event["at_ms"] = self.network.now_ms
            self.network.events.append(event)

    # -- writing ---------------------------------------------------------------------

    def _stream_targets(self) -> list[Server]:
        """The replicas a stream ships to now (up ones), kept until a server stops,
        starts or changes role."""
        if self._targets is None:
            self._targets = self.running_replicas()
        return self._targets

    def write(self, row: str, value, op_id: int) -> int:
        """Append one record on the primary and ship it; returns its lsn."""
        log, net = self.log, self.network
        lsn = len(log) + 1
        now = net.clock.now_ms
        record = (lsn, self.term, row, value, op_id, now)
        log.append(record)
        primary = self.servers[self.primary]
        primary.rows[row] = record
        primary.received = primary.applied = lsn
        if self.stream:  # batch runs: no events, no acknowledgements to wait for
            draw, src = net.draw_delay, self.primary
            for server in self._targets or self._stream_targets():
                at = now + draw(src, server.id)
                if at < server.stream_at:
                    at = server.stream_at
                server.stream_at = at
                server.flying.append((at, lsn, record))
            self.committed = lsn
            self.commit_ms.append(now)
            if self.on_commit is not None:
                self.on_commit(record)
            return lsn
        send, stopped, src = net.send, net.stopped, self.primary
        info = {"lsn": lsn, "row": row} if self.record else None
        for server in self.servers:
            if server != src and not (stopped and server in stopped):
                send(src, server, "wal", record, info)
        if self.record:
            self.emit(
                {"type": "records_written", "server": src, "first": lsn, "last": lsn}
            )
        if self.waits:
            self.try_commit()
        else:  # nothing to wait for: the commit is returned at once
            self.committed = lsn
            self.commit_ms.append(now)
            if self.on_commit is not None:
                self.on_commit(record)
        return lsn

    def write_many(self, changes) -> list[int]:
        """Append several records at once, shipped as one `wal_batch` per replica;
        returns their lsns."""
        primary = self.servers[self.primary]
        log, now, term = self.log, self.network.now_ms, self.term
        rows = primary.rows
        lsns = []
        first = len(log)
        for row, value, op_id in changes:
            lsn = len(log) + 1
            log.append((lsn, term, row, value, op_id, now))
            rows[row] = log[-1]
            lsns.append(lsn)
        primary.received = primary.applied = len(log)
        send, stopped = self.network.send, self.network.stopped
        batch = (term, tuple(log[first:]))
        info = {"first": first + 1, "last": len(log)} if self.record else None
        for server in self.servers:
            if server != self.primary and not (stopped and server in stopped):
                send(self.primary, server, "wal_batch", batch, info)
        if self.record:
            self.emit(
                {
                    "type": "records_written",
                    "server": self.primary,
                    "first": first + 1,
                    "last": len(log),
                }
            )
        self.try_commit()
        return lsns

    def needs_acks(self, server: Server) -> bool:
        return server.mode == "sync" or self.acks == "majority"

    def blockers(self) -> list[str]:
        """The sync replicas that are down: every commit waits for them."""
        return [s.id for s in self.replicas() if s.mode == "sync" and not self.up(s.id)]

    def _rules_changed(self) -> None:
        """Whether commits wait for anyone, after a change of primary or settings."""
        self.waits = self.acks == "majority" or any(
            s.mode == "sync" for s in self.replicas()
        )

    def try_commit(self) -> None:
        """Commit, in log order, every record the acknowledgement rule allows."""
        if self.primary is None:
            return
        log = self.log
        replicas = self.replicas()
        sync = [s for s in replicas if s.mode == "sync"]
        need = self.majority() - 1 if self.acks == "majority" else 0
        while self.committed < len(log):
            lsn = self.committed + 1
            if sync and any(s.acked < lsn for s in sync):
                return
            if need and sum(1 for s in replicas if s.acked >= lsn) < need:
                return
            self.committed = lsn
            self.commit_ms.append(self.network.now_ms)
            if self.on_commit is not None:
                self.on_commit(log[lsn - 1])

    # -- the network calls these -----------------------------------------------------

    def _on_message(self, message) -> None:
        kind = message.kind
        if kind == "wal":
            record = message.payload
            if record[1] != self.term:
                return
            server = self.servers[message.dst]
            lsn = record[0]
            if (
                lsn == server.received + 1
                and not server.buffer
                and not self.record
                and not self.waits
            ):
                # the common case, inline: the next record, nobody waits for acks
                server.received = lsn
                now = self.network.clock.now_ms
                busy = server.busy_until
                busy = (busy if busy > now else now) + APPLY_MS
                server.due.append(busy)
                server.busy_until = busy
            else:
                self._receive(server, (record,))
        elif kind == "wal_batch":
            term, records = message.payload
            if term == self.term:
                server = self.servers[message.dst]
                if server.flying:
                    self.land(server, self.network.clock.now_ms)
                self._receive(server, records)
        elif kind == "ack":
            term, lsn = message.payload
            if term == self.term and message.dst == self.primary:
                server = self.servers[message.src]
                if lsn > server.acked:
                    server.acked = lsn
                    self.try_commit()
        elif kind == "resume":
            term, received = message.payload
            if term == self.term and message.dst == self.primary:
                self.send_from(message.src, received)

    def land(self, server: Server, until: int) -> None:
        """A stream's records that have arrived by `until` land, in arrival order."""
        flying = server.flying
        due, buffer = server.due, server.buffer
        while flying and flying[0][0] <= until:
            at, lsn, record = flying.popleft()
            if lsn == server.received + 1 and not buffer:
                # the common case, inline: the next record (a stream waits for no
                # acknowledgement), applied APPLY_MS after it lands or after the last
                server.received = lsn
                busy = server.busy_until
                busy = (busy if busy > at else at) + APPLY_MS
                due.append(busy)
                server.busy_until = busy
            else:
                self._receive(server, (record,), at)

    def _receive(self, server: Server, records, now: int | None = None) -> None:
        """Keep the records in log order; the early ones wait in the buffer."""
        before = server.received
        buffer = server.buffer
        for record in records:
            lsn = record[LSN]
            if lsn == server.received + 1:
                server.received = lsn
                while buffer and server.received + 1 in buffer:
                    del buffer[server.received + 1]
                    server.received += 1
            elif lsn > server.received + 1:
                buffer[lsn] = record
        if server.received == before:
            return
        if self.record:
            self.emit(
                {
                    "type": "records_received",
                    "server": server.id,
                    "received": server.received,
                }
            )
        if (self.acks == "majority" or server.mode == "sync") and self.primary:
            self.network.send(
                server.id,
                self.primary,
                "ack",
                (self.term, server.received),
                {"lsn": server.received} if self.record else None,
            )
        self._schedule_applies(server, before, now)

    def _schedule_applies(self, server: Server, before: int, now=None) -> None:
        """The apply times of the records after `before`, one `APPLY_MS` apart, none
        before it arrived."""
        if now is None:
            now = self.network.clock.now_ms
        busy = server.busy_until
        due = server.due
        for _ in range(server.received - before):
            busy = (busy if busy > now else now) + APPLY_MS
            due.append(busy)
        server.busy_until = busy

    def catch_up(self, server: Server) -> None:
        """Apply, in log order, every record whose time has come."""
        if server.flying:
            self.land(server, self.network.clock.now_ms)
        due = server.due
        if not due:
            return
        now = self.network.clock.now_ms
        if due[0] > now:
            return
        log, rows, applied = self.log, server.rows, server.applied
        popleft = due.popleft
        while due and due[0] <= now:
            popleft()
            record = log[applied]
            rows[record[ROW]] = record
            applied += 1
        server.applied = applied

    def settle(self) -> None:
        """Every running replica applies what is due by now."""
        for server in self.servers.values():
            if server.due or server.flying:
                self.catch_up(server)

    def _on_timer(self, node: str, kind: str, payload) -> None:
        if self.on_event is not None:
            self.on_event(kind, payload)

    def send_from(self, server_id: str, received: int) -> None:
        """The primary sends `server_id` every record after `received`."""
        records = tuple(self.log[received:])
        if records and self.up(server_id):
            info = (
                {"first": received + 1, "last": len(self.log)} if self.record else None
            )
            self.network.send(
                self.primary, server_id, "wal_batch", (self.term, records), info
            )

    # -- faults ----------------------------------------------------------------------

    def stop(self, server_id: str) -> None:
        """A server goes down: it loses what arrives and stops applying."""
        server = self.servers[server_id]
        self.catch_up(server)
        self._targets = None
        self.network.stop(server_id)
        server.flying.clear()
        server.stream_at = 0
        server.due.clear()
        server.busy_until = 0
        server.buffer.clear()

    def start(self, server_id: str) -> list[tuple]:
        """A server comes back as a replica: it throws away its divergent tail (rolled
        back), rebuilds its rows if they went past the current log, and asks the
        primary for what it lacks. Returns the records rolled back."""
        server = self.servers[server_id]
        self._targets = None
        self.network.restart(server_id)
        rolled_back, server.tail = server.tail, []
        if server.dirty:
            server.rows = self.rows_at(server.applied)
            server.dirty = False
        server.role = "replica"
        server.term = self.term
        server.acked = 0
        self._schedule_applies(server, server.applied)
        if self.primary is not None:
            self.network.send(
                server_id,
                self.primary,
                "resume",
                (self.term, server.received),
                {"lsn": server.received} if self.record else None,
            )
        return rolled_back

    def kill_primary(self) -> str:
        old = self.primary
        self.stop(old)
        self.servers[old].role = "down"
        self._targets = None
        self.waits = False
        self.primary = None
        return old

    def rows_at(self, applied: int) -> dict:
        """The rows as of the first `applied` records of the log."""
        rows = dict(self.initial_rows)
        for record in self.log[:applied]:
            rows[record[ROW]] = record
        return rows

    def promote(self, server_id: str) -> dict:
        """Make a running replica the primary of a new term (see the module's doc)."""
        new = self.servers[server_id]
        self.settle()
        for server in self.servers.values():
            server.flying.clear()  # the old term's records: a follower ignores them
            server.stream_at = 0
        running = self.running_replicas()
        source = max(running, key=lambda s: (s.received, s.id == server_id))
        held = source.received
        caught_up = held - new.received
        # the new primary takes what it lacks and applies everything it holds
        new.received = held
        new.buffer.clear()
        for record in self.log[new.applied : held]:
            new.rows[record[ROW]] = record
        new.applied = held
        new.due.clear()
        new.busy_until = 0
        beyond = self.log[held:]
        lost = [
            (record, self.commit_ms[record[LSN] - 1])
            for record in beyond
            if record[LSN] <= self.committed
        ]
        unacknowledged = len(beyond) - len(lost)
        for server in self.servers.values():
            if server.id != server_id and server.received > held:
                server.tail = self.log[held : server.received] + server.tail
                server.received = held
                server.buffer.clear()
            if server.applied > held:
                server.applied = held
                server.dirty = True
        del self.log[held:]
        self.committed = min(self.committed, held)
        del self.commit_ms[self.committed :]
        self.term += 1
        self.failovers += 1
        self.lost = lost
        self.lost_total += len(lost)
        self.unacknowledged_lost += unacknowledged
        self.primary = server_id
        self._targets = None
        new.role = "primary"
        new.mode = "async"  # a primary waits for others; it is nobody's sync replica
        new.term = self.term
        for server in self.replicas():
            server.acked = 0
            server.role = "replica"
            if self.up(server.id):
                server.term = self.term
                server.buffer.clear()
                self.send_from(server.id, server.received)
                if self.needs_acks(server):
                    # a follower tells its new primary where it stands
                    self.network.send(
                        server.id,
                        server_id,
                        "ack",
                        (self.term, server.received),
                        {"lsn": server.received} if self.record else None,
                    )
        # the records the new primary now holds were all written before: commit them
        self._rules_changed()
        self.try_commit()
        return {
            "server": server_id,
            "caught_up_from": source.id if caught_up else None,
            "caught_up": caught_up,
            "log_length": held,
            "lost": lost,
            "unacknowledged": unacknowledged,
        }

    # -- reading the state -----------------------------------------------------------

    def lag(self, server: Server) -> tuple[int, int]:
        """(records behind, milliseconds behind) of a replica against the primary's
        log: the records it has not applied, and how long ago the oldest of them was
        written."""
        self.catch_up(server)
        end = len(self.log)
        behind = end - server.applied
        if behind <= 0:
            return 0, 0
        return behind, self.network.now_ms - self.log[server.applied][WRITTEN]

    # -- settings --------------------------------------------------------------------

    def report_position(self, server: Server) -> None:
        """A running replica tells the primary how far it holds (when it becomes sync
        or majority acknowledgement starts counting it)."""
        if (
            self.primary is not None
            and server.id != self.primary
            and self.up(server.id)
        ):
            self.network.send(
                server.id,
                self.primary,
                "ack",
                (self.term, server.received),
                {"lsn": server.received} if self.record else None,
            )

    def set_mode(self, server_id: str, mode: str) -> None:
        if self.stream and mode == "sync":
            raise ValueError("a stream carries no acknowledgements")
        server = self.servers[server_id]
        server.mode = mode
        self._rules_changed()
        if mode == "sync":
            self.report_position(server)
        self.try_commit()

    def set_acks(self, acks: str) -> None:
        if self.stream and acks == "majority":
            raise ValueError("a stream carries no acknowledgements")
        self.acks = acks
        self._rules_changed()
        if acks == "majority":
            for server in self.replicas():
                self.report_position(server)
        self.try_commit()

    def set_place(self, server_id: str, place: str) -> None:
        """Move a server: the latency of each of its links follows."""
        self.servers[server_id].place = place
        for other in self.servers.values():
            if other.id != server_id:
                link = self.network.link_between(server_id, other.id)
                link.latency = latency_between(place, other.place)
