"""A coordinator, two shards and a client on the simulated network: two-phase commit.

The flights shard holds seat rows (`seat:12A`) and accounts 1-4, the bookings shard
booking rows (`booking:12A`) and accounts 5-8. A transaction that writes rows on both
shards goes from the client to the coordinator, which runs two-phase commit:

1. `prepare` to each shard: the shard locks the transaction's rows (exclusive for a
   write, shared for a read; a request that conflicts waits in the shard's queue, in
   order), checks it can do the writes (the seat is free, no balance goes below 0),
   forces a prepare record to its log (`LOG_MS`) and votes yes; or votes no at once.
2. With every vote yes, the coordinator forces its decision to its log: that is the
   commit point. It tells the client and sends `commit` to each shard, which forces a
   commit record, applies the writes, releases the locks and acknowledges. A no vote,
   or a vote missing after `VOTE_TIMEOUT_MS`, makes it abort: `abort` to each shard,
   which releases the locks, and "fail" to the client (certainly no effect).

A shard that voted yes holds its locks until the decision arrives: nothing else
releases them, not even a crash (its prepare record brings them back when it
recovers, still prepared, and it asks the coordinator for the decision, `inquire`,
every `INQUIRY_MS` until it knows). Presumed abort: a coordinator that has no decision
for a transaction it is asked about (it crashed before logging one) answers abort.
A coordinator that recovers sends every decision in its log that not every shard has
acknowledged again. A read of the accounts is a transaction too: its shared locks are
prepared and logged like a write's, so a crash of a shard cannot let a transfer slip
between its two halves.

A write that touches one shard (a seat's fare; a transfer between two accounts of one
shard) goes from the client straight to that shard: lock, one forced log record,
apply, release, reply. No coordinator, no vote.

In the mode "each shard on its own" (`independent`) the coordinator does not prepare:
it sends a transfer's debit to one shard as a one-shard write and, once that is done,
the credit to the other; a read asks both shards for their accounts at the same time,
each answering at once. Between the two halves the money is on neither shard.

Faults: any server (coordinator or shard) crashes and recovers. A crash loses what is
in memory (locks, queues, log writes not yet done, the coordinator's transactions);
the log and the rows it made survive. Client operations are recorded as Jepsen records
them (`Operation`): "ok", "fail" (certainly no effect) or "info" (unknown: the
coordinator crashed, or the client gave up after `CLIENT_TIMEOUT_MS`). An operation
that went through a coordinator that crashed is "info" at once, and stays so: the
client never hears; the lab adds what the coordinator carried out when it recovered
(`resolved`).

Order inside the cluster is `step`, a counter bumped at every invoke and completion,
so operations in one millisecond keep their order.

Batch runs (`batch.py`) make the cluster `direct`: the same protocol on the network in
batch mode, its messages and timers queued as plain tuples with their handlers instead
of `Message` objects looked up by kind (`Network.go_batch`; a test holds it equal to
the lab's way).
"""

from random import Random

from simulators.engine.clock import EventQueue
from simulators.engine.i18n import gettext_noop as _
from simulators.engine.network import Latency, Network

CLIENT, COORDINATOR, FLIGHTS, BOOKINGS = "client", "coordinator", "flights", "bookings"
SHARDS = (FLIGHTS, BOOKINGS)
SERVERS = (COORDINATOR, FLIGHTS, BOOKINGS)
NODES = (
    (CLIENT, _("Client")),
    (COORDINATOR, _("Coordinator")),
    (FLIGHTS, _("Flights shard")),
    (BOOKINGS, _("Bookings shard")),
)
LATENCY = Latency(10, 10)  # 10-20 ms one way
LINKS = (
    (CLIENT, COORDINATOR, LATENCY),
    (CLIENT, FLIGHTS, LATENCY),
    (CLIENT, BOOKINGS, LATENCY),
    (COORDINATOR, FLIGHTS, LATENCY),
    (COORDINATOR, BOOKINGS, LATENCY),
)
LOG_MS = 5  # a forced log write (an fsync)
VOTE_TIMEOUT_MS = 500  # the coordinator aborts a transaction still missing a vote
CLIENT_TIMEOUT_MS = 1_000  # the client gives up: the outcome is unknown ("info")
INQUIRY_MS = 400  # a prepared shard asks for the decision this often
QUEUE_LIMIT = 8  # requests one shard lets wait for locks; past it, refused at once

FLIGHT = "UA 455"
SEATS = ("12A", "12B", "12C", "12D")
FIRST_FARE = 240
ACCOUNTS = 8
TOTAL = 100
BALANCES = (12, 13, 12, 13, 12, 13, 12, 13)  # sums to TOTAL
MAX_TRANSFER = 5


def account_shard(account: int) -> str:
    """Accounts 1-4 live on the flights shard, 5-8 on the bookings shard."""
    return FLIGHTS if account <= ACCOUNTS // 2 else BOOKINGS


def account_row(account: int) -> str:
    return f"acct:{account}"


def first_rows(shard: str) -> dict:
    """A shard's rows before anything happened, in display order."""
    rows: dict = {}
    for seat in SEATS:
        if shard == FLIGHTS:
            rows[f"seat:{seat}"] = {"passenger": "", "fare": FIRST_FARE}
        else:
            rows[f"booking:{seat}"] = ""
    for account in range(1, ACCOUNTS + 1):
        if account_shard(account) == shard:
            rows[account_row(account)] = BALANCES[account - 1]
    return rows


class Operation:
    """One client operation, as Jepsen records it, with what the lab adds."""

    __slots__ = ("id", "client", "kind", "f", "value", "invoke", "complete")
    __slots__ += ("outcome", "route", "resolved", "reason", "closed")

    def __init__(self, op_id, client, kind, f, value, invoke, route) -> None:
        self.id, self.client, self.kind, self.f = op_id, client, kind, f
        self.value, self.invoke, self.route = value, invoke, route
        self.complete = None
        self.outcome = None  # pending
        self.resolved = None  # what a recovered coordinator carried out, if anything
        self.reason = None
        self.closed = False

    def as_dict(self) -> dict:
        return {
            "id": self.id,
            "client": self.client,
            "kind": self.kind,
            "f": self.f,
            "value": self.value,
            "invoke": list(self.invoke),
            "complete": list(self.complete) if self.complete else None,
            "outcome": self.outcome,
            "route": self.route,
            "resolved": self.resolved,
            "reason": self.reason,
        }


