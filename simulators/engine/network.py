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

The network records what happened as small JSON-safe events (`message_sent`,
`message_delivered`, `message_lost`, `message_held`, `link_cut`, `link_healed`,
`node_stopped`, `node_restarted`, `clock_skewed`) that a lab returns from `apply` and
the browser animates. Batch runs pass `record=False` and skip building them.

Order is decided by integers only: nodes keep their declared order, links are sorted by
id, messages by id. Nothing iterates over a set of strings.
"""

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
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
        """One delay in whole milliseconds (at least 1: nothing arrives instantly)."""
        delay = self.base_ms
        if self.jitter_ms:
            delay += rng.randint(0, self.jitter_ms)
        if self.tail_permille and rng.randrange(1000) < self.tail_permille:
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


@dataclass
class Message:
    """One message: `info` is JSON-safe data for drawing, `payload` is the lab's."""

    id: int
    src: str
    dst: str
    kind: str
    sent_ms: int
    arrive_ms: int
    info: dict = field(default_factory=dict)
    payload: Any = None

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
            "info": self.info,
        }


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
        self.rng = rng
        self.cut_policy = cut_policy
        self.record = record
        self.on_message = on_message
        self.on_timer = on_timer
        self.nodes: dict[str, Node] = {}
        for entry in nodes:
            node_id, label = (entry, "") if isinstance(entry, str) else entry
            if node_id in self.nodes:
                raise ValueError(f"node {node_id!r} is declared twice")
            self.nodes[node_id] = Node(node_id, label)
        made = {}
        for a, b, latency in links:
            if a not in self.nodes or b not in self.nodes or a == b:
                raise ValueError(f"a link needs two different known nodes: {a}, {b}")
            lid = link_id(a, b)
            made[lid] = Link(lid, min(a, b), max(a, b), latency)
        self.links: dict[str, Link] = {lid: made[lid] for lid in sorted(made)}
        self.in_flight: dict[int, Message] = {}
        self.held: dict[int, Message] = {}
        self.events: list[dict] = []
        self.sent = 0
        self.delivered = 0
        self.lost = 0
        self._next_id = 1

    # -- time ---------------------------------------------------------------------

    @property
    def now_ms(self) -> int:
        return self.queue.clock.now_ms

    def local_time(self, node_id: str) -> int:
        """What `node_id`'s own clock reads now: true time plus its skew."""
        return self.now_ms + self.nodes[node_id].skew_ms

    def run_until(self, until_ms: int) -> int:
        """Deliver every message and fire every timer due by `until_ms`."""
        return self.queue.run_until(until_ms, self._handle)

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
        link = self.link_between(src, dst)
        if not self.nodes[src].up:
            raise ValueError(f"stopped node {src!r} cannot send")
        delay = link.latency.draw(self.rng)
        message = Message(
            self._next_id,
            src,
            dst,
            kind,
            self.now_ms,
            self.now_ms + delay,
            info or {},
            payload,
        )
        self._next_id += 1
        self.sent += 1
        if self.record:
            self.events.append({"type": "message_sent", **message.as_dict()})
        if not link.up:
            self._cut_off(message)
        else:
            self.in_flight[message.id] = message
            self.queue.schedule(delay, (message.id,), DELIVER)
        return message

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
        if not link.up:
            return link
        link.up = False
        if self.record:
            self.events.append(
                {"type": "link_cut", "link": link.id, "at_ms": self.now_ms}
            )
        for message in [m for m in self.in_flight.values() if m.link == link.id]:
            del self.in_flight[message.id]
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
            message.sent_ms = self.now_ms
            message.arrive_ms = self.now_ms + delay
            self.in_flight[message.id] = message
            self.queue.schedule(delay, (message.id,), DELIVER)
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

    def _handle(self, event: tuple) -> None:
        if len(event) == 1:
            message = self.in_flight.pop(event[0], None)
            if message is None:  # lost or held since it was sent
                return
            link = self.links[message.link]
            if link.loss_permille and self.rng.randrange(1000) < link.loss_permille:
                self._lose(message, "dropped")
            elif not self.nodes[message.dst].up:
                self._lose(message, "node_down")
            else:
                self.delivered += 1
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
