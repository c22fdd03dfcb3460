"""Every lab's guided tour: sound as data, and run to its end by "Show me" alone.

A tour is run here the way the browser runs it: each step's "Show me" goes through the
lab's own `apply` (so the lab validates it as any click), a clocked lab's time runs on
until the step's `done_when` is met, and each tour must leave its lab showing the
point it teaches.
"""

import dataclasses

import pytest

from simulators.engine import ActionSpec, ClockedLab, Lab, Param, TourStep
from simulators.engine.canonical import canonical_json
from simulators.labs import LABS

TICK_MS = 10
PATIENCE_MS = 5_000  # the longest a step may wait for its messages to land
SEEDS = (0, 1, 7)


def run_step(lab: Lab, step: TourStep) -> list[tuple[str, list[dict]]]:
    """Do a step's "Show me", then let time run until the step is done.

    Returns the frames it took, as (action, events); fails if the step never ends.
    """
    name, args = step.show_me
    frames = [(name, lab.apply(name, args))]
    waited = 0
    while not step.done_by(*frames[-1]):
        if not isinstance(lab, ClockedLab) or waited >= PATIENCE_MS:
            pytest.fail(f"{lab.slug} step {step.id} was never done")
        frames.append(("advance", lab.apply("advance", {"ms": TICK_MS})))
        waited += TICK_MS
    return frames


def run_tour(slug: str, seed: int = 0) -> tuple[Lab, dict[str, list]]:
    """A fresh lab taken through its whole tour; the frames of each step by id."""
    lab = LABS[slug](seed=seed)
    return lab, {step.id: run_step(lab, step) for step in lab.tour}


def events_of(frames, kind: str) -> list[dict]:
    return [e for _, events in frames for e in events if e["type"] == kind]


def settle(lab: Lab) -> None:
    """Let a clocked lab run until nothing is scheduled (or a minute has passed)."""
    for _ in range(60):
        if lab.next_due_ms() is None:
            return
        lab.apply("advance", {"ms": 1_000})


# -- the data ---------------------------------------------------------------------


@pytest.mark.parametrize("slug", sorted(LABS))
def test_every_lab_has_a_sound_tour_of_three_to_six_steps(slug):
    lab = LABS[slug]
    assert 3 <= len(lab.tour) <= 6
    assert lab.tour_problems() == []


@pytest.mark.parametrize("slug", sorted(LABS))
def test_the_tour_is_sent_in_the_declaration(slug):
    lab = LABS[slug]
    tour = lab.declaration()["tour"]
    assert [step["id"] for step in tour] == [step.id for step in lab.tour]
    for sent, step in zip(tour, lab.tour, strict=True):
        assert set(sent) >= {"id", "say", "notice", "target", "show_me", "done_when"}
        assert sent["show_me"] == {"action": step.show_me[0], "args": step.show_me[1]}
        assert sent["say"].strip() and sent["notice"].strip()
    canonical_json(tour)


@pytest.mark.parametrize("slug", sorted(LABS))
def test_the_controls_and_events_a_tour_names_are_the_labs(slug):
    lab = LABS[slug]
    names = {spec.name for spec in lab.actions}
    for step in lab.tour:
        for where in (step.target, step.look or {}):
            if "action" in where:
                assert where["action"] in names
        if "action" in step.done_when:
            assert step.done_when["action"] in names


def step(**changes) -> TourStep:
    """A sound step of a made-up lab, with `changes`."""
    fields = {
        "id": "count-up",
        "say": "Press Count.",
        "notice": "It counted.",
        "target": {"action": "count"},
        "show_me": ("count", {"by": 2}),
        "done_when": {"action": "count"},
    }
    return TourStep(**{**fields, **changes})


@pytest.mark.parametrize(
    "changes",
    [
        {"id": "Count Up"},
        {"id": "count_up"},
        {"id": "-count"},
        {"id": ""},
        {"id": "x" * 41},
        {"target": {"button": "count"}},
        {"target": {"action": "count", "node": "A"}},
        {"target": {}},
        {"look": {"place": "stage"}},
        {"done_when": {}},
        {"done_when": {"action": "count", "event": "counted"}},
        {"done_when": {"action": "count", "with": {"by": 2}}},
        {"done_when": {"event": "counted", "when": 3}},
    ],
)
def test_a_step_that_is_not_well_formed_is_refused_when_declared(changes):
    with pytest.raises(ValueError):
        step(**changes)


