"""The referee's correction checked, and board steps worded, without a session."""

from __future__ import annotations

import pytest

from tavola.correction import (
    Refused,
    differences,
    intended_actions,
    restore_steps,
    take_back_steps,
)
from tavola.games import new_game


def test_a_correction_is_checked_on_a_copy() -> None:
    g = new_game("morris")
    for text in ("d2", "a1"):
        g.apply(g.parse_move(text))
    assert [str(m) for m in intended_actions(g, 1, ["g7"])] == ["g7"]
    assert [str(m) for m in g.history] == ["d2", "a1"]


@pytest.mark.parametrize(("ply", "moves", "reason"), [
    (5, [], "There is no ply 5"),
    (1, ["d2"], "Illegal after ply 1"),
    (1, ["a1"], "nothing to correct"),
])
def test_a_correction_the_rules_refuse_says_why(ply: int, moves: list[str], reason: str) -> None:
    g = new_game("morris")
    for text in ("d2", "a1"):
        g.apply(g.parse_move(text))
    with pytest.raises(Refused, match=reason):
        intended_actions(g, ply, moves)


def test_restore_steps_name_each_cell_to_change() -> None:
    diffs = differences({"a1": "W", "b2": "", "c3": "B"}, {"a1": "", "b2": "B", "c3": "W",
                                                         "tray": "W"}, ["a1", "b2", "c3"])
    assert diffs == [("a1", "W", ""), ("b2", "", "B"), ("c3", "B", "W")]
    assert restore_steps(diffs, "identity") == "put W on a1, lift b2, put B on c3 instead of W"
    assert restore_steps(diffs[:1], "occupancy") == "put a piece on a1"


def test_take_back_steps_only_while_the_board_shows_the_last_action() -> None:
    g = new_game("morris")
    g.apply(g.parse_move("d2"))
    shown = g.view("occupancy")
    assert take_back_steps(g, "occupancy", shown) == "lift d2"
    assert take_back_steps(g, "occupancy", {**shown, "d2": ""}) == ""
    assert take_back_steps(g, "occupancy", None) == ""
