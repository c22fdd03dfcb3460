"""A simulated network on the virtual clock: nodes, links, latency, cuts and stops.

Every message is an event with a send time and an arrival time drawn from its link's
latency (a seeded RNG, drawn at send time, in send order). Links can be cut and healed,
nodes stopped and restarted and their clocks skewed. What happens to a message on a cut
link is the lab's choice, made once for the network:

- `"lose"`: a message sent on a cut link, or in flight when its link is cut, is lost
  and never arrives, even if the link heals before its arrival time;
- `"hold"`: it waits at the cut and is sent again, with a fresh latency, when the link
  heals.

A message that arrives at a stopped node is lost. Timers are local to a node and die
with it: a node that stops forgets its timers (restarting does not bring them back).

A batch run that sends millions of messages can put the network in batch mode
(`go_batch`): the same events in the same order, without a `Message` each.

The network records what happened as small JSON-safe events (`message_sent`,
`message_delivered`, `message_lost`, `message_held`, `link_cut`, `link_healed`,
`node_stopped`, `node_restarted`, `clock_skewed`) that a lab returns from `apply` and
the browser animates. Batch runs pass `record=False` and skip building them.

Order is decided by integers only: nodes keep their declared order, links are sorted by
id, messages by id. Nothing iterates over a set of strings.
"""

from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from heapq import heappop, heappush
from random import Random
from typing import Any

from simulators.engine.clock import EventQueue
from simulators.engine.declaration import ActionError
from simulators.engine.i18n import gettext_noop as _

CUT_POLICIES = ("lose", "hold")
DELIVER, TIMER = 0, 1  # at the same moment, messages arrive before timers fire


def link_id(a: str, b: str) -> str:
    """The id of the link between `a` and `b`, the same in either direction."""
    return f"{a}-{b}" if a < b else f"{b}-{a}"


