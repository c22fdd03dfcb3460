"""Properties of the replication lab over random action sequences.

Replicas apply records in log order, one after another, and a replica's rows always
equal the primary's as of its last applied record; refused actions change nothing.
Hypothesis prints the falsifying seed and actions, which replay the failure exactly.
"""

import contextlib

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from simulators.engine import ActionError, canonical_json
from simulators.labs.replication import ReplicationLab

PROPERTY = settings(
    max_examples=80,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
SERVERS = ["A", "B", "C", "D", "primary", "Z"]
FIXES = ["off", "primary_after_write", "retry", "current_rows_primary"]


def _action(name, **args):
    return name, args


actions = st.one_of(
    st.builds(lambda c: _action("write", client=c), st.sampled_from(["ana", "ben"])),
    st.builds(lambda n: _action("burst", count=n), st.integers(1, 120)),
    st.builds(
        lambda c, row, s: _action("read", client=c, row=row, server=s),
        st.sampled_from(["ana", "ben"]),
        st.sampled_from(["email", "position"]),
        st.sampled_from(SERVERS),
    ),
    st.builds(lambda ms: _action("advance", ms=ms), st.integers(1, 400)),
    st.builds(
        lambda s, ms: _action("take_down", server=s, ms=ms),
        st.sampled_from(SERVERS),
        st.integers(100, 2_000),
    ),
    st.builds(lambda s: _action("restart", server=s), st.sampled_from(SERVERS)),
    st.just(("kill_primary", {})),
    st.builds(lambda s: _action("promote", server=s), st.sampled_from(SERVERS)),
    st.builds(
        lambda s, mode, place: _action("set_replica", server=s, mode=mode, place=place),
        st.sampled_from(SERVERS),
        st.sampled_from(["sync", "async"]),
        st.sampled_from(["zone", "region", "ocean"]),
    ),
    st.builds(
        lambda a: _action("set_acks", acks=a), st.sampled_from(["one", "majority"])
    ),
    st.builds(lambda f: _action("set_read_your_writes", fix=f), st.sampled_from(FIXES)),
    st.just(("step", {})),
)


def check_replicas(lab: ReplicationLab) -> None:
    cluster = lab.cluster
    log = cluster.log
    assert 0 <= cluster.committed <= len(log)
    assert [r[0] for r in log] == list(range(1, len(log) + 1))
    for server in cluster.servers.values():
        if server.id == cluster.primary:
            assert server.received == server.applied == len(log)
        else:
            assert 0 <= server.applied <= server.received <= len(log)
        if not server.dirty:
            assert server.rows == cluster.rows_at(server.applied), server.id
        assert all(lsn > server.received + 1 for lsn in server.buffer)


def applied_in_order(lab, before: dict) -> None:
    """No replica's applied position went back (only a failover or a return cuts
    it), and none went past what it received."""
    for server in lab.cluster.servers.values():
        lab.cluster.catch_up(server)
        assert server.applied >= before[server.id], server.id


@PROPERTY
@given(
    seed=st.integers(0, 2**32),
    replicas=st.sampled_from([1, 2, 3]),
    script=st.lists(actions, max_size=30),
)
def test_replicas_apply_in_log_order_and_equal_the_primary_as_of_what_they_applied(
    seed, replicas, script
):
    lab = ReplicationLab(seed=seed, replicas=replicas)
    for name, args in script:
        before = lab.digest()
        for server in lab.cluster.servers.values():
            lab.cluster.catch_up(server)
        applied = {s.id: s.applied for s in lab.cluster.servers.values()}
        try:
            events = lab.apply(name, args)
        except ActionError:
            assert lab.digest() == before
            continue
        if name not in ("promote", "restart"):
            applied_in_order(lab, applied)
        assert isinstance(events, list)
        check_replicas(lab)
        canonical_json(lab.state())
    # let everything settle: every running replica catches up with the primary
    lab.apply("advance", {"ms": 60_000})
    check_replicas(lab)
    if lab.cluster.primary is not None:
        for server in lab.cluster.running_replicas():
            assert server.applied == len(lab.cluster.log)
            assert server.rows == lab.cluster.servers[lab.cluster.primary].rows


@PROPERTY
@given(
    seed=st.integers(0, 2**32),
    script=st.lists(actions, max_size=20),
    cuts=st.lists(st.integers(1, 399), min_size=20, max_size=20),
)
def test_however_time_is_cut_into_advances_the_lab_ends_the_same(seed, script, cuts):
    """An advance of a + b ms leaves the lab as an advance of a, then of b (a link's
    replay may join advances, a room's ticker cuts them as real time passes)."""
    whole, split = ReplicationLab(seed=seed), ReplicationLab(seed=seed)
    for (name, args), cut in zip(script, cuts, strict=False):
        if name == "advance" and cut < args["ms"]:
            _apply(whole, name, args)
            _apply(split, "advance", {"ms": cut})
            _apply(split, "advance", {"ms": args["ms"] - cut})
        else:
            _apply(whole, name, args)
            _apply(split, name, args)
        assert whole.digest() == split.digest()


def _apply(lab, name, args) -> None:
    with contextlib.suppress(ActionError):
        lab.apply(name, args)
