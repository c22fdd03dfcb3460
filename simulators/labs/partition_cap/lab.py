"""partition-cap: the last seat on flight 7 while the network is cut in two.

Every server holds a copy of one row, {seats_remaining, bookings}, with a version
vector. A booking is answered in one of two ways, chosen per operation:

- "majority" (CP): the server asks every other copy to promise it (`prepare`); once
  a majority of the copies, itself included, has promised, it writes, answers
  "booked" and sends the new version to everyone (`commit`). A copy that has promised
  refuses other prepares until it hears the outcome, and refuses a prepare from a copy
  that has not seen what it has ("behind"). Without a majority within TIMEOUT_MS the
  client is told "no majority: 1 of 3 copies reachable", and nothing was written.
- "anyway" (AP): the server writes its own copy at once, answers "booked" and sends the
  new version to every other copy (`replicate`); copies it cannot reach miss it.

The departures board is a read with the same choice ("anyway" by default). When a link
heals (or a stopped server restarts) the two ends send each other their versions
(`sync`); the receiver compares the version vectors (one newer, or concurrent), merges
by the conflict rule, and sends its result back if the sender lacked something.

Every client operation is kept, in order, in a `Ledger`: an operation changes only
until it completes (its answer), so those before the oldest one still pending are
settled, and a checkpoint shares them instead of copying them. Nothing the lab does
or shows scans them: the last `HISTORY` are read from the end, the counts are kept as
operations end, and the digest covers the settled ones as one chained digest.
"""

import re

from simulators.airline import Airline, passenger_id
from simulators.engine.canonical import Chain, canonical_json
from simulators.engine.clock import EventQueue
from simulators.engine.clocked import ClockedLab
from simulators.engine.declaration import ActionError
from simulators.engine.i18n import gettext_noop as _
from simulators.engine.ledger import Ledger
from simulators.engine.network import Latency, Network, link_id
from simulators.engine.rng import make_rng
from simulators.labs.partition_cap import versions as V
from simulators.labs.partition_cap.declaration import (
    ACTIONS,
    CLIENTS,
    FLIGHT_INDEX,
    HISTORY,
    JITTER_MS,
    LATENCY_MS,
    MAX_SKEW_MS,
    MEETINGS,
    OPTIONS,
    PASSENGERS,
    SEATS,
    SERVERS,
    TIMEOUT_MS,
)
from simulators.labs.partition_cap.tour import TOUR

CITY = dict(SERVERS)


