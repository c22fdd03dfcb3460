"""The copies of one row and the coordinators that write and read them, Dynamo style.

Every node holds a copy. A client operation goes to one node, its coordinator, which
sends it to every copy and waits for W acks (a write) or R replies (a read); its own
copy answers at once, without a network hop. A version is `(timestamp, writer)`: the
coordinator's local clock reading when the write was made, then the coordinator's id.
A copy keeps whichever version is larger (last write wins, as in Cassandra), so a node
whose clock runs behind can write a value that loses to an older one.

Two writes with the same timestamp from different coordinators tie: the larger writer
id wins, whichever write came later, and the other is discarded on every copy even if
it was acknowledged. Cassandra breaks such a tie just as blindly, by comparing the
values (the larger value wins); here it is the writer's id. The first copy that decides
a tie between two writes emits `tie_broken`, and `last_tie` keeps it for the page.
One coordinator never stamps two writes alike: when its clock reads no later than its
last stamp, the write is stamped one past it (Cassandra's coordinator does the same in
microseconds), so two of its writes in one millisecond keep their order instead of
leaving the copies split between two values under one version for good.

The initial value's version is `(initial_ms, "")`: `initial_ms` defaults to the
cluster's origin; the lab and the trials stamp it a seeded while before (`trials.py`).

Order inside the cluster is `step`, a counter bumped when an operation is invoked or
finishes, not milliseconds alone: two things in the same millisecond still have an
order, and that order is what the stale-read judgement (see `judge.py`) reads.

The ring (a sloppy quorum, as in Dynamo): the cluster may have M nodes (`ring`, up to
five) while the row has N copies. The nodes sit on a ring in id order and the row's
position is just before A, so its preference list is A, B, C, ... clockwise: the
first N are its owners, which hold its copies and answer its reads; the rest follow in
ring order. With `sloppy` off only owners take a write (and count toward W). With
`sloppy` on, a coordinator that cannot reach an owner when it sends the write (a cut
link or a stopped node: the lab's coordinator knows, as Dynamo's failure detector
would guess) sends it instead to the next node of the preference list past the owners
that it can reach, a stand-in. The stand-in keeps it as a hint naming the owner, acks,
and that ack counts toward W; it hands the hint over (hinted handoff, the same
machinery as a coordinator's hints) once it can reach the owner. Reads ask the owners
only, so a read before the handoff misses an acknowledged write. With M = N and
`sloppy` off (the defaults) every node is an owner and nothing above changes a thing.
"""

from random import Random

from simulators.engine.canonical import Chain
from simulators.engine.clock import EventQueue
from simulators.engine.ledger import Ledger
from simulators.engine.network import Latency, Network
from simulators.labs.quorum.judge import judge_read

NODE_IDS = ("A", "B", "C", "D", "E")
TIMEOUT_MS = 400
HINT_RETRY_MS = 400
# 15-60 ms one way, 2% of messages 120 ms slower: a round trip stays under the timeout
LATENCY = Latency(15, 45, tail_permille=20, tail_ms=120)
FIRST_VALUE = 120  # seats left on the flight before the first write
INITIAL = ""  # the writer of the initial version: sorts before every node id
LINKS = {
    n: [
        (a, b, LATENCY) for i, a in enumerate(NODE_IDS[:n]) for b in NODE_IDS[i + 1 : n]
    ]
    for n in (3, 4, 5)
}


def preference_list(size: int) -> tuple[str, ...]:
    """The row's preference list on a ring of `size` nodes: clockwise from the row's
    position (just before A), every node once."""
    return NODE_IDS[:size]


class Copy:
    """One node's copy of the row."""

    __slots__ = ("value", "version", "write_id")

    def __init__(self, value: int, version: tuple[int, str], write_id: int) -> None:
        self.value, self.version, self.write_id = value, version, write_id


