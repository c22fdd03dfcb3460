"""Properties of the quorum lab over random action sequences.

Hypothesis prints the falsifying seed and actions, which replay the failure exactly.
"""

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from simulators.engine import ActionError, canonical_json
from simulators.labs.quorum import QuorumLab

PROPERTY = settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
NODES = ["A", "B", "C", "D", "E", "Z"]
LINKS = ["A-B", "A-C", "B-C", "C-D", "D-E", "A-E", "B-A", "A-Z"]
LEVELS = ["default", "ONE", "QUORUM", "ALL", 1, 2, 3, 4, 5, 0]


def _action(name, **args):
    return name, args


actions = st.one_of(
    st.builds(
        lambda w, c: _action("write", w=w, coordinator=c),
        st.sampled_from(LEVELS),
        st.sampled_from(["auto", *NODES]),
    ),
    st.builds(
        lambda r, c: _action("read", r=r, coordinator=c),
        st.sampled_from(LEVELS),
        st.sampled_from(["auto", *NODES]),
    ),
    st.builds(
        lambda w, r: _action("set_levels", w=w, r=r),
        st.sampled_from(LEVELS[1:]),
        st.sampled_from(LEVELS[1:]),
    ),
    st.builds(lambda ms: _action("advance", ms=ms), st.integers(1, 600)),
    st.builds(lambda link: _action("cut_link", link=link), st.sampled_from(LINKS)),
    st.builds(lambda link: _action("heal_link", link=link), st.sampled_from(LINKS)),
    st.builds(lambda node: _action("stop_node", node=node), st.sampled_from(NODES)),
    st.builds(lambda node: _action("restart_node", node=node), st.sampled_from(NODES)),
    st.builds(
        lambda group: _action("split", group=",".join(group)),
        st.lists(st.sampled_from(NODES), min_size=1, max_size=4),
    ),
    st.just(("heal_all", {})),
    st.just(("step", {})),
    st.builds(
        lambda node, ms: _action("set_skew", node=node, skew_ms=ms),
        st.sampled_from(NODES),
        st.integers(-6_000, 6_000),
    ),
    st.builds(lambda on: _action("set_read_repair", on=on), st.booleans()),
    st.builds(lambda on: _action("set_hinted_handoff", on=on), st.booleans()),
    st.builds(lambda n: _action("set_copies", copies=n), st.sampled_from([3, 5])),
    st.just(("run_trials", {"count": 100})),
    st.builds(
        lambda node, ladder: _action(
            "skew_ladder", node=node, ladder=ladder, count=100
        ),
        st.sampled_from(NODES),
        st.sampled_from(["0,-100", "-1000,0,1000", "0,0", "0,-9000"]),
    ),
    st.builds(lambda i: _action("replay_trial", index=i), st.integers(0, 120)),
)
runs = st.tuples(
    st.integers(0, 2**53 - 1),
    st.sampled_from([3, 5]),
    st.lists(actions, max_size=30),
)


def play(seed, copies, script):
    """Apply the script, skipping refused actions; returns (lab, every event)."""
    lab = QuorumLab(seed=seed, copies=copies)
    events = []
    for name, args in script:
        try:
            events.append(lab.apply(name, args))
        except ActionError:
            events.append(None)
    return lab, events


@PROPERTY
@given(runs)
def test_the_same_seed_and_actions_give_the_same_digest_and_history(run):
    first, first_events = play(*run)
    second, second_events = play(*run)
    assert first.digest() == second.digest()
    assert canonical_json(first_events) == canonical_json(second_events)
    assert [op.as_dict() for op in first.cluster.ops] == [
        op.as_dict() for op in second.cluster.ops
    ]


@PROPERTY
@given(runs)
def test_messages_on_a_cut_link_never_arrive(run):
    seed, copies, script = run
    lab = QuorumLab(seed=seed, copies=copies)
    for name, args in script:
        cut = {
            link["id"] for link in lab.snapshot()["network"]["links"] if not link["up"]
        }
        try:
            events = lab.apply(name, args)
        except ActionError:
            continue
        if name in ("cut_link", "split", "set_copies", "replay_trial"):
            continue  # no time passes, so nothing is delivered
        for event in events:
            if event["type"] == "message_delivered":
                link = "-".join(sorted((event["from"], event["to"])))
                assert link not in cut, (event, cut)


@PROPERTY
@given(runs)
def test_copies_only_move_forward_and_the_history_adds_up(run):
    seed, copies, script = run
    lab = QuorumLab(seed=seed, copies=copies)
    for name, args in script:
        before = lab.snapshot()
        try:
            lab.apply(name, args)
        except ActionError:
            assert lab.snapshot() == before
            continue
        after = lab.snapshot()
        if name not in ("set_copies", "replay_trial"):  # those start a fresh cluster
            old = {c["node"]: c["version"] for c in before["replicas"]}
            for copy in after["replicas"]:
                assert copy["version"] >= old[copy["node"]], (name, copy)
        canonical_json(lab.state())
        metrics, history = lab.metrics(), lab.cluster.ops
        assert metrics["reads"] + metrics["writes"] == len(history)
        assert metrics["stale_reads"] == sum(1 for op in history if op.stale)
        assert metrics["stale_reads"] <= metrics["completed_reads"] <= metrics["reads"]
        for op in history:
            if op.stale:
                assert op.kind == "read" and op.status == "ok"
                assert op.value != op.expected
            if op.status == "ok":
                assert len(op.quorum) == op.needed


def judged_from_scratch(read, ops, first_value) -> tuple:
    """The stale-read definition of judge.py, over every write there was."""
    done_before = [
        w
        for w in ops
        if w.kind == "write" and w.status == "ok" and w.complete_step < read.invoke_step
    ]
    latest = max(done_before, key=lambda w: w.complete_step, default=None)
    expected = latest.value if latest else first_value
    if read.write_id == 0:
        finished = 0
    else:
        source = ops[read.write_id - 1]
        if source.status != "ok":
            return expected, False
        finished = source.complete_step
    return expected, any(w.invoke_step > finished for w in done_before)


@PROPERTY
@given(runs)
def test_reads_are_judged_as_the_definition_says_over_the_whole_history(run):
    """The judge bisects the acknowledged writes; the definition scans them all."""
    lab, _ = play(*run)
    ops = list(lab.cluster.ops)
    for read in ops:
        if read.kind == "read" and read.status == "ok":
            expected, stale = judged_from_scratch(read, ops, lab.cluster.first_value)
            assert (read.expected, read.stale) == (expected, stale), read.as_dict()


@PROPERTY
@given(runs)
def test_settled_operations_never_change_again(run):
    """What the ledger sealed is shared by checkpoints: it must stay as it was."""
    seed, copies, script = run
    lab = QuorumLab(seed=seed, copies=copies)
    seen: dict[int, dict] = {}
    for name, args in script + [("advance", {"ms": 1_000})]:
        cluster = lab.cluster
        try:
            lab.apply(name, args)
        except ActionError:
            continue
        if lab.cluster is not cluster:  # a fresh cluster: a new history
            seen = {}
        ops = lab.cluster.ops
        for index in range(ops.settled):
            now = ops[index].as_dict()
            assert seen.setdefault(index, now) == now
        assert all(op.id > ops.settled for op in lab.cluster.open.values())
