"""The clock's arithmetic in every mode, its events, its records and the timer LED colours."""

from __future__ import annotations

import json

import pytest

from tavola.clock import (
    Clock,
    ClockSpec,
    ClockSpecError,
    LowTime,
    TimeOut,
    timer_colours,
)
from tavola.feedback import AMBER, GREEN, OFF, RED


# --------------------------------------------------------------------- spec
@pytest.mark.parametrize(
    ("kwargs", "key"),
    [
        ({"mode": "blitz"}, "mode"),
        ({"mode": "move"}, "move_seconds"),
        ({"mode": "sudden-death"}, "minutes"),
        ({"mode": "fischer", "minutes": 5, "increment": -1}, "increment"),
        ({"mode": "moves-in-time", "minutes": 90}, "moves"),
        ({"mode": "moves-in-time", "minutes": 90, "moves": 40, "then_moves": -1}, "then_moves"),
        ({"mode": "sudden-death", "minutes": float("nan")}, "minutes"),
        ({"mode": "sudden-death", "minutes": True}, "minutes"),
    ],
)
def test_spec_errors_name_the_field(kwargs: dict[str, object], key: str) -> None:
    with pytest.raises(ClockSpecError) as err:
        ClockSpec(**kwargs)  # type: ignore[arg-type]
    assert err.value.key == key
    assert key in str(err.value)


def test_spec_round_trips() -> None:
    spec = ClockSpec("moves-in-time", minutes=90, increment=30, moves=40, then_minutes=30)
    assert ClockSpec.from_dict(json.loads(json.dumps(spec.to_dict()))) == spec


# --------------------------------------------------------------------- modes
def test_none_has_nothing_to_time() -> None:
    c = Clock(ClockSpec())
    c.start(0, 0.0)
    assert not c.active
    assert c.remaining(0, 1000.0) is None
    assert c.move_remaining(1000.0) is None
    assert c.tick(1000.0) == []
    assert c.display(1000.0) is None


def test_move_limit_resets_every_turn() -> None:
    c = Clock(ClockSpec("move", move_seconds=60))
    c.start(0, 10.0)
    assert c.move_remaining(40.0) == 30.0
    c.switch(1, 55.0)
    assert c.turn == 1
    assert c.move_remaining(55.0) == 60.0
    assert c.move_remaining(100.0) == 15.0
    assert c.remaining(1, 100.0) is None


def test_game_move_limit_alone_and_the_shorter_of_two() -> None:
    alone = Clock(ClockSpec(), game_move_seconds=60.0)
    alone.start(0, 0.0)
    assert alone.active and alone.move_limit == 60.0
    both = Clock(ClockSpec("move", move_seconds=30), game_move_seconds=60.0)
    assert both.move_limit == 30.0
    combined = Clock(ClockSpec("sudden-death", minutes=5), game_move_seconds=60.0)
    assert combined.move_limit == 60.0
    assert combined.spec.has_game_clock


def test_sudden_death_charges_only_the_runner() -> None:
    c = Clock(ClockSpec("sudden-death", minutes=5))
    c.start(0, 100.0)
    assert c.remaining(0, 130.0) == 270.0
    assert c.remaining(1, 130.0) == 300.0
    c.switch(1, 130.0)
    assert c.remaining(0, 500.0) == 270.0
    assert c.remaining(1, 150.5) == 279.5
    c.switch(0, 200.0)
    assert (c.remaining(0, 200.0), c.remaining(1, 200.0)) == (270.0, 230.0)
    assert (c.moves(0), c.moves(1)) == (1, 1)


def test_fischer_adds_the_increment_after_each_move() -> None:
    c = Clock(ClockSpec("fischer", minutes=3, increment=2))
    c.start(0, 0.0)
    c.switch(1, 10.0)  # 180 - 10 + 2
    assert c.remaining(0, 10.0) == 172.0
    c.switch(0, 11.0)  # 180 - 1 + 2: may exceed the start
    assert c.remaining(1, 11.0) == 181.0
    c.switch(1, 11.5)
    assert c.remaining(0, 11.5) == 173.5


def test_takeback_switch_gives_no_increment_and_counts_no_move() -> None:
    c = Clock(ClockSpec("fischer", minutes=3, increment=2))
    c.start(0, 0.0)
    c.switch(1, 10.0)
    c.switch(0, 14.0, completed=False)
    assert c.remaining(1, 14.0) == 176.0
    assert c.moves(1) == 0 and c.moves(0) == 1