class Txn:
    """A transaction: its rows on each shard and what it cost."""

    __slots__ = ("id", "f", "parts", "mode", "state", "votes", "acks", "values")
    __slots__ += ("log_writes", "messages", "round_trips", "invoke_ms", "done_ms")
    __slots__ += ("first", "shards", "reads_only")

    def __init__(self, txn_id, f, parts, mode, now_ms) -> None:
        self.id, self.f, self.mode = txn_id, f, mode
        # shard -> [(row, "X" or "S", change)]: change is ("set", value),
        # ("add", amount) or None for a read
        self.parts: dict = parts
        self.state = "running"
        self.votes: dict = {}
        self.acks: dict = {}
        self.values: dict = {}
        self.log_writes: dict = {}
        self.messages = 0
        self.round_trips = 0
        self.invoke_ms, self.done_ms = now_ms, None
        self.first = None  # independent mode: the shard whose half is sent first
        if len(parts) == 2 and FLIGHTS in parts and BOOKINGS in parts:
            self.shards = [FLIGHTS, BOOKINGS]  # the list below, in its commonest case
        else:
            self.shards = [s for s in SHARDS if s in parts]
        for rows in parts.values():
            if not _reads(rows):
                self.reads_only = False
                break
        else:
            self.reads_only = True

    def costs(self) -> dict:
        return {
            "txn": self.id,
            "f": self.f,
            "mode": self.mode,
            "shards": len(self.parts),
            "log_writes": sum(self.log_writes.values()),
            "log_writes_by": dict(self.log_writes),
            "round_trips": self.round_trips,
            "messages": self.messages,
            "latency_ms": (
                None if self.done_ms is None else self.done_ms - self.invoke_ms
            ),
        }

    def as_dict(self) -> dict:
        return {
            "id": self.id,
            "f": self.f,
            "mode": self.mode,
            "state": self.state,
            "shards": list(self.shards),
            "rows": {s: [r for r, _m, _c in rows] for s, rows in self.parts.items()},
            "votes": dict(self.votes),
            "acks": sorted(self.acks),
        }


def _reads(rows) -> bool:
    """Whether `rows` ((row, mode, change)) only read: no change (a loop: a
    generator in `all` costs more, and batch runs ask for every request)."""
    for row in rows:  # noqa: SIM110
        if row[2] is not None:
            return False
    return True


def _names(rows) -> list:
    """The names of `rows` ((row, mode, change)), in order."""
    if len(rows) == 1:
        return [rows[0][0]]
    return [row[0] for row in rows]


def _queued(waiting: list, txn_id: int) -> bool:
    """Whether a request of `txn_id` waits in `waiting`."""
    for request in waiting:  # noqa: SIM110 (a loop: cheaper than a generator)
        if request.txn == txn_id:
            return True
    return False


class Request:
    """A request for locks waiting in (or granted by) one shard."""

    __slots__ = ("txn", "rows", "kind", "reply_to", "granted", "since_ms", "reads")

    def __init__(self, txn, rows, kind, reply_to, now_ms) -> None:
        self.txn, self.rows, self.kind, self.reply_to = txn, rows, kind, reply_to
        self.granted = False
        self.since_ms = now_ms
        self.reads = True  # _reads(rows), inline
        for row in rows:
            if row[2] is not None:
                self.reads = False
                break


class Shard:
    """One shard: durable rows and log; in memory, locks, queue and transactions."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.rows = first_rows(name)  # durable: what the log made them
        self.log: list = []  # durable: (record, txn, detail)
        self.log_total = 0  # records written
        self.forced = 0  # of them, forced writes (waited for)
        self.decided: dict = {}  # durable: txn -> "commit" / "abort" (from the log)
        self.prepared: dict = {}  # durable: txn -> [(row, mode, change)], no decision
        self.reset_memory()

    def reset_memory(self) -> None:
        self.locks: dict = {}  # row -> {"mode": "X" / "S", "holders": [txn]}
        self.waiting: list[Request] = []
        self.active: dict = {}  # txn -> Request (granted, not yet finished)
        self.pumping = self.pump_again = False

    def write_log(self, record: str, txn: int, detail=None) -> None:
        self.log.append((record, txn, detail))
        self.log_total += 1
        if len(self.log) > 40:
            del self.log[:10]

    def can_lock(self, rows, before: list) -> bool:
        for row, mode, _change in rows:
            lock = self.locks.get(row)
            if lock and (mode == "X" or lock["mode"] == "X"):
                return False
            for other in before:
                for orow, omode, _c in other.rows:
                    if orow == row and (mode == "X" or omode == "X"):
                        return False
        return True

    def lock(self, txn: int, rows) -> None:
        for row, mode, _change in rows:
            lock = self.locks.get(row)
            if lock is None:
                self.locks[row] = {"mode": mode, "holders": [txn]}
            elif txn not in lock["holders"]:
                lock["holders"].append(txn)

    def unlock(self, txn: int, rows=None) -> None:
        """Let go of `txn`'s locks (on `rows`, when the caller knows them)."""
        locks = self.locks
        if rows is None:
            rows = [(row, None, None) for row in locks]
        for row, _mode, _change in rows:
            lock = locks.get(row)
            if lock is not None:
                holders = lock["holders"]
                if txn in holders:
                    holders.remove(txn)
                    if not holders:
                        del locks[row]

    def holds(self, txn: int) -> bool:
        return any(txn in lock["holders"] for lock in self.locks.values())

    def check(self, rows) -> str:
        """Why the writes cannot be done ("" when they can)."""
        for row, _mode, change in rows:
            if change is None:
                continue
            op, value = change
            current = self.rows[row]
            if op == "add" and current + value < 0:
                return "balance"
            if op == "book" and (
                current["passenger"] if row[:5] == "seat:" else current
            ):
                return "taken"
        return ""

    def apply(self, rows) -> None:
        for row, _mode, change in rows:
            if change is None:
                continue
            op, value = change
            if op == "add":
                self.rows[row] += value
            elif op == "book":
                if row[:5] == "seat:":
                    self.rows[row] = {**self.rows[row], "passenger": value}
                else:
                    self.rows[row] = value
            elif op == "fare":
                self.rows[row] = {**self.rows[row], "fare": value}

    def read(self, rows) -> dict:
        return {row: self.rows[row] for row, _m, _c in rows}

    def snapshot(self, up: bool) -> dict:
        queue: dict = {}
        for request in self.waiting:
            for row, mode, _c in request.rows:
                queue.setdefault(row, []).append([request.txn, mode])
        return {
            "id": self.name,
            "up": up,
            "rows": [
                {
                    "row": row,
                    "value": value,
                    "lock": _copy_lock(self.locks.get(row)),
                    "queue": queue.get(row, []),
                }
                for row, value in self.rows.items()
            ],
            "prepared": sorted(self.prepared),
            "log": [[r, t, d] for r, t, d in self.log[-12:]],
            "log_records": self.log_total,
            "log_writes": self.forced,
            "waiting": [r.txn for r in self.waiting],
        }


