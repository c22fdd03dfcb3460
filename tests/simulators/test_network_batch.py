"""A network in batch mode (`Network.go_batch`: messages and timers as plain queue
entries, each with its handler) does what the same network does message by message:
the same deliveries and timers, at the same times, in the same order, with the same
latency draws, losses and counts, through stops and restarts; and it refuses what it
cannot do."""

from random import Random

import pytest

from simulators.engine import EventQueue, Latency, Network, make_rng

NODES = ("A", "B", "C", "ops")  # ops: no links, keeps the chaos timers
LINKS = (
    ("A", "B", Latency(10, 20)),
    ("A", "C", Latency(0, 2)),  # a draw of 0 takes 1 ms
    ("B", "C", Latency(1, 1)),
)
LANE_MS = 50
HOPS = 60


class Workload:
    """Chains of pings hopping between A, B and C, timers set along the way (some in a
    lane, some not), pongs only B handles, strays nobody handles, and a chaos timer
    stopping and restarting nodes. Its choices come from its own RNG, drawn in the
    order events run: equal traces mean equal runs."""

    def __init__(self, seed: int, batch: bool) -> None:
        self.choices = Random(seed)
        self.trace: list[tuple] = []
        self.net = Network(
            EventQueue(),
            make_rng(seed, "network"),
            NODES,
            LINKS,
            on_message=self.on_message,
            on_timer=self.on_timer,
            record=False,
        )
        self.deliver = {
            "A": {"ping": self.ping},
            "B": {"ping": self.ping, "pong": self.pong},
            "C": {"ping": self.ping},
        }
        self.timers = {"retry": self.retry}  # chaos: left to on_timer
        if batch:
            self.net.go_batch(self.deliver, self.timers, lanes=(LANE_MS,))

    # message by message: the network's handlers look the kind up
    def on_message(self, message) -> None:
        handler = self.deliver[message.dst].get(message.kind)
        if handler is not None:
            handler(message.dst, message.src, message.payload)

    def on_timer(self, node: str, kind: str, payload) -> None:
        if kind in self.timers:
            self.timers[kind](node, payload)
        else:
            self.chaos(node, payload)

    # the protocol
    def now(self) -> int:
        return self.net.clock.now_ms

    def ping(self, node: str, src: str, payload) -> None:
        chain, hop = payload
        self.trace.append(("ping", self.now(), node, src, chain, hop))
        if hop >= HOPS:
            return
        others = [n for n in ("A", "B", "C") if n != node]
        self.net.send(node, self.choices.choice(others), "ping", (chain, hop + 1))
        if self.choices.random() < 0.4:
            delay = (
                LANE_MS if self.choices.random() < 0.5 else self.choices.randint(0, 30)
            )
            self.net.set_timer(node, delay, "retry", (chain, hop))

    def pong(self, node: str, src: str, payload) -> None:
        self.trace.append(("pong", self.now(), node, src, payload))

    def retry(self, node: str, payload) -> None:
        self.trace.append(("retry", self.now(), node, payload))
        other = "B" if node != "B" else "C"
        self.net.send(node, other, "pong", payload)
        if self.choices.random() < 0.3:
            self.net.send(node, other, "stray", payload)  # no node handles it

    def chaos(self, node: str, payload) -> None:
        down = [n for n in ("A", "B", "C") if not self.net.nodes[n].up]
        if down and self.choices.random() < 0.7:  # one comes back, starting a chain
            victim = self.choices.choice(down)
            self.net.restart(victim)
            self.net.send(victim, "A" if victim != "A" else "C", "ping", (victim, 0))
        else:
            victim = self.choices.choice(("A", "B", "C"))
            self.net.stop(victim)
        self.trace.append(("chaos", self.now(), victim, self.net.nodes[victim].up))
        if payload > 0:
            self.net.set_timer("ops", self.choices.randint(5, 80), "chaos", payload - 1)

    def run(self, chains: int = 4, faults: int = 12) -> tuple:
        for chain in range(chains):
            self.net.send("A", ("B", "C")[chain % 2], "ping", (chain, 0))
        if faults:
            self.net.set_timer("ops", 20, "chaos", faults)
        ran = 0
        for until in range(100, 3_000, 137):  # windows that cut through the run
            ran += self.net.run_until(until)
        net = self.net
        counts = (net.sent, net.delivered, net.lost, net.last_delivery_ms)
        return self.trace, counts, ran, net.clock.now_ms, net.rng.random()


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("faults", [0, 12])
def test_a_batch_run_is_the_run_message_by_message(seed, faults):
    batch = Workload(seed, batch=True).run(faults=faults)
    one_by_one = Workload(seed, batch=False).run(faults=faults)
    assert batch == one_by_one
    trace, (sent, delivered, lost, _last), _ran, _now, _draw = batch
    assert sent > 40 and delivered > 20
    kinds = {entry[0] for entry in trace}
    assert {"ping", "pong", "retry"} <= kinds
    if faults:
        assert "chaos" in kinds and lost > 0