class CounterLab(Lab):
    """A made-up lab whose tour each test below breaks in one way."""

    slug = "counter"
    actions = (
        ActionSpec("count", "Count", (Param("by", "By", "int", minimum=1, maximum=3),)),
        ActionSpec("tick", "Tick", group="clock"),
        ActionSpec("pause", "Pause", group="timeline"),
    )
    tour = tuple(step(id=f"step-{n}") for n in range(3))


def problems_with(*steps: TourStep) -> list[str]:
    broken = type("BrokenLab", (CounterLab,), {"tour": steps})
    return broken.tour_problems()


def test_a_sound_made_up_tour_has_no_problems():
    assert CounterLab.tour_problems() == []


@pytest.mark.parametrize(
    ("steps", "problem"),
    [
        ((step(id="a"), step(id="b")), "2 steps; a tour has 3 to 6"),
        (tuple(step(id=f"s{n}") for n in range(7)), "7 steps; a tour has 3 to 6"),
        ((step(id="a"), step(id="a"), step(id="b")), "step id 'a' is used twice"),
        (
            (step(id="a"), step(id="b"), step(id="c", show_me=("count", {"by": 9}))),
            "step c: show me is refused: By must be at most 3",
        ),
        (
            (step(id="a"), step(id="b"), step(id="c", show_me=("count", {}))),
            "step c: show me is refused: count needs the argument 'by'",
        ),
        (
            (step(id="a"), step(id="b"), step(id="c", target={"action": "jump"})),
            "step c: no action named 'jump'",
        ),
        (
            (step(id="a"), step(id="b"), step(id="c", done_when={"action": "tick"})),
            "step c: 'tick' is the room's, not a visitor's",
        ),
        (
            (step(id="a"), step(id="b"), step(id="c", target={"action": "pause"})),
            "step c: 'pause' has no form to point at",
        ),
    ],
)
def test_a_broken_tour_is_reported_in_words(steps, problem):
    assert problem in problems_with(*steps)


def test_a_step_is_done_by_its_action_or_by_a_matching_event():
    by_action = step()
    assert by_action.done_by("count", [])
    assert not by_action.done_by("advance", [{"type": "count"}])
    by_event = step(done_when={"event": "counted", "with": {"by": 2}})
    assert by_event.done_by("advance", [{"type": "tick"}, {"type": "counted", "by": 2}])
    assert not by_event.done_by("count", [{"type": "counted", "by": 1}])
    assert not by_event.done_by("count", [])


def test_a_step_is_plain_data():
    made = step(look={"spot": "stage"})
    assert dataclasses.is_dataclass(made)
    assert made.as_dict() == {
        "id": "count-up",
        "say": "Press Count.",
        "notice": "It counted.",
        "target": {"action": "count"},
        "show_me": {"action": "count", "args": {"by": 2}},
        "done_when": {"action": "count"},
        "look": {"spot": "stage"},
    }


# -- run by "Show me" alone --------------------------------------------------------


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("slug", sorted(LABS))
def test_every_tour_runs_to_its_end_by_show_me_alone(slug, seed):
    lab, frames = run_tour(slug, seed)
    assert list(frames) == [s.id for s in lab.tour]
    canonical_json(lab.state())


@pytest.mark.parametrize("seed", SEEDS)
def test_the_hash_placement_tour_shows_what_a_fifth_shard_moves(seed):
    lab = LABS["hash-placement"](seed=seed)
    first, *rest = lab.tour
    run_step(lab, first)
    moved = {s: n["moved_fraction"] for s, n in lab.metrics()["schemes"].items()}
    assert moved["mod"] == pytest.approx(0.80, abs=0.02)
    assert moved["partitions"] == pytest.approx(0.20, abs=0.02)
    assert moved["ring"] == pytest.approx(0.20, abs=0.05)
    removed = run_step(lab, rest[0])
    assert events_of(removed, "shard_removed") == [
        {"type": "shard_removed", "shard": "B"}
    ]
    for frames_of_step in (run_step(lab, s) for s in rest[1:]):
        assert frames_of_step
    hot = lab.snapshot()["hot_key"]
    assert hot["key"] == "N12345" and hot["share_percent"] == 50