class Coordinator:
    """The coordinator's durable log and its transactions in memory."""

    def __init__(self) -> None:
        self.log: list = []  # (record, txn, detail)
        self.log_total = 0
        # durable: txn -> ("commit"/"abort", [shards]) until every shard acknowledged
        # it (the end record); a transaction it has no record of was aborted
        self.decisions: dict = {}
        self.txns: dict = {}  # in memory: txn id -> Txn

    def write_log(self, record: str, txn: int, detail=None) -> None:
        self.log.append((record, txn, detail))
        if len(self.log) > 40:
            del self.log[:10]

    def snapshot(self, up: bool) -> dict:
        return {
            "id": COORDINATOR,
            "up": up,
            "log": [[r, t, d] for r, t, d in self.log[-12:]],
            "log_writes": self.log_total,
            "txns": [t.as_dict() for t in self.txns.values()],
            "unfinished": sorted(self.decisions),
        }


class Cluster:
    """The client, the coordinator and both shards, on one network."""

    def __init__(
        self,
        queue: EventQueue,
        rng: Random,
        *,
        record: bool = True,
        mode="2pc",
        direct: bool = False,
    ) -> None:
        if direct and record:
            raise ValueError("a direct cluster records no events: record=False")
        self.record = record
        self.network = Network(
            queue,
            rng,
            NODES,
            LINKS,
            on_message=self._on_message,
            on_timer=self._on_timer,
            record=record,
        )
        self.mode = mode
        self.shards = {s: Shard(s) for s in SHARDS}
        self.coordinator = Coordinator()
        self.ops: list[Operation] = []  # the last HISTORY operations
        self.open: dict[int, Operation] = {}
        self.unresolved: dict[int, Operation] = {}  # info, and nothing known yet
        self.txns: dict[int, Txn] = {}  # every transaction not yet forgotten
        self.recent: list[Txn] = []  # the last finished transactions, newest last
        self.trap: str | None = None
        self.step = 0
        self.next_id = 1
        self.tally = dict.fromkeys(
            ("ok", "fail", "info", "committed", "aborted", "crashes"), 0
        )
        self.last_costs: dict = {"one_shard": None, "two_shard": None}
        self.listeners: list = []  # called with each finished operation (workload)
        self.timer_handlers: dict = {}  # kind -> handler(payload), the workload's
        self.resent: dict = {}  # txn -> shards that acknowledged a resent decision
        self.direct = direct
        if direct:
            self._go_direct()

    # -- batch runs: the network in batch mode ------------------------------------

    def _go_direct(self) -> None:
        """Put the network in batch mode (`Network.go_batch`: each message and timer
        a plain entry of the queue carrying the handler it will run, instead of a
        `Message` looked up by node and kind; batch runs, `record=False`).

        The same events in the same order, the same latency draws, the same counts;
        what is missing is for drawing only (the network's `in_flight`). The three
        long timers (client timeout, vote timeout, inquiry), one delay each, wait in
        a lane each. A test holds a direct run equal to one message by message,
        crashes included (test_two_phase_commit_direct.py).
        """
        net = self.network
        net.go_batch(
            {
                node: {kind: f.__get__(self) for kind, f in handlers.items()}
                for node, handlers in _DELIVER.items()
            },
            {kind: f.__get__(self) for kind, f in _TIMERS.items()},
            lanes=(CLIENT_TIMEOUT_MS, VOTE_TIMEOUT_MS, INQUIRY_MS),
        )
        # the network's own, called straight: batch mode's `send` bills `tally` too
        self.send = net.send  # type: ignore[method-assign]
        self.set_timer = net.set_timer  # type: ignore[method-assign]

    def run_until(self, until_ms: int) -> int:
        """Run every message and timer due by `until_ms`; how many events ran."""
        return self.network.run_until(until_ms)

    # -- helpers -------------------------------------------------------------------

    @property
    def now_ms(self) -> int:
        return self.network.clock.now_ms

    def up(self, node: str) -> bool:
        return self.network.nodes[node].up

    def emit(self, event: dict) -> None:
        if self.record:
            event["at_ms"] = self.now_ms
            self.network.events.append(event)

    def send(self, src, dst, kind, payload, tally: Txn | None = None) -> None:
        """Send a message of the protocol; `tally`: the transaction whose bill it is
        on (its `messages`), as batch mode's `send` counts it."""
        if tally is not None:
            tally.messages += 1
        info = {"txn": payload[0]} if self.record else None
        self.network.send(src, dst, kind, payload, info)

    def set_timer(self, node: str, delay_ms: int, kind: str, payload) -> None:
        """`_on_timer(node, kind, payload)` in `delay_ms`, unless `node` stops first."""
        self.network.set_timer(node, delay_ms, kind, payload)

    # -- client operations ---------------------------------------------------------

    def invoke(self, client: str, kind: str, f: str, value, parts: dict) -> Operation:
        """Start a client operation whose transaction touches `parts`."""
        if len(self.txns) > FORGET_PAST:
            self._forget_lost()
        self.step += 1
        op_id = self.next_id
        self.next_id += 1
        one = len(parts) == 1
        route = next(iter(parts)) if one else COORDINATOR
        now = self.network.clock.now_ms
        op = Operation(op_id, client, kind, f, value, (now, self.step), route)
        ops = self.ops
        ops.append(op)
        if len(ops) > HISTORY:
            del ops[: len(ops) - HISTORY]
        self.open[op_id] = op
        mode = "one" if one else self.mode
        txn = Txn(op_id, f, parts, mode, now)
        self.txns[op_id] = txn
        if self.record:
            self.emit(
                {
                    "type": "op_invoked",
                    "op": op_id,
                    "client": client,
                    "kind": kind,
                    "f": f,
                    "value": value,
                    "route": route,
                    "mode": mode,
                }
            )
        if route == COORDINATOR and not self.network.nodes[route].up:
            # the client cannot connect: certainly no effect
            self._finish_op(op, "fail", "coordinator_down")
            self._forget(txn)
            return op
        if one:
            self.send(CLIENT, route, "request", (op_id, "one"))
        else:
            self.send(CLIENT, COORDINATOR, "begin", (op_id,))
        self.set_timer(CLIENT, CLIENT_TIMEOUT_MS, "client_timeout", op_id)
        return op

    def _finish_op(self, op: Operation, outcome: str, reason=None, value=None) -> None:
        """The client hears (or stops waiting): the operation's outcome is final."""
        if op.closed:
            return
        self.step += 1
        op.closed = True
        op.outcome, op.reason = outcome, reason
        op.complete = (self.network.clock.now_ms, self.step)
        if value is not None:
            op.value = value
        del self.open[op.id]
        self.tally[outcome] += 1
        if outcome == "info":
            self.unresolved[op.id] = op
            if len(self.unresolved) > HISTORY:
                del self.unresolved[next(iter(self.unresolved))]
        if self.record:
            self.emit({"type": "op_completed", **op.as_dict(), "op": op.id})
        for listener in self.listeners:
            listener(op)

    def _forget_lost(self) -> None:
        """Drop the transactions nothing will ever ask about again: not the
        coordinator's (live or logged), not held or queued by a shard, their client
        no longer waiting (so no message of theirs is still on the wire). Those of a
        crashed coordinator would otherwise pile up."""
        held: dict = {}
        for shard in self.shards.values():
            held.update(dict.fromkeys(shard.prepared))
            held.update(dict.fromkeys(shard.active))
            held.update(dict.fromkeys(r.txn for r in shard.waiting))
        coord = self.coordinator
        for txn_id in list(self.txns):
            if (
                txn_id not in coord.txns
                and txn_id not in coord.decisions
                and txn_id not in held
                and txn_id not in self.open
            ):
                del self.txns[txn_id]

    def _forget(self, txn: Txn) -> None:
        txn.done_ms = self.now_ms if txn.done_ms is None else txn.done_ms
        self.txns.pop(txn.id, None)

    def _txn_done(self, txn: Txn, crashed: bool = False) -> None:
        """The transaction reached its end (committed and acknowledged, or aborted);
        `crashed`: its coordinator crashed on the way (its bill is no example)."""
        txn.done_ms = self.network.clock.now_ms
        if txn.state in ("committed", "aborted"):
            self.tally[txn.state] += 1
        if self.unresolved:
            self._resolve(txn.id, txn.state)
        self.recent.append(txn)
        if len(self.recent) > 12:
            del self.recent[0]
        if (
            txn.state == "committed"
            and not crashed
            and txn.mode != "independent"
            and not txn.reads_only
        ):
            key = "one_shard" if len(txn.parts) == 1 else "two_shard"
            self.last_costs[key] = txn  # its bill, read when shown
        self.txns.pop(txn.id, None)
        if self.record:
            self.emit({"type": "txn_done", **txn.costs(), "state": txn.state})

    # -- the network calls these ---------------------------------------------------

    def _on_message(self, message) -> None:
        node = message.dst
        handler = _DELIVER[node].get(message.kind)
        if handler is not None:
            handler(self, node, message.src, message.payload)

    def _on_timer(self, node: str, kind: str, payload) -> None:
        handler = _TIMERS.get(kind)
        if handler is not None:
            handler(self, node, payload)
            return
        handler = self.timer_handlers.get(kind)
        if handler is not None:
            handler(payload)

    def _timer_client_timeout(self, node: str, op_id: int) -> None:
        op = self.open.get(op_id)
        if op is not None:
            self._finish_op(op, "info", "timeout")

    def _timer_vote_timeout(self, node: str, txn_id: int) -> None:
        txn = self.coordinator.txns.get(txn_id)
        if txn is None:
            return
        if txn.state == "voting":
            self._decide_abort(txn, "timeout")
        elif txn.mode == "independent":
            # a half that never answered (its shard was down): nobody knows
            # whether it was committed, and nothing will come back
            txn.state = "lost"
            del self.coordinator.txns[txn.id]
            self._reply(txn, "info", "timeout")

    def _timer_inquire(self, node: str, txn_id: int) -> None:
        if txn_id in self.shards[node].prepared:
            txn = self.txns.get(txn_id)
            self.send(node, COORDINATOR, "inquire", (txn_id,), txn)
            self.set_timer(node, INQUIRY_MS, "inquire", txn_id)

    # -- the client ----------------------------------------------------------------

    def _client_reply(self, node: str, src: str, payload) -> None:
        op = self.open.get(payload[0])
        if op is None:
            return  # the client gave up on it already
        _txn_id, outcome, value = payload
        if outcome == "ok":
            self._finish_op(op, "ok", None, value)
        else:
            self._finish_op(op, outcome, value)

    # -- the coordinator -----------------------------------------------------------

    def _coordinator_begin(self, node: str, src: str, payload) -> None:
        txn = self.txns.get(payload[0])
        coord = self.coordinator
        if txn is None or txn.id in coord.txns:
            return
        coord.txns[txn.id] = txn
        if txn.mode == "independent":
            self._independent_start(txn)
            return
        txn.state = "voting"
        txn.round_trips += 1
        for shard in txn.shards:
            self.send(COORDINATOR, shard, "prepare", (txn.id,), txn)
        self.set_timer(COORDINATOR, VOTE_TIMEOUT_MS, "vote_timeout", txn.id)

    def _coordinator_vote(self, node: str, src: str, payload) -> None:
        txn = self.coordinator.txns.get(payload[0])
        if txn is None or txn.state != "voting":
            return
        _id, yes, values = payload
        txn.votes[src] = yes
        if values:
            txn.values.update(values)
        if not yes:
            self._decide_abort(txn, "vote_no")
        elif len(txn.votes) == len(txn.parts):
            self._all_voted_yes(txn)

    def _coordinator_inquire(self, node: str, src: str, payload) -> None:
        coord = self.coordinator
        txn_id = payload[0]
        decision = coord.decisions.get(txn_id)
        live = coord.txns.get(txn_id)
        presumed = False
        if decision is not None:
            answer = decision[0]
        elif live is not None:
            if live.state in ("voting", "logging"):
                return  # the decision will come when it is made
            answer = "commit" if live.state == "committed" else "abort"
        else:  # no record of it: it never reached a decision (presumed abort)
            answer, presumed = "abort", True
            self._resolve(txn_id, "aborted")
        self.emit(
            {
                "type": "inquiry_answered",
                "txn": txn_id,
                "shard": src,
                "decision": answer,
                "presumed": presumed,
            }
        )
        self.send(COORDINATOR, src, answer, (txn_id,), self.txns.get(txn_id))

    def _coordinator_done(self, node: str, src: str, payload) -> None:
        """Independent mode: one half answered."""
        self._independent_step(payload[0], src, payload)

    def _all_voted_yes(self, txn: Txn) -> None:
        if txn.reads_only:
            # nothing to make durable: answer, then let the shards release
            txn.state = "committed"
            self.emit(
                {
                    "type": "decided",
                    "txn": txn.id,
                    "decision": "commit",
                    "logged": False,
                }
            )
            self._reply(txn, "ok", self._read_value(txn))
            self._send_decision(txn, "commit")
            return
        if self.trap is not None and self._spring("before_decision", txn):
            return
        txn.state = "logging"
        self.set_timer(COORDINATOR, LOG_MS, "decision_logged", txn.id)

    def _decision_logged(self, node: str, txn_id: int) -> None:
        """The coordinator's forced decision record is written (a timer)."""
        coord = self.coordinator
        txn = coord.txns.get(txn_id)
        if txn is None:
            return
        coord.write_log("commit", txn.id, txn.shards)
        coord.log_total += 1
        txn.log_writes[COORDINATOR] = txn.log_writes.get(COORDINATOR, 0) + 1
        coord.decisions[txn.id] = ("commit", txn.shards)
        txn.state = "committed"
        if self.record:
            self.emit({"type": "decided", "txn": txn.id, "decision": "commit"})
        if self.trap is not None and self._spring("after_decision", txn):
            return
        self._reply(txn, "ok", None)
        self._send_decision(txn, "commit")

    def _send_decision(self, txn: Txn, decision: str) -> None:
        txn.round_trips += 1
        for index, shard in enumerate(txn.shards):
            if (
                index == 1
                and self.trap is not None
                and not txn.reads_only
                and self._spring("between_shards", txn)
            ):
                return
            self.send(COORDINATOR, shard, decision, (txn.id,), txn)

    def _decide_abort(self, txn: Txn, reason: str) -> None:
        coord = self.coordinator
        txn.state = "aborted"
        # presumed abort: the abort record need not be forced, nor kept, nor its
        # acknowledgements awaited (a shard that missed it asks, and "no record" is
        # the answer abort)
        coord.write_log("abort", txn.id, reason)
        if self.record:
            self.emit(
                {
                    "type": "decided",
                    "txn": txn.id,
                    "decision": "abort",
                    "reason": reason,
                }
            )
        self._reply(txn, "fail", reason)
        txn.round_trips += 1
        for shard in txn.shards:
            self.send(COORDINATOR, shard, "abort", (txn.id,), txn)
        del coord.txns[txn.id]
        self._txn_done(txn)

    def _reply(self, txn: Txn, outcome: str, value) -> None:
        self.send(COORDINATOR, CLIENT, "reply", (txn.id, outcome, value))

    def _read_value(self, txn: Txn):
        if txn.f != "read":
            return None
        values = txn.values
        return [values[account_row(a)] for a in range(1, ACCOUNTS + 1)]

    def _coordinator_ack(self, node: str, shard: str, payload) -> None:
        txn_id = payload[0]
        coord = self.coordinator
        txn = coord.txns.get(txn_id)
        if txn is None:  # a decision sent again by a recovered coordinator
            decision = coord.decisions.get(txn_id)
            if decision:
                acks = self.resent.setdefault(txn_id, [])
                if shard not in acks:
                    acks.append(shard)
                if all(s in acks for s in decision[1]):
                    self._end(txn_id)
                    lost = self.txns.get(txn_id)
                    if lost is not None:
                        lost.state = (
                            "committed" if decision[0] == "commit" else "aborted"
                        )
                        self._txn_done(lost, crashed=True)
            return
        txn.acks[shard] = True
        if len(txn.acks) == len(txn.parts):
            if txn.id in coord.decisions:
                self._end(txn.id)
            del coord.txns[txn.id]
            self._txn_done(txn)

    def _end(self, txn_id: int) -> None:
        """Every shard has the decision: the coordinator may forget it."""
        coord = self.coordinator
        del coord.decisions[txn_id]
        self.resent.pop(txn_id, None)
        coord.write_log("end", txn_id)

    # -- independent mode (no prepare) ------------------------------------------------

    def _independent_start(self, txn: Txn) -> None:
        txn.state = "running"
        self.set_timer(COORDINATOR, VOTE_TIMEOUT_MS, "vote_timeout", txn.id)
        if txn.f == "read":
            txn.round_trips += 1
            for shard in txn.shards:
                self.send(COORDINATOR, shard, "request", (txn.id, "one"), txn)
            return
        # the debit first: the half that can be refused
        debit = next(
            (s for s in txn.shards if self._is_debit(txn.parts[s])), txn.shards[0]
        )
        txn.first = debit
        txn.round_trips += 1
        self.send(COORDINATOR, debit, "request", (txn.id, "one"), txn)

    @staticmethod
    def _is_debit(rows) -> bool:
        change = rows[0][2]
        return change is not None and change[0] == "add" and change[1] < 0

    def _independent_step(self, txn_id: int, shard: str, payload) -> None:
        txn = self.coordinator.txns.get(txn_id)
        if txn is None:
            return
        _id, outcome, values = payload
        txn.votes[shard] = outcome == "ok"
        if outcome == "ok" and values:
            txn.values.update(values)
        if outcome != "ok":
            txn.state = "aborted"
            if len(txn.votes) > 1:  # the first half is done: neither ok nor fail
                self._reply(txn, "info", "half_done")
            else:
                self._reply(txn, "fail", values)
            del self.coordinator.txns[txn.id]
            self._txn_done(txn)
            return
        if len(txn.votes) < len(txn.parts):
            if txn.f == "read":
                return
            if self._spring("between_shards", txn):
                return
            other = next(s for s in txn.shards if s != shard)
            txn.round_trips += 1
            self.send(COORDINATOR, other, "request", (txn.id, "one"), txn)
            return
        txn.state = "committed"
        self._reply(txn, "ok", self._read_value(txn))
        del self.coordinator.txns[txn.id]
        self._txn_done(txn)

    # -- the crash trap --------------------------------------------------------------

    def _spring(self, point: str, txn: Txn) -> bool:
        if self.trap != point:
            return False
        self.trap = None
        self.emit({"type": "trap_sprung", "point": point, "txn": txn.id})
        self.crash(COORDINATOR)
        return True

    # -- the shards ------------------------------------------------------------------

    def _shard_request(self, node: str, src: str, payload) -> None:
        """A one-shard request: as a prepare, without the vote."""
        self._shard_gets(node, src, payload, "request")

    def _shard_gets(self, node: str, src: str, payload, kind="prepare") -> None:
        """A prepare (two-phase commit) or a request (one shard) for locks."""
        shard, txn_id = self.shards[node], payload[0]
        txn = self.txns.get(txn_id)
        waiting = shard.waiting
        if (
            txn is None
            or txn_id in shard.active
            or (waiting and _queued(waiting, txn_id))
            or txn_id in shard.decided
            or txn_id in shard.prepared
        ):
            return
        rows = txn.parts[shard.name]
        if len(waiting) >= QUEUE_LIMIT and not shard.can_lock(rows, waiting):
            self._shard_refuses(shard, kind, txn, src, "busy")
            return
        request = Request(txn_id, rows, kind, src, self.network.clock.now_ms)
        if waiting or shard.pumping:
            waiting.append(request)
            self._pump(shard)
        elif shard.can_lock(rows, ()):
            # `_pump` over a queue of this one request, without queueing it
            shard.pumping, shard.pump_again = True, False
            try:
                self._grant(shard, request)
            finally:
                shard.pumping = False
            if shard.pump_again:
                self._pump(shard)
        else:
            waiting.append(request)

    def _shard_refuses(self, shard, kind, txn, src, why) -> None:
        self.emit({"type": "refused", "shard": shard.name, "txn": txn.id, "why": why})
        if src == CLIENT:  # a one-shard write: nothing happened, it is over
            txn.state = "aborted"
            self._txn_done(txn)
        if kind == "prepare":
            self.send(shard.name, src, "vote", (txn.id, False, None), txn)
        else:
            reply = "reply" if src == CLIENT else "done"
            self.send(
                shard.name,
                src,
                reply,
                (txn.id, "fail", why),
                txn if src != CLIENT else None,
            )

    def _pump(self, shard: Shard) -> None:
        """Grant, in order, every waiting request whose rows are free (a grant that
        finishes at once, a read, frees rows: then look again)."""
        if not shard.waiting:
            return
        if shard.pumping:
            shard.pump_again = True
            return
        shard.pumping = True
        try:
            again = True
            while again:
                shard.pump_again = False
                waiting = shard.waiting
                if len(waiting) == 1:  # the loop below over one request, shorter
                    request = waiting[0]
                    if shard.can_lock(request.rows, ()):
                        del waiting[0]
                        self._grant(shard, request)
                    again = shard.pump_again
                    continue
                before: list = []
                for request in list(shard.waiting):
                    if request not in shard.waiting:
                        continue
                    if shard.can_lock(request.rows, before):
                        shard.waiting.remove(request)
                        self._grant(shard, request)
                    else:
                        before.append(request)
                again = shard.pump_again
        finally:
            shard.pumping = False

    def _grant(self, shard: Shard, request: Request) -> None:
        txn_id = request.txn
        txn = self.txns.get(txn_id)
        if txn is None:
            return
        rows = request.rows
        why = shard.check(rows)
        if why:
            self._shard_refuses(shard, request.kind, txn, request.reply_to, why)
            return
        shard.lock(txn_id, rows)
        request.granted = True
        shard.active[txn_id] = request
        if self.record:
            self.emit(
                {
                    "type": "locked",
                    "shard": shard.name,
                    "txn": request.txn,
                    "rows": [r for r, _m, _c in rows],
                }
            )
        if request.kind == "request" and request.reads:
            self._one_shard_finish(shard, request)
            return
        self.set_timer(shard.name, LOG_MS, "log_done", txn_id)

    def _shard_logged(self, node: str, txn_id: int) -> None:
        """A shard's forced log record is written (a timer, the commonest)."""
        shard = self.shards[node]
        request = shard.active.get(txn_id)
        if request is None:
            return
        txn = self.txns.get(txn_id)
        if request.kind == "prepare":
            if request.granted == "committing":
                self._shard_commit_logged(shard, request)
                return
            rows = request.rows
            log = shard.log  # shard.write_log("prepare", ...), inline
            log.append(
                ("prepare", txn_id, [rows[0][0]] if len(rows) == 1 else _names(rows))
            )
            shard.log_total += 1
            if len(log) > 40:
                del log[:10]
            shard.prepared[txn_id] = rows
            shard.forced += 1  # _count_log, inline
            if txn is not None:
                bill = txn.log_writes
                bill[node] = bill.get(node, 0) + 1
                values = shard.read(rows) if txn.f == "read" else None
            else:
                values = None
            if self.record:
                self.emit(
                    {"type": "voted", "shard": shard.name, "txn": txn_id, "yes": True}
                )
            self.send(shard.name, request.reply_to, "vote", (txn_id, True, values), txn)
            self.set_timer(shard.name, INQUIRY_MS, "inquire", txn_id)
        else:
            shard.write_log("commit", txn_id, _names(request.rows))
            self._count_log(txn, shard)
            self._one_shard_finish(shard, request)

    @staticmethod
    def _count_log(txn: Txn | None, shard: Shard) -> None:
        """One forced log write on `shard` (an fsync), on the transaction's bill."""
        shard.forced += 1
        if txn is not None:
            name = shard.name
            txn.log_writes[name] = txn.log_writes.get(name, 0) + 1

    def _one_shard_finish(self, shard: Shard, request: Request) -> None:
        txn = self.txns.get(request.txn)
        shard.apply(request.rows)
        values = shard.read(request.rows) if txn and txn.f == "read" else None
        shard.unlock(request.txn, request.rows)
        del shard.active[request.txn]
        shard.decided[request.txn] = "commit"
        if len(shard.decided) > 400:
            self._trim_decided(shard)
        if self.record:
            self.emit(
                {
                    "type": "released",
                    "shard": shard.name,
                    "txn": request.txn,
                    "why": "one_shard",
                }
            )
        if request.reply_to == CLIENT:
            self.send(shard.name, CLIENT, "reply", (request.txn, "ok", None))
            if txn is not None:
                txn.state = "committed"
                self._txn_done(txn)
        else:
            self.send(
                shard.name, request.reply_to, "done", (request.txn, "ok", values), txn
            )
        if shard.waiting:
            self._pump(shard)

    def _shard_commit(self, node: str, src: str, payload) -> None:
        shard, txn_id = self.shards[node], payload[0]
        if txn_id in shard.prepared:
            request = shard.active.get(txn_id)
            if request is None:
                return
            if request.granted == "committing":
                return
            if request.reads:
                txn = self.txns.get(txn_id)
                self._shard_release(shard, txn_id, "commit")
                self.send(shard.name, src, "ack", (txn_id,), txn)
                return
            request.granted = "committing"
            request.reply_to = src
            self.set_timer(shard.name, LOG_MS, "log_done", txn_id)
        elif shard.decided.get(txn_id) == "commit":
            self.send(shard.name, src, "ack", (txn_id,), self.txns.get(txn_id))

    def _shard_commit_logged(self, shard: Shard, request: Request) -> None:
        txn_id = request.txn
        txn = self.txns.get(txn_id)
        log = shard.log  # shard.write_log("commit", txn_id), inline
        log.append(("commit", txn_id, None))
        shard.log_total += 1
        if len(log) > 40:
            del log[:10]
        shard.forced += 1  # _count_log, inline
        if txn is not None:
            bill, node = txn.log_writes, shard.name
            bill[node] = bill.get(node, 0) + 1
        shard.apply(request.rows)
        self._shard_release(shard, txn_id, "commit")
        self.send(shard.name, request.reply_to, "ack", (txn_id,), txn)

    def _shard_release(self, shard: Shard, txn_id: int, decision: str) -> None:
        """The decision arrived: the only way a prepared transaction lets go."""
        rows = shard.prepared.pop(txn_id, None)
        request = shard.active.pop(txn_id, None)
        # a read's shared locks: commit or abort, it only lets go (and a read's
        # decision is not logged, so a recovered coordinator may presume abort)
        if rows is None:
            reads = False
        elif request is not None and request.rows is rows:
            reads = request.reads
        else:
            reads = _reads(rows)
        if decision == "abort":
            shard.write_log("abort", txn_id)  # presumed abort: not forced
        elif reads:
            shard.write_log("commit", txn_id)  # a read's: nothing to make durable
        shard.decided[txn_id] = decision
        if len(shard.decided) > 400:
            self._trim_decided(shard)
        shard.unlock(txn_id, request.rows if request is not None else None)
        if self.record:
            self.emit(
                {
                    "type": "released",
                    "shard": shard.name,
                    "txn": txn_id,
                    "why": "release" if reads else decision,
                }
            )
        if shard.waiting:
            self._pump(shard)

    @staticmethod
    def _trim_decided(shard: Shard) -> None:
        """Forget the oldest 100 decisions of a shard that remembers over 400."""
        for key in list(shard.decided)[:100]:
            del shard.decided[key]

    def _shard_abort(self, node: str, src: str, payload) -> None:
        shard, txn_id = self.shards[node], payload[0]
        txn = self.txns.get(txn_id)
        if shard.decided.get(txn_id) == "commit":
            # a late answer to an inquiry sent just before the commit came: the
            # coordinator had already forgotten it (every shard acknowledged), so it
            # presumed abort; this shard knows better and keeps what it did
            return
        if txn_id in shard.prepared:
            request = shard.active.get(txn_id)
            if request is not None and request.granted == "committing":
                return  # cannot happen: a decision is never changed
            self._shard_release(shard, txn_id, "abort")
        else:
            # not voted yet: drop it from the queue, or free what it was logging
            shard.waiting = [r for r in shard.waiting if r.txn != txn_id]
            if txn_id in shard.active:
                del shard.active[txn_id]
                shard.unlock(txn_id)
                if shard.waiting:
                    self._pump(shard)
            shard.decided[txn_id] = "abort"
        self.send(shard.name, src, "ack", (txn_id,), txn)

    # -- crashes ---------------------------------------------------------------------

    def crash(self, node: str) -> None:
        """Stop a server: what it held in memory is gone; its log survives."""
        self.network.stop(node)
        self.tally["crashes"] += 1
        if node == COORDINATOR:
            coord = self.coordinator
            for txn in coord.txns.values():
                txn.state = "lost"
            coord.txns = {}
            for op in list(self.open.values()):
                if op.route == COORDINATOR:
                    self._finish_op(op, "info", "coordinator_crashed")
        else:
            shard = self.shards[node]
            shard.reset_memory()
        self.emit({"type": "crashed", "node": node})

    def recover(self, node: str) -> None:
        """Start a server again from its log."""
        self.network.restart(node)
        if node == COORDINATOR:
            coord = self.coordinator
            resent = []
            for txn_id, (decision, shards) in coord.decisions.items():
                resent.append(txn_id)
                self.resent[txn_id] = []
                txn = self.txns.get(txn_id)
                for shard in shards:
                    self.send(COORDINATOR, shard, decision, (txn_id,), txn)
            self.emit({"type": "recovered", "node": node, "resent": resent})
            return
        shard = self.shards[node]
        asked = []
        for txn_id, rows in shard.prepared.items():
            request = Request(txn_id, rows, "prepare", COORDINATOR, self.now_ms)
            request.granted = True
            shard.lock(txn_id, rows)
            shard.active[txn_id] = request
            asked.append(txn_id)
            txn = self.txns.get(txn_id)
            self.send(node, COORDINATOR, "inquire", (txn_id,), txn)
            self.set_timer(node, INQUIRY_MS, "inquire", txn_id)
        self.emit({"type": "recovered", "node": node, "prepared": asked})

    def _resolve(self, txn_id: int, what: str) -> None:
        """What became of an operation whose client was left not knowing."""
        op = self.unresolved.pop(txn_id, None)
        if op is not None and op.kind == "write":  # a read that never returned: moot
            op.resolved = what
            self.emit({"type": "resolved", "op": op.id, "resolved": what})

    # -- what the renderer reads -----------------------------------------------------

    def total(self) -> int:
        return sum(
            shard.rows[account_row(a)]
            for shard in self.shards.values()
            for a in range(1, ACCOUNTS + 1)
            if account_shard(a) == shard.name
        )


