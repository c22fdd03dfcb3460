"""The simulated network: latency from a seeded RNG, cuts, holds, stops and timers."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simulators.engine import ActionError, EventQueue, Latency, Network, make_rng

NODES = ("A", "B", "C")


def build(seed=0, policy="lose", latency=None, loss=0):
    latency = latency or Latency(10, 20)
    queue = EventQueue()
    arrived: list[tuple[int, str, int]] = []
    fired: list[tuple[str, str, int]] = []
    net = Network(
        queue,
        make_rng(seed, "network"),
        NODES,
        [(a, b, latency) for a, b in (("A", "B"), ("A", "C"), ("B", "C"))],
        on_message=lambda m: arrived.append((m.id, m.dst, queue.clock.now_ms)),
        on_timer=lambda node, kind, payload: fired.append(
            (node, kind, queue.clock.now_ms)
        ),
        cut_policy=policy,
    )
    for link in net.links.values():
        link.loss_permille = loss
    return net, arrived, fired


def test_a_message_arrives_after_its_drawn_latency_and_not_before():
    net, arrived, _ = build()
    message = net.send("A", "B", "write", info={"value": 1})
    assert 10 <= message.arrive_ms - message.sent_ms <= 30
    net.run_until(message.arrive_ms - 1)
    assert arrived == []
    net.run_until(message.arrive_ms)
    assert arrived == [(message.id, "B", message.arrive_ms)]
    kinds = [e["type"] for e in net.take_events()]
    assert kinds == ["message_sent", "message_delivered"]


def test_link_ids_name_both_directions_and_unknown_links_are_refused_clearly():
    net, _, _ = build()
    assert net.find_link("B-A").id == "A-B"
    for bad in ("A-D", "AB", "A-B-C", 7, None, "A-A"):
        with pytest.raises(ActionError) as caught:
            net.find_link(bad)
        assert caught.value.code == "no_such_link"
        assert "A-B, A-C, B-C" in caught.value.message


def test_a_message_in_flight_when_its_link_is_cut_is_lost_even_if_healed_in_time():
    net, arrived, _ = build()
    message = net.send("A", "C", "write")
    net.run_until(message.sent_ms + 5)
    net.cut("A-C")
    net.heal("A-C")
    net.run_until(1_000)
    assert arrived == []
    lost = [e for e in net.take_events() if e["type"] == "message_lost"]
    assert lost[0]["reason"] == "link_cut" and lost[0]["at_ms"] == 5
    assert net.snapshot()["counts"] == {"sent": 1, "delivered": 0, "lost": 1}


def test_the_hold_policy_delivers_what_waited_at_the_cut_after_healing():
    net, arrived, _ = build(policy="hold")
    net.cut("A-B")
    held = [net.send("A", "B", "write", payload=i) for i in range(3)]
    net.run_until(500)
    assert arrived == []
    assert [m["id"] for m in net.snapshot()["held"]] == [m.id for m in held]
    net.heal("A-B")
    net.run_until(1_000)
    assert sorted(a[0] for a in arrived) == [m.id for m in held]
    assert all(t >= 510 for _, _, t in arrived)


def test_a_stopped_node_loses_what_arrives_and_forgets_its_timers():
    net, arrived, fired = build()
    net.set_timer("B", 50, "timeout")
    net.set_timer("C", 50, "timeout")
    message = net.send("A", "B", "write")
    net.stop("B")
    net.restart("C")  # restarting a running node changes nothing
    net.run_until(40)
    net.restart("B")
    net.run_until(100)
    assert arrived == []
    assert fired == [("C", "timeout", 50)]
    lost = [e for e in net.take_events() if e["type"] == "message_lost"]
    assert [(e["id"], e["reason"]) for e in lost] == [(message.id, "node_down")]
    with pytest.raises(ValueError):
        net.stop("A")
        net.send("A", "B", "write")


def test_a_split_cuts_exactly_the_links_that_cross_it():
    net, _, _ = build()
    assert net.split(["C"]) == ["A-C", "B-C"]
    assert net.reachable("A", "B") and not net.reachable("A", "C")
    assert net.heal_all() == ["A-C", "B-C"]


@pytest.mark.parametrize("group", [[], ["A", "B", "C"], ["A", "B", "C", "A"]])
def test_a_split_with_an_empty_side_is_refused_and_cuts_nothing(group):
    net, _, _ = build()
    with pytest.raises(ActionError) as caught:
        net.split(group)
    assert caught.value.code == "empty_group"
    assert all(link.up for link in net.links.values())


def test_an_unknown_node_is_refused_by_name():
    net, _, _ = build()
    with pytest.raises(ActionError) as caught:
        net.split(["Z"])
    assert caught.value.code == "no_such_node"
    assert "A, B, C" in caught.value.message


def test_skew_moves_only_that_nodes_local_clock():
    net, _, _ = build()
    net.run_until(100)
    net.skew("C", -30)
    assert (net.local_time("A"), net.local_time("C")) == (100, 70)


def test_messages_arrive_before_timers_due_at_the_same_moment():
    net, arrived, fired = build(latency=Latency(25))
    order = []
    net.on_message = lambda m: order.append("message")
    net.on_timer = lambda *a: order.append("timer")
    net.set_timer("B", 25, "timeout")
    net.send("A", "B", "reply")
    net.run_until(25)
    assert order == ["message", "timer"]


def test_loss_drops_about_the_declared_share():
    net, arrived, _ = build(loss=200)
    for _ in range(2_000):
        net.send("A", "B", "ping")
    net.run_until(1_000)
    assert 0.17 < 1 - len(arrived) / 2_000 < 0.23


def test_latency_refuses_nonsense():
    for bad in (
        dict(base_ms=-1),
        dict(base_ms=1.5),
        dict(base_ms=1, tail_permille=2000),
    ):
        with pytest.raises(ValueError):
            Latency(**bad)


def _trace(seed, script):
    net, arrived, _ = build(
        seed=seed, latency=Latency(5, 40, tail_permille=100, tail_ms=200)
    )
    for step in script:
        kind, a, b = step
        if kind == "send":
            if net.nodes[a].up:
                net.send(a, b, "m")
        elif kind == "cut":
            net.cut(f"{a}-{b}")
        elif kind == "heal":
            net.heal(f"{a}-{b}")
        else:
            net.run_until(net.now_ms + 7)
    net.run_until(net.now_ms + 1_000)
    return arrived, net.take_events()


steps = st.lists(
    st.tuples(
        st.sampled_from(["send", "send", "cut", "heal", "wait"]),
        st.sampled_from("AB"),
        st.just("C"),
    ),
    max_size=40,
)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32), steps)
def test_same_seed_and_actions_give_the_same_arrivals(seed, script):
    assert _trace(seed, script) == _trace(seed, script)


@settings(max_examples=80, deadline=None)
@given(st.integers(0, 2**32), steps)
def test_a_message_never_arrives_over_a_link_that_was_cut_while_it_flew(seed, script):
    """Lose policy: a delivery means the link stayed up from send to arrival.

    Checked in event order: a link's cut counter must not move between a message's
    send and its delivery, and the link must have been up when it was sent.
    """
    _, events = _trace(seed, script)
    cuts: dict[str, int] = {}
    up: dict[str, bool] = {}
    at_send = {}
    for event in events:
        if event["type"] == "link_cut":
            cuts[event["link"]] = cuts.get(event["link"], 0) + 1
            up[event["link"]] = False
        elif event["type"] == "link_healed":
            up[event["link"]] = True
        elif event["type"] == "message_sent":
            link = "-".join(sorted((event["from"], event["to"])))
            at_send[event["id"]] = (link, cuts.get(link, 0), up.get(link, True))
        elif event["type"] == "message_delivered":
            link, cut_count, was_up = at_send[event["id"]]
            assert was_up and cuts.get(link, 0) == cut_count


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32), steps)
def test_a_healed_network_delivers_everything_it_held(seed, script):
    net, arrived, _ = build(seed=seed, policy="hold")
    sent = 0
    for kind, a, b in script:
        if kind == "send":
            net.send(a, b, "m")
            sent += 1
        elif kind == "cut":
            net.cut(f"{a}-{b}")
        elif kind == "heal":
            net.heal(f"{a}-{b}")
        else:
            net.run_until(net.now_ms + 7)
    net.heal_all()
    net.run_until(net.now_ms + 1_000)
    assert len(arrived) == sent
    assert net.snapshot()["held"] == [] and net.snapshot()["in_flight"] == []


def test_draw_delay_draws_what_send_would():
    def network(seed):
        queue = EventQueue()
        links = [("A", "B", Latency(5, 20, tail_permille=100, tail_ms=50))]
        return Network(queue, make_rng(seed, "t"), ["A", "B"], links, on_message=print)

    sent, drawn = network(3), network(3)
    for _ in range(200):
        message = sent.send("A", "B", "m")
        assert drawn.draw_delay("A", "B") == message.arrive_ms - message.sent_ms
    drawn.cut("A-B")
    assert drawn.draw_delay("B", "A") is None
