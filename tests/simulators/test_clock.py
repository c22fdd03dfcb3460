"""The virtual clock and the event queue: integers decide order; no going back."""

import pytest

from simulators.engine import EventQueue, VirtualClock


def test_a_new_clock_starts_at_zero_and_moves_only_when_told():
    clock = VirtualClock()
    assert clock.now_ms == 0
    assert clock.advance(250) == 250
    assert clock.advance(0) == 250
    assert clock.now_ms == 250


def test_the_clock_refuses_to_move_backwards():
    clock = VirtualClock()
    clock.advance(10)
    with pytest.raises(ValueError):
        clock.advance(-1)
    assert clock.now_ms == 10


@pytest.mark.parametrize("ms", [1.5, "5", None, True])
def test_the_clock_moves_only_by_whole_milliseconds(ms):
    clock = VirtualClock()
    with pytest.raises((TypeError, ValueError)):
        clock.advance(ms)
    assert clock.now_ms == 0


def test_events_come_out_by_time_then_priority_then_insertion():
    queue = EventQueue()
    queue.schedule(30, "late")
    queue.schedule(10, "early, low priority", priority=5)
    queue.schedule(10, "early, high priority", priority=1)
    queue.schedule(20, "middle")
    due = [item.event for item in queue.pop_due(100)]
    assert due == ["early, high priority", "early, low priority", "middle", "late"]


def test_events_at_the_same_moment_and_priority_keep_their_insertion_order():
    queue = EventQueue()
    names = [f"event {i}" for i in range(50)]
    for name in names:
        queue.schedule(7, name)
    assert [item.event for item in queue.pop_due(7)] == names


def test_unorderable_events_never_need_comparing():
    queue = EventQueue()
    queue.schedule(5, {"a": 1})
    queue.schedule(5, {"b": 2})
    assert [item.event for item in queue.pop_due(5)] == [{"a": 1}, {"b": 2}]


def test_pop_due_takes_only_what_is_due_and_leaves_the_clock_alone():
    queue = EventQueue()
    queue.schedule(5, "due")
    queue.schedule(6, "not yet")
    assert [item.event for item in queue.pop_due(5)] == ["due"]
    assert len(queue) == 1
    assert queue.peek_time() == 6
    assert queue.clock.now_ms == 0


def test_peek_time_is_none_on_an_empty_queue():
    assert EventQueue().peek_time() is None


def test_delays_count_from_the_current_virtual_time():
    clock = VirtualClock()
    queue = EventQueue(clock)
    clock.advance(100)
    assert queue.schedule(25, "x") == 125


def test_run_until_sets_the_clock_to_each_event_and_then_to_the_end():
    queue = EventQueue()
    seen = []
    queue.schedule(10, "a")
    queue.schedule(40, "b")
    queue.schedule(90, "after the window")
    ran = queue.run_until(50, lambda event: seen.append((queue.clock.now_ms, event)))
    assert ran == 2
    assert seen == [(10, "a"), (40, "b")]
    assert queue.clock.now_ms == 50
    assert len(queue) == 1


def test_run_until_runs_events_scheduled_during_the_run_inside_the_window():
    queue = EventQueue()
    seen = []

    def handle(event):
        seen.append((queue.clock.now_ms, event))
        if event == "ping":
            queue.schedule(5, "pong")  # at 15, inside the window
            queue.schedule(0, "echo")  # same moment, after what is already queued
            queue.schedule(500, "too late")

    queue.schedule(10, "ping")
    queue.schedule(10, "second at ten")
    ran = queue.run_until(20, handle)
    assert seen == [(10, "ping"), (10, "second at ten"), (10, "echo"), (15, "pong")]
    assert ran == 4
    assert queue.peek_time() == 510


def test_run_until_a_time_in_the_past_does_not_move_the_clock_back():
    queue = EventQueue()
    queue.clock.advance(100)
    assert queue.run_until(50, lambda event: None) == 0
    assert queue.clock.now_ms == 100


@pytest.mark.parametrize("delay", [-1, 1.5, "10", None, True])
def test_bad_delays_are_refused_and_queue_nothing(delay):
    queue = EventQueue()
    with pytest.raises((TypeError, ValueError)):
        queue.schedule(delay, "x")
    assert len(queue) == 0


@pytest.mark.parametrize("priority", [0.5, "1", None, False])
def test_priorities_are_integers_too(priority):
    queue = EventQueue()
    with pytest.raises((TypeError, ValueError)):
        queue.schedule(1, "x", priority=priority)
    assert len(queue) == 0


@pytest.mark.parametrize("until", [10.5, "10", None])
def test_run_until_needs_an_integer_time(until):
    queue = EventQueue()
    queue.schedule(1, "x")
    with pytest.raises((TypeError, ValueError)):
        queue.run_until(until, lambda event: None)
    assert queue.clock.now_ms == 0
    assert len(queue) == 1