@pytest.mark.parametrize("seed", SEEDS)
def test_the_quorum_tour_reads_the_old_value_and_counts_how_often(seed):
    lab, frames = run_tour("quorum", seed)
    (read,) = [
        e for e in events_of(frames["read-c"], "op_completed") if e["kind"] == "read"
    ]
    assert read["stale"] is True
    assert read["value"] == read["expected"] + 1  # the seat count before the write
    trials = events_of(frames["count-stale"], "trials_run")[0]
    assert 0.3 <= trials["stale_fraction"] <= 0.7
    # what the last notice invites: back to QUORUM, count again, no stale read
    lab.apply("set_levels", {"w": "QUORUM", "r": "QUORUM"})
    again = lab.apply("run_trials", {"count": 1_000})
    assert again[-1]["stale"] == 0


@pytest.mark.parametrize("seed", SEEDS)
def test_the_partition_cap_tour_sells_the_last_seat_twice(seed):
    lab, frames = run_tour("partition-cap", seed)
    books = [
        e
        for step_id in ("book-tokyo", "book-frankfurt")
        for e in events_of(frames[step_id], "op_completed")
    ]
    assert [(e["server"], e["result"]) for e in books] == [
        ("C", "booked"),
        ("A", "booked"),
    ]
    (conflict, *_) = events_of(frames["heal"], "conflict")
    assert conflict["verdict"] == "concurrent"
    settle(lab)
    metrics = lab.metrics()
    assert metrics["confirmed"] == 2
    assert metrics["surviving"] == 1
    assert metrics["vanished"] == 1
    assert metrics["copies_agree"] is True


@pytest.mark.parametrize("seed", SEEDS)
def test_the_two_phase_commit_tour_holds_the_locks_until_recovery(seed):
    lab, frames = run_tour("two-phase-commit", seed)
    (sprung,) = events_of(frames["book-again"], "trap_sprung")
    assert sprung["point"] == "after_decision"
    (held,) = [
        e for e in events_of(frames["book-again"], "op_completed") if e["op"] == 2
    ]
    assert held["outcome"] == "info"
    (queued,) = events_of(frames["blocked"], "op_invoked")
    assert queued["route"] == "flights"
    released = events_of(frames["recover"], "released")
    assert [(e["shard"], e["txn"], e["why"]) for e in released][:1] in (
        [("flights", 2, "commit")],
        [("bookings", 2, "commit")],
    )
    settle(lab)
    rows = lab.cluster.shards["flights"].rows
    assert rows["seat:12B"] == {"passenger": "P2", "fare": 99}
    assert lab.cluster.shards["bookings"].rows["booking:12B"] == "P2"
    assert lab.metrics()["locks_held"] == 0


def test_a_step_waits_for_the_users_own_way_of_doing_it_too():
    """The browser ends a step on any frame that matches, whoever sent it."""
    lab = LABS["quorum"](seed=0)
    cut, levels, write, *_ = lab.tour
    # cutting another link does not end "cut the link A-C"
    assert not cut.done_by("cut_link", lab.apply("cut_link", {"link": "A-B"}))
    assert cut.done_by("cut_link", lab.apply("cut_link", {"link": "C-A"}))
    run_step(lab, levels)
    # a write through B is not the write through A the step asks for
    events = lab.apply("write", {"w": "default", "coordinator": "B"})
    assert not write.done_by("write", events)


@pytest.mark.parametrize("seed", SEEDS)
def test_the_range_splits_tour_splits_heats_one_shard_and_reads_a_range(seed):
    lab, frames = run_tour("range-splits", seed)
    first = [e["type"] for e in events_of(frames["write-ids"], "slice_split")]
    assert first and events_of(frames["write-ids"], "slice_moved")
    # the timestamps step: each range table took the step's writes on one shard
    (written,) = events_of(frames["write-timestamps"], "written")
    columns = [
        c
        for c in lab.snapshot()["heat"]["columns"]
        if written["from_ms"] // 250 < c["bucket"] < written["to_ms"] // 250
    ]
    assert columns
    for policy in ("size", "load"):
        busy = {s for c in columns for s, n in c[policy].items() if n}
        assert len(busy) == 1, (policy, busy)
    (read,) = events_of(frames["range-query"], "range_read")
    assert all(1 <= len(read["shards"][p]) <= 2 for p in ("size", "load"))
    assert read["shards"]["hash"] == ["A", "B", "C", "D"]
    moved = [e for e in events_of(frames["add-shard"], "slice_moved")]
    assert moved and {e["to"] for e in moved} == {"E"}
    (hashed,) = events_of(frames["add-shard"], "hash_moved")
    assert hashed["moved"] / hashed["total"] > 0.7