# what each node does with each kind of message, and each kind of timer: plain
# functions (called with the cluster), so a checkpoint pickles no table
_DELIVER = {
    CLIENT: {"reply": Cluster._client_reply},
    COORDINATOR: {
        "begin": Cluster._coordinator_begin,
        "vote": Cluster._coordinator_vote,
        "ack": Cluster._coordinator_ack,
        "inquire": Cluster._coordinator_inquire,
        "done": Cluster._coordinator_done,
    },
    **{
        shard: {
            "prepare": Cluster._shard_gets,
            "request": Cluster._shard_request,
            "commit": Cluster._shard_commit,
            "abort": Cluster._shard_abort,
        }
        for shard in SHARDS
    },
}
_TIMERS = {
    "log_done": Cluster._shard_logged,
    "client_timeout": Cluster._timer_client_timeout,
    "decision_logged": Cluster._decision_logged,
    "vote_timeout": Cluster._timer_vote_timeout,
    "inquire": Cluster._timer_inquire,
}


HISTORY = 200  # the operations kept (and shown): the last 200
FORGET_PAST = 64  # transactions kept before those nothing refers to are dropped


# -- transactions -------------------------------------------------------------------


def book_parts(seat: str, passenger: str) -> dict:
    """Booking a seat: the seat row on the flights shard and the booking row."""
    return {
        FLIGHTS: [(f"seat:{seat}", "X", ("book", passenger))],
        BOOKINGS: [(f"booking:{seat}", "X", ("book", passenger))],
    }