class Operation:
    """A client's write or read, from invocation to its answer."""

    __slots__ = (
        "id",
        "kind",
        "coordinator",
        "level",
        "needed",
        "invoke_ms",
        "invoke_step",
        "complete_ms",
        "complete_step",
        "status",
        "value",
        "version",
        "write_id",
        "quorum",
        "late",
        "heard",
        "newest",
        "expected",
        "stale",
        "closed",
        "then",
        "stand_ins",
    )

    def __init__(self, op_id, kind, coordinator, level, needed, now_ms, step) -> None:
        self.id, self.kind, self.coordinator = op_id, kind, coordinator
        self.level, self.needed = level, needed
        self.invoke_ms, self.invoke_step = now_ms, step
        self.complete_ms = self.complete_step = None
        self.status = "pending"
        self.value = self.version = self.write_id = None
        self.quorum: list[str] = []  # the first W ackers or R repliers
        self.late: list[str] = []  # those who answered after that, before the timeout
        self.heard: dict[str, tuple] = {}  # a read's repliers: version each holds
        self.newest = None  # a read's newest (value, version, write_id) heard so far
        self.expected = self.stale = None
        self.closed = False  # past its timeout: later answers are ignored
        self.then = None  # the client's next operation: (kind, gap, coordinator, ...)
        self.stand_ins: dict[str, str] = {}  # a sloppy write's: owner -> stand-in

    def as_dict(self) -> dict:
        """The operation as one row of the history panel."""
        return {
            "id": self.id,
            "kind": self.kind,
            "coordinator": self.coordinator,
            "level": self.level,
            "needed": self.needed,
            "invoke_ms": self.invoke_ms,
            "complete_ms": self.complete_ms,
            "status": self.status,
            "value": self.value,
            "version": list(self.version) if self.version else None,
            "write": self.write_id,
            "expected": self.expected,
            "stale": self.stale,
            "confirmed": list(self.quorum),
            "late": list(self.late),
            "open": not self.closed,
            "stand_ins": dict(self.stand_ins),
        }


class Hint:
    """A write a coordinator keeps for a copy that did not acknowledge it in time, or
    that a stand-in keeps for an owner its coordinator could not reach (`stand_in`)."""

    __slots__ = (
        "id",
        "holder",
        "target",
        "value",
        "version",
        "write_id",
        "sending",
        "stand_in",
    )

    def __init__(
        self, hint_id, holder, target, value, version, write_id, stand_in=False
    ) -> None:
        self.id, self.holder, self.target = hint_id, holder, target
        self.value, self.version, self.write_id = value, version, write_id
        self.sending = False
        self.stand_in = stand_in  # kept by a stand-in of a sloppy quorum

    def as_dict(self) -> dict:
        return {
            "id": self.id,
            "holder": self.holder,
            "target": self.target,
            "value": self.value,
            "version": list(self.version),
            "write": self.write_id,
            "sending": self.sending,
            "stand_in": self.stand_in,
        }