@dataclass(frozen=True)
class Latency:
    """One-way delay of a link: `base_ms` plus a uniform draw of up to `jitter_ms`.

    With `tail_permille` > 0, that many messages in a thousand take `tail_ms` more (a
    slow tail, as real networks have).
    """

    base_ms: int
    jitter_ms: int = 0
    tail_permille: int = 0
    tail_ms: int = 0

    def __post_init__(self) -> None:
        for name in ("base_ms", "jitter_ms", "tail_permille", "tail_ms"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(f"{name} must be a non-negative integer")
        if self.tail_permille > 1000:
            raise ValueError("tail_permille must be at most 1000")

    def draw(self, rng: Random) -> int:
        """One delay in whole milliseconds (at least 1: nothing arrives instantly).

        Uniform jitter is `int(random() * (jitter + 1))`: one call into C, the same
        sequence in every CPython (Mersenne Twister doubles), and five times cheaper
        than `randint`, which matters when a batch run sends a million messages.
        """
        delay = self.base_ms
        if self.jitter_ms:
            delay += int(rng.random() * (self.jitter_ms + 1))
        if self.tail_permille and rng.random() * 1000 < self.tail_permille:
            delay += self.tail_ms
        return max(1, delay)

    def as_list(self) -> list[int]:
        """[lowest, highest] delay without the tail, for drawing."""
        return [max(1, self.base_ms), max(1, self.base_ms + self.jitter_ms)]


@dataclass
class Node:
    """A server (or client) on the network."""

    id: str
    label: str = ""
    up: bool = True
    skew_ms: int = 0
    epoch: int = 0  # bumped on every stop: timers of an older epoch never fire

    def as_dict(self) -> dict:
        return {
            "id": self.id,
            "label": self.label or self.id,
            "up": self.up,
            "skew_ms": self.skew_ms,
        }


@dataclass
class Link:
    """A two-way link; both directions share its latency and its state."""

    id: str
    a: str
    b: str
    latency: Latency
    loss_permille: int = 0
    up: bool = True

    def as_dict(self) -> dict:
        return {
            "id": self.id,
            "a": self.a,
            "b": self.b,
            "up": self.up,
            "latency_ms": self.latency.as_list(),
            "loss_permille": self.loss_permille,
        }


class Message:
    """One message: `info` is JSON-safe data for drawing, `payload` is the lab's.

    A plain class with slots (not a dataclass): the network labs make hundreds of
    thousands of these in a batch run, and its constructor is the costliest line.
    """

    __slots__ = ("id", "src", "dst", "kind", "sent_ms", "arrive_ms", "info")
    __slots__ += ("payload", "route", "live")

    def __init__(
        self,
        id: int,
        src: str,
        dst: str,
        kind: str,
        sent_ms: int,
        arrive_ms: int,
        info: dict | None = None,
        payload: Any = None,
        route: "Link | None" = None,
    ) -> None:
        self.id = id
        self.src = src
        self.dst = dst
        self.kind = kind
        self.sent_ms = sent_ms
        self.arrive_ms = arrive_ms
        self.info = info
        self.payload = payload
        self.route = route
        self.live = True  # False once lost or held: its queue entry is then ignored

    def __repr__(self) -> str:
        return f"Message({self.id}, {self.src}->{self.dst}, {self.kind!r})"

    @property
    def link(self) -> str:
        return link_id(self.src, self.dst)

    def as_dict(self) -> dict:
        return {
            "id": self.id,
            "from": self.src,
            "to": self.dst,
            "kind": self.kind,
            "sent_ms": self.sent_ms,
            "arrive_ms": self.arrive_ms,
            "info": self.info or {},
        }


def _ignore(*_args: Any) -> None:
    """A batch message of a kind its node has no handler for."""


_TOPOLOGIES: dict[tuple, tuple] = {}


def _topology(nodes: tuple, links: tuple) -> tuple[tuple, tuple]:
    """The checked nodes ((id, label) in declared order) and links ((id, a, b,
    latency) sorted by id) of a network's declaration, remembered: a batch run
    builds the same small network thousands of times."""
    key = (nodes, links)
    try:
        return _TOPOLOGIES[key]
    except (KeyError, TypeError):  # TypeError: a declaration that cannot be a key
        pass
    node_list: dict[str, str] = {}
    for entry in nodes:
        node_id, label = (entry, "") if isinstance(entry, str) else entry
        if node_id in node_list:
            raise ValueError(f"node {node_id!r} is declared twice")
        node_list[node_id] = label
    made = {}
    for a, b, latency in links:
        if a not in node_list or b not in node_list or a == b:
            raise ValueError(f"a link needs two different known nodes: {a}, {b}")
        lid = link_id(a, b)
        made[lid] = (lid, min(a, b), max(a, b), latency)
    found = (tuple(node_list.items()), tuple(made[lid] for lid in sorted(made)))
    try:
        if len(_TOPOLOGIES) < 256:
            _TOPOLOGIES[key] = found
    except TypeError:
        pass
    return found


class Network:
    """Nodes and links on an event queue; deliveries call the lab's handlers.

    `on_message(message)` runs when a message arrives at a running node;
    `on_timer(node, kind, payload)` when a timer set by `set_timer` fires.
    """

    def __init__(
        self,
        queue: EventQueue,
        rng: Random,
        nodes: Sequence[str | tuple[str, str]],
        links: Iterable[tuple[str, str, Latency]],
        *,
        on_message: Callable[[Message], None],
        on_timer: Callable[[str, str, Any], None] | None = None,
        cut_policy: str = "lose",
        record: bool = True,
    ) -> None:
        if cut_policy not in CUT_POLICIES:
            raise ValueError(f"cut_policy must be one of {CUT_POLICIES}")
        self.queue = queue
        self.clock = queue.clock  # the queue's: `network.clock.now_ms` is now
        self.rng = rng
        self.cut_policy = cut_policy
        self.record = record
        self.on_message = on_message
        self.on_timer = on_timer
        node_list, link_list = _topology(tuple(nodes), tuple(links))
        self.nodes: dict[str, Node] = {n: Node(n, label) for n, label in node_list}
        self.links: dict[str, Link] = {
            lid: Link(lid, a, b, latency) for lid, a, b, latency in link_list
        }
        # src -> dst -> link: two dict lookups on interned strings beat one on a tuple
        self._route: dict[str, dict[str, Link]] = {n: {} for n in self.nodes}
        for link in self.links.values():
            self._route[link.a][link.b] = self._route[link.b][link.a] = link
        self.stopped: dict[str, bool] = {}  # node ids that are down, for fast checks
        self.held: dict[int, Message] = {}
        self.events: list[dict] = []
        self.delivered = 0
        self.lost = 0
        self.last_delivery_ms = 0
        self._next_id = 1
        self.batch = False  # `go_batch`: messages and timers as plain queue entries

    @property
    def in_flight(self) -> dict[int, "Message"]:
        """Messages on the wire now, by id (read from the queue: sends stay cheap)."""
        flying = [
            entry[3]
            for entry in self.queue._heap
            if entry[3].__class__ is Message and entry[3].live
        ]
        return {m.id: m for m in sorted(flying, key=lambda m: m.id)}

    @property
    def sent(self) -> int:
        """How many messages were sent (ids count from 1)."""
        return self._next_id - 1

    # -- time ---------------------------------------------------------------------

    @property
    def now_ms(self) -> int:
        return self.queue.clock.now_ms

    def local_time(self, node_id: str) -> int:
        """What `node_id`'s own clock reads now: true time plus its skew."""
        return self.now_ms + self.nodes[node_id].skew_ms

    def run_until(self, until_ms: int) -> int:
        """Deliver every message and fire every timer due by `until_ms`.

        The same loop as `EventQueue.run_until`, with the common case (a message
        arriving on an intact link at a running node) handled inline.
        """
        if until_ms.__class__ is not int:
            return self.queue.run_until(until_ms, self._handle)  # it raises
        queue = self.queue
        heap, clock = queue._heap, queue.clock
        on_message, stopped, message_class = self.on_message, self.stopped, Message
        # The inline path needs no RNG and records nothing: lossless links, no events.
        fast = not self.record and not any(
            link.loss_permille for link in self.links.values()
        )
        ran = delivered = last = 0
        try:
            while heap and heap[0][0] <= until_ms:
                at, _, _, event = heappop(heap)
                clock.now_ms = at
                ran += 1
                if (
                    fast
                    and event.__class__ is message_class
                    and event.live
                    and not (stopped and event.dst in stopped)
                ):
                    event.live = False
                    delivered += 1
                    last = at
                    on_message(event)
                else:
                    self._handle(event)
        finally:
            if delivered:
                self.delivered += delivered
                self.last_delivery_ms = max(self.last_delivery_ms, last)
        if clock.now_ms < until_ms:
            clock.now_ms = until_ms
        return ran

    def take_events(self) -> list[dict]:
        """The events recorded since the last call, oldest first."""
        events, self.events = self.events, []
        return events

    # -- sending --------------------------------------------------------------------

    def send(
        self,
        src: str,
        dst: str,
        kind: str,
        payload: Any = None,
        info: dict | None = None,
    ) -> Message:
        """Put a message on the link from `src` to `dst`; it arrives after a delay.

        A message from a stopped node is never sent; the lab should not try (it is an
        error in the lab, so this raises).
        """
        try:
            link = self._route[src][dst]
        except KeyError:
            link = self.link_between(src, dst)  # raises with the names
        if self.stopped and src in self.stopped:
            raise ValueError(f"stopped node {src!r} cannot send")
        # Latency.draw, inlined (the hottest call of a batch run): the same draws in the
        # same order
        latency = link.latency
        delay = latency.base_ms
        if latency.jitter_ms:
            delay += int(self.rng.random() * (latency.jitter_ms + 1))
        if latency.tail_permille and self.rng.random() * 1000 < latency.tail_permille:
            delay += latency.tail_ms
        if delay < 1:
            delay = 1
        queue = self.queue
        now = self.clock.now_ms
        message_id = self._next_id
        message = Message(
            message_id, src, dst, kind, now, now + delay, info, payload, link
        )
        self._next_id = message_id + 1
        if self.record:
            self.events.append({"type": "message_sent", **message.as_dict()})
        if link.up:
            # EventQueue.schedule without its argument checks (delay is a drawn int):
            # this is the hottest line of every network lab's batch runs.
            heappush(queue._heap, (now + delay, DELIVER, queue._seq, message))
            queue._seq += 1
        else:
            self._cut_off(message)
        return message

    def draw_delay(self, src: str, dst: str) -> int | None:
        """The delay a message sent now from `src` to `dst` would take, drawn from the
        network's RNG exactly as `send` draws it (the same draws, in the same order),
        or None when their link is cut. For a lab that carries a stream on a link
        itself, in a batch run, without a `Message` per item (replication's log)."""
        link = self._route[src][dst]
        if not link.up:
            return None
        # Latency.draw, inlined as in `send` (a batch run draws one per item)
        latency = link.latency
        delay = latency.base_ms
        if latency.jitter_ms:
            delay += int(self.rng.random() * (latency.jitter_ms + 1))
        if latency.tail_permille and self.rng.random() * 1000 < latency.tail_permille:
            delay += latency.tail_ms
        return delay if delay > 1 else 1

    def set_timer(self, node_id: str, delay_ms: int, kind: str, payload=None) -> None:
        """Run `on_timer(node, kind, payload)` in `delay_ms` unless the node stops."""
        node = self.nodes[node_id]
        self.queue.schedule(delay_ms, (node_id, node.epoch, kind, payload), TIMER)

    def reachable(self, src: str, dst: str) -> bool:
        """Whether a message sent now from `src` could reach `dst` (link up, dst up)."""
        if src == dst:
            return self.nodes[src].up
        link = self.links.get(link_id(src, dst))
        return link is not None and link.up and self.nodes[dst].up

    def link_between(self, a: str, b: str) -> Link:
        link = self.links.get(link_id(a, b)) if a in self.nodes else None
        if link is None:
            raise ValueError(f"no link between {a!r} and {b!r}")
        return link

    # -- batch mode -----------------------------------------------------------------

    def go_batch(
        self,
        deliver: Mapping[str, Mapping[str, Callable[[str, str, Any], None]]],
        timers: Mapping[str, Callable[[str, Any], None]],
        *,
        lanes: Iterable[int] = (),
    ) -> None:
        """Carry messages and timers as plain queue entries, each holding the handler
        it will run, instead of a `Message` each and a look-up by kind: for batch runs
        that send millions of messages (two-phase-commit's bank workload).

        `deliver[node][kind](node, src, payload)` runs when a message of `kind`
        arrives at a running `node` (a kind `node` has no handler for is dropped on
        arrival, still counted as delivered); `timers[kind](node, payload)` when a
        timer of `kind` fires (other kinds go to `on_timer`). Timers whose delay is
        one of `lanes` wait in a first-in first-out lane per delay, only the first of
        a lane in the heap: a long timeout set for every operation then costs the
        heap nothing (they fire in the order they were set, as the heap would fire
        them).

        From then on `send` (it returns None and takes `tally`, not `info`: see
        there), `set_timer` and `run_until` are the batch versions. Everything else
        is as message by message: the same entries
        `(time, priority, seq)` in the same order, the same latency draws from `rng`
        in the same order, the same counts (`sent`, `delivered`, `lost`,
        `last_delivery_ms`); a message to a stopped node is lost, a timer of a node
        stopped since it was set never fires. What is missing is for drawing only:
        nothing is recorded (`record=False`), and `in_flight` (so the snapshot) shows
        no batch message. Links are lossless, without a slow tail, and stay up (`cut`
        refuses); the queue is run by the network's `run_until` alone, and must be
        empty when batch mode starts. tests/simulators/test_network_batch.py holds
        batch runs equal to message-by-message ones.
        """
        if self.record:
            raise ValueError("a network in batch mode records nothing: record=False")
        if len(self.queue):
            raise ValueError("batch mode starts on an empty queue")
        kinds: dict[str, bool] = {}
        for handlers in deliver.values():
            kinds.update(dict.fromkeys(handlers))
        # src -> dst -> kind -> (base delay, jitter span, handler at dst)
        routes: dict[str, dict[str, dict[str, tuple]]] = {}
        for src, out in self._route.items():
            routes[src] = {}
            for dst, link in out.items():
                latency = link.latency
                if latency.tail_permille or link.loss_permille or not link.up:
                    raise ValueError("batch mode draws no tails and loses nothing")
                span = latency.jitter_ms + 1 if latency.jitter_ms else 0
                at_dst = deliver.get(dst, {})
                routes[src][dst] = {
                    kind: (latency.base_ms, span, at_dst.get(kind, _ignore))
                    for kind in kinds
                }
        timer_kinds = dict(timers)
        lane_of = {delay: deque() for delay in lanes}
        queue, clock, random = self.queue, self.clock, self.rng.random
        heap, nodes, stopped = queue._heap, self.nodes, self.stopped
        network = self

        def unknown_kind(src: str, dst: str, kind: str) -> tuple:
            """The route of a kind no node handles: dropped on arrival."""
            link = self._route.get(src, {}).get(dst) or self.link_between(src, dst)
            latency = link.latency
            span = latency.jitter_ms + 1 if latency.jitter_ms else 0
            found = routes[src][dst][kind] = (latency.base_ms, span, _ignore)
            return found

        def send(src, dst, kind, payload=None, tally=None) -> None:
            """`send` in batch mode: `Network.send`'s draw, one tuple queued. It
            takes no `info` (nothing is recorded); `tally`, when given, is what the
            message is billed to: its `messages` goes up by one (a transaction's
            messages, counted here for want of a call around this one)."""
            if tally is not None:
                tally.messages += 1
            if stopped and src in stopped:
                raise ValueError(f"stopped node {src!r} cannot send")
            try:
                base, span, handler = routes[src][dst][kind]
            except KeyError:
                base, span, handler = unknown_kind(src, dst, kind)
            delay = base + int(random() * span) if span else base
            network._next_id += 1
            seq = queue._seq
            queue._seq = seq + 1
            at = clock.now_ms + (delay if delay > 1 else 1)
            heappush(heap, (at, DELIVER, seq, handler, dst, src, payload, None))

        def timer_for(kind: str) -> Callable[[str, Any], None]:
            """The handler of a timer kind `timers` does not name: `on_timer`'s."""
            on_timer = self.on_timer

            def fire(node: str, payload: Any) -> None:
                if on_timer is not None:
                    on_timer(node, kind, payload)

            timer_kinds[kind] = fire
            return fire

        def set_timer(node_id: str, delay_ms: int, kind: str, payload=None) -> None:
            """`set_timer` in batch mode: one tuple queued, its handler in it (the
            delay, a whole number of milliseconds, is the lab's and not checked)."""
            try:
                handler = timer_kinds[kind]
            except KeyError:
                handler = timer_for(kind)
            node = nodes[node_id]
            seq = queue._seq
            queue._seq = seq + 1
            lane = lane_of.get(delay_ms)
            at = clock.now_ms + delay_ms
            entry = (at, TIMER, seq, handler, node, node.epoch, payload, lane)
            if lane is None:
                heappush(heap, entry)
            elif lane:
                lane.append(entry)  # behind the one of its lane in the heap
            else:
                lane.append(entry)
                heappush(heap, entry)

        def run_until(until_ms: int) -> int:
            """`run_until` in batch mode: every message and timer due by
            `until_ms`; how many ran."""
            if until_ms.__class__ is not int:
                raise ValueError("until_ms must be an integer")
            ran = delivered = lost = last = 0
            try:
                while heap:
                    entry = heappop(heap)
                    at, timer, _seq, handler, node, other, payload, lane = entry
                    if at > until_ms:  # the first past the window: back where it was
                        heappush(heap, entry)
                        break
                    clock.now_ms = at
                    ran += 1
                    if timer:  # node: the Node, other: its epoch when it was set
                        if lane is not None:  # the next of its lane takes its place
                            lane.popleft()
                            if lane:
                                heappush(heap, lane[0])
                        if node.epoch == other and node.up:
                            handler(node.id, payload)
                    elif stopped and node in stopped:
                        lost += 1  # arrived at a stopped node
                    else:  # node: where it arrives, other: where it came from
                        delivered += 1
                        last = at
                        handler(node, other, payload)
            finally:
                network.delivered += delivered
                network.lost += lost
                if delivered and last > network.last_delivery_ms:
                    network.last_delivery_ms = last
            if clock.now_ms < until_ms:
                clock.now_ms = until_ms
            return ran

        self.batch = True
        self.send = send  # type: ignore[method-assign]
        self.set_timer = set_timer  # type: ignore[method-assign]
        self.run_until = run_until  # type: ignore[method-assign]

    # -- faults ---------------------------------------------------------------------

    def find_link(self, lid: Any) -> Link:
        """The link named `lid` (either order, "A-B" or "B-A"), or an ActionError."""
        if isinstance(lid, str) and lid.count("-") == 1:
            a, b = lid.split("-")
            link = self.links.get(link_id(a, b))
            if link is not None:
                return link
        raise ActionError(
            "no_such_link",
            _("there is no link %(link)r; links are %(links)s"),
            "link",
            link=lid,
            links=", ".join(self.links),
        )

    def find_node(self, node_id: Any) -> Node:
        """The node named `node_id`, or an ActionError."""
        node = self.nodes.get(node_id) if isinstance(node_id, str) else None
        if node is None:
            raise ActionError(
                "no_such_node",
                _("there is no node %(node)r; nodes are %(nodes)s"),
                "node",
                node=node_id,
                nodes=", ".join(self.nodes),
            )
        return node

    def cut(self, lid: str) -> Link:
        """Cut a link: what is on it now is lost or held, as the policy says."""
        link = self.find_link(lid)
        if self.batch:
            raise ValueError("a network in batch mode cuts no links")
        if not link.up:
            return link
        link.up = False
        if self.record:
            self.events.append(
                {"type": "link_cut", "link": link.id, "at_ms": self.now_ms}
            )
        for message in self.in_flight.values():
            if message.route is link:
                self._cut_off(message)
        return link

    def heal(self, lid: str) -> Link:
        """Heal a link; with the hold policy, what waited at the cut is sent again."""
        link = self.find_link(lid)
        if link.up:
            return link
        link.up = True
        if self.record:
            self.events.append(
                {"type": "link_healed", "link": link.id, "at_ms": self.now_ms}
            )
        for message in [m for m in self.held.values() if m.link == link.id]:
            del self.held[message.id]
            delay = link.latency.draw(self.rng)
            # A new object: the old queue entry (dead) must stay dead.
            message = Message(
                message.id,
                message.src,
                message.dst,
                message.kind,
                self.now_ms,
                self.now_ms + delay,
                message.info,
                message.payload,
                link,
            )
            self.queue.schedule(delay, message, DELIVER)
            if self.record:
                self.events.append({"type": "message_released", **message.as_dict()})
        return link

    def split(self, group: Iterable[str]) -> list[str]:
        """Cut every link between `group` and the other nodes; returns the cut links.

        Both sides must keep at least one node: a "partition" with an empty side is no
        partition, and is refused.
        """
        members = [self.find_node(n).id for n in group]
        inside = {n: True for n in members}
        if not inside or len(inside) == len(self.nodes):
            raise ActionError(
                "empty_group",
                _("a split needs at least one node on each side"),
                "group",
            )
        crossing = [
            link.id
            for link in self.links.values()
            if (link.a in inside) != (link.b in inside)
        ]
        for lid in crossing:
            self.cut(lid)
        return crossing

    def heal_all(self) -> list[str]:
        """Heal every cut link; returns the healed links."""
        healed = [link.id for link in self.links.values() if not link.up]
        for lid in healed:
            self.heal(lid)
        return healed

    def stop(self, node_id: str) -> Node:
        """Stop a node: it sends nothing, loses what arrives and forgets its timers."""
        node = self.find_node(node_id)
        if node.up:
            node.up = False
            node.epoch += 1
            self.stopped[node.id] = True
            if self.record:
                self.events.append(
                    {"type": "node_stopped", "node": node.id, "at_ms": self.now_ms}
                )
        return node

    def restart(self, node_id: str) -> Node:
        """Start a stopped node again (its durable state is the lab's business)."""
        node = self.find_node(node_id)
        if not node.up:
            node.up = True
            del self.stopped[node.id]
            if self.record:
                self.events.append(
                    {"type": "node_restarted", "node": node.id, "at_ms": self.now_ms}
                )
        return node

    def skew(self, node_id: str, skew_ms: int) -> Node:
        """Set how far `node_id`'s clock runs ahead (positive) or behind (negative)."""
        node = self.find_node(node_id)
        node.skew_ms = skew_ms
        if self.record:
            self.events.append(
                {
                    "type": "clock_skewed",
                    "node": node.id,
                    "skew_ms": skew_ms,
                    "at_ms": self.now_ms,
                }
            )
        return node

    # -- drawing --------------------------------------------------------------------

    def snapshot(self) -> dict:
        """Nodes, links and every message on the wire or waiting at a cut."""
        return {
            "now_ms": self.now_ms,
            "cut_policy": self.cut_policy,
            "nodes": [node.as_dict() for node in self.nodes.values()],
            "links": [link.as_dict() for link in self.links.values()],
            "in_flight": [m.as_dict() for m in self.in_flight.values()],
            "held": [m.as_dict() for m in self.held.values()],
            "counts": {
                "sent": self.sent,
                "delivered": self.delivered,
                "lost": self.lost,
            },
        }

    # -- inside -------------------------------------------------------------------

    def _cut_off(self, message: Message) -> None:
        message.live = False
        if self.cut_policy == "hold":
            self.held[message.id] = message
            if self.record:
                self.events.append(
                    {"type": "message_held", "id": message.id, "at_ms": self.now_ms}
                )
        else:
            self._lose(message, "link_cut")

    def _lose(self, message: Message, reason: str) -> None:
        self.lost += 1
        if self.record:
            self.events.append(
                {
                    "type": "message_lost",
                    "id": message.id,
                    "from": message.src,
                    "to": message.dst,
                    "kind": message.kind,
                    "reason": reason,
                    "sent_ms": message.sent_ms,
                    "arrive_ms": message.arrive_ms,
                    "at_ms": self.now_ms,
                }
            )

    def _handle(self, event: "Message | tuple") -> None:
        """Run one queued event: a message arriving, or a node's timer."""
        if event.__class__ is Message:
            message = event
            if not message.live:
                return  # lost or held at a cut since it was sent
            message.live = False
            link = message.route
            if link.loss_permille and self.rng.random() * 1000 < link.loss_permille:
                self._lose(message, "dropped")
            elif not self.nodes[message.dst].up:
                self._lose(message, "node_down")
            else:
                self.delivered += 1
                self.last_delivery_ms = self.queue.clock.now_ms
                if self.record:
                    self.events.append(
                        {
                            "type": "message_delivered",
                            "id": message.id,
                            "from": message.src,
                            "to": message.dst,
                            "kind": message.kind,
                            "at_ms": self.now_ms,
                        }
                    )
                self.on_message(message)
            return
        node_id, epoch, kind, payload = event
        node = self.nodes[node_id]
        if node.up and node.epoch == epoch and self.on_timer is not None:
            self.on_timer(node_id, kind, payload)