def fare_parts(seat: str, fare: int) -> dict:
    """A seat's new fare: one row of one shard."""
    return {FLIGHTS: [(f"seat:{seat}", "X", ("fare", fare))]}


def transfer_parts(source: int, target: int, amount: int) -> dict:
    """Moving `amount` between two accounts: one shard or two."""
    from_shard, from_row = _ACCOUNT_AT[source]
    to_shard, to_row = _ACCOUNT_AT[target]
    debit = (from_row, "X", ("add", -amount))
    credit = (to_row, "X", ("add", amount))
    if from_shard == to_shard:
        return {from_shard: [debit, credit]}
    if from_shard == FLIGHTS:
        return {FLIGHTS: [debit], BOOKINGS: [credit]}
    return {FLIGHTS: [credit], BOOKINGS: [debit]}


# account -> (its shard, its row); index 0 unused
_ACCOUNT_AT = (
    None,
    *((account_shard(a), account_row(a)) for a in range(1, ACCOUNTS + 1)),
)


def read_parts() -> dict:
    """Reading all eight accounts: shared locks on both shards."""
    parts: dict = {}
    for account in range(1, ACCOUNTS + 1):
        parts.setdefault(account_shard(account), []).append(
            (account_row(account), "S", None)
        )
    return {s: parts[s] for s in SHARDS}


