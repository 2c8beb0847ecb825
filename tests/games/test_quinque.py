"""Quinque: the rules of RULES.md section 4, one test per rule, edge case and parameter.

Positions are set up with ``set_position``; tiles and skydivers are written "x,y". Tile
(x, y) holds skydivers (2x+i, 2y+j). Expected move sets were worked out by hand from the
pictures in the comments, not copied from the engine.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from tavola.games import Game, IllegalMoveError, Reason, legal_turns, new_game, perft
from tavola.games.quinque import AddTile, Mark, Pass, Quinque, TileMove

RED, ORANGE = "R", "O"  # backpack tokens of the view


def position(
    tiles: list[str],
    backpacks: dict[str, str] | None = None,
    *,
    player: int = 0,
    phase: str = "first",
    marked: str | None = None,
    left: list[int] | None = None,
    tiles_left: int | None = None,
    **params: Any,
) -> Quinque:
    game = Quinque(**params)
    state: dict[str, Any] = {
        "tiles": tiles,
        "backpacks": backpacks or {},
        "player": player,
        "phase": phase,
        "marked": marked,
    }
    if left is not None:
        state["backpacks_left"] = left
    if tiles_left is not None:
        state["tiles_left"] = tiles_left
    game.set_position(state)
    return game


def play(game: Game[Any], *moves: str) -> None:
    for text in moves:
        game.apply(game.parse_move(text))


def texts(game: Game[Any], kind: type | None = None) -> set[str]:
    return {str(m) for m in game.legal_moves() if kind is None or isinstance(m, kind)}


def moves_of(game: Game[Any], tile: str) -> set[str]:
    return {t for t in texts(game, TileMove) if t.startswith(tile + ">")}


def tiles_of(game: Game[Any]) -> set[str]:
    return set(game.to_dict()["state"]["tiles"])


# ------------------------------------------------------------------ opening (4.3 row 1)
def test_opening_one_backpack_by_red_then_orange_plays_first() -> None:
    g = new_game("quinque")
    assert g.current_player == 0
    # Only the four skydivers of the first tile can be marked; nothing else.
    assert texts(g) == {"m 0,0", "m 1,0", "m 0,1", "m 1,1"}
    play(g, "m 1,0")
    assert g.current_player == 1
    assert g.to_dict()["state"]["backpacks_left"] == [17, 18]
    assert g.to_dict()["state"]["phase"] == "first"
    # Orange's first regular turn: marks and new tiles are open to her.
    assert "m 0,0" in texts(g) and "t 2,0" in texts(g)


def test_opening_each_player_marks_the_first_tile_then_red_plays_first() -> None:
    g = new_game("quinque", opening="each")
    play(g, "m 0,0")
    assert g.current_player == 1
    # Orange's opening action is a mark on the first tile only: no new tile, no move.
    assert texts(g) == {"m 1,0", "m 0,1", "m 1,1"}
    with pytest.raises(IllegalMoveError, match="opens with a backpack on the first tile"):
        play(g, "t 2,0")
    play(g, "m 1,1")
    assert g.current_player == 0
    assert g.to_dict()["state"]["phase"] == "first"
    assert g.view() == {"0,0": RED, "1,0": ".", "0,1": ".", "1,1": ORANGE}
    assert g.to_dict()["state"]["backpacks_left"] == [17, 17]


def test_opening_parameter_is_checked() -> None:
    with pytest.raises(ValueError, match="opening"):
        new_game("quinque", opening="two")


# ------------------------------------------------------------------ geometry (row 2)
def test_tile_x_y_holds_skydivers_2x_to_2x_plus_1() -> None:
    g = position(["0,0", "1,0", "1,-1"])
    cells = set(g.view())
    assert {"2,0", "3,0", "2,1", "3,1"} <= cells  # tile (1,0)
    assert {"2,-2", "3,-2", "2,-1", "3,-1"} <= cells  # tile (1,-1)
    assert len(cells) == 12
    assert AddTile((-1, -2)).tile == (-1, -1)
    assert AddTile((5, 2)).tile == (2, 1)


def test_new_tile_cell_follows_the_skydiver() -> None:
    g = new_game("quinque")
    play(g, "m 0,0", "t -1,1")
    # Skydiver (-1,1) lies on tile (-1,0): skydivers -2..-1 by 0..1.
    assert tiles_of(g) == {"0,0", "-1,0"}
    view = g.view()
    assert {c: view[c] for c in ("-2,0", "-1,0", "-2,1", "-1,1")} == {
        "-2,0": ".", "-1,0": ".", "-2,1": ".", "-1,1": ORANGE,
    }
    assert len(view) == 8


# ------------------------------------------------------------------ adding (row 3)
def test_a_new_tile_must_share_an_edge() -> None:
    g = new_game("quinque")
    play(g, "m 0,0")
    adds = texts(g, AddTile)
    # 4 edge neighbours of tile (0,0), 4 skydivers each.
    assert len(adds) == 16
    assert {"t 2,0", "t 3,1", "t -1,0", "t 0,-1", "t 1,3"} <= adds
    # Tile (1,1) only touches (0,0) at a corner.
    assert "t 2,2" not in adds
    with pytest.raises(IllegalMoveError, match="must share an edge"):
        play(g, "t 2,2")


def test_adding_onto_a_tile_or_marking_off_the_table_is_explained() -> None:
    g = new_game("quinque")
    play(g, "m 0,0")
    assert "already on the table" in g.explain(g.parse_move("t 1,1"))
    assert "no tile under skydiver 2,0" in g.explain(g.parse_move("m 2,0"))
    assert "already carries a red backpack" in g.explain(g.parse_move("m 0,0"))


# ------------------------------------------------------------------ pass over (row 4)
# A row of tiles 0..2 along y=0:   [A][B][C]   A moves to 3,0 over B and C.
def test_basic_moves_pass_over_tiles_by_default() -> None:
    g = position(["0,0", "1,0", "2,0"])
    assert moves_of(g, "0,0") == {"0,0>3,0", "0,0>1,1", "0,0>1,-1"}
    play(g, "0,0>3,0")
    assert tiles_of(g) == {"1,0", "2,0", "3,0"}


def test_pass_over_false_stops_at_the_first_tile() -> None:
    g = position(["0,0", "1,0", "2,0"], pass_over=False)
    assert moves_of(g, "0,0") == {"0,0>1,1", "0,0>1,-1"}
    assert "pass over tile 1,0" in g.explain(g.parse_move("0,0>3,0"))


# ------------------------------------------------------------------ transit (row 5)
# .  .  .  .        (0,3) is free and touches (1,3)
# .  X  X  .        tiles (1,3) (2,3)
# .  .  X  .        (2,2)
# .  .  X  .        (2,1)
# A  X  X  .        A = (0,0), (1,0), (2,0)
def test_only_the_final_position_is_checked_not_the_way_there() -> None:
    tiles = ["0,0", "1,0", "2,0", "2,1", "2,2", "2,3", "1,3"]
    for pass_over in (True, False):
        g = position(tiles, pass_over=pass_over)
        # On its way A crosses (0,1) and (0,2), which touch no tile once A is lifted.
        assert "0,0>0,3" in moves_of(g, "0,0")
        play(g, "0,0>0,3")
        assert tiles_of(g) == {"1,0", "2,0", "2,1", "2,2", "2,3", "1,3", "0,3"}


# ------------------------------------------------------------------ connectivity
# X  .  X      (0,1) (2,1)
# X  T  X      (0,0) T=(1,0) (2,0): T joins the two columns
def test_a_move_that_splits_the_cluster_is_illegal_but_one_that_rejoins_it_is_legal() -> None:
    g = position(["0,0", "0,1", "1,0", "2,0", "2,1"])
    # Only (1,1) touches both columns again; (3,0) in its row would leave the left one alone.
    assert moves_of(g, "1,0") == {"1,0>1,1"}
    assert "split the tiles" in g.explain(g.parse_move("1,0>3,0"))
    assert "touch no other tile" in g.explain(g.parse_move("1,0>1,-1"))


def test_a_tile_may_not_end_touching_only_its_old_place() -> None:
    g = position(["0,0", "1,0"])
    # Tile (0,0): (-1,0) touches only the cell it leaves; (2,0) touches (1,0).
    assert moves_of(g, "0,0") == {"0,0>2,0", "0,0>1,1", "0,0>1,-1"}


def test_a_lone_tile_cannot_move() -> None:
    g = position(["0,0"], {"0,0": RED}, player=1)
    assert not texts(g, TileMove)
    assert "lone tile" in g.explain(g.parse_move("0,0>1,0"))


# ------------------------------------------------------------------ closed tiles
def test_a_tile_closed_on_all_four_sides_cannot_move() -> None:
    block = [f"{x},{y}" for x in range(3) for y in range(3)]
    g = position(block)
    assert moves_of(g, "1,1") == set()
    assert "closed on all four sides" in g.explain(g.parse_move("1,1>1,3"))
    # A corner of the same block can move: along its row over two tiles to (3,0).
    assert "0,0>3,0" in moves_of(g, "0,0")


def test_three_closed_sides_are_not_closed() -> None:
    g = position(["0,0", "1,0", "2,0", "1,1"])
    # Tile (1,0) has 3 neighbours; lifting it splits (0,0) and (2,0) from (1,1), so it has
    # no move here, but the reason is the split, not closure.
    assert "closed" not in g.explain(g.parse_move("1,0>1,-1"))


# ------------------------------------------------------------------ marked this turn
def test_a_tile_marked_this_turn_cannot_move_in_the_second_action() -> None:
    g = position(["0,0", "1,0", "2,0"])
    play(g, "m 0,0")
    assert g.current_player == 0  # the turn goes on
    assert moves_of(g, "0,0") == set()
    assert moves_of(g, "2,0") == {"2,0>-1,0", "2,0>1,1", "2,0>1,-1"}
    assert "marked this turn" in g.explain(g.parse_move("0,0>3,0"))
    # Next turn Orange may move it.
    play(g, "pass")
    assert g.current_player == 1
    assert "0,0>3,0" in moves_of(g, "0,0")


def test_a_tile_added_this_turn_cannot_move() -> None:
    g = position(["0,0", "1,0"])
    play(g, "t 4,0")  # adds tile (2,0)
    assert moves_of(g, "2,0") == set()
    assert "0,0>3,0" in moves_of(g, "0,0")


def test_a_tile_moved_in_the_first_action_may_move_again() -> None:
    g = position(["0,0", "1,0", "2,0"])
    play(g, "0,0>3,0")
    assert g.current_player == 0
    assert "3,0>0,0" in moves_of(g, "3,0")
    play(g, "3,0>0,0")
    assert g.current_player == 1


# ------------------------------------------------------------------ turn structure
def test_second_action_is_a_move_or_pass_only() -> None:
    g = position(["0,0", "1,0"])
    play(g, "m 0,0")
    legal = g.legal_moves()
    assert all(isinstance(m, (TileMove, Pass)) for m in legal)
    assert Pass() in legal
    assert "second action can only move a tile" in g.explain(g.parse_move("m 1,0"))
    play(g, "1,0>-1,0")
    assert g.current_player == 1


def test_pass_is_not_a_first_action_while_something_can_be_done() -> None:
    g = position(["0,0", "1,0"])
    assert Pass() not in g.legal_moves()
    assert "take a first action" in g.explain(Pass())


# ------------------------------------------------------------------ advanced movement
# T=(0,0) and its neighbourhood:
#  .  X  .        (1,1) (2,1)
#  T  X  X  X     (1,0) (2,0) (3,0)
#  .  X  X        (1,-1) (2,-1)
# Basic moves of T: (0,1) and (0,-1) (one step, touching (1,1) / (1,-1)); (4,0) along the
# row over three tiles; (2,2) and (2,-2) along the diagonals, touching (2,1) / (2,-1).
ADVANCED = ["0,0", "1,0", "2,0", "3,0", "1,1", "1,-1", "2,1", "2,-1"]
T_CELLS = ["0,0", "1,0", "0,1", "1,1"]
STEPS = {"0,0>0,1", "0,0>0,-1"}
ROW = {"0,0>4,0"}
DIAGONALS = {"0,0>2,2", "0,0>2,-2"}


@pytest.mark.parametrize(
    ("count", "expected"),
    [
        (1, STEPS),
        (2, STEPS | ROW),
        (3, DIAGONALS),
        (4, STEPS | ROW | DIAGONALS),
    ],
)
def test_advanced_movement_by_backpack_count(count: int, expected: set[str]) -> None:
    colours = [RED, ORANGE, ORANGE, RED]  # colours do not matter
    g = position(ADVANCED, dict(zip(T_CELLS[:count], colours[:count], strict=True)),
                 advanced=True)
    assert moves_of(g, "0,0") == expected


def test_basic_movement_ignores_backpack_count() -> None:
    g = position(ADVANCED, {"0,0": RED})
    assert moves_of(g, "0,0") == STEPS | ROW | DIAGONALS


def test_advanced_with_one_backpack_explains_the_single_step() -> None:
    g = position(ADVANCED, {"0,0": RED}, advanced=True)
    assert "one step along its row or column" in g.explain(g.parse_move("0,0>4,0"))
    g = position(ADVANCED, {"0,0": RED, "1,1": ORANGE, "1,0": RED}, advanced=True)
    assert "along a diagonal" in g.explain(g.parse_move("0,0>0,1"))


def test_advanced_tile_without_backpack_cannot_move() -> None:
    g = position(ADVANCED, {}, advanced=True)
    assert moves_of(g, "0,0") == set()


def test_advanced_counts_follow_the_tile_when_it_moves() -> None:
    g = position(ADVANCED, {"0,0": RED}, advanced=True)
    play(g, "0,0>0,1")  # the backpack travels to skydiver (0,2)
    assert g.view()["0,2"] == RED
    assert "0,0" not in g.view()


# ------------------------------------------------------------------ lines and wins
def test_five_in_a_row_across_tile_borders_wins() -> None:
    g = position(["0,0", "1,0", "2,0"], {"0,0": RED, "1,0": RED, "2,0": RED, "4,0": RED})
    assert g.outcome() is None  # four, and a free skydiver at (3,0)
    play(g, "m 3,0")
    assert g.outcome() is not None and g.outcome().winner == 0  # type: ignore[union-attr]
    assert g.outcome().reason == "line"  # type: ignore[union-attr]
    assert g.legal_moves() == ()


def test_a_diagonal_line_across_corners_wins() -> None:
    # Diagonal skydivers (0,0) (1,1) on tile (0,0), (2,2) (3,3) on (1,1), (4,4) on (2,2).
    tiles = ["0,0", "1,0", "1,1", "2,1", "2,2"]
    g = position(tiles, {"0,0": ORANGE, "1,1": ORANGE, "2,2": ORANGE, "4,4": ORANGE}, player=1)
    play(g, "m 3,3")
    assert g.outcome() is not None and g.outcome().winner == 1  # type: ignore[union-attr]


def test_six_in_a_line_wins_and_four_does_not() -> None:
    cells = {"0,0": RED, "1,0": RED, "2,0": RED, "4,0": RED, "5,0": RED}
    g = position(["0,0", "1,0", "2,0"], cells)
    play(g, "m 3,0")  # six in a row
    assert g.outcome() is not None and g.outcome().winner == 0  # type: ignore[union-attr]
    g = position(["0,0", "1,0", "2,0"], {"0,0": RED, "1,0": RED, "2,0": RED})
    play(g, "m 3,0")
    assert g.outcome() is None


def test_line_length_parameter() -> None:
    g = position(["0,0", "1,0"], {"0,0": RED, "1,0": RED, "2,0": RED}, line_length=4)
    play(g, "m 3,0")
    assert g.outcome() is not None and g.outcome().winner == 0  # type: ignore[union-attr]
    with pytest.raises(ValueError, match="line_length"):
        new_game("quinque", line_length=2)


def test_a_line_of_the_other_colour_is_broken() -> None:
    g = position(["0,0", "1,0", "2,0"], {"0,0": RED, "1,0": RED, "2,0": ORANGE, "3,0": RED})
    play(g, "m 4,0")
    assert g.outcome() is None


# Both lines at once. Tiles (0,0) (1,0) carry red on row 0 and orange on row 1:
#   y=1:  O O | O O | .        M = tile (2,1) with R at (4,2), O at (4,3), hanging on
#   y=0:  R R | R R | .        tile (1,1). M moving down to (2,0) puts R at (4,0), O at (4,1).
BOTH_TILES = ["0,0", "1,0", "1,1", "2,1"]
BOTH = {"0,0": RED, "1,0": RED, "2,0": RED, "3,0": RED,
        "0,1": ORANGE, "1,1": ORANGE, "2,1": ORANGE, "3,1": ORANGE,
        "4,2": RED, "4,3": ORANGE}


@pytest.mark.parametrize("mover", [0, 1])
def test_both_lines_at_once_the_mover_wins(mover: int) -> None:
    g = position(BOTH_TILES, BOTH, player=mover)
    assert g.outcome() is None
    play(g, "2,1>2,0")
    view = g.view()
    assert view["4,0"] == RED and view["4,1"] == ORANGE
    assert g.outcome() is not None
    assert g.outcome().winner == mover  # type: ignore[union-attr]
    assert g.outcome().reason == "line"  # type: ignore[union-attr]


ONLY_ORANGE = {k: v for k, v in BOTH.items() if k != "4,2"}  # M carries orange only


def test_a_move_that_completes_only_the_opponents_line_makes_the_opponent_win() -> None:
    g = position(BOTH_TILES, ONLY_ORANGE, player=0)
    play(g, "2,1>2,0")
    assert g.outcome() is not None
    assert g.outcome().winner == 1  # type: ignore[union-attr]
    assert g.outcome().reason == Reason.OPPONENT_LINE  # type: ignore[union-attr]


def test_opponent_line_ignore_counts_the_line_after_its_owners_action() -> None:
    g = position(BOTH_TILES, ONLY_ORANGE, player=0, opponent_line="ignore")
    play(g, "2,1>2,0")
    assert g.outcome() is None
    play(g, "pass")
    assert g.current_player == 1
    play(g, "m 5,0")  # any action of Orange's: her line stands
    assert g.outcome() is not None and g.outcome().winner == 1  # type: ignore[union-attr]


def test_opponent_line_ignore_counts_the_line_after_a_move_of_a_tile_without_backpacks() -> None:
    g = position(BOTH_TILES, ONLY_ORANGE, player=0, opponent_line="ignore")
    play(g, "2,1>2,0", "pass")
    assert g.outcome() is None
    play(g, "1,1>0,1")  # tile 1,1 carries no backpack: Orange's own action all the same
    assert g.outcome() is not None and g.outcome().winner == 1  # type: ignore[union-attr]


def test_opponent_line_ignore_lets_the_mover_break_it_with_the_second_action() -> None:
    g = position(BOTH_TILES, ONLY_ORANGE, player=0, opponent_line="ignore")
    play(g, "2,1>2,0", "2,0>2,1")
    assert g.current_player == 1
    play(g, "m 5,2")
    assert g.outcome() is None


# ------------------------------------------------------------------ out of backpacks
def test_both_out_of_backpacks_is_a_draw_at_the_end_of_that_turn() -> None:
    g = position(["0,0", "1,0"], {"0,0": RED}, left=[1, 0])
    play(g, "m 1,0")  # the last backpack
    assert g.outcome() is None  # the optional second action still comes
    assert Pass() in g.legal_moves() and texts(g, TileMove)
    play(g, "pass")
    assert g.outcome() is not None
    assert g.outcome().winner is None  # type: ignore[union-attr]
    assert g.outcome().reason == "out of backpacks"  # type: ignore[union-attr]


def test_the_second_action_can_still_win_after_the_last_backpack() -> None:
    g = position(BOTH_TILES, {k: v for k, v in BOTH.items() if k != "3,0"}, left=[1, 0])
    play(g, "m 3,0")  # red 0..3 on row 0 again, the 36th backpack
    assert g.outcome() is None
    play(g, "2,1>2,0")
    assert g.outcome() is not None and g.outcome().winner == 0  # type: ignore[union-attr]


def test_a_player_out_of_backpacks_must_move_a_tile() -> None:
    g = position(["0,0", "1,0"], {"0,0": RED, "1,0": ORANGE}, left=[0, 5])
    legal = g.legal_moves()
    assert legal and all(isinstance(m, TileMove) for m in legal)
    assert "no backpacks left" in g.explain(g.parse_move("m 2,0"))
    assert "must move a tile" in g.explain(Pass())


def test_a_player_out_of_backpacks_passes_when_no_tile_can_move() -> None:
    g = position(["0,0"], {"0,0": RED}, left=[0, 5])
    assert g.legal_moves() == (Pass(),)
    play(g, "pass")
    assert g.current_player == 1 and g.outcome() is None


def test_out_of_backpacks_move_or_pass() -> None:
    g = position(["0,0", "1,0"], {"0,0": RED}, left=[0, 5], out_of_backpacks="move_or_pass")
    legal = g.legal_moves()
    assert Pass() in legal and any(isinstance(m, TileMove) for m in legal)
    play(g, "pass")
    assert g.current_player == 1
    # A player who still has backpacks may not pass.
    assert Pass() not in g.legal_moves()


def test_no_free_skydiver_and_no_tile_left_is_a_draw() -> None:
    g = new_game("quinque", tiles=1, backpacks=5, opening="each")
    play(g, "m 0,0", "m 1,0", "m 0,1")
    assert g.legal_moves() == (Pass(),)  # a lone tile cannot move
    play(g, "pass")
    assert g.outcome() is None and g.current_player == 1
    play(g, "m 1,1")  # last skydiver; Orange has no move and the tile cannot move
    assert g.legal_moves() == (Pass(),)
    play(g, "pass")
    assert g.outcome() is not None and g.outcome().reason == "no free skydiver"  # type: ignore[union-attr]


# ------------------------------------------------------------------ all tiles placed
def test_no_new_tile_once_all_sixteen_are_on_the_table() -> None:
    block = [f"{x},{y}" for x in range(4) for y in range(4)]
    g = position(block)
    assert g.to_dict()["state"]["tiles_left"] == 0
    assert not texts(g, AddTile)
    assert texts(g, Mark)
    assert "all 16 tiles are on the table" in g.explain(g.parse_move("t 8,0"))


def test_the_supply_runs_out_after_the_last_tile_is_added() -> None:
    g = new_game("quinque", tiles=3)
    play(g, "m 0,0", "t 2,0", "pass")
    assert texts(g, AddTile)
    play(g, "t 4,0", "pass")
    assert tiles_of(g) == {"0,0", "1,0", "2,0"}
    assert not texts(g, AddTile)


def test_sixteen_tiles_placed_in_play() -> None:
    g = new_game("quinque")
    play(g, "m 0,0")
    cells = [f"t {2 * x},{2 * y}" for y in range(4) for x in range(4) if (x, y) != (0, 0)]
    for text in cells:
        play(g, text, "pass")
    assert len(tiles_of(g)) == 16
    assert not texts(g, AddTile)


# ------------------------------------------------------------------ notation and view
@pytest.mark.parametrize(
    ("text", "move"),
    [
        ("m 1,0", Mark((1, 0))),
        ("m -3,-12", Mark((-3, -12))),
        ("t 2,1", AddTile((2, 1))),
        ("0,0>2,2", TileMove((0, 0), (2, 2))),
        ("-1,0>-1,-5", TileMove((-1, 0), (-1, -5))),
        ("pass", Pass()),
    ],
)
def test_notation_round_trips(text: str, move: Any) -> None:
    g = new_game("quinque")
    assert g.parse_move(text) == move
    assert str(move) == text


def test_parsing_accepts_spaces_and_case() -> None:
    g = new_game("quinque")
    assert g.parse_move(" M 1 , 0 ") == Mark((1, 0))
    assert g.parse_move("0, 0 > 2, 2") == TileMove((0, 0), (2, 2))
    assert g.parse_move("PASS") == Pass()
    assert g.parse_move("m 1,0") != g.parse_move("t 1,0")


@pytest.mark.parametrize("text", ["", "m", "m 1", "x 1,0", "1,0", "1,0>2", "m 1.5,0", "a1"])
def test_bad_notation_says_how_to_write_an_action(text: str) -> None:
    with pytest.raises(ValueError, match="not a quinque action; write 'm 1,0'"):
        new_game("quinque").parse_move(text)


def test_view_names_skydivers_and_leaves_out_cells_without_a_tile() -> None:
    g = position(["0,0", "1,0"], {"0,0": RED, "3,1": ORANGE})
    assert g.view() == {
        "0,0": RED, "1,0": ".", "0,1": ".", "1,1": ".",
        "2,0": ".", "3,0": ".", "2,1": ".", "3,1": ORANGE,
    }
    assert g.view("occupancy") == dict.fromkeys(g.view(), "#")
    assert Quinque.needs == "identity"


def test_coordinates_are_not_recentred_when_the_cluster_drifts() -> None:
    g = position(["0,0", "1,0"], {"0,0": RED})
    play(g, "0,0>2,0", "pass")  # the cluster now covers tiles 1..2
    assert tiles_of(g) == {"1,0", "2,0"}
    assert g.view()["4,0"] == RED and "0,0" not in g.view()


def test_board_text_shows_status_and_coordinates() -> None:
    g = position(["0,0", "1,0"], {"0,0": RED, "3,1": ORANGE})
    assert str(g) == (
        "Red to move (first action); backpacks left: Red 17, Orange 17; tiles left: 14\n"
        "   0 1   2 3\n"
        "1  . .   . O\n"
        "0  R .   . ."
    )


# ------------------------------------------------------------------ state records
def test_state_round_trips_and_is_validated() -> None:
    g = position(["0,0", "1,0"], {"0,0": RED}, player=1, phase="second", marked="0,0")
    state = g.to_dict()["state"]
    assert state["marked"] == "0,0" and state["phase"] == "second"
    twin = Quinque()
    twin.set_position(state)
    assert twin.to_dict()["state"] == state
    assert twin.legal_moves() == g.legal_moves()
    with pytest.raises(ValueError, match="no tile under"):
        position(["0,0"], {"2,0": RED})
    with pytest.raises(ValueError, match="one edge-connected group"):
        position(["0,0", "2,0"])
    with pytest.raises(ValueError, match="'R' or 'O'"):
        position(["0,0"], {"0,0": "X"})
    with pytest.raises(ValueError, match="marked"):
        position(["0,0"], marked="0,0")


# ------------------------------------------------------------------ repetition (optional)
def test_repetition_draw_is_off_by_default_and_draws_the_third_time_when_on() -> None:
    shuffle = ["0,0>2,0", "2,0>0,0"]  # one whole turn that puts the tile back
    for on in (False, True):
        g = position(["0,0", "1,0"], {"0,0": RED, "2,0": ORANGE}, repetition_draw=on)
        for _ in range(2):
            play(g, *shuffle)  # Red
            play(g, "1,0>-1,0", "-1,0>1,0")  # Orange
        if on:
            # Back at the start position, Red to move, for the third time.
            assert g.outcome() is not None
            assert g.outcome().reason == "threefold repetition"  # type: ignore[union-attr]
        else:
            assert g.outcome() is None


def test_repetition_counts_positions_up_to_a_shift_of_the_cluster() -> None:
    g = position(["0,0", "1,0"], repetition_draw=True)
    # Each turn moves the left tile to the right end: same shape, shifted by one, so Red
    # faces the start position again after two turns, and a third time after four.
    play(g, "0,0>2,0", "pass", "1,0>3,0", "pass", "2,0>4,0", "pass", "3,0>5,0")
    assert g.outcome() is None
    play(g, "pass")
    assert g.outcome() is not None and g.outcome().winner is None  # type: ignore[union-attr]


# ------------------------------------------------------------------ random games
def _reference_tile_moves(g: Game[Any]) -> set[str]:
    """Every tile move by brute force: try every free cell, test connectivity by search."""
    state = g.to_dict()["state"]
    if state["phase"] == "opening":
        return set()
    tiles = {tuple(map(int, t.split(","))) for t in state["tiles"]}
    if len(tiles) < 2:
        return set()
    counts = {t: 0 for t in tiles}
    for cell in state["backpacks"]:
        sx, sy = map(int, cell.split(","))
        counts[(sx // 2, sy // 2)] += 1
    marked = state["marked"]
    opts = g.options
    out = set()
    xs = [x for x, _ in tiles]
    ys = [y for _, y in tiles]
    for t in tiles:
        x, y = t
        if f"{x},{y}" == marked:
            continue
        if all(n in tiles for n in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1))):
            continue
        for dx in range(min(xs) - 1 - x, max(xs) + 2 - x):
            for dy in range(min(ys) - 1 - y, max(ys) + 2 - y):
                d = (x + dx, y + dy)
                straight = dx == 0 or dy == 0
                if d in tiles or not (straight or abs(dx) == abs(dy)):
                    continue
                if opts["advanced"]:
                    n = counts[t]
                    if not n or (n == 1 and abs(dx) + abs(dy) != 1) or (
                        n == 2 and not straight) or (n == 3 and straight):
                        continue
                sx, sy = (dx > 0) - (dx < 0), (dy > 0) - (dy < 0)
                path = [(x + k * sx, y + k * sy) for k in range(1, max(abs(dx), abs(dy)))]
                if not opts["pass_over"] and any(c in tiles for c in path):
                    continue
                after = (tiles - {t}) | {d}
                seen = {d}
                stack = [d]
                while stack:
                    cx, cy = stack.pop()
                    for n2 in ((cx + 1, cy), (cx - 1, cy), (cx, cy + 1), (cx, cy - 1)):
                        if n2 in after and n2 not in seen:
                            seen.add(n2)
                            stack.append(n2)
                if seen == after:
                    out.add(f"{x},{y}>{d[0]},{d[1]}")
    return out


@pytest.mark.parametrize(
    "params",
    [{}, {"advanced": True}, {"pass_over": False}, {"advanced": True, "pass_over": False}],
    ids=["basic", "advanced", "no-pass-over", "advanced-no-pass-over"],
)
def test_tile_moves_match_a_brute_force_search(params: dict[str, Any]) -> None:
    rng = random.Random(f"quinque-moves{params}")
    positions = 0
    for _ in range(3):
        g = new_game("quinque", **params)
        while g.outcome() is None:
            assert texts(g, TileMove) == _reference_tile_moves(g), str(g)
            positions += 1
            g.apply(rng.choice(g.legal_moves()))
    assert positions > 150


@pytest.mark.parametrize(
    "params", [{}, {"advanced": True, "opening": "each"}, {"opponent_line": "ignore"}]
)
def test_random_games_keep_pieces_and_cluster_consistent(params: dict[str, Any]) -> None:
    rng = random.Random(f"quinque-invariants{params}")
    for _ in range(6):
        g = new_game("quinque", **params)
        turns_seen = 0
        while g.outcome() is None:
            state = g.to_dict()["state"]
            tiles = state["tiles"]
            backpacks = state["backpacks"]
            # Backpacks and tiles are conserved.
            for p, token in enumerate((RED, ORANGE)):
                on_board = sum(1 for v in backpacks.values() if v == token)
                assert on_board + state["backpacks_left"][p] == 18
            assert len(tiles) + state["tiles_left"] == 16
            # Every backpack sits on a tile; the view has 4 skydivers a tile.
            view = g.view()
            assert len(view) == 4 * len(tiles)
            assert all(view[c] == v for c, v in backpacks.items())
            # Every tile that entered play carries a backpack... until tiles move, it still
            # does: backpacks never leave their tile.
            if state["phase"] != "opening":
                for t in tiles:
                    x, y = map(int, t.split(","))
                    cells = [f"{2 * x + i},{2 * y + j}" for i in (0, 1) for j in (0, 1)]
                    assert any(c in backpacks for c in cells)
            player = g.current_player
            g.apply(rng.choice(g.legal_moves()))
            turns_seen += g.current_player != player
        assert g.legal_moves() == ()
        assert turns_seen > 10


def test_finished_game_rejects_moves() -> None:
    g = position(["0,0", "1,0", "2,0"], {"0,0": RED, "1,0": RED, "2,0": RED, "4,0": RED})
    play(g, "m 3,0")
    with pytest.raises(IllegalMoveError, match="game is over"):
        play(g, "pass")


def test_perft_by_whole_turns_counted_by_hand() -> None:
    # Turn 1: Red's opening mark, 4 skydivers. Turn 2, Orange, after any of them:
    # - mark one of the 3 free skydivers, then only "pass" (a lone tile cannot move): 3;
    # - add one of 4 edge tiles at one of its 4 skydivers (16), then pass, or move the
    #   first tile (the new one is marked): over the new tile, or diagonally beside it (3).
    # 3 + 16 * 4 = 67 turns after each opening mark.
    g = new_game("quinque")
    assert perft(g, 1) == 4
    assert perft(g, 2) == 4 * 67
    play(g, "m 0,0")
    assert len(legal_turns(g)) == 67