@pytest.mark.parametrize("seed", SEEDS)
def test_the_cache_stampede_tour_shows_the_herd_the_lock_and_xfetch(seed):
    lab, frames = run_tour("cache-stampede", seed)
    refilled = events_of(frames["expiry"], "refilled")
    by_lane = {e["lane"]: e for e in refilled if e["board"] == "LAX"}
    # the same expiry, four ways: a herd of identical queries, one under the lock,
    # and XFetch's refresh before the expiry
    assert by_lane["plain"]["queries"] >= 10
    assert by_lane["lock"]["queries"] == 1
    assert lab.metrics()["lanes"]["lock"]["most_refills_at_once"] == 1
    assert by_lane["xfetch_lock"]["early"] and by_lane["xfetch_lock"]["queries"] == 1
    assert lab.snapshot()["strategy"] == "xfetch"
    (updated,) = events_of(frames["stale"], "flight_updated")
    assert updated["stale_in"] == ["plain", "lock", "xfetch", "xfetch_lock"]


@pytest.mark.parametrize("seed", SEEDS)
def test_the_rate_limit_race_tour_overshoots_then_counts_with_incr(seed):
    lab, frames = run_tour("rate-limit-race", seed)
    (race,) = events_of(frames["race"], "race_done")
    assert (race["admitted"], race["value"]) == (101, 100)
    (every,) = events_of(frames["every-ordering"], "orderings")
    assert (every["overshooting"], every["orderings"]) == (18, 20)
    (mode,) = frames["incr"][0][1]
    assert mode["order"] == ["A1", "B1", "A2", "B2"]  # the order its notice names
    (incr,) = events_of(frames["incr-race"], "race_done")
    assert (incr["admitted"], incr["value"]) == (100, 101)
    replies = {e["id"]: e["reply"] for e in events_of(frames["incr-race"], "step")}
    assert (replies["A1"], replies["B1"]) == ("(integer) 100", "(integer) 101")
    (safe,) = events_of(frames["incr-orderings"], "orderings")
    assert (safe["overshooting"], safe["orderings"]) == (0, 6)
    assert safe["by_admitted"] == [[100, 6]]
    assert lab.snapshot()["mode"] == "incr"


@pytest.mark.parametrize("seed", SEEDS)
def test_the_graph_traversal_tour_finds_the_course_answers_and_grows(seed):
    lab, frames = run_tour("graph-traversal", seed)
    (one_stop,) = events_of(frames["one-stop"], "question")
    assert (one_stop["mode"], one_stop["found"]) == ("paths", 1)
    (within,) = events_of(frames["within-three"], "question")
    assert (within["mode"], within["found"]) == ("ends", 7)
    (shortest,) = events_of(frames["fewest-to-sea"], "question")
    assert (shortest["mode"], shortest["touched"]) == ("shortest", 5)  # its notice
    (avoid,) = events_of(frames["avoid-ord"], "question")
    assert avoid["found"] == 4
    (grown,) = events_of(frames["grow"], "question")
    assert grown["touched"] == avoid["touched"]  # the same edges, a larger table
    shown = lab.snapshot()
    assert shown["graph"]["grown"] is True
    assert shown["before"]["touched"] == shown["question"]["traversal"]["touched"]
    assert shown["before"]["table_rows"] * 10 == shown["question"]["table_rows"]
    assert shown["question"]["sql"]["comparisons"] > shown["before"]["comparisons"]


@pytest.mark.parametrize("seed", SEEDS)
def test_the_replication_tour_reads_the_old_address_then_the_new_one(seed):
    lab, frames = run_tour("replication", seed)
    assert events_of(frames["burst"], "burst")[0]["count"] == 2_000
    (first,) = events_of(frames["read-from-c"], "op_completed")
    assert (first["server"], first["stale"]) == ("C", True)
    assert first["value"] == "ana.lopez@oldmail.example"
    assert first["expected"] == "ana.lopez@newmail.example"
    (again,) = events_of(frames["read-again"], "op_completed")
    assert (again["asked"], again["server"], again["stale"]) == ("C", "A", False)
    assert again["value"] == "ana.lopez+2@newmail.example"
    # what the last notice invites: kill the primary and promote C
    lab.apply("kill_primary", {})
    lab.apply("promote", {"server": "C"})
    assert lab.snapshot()["primary"] == "C"
