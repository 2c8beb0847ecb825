"""Rule tests for draughts (RULES.md section 6): the seed's Dame and the federation variants.

Positions are set up by hand and the expected moves worked out on paper from the rules; the
comments show the reasoning. The last tests compare whole turns with py-draughts.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from tavola.games import Game, IllegalMoveError, Reason, legal_turns, new_game
from tavola.games.draughts import (
    CELLS,
    Draughts,
    DraughtsMove,
    game_record,
    turn_actions,
    turn_text,
)

VARIANTS = ("dame", "german", "russian", "brazilian", "english")
FEDERATIONS = ("german", "russian", "brazilian", "english")


def position(
    board: dict[str, str], turn: int = 0, variant: str = "dame", **params: Any
) -> Draughts:
    game = Draughts(variant=variant, **params)
    game.set_position({"board": board, "turn": turn})
    return game


def legal(game: Draughts) -> set[str]:
    return {str(m) for m in game.legal_moves()}


def play(game: Game[DraughtsMove], *texts: str) -> None:
    for text in texts:
        game.apply(game.parse_move(text))


def pieces(game: Draughts) -> dict[str, str]:
    return {cell: tok for cell, tok in game.view().items() if tok}


# ----------------------------------------------------------------- the board and the start
def test_start_position_white_on_ranks_1_to_3_and_seven_first_moves() -> None:
    g = Draughts()
    assert g.options["variant"] == "dame"
    view = g.view()
    assert len(view) == 32 and "a2" not in view and "a1" in view  # dark squares, a1 dark
    white = {c for c, t in view.items() if t == "W"}
    black = {c for c, t in view.items() if t == "B"}
    assert white == {"a1", "c1", "e1", "g1", "b2", "d2", "f2", "h2", "a3", "c3", "e3", "g3"}
    assert black == {"b6", "d6", "f6", "h6", "a7", "c7", "e7", "g7", "b8", "d8", "f8", "h8"}
    assert g.current_player == 0 and g.player_names == ("White", "Black")
    assert legal(g) == {"a3-b4", "c3-b4", "c3-d4", "e3-d4", "e3-f4", "g3-f4", "g3-h4"}


def test_english_black_starts_on_ranks_1_to_3_and_moves_first() -> None:
    g = new_game("checkers")
    assert isinstance(g, Draughts)
    assert g.player_names == ("Black", "White") and g.current_player == 0
    assert g.view()["a1"] == "B" and g.view()["h8"] == "W"
    assert legal(g) == {"a3-b4", "c3-b4", "c3-d4", "e3-d4", "e3-f4", "g3-f4", "g3-h4"}
    play(g, "c3-d4")
    assert g.current_player == 1
    assert all(str(m)[1] == "6" for m in g.legal_moves())  # White answers from rank 6


def test_english_accepts_the_1_to_32_checkers_numbering() -> None:
    g = new_game("draughts", variant="english")
    assert isinstance(g, Draughts)
    # Black's squares 1-12 start at g1 (square 1, the double corner) and run right to left.
    assert str(g.parse_move("11-15")) == "c3-d4"
    assert str(g.parse_move("9-13")) == "g3-h4"
    assert str(g.parse_move("12-16")) == "a3-b4"
    play(g, "11-15")
    assert turn_text(list(g.history), numeric=True) == "11-15"
    with pytest.raises(ValueError, match="English checkers notation"):
        Draughts().parse_move("11-15")
    with pytest.raises(ValueError, match=r"1 \.\.\. 32"):
        g.parse_move("33-29")


def test_first_player_black_as_a_parameter() -> None:
    g = Draughts(first_player="black")
    assert g.player_names == ("Black", "White") and g.view()["c3"] == "B"


# ----------------------------------------------------------------- moving and promotion
def test_men_move_forward_only_and_explain_why_not() -> None:
    g = position({"d4": "W", "h8": "B"})
    assert legal(g) == {"d4-c5", "d4-e5"}
    with pytest.raises(IllegalMoveError, match="forward only"):
        play(g, "d4-c3")
    with pytest.raises(IllegalMoveError, match="one square"):
        play(g, "d4-f6")
    with pytest.raises(IllegalMoveError, match="no piece on a1"):
        play(g, "a1-b2")
    with pytest.raises(IllegalMoveError, match="not yours"):
        play(g, "h8-g7")


def test_flying_king_moves_any_distance_and_short_king_one_square() -> None:
    board = {"d4": "WK", "f6": "B", "g7": "B"}
    g = position(board)
    # NE stops before f6 (f6 and g7 stand one behind the other: no capture); the three
    # other diagonals run to the edge.
    assert legal(g) == {"d4-e5", "d4-c5", "d4-b6", "d4-a7", "d4-c3", "d4-b2", "d4-a1",
                        "d4-e3", "d4-f2", "d4-g1"}  # fmt: skip
    with pytest.raises(IllegalMoveError, match="blocked at f6"):
        play(g, "d4-h8")
    short = position(board, flying_kings=False)
    assert legal(short) == {"d4-e5", "d4-c5", "d4-c3", "d4-e3"}
    with pytest.raises(IllegalMoveError, match="one square"):
        play(short, "d4-b6")


def test_a_man_reaching_the_far_rank_becomes_a_king() -> None:
    g = position({"g7": "W", "a3": "B"})
    play(g, "g7-h8")
    assert g.view()["h8"] == "WK"
    assert g.view("occupancy")["h8"] == "#"
    g = position({"b2": "B", "h8": "WK"}, turn=1)  # Black crowns on rank 1
    play(g, "b2-a1")
    assert g.view()["a1"] == "BK"


# ----------------------------------------------------------------- capturing
def test_dame_men_capture_forward_only_unless_the_parameter_says_so() -> None:
    board = {"e5": "W", "d4": "B", "h8": "B"}
    assert "e5xc3" not in legal(position(board))
    with pytest.raises(IllegalMoveError, match="captures forward only"):
        play(position(board), "e5xc3")
    assert "e5xc3" in legal(position(board, men_capture_backward=True))
    for variant in ("german", "russian", "brazilian"):
        assert legal(position(board, variant=variant)) == {"e5xc3"}


def test_king_long_landing_and_short_landing() -> None:
    # a1 flies over b2, jumps c3 and may land on any empty square behind it, up to g7 (h8
    # holds a black piece with nothing behind it, so it cannot be taken).
    board = {"a1": "WK", "c3": "B", "h8": "B"}
    assert legal(position(board)) == {"a1-b2", "a1xd4", "a1xe5", "a1xf6", "a1xg7"}
    assert legal(position(board, king_short_landing=True)) == {"a1-b2", "a1xd4"}
    with pytest.raises(IllegalMoveError, match="right behind"):
        play(position(board, king_short_landing=True), "a1xf6")
    assert legal(position(board, variant="russian")) == {"a1xd4", "a1xe5", "a1xf6", "a1xg7"}


def test_compulsory_king_must_land_where_it_can_go_on_capturing() -> None:
    # a1 jumps c3. Only from e5 can it capture again (f4, landing g3 or h2), so in the
    # compulsory variants e5 is its only landing; in Dame it may land anywhere.
    board = {"a1": "WK", "c3": "B", "f4": "B", "a7": "B"}
    g = position(board, variant="german")
    assert legal(g) == {"a1xe5"}
    with pytest.raises(IllegalMoveError, match="must land where it can go on"):
        play(g, "a1xf6")
    play(g, "a1xe5")
    assert g.current_player == 0 and legal(g) == {"e5xg3", "e5xh2"}
    play(g, "e5xh2")
    assert g.current_player == 1
    assert pieces(g) == {"h2": "WK", "a7": "B"}  # c3 and f4 went at the end of the chain
    dame = position(board)
    assert legal(dame) == {"a1-b2", "a1xd4", "a1xe5", "a1xf6", "a1xg7", "a1xh8"}


def test_a_chain_never_jumps_a_piece_twice() -> None:
    # Russian men capture backwards: c3 can run the loop d4, f4, f2, d2 and come back to
    # c3. There d4 (already taken) lies next to it with e5 empty, but it cannot be taken again.
    g = position({"c3": "W", "d4": "B", "f4": "B", "f2": "B", "d2": "B", "h8": "B"},
                 variant="russian")  # fmt: skip
    assert legal(g) == {"c3xe5", "c3xe1"}
    play(g, "c3xe5")
    assert legal(g) == {"e5xg3"}  # d4 is taken already: no e5xc3
    play(g, "e5xg3", "g3xe1", "e1xc3")
    assert g.current_player == 1
    assert pieces(g) == {"c3": "W", "h8": "B"}
    assert str(g.legal_moves()[0]).startswith("h8")


def test_captured_pieces_block_until_the_chain_ends_but_leave_the_view() -> None:
    # a1 takes c3 (landing f6), then g5 (landing h4), then g3 (landing e1). From f6 and from
    # e1 the way back runs through c3, which is taken but still on the board: from e1 the
    # king would otherwise take b4 (landing a5).
    g = position({"a1": "WK", "c3": "B", "g5": "B", "g3": "B", "b4": "B"})
    play(g, "a1xf6")
    assert legal(g) == {"f6xh4", "stop f6"}  # the way back over c3 is blocked
    view = g.view()
    assert view["c3"] == "" and view["f6"] == "WK" and view["a1"] == ""
    assert g.to_dict()["state"]["captured"] == ["c3"]
    play(g, "f6xh4")
    assert legal(g) == {"h4xf2", "h4xe1", "stop h4"}
    play(g, "h4xe1")
    assert g.current_player == 1  # e1xa5 would pass over c3: the chain ends
    assert pieces(g) == {"e1": "WK", "b4": "B"}


def test_a_chain_loaded_mid_way_keeps_its_blockers() -> None:
    g = Draughts(variant="russian")
    g.set_position(
        {"board": {"e5": "WK", "b2": "B", "g7": "B"}, "turn": 0, "chain": "e5", "captured": ["c3"]}
    )
    assert legal(g) == {"e5xh8"}  # not e5xa1: c3 blocks the way to b2
    with pytest.raises(IllegalMoveError, match="c3 and b2 are both in the way"):
        play(g, "e5xa1")


def test_dame_chain_may_stop_early_and_stopping_is_not_huffable() -> None:
    board = {"c3": "W", "d4": "B", "f6": "B"}
    g = position(board)
    play(g, "c3xe5")
    assert g.current_player == 0 and legal(g) == {"e5xg7", "stop e5"}
    with pytest.raises(IllegalMoveError, match="may jump again"):
        play(g, "e5-d6")
    play(g, "stop e5")
    assert g.current_player == 1 and pieces(g) == {"e5": "W", "f6": "B"}
    assert not any(m.kind == "huff" for m in g.legal_moves())
    assert legal(g) == {"f6xd4", "f6-g5"}
    # Where capturing is compulsory, the chain must be finished.
    g = position(board, variant="german")
    play(g, "c3xe5")
    assert legal(g) == {"e5xg7"}
    with pytest.raises(IllegalMoveError, match="must jump again"):
        play(g, "stop e5")
    play(g, "e5xg7")
    assert g.current_player == 1 and pieces(g) == {"g7": "W"}
    assert g.outcome() is not None and g.outcome().winner == 0  # type: ignore[union-attr]


@pytest.mark.parametrize("variant", VARIANTS)
def test_capture_is_compulsory_in_the_federation_variants(variant: str) -> None:
    me, you = ("B", "W") if variant == "english" else ("W", "B")
    g = position({"c3": me, "g1": me, "d4": you, "h8": you}, variant=variant)
    if variant == "dame":
        assert legal(g) == {"c3xe5", "c3-b4", "g1-f2", "g1-h2"}
        return
    assert legal(g) == {"c3xe5"}
    with pytest.raises(IllegalMoveError, match="you must capture: c3xe5"):
        play(g, "g1-f2")


# ----------------------------------------------------------------- promotion in a chain
MID_CAPTURE = {"b6": "W", "c7": "B", "e7": "B", "a3": "B"}


def test_mid_capture_promotion_russian_goes_on_as_a_king() -> None:
    g = position(MID_CAPTURE, variant="russian")
    assert legal(g) == {"b6xd8"}
    play(g, "b6xd8")
    assert g.view()["d8"] == "WK" and g.current_player == 0
    assert legal(g) == {"d8xf6", "d8xg5", "d8xh4"}  # a flying king's long landing
    play(g, "d8xh4")
    assert pieces(g) == {"h4": "WK", "a3": "B"}


@pytest.mark.parametrize("variant", ["brazilian", "german"])
def test_mid_capture_promotion_international_stays_a_man(variant: str) -> None:
    g = position(MID_CAPTURE, variant=variant)
    play(g, "b6xd8")
    assert g.view()["d8"] == "W" and legal(g) == {"d8xf6"}  # a man's backward jump only
    play(g, "d8xf6")
    assert pieces(g) == {"f6": "W", "a3": "B"}  # passed through the far rank: still a man
    assert g.current_player == 1


def test_mid_capture_promotion_english_ends_the_move() -> None:
    # Player 0 is Black in English checkers. Crowned on d8, the new king could jump e7 next,
    # but the move ends on promotion.
    g = position({"b6": "B", "c7": "W", "e7": "W", "a3": "W"}, variant="english")
    play(g, "b6xd8")
    assert g.current_player == 1
    assert pieces(g) == {"d8": "BK", "e7": "W", "a3": "W"}


def test_a_chain_ending_on_the_far_rank_promotes() -> None:
    g = position({"f6": "W", "g7": "B", "a3": "B"})
    assert legal(g) == {"f6xh8", "f6-e7"}
    play(g, "f6xh8")
    assert g.current_player == 1 and pieces(g) == {"h8": "WK", "a3": "B"}


def test_dame_with_backward_men_promotes_only_where_the_chain_ends() -> None:
    g = position(MID_CAPTURE, men_capture_backward=True)
    play(g, "b6xd8")
    assert legal(g) == {"d8xf6", "stop d8"}
    play(g, "stop d8")
    assert pieces(g)["d8"] == "WK"


# ----------------------------------------------------------------- majority
def test_brazilian_majority_rule_takes_the_most_pieces() -> None:
    # a5 can take b6 (one piece); c3 can take d4 then f6 (two). Kings count like men.
    board = {"a5": "W", "c3": "W", "b6": "BK", "d4": "B", "f6": "B"}
    assert legal(position(board, variant="russian")) == {"a5xc7", "c3xe5"}
    g = position(board, variant="brazilian")
    assert legal(g) == {"c3xe5"}
    with pytest.raises(IllegalMoveError, match="most pieces"):
        play(g, "a5xc7")
    play(g, "c3xe5")
    assert legal(g) == {"e5xg7"}
    play(g, "e5xg7")
    assert g.current_player == 1 and pieces(g) == {"a5": "W", "g7": "W", "b6": "BK"}


def test_majority_needs_compulsory_capture() -> None:
    with pytest.raises(ValueError, match="majority=True needs capture='compulsory'"):
        Draughts(majority=True)
    with pytest.raises(ValueError, match="majority"):
        Draughts(variant="brazilian", capture="huff")


# ----------------------------------------------------------------- huffing
HUFF_BOARD = {"c3": "W", "e3": "W", "g1": "W", "d4": "B", "h8": "B"}


def test_huff_takes_the_moved_piece_if_it_could_have_captured() -> None:
    g = position(HUFF_BOARD)
    assert legal(g) == {"c3xe5", "e3xc5", "c3-b4", "e3-f4", "g1-f2", "g1-h2"}
    play(g, "c3-b4")  # c3 could have taken d4
    assert g.current_player == 1
    huffs = {str(m) for m in g.legal_moves() if m.kind == "huff"}
    assert huffs == {"huff b4"}
    with pytest.raises(IllegalMoveError, match="you may huff b4"):
        play(g, "huff e3")
    play(g, "huff b4")
    # The huff does not use up Black's move.
    assert g.current_player == 1 and "b4" not in pieces(g)
    assert legal(g) == {"d4xf2", "d4-c3", "h8-g7"}


def test_huff_lets_the_opponent_pick_when_another_piece_moved() -> None:
    g = position(HUFF_BOARD)
    play(g, "g1-h2")  # g1 could not capture; c3 and e3 could
    assert {str(m) for m in g.legal_moves() if m.kind == "huff"} == {"huff c3", "huff e3"}
    play(g, "huff e3", "d4-e3")
    assert g.current_player == 0 and pieces(g) == {"c3": "W", "e3": "B", "h2": "W", "h8": "B"}


def test_huff_right_lapses_once_the_opponent_moves() -> None:
    g = position(HUFF_BOARD)
    play(g, "g1-h2", "h8-g7")  # Black moves instead of huffing
    play(g, "c3xe5")  # White captures this time
    assert g.current_player == 1
    assert not any(m.kind == "huff" for m in g.legal_moves())
    with pytest.raises(IllegalMoveError, match="nothing to huff"):
        play(g, "huff e3")


def test_missed_king_capture_is_huffable_too() -> None:
    g = position({"a1": "WK", "c3": "B", "h2": "W", "h8": "B"})
    play(g, "h2-g3")
    assert {str(m) for m in g.legal_moves() if m.kind == "huff"} == {"huff a1"}


def test_huffing_the_last_piece_wins() -> None:
    g = position({"e5": "B", "d4": "W", "a1": "W"}, turn=1)
    assert legal(g) == {"e5xc3", "e5-f4"}
    play(g, "e5-f4")
    play(g, "huff f4")
    assert g.outcome() is not None
    assert (g.outcome().winner, g.outcome().reason) == (0, "no pieces left")  # type: ignore[union-attr]


def test_huff_uses_move_passes_the_turn() -> None:
    g = position(HUFF_BOARD, huff_uses_move=True)
    play(g, "c3-b4", "huff b4")
    assert g.current_player == 0


def test_force_takes_the_move_back_and_the_offender_must_capture() -> None:
    g = position(HUFF_BOARD, huff_may_force=True)
    assert "force" not in legal(g)
    play(g, "c3-b4")
    assert {"force", "huff b4"} <= legal(g)
    play(g, "force")
    assert g.current_player == 0
    assert pieces(g) == {"c3": "W", "e3": "W", "g1": "W", "d4": "B", "h8": "B"}
    assert legal(g) == {"c3xe5", "e3xc5"}
    with pytest.raises(IllegalMoveError, match="you must capture"):
        play(g, "g1-f2")
    play(g, "e3xc5")
    assert g.current_player == 1 and "d4" not in pieces(g)


def test_free_capture_never_punishes_a_missed_capture() -> None:
    g = position(HUFF_BOARD, capture="free")
    play(g, "c3-b4")
    assert not any(m.kind in ("huff", "force") for m in g.legal_moves())
    assert legal(g) == {"d4xf2", "d4-c3", "h8-g7"}


# ----------------------------------------------------------------- the end
def test_capturing_the_last_piece_wins() -> None:
    g = position({"c3": "W", "d4": "B"})
    play(g, "c3xe5")
    assert g.outcome() is not None
    assert (g.outcome().winner, g.outcome().reason) == (0, "no pieces left")  # type: ignore[union-attr]
    assert g.legal_moves() == ()


def test_a_blocked_player_loses() -> None:
    g = position({"a3": "W", "b4": "B", "c5": "B"})
    assert g.outcome() is not None
    assert (g.outcome().winner, g.outcome().reason) == (1, "blocked")  # type: ignore[union-attr]


def test_king_versus_king_is_a_draw() -> None:
    board = {"a1": "WK", "b2": "B", "h2": "BK"}
    g = position(board)
    assert legal(g) == {"a1xc3", "a1xd4", "a1xe5", "a1xf6", "a1xg7", "a1xh8"}
    play(g, "a1xe5")
    assert g.outcome() is not None
    assert (g.outcome().winner, g.outcome().reason) == (None, "king vs king")  # type: ignore[union-attr]
    assert g.legal_moves() == ()
    # Russian has no such rule; a king against a man is no draw either.
    g = position(board, variant="russian")
    play(g, "a1xe5")
    assert g.outcome() is None
    assert position({"a1": "WK", "h2": "B"}).outcome() is None


def test_king_versus_two_kings_is_a_draw_in_german() -> None:
    board = {"a1": "WK", "h2": "BK", "b8": "BK"}
    assert position(board).outcome() is None
    g = position(board, variant="german")
    assert g.outcome() is not None and g.outcome().reason == "king vs two kings"  # type: ignore[union-attr]


SHUFFLE = ("a7-b8", "h2-g1", "b8-a7", "g1-h2")


def test_threefold_repetition_is_a_draw() -> None:
    # Two kings that can never attack each other shuffle; the start position recurs after 4
    # and 8 turns: the third occurrence ends the game.
    board = {"a7": "WK", "h2": "BK"}
    g = position(board, draw_king_vs_king=False)
    play(g, *SHUFFLE, *SHUFFLE[:3])
    assert g.outcome() is None
    play(g, SHUFFLE[3])
    assert g.outcome() is not None
    assert (g.outcome().winner, g.outcome().reason) == (None, "threefold repetition")  # type: ignore[union-attr]
    g = position(board, draw_king_vs_king=False, threefold_repetition=False)
    play(g, *SHUFFLE, *SHUFFLE, *SHUFFLE)
    assert g.outcome() is None


def test_repetition_is_counted_from_the_game_history_in_copies_and_after_undo() -> None:
    g = position({"a7": "WK", "h2": "BK"}, draw_king_vs_king=False)
    play(g, *SHUFFLE, *SHUFFLE[:3])
    twin = g.copy()
    play(twin, SHUFFLE[3])
    assert twin.outcome() is not None and twin.outcome().reason == Reason.THREEFOLD_REPETITION  # type: ignore[union-attr]
    assert g.outcome() is None  # the copy's draw is not the original's
    twin.undo()
    assert twin.outcome() is None
    play(twin, "g1-f2")  # another move: a new position, no draw
    assert twin.outcome() is None


def test_king_moves_draw_counts_moves_of_each_player() -> None:
    board = {"a7": "WK", "h2": "BK", "c1": "W", "a5": "B"}
    g = position(board, king_moves_draw=2)
    play(g, *SHUFFLE[:3])
    assert g.outcome() is None
    play(g, SHUFFLE[3])
    assert g.outcome() is not None and g.outcome().reason == Reason.KING_MOVES  # type: ignore[union-attr]
    g = position(board, king_moves_draw=2)
    play(g, "a7-b8", "h2-g1", "c1-d2", "g1-h2", "b8-a7")  # a man move starts the count again
    assert g.outcome() is None
    assert Draughts(variant="russian").options["king_moves_draw"] == 15


# ----------------------------------------------------------------- notation and records
@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("z9-a1", "not a cell of the draughts board"),
        ("a2-b3", "light square"),
        ("c3-c5", "not on one diagonal"),
        ("c3xd4", "at least two squares"),
        ("c3xe5xg7", "whole turn"),
        ("jump", "not a draughts action"),
        ("huff a2", "light square"),
    ],
)
def test_parse_errors_say_what_is_wrong(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Draughts().parse_move(text)


def test_notation_round_trips_for_every_kind_of_action() -> None:
    g = Draughts()
    for text in ("c3-d4", "a1-h8", "c3xe5", "a1xh8", "huff d4", "stop e5", "force"):
        move = g.parse_move(text)
        assert str(move) == text and g.parse_move(str(move)) is move
    assert g.parse_move(" C3-D4 ") == DraughtsMove("-", CELLS.index("c3"), CELLS.index("d4"))


def test_whole_turns_are_recorded_and_read_back() -> None:
    g = position({"c3": "W", "d4": "B", "f6": "B", "h8": "B", "a1": "W"})
    actions = turn_actions(g, "c3xe5xg7")
    assert [str(m) for m in actions] == ["c3xe5", "e5xg7"]
    assert g.history == ()  # reading a turn does not play it
    play(g, "c3xe5", "e5xg7")
    assert turn_text(list(g.history)) == "c3xe5xg7"
    # A chain stopped early records without its stop, and reads back with it.
    g = position({"c3": "W", "d4": "B", "f6": "B", "h8": "B", "a1": "W"})
    assert [str(m) for m in turn_actions(g, "c3xe5")] == ["c3xe5", "stop e5"]
    g = position(HUFF_BOARD)
    play(g, "c3-b4", "huff b4", "d4xf2")
    assert game_record(g) == ["c3-b4", "huff b4 d4xf2"]
    with pytest.raises(ValueError, match="e3-e5"):
        turn_actions(g, "e3-e5")


def test_explanations_name_the_rule() -> None:
    g = position({"c3": "W", "d4": "B", "e5": "B", "h8": "B", "g3": "W"})
    with pytest.raises(IllegalMoveError, match="occupied"):
        play(g, "c3-d4")
    with pytest.raises(IllegalMoveError, match="e5 is occupied"):
        play(g, "c3xe5")
    with pytest.raises(IllegalMoveError, match="no capture under way"):
        play(g, "stop c3")
    with pytest.raises(IllegalMoveError, match="own piece"):
        play(position({"a1": "W", "b2": "W", "h8": "B"}), "a1xc3")
    with pytest.raises(IllegalMoveError, match="no piece to jump"):
        play(position({"a1": "WK", "h8": "B"}), "a1xc3")
    ended = position({"c3": "W"})
    with pytest.raises(IllegalMoveError, match="game is over"):
        play(ended, "c3-d4")


def test_set_position_rejects_impossible_boards() -> None:
    with pytest.raises(ValueError, match="would have been crowned"):
        position({"b8": "W", "a1": "BK"})
    with pytest.raises(ValueError, match="unknown piece"):
        position({"c3": "X"})
    with pytest.raises(ValueError, match="light square"):
        position({"c4": "W"})
    with pytest.raises(ValueError, match="no piece of the opponent"):
        Draughts().set_position({"board": {"c3": "W", "h8": "B"}, "turn": 0, "huff": ["c3"]})
    with pytest.raises(ValueError, match="cannot jump again"):
        Draughts().set_position({"board": {"e5": "W"}, "chain": "e5", "captured": []})


def test_state_round_trips_mid_chain_and_with_a_huff_pending() -> None:
    g = position(HUFF_BOARD, huff_may_force=True)
    play(g, "c3-b4")
    twin = Draughts(huff_may_force=True)
    twin.set_position(g.to_dict()["state"])
    assert legal(twin) == legal(g) and twin.current_player == 1
    play(twin, "force")
    assert twin.view()["c3"] == "W"
    g = position({"c3": "W", "d4": "B", "f6": "B"})
    play(g, "c3xe5")
    twin = Draughts()
    twin.set_position(g.to_dict()["state"])
    assert legal(twin) == {"e5xg7", "stop e5"} and twin.view() == g.view()


def test_board_text_shows_pieces_kings_and_whose_turn() -> None:
    text = str(position({"a1": "WK", "c3": "W", "h8": "B"}))
    assert " 1 | W" in text and "White to move" in text
    lines = text.splitlines()
    assert lines[1].rstrip().endswith("b |")  # h8 on the top rank


# ----------------------------------------------------------------- random games
@pytest.mark.parametrize("variant", VARIANTS)
def test_random_games_keep_the_material_rules(variant: str) -> None:
    rng = random.Random(variant)
    for _ in range(6):
        g = Draughts(variant=variant)
        counts: tuple[int, ...] = (12, 12)
        while g.outcome() is None:
            player = g.current_player
            move = rng.choice(g.legal_moves())
            g.apply(move)
            view = g.view()
            now = tuple(
                sum(1 for t in view.values() if t and t[0] == colour) for colour in g._colours
            )
            # Pieces only leave the board, and only the mover's opponent loses them (a force
            # puts back only what the offender's own move changed).
            assert now[player] == counts[player] or move.kind == "force"
            assert now[1 - player] <= counts[1 - player] or move.kind == "force"
            counts = now
            if g.current_player != player and g.outcome() is None:
                state = g.to_dict()["state"]
                assert state["captured"] == [] and state["chain"] is None
                for cell, token in view.items():
                    crown = "8" if token[:1] == g._colours[0] else "1"
                    assert not (len(token) == 1 and cell[1] == crown), "uncrowned man"
        assert len(g.history) > 10


def test_every_variant_plays_whole_turns_that_reach_the_end() -> None:
    for variant in VARIANTS:
        g = Draughts(variant=variant)
        rng = random.Random(1)
        while g.outcome() is None:
            turn = rng.choice(legal_turns(g))
            for move in turn:
                g.apply(move)
        assert g.outcome() is not None


# ----------------------------------------------------------------- against py-draughts
def _differential(variant: str, count: int, seed: int) -> int:
    """Compare the legal whole turns with py-draughts from seeded random positions.

    Half the positions are random placements (many kings), half come from random games in
    py-draughts. A turn is compared as (origin, destination, set of captured squares), which
    is how py-draughts identifies a move. Returns how many positions had captures.
    """
    pd = pytest.importorskip("draughts")
    np = pytest.importorskip("numpy")
    boards = {
        "russian": pd.RussianBoard,
        "brazilian": pd.BrazilianBoard,
        "english": pd.AmericanBoard,
    }
    cls = boards[variant]
    names: list[str] = cls.SQUARE_NAMES  # py-draughts square index -> algebraic cell
    # py-draughts: negative = the side at the bottom that moves first (its "white").
    tokens = {-1: "W", -2: "WK", 1: "B", 2: "BK"}
    if variant == "english":
        tokens = {-1: "B", -2: "BK", 1: "W", 2: "WK"}
    rng = random.Random(seed)
    with_captures = 0
    for _ in range(count):
        if rng.random() < 0.5:
            arr = np.zeros(32, dtype=np.int8)
            for i in rng.sample(range(32), rng.randint(2, 14)):
                value = rng.choice([1, 1, 1, 2, -1, -1, -1, -2])
                rank = names[i][1]
                if (value == -1 and rank == "8") or (value == 1 and rank == "1"):
                    value *= 2  # a man on its far rank is a king
                arr[i] = value
            first = rng.random() < 0.5
        else:
            board = cls()
            for _ply in range(rng.randint(0, 60)):
                moves = board.legal_moves
                if not moves or board.is_draw:
                    break
                board.push(rng.choice(moves))
            arr = np.array([board._get(s) for s in range(32)], dtype=np.int8)
            first = board.turn == pd.Color.WHITE
        if not (arr > 0).any() or not (arr < 0).any():
            continue  # a side without pieces has lost: nothing to compare
        board = cls(starting_position=arr, turn=pd.Color.WHITE if first else pd.Color.BLACK)
        theirs_moves = board.legal_moves
        if variant == "english" and any(m.captured_list for m in theirs_moves):
            # py-draughts makes American captures optional; English captures are compulsory.
            theirs_moves = [m for m in theirs_moves if m.captured_list]
        theirs = {
            (
                names[m.square_list[0]],
                names[m.square_list[-1]],
                frozenset(names[c] for c in m.captured_list),
            )
            for m in theirs_moves
        }
        game = Draughts(variant=variant, draw_king_vs_king=False)
        game.set_position(
            {
                "board": {names[i]: tokens[int(v)] for i, v in enumerate(arr) if v},
                "turn": 0 if first else 1,
            }
        )
        mine = set()
        start = game.view()
        mover = game._colours[game.current_player]
        for turn in legal_turns(game) if game.outcome() is None else []:
            taken = set()
            for move in turn:
                if move.kind == "x":
                    between = game_between(move)
                    taken |= {c for c in between if start[c] and start[c][0] != mover}
            mine.add((CELLS[turn[0].src], CELLS[turn[-1].dst], frozenset(taken)))
        assert mine == theirs, f"{variant} {board.fen}: {mine ^ theirs}"
        with_captures += any(t[2] for t in theirs)
    return with_captures


def game_between(move: DraughtsMove) -> list[str]:
    """The cells strictly between a jump's origin and landing square."""
    files = "abcdefgh"
    a, b = CELLS[move.src], CELLS[move.dst]
    df = 1 if b[0] > a[0] else -1
    dr = 1 if b[1] > a[1] else -1
    steps = abs(files.index(b[0]) - files.index(a[0]))
    return [f"{files[files.index(a[0]) + i * df]}{int(a[1]) + i * dr}" for i in range(1, steps)]


@pytest.mark.parametrize("variant", ["russian", "brazilian", "english"])
def test_whole_turns_match_py_draughts(variant: str) -> None:
    assert _differential(variant, 300, seed=11) > 50


@pytest.mark.slow
@pytest.mark.parametrize("variant", ["russian", "brazilian", "english"])
def test_whole_turns_match_py_draughts_many_positions(variant: str) -> None:
    assert _differential(variant, 5000, seed=12) > 1000


def test_turn_notation_joins_a_chain_for_records() -> None:
    assert Draughts.turn_notation(["c3xe5", "e5xg7"]) == "c3xe5xg7"
    assert Draughts.turn_notation(["c3xe5", "stop e5"]) == "c3xe5"
    assert Draughts.turn_notation(["huff d4", "c3-d4"]) == "huff d4 c3-d4"
