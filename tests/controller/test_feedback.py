"""The LED palette: one meaning per colour, priorities, blinking, timer run, layout indices."""

from __future__ import annotations

from tavola.feedback import (
    BLUE,
    CYAN,
    DIM_RED,
    GOLD,
    GREEN,
    OFF,
    RED,
    WHITE,
    Scene,
    Strip,
    blink_on,
    cell_colours,
    render,
)

# Three cells wired in reverse order, then a two-LED timer run.
STRIP = Strip(5, {"a1": 2, "b1": 1, "c1": 0}, (3, 4))


def test_each_meaning_has_its_colour_at_the_layouts_led() -> None:
    scene = Scene(lifted=frozenset({"a1"}), targets=frozenset({"b1"}),
                  last_move=frozenset({"c1"}))
    assert render(STRIP, scene, now=0.0) == (GREEN, WHITE, CYAN, OFF, OFF)


def test_more_important_meanings_win_a_shared_cell() -> None:
    scene = Scene(targets=frozenset({"a1"}), last_move=frozenset({"a1"}),
                  winning=frozenset({"a1", "b1"}), error=frozenset({"b1"}))
    colours = cell_colours(scene, now=0.0)
    assert colours == {"a1": GOLD, "b1": RED}


def test_a_hint_asked_for_shows_over_the_last_move() -> None:
    # A draughts hint that captures the man just moved shares its cell with the last move.
    scene = Scene(last_move=frozenset({"a1", "b1"}), hint=frozenset({"b1", "c1"}))
    assert cell_colours(scene, now=0.0) == {"a1": GREEN, "b1": BLUE, "c1": BLUE}


def test_errors_and_candidates_blink_at_two_hertz() -> None:
    assert blink_on(0.0) and blink_on(0.2) and not blink_on(0.3) and blink_on(0.5)
    scene = Scene(error=frozenset({"a1"}), candidates=frozenset({"b1"}))
    assert render(STRIP, scene, 0.1)[1:3] == (WHITE, RED)
    assert render(STRIP, scene, 0.35)[1:3] == (OFF, OFF)


def test_timer_run_and_cells_outside_the_layout() -> None:
    scene = Scene(targets=frozenset({"z9"}), timer=((1, 2, 3), (4, 5, 6)))
    assert render(STRIP, scene, 0.0) == (OFF, OFF, OFF, (1, 2, 3), (4, 5, 6))


def test_a_lost_sensor_dims_every_cell_red_under_the_other_meanings() -> None:
    scene = Scene(disconnected=True, last_move=frozenset({"c1"}))
    assert render(STRIP, scene, 0.0) == (
        GREEN, DIM_RED, DIM_RED, OFF, OFF)