def test_moves_in_time_rolls_over_to_the_next_periods() -> None:
    spec = ClockSpec("moves-in-time", minutes=2, moves=2, then_minutes=1, then_moves=1)
    c = Clock(spec)
    c.start(0, 0.0)
    now = 0.0
    # Each player spends 10 s on each move.
    for _ in range(2):
        for nxt in (1, 0):
            now += 10.0
            c.switch(nxt, now)
    # After 2 moves each: 120 - 20 + 60.
    assert c.remaining(0, now) == 160.0
    assert c.remaining(1, now) == 160.0
    now += 10.0
    c.switch(1, now)  # move 3 ends a later period of 1 move: + 60 again
    assert c.remaining(0, now) == 210.0
    assert c.moves(0) == 3


def test_moves_in_time_then_sudden_death_with_increment() -> None:
    spec = ClockSpec("moves-in-time", minutes=1, moves=1, then_minutes=0.5, increment=5)
    c = Clock(spec)
    c.start(0, 0.0)
    c.switch(1, 20.0)  # 60 - 20 + 5 + 30
    assert c.remaining(0, 20.0) == 75.0
    c.switch(0, 21.0)
    c.switch(1, 31.0)  # then_moves 0: no more periods, only the increment
    assert c.remaining(0, 31.0) == 70.0


def test_pause_freezes_both_timers() -> None:
    c = Clock(ClockSpec("sudden-death", minutes=1), game_move_seconds=30.0)
    c.start(0, 0.0)
    c.pause(10.0)
    c.pause(12.0)  # idempotent
    assert not c.running
    assert c.remaining(0, 500.0) == 50.0
    assert c.move_remaining(500.0) == 20.0
    assert c.tick(500.0) == []
    c.resume(500.0)
    c.resume(501.0)  # idempotent: does not restart the count
    assert c.remaining(0, 505.0) == 45.0
    assert c.move_remaining(505.0) == 15.0


# --------------------------------------------------------------------- events
def test_move_timeout_fires_once_per_turn_with_one_warning() -> None:
    c = Clock(ClockSpec("move", move_seconds=60))
    c.start(0, 0.0)
    assert c.tick(49.0) == []
    assert c.tick(50.0) == [LowTime(0, "move", 10.0)]
    assert c.tick(55.0) == []
    assert c.tick(60.0) == [TimeOut(0, "move")]
    assert c.tick(61.0) == []
    assert c.move_remaining(90.0) == 0.0
    c.switch(1, 90.0)
    assert c.tick(90.0) == []
    assert c.tick(150.0) == [TimeOut(1, "move")]  # a jump past the warning: only the expiry


def test_a_short_move_limit_does_not_warn_at_once() -> None:
    c = Clock(ClockSpec("move", move_seconds=8))
    c.start(0, 0.0)
    assert c.tick(1.0) == []
    assert c.tick(8.0) == [TimeOut(0, "move")]


def test_the_next_tick_reports_an_expiry_found_by_switch() -> None:
    c = Clock(ClockSpec("sudden-death", minutes=0.25), game_move_seconds=12.0)
    c.start(0, 0.0)
    c.switch(1, 16.0)  # player 0's move and game time ran out before any tick
    assert c.tick(16.0) == [TimeOut(0, "move"), TimeOut(0, "game")]
    assert c.tick(17.0) == []
    assert c.flagged(0) and c.remaining(0, 17.0) == 0.0


def test_game_timeout_fires_once_and_the_player_stays_at_zero() -> None:
    c = Clock(ClockSpec("fischer", minutes=1, increment=10))
    c.start(0, 0.0)
    assert c.tick(52.0) == [LowTime(0, "game", 8.0)]
    assert c.tick(60.0) == [TimeOut(0, "game")]
    assert c.flagged(0)
    c.switch(1, 70.0)
    assert c.tick(70.0) == []
    assert c.remaining(0, 70.0) == 0.0  # no increment for a flagged player
    c.switch(0, 71.0)
    assert c.tick(200.0) == []


def test_increment_rearms_the_low_time_warning() -> None:
    c = Clock(ClockSpec("fischer", minutes=0.25, increment=10))
    c.start(0, 0.0)
    assert c.tick(6.0) == [LowTime(0, "game", 9.0)]
    c.switch(1, 6.0)  # 9 + 10 = 19 s: above the warning again
    c.switch(0, 7.0)
    assert c.tick(16.0) == [LowTime(0, "game", 10.0)]