# -- the bank workload ----------------------------------------------------------------

BANK_CLIENTS = ("w1", "w2", "w3")
BANK_OPS = 200  # operations in one run of the workload
READ_ONE_IN = 3  # about one operation in three reads every account
GAP_MS = (5, 30)  # a client's pause between two operations
BACKOFF_MS = 100  # its pause after the coordinator refused to connect
TOTALS_KEPT = 200


class Bank:
    """Jepsen's bank workload: clients transferring at most 5 between 8 accounts
    and reading all of them; every read should add up to 100."""

    def __init__(self, cluster: Cluster, rng, ops: int, reads: bool = True) -> None:
        self.cluster = cluster
        self.rng = rng
        self.limit = ops
        self.reads = reads
        self.invoked = 0
        self.running = False
        self.totals: list = []  # [complete_ms, total, op id] of the ok reads
        self.reads_ok = 0
        self.off = 0  # reads whose total was not 100
        self.first_off: dict | None = None
        self.transfers = {"ok": 0, "fail": 0, "info": 0}
        cluster.listeners.append(self.finished)
        cluster.timer_handlers["bank_next"] = self.next

    def start(self) -> None:
        self.running = True
        self.invoked = 0
        for index, client in enumerate(BANK_CLIENTS):
            self.cluster.set_timer(CLIENT, 1 + index, "bank_next", client)

    def stop(self) -> None:
        self.running = False

    def _draw(self, low: int, high: int) -> int:
        return low + int(self.rng.random() * (high - low + 1))

    def next(self, client: str) -> None:
        if not self.running:
            return
        if self.invoked >= self.limit:
            if not any(op.client in BANK_CLIENTS for op in self.cluster.open.values()):
                self.running = False
                self.cluster.emit({"type": "bank_done", "ops": self.invoked})
            return
        self.invoked += 1
        cluster = self.cluster
        random = self.rng.random  # _draw, inline: the same draws in the same order
        if self.reads and 1 + int(random() * READ_ONE_IN) == 1:
            cluster.invoke(client, "read", "read", None, read_parts())
            return
        source = 1 + int(random() * ACCOUNTS)
        target = 1 + int(random() * (ACCOUNTS - 1))
        target += target >= source
        amount = 1 + int(random() * MAX_TRANSFER)
        value = {"from": source, "to": target, "amount": amount}
        cluster.invoke(
            client, "write", "transfer", value, transfer_parts(source, target, amount)
        )

    def finished(self, op: Operation) -> None:
        if op.f == "read" and op.outcome == "ok":
            total = sum(op.value)
            self.reads_ok += 1
            self.totals.append([op.complete[0], total, op.id])
            if len(self.totals) > TOTALS_KEPT:
                del self.totals[0]
            if total != TOTAL:
                self.off += 1
                if self.first_off is None:
                    self.first_off = {
                        "op": op.id,
                        "at_ms": op.complete[0],
                        "total": total,
                    }
                    self.cluster.emit({"type": "total_off", **self.first_off})
        elif op.f == "transfer" and op.client in BANK_CLIENTS:
            self.transfers[op.outcome] += 1
        if op.client not in BANK_CLIENTS or not self.running:
            return
        if op.reason == "coordinator_down":
            gap = BACKOFF_MS
        else:  # _draw(*GAP_MS), inline
            gap = GAP_MS[0] + int(self.rng.random() * (GAP_MS[1] - GAP_MS[0] + 1))
        self.cluster.set_timer(CLIENT, gap, "bank_next", op.client)

    def snapshot(self) -> dict:
        return {
            "running": self.running,
            "clients": list(BANK_CLIENTS),
            "invoked": self.invoked,
            "limit": self.limit,
            "total_now": self.cluster.total(),
            "totals": [list(t) for t in self.totals],
            "reads_ok": self.reads_ok,
            "off": self.off,
            "first_off": self.first_off,
            "transfers": dict(self.transfers),
        }


def _copy_lock(lock: dict | None) -> dict | None:
    return (
        None
        if lock is None
        else {"mode": lock["mode"], "holders": list(lock["holders"])}
    )