class Cluster:
    """N copies of one row on a fully meshed network of M nodes (M = N unless `ring`
    says more), with their coordinators."""

    def __init__(
        self,
        queue: EventQueue,
        rng: Random,
        copies: int,
        *,
        ring: int | None = None,
        sloppy: bool = False,
        cut: tuple = (),
        stopped: tuple = (),
        skews: tuple = (),
        read_repair: bool = True,
        hinted_handoff: bool = True,
        origin_ms: int = 0,
        initial_ms: int | None = None,
        record: bool = True,
    ) -> None:
        size = ring or copies
        if not copies <= size <= len(NODE_IDS):
            raise ValueError("the ring needs between N and five nodes")
        self.nodes = NODE_IDS[:size]
        self.preference = preference_list(size)
        self.owners = self.preference[:copies]
        self.sloppy = sloppy
        self.record = record
        self.network = Network(
            queue,
            rng,
            self.nodes,
            LINKS[size],
            on_message=self._on_message,
            on_timer=self._on_timer,
            record=record,
        )
        for lid in cut:
            self.network.cut(lid)
        for node in stopped:
            self.network.stop(node)
        for node, skew_ms in skews:
            self.network.skew(node, skew_ms)
        self.read_repair = read_repair
        self.hinted_handoff = hinted_handoff
        self.initial_version = (
            origin_ms if initial_ms is None else initial_ms,
            INITIAL,
        )
        self.copies = {
            n: Copy(FIRST_VALUE, self.initial_version, 0) for n in self.owners
        }
        self.first_value = FIRST_VALUE
        self.next_value = FIRST_VALUE - 1
        # every operation, by id - 1: those no longer open are settled (never change
        # again), so checkpoints share them (simulators/engine/ledger.py)
        self.ops = Ledger()
        # writes acknowledged, in the order they were: (complete_step, the largest
        # invoke_step of any of them so far, op id), what `judge_read` searches
        self.acknowledged = Ledger()
        self.open: dict[int, Operation] = {}  # by id, oldest first
        self.settled_chain = Chain()  # the settled operations, for the digest
        self.hints: dict[int, Hint] = {}
        self.step = 0
        self.overlap: dict | None = None
        self.tally = dict.fromkeys(
            ("reads", "writes", "stale_reads", "failed_reads", "failed_writes"), 0
        )
        self.tally.update(
            completed_reads=0, repairs=0, hints_stored=0, hints_delivered=0
        )
        self._next_hint = 1
        self.last_stamp: dict[str, int] = {}  # each coordinator's last write stamp
        self.ties: dict[tuple[int, int], bool] = {}  # write pairs whose tie was broken
        self.last_tie: dict | None = None

    # -- what a node is ----------------------------------------------------------------

    def running(self) -> list[str]:
        """Running nodes, in id order."""
        return [n for n in self.nodes if self.network.nodes[n].up]

    def emit(self, event: dict) -> None:
        """Record a lab event in the network's journal, so the order stays exact."""
        if self.record:
            event["at_ms"] = self.network.now_ms
            self.network.events.append(event)

    # -- client operations -------------------------------------------------------------

    def write(self, coordinator: str, needed: int, level, then=None) -> Operation:
        """Write the next value through `coordinator`; acknowledged after W acks."""
        net = self.network
        op = self._invoke("write", coordinator, needed, level, then)
        op.value = self.next_value
        self.next_value -= 1
        stamp = net.local_time(coordinator)
        last = self.last_stamp.get(coordinator)
        if last is not None and stamp <= last:
            stamp = last + 1  # never the same stamp twice from one coordinator
        self.last_stamp[coordinator] = stamp
        op.version = (stamp, coordinator)
        op.write_id = op.id
        payload = (op.id, op.value, op.version, op.id)
        info = self._info(op.id, op.value, op.version)
        plan = self._write_plan(coordinator)
        for node, owner in plan:
            if node == coordinator:
                continue
            if owner is None:
                net.send(coordinator, node, "write", payload, info)
            else:
                op.stand_ins[owner] = node
                stand_in_info = {**info, "for": owner} if info else None
                net.send(coordinator, node, "write", (*payload, owner), stand_in_info)
        for node, owner in plan:
            if node != coordinator:
                continue
            if owner is None:
                self._store(coordinator, op.value, op.version, op.id, "write", op.id)
            else:
                op.stand_ins[owner] = node
                self._stand_in(node, owner, op.value, op.version, op.id)
            self._ack(op, coordinator)
        net.set_timer(coordinator, TIMEOUT_MS, "timeout", op.id)
        return op

    def _write_plan(self, coordinator: str) -> list[tuple[str, str | None]]:
        """Where a write goes, in the owners' order: (owner, None), or (stand-in,
        owner) for a stand-in taking an unreachable owner's write (sloppy quorum only):
        the next node past the owners on the preference list that the coordinator can
        reach. An owner no stand-in is left for is sent the write anyway (it is lost on
        the way), so with no stand-in the plan is the owners, as without `sloppy`."""
        net = self.network
        spare = []
        if self.sloppy:
            spare = [
                n
                for n in self.preference[len(self.owners) :]
                if net.reachable(coordinator, n)
            ]
        plan = []
        for owner in self.owners:
            if spare and not net.reachable(coordinator, owner):
                plan.append((spare.pop(0), owner))
            else:
                plan.append((owner, None))
        return plan

    def read(self, coordinator: str, needed: int, level, then=None) -> Operation:
        """Read through `coordinator`; returns the newest of the first R replies."""
        net = self.network
        op = self._invoke("read", coordinator, needed, level, then)
        info = {"op": op.id} if self.record else None
        for node in self.owners:
            if node != coordinator:
                net.send(coordinator, node, "read", op.id, info)
        copy = self.copies.get(coordinator)  # a node off the owners holds none
        if copy is not None:
            self._reply(op, coordinator, copy.value, copy.version, copy.write_id)
        net.set_timer(coordinator, TIMEOUT_MS, "timeout", op.id)
        return op

    def _invoke(self, kind, coordinator, needed, level, then) -> Operation:
        self.step += 1
        op = Operation(
            len(self.ops) + 1,
            kind,
            coordinator,
            level,
            needed,
            self.network.now_ms,
            self.step,
        )
        op.then = then
        self.ops.append(op)
        self.open[op.id] = op
        self.tally[kind + "s"] += 1
        if self.record:
            self.emit(
                {
                    "type": "op_invoked",
                    "op": op.id,
                    "kind": kind,
                    "coordinator": coordinator,
                    "level": level,
                    "needed": needed,
                }
            )
        return op

    def _finish(self, op: Operation, status: str, reason: str = "") -> None:
        self.step += 1
        op.status, op.complete_ms, op.complete_step = (
            status,
            self.network.now_ms,
            self.step,
        )
        if op.kind == "read" and status == "ok":
            self.tally["completed_reads"] += 1
            op.value, op.version, op.write_id = op.newest
            op.expected, op.stale, latest = judge_read(op, self)
            self.tally["stale_reads"] += op.stale
            self.overlap = self._overlap(op, latest)
        if op.kind == "write" and status == "ok":
            done = self.acknowledged
            newest = max(op.invoke_step, done[-1][1]) if len(done) else op.invoke_step
            done.append((op.complete_step, newest, op.id))
            done.settle(len(done))
        if status != "ok":
            self.tally["failed_" + op.kind + "s"] += 1
        if self.record:
            event = {"type": "op_" + ("completed" if status == "ok" else "failed")}
            event.update(op.as_dict(), op=op.id, reason=reason or None)
            self.emit(event)
        if op.then is not None:
            kind, gap_ms, coordinator, needed, level = op.then
            self.network.set_timer(
                coordinator, gap_ms, "invoke", (kind, coordinator, needed, level)
            )

    def _overlap(self, read: Operation, latest: Operation | None) -> dict:
        written = latest.quorum if latest else []
        return {
            "read": read.id,
            "write": latest.id if latest else None,
            "write_set": list(written),
            "read_set": list(read.quorum),
            "shared": [n for n in self.nodes if n in written and n in read.quorum],
            "w": latest.needed if latest else None,
            "r": read.needed,
            "n": len(self.owners),
        }

    # -- answers -----------------------------------------------------------------------

    def _ack(self, op: Operation, node: str) -> None:
        if op.closed:
            return
        if op.status != "pending":
            op.late.append(node)
            return
        op.quorum.append(node)
        if len(op.quorum) >= op.needed:
            self._finish(op, "ok")

    def _reply(self, op: Operation, node, value, version, write_id) -> None:
        if op.closed:
            return
        op.heard[node] = version
        newest = op.newest
        if newest is None or version > newest[1]:
            op.newest = (value, version, write_id)
        if op.status == "pending":
            op.quorum.append(node)
            if len(op.quorum) >= op.needed:
                self._finish(op, "ok")
                if self.read_repair:
                    self._repair(op)
        else:
            op.late.append(node)
            if self.read_repair:
                self._repair(op)

    def _repair(self, op: Operation) -> None:
        """Send the newest version heard to every replier that holds an older one."""
        value, version, write_id = op.newest
        for node, held in op.heard.items():
            if held < version:
                op.heard[node] = version
                self.tally["repairs"] += 1
                if node == op.coordinator:
                    self._store(node, value, version, write_id, "repair", op.id)
                else:
                    info = self._info(op.id, value, version)
                    self.network.send(
                        op.coordinator,
                        node,
                        "repair",
                        (op.id, value, version, write_id),
                        info,
                    )

    def _close(self, op: Operation, reason: str) -> None:
        """Past its timeout (or its coordinator stopped): later answers are ignored,
        and an operation still pending fails. It never changes again: the operations
        before the oldest one still open are settled."""
        op.closed = True
        del self.open[op.id]
        if op.status == "pending":
            self._finish(op, "failed", reason)
        oldest_open = next(iter(self.open), len(self.ops) + 1)
        self.ops.settle(oldest_open - 1)
        if self.record:  # a batch trial's cluster is never digested: fold on demand
            self._fold_settled()

    def _op(self, op_id: int) -> "Operation":
        """Operation `op_id`: an open one from its dict (the common case), else the
        ledger."""
        return self.open.get(op_id) or self.ops[op_id - 1]

    def _fold_settled(self) -> None:
        chain = self.settled_chain
        while chain.count < self.ops.settled:
            chain.add(self.ops[chain.count].as_dict())

    def history_state(self) -> dict:
        """What the digest covers of the history: the settled operations as one
        chained digest, the others in full."""
        self._fold_settled()
        chain = self.settled_chain
        return {
            "settled": [chain.count, chain.hex],
            "open": [op.as_dict() for op in self.ops[chain.count :]],
        }

    def _timeout(self, op: Operation) -> None:
        self._close(op, "timeout")
        if op.kind == "write" and self.hinted_handoff:
            answered = op.quorum + op.late
            for node in self.owners:
                if node not in answered and op.stand_ins.get(node) not in answered:
                    self._keep_hint(op.coordinator, node, op.value, op.version, op.id)
            self.offer_hints()

    # -- copies ------------------------------------------------------------------------

    def _store(self, node, value, version, write_id, cause, op_id) -> bool:
        """Last write wins: a copy keeps the larger version."""
        copy = self.copies[node]
        kept = version > copy.version
        # two writes, one timestamp (the first value, writer "", never wins a tie)
        tie = version[0] == copy.version[0] and version[1] != copy.version[1]
        if tie and write_id and copy.write_id:
            self._tie(node, (value, version, write_id), copy, kept)
        if kept:
            copy.value, copy.version, copy.write_id = value, version, write_id
        if self.record:
            self.emit(
                {
                    "type": "copy_written",
                    "node": node,
                    "value": value,
                    "version": list(version),
                    "write": write_id,
                    "kept": kept,
                    "cause": cause,
                    "op": op_id,
                }
            )
        return kept

    def _tie(self, node: str, offered: tuple, copy: Copy, kept: bool) -> None:
        """Two writes with the same timestamp met on `node`'s copy: the larger writer
        id won. Said once per pair of writes, by the first copy that decided it."""
        held = (copy.value, copy.version, copy.write_id)
        winner, loser = (offered, held) if kept else (held, offered)
        pair = (min(winner[2], loser[2]), max(winner[2], loser[2]))
        if pair in self.ties:
            return
        self.ties[pair] = True

        def side(entry: tuple) -> dict:
            value, version, write_id = entry
            return {"write": write_id, "value": value, "writer": version[1]}

        tie = {
            "node": node,
            "timestamp_ms": winner[1][0],
            "kept": side(winner),
            "discarded": side(loser),
            "later_lost": loser[2] > winner[2],  # write ids follow invocation order
            "at_ms": self.network.now_ms,
        }
        self.last_tie = tie
        if self.record:
            self.emit({"type": "tie_broken", **tie})

    def _info(self, op_id, value, version) -> dict | None:
        if not self.record:
            return None
        return {"op": op_id, "value": value, "version": version[0]}

    # -- hinted handoff ----------------------------------------------------------------

    def _keep_hint(
        self, holder, target, value, version, write_id, stand_in=False
    ) -> Hint:
        hint = Hint(self._next_hint, holder, target, value, version, write_id, stand_in)
        self._next_hint += 1
        self.hints[hint.id] = hint
        self.tally["hints_stored"] += 1
        if self.record:
            self.emit({"type": "hint_stored", **hint.as_dict()})
        return hint

    def _stand_in(self, node, owner, value, version, write_id) -> None:
        """`node` takes a write for unreachable `owner`: kept as a hint naming it, and
        handed over at once if `node` can reach the owner."""
        hint = self._keep_hint(node, owner, value, version, write_id, stand_in=True)
        self._offer(hint)

    def offer_hints(self) -> None:
        """Send every waiting hint whose copy its holder can reach now."""
        for hint in list(self.hints.values()):
            self._offer(hint)

    def _offer(self, hint: Hint) -> None:
        net = self.network
        if hint.sending or not net.nodes[hint.holder].up:
            return
        if net.reachable(hint.holder, hint.target):
            hint.sending = True
            payload = (hint.id, hint.value, hint.version, hint.write_id)
            info = self._info(hint.write_id, hint.value, hint.version)
            net.send(hint.holder, hint.target, "hint", payload, info)
            net.set_timer(hint.holder, HINT_RETRY_MS, "hint_retry", hint.id)

    # -- the network calls these -------------------------------------------------------

    def _on_message(self, message) -> None:
        kind, payload, node = message.kind, message.payload, message.dst
        if kind == "write":
            op_id, value, version, write_id, *owner = payload
            if owner:  # a stand-in's: kept as a hint for the owner
                self._stand_in(node, owner[0], value, version, write_id)
            else:
                self._store(node, value, version, write_id, "write", op_id)
            self.network.send(node, message.src, "ack", op_id, self._info_op(op_id))
        elif kind == "ack":
            self._ack(self._op(payload), message.src)
        elif kind == "read":
            copy = self.copies[node]
            reply = (payload, copy.value, copy.version, copy.write_id)
            info = self._info(payload, copy.value, copy.version)
            self.network.send(node, message.src, "reply", reply, info)
        elif kind == "reply":
            op_id, value, version, write_id = payload
            self._reply(self._op(op_id), message.src, value, version, write_id)
        elif kind == "repair":
            op_id, value, version, write_id = payload
            self._store(node, value, version, write_id, "repair", op_id)
        elif kind == "hint":
            hint_id, value, version, write_id = payload
            self._store(node, value, version, write_id, "hint", write_id)
            info = {"hint": hint_id} if self.record else None
            self.network.send(node, message.src, "hint_ack", hint_id, info)
        elif kind == "hint_ack":
            hint = self.hints.pop(payload, None)
            if hint is not None:
                self.tally["hints_delivered"] += 1
                if self.record:
                    self.emit({"type": "hint_delivered", **hint.as_dict()})

    def _info_op(self, op_id: int) -> dict | None:
        return {"op": op_id} if self.record else None

    def _on_timer(self, node: str, kind: str, payload) -> None:
        if kind == "timeout":
            op = self.open.get(payload)
            if op is not None:
                self._timeout(op)
        elif kind == "invoke":
            op_kind, coordinator, needed, level = payload
            getattr(self, op_kind)(coordinator, needed, level)
        elif kind == "hint_retry":
            hint = self.hints.get(payload)
            if hint is not None and hint.sending:
                hint.sending = False
                self.offer_hints()

    # -- faults ------------------------------------------------------------------------

    def stop(self, node: str) -> None:
        """Stop a node: what it was coordinating fails; its copy and hints survive."""
        self.network.stop(node)
        for op in [op for op in self.open.values() if op.coordinator == node]:
            self._close(op, "coordinator_stopped")

    def restart(self, node: str) -> None:
        """Restart a node; every hint its holder can now deliver is handed over."""
        self.network.restart(node)
        for hint in self.hints.values():
            if hint.holder == node:
                hint.sending = False  # its retry timer died with the stop
        self.offer_hints()

    def snapshot(self) -> dict:
        """Copies, hints, the last overlap and the network, for drawing."""
        return {
            "replicas": [
                {
                    "node": n,
                    "value": c.value,
                    "version": list(c.version),
                    "write": c.write_id,
                }
                for n, c in self.copies.items()
            ],
            "hints": [h.as_dict() for h in self.hints.values()],
            "ring": {
                "nodes": len(self.nodes),
                "preference": list(self.preference),
                "owners": list(self.owners),
                "sloppy": self.sloppy,
            },
            "overlap": self.overlap,
            "tie": self.last_tie,
        }