# --------------------------------------------------------------------- records
def test_round_trip_restores_times_and_down_time_is_free() -> None:
    c = Clock(ClockSpec("fischer", minutes=5, increment=3), game_move_seconds=60.0)
    c.start(0, 0.0)
    c.switch(1, 20.0)
    c.tick(71.0)  # player 1's move warning fired
    state = json.loads(json.dumps(c.to_dict(75.0)))
    back = Clock.from_dict(state, now=9000.0)
    assert back.running and back.turn == 1
    assert back.remaining(0, 9000.0) == 283.0
    assert back.remaining(1, 9000.0) == 245.0
    assert back.move_remaining(9005.0) == 0.0
    assert back.moves(0) == 1
    assert back.tick(9005.0) == [TimeOut(1, "move")]  # the warning is not repeated


def test_restored_paused_clock_stays_paused() -> None:
    c = Clock(ClockSpec("sudden-death", minutes=1))
    c.start(1, 0.0)
    c.pause(5.0)
    back = Clock.from_dict(c.to_dict(5.0), now=100.0)
    assert not back.running
    assert back.remaining(1, 200.0) == 55.0
    unstarted = Clock(ClockSpec("sudden-death", minutes=1)).to_dict(0.0)
    assert Clock.from_dict(unstarted, now=9.0).turn is None


def test_from_dict_rejects_a_wrong_player_count() -> None:
    state = Clock(ClockSpec("sudden-death", minutes=1)).to_dict(0.0)
    state["left"] = [60.0]
    with pytest.raises(ValueError, match="2 players"):
        Clock.from_dict(state)
    with pytest.raises(ValueError, match=r"unreadable clock state \(KeyError"):
        Clock.from_dict({"spec": {"mode": "none"}})


def test_display_picks_the_more_urgent_timer() -> None:
    c = Clock(ClockSpec("sudden-death", minutes=2), game_move_seconds=60.0)
    assert c.display(0.0) is None
    c.start(0, 0.0)
    shown = c.display(15.0)
    assert shown is not None
    assert (shown.kind, shown.fraction_left, shown.seconds_left) == ("move", 0.75, 45.0)
    c.switch(1, 15.0)
    c.switch(0, 16.0)
    c.switch(1, 76.0)  # player 0: 120 - 15 - 60 = 45 s, player 1: 118
    c.switch(0, 77.0)
    shown = c.display(77.0)
    assert shown is not None
    assert (shown.kind, shown.seconds_left, shown.fraction_left) == ("game", 45.0, 0.375)


# --------------------------------------------------------------------- LEDs
def test_colour_thresholds_and_proportional_run() -> None:
    assert timer_colours(1.0, 60.0, 4, 0.0) == (GREEN,) * 4
    assert timer_colours(0.51, 60.0, 4, 0.0) == (GREEN, GREEN, GREEN, OFF)
    assert timer_colours(0.5, 60.0, 4, 0.0) == (AMBER, AMBER, OFF, OFF)
    assert timer_colours(0.21, 60.0, 4, 0.0) == (AMBER, OFF, OFF, OFF)
    assert timer_colours(0.2, 60.0, 4, 0.0) == (RED, OFF, OFF, OFF)
    assert timer_colours(0.3, 60.0, 10, 0.0) == (AMBER,) * 3 + (OFF,) * 7
    assert timer_colours(0.001, 60.0, 10, 0.0) == (RED,) + (OFF,) * 9
    assert timer_colours(0.5, 60.0, 0, 0.0) == ()


def test_last_ten_seconds_are_red_and_blink_at_two_hertz() -> None:
    # 0.9 of a 11 s limit would be green; at 9.9 s it is red and blinks.
    on = timer_colours(0.9, 9.9, 2, 100.0)
    assert on == (RED, RED)
    assert timer_colours(0.9, 9.9, 2, 100.2) == (RED, RED)
    assert timer_colours(0.9, 9.9, 2, 100.25) == (OFF, OFF)
    assert timer_colours(0.9, 9.9, 2, 100.49) == (OFF, OFF)
    assert timer_colours(0.9, 9.9, 2, 100.5) == (RED, RED)
    assert timer_colours(0.9, 10.1, 2, 100.25) == (GREEN, GREEN)  # not yet blinking


def test_time_up_blinks_the_whole_run() -> None:
    assert timer_colours(0.0, 0.0, 3, 0.0) == (RED,) * 3
    assert timer_colours(0.0, 0.0, 3, 0.3) == (OFF,) * 3