class PartitionCapLab(ClockedLab):
    """Three (or four, or five) copies of the last seat, and a network you can cut."""

    slug = "partition-cap"
    options = OPTIONS
    actions = ACTIONS
    tour = TOUR
    stress = (
        ("reset", {"servers": 5}),
        ("book", {"server": "A", "passenger": "P0000001", "mode": "anyway"}),
        ("split", {"group": "A,B"}),
        ("book", {"server": "C", "passenger": "P0000002", "mode": "anyway"}),
        ("advance", {"ms": 60000}),
    )
    words = tuple(city for _id, city in SERVERS)

    def __init__(self, seed: int = 0, **options) -> None:
        super().__init__(seed, **options)
        self.airline = Airline(seed)
        flight = self.airline.flights(FLIGHT_INDEX)[FLIGHT_INDEX - 1]
        self.flight = {
            "id": FLIGHT_INDEX,
            "number": flight.number,
            "origin": "FRA",
            "destination": "NRT",
            "departure": flight.departure_time,
            "seats": SEATS,
        }
        self.passengers = [passenger_id(i) for i in range(PASSENGERS)]
        self.rule = self.option_values["rule"]
        self.resets = 0
        self.next_booking = 0
        self._build(self.option_values["servers"])

    # ----- building -------------------------------------------------------------------
    def _build(self, count: int) -> None:
        """A fresh scenario with `count` servers; virtual time keeps running."""
        self.queue = EventQueue(self.queue.clock)
        self.servers = [sid for sid, _city in SERVERS[:count]]
        links = []
        for i, a in enumerate(self.servers):
            for b in self.servers[i + 1 :]:
                links.append((a, b, Latency(LATENCY_MS[link_id(a, b)], JITTER_MS)))
        self.network = Network(
            self.queue,
            make_rng(self.seed, f"partition-cap.network.{self.resets}"),
            [(sid, CITY[sid]) for sid in self.servers],
            links,
            on_message=self._on_message,
            on_timer=self._on_timer,
            cut_policy="lose",
        )
        self.copies = {s: [V.initial_version(SEATS)] for s in self.servers}
        self.locks: dict[str, int | None] = dict.fromkeys(self.servers)
        # every operation, by id - 1; those before the oldest pending one never change
        # again and are settled (whether a majority booking was decided, and how, is
        # read from its operation: `_decision`)
        self.ops = Ledger()
        self.settled_chain = Chain()  # the settled operations, for the digest
        self.pending: dict[int, dict] = {}  # by id, oldest first
        self.results: dict[str, int] = {}  # how many operations ended each way
        self.booking_ops: dict[str, int] = {}  # booking id -> the op that made it
        self.meetings: list[dict] = []
        self.meeting_count = 0
        self.conflicts: list[dict] = []
        self.vanished: list[dict] = []
        self._events: list[dict] = []

    @property
    def majority(self) -> int:
        return len(self.servers) // 2 + 1

    # ----- events ---------------------------------------------------------------------
    def _emit(self, event: dict) -> None:
        """Record a lab event after whatever the network recorded before it."""
        self._events.extend(self.network.take_events())
        self._events.append({**event, "at_ms": self.now_ms})

    def collect_events(self) -> list[dict]:
        self._events.extend(self.network.take_events())
        events, self._events = self._events, []
        return events

    def run_until(self, until_ms: int) -> list[dict]:
        self.network.run_until(until_ms)
        return self.collect_events()

    # ----- validation -----------------------------------------------------------------
    def _server(self, server: str, field: str = "server") -> str:
        if server not in self.network.nodes:
            raise ActionError(
                "no_such_server",
                _("there is no server %(server)r; servers are %(servers)s"),
                field,
                server=server,
                servers=", ".join(self.servers),
            )
        return server

    def _running(self, server: str, field: str = "server") -> str:
        self._server(server, field)
        if not self.network.nodes[server].up:
            raise ActionError(
                "server_stopped",
                _("server %(server)s is stopped: restart it or use another server"),
                field,
                server=server,
            )
        return server

    def _group(self, text: str) -> list[str]:
        members: list[str] = []
        for token in re.split(r"[\s,;|/+]+", text.strip()):
            if not token:
                continue
            name = token.upper()
            if name in self.network.nodes:
                found = [name]
            elif all(ch in self.network.nodes for ch in name):
                found = list(name)
            else:
                self._server(token, "group")
                found = []
            members.extend(s for s in found if s not in members)
        if not members or len(members) == len(self.servers):
            raise ActionError(
                "empty_group",
                _("a split needs at least one server on each side; servers are %(s)s"),
                "group",
                s=", ".join(self.servers),
            )
        return members

    # ----- actions: clients -----------------------------------------------------------
    def do_book(self, server: str, passenger: str, mode: str) -> list[dict]:
        """A client asks `server` to sell the last seat to `passenger`."""
        self._running(server)
        if passenger not in self.passengers:
            raise ActionError(
                "no_such_passenger",
                _("there is no passenger %(passenger)r; passengers are %(passengers)s"),
                "passenger",
                passenger=passenger,
                passengers=", ".join(self.passengers),
            )
        op = self._start_op("book", server, mode, passenger=passenger)
        copy = self.copies[server]
        if V.seats_left(copy, SEATS) <= 0:
            self._complete(op, "sold_out")
        elif mode == "anyway":
            booking = self._write_for(op)
            self._complete(op, "booked", booking=booking)
            for peer in self._peers(server):
                self._send(server, peer, "replicate", {"versions": self.copies[server]})
        elif self.locks[server] is not None:
            self._complete(op, "refused", reason="busy")
        else:
            self.locks[server] = op["id"]
            self.pending[op["id"]] = {"acks": [server], "nacks": [], "reasons": []}
            base = self._vv(server)
            for peer in self._peers(server):
                self._send(server, peer, "prepare", {"op": op["id"], "base": base})
            self.network.set_timer(server, TIMEOUT_MS, "timeout", op["id"])
        return self.collect_events()

    def do_board(self, node: str, mode: str) -> list[dict]:
        """A client reads the flight's seats and status from `node`."""
        self._running(node, "node")
        op = self._start_op("board", node, mode)
        if mode == "anyway":
            self._complete(op, "answered", answer=self._answer(node))
        else:
            self.pending[op["id"]] = {"responses": [node], "nacks": []}
            for peer in self._peers(node):
                self._send(node, peer, "read", {"op": op["id"]})
            self.network.set_timer(node, TIMEOUT_MS, "timeout", op["id"])
        return self.collect_events()

    # ----- actions: the network -------------------------------------------------------
    def do_split(self, group: str) -> list[dict]:
        """Make the network exactly two groups: `group` and everyone else."""
        inside = dict.fromkeys(self._group(group), True)
        crossing, within = [], []
        for link in self.network.links.values():
            if (link.a in inside) != (link.b in inside):
                crossing.append(link.id)
            elif not link.up:
                within.append(link.id)
        left = [s for s in self.servers if s not in inside]
        self._emit({"type": "split", "groups": [left, list(inside)]})
        for lid in crossing:
            self.network.cut(lid)
        for lid in within:
            self._heal(lid)
        return self.collect_events()

    def do_heal_all(self) -> list[dict]:
        """Heal every cut link; the ends of each exchange their versions."""
        for link in list(self.network.links.values()):
            if not link.up:
                self._heal(link.id)
        return self.collect_events()

    def do_cut_link(self, link: str) -> list[dict]:
        """Cut one link: what is on it is lost, what is sent on it is lost."""
        self.network.cut(self.network.find_link(link).id)
        return self.collect_events()

    def do_heal_link(self, link: str) -> list[dict]:
        """Heal one link; its two ends exchange their versions."""
        found = self.network.find_link(link)
        if not found.up:
            self._heal(found.id)
        return self.collect_events()

    def do_stop_node(self, node: str) -> list[dict]:
        """Stop a server; its copy survives on disk, its open operations fail."""
        self._server(node, "node")
        if not self.network.nodes[node].up:
            return []
        if sum(1 for n in self.network.nodes.values() if n.up) == 1:
            raise ActionError(
                "last_server",
                _("%(server)s is the last running server: stop it and no copy answers"),
                "node",
                server=node,
            )
        self.network.stop(node)
        for op_id in list(self.pending):
            op = self.ops[op_id - 1]
            if op["server"] == node:
                self._fail(op, "server_stopped")
        if self.locks[node] is not None and self._coordinator(self.locks[node]) == node:
            self.locks[node] = None
        return self.collect_events()

    def do_restart_node(self, node: str) -> list[dict]:
        """Restart a server; it sends its versions to every server it can reach."""
        self._server(node, "node")
        if self.network.nodes[node].up:
            return []
        self.network.restart(node)
        for peer in self._peers(node):
            if self.network.reachable(node, peer):
                self._sync(node, peer)
        return self.collect_events()

    def do_set_skew(self, node: str, skew_ms: int) -> list[dict]:
        """Make `node`'s clock run ahead (or behind) by `skew_ms`."""
        self._server(node, "node")
        self.network.skew(node, skew_ms)
        return self.collect_events()

    def do_set_conflict_rule(self, rule: str) -> list[dict]:
        """Choose what copies do with concurrent versions; siblings are resolved now."""
        self.rule = rule
        self._emit({"type": "rule_set", "rule": rule})
        for server in self.servers:
            self._merge_into(server, [], "rule")
        return self.collect_events()

    def do_reset(self, servers: int) -> list[dict]:
        """Start again with `servers` copies, one seat left, the network whole."""
        self.resets += 1
        self._build(servers)
        self._emit({"type": "reset", "servers": servers})
        return self.collect_events()

    # ----- operations -----------------------------------------------------------------
    def _start_op(self, action: str, server: str, mode: str, **extra) -> dict:
        op = {
            "id": len(self.ops) + 1,
            "action": action,
            "server": server,
            "mode": mode,
            "invoke_ms": self.now_ms,
            "complete_ms": None,
            "result": "pending",
            "reason": None,
            **extra,
        }
        self.ops.append(op)
        self._emit({"type": "op_started", **_op_view(op)})
        return op

    def _complete(self, op: dict, result: str, **details) -> None:
        """Answer the client: the last change `op` ever sees."""
        op.update(complete_ms=self.now_ms, result=result, **details)
        self.pending.pop(op["id"], None)
        self.results[result] = self.results.get(result, 0) + 1
        if "booking" in details:
            self.booking_ops[details["booking"]["id"]] = op["id"]
        self._emit({"type": "op_completed", **_op_view(op)})
        self._settle()

    def _settle(self) -> None:
        """Settle the operations before the oldest pending one: they never change."""
        oldest_pending = next(iter(self.pending), len(self.ops) + 1)
        self.ops.settle(oldest_pending - 1)
        chain = self.settled_chain
        while chain.count < self.ops.settled:
            chain.add(_op_view(self.ops[chain.count]))

    def _decision(self, op_id: int) -> str | None:
        """How majority booking `op_id` was decided ("commit", "refused"), or None
        while it is undecided (or is not a majority booking)."""
        op = self.ops[op_id - 1]
        if op["action"] != "book" or op["mode"] != "majority":
            return None
        if op["result"] == "pending":
            return None
        return "commit" if op["result"] == "booked" else "refused"

    def _fail(self, op: dict, reason: str) -> None:
        self._complete(op, "failed", reason=reason)

    def _coordinator(self, op_id: int) -> str:
        return self.ops[op_id - 1]["server"]

    def _decide(self, op: dict) -> None:
        """A majority promised: write, answer, and send the new version to everyone."""
        server = op["server"]
        acks = self.pending[op["id"]]["acks"]
        self.locks[server] = None
        if V.seats_left(self.copies[server], SEATS) <= 0:
            self._release(op)
            self._complete(op, "sold_out")
            return
        booking = self._write_for(op)
        self._complete(op, "booked", booking=booking, reachable=len(acks))
        for peer in self._peers(server):
            self._send(
                server,
                peer,
                "commit",
                {"op": op["id"], "versions": self.copies[server]},
            )

    def _write_for(self, op: dict) -> dict:
        """Add `op`'s booking to its server's copy, stamped with the local clock."""
        server = op["server"]
        base = V.base_for_write(self.copies[server], SEATS)
        booking = {
            "id": self.airline.booking_id(self.next_booking),
            "passenger": op["passenger"],
            "server": server,
            "ts": self.network.local_time(server),
        }
        self.next_booking += 1
        self.copies[server] = [V.with_booking(base, booking, server, booking["ts"])]
        return booking

    def _release(self, op: dict) -> None:
        """Free every copy that may have promised: an ack can be lost on the way."""
        state = self.pending[op["id"]]
        for peer in self._peers(op["server"]):
            if peer not in state["nacks"]:
                self._send(op["server"], peer, "release", {"op": op["id"]})

    def _refuse(self, op: dict, reason: str) -> None:
        server = op["server"]
        state = self.pending[op["id"]]
        if op["action"] == "book":
            self.locks[server] = None
            self._release(op)
            answered = len(state["acks"]) + len(state["nacks"])
        else:
            answered = len(state["responses"])
        self._complete(
            op,
            "refused",
            reason=reason,
            reachable=answered,
            copies=len(self.servers),
            needed=self.majority,
        )

    def _answer(self, server: str) -> dict:
        """What the departures board shows when read from `server`'s copy."""
        copy = self.copies[server]
        vv = self._vv(server)
        newest = V.join([self._vv(s) for s in self.servers])
        return {
            "versions": [_version_view(v) for v in copy],
            "seats_remaining": V.seats_left(copy, SEATS),
            "conflicting": len(copy) > 1,
            "vv": vv,
            "stale": V.compare(vv, newest) != V.EQUAL,
        }

    # ----- messages -------------------------------------------------------------------
    def _peers(self, server: str) -> list[str]:
        return [s for s in self.servers if s != server]

    def _vv(self, server: str) -> dict:
        return V.join([v["vv"] for v in self.copies[server]])

    def _send(self, src: str, dst: str, kind: str, payload: dict) -> None:
        info = {}
        if "op" in payload:
            info["op"] = payload["op"]
        if "versions" in payload:
            info["vv"] = V.join([v["vv"] for v in payload["versions"]])
        self.network.send(src, dst, kind, payload, info)

    def _sync(self, src: str, dst: str, reply: bool = False) -> None:
        lock = self.locks[src]
        promise = lock if lock is not None and self._coordinator(lock) == dst else None
        self._send(
            src,
            dst,
            "sync",
            {"versions": self.copies[src], "promise": promise, "reply": reply},
        )

    def _heal(self, lid: str) -> None:
        link = self.network.links[lid]
        self.network.heal(lid)
        if self.network.nodes[link.a].up and self.network.nodes[link.b].up:
            self._sync(link.a, link.b)
            self._sync(link.b, link.a)

    def _on_timer(self, server: str, kind: str, op_id: int) -> None:
        if kind == "timeout" and op_id in self.pending:
            self._refuse(self.ops[op_id - 1], "no_majority")

    def _on_message(self, message) -> None:
        getattr(self, f"_on_{message.kind}")(message.src, message.dst, message.payload)

    def _on_replicate(self, src: str, dst: str, payload: dict) -> None:
        self._merge_into(dst, payload["versions"], "replicate")

    def _on_prepare(self, src: str, dst: str, payload: dict) -> None:
        op_id, lock = payload["op"], self.locks[dst]
        if lock is not None and lock != op_id:
            self._send(dst, src, "nack", {"op": op_id, "reason": "busy"})
        elif V.compare(self._vv(dst), payload["base"]) in (
            V.ORDERED_AFTER,
            V.CONCURRENT,
        ):
            self._send(
                dst,
                src,
                "nack",
                {"op": op_id, "reason": "behind", "versions": self.copies[dst]},
            )
        else:
            self.locks[dst] = op_id
            self._send(dst, src, "ack", {"op": op_id})

    def _on_ack(self, src: str, dst: str, payload: dict) -> None:
        op_id = payload["op"]
        state = self.pending.get(op_id)
        if state is None:  # decided already: a late promise is released at once
            if self._decision(op_id) == "refused":
                self._send(dst, src, "release", {"op": op_id})
            return
        state["acks"].append(src)
        if len(state["acks"]) >= self.majority:
            self._decide(self.ops[op_id - 1])

    def _on_nack(self, src: str, dst: str, payload: dict) -> None:
        op_id = payload["op"]
        if "versions" in payload:
            self._merge_into(dst, payload["versions"], "nack")
        state = self.pending.get(op_id)
        if state is None:
            return
        state["nacks"].append(src)
        state["reasons"].append(payload["reason"])
        if len(self.servers) - len(state["nacks"]) < self.majority:
            op = self.ops[op_id - 1]
            if V.seats_left(self.copies[dst], SEATS) <= 0:
                self.locks[dst] = None
                self._release(op)
                self._complete(op, "sold_out")
            else:
                reason = "behind" if "behind" in state["reasons"] else "busy"
                self._refuse(op, reason)

    def _on_commit(self, src: str, dst: str, payload: dict) -> None:
        self._merge_into(dst, payload["versions"], "commit")
        if self.locks[dst] == payload["op"]:
            self.locks[dst] = None

    def _on_release(self, src: str, dst: str, payload: dict) -> None:
        if self.locks[dst] == payload["op"]:
            self.locks[dst] = None

    def _on_read(self, src: str, dst: str, payload: dict) -> None:
        self._send(
            dst, src, "read_reply", {"op": payload["op"], "versions": self.copies[dst]}
        )

    def _on_read_reply(self, src: str, dst: str, payload: dict) -> None:
        state = self.pending.get(payload["op"])
        if state is None:
            return
        self._merge_into(dst, payload["versions"], "read")
        state["responses"].append(src)
        if len(state["responses"]) >= self.majority:
            op = self.ops[payload["op"] - 1]
            self._complete(
                op, "answered", answer=self._answer(dst), reachable=self.majority
            )

    def _on_sync(self, src: str, dst: str, payload: dict) -> None:
        incoming = payload["versions"]
        mine, theirs = self._vv(dst), V.join([v["vv"] for v in incoming])
        verdict = V.compare(mine, theirs)
        self.meeting_count += 1
        meeting = {
            "server": dst,
            "from": src,
            "local": mine,
            "incoming": theirs,
            "verdict": "ordered"
            if verdict in (V.ORDERED_BEFORE, V.ORDERED_AFTER)
            else verdict,
            "newer": {V.ORDERED_BEFORE: src, V.ORDERED_AFTER: dst}.get(verdict),
            "at_ms": self.now_ms,
        }
        self.meetings = [*self.meetings, meeting][-MEETINGS:]
        self._emit({"type": "copies_compared", **meeting})
        self._merge_into(dst, incoming, "sync")
        promise = payload["promise"]
        if promise is not None and self._decision(promise) is not None:
            self._send(dst, src, "release", {"op": promise})
        lock = self.locks[dst]
        asks = lock is not None and self._coordinator(lock) == src
        differs = canonical_json(self.copies[dst]) != canonical_json(incoming)
        if not payload["reply"] and (differs or asks):
            self._sync(dst, src, reply=True)

    # ----- merging --------------------------------------------------------------------
    def _merge_into(self, server: str, incoming: list[dict], via: str) -> None:
        """Merge versions into `server`'s copy by the rule; record conflicts, losses."""
        result = V.merge(self.copies[server], incoming, self.rule, SEATS)
        self.copies[server] = result["versions"]
        if result["concurrent"]:
            self._record_conflict(server, result, via)
        gone = [
            b
            for b in result["dropped"]
            if not self._held_anywhere(b)
            and not any(v["booking"] == b for v in self.vanished)
        ]
        for booking_id in gone:
            self._record_vanished(booking_id, server)

    def _record_conflict(self, server: str, result: dict, via: str) -> None:
        vectors = sorted(result["concurrent"], key=canonical_json)
        if any(c["vectors"] == vectors for c in self.conflicts):
            return
        kept = result["versions"]
        conflict = {
            "id": len(self.conflicts) + 1,
            "server": server,
            "via": via,
            "vectors": vectors,
            "verdict": V.CONCURRENT,
            "rule": self.rule,
            "confirmed": [
                b["id"]
                for v in kept
                for b in v["bookings"]
                if b["status"] == "confirmed"
            ],
            "standby": [
                b["id"] for v in kept for b in v["bookings"] if b["status"] == "standby"
            ],
            "dropped": result["dropped"],
            "siblings": len(kept) if len(kept) > 1 else 0,
            "at_ms": self.now_ms,
        }
        self.conflicts.append(conflict)
        self._emit({"type": "conflict", **conflict})

    def _held_anywhere(self, booking_id: str) -> bool:
        return any(
            b["id"] == booking_id
            for copy in self.copies.values()
            for v in copy
            for b in v["bookings"]
        )

    def _record_vanished(self, booking_id: str, server: str) -> None:
        op = self.ops[self.booking_ops[booking_id] - 1]
        record = {
            "booking": booking_id,
            "passenger": op["passenger"],
            "server": op["server"],
            "op": op["id"],
            "booked_ms": op["complete_ms"],
            "ts": op["booking"]["ts"],
            "rule": self.rule,
            "last_copy": server,
            "at_ms": self.now_ms,
        }
        self.vanished.append(record)
        self._emit({"type": "booking_vanished", **record})

    # ----- what the renderer and the tests read ---------------------------------------
    def bookings_held(self) -> dict[str, dict]:
        """Every booking on any copy, by reference, with its status on the copies."""
        held: dict[str, dict] = {}
        for server in self.servers:
            for version in self.copies[server]:
                for booking in version["bookings"]:
                    entry = held.setdefault(
                        booking["id"], {**booking, "statuses": {}, "copies": []}
                    )
                    if server not in entry["copies"]:
                        entry["copies"].append(server)
                    entry["statuses"][booking["status"]] = True
        return held

    def converged(self) -> bool:
        """Whether every copy holds exactly the same versions."""
        first = canonical_json(self.copies[self.servers[0]])
        return all(canonical_json(self.copies[s]) == first for s in self.servers)

    def snapshot(self) -> dict:
        newest = V.join([self._vv(s) for s in self.servers])
        copies = []
        for server in self.servers:
            copy, vv = self.copies[server], self._vv(server)
            lock = self.locks[server]
            copies.append(
                {
                    "server": server,
                    "city": CITY[server],
                    "up": self.network.nodes[server].up,
                    "versions": [_version_view(v) for v in copy],
                    "vv": vv,
                    "vv_text": V.vv_text(vv),
                    "seats_remaining": V.seats_left(copy, SEATS),
                    "conflicting": len(copy) > 1,
                    "behind": V.compare(vv, newest) != V.EQUAL,
                    "promised_to": lock,
                }
            )
        clients = [
            {
                "id": cid,
                "city": city,
                "server": server,
                "passenger": passenger_id(index),
            }
            for cid, city, server, index in CLIENTS
            if server in self.network.nodes
        ]
        return {
            "seed": self.seed,
            "playback": self.playback(),
            "network": self.network.snapshot(),
            "flight": self.flight,
            "servers": list(self.servers),
            "link_ids": list(self.network.links),
            "passengers": list(self.passengers),
            "clients": clients,
            "rule": self.rule,
            "quorum": {
                "copies": len(self.servers),
                "majority": self.majority,
                "tolerates": (len(self.servers) - 1) // 2,
                "even": len(self.servers) % 2 == 0,
            },
            "timeout_ms": TIMEOUT_MS,
            "max_skew_ms": MAX_SKEW_MS,
            "copies": copies,
            "converged": self.converged(),
            "operations": [_op_view(op) for op in self.ops.last(HISTORY)],
            "operation_count": len(self.ops),
            "meetings": list(self.meetings),
            "meeting_count": self.meeting_count,
            "conflicts": list(self.conflicts),
            "vanished": list(self.vanished),
        }

    def metrics(self) -> dict:
        held = self.bookings_held()
        return {
            "confirmed": self.results.get("booked", 0),
            "surviving": len(held),
            "standby": sum(1 for b in held.values() if "standby" in b["statuses"]),
            "vanished": len(self.vanished),
            "refused": self.results.get("refused", 0),
            "conflicts": len(self.conflicts),
            "operations": len(self.ops),
            "copies_agree": self.converged(),
        }

    def state(self) -> dict:
        """What the digest covers: the snapshot, the numbers and the hidden protocol.

        Every operation is covered: the settled ones as one chained digest
        (simulators/engine/canonical.py), the others in full. (The decisions of
        majority bookings are their operations' results.)
        """
        chain = self.settled_chain
        return {
            "snapshot": self.snapshot(),
            "metrics": self.metrics(),
            "ops": {
                "settled": [chain.count, chain.hex],
                "open": [_op_view(op) for op in self.ops[chain.count :]],
            },
            "locks": self.locks,
            "pending": {str(k): v for k, v in self.pending.items()},
            "next_booking": self.next_booking,
            "queue": len(self.queue),
        }


def _op_view(op: dict) -> dict:
    return dict(op)


def _version_view(version: dict) -> dict:
    return {**version, "vv_text": V.vv_text(version["vv"])}
