"""The paired harness of the benchmarks (benchmarks/timing.py): both sides warmed
before anything is timed, the order alternating A-B-B-A, the ratio case/peer."""

from benchmarks.timing import (
    MIN_PAIRS,
    WARM_UP,
    Measure,
    Recorded,
    Row,
    paired,
    paired_rows,
)


def logged(log: list[str], name: str, cost: float) -> Measure:
    """A side whose untimed runs log `name-warm` and timed runs `name`."""

    def measure() -> float:
        log.append(name)
        return cost

    return Measure(lambda: log.append(f"{name}-warm"), measure)


def test_both_sides_are_warmed_before_the_first_timed_call():
    log: list[str] = []
    paired(logged(log, "case", 1.0), logged(log, "peer", 1.0), MIN_PAIRS)
    first_timed = min(log.index("case"), log.index("peer"))
    warm_up = log[:first_timed]
    assert warm_up.count("peer-warm") == WARM_UP
    assert warm_up.count("case-warm") == WARM_UP
    assert "case-warm" not in log[first_timed:]
    assert "peer-warm" not in log[first_timed:]


def test_bare_callables_are_called_to_warm_them():
    log: list[str] = []

    def case() -> float:
        log.append("case")
        return 1.0

    def peer() -> float:
        log.append("peer")
        return 1.0

    result = paired(case, peer, MIN_PAIRS)
    assert log[: 2 * WARM_UP] == ["peer"] * WARM_UP + ["case"] * WARM_UP
    assert len(result.ratios) == MIN_PAIRS


def test_the_order_alternates_a_b_b_a():
    log: list[str] = []
    paired(logged(log, "case", 1.0), logged(log, "peer", 1.0), 6)
    timed = [entry for entry in log if not entry.endswith("-warm")]
    assert timed == ["peer", "case", "case", "peer"] * 3
    # neither side runs first more often than the other
    firsts = timed[::2]
    assert firsts.count("peer") == firsts.count("case")


def test_the_ratio_is_case_over_peer_in_every_pair():
    costs = iter([4.0, 1.0, 3.0, 12.0, 2.0, 1.0, 5.0, 10.0, 8.0, 2.0])
    case_costs, peer_costs = [], []

    def case() -> float:
        case_costs.append(next(costs))
        return case_costs[-1]

    def peer() -> float:
        peer_costs.append(next(costs))
        return peer_costs[-1]

    # warmed through their work, untimed: every cost drawn is a timed run's
    result = paired(Measure(lambda: None, case), Measure(lambda: None, peer))
    # pairs: peer 4 case 1, case 3 peer 12, peer 2 case 1, case 5 peer 10, peer 8 case 2
    assert result.ratios == (0.25, 0.25, 0.5, 0.5, 0.25)
    assert result.median == 0.25
    assert result.text() == "0.25x (0.25-0.50, 5 pairs)"


def test_fewer_pairs_than_the_minimum_are_raised_to_it():
    assert len(paired(lambda: 2.0, lambda: 1.0, 1).ratios) == MIN_PAIRS


def test_a_side_in_several_pairings_is_warmed_once():
    log: list[str] = []
    ours = logged(log, "ours", 1.0)
    paired(ours, logged(log, "a", 1.0))
    paired(ours, logged(log, "b", 1.0))
    assert log.count("ours-warm") == WARM_UP
    assert log.count("b-warm") == WARM_UP
    assert log.index("b-warm") < log.index("b")


def test_recorded_keeps_the_timed_runs_only_and_warms_every_floor_variant():
    calls = {"floor loop": 0, "floor map": 0, "ours": 0}

    def work(name):
        def run():
            calls[name] += 1

        return run

    runs = Recorded()
    floor = runs.fastest(
        runs.cpu("floor loop", work("floor loop")),
        runs.cpu("floor map", work("floor map")),
    )
    ratio = paired(runs.cpu("ours", work("ours")), floor, MIN_PAIRS)
    assert len(ratio.ratios) == MIN_PAIRS
    for name in calls:
        assert calls[name] == WARM_UP + MIN_PAIRS
        assert len(runs.runs[name]) == MIN_PAIRS  # warm-up runs not recorded
        assert runs.timing(name).cpu >= 0


def test_paired_rows_warms_both_sides_and_reports_the_case_over_the_peer():
    calls = {"case": 0, "peer": 0}

    def case():
        calls["case"] += 1
        sum(range(20_000))

    def peer():
        calls["peer"] += 1
        sum(range(10_000))

    title, row = paired_rows("title", "case / peer", case, peer, 10, 100.0)
    assert title.startswith("title (load ")
    assert isinstance(row, Row)
    assert calls == {"case": WARM_UP + MIN_PAIRS, "peer": WARM_UP + MIN_PAIRS}
    assert row.ratio.endswith(f"{MIN_PAIRS} pairs)")
    assert row.passed is True
