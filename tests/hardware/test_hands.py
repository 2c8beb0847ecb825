"""The hands model: the ordinary ways pieces get moved, as raw contact changes."""

from __future__ import annotations

import random

from tavola.hardware.hands import Habits, Hands, neighbours, settled

EMPTY3 = {"c3": "", "d3": "", "e3": "", "d2": "", "d4": ""}


def test_neighbours_on_lettered_and_coordinate_cells() -> None:
    assert neighbours("d3", EMPTY3) == ["c3", "d2", "d4", "e3"]
    assert neighbours("0,0", ["1,1", "2,0", "-1,0", "0,0"]) == ["-1,0", "1,1"]
    assert neighbours("pool", EMPTY3) == []


def test_a_tidy_placement_is_one_change() -> None:
    hands = Hands(EMPTY3, random.Random(0), Habits.tidy())
    hands.move(EMPTY3, {**EMPTY3, "d3": "W"})
    assert [(c, t) for _, c, t in hands.take_raw()] == [("d3", "W")]
    assert hands.board["d3"] == "W"


def test_a_slide_rests_on_free_cells_20_to_120_ms() -> None:
    hands = Hands(EMPTY3, random.Random(1), Habits.tidy().but(slide=1.0))
    hands.move(EMPTY3, {**EMPTY3, "d3": "W"})
    raw = hands.take_raw()
    assert raw[-1][1:] == ("d3", "W")
    rests = [(raw[i + 1][0] - raw[i][0]) for i in range(0, len(raw) - 1, 2)]
    assert rests and all(0.02 <= r <= 0.12 for r in rests)
    assert all(c != "d3" for _, c, _ in raw[:-1])


def test_a_piece_on_the_wrong_cell_is_moved_to_the_right_one() -> None:
    hands = Hands(EMPTY3, random.Random(2), Habits.tidy().but(wrong_cell=1.0))
    hands.move(EMPTY3, {**EMPTY3, "d3": "W"})
    raw = hands.take_raw()
    wrong = raw[0][1]
    assert wrong != "d3" and raw[0][2] == "W" and raw[-1][1:] == ("d3", "W")
    assert hands.board == {**EMPTY3, "d3": "W"}


def test_a_move_lifts_then_places_and_keeps_captured_pieces_if_asked() -> None:
    before = {**EMPTY3, "c3": "W", "d4": "B"}
    after = {**EMPTY3, "e3": "W"}
    hands = Hands(before, random.Random(3), Habits.tidy())
    hands.move(before, after, first="c3", keep=["d4"])
    assert hands.board == {**after, "d4": "B"}
    hands.lift_together(["d4"])
    assert hands.board == after


def test_a_dropout_puts_the_piece_back() -> None:
    board = {**EMPTY3, "d3": "W"}
    hands = Hands(board, random.Random(4), Habits.tidy().but(dropout=1.0))
    hands.fidget()
    raw = hands.take_raw()
    assert [t for _, _, t in raw] == ["", "W"] and 0.01 <= raw[1][0] - raw[0][0] <= 0.03
    assert hands.board == board


def test_the_same_seed_gives_the_same_hands() -> None:
    def run(seed: int) -> list[tuple[float, str, str]]:
        hands = Hands(EMPTY3, random.Random(seed))
        hands.move(EMPTY3, {**EMPTY3, "d3": "W"})
        hands.fidget()
        return hands.take_raw()

    assert run(5) == run(5)


def test_settled_filters_glitches_shorter_than_the_debounce() -> None:
    start = {"d3": ""}
    assert settled([(0.0, "d3", "W"), (0.004, "d3", "")], start, 0.005) == []
    snaps = settled([(0.0, "d3", "W")], start, 0.005, occupancy=True)
    assert snaps == [(0.005, {"d3": "#"})]
    # A cell that appears (a Quinque tile laid down) is reported from then on.
    assert settled([(1.0, "2,0", "R")], start, 0.005) == [(1.005, {"d3": "", "2,0": "R"})]