def test_lane_timers_fire_in_order_among_the_others():
    fired = []
    net = Network(
        EventQueue(),
        make_rng(1, "network"),
        ("A",),
        (),
        on_message=lambda m: None,
        record=False,
    )
    net.go_batch(
        {}, {"t": lambda node, p: fired.append((net.clock.now_ms, p))}, lanes=(10,)
    )
    net.set_timer("A", 10, "t", "lane 1")
    net.set_timer("A", 5, "t", "short")
    net.set_timer("A", 10, "t", "lane 2")
    net.run_until(3)
    net.set_timer("A", 10, "t", "lane 3")
    net.set_timer("A", 7, "t", "also 10")
    assert net.run_until(100) == 5
    assert fired == [
        (5, "short"),
        (10, "lane 1"),
        (10, "lane 2"),
        (10, "also 10"),
        (13, "lane 3"),
    ]


def test_a_stopped_node_sends_nothing_and_forgets_its_timers():
    fired = []
    net = Network(
        EventQueue(),
        make_rng(1, "network"),
        ("A", "B"),
        (("A", "B", Latency(5)),),
        on_message=lambda m: None,
        record=False,
    )
    net.go_batch(
        {"B": {"m": lambda *a: fired.append(a)}}, {"t": lambda *a: fired.append(a)}
    )
    net.set_timer("A", 10, "t", 1)
    net.send("A", "B", "m", 2)
    net.stop("B")
    net.stop("A")
    with pytest.raises(ValueError, match="cannot send"):
        net.send("A", "B", "m", 3)
    net.run_until(6)
    net.restart("A")
    net.restart("B")
    net.run_until(20)
    assert fired == []  # the message arrived at a stopped node; the timer died with A
    assert (net.sent, net.delivered, net.lost) == (1, 0, 1)
    net.send("A", "B", "m", 4)
    net.run_until(30)
    assert fired == [("B", "A", 4)]
    assert net.in_flight == {}  # batch messages are not drawn
    with pytest.raises(ValueError, match="no link"):
        net.send("A", "C", "m", 5)


def refused_network(**how):
    latency = how.pop("latency", Latency(5))
    net = Network(
        EventQueue(),
        make_rng(1, "network"),
        ("A", "B"),
        (("A", "B", latency),),
        on_message=lambda m: None,
        record=how.pop("record", False),
    )
    for link in net.links.values():
        link.loss_permille = how.pop("loss", 0)
    return net


@pytest.mark.parametrize(
    ("how", "why"),
    [
        ({"record": True}, "records nothing"),
        ({"latency": Latency(5, 1, tail_permille=10, tail_ms=100)}, "no tails"),
        ({"loss": 10}, "loses nothing"),
    ],
)
def test_batch_mode_refuses_what_it_cannot_do(how, why):
    with pytest.raises(ValueError, match=why):
        refused_network(**how).go_batch({}, {})


def test_batch_mode_starts_on_an_empty_queue_and_cuts_no_links():
    net = refused_network()
    net.send("A", "B", "m")
    with pytest.raises(ValueError, match="empty queue"):
        net.go_batch({}, {})
    net = refused_network()
    net.go_batch({}, {})
    with pytest.raises(ValueError, match="cuts no links"):
        net.cut("A-B")


@pytest.mark.parametrize(
    "latency",
    [
        Latency(10, 20),
        Latency(0, 2),
        Latency(7),
        Latency(0),
        Latency(5, 3, tail_permille=100, tail_ms=250),
        Latency(1, 0, tail_permille=1000, tail_ms=9),
    ],
)
def test_every_inlined_draw_is_latency_draw(latency):
    """`send`, `draw_delay` and batch mode's `send` draw a delay inline (the hottest
    lines of a batch run): each draws what `Latency.draw` draws, in the same order."""
    rng = make_rng(9, "network")
    expected = [latency.draw(rng) for _ in range(400)]

    def network(batch: bool = False) -> Network:
        net = Network(
            EventQueue(),
            make_rng(9, "network"),
            ("A", "B"),
            (("A", "B", latency),),
            on_message=lambda m: None,
            record=False,
        )
        if batch:
            arrived = []
            net.go_batch({"B": {"m": lambda *a: arrived.append(net.clock.now_ms)}}, {})
            net.arrived = arrived  # type: ignore[attr-defined]
        return net

    sent = network()
    assert [
        (m := sent.send("A", "B", "m")).arrive_ms - m.sent_ms for _ in range(400)
    ] == expected
    drawn = network()
    assert [drawn.draw_delay("A", "B") for _ in range(400)] == expected
    if latency.tail_permille:
        return  # batch mode draws no tails (it refuses them)
    batch = network(batch=True)
    for _ in range(400):
        batch.send("A", "B", "m")
        batch.run_until(batch.clock.now_ms + 10_000)
        batch.clock.now_ms += 1  # each from a new moment: arrivals stay apart
    assert [
        at - sent_at
        for at, sent_at in zip(
            batch.arrived,  # type: ignore[attr-defined]
            [10_001 * i for i in range(400)],
            strict=True,
        )
    ] == expected


def test_a_batch_message_is_billed_to_its_tally():
    class Bill:
        messages = 0

    bill = Bill()
    net = refused_network()
    net.go_batch({}, {})
    net.send("A", "B", "m", 1, bill)
    net.send("A", "B", "m", 2)
    net.send("B", "A", "m", 3, tally=bill)
    assert (bill.messages, net.sent) == (2, 3)
