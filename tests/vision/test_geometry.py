"""The board model of BOARD.md: cells, area and markers in cell units."""

from __future__ import annotations

import pytest

from tavola.games import new_game
from tavola.vision.geometry import MARKER_SIDE, QUIET, geometry_for


def test_a1_is_bottom_left_and_names_follow_the_first_players_view() -> None:
    g = geometry_for("tessere")
    assert g.cell_center("a1") == (0.5, 4.5)
    assert g.cell_center("e5") == (4.5, 0.5)
    assert g.cell_rect("b1") == (1.0, 4.0, 2.0, 5.0)


def test_markers_sit_diagonally_off_each_corner_with_the_quiet_zone() -> None:
    g = geometry_for("draughts")
    assert g.marker(0)[2] == (-QUIET, -QUIET)  # its bottom-right corner nears a8's corner
    assert g.marker(1)[3] == (8 + QUIET, -QUIET)
    assert g.marker(2)[0] == (8 + QUIET, 8 + QUIET)
    assert g.marker(3)[1] == (-QUIET, 8 + QUIET)  # beyond a1
    for i in range(4):
        (x0, y0), (x1, _), (_, y2), _ = g.marker(i)
        assert x1 - x0 == pytest.approx(MARKER_SIDE) and y2 - y0 == pytest.approx(MARKER_SIDE)


def test_quinques_markers_are_sized_in_tiles() -> None:
    """BOARD.md: the table area's markers are at least 0.8 tile (a tile is 2x2 skydivers,
    the geometry's unit), set a quarter tile off the area's corners."""
    g = geometry_for("quinque")
    assert g.marker_side == pytest.approx(1.6) and g.quiet == pytest.approx(0.5)
    assert g.marker(2)[0] == (16.5, 16.5)
    (x0, _), (x1, _), _, _ = g.marker(0)
    assert x0 == pytest.approx(-2.1) and x1 == pytest.approx(-0.5)
    assert g.extent(0.0)[0] == pytest.approx(-2.1)


@pytest.mark.parametrize("game", ["morris", "draughts", "quixo", "tessere", "sequence-kids"])
def test_every_cell_a_game_reports_is_on_its_board(game: str) -> None:
    g = geometry_for(game)
    assert set(new_game(game).view()) == set(g.cells)
    for cell in g.cells:
        x0, y0, x1, y1 = g.cell_rect(cell)
        assert 0 <= x0 < x1 <= g.files and 0 <= y0 < y1 <= g.ranks


def test_unknown_cells_and_games_are_named() -> None:
    with pytest.raises(ValueError, match="'f1' is not on the 5x5 quixo board"):
        geometry_for("quixo").cell_rect("f1")
    with pytest.raises(ValueError, match="no board geometry for 'chess'"):
        geometry_for("chess")
