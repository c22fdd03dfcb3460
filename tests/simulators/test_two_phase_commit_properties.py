"""Properties of two-phase-commit over random crash, recover and transaction sequences.

After every event the network runs (each message and timer, not only each action), a
shard that is up holds every lock of every transaction it has prepared; a prepared
transaction lets go only once the coordinator has decided it (its decision logged,
or an abort, presumed or not); no transaction commits on one shard and aborts on the
other; and with two-phase commit every read adds up to 100.

Hypothesis prints the falsifying seed and actions, which replay the failure exactly.
"""

import contextlib

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from simulators.engine import ActionError
from simulators.labs.two_phase_commit import TwoPhaseCommitLab
from simulators.labs.two_phase_commit.cluster import SEATS, TOTAL

PROPERTY = settings(
    max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
SERVERS = ["coordinator", "flights", "bookings"]

actions = st.one_of(
    st.builds(lambda s: ("book", {"seat": s}), st.sampled_from(SEATS)),
    st.builds(
        lambda s, f: ("set_fare", {"seat": s, "fare": f}),
        st.sampled_from(SEATS),
        st.integers(1, 999),
    ),
    st.builds(
        lambda a, b, n: ("transfer", {"source": a, "target": b, "amount": n}),
        st.integers(1, 8),
        st.integers(1, 8),
        st.integers(1, 5),
    ),
    st.just(("read_accounts", {})),
    st.just(("start_bank", {})),
    st.builds(lambda n: ("crash_server", {"node": n}), st.sampled_from(SERVERS)),
    st.builds(lambda n: ("recover_server", {"node": n}), st.sampled_from(SERVERS)),
    st.builds(
        lambda p: ("crash_between_phases", {"point": p}),
        st.sampled_from(["after_decision", "before_decision", "between_shards"]),
    ),
    st.builds(lambda ms: ("advance", {"ms": ms}), st.integers(1, 400)),
    st.builds(lambda ms: ("advance", {"ms": ms}), st.integers(1, 20)),
)


class Watch:
    """Checks the cluster after every event the network runs."""

    def __init__(self, lab: TwoPhaseCommitLab) -> None:
        self.lab = lab
        self.cluster = lab.cluster
        self.commits: dict = {}  # txn -> decided commit (coordinator logged it)
        self.aborts: dict = {}  # txn -> decided abort
        self.presumed: dict = {}  # txn -> abort presumed in an answer to an inquiry
        self.outcomes: dict = {}  # (shard, txn) -> "commit" / "abort"
        self.checked = 0
        net = lab.network
        self._message, self._timer = net.on_message, net.on_timer
        net.on_message, net.on_timer = self.message, self.timer

    def message(self, message) -> None:
        self._message(message)
        self.check()

    def timer(self, node, kind, payload) -> None:
        self._timer(node, kind, payload)
        self.check()

    def check(self) -> None:
        cluster = self.cluster
        self.checked += 1
        for name, shard in cluster.shards.items():
            if not cluster.up(name):
                continue
            for txn, rows in shard.prepared.items():
                for row, _mode, _change in rows:
                    lock = shard.locks.get(row)
                    assert lock and txn in lock["holders"], (name, txn, row)

    def events(self, events: list[dict]) -> None:
        """Every release by a decision follows the coordinator's decision."""
        for event in events:
            kind = event["type"]
            if kind == "decided":
                book = self.commits if event["decision"] == "commit" else self.aborts
                book[event["txn"]] = True
            elif kind == "inquiry_answered" and event["presumed"]:
                # presumed abort: an answer, not a decision (a late inquiry about a
                # transaction already committed and forgotten gets it too)
                self.presumed[event["txn"]] = True
            elif kind == "released" and event["why"] in ("commit", "abort"):
                txn, why = event["txn"], event["why"]
                if why == "commit":
                    assert txn in self.commits, event
                else:
                    assert txn in self.aborts or txn in self.presumed, event
                    assert txn not in self.commits, event
                key = (event["shard"], txn)
                assert self.outcomes.get(key, why) == why
                self.outcomes[key] = why
        for (shard, txn), why in self.outcomes.items():
            other = "bookings" if shard == "flights" else "flights"
            assert self.outcomes.get((other, txn), why) == why, txn
        assert not (set(self.commits) & set(self.aborts))


def play(seed, steps, mode="2pc"):
    lab = TwoPhaseCommitLab(seed=seed)
    if mode != "2pc":
        lab.apply("set_mode", {"mode": mode})
    watch = Watch(lab)
    for name, args in steps:
        with contextlib.suppress(ActionError):
            watch.events(lab.apply(name, args))
    for _ in range(40):  # then no more faults (a trap set may still spring)
        for node in SERVERS:
            if not lab.cluster.up(node):
                watch.events(lab.apply("recover_server", {"node": node}))
        watch.events(lab.apply("advance", {"ms": 1_000}))
    return lab, watch


@PROPERTY
@given(st.integers(0, 2**32), st.lists(actions, max_size=30))
def test_prepared_locks_are_held_until_the_decision(seed, steps):
    lab, watch = play(seed, steps)
    assert watch.checked > 0 or not lab.cluster.ops
    cluster = lab.cluster
    # in the end, with everything up, every decision reached every shard
    for shard in cluster.shards.values():
        assert not shard.prepared and not shard.locks and not shard.waiting
    assert not cluster.coordinator.decisions
    # and with two-phase commit the money never moved out of the accounts
    assert cluster.total() == TOTAL
    assert lab.bank.off == 0


@PROPERTY
@given(st.integers(0, 2**32), st.lists(actions, max_size=30))
def test_every_read_adds_up_with_two_phase_commit(seed, steps):
    lab, _watch = play(seed, [("start_bank", {}), *steps])
    totals = [
        sum(op.value) for op in lab.cluster.ops if op.f == "read" and op.outcome == "ok"
    ]
    assert all(total == TOTAL for total in totals)


@PROPERTY
@given(st.integers(0, 2**32), st.lists(actions, max_size=30))
def test_jepsen_records_are_well_formed(seed, steps):
    lab, _watch = play(seed, steps, mode="independent")
    ops = lab.snapshot()["ops"]
    assert len(ops) <= 200
    for op in ops:
        assert op["kind"] in ("write", "read") and isinstance(op["client"], str)
        assert op["outcome"] in ("ok", "fail", "info")  # nothing left pending
        assert op["complete"] >= op["invoke"]
        if op["resolved"] is not None:
            assert op["outcome"] == "info"
