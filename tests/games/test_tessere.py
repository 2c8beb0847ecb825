"""Rule tests for tessere (RULES.md section 1): lines, blocks, the tie-break, timeouts."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from tavola.games import IllegalMoveError, Outcome, Reason, perft
from tavola.games.tessere import Tessere

# Written out by hand, independently of the engine's generator.
ROWS_AND_COLUMNS = [
    *(f"a{r} b{r} c{r} d{r}" for r in range(1, 6)),
    *(f"b{r} c{r} d{r} e{r}" for r in range(1, 6)),
    *(f"{f}1 {f}2 {f}3 {f}4" for f in "abcde"),
    *(f"{f}2 {f}3 {f}4 {f}5" for f in "abcde"),
]
LONG = ["a1 b2 c3 d4", "b2 c3 d4 e5", "a5 b4 c3 d2", "b4 c3 d2 e1"]
SHORT = ["b1 c2 d3 e4", "a2 b3 c4 d5", "a4 b3 c2 d1", "b5 c4 d3 e2"]
CORNERS = "a1 e1 a5 e5"

# RULES.md 1.4 item 3: a full board with no configuration sharing a colour, even with all 29
# (A=R, B=Y, C=G, D=B, E=block); rank 5 on top. Blocks on c5 and e5.
NO_LINE_BOARD = """
RB   GB   K    GB   K
RG   B    RY   YG   RG
Y    YB   R    RY   RY
RB   YG   GB   YG   YB
RB   RYGB RG   G    YB
"""


def board_from(text: str) -> dict[str, str]:
    rows = [line.split() for line in text.strip().splitlines()]
    return {f"{'abcde'[f]}{5 - r}": tok for r, row in enumerate(rows) for f, tok in enumerate(row)}


def shares_a_colour(tokens: list[str]) -> bool:
    return any(all(c in t for t in tokens) for c in "RYGB")


def play(game: Tessere, *texts: str) -> None:
    for text in texts:
        game.apply(game.parse_move(text))


def position(
    board: dict[str, str], to_move: int = 0, blocks: list[list[Any]] | None = None, **params: Any
) -> Tessere:
    game = Tessere(**params)
    game.set_position({"board": board, "blocks": blocks or [], "to_move": to_move})
    return game


# ----------------------------------------------------------------- the set and the board
def test_the_set_has_23_checkers_each_colour_on_11_and_two_blocks() -> None:
    off = Tessere().off_board()
    assert off == {
        "R": 1, "Y": 1, "G": 1, "B": 1,
        "RY": 3, "RG": 3, "RB": 3, "YG": 3, "YB": 3, "GB": 3,
        "RYGB": 1, "K": 2,
    }  # fmt: skip
    checkers = {t: n for t, n in off.items() if t != "K"}
    assert sum(checkers.values()) == 23
    for colour in "RYGB":
        assert sum(n for t, n in checkers.items() if colour in t) == 11


@pytest.mark.parametrize(
    ("diagonals", "count", "diagonal_lines"),
    [("long", 25, LONG), ("short", 25, SHORT), ("all", 29, LONG + SHORT)],
)
def test_configurations_per_diagonals_option(
    diagonals: str, count: int, diagonal_lines: list[str]
) -> None:
    got = {frozenset(line) for line in Tessere(diagonals=diagonals).configurations}
    want = {frozenset(s.split()) for s in [*ROWS_AND_COLUMNS, *diagonal_lines, CORNERS]}
    assert len(Tessere(diagonals=diagonals).configurations) == count == len(want)
    assert got == want


def test_configurations_through_each_cell_match_rules_grid() -> None:
    grid = ["4 3 3 3 4", "3 6 4 6 3", "3 4 8 4 3", "3 6 4 6 3", "4 3 3 3 4"]  # RULES.md 1.3
    lines = Tessere().configurations
    for r, row in enumerate(grid):
        for f, n in enumerate(row.split()):
            cell = f"{'abcde'[f]}{5 - r}"
            assert sum(cell in line for line in lines) == int(n), cell


def test_start_position_and_perft() -> None:
    game = Tessere()
    assert game.needs == "identity" and game.num_players == 2
    assert game.view() == {c: "" for c in game.view()} and len(game.view()) == 25
    # 11 colour sets + the own block, on any of 25 cells.
    assert len(game.legal_moves()) == 12 * 25 == perft(game, 1) == 300
    # Ply 2: after one of the 5 single checkers (R Y G B RYGB) 10 sets + block remain (11);
    # after a pair or the block, 11 sets + block (12 choices); always 24 cells.
    assert perft(game, 2) == 25 * 24 * (5 * 11 + 6 * 12 + 1 * 12) == 83400


# ----------------------------------------------------------------- lines
def test_a_row_completed_by_either_player_wins_for_the_one_who_completes_it() -> None:
    game = Tessere()
    play(game, "R@a1", "Y@e5", "RY@b1", "G@e4", "RG@c1", "B@e3")
    assert game.outcome() is None
    play(game, "RB@d1")  # R, RY, RG, RB share red
    assert game.outcome() == Outcome(0, Reason.LINE)
    assert game.winning_cells() == ("a1", "b1", "c1", "d1")
    assert game.legal_moves() == ()
    # The same line completed by Player 2 (Player 1 placed the first three of them).
    game = position({"a1": "R", "b1": "RY", "c1": "RG"}, to_move=1)
    play(game, "RB@d1")
    assert game.outcome() == Outcome(1, Reason.LINE)


def test_four_that_share_no_colour_do_not_win() -> None:
    # Every pair shares a colour, but no colour is on all four.
    game = position({"a1": "RY", "b1": "RG", "c1": "YG"})
    play(game, "RYGB@d1")
    assert game.outcome() is None
    game = position({"a2": "R", "b2": "RY", "c2": "RG"})
    play(game, "YB@d2")
    assert game.outcome() is None


def test_line_must_be_four_consecutive_cells() -> None:
    game = position({"a1": "G", "b1": "YG", "c1": "GB"})
    play(game, "RG@e1")  # a1 b1 c1 _ e1: the gap at d1 breaks both windows
    assert game.outcome() is None


def test_four_corners_win_under_every_diagonals_option() -> None:
    for diagonals in ("long", "short", "all"):
        game = position({"a1": "G", "e1": "GB", "e5": "YG"}, to_move=1, diagonals=diagonals)
        play(game, "RG@a5")
        assert game.outcome() == Outcome(1, Reason.LINE), diagonals
        assert game.winning_cells() == ("a1", "e1", "a5", "e5")


def test_four_colour_checker_is_a_wildcard() -> None:
    # Completing three that share red, placed last ...
    game = position({"b2": "R", "c3": "RY", "d4": "RB"})
    play(game, "RYGB@e5")
    assert game.outcome() == Outcome(0, Reason.LINE)
    assert game.winning_cells() == ("b2", "c3", "d4", "e5")
    # ... or already on the board, with the fourth checker completing blue.
    game = position({"c1": "B", "c2": "RYGB", "c3": "YB"}, to_move=1)
    play(game, "GB@c4")
    assert game.outcome() == Outcome(1, Reason.LINE)
    # It cannot join three that share nothing between them.
    game = position({"a3": "R", "b3": "Y", "c3": "G"})
    play(game, "RYGB@d3")
    assert game.outcome() is None


@pytest.mark.parametrize(
    ("diagonals", "long_wins", "short_wins"),
    [("long", True, False), ("short", False, True), ("all", True, True)],
)
def test_which_diagonals_count(diagonals: str, long_wins: bool, short_wins: bool) -> None:
    game = position({"a5": "Y", "b4": "RY", "c3": "YB"}, diagonals=diagonals)
    play(game, "YG@d2")  # window a5-d2 of the long diagonal a5-e1
    assert (game.outcome() == Outcome(0, Reason.LINE)) is long_wins
    game = position({"a2": "Y", "b3": "RY", "c4": "YB"}, diagonals=diagonals)
    play(game, "YG@d5")  # the short diagonal a2-d5
    assert (game.outcome() == Outcome(0, Reason.LINE)) is short_wins
    if short_wins:
        assert game.winning_cells() == ("a2", "b3", "c4", "d5")


def test_two_configurations_at_once_light_both() -> None:
    game = position({"a1": "R", "b1": "RY", "c1": "RG", "d2": "RB", "d3": "RY", "d4": "RG"})
    play(game, "RY@d1")  # row a1-d1 and column d1-d4
    assert game.outcome() == Outcome(0, Reason.LINE)
    assert set(game.winning_cells()) == {"a1", "b1", "c1", "d1", "d2", "d3", "d4"}


def test_the_block_never_completes_a_line() -> None:
    game = position({"a1": "R", "b1": "RY", "c1": "RG"})
    play(game, "K@d1")
    assert game.outcome() is None
    # Nor does a window that holds a block count when its other three share a colour.
    play(game, "RB@e1")  # b1 c1 d1(K) e1 would share red but for the block
    assert game.outcome() is None
    assert game.view()["d1"] == "K"


# ----------------------------------------------------------------- blocks
def test_each_player_places_only_their_own_block() -> None:
    game = Tessere()
    play(game, "K@c3")
    assert game.block_cell(0) == "c3" and game.block_cell(1) is None
    assert game.off_board()["K"] == 1
    play(game, "K@a1")  # K always means the mover's own block: this is Player 2's
    assert game.block_cell(1) == "a1" and game.off_board()["K"] == 0
    assert not any(str(m).startswith("K@") for m in game.legal_moves())
    with pytest.raises(IllegalMoveError, match="your block is already on the board at c3"):
        play(game, "K@e5")


def empty_blocks(board: dict[str, str], *keep: str) -> dict[str, str]:
    return {c: t for c, t in board.items() if t != "K" or c in keep}


def test_no_line_board_really_has_no_line() -> None:
    board = board_from(NO_LINE_BOARD)
    tokens = sorted(t for t in board.values() if t != "K")
    assert tokens == sorted(
        t for t, n in Tessere().off_board().items() if t != "K" for _ in range(n)
    )
    for line in [*ROWS_AND_COLUMNS, *LONG, *SHORT, CORNERS]:
        assert not shares_a_colour([board[c] for c in line.split()]), line


def test_forced_block_then_tie_break_to_the_second_block() -> None:
    # All 23 checkers are down, both blocks in hand: Player 2 (ply 24) must place the block.
    game = position(empty_blocks(board_from(NO_LINE_BOARD)), to_move=1, diagonals="all")
    assert sorted(map(str, game.legal_moves())) == ["K@c5", "K@e5"]
    with pytest.raises(IllegalMoveError, match="all 3 RY checkers are already on the board"):
        play(game, "RY@c5")
    with pytest.raises(IllegalMoveError, match="the RYGB checker is already on the board at b1"):
        play(game, "RYGB@c5")
    play(game, "K@e5")
    assert game.outcome() is None and game.legal_moves() == (game.parse_move("K@c5"),)
    play(game, "K@c5")  # the board is full, no line: Player 1 placed their block second
    assert game.outcome() == Outcome(0, Reason.SECOND_BLOCK)
    assert game.winning_cells() == ()


def test_tie_break_goes_to_player_2_when_player_1_blocked_first() -> None:
    board = empty_blocks(board_from(NO_LINE_BOARD), "c5")
    game = position(board, to_move=1, blocks=[[0, "c5"]])
    assert game.legal_moves() == (game.parse_move("K@e5"),)
    play(game, "K@e5")
    assert game.outcome() == Outcome(1, Reason.SECOND_BLOCK)


def test_tie_break_when_the_last_piece_is_a_checker() -> None:
    # RULES.md 1.4 item 5 says the last placement of a game without a line is a block; that
    # holds only when someone keeps their block to the end. Both blocks went down early here.
    board = board_from(NO_LINE_BOARD)
    del board["b1"]  # the RYGB checker is the last piece off the board
    game = position(board, to_move=0, blocks=[[1, "e5"], [0, "c5"]])
    assert [str(m) for m in game.legal_moves()] == ["RYGB@b1"]
    play(game, "RYGB@b1")
    assert game.outcome() == Outcome(0, Reason.SECOND_BLOCK)
    game = position(board, to_move=0, blocks=[[0, "c5"], [1, "e5"]])
    play(game, "RYGB@b1")
    assert game.outcome() == Outcome(1, Reason.SECOND_BLOCK)


def test_a_player_may_place_the_block_while_checkers_remain() -> None:
    game = Tessere()
    play(game, "R@a1")
    assert game.parse_move("K@b2") in game.legal_moves()
    assert game.parse_move("RY@b2") in game.legal_moves()


# ----------------------------------------------------------------- timeouts
def test_move_limit_is_part_of_the_rules() -> None:
    assert Tessere().move_seconds == 60.0
    assert Tessere(move_seconds="90").move_seconds == 90.0
    assert Tessere(move_seconds=0).move_seconds is None
    with pytest.raises(ValueError, match="move_seconds"):
        Tessere(move_seconds=-1)
    with pytest.raises(ValueError, match="on_timeout"):
        Tessere(on_timeout="forfeit")
    with pytest.raises(ValueError, match="diagonals"):
        Tessere(diagonals="none")


def test_timeout_warn_changes_nothing() -> None:
    game = Tessere()
    play(game, "R@a1")
    before = game.to_dict()
    assert game.time_out(1) is None
    assert game.outcome() is None and game.to_dict() == before
    assert game.parse_move("pass") not in game.legal_moves()
    with pytest.raises(IllegalMoveError, match="passing is not allowed"):
        play(game, "pass")


def test_timeout_lose() -> None:
    game = Tessere(on_timeout="lose")
    play(game, "R@a1")
    assert game.time_out(1) == Outcome(0, Reason.TIME)
    assert game.outcome() == Outcome(0, Reason.TIME) and game.legal_moves() == ()
    again = Tessere.from_dict(json.loads(json.dumps(game.to_dict())))
    assert again.outcome() == Outcome(0, Reason.TIME)
    game = Tessere(on_timeout="lose")
    assert game.time_out(0) == Outcome(1, Reason.TIME)


def test_timeout_only_for_the_player_to_move_and_not_after_the_end() -> None:
    game = Tessere(on_timeout="lose")
    assert game.time_out(1) is None and game.outcome() is None  # stale: not Player 2's turn
    game = Tessere(on_timeout="pass")
    assert game.time_out(1) is None and game.history == ()
    game = position({"a1": "R", "b1": "RY", "c1": "RG"}, on_timeout="lose")
    play(game, "RB@d1")
    assert game.time_out(1) is None and game.outcome() == Outcome(0, Reason.LINE)


def test_timeout_pass_loses_the_turn_as_a_recorded_action() -> None:
    game = Tessere(on_timeout="pass")
    play(game, "R@a1")
    view = game.view()
    assert game.time_out(1) is None
    assert game.current_player == 0 and game.view() == view
    assert [str(m) for m in game.history] == ["R@a1", "pass"]
    again = Tessere.from_dict(json.loads(json.dumps(game.to_dict())))
    assert again.to_dict() == game.to_dict()
    assert str(game.undo()) == "pass" and game.current_player == 1
    # Under this policy a player may also give up the turn without waiting for the clock.
    play(game, "pass")
    assert game.current_player == 0


def test_a_player_with_nothing_to_place_must_pass() -> None:
    # No timeout needed (RULES.md 1.4 item 1 misses it): Player 1 put the block down early,
    # Player 2 kept theirs; after the 23rd checker Player 1 (ply 25) has nothing to place.
    board = empty_blocks(board_from(NO_LINE_BOARD), "c5")
    for policy in ("warn", "pass"):
        game = position(board, to_move=0, blocks=[[0, "c5"]], on_timeout=policy)
        assert [str(m) for m in game.legal_moves()] == ["pass"]
        with pytest.raises(IllegalMoveError, match="Player 1 has nothing left to place"):
            play(game, "K@e5")
        play(game, "pass")
        passing = ["pass"] if policy == "pass" else []
        assert [str(m) for m in game.legal_moves()] == ["K@e5", *passing]
        play(game, "K@e5")
        assert game.outcome() == Outcome(1, Reason.SECOND_BLOCK)


# ----------------------------------------------------------------- notation, records
def test_notation() -> None:
    game = Tessere()
    assert str(game.parse_move("yr@C3")) == "RY@c3"
    assert str(game.parse_move(" BGYR @ e5 ")) == "RYGB@e5"
    assert str(game.parse_move("k@a1")) == "K@a1"
    assert str(game.parse_move("PASS")) == "pass"
    with pytest.raises(ValueError, match="'z9' is not a cell of the 5x5 board"):
        game.parse_move("R@z9")
    with pytest.raises(ValueError, match="no checker has the colours RYG"):
        game.parse_move("RYG@a1")
    with pytest.raises(ValueError, match="'RX' is not a checker"):
        game.parse_move("RX@a1")
    with pytest.raises(ValueError, match="'RR' is not a checker"):
        game.parse_move("RR@a1")
    with pytest.raises(ValueError, match="write a checker and a cell like RY@c3"):
        game.parse_move("c3")


def test_occupied_cell_is_explained() -> None:
    game = Tessere()
    play(game, "RY@c3")
    with pytest.raises(IllegalMoveError, match="c3 is occupied \\(by RY\\)"):
        play(game, "GB@c3")


def test_set_position_checks_the_position() -> None:
    with pytest.raises(ValueError, match="too many R checkers"):
        position({"a1": "R", "b1": "R"})
    with pytest.raises(ValueError, match="blocks as \\[player, cell\\]"):
        position({"a1": "K"})
    with pytest.raises(ValueError, match="no K on 'b1'"):
        position({"a1": "K"}, blocks=[[0, "b1"]])
    with pytest.raises(ValueError, match="already has a complete configuration"):
        position({"a1": "R", "b1": "RY", "c1": "RG", "d1": "RB"})
    with pytest.raises(ValueError, match="to_move"):
        position({}, to_move=2)
    # A full board without an outcome is decided by the blocks.
    game = position(board_from(NO_LINE_BOARD), blocks=[[1, "e5"], [0, "c5"]])
    assert game.outcome() == Outcome(0, Reason.SECOND_BLOCK) and game.legal_moves() == ()


def test_board_text_says_whose_block() -> None:
    game = Tessere()
    play(game, "RYGB@a5", "K@e1")
    text = str(game)
    assert "5   RYGB  ." in text and "K2    1" in text
    assert "blocks in hand: Player 1" in text
    assert "RYGB" not in text.splitlines()[-2]  # no longer off the board


# ----------------------------------------------------------------- random games
@pytest.mark.parametrize("params", [{}, {"diagonals": "all"}, {"on_timeout": "pass"}])
def test_random_games_keep_the_pieces_and_end_by_line_or_full_board(params: dict[str, Any]) -> None:
    rng = random.Random(f"tessere{params}")
    full_set = Tessere().off_board()
    endings = set()
    for _ in range(60):
        game = Tessere(**params)
        while game.outcome() is None:
            if params.get("on_timeout") == "pass" and rng.random() < 0.1:
                game.time_out(game.current_player)
            else:
                game.apply(rng.choice(game.legal_moves()))
            placed = list(game.view().values())
            off = game.off_board()
            assert all(placed.count(t) + off[t] == n for t, n in full_set.items())
        outcome = game.outcome()
        assert outcome is not None
        endings.add(outcome.reason)
        view = game.view()
        shared = [line for line in game.configurations if shares_a_colour([view[c] for c in line])]
        # Every action, a pass too, hands the turn over: ply k is player k % 2's.
        if outcome.reason == "line":
            assert outcome.winner == (len(game.history) - 1) % 2
            last_cell = str(game.history[-1]).split("@")[1]
            assert all(last_cell in line for line in shared)  # no line was complete before
            assert set(game.winning_cells()) == {c for line in shared for c in line}
        else:
            assert outcome.reason == "second block" and not shared and all(view.values())
            block_plies = [k for k, m in enumerate(game.history) if str(m).startswith("K@")]
            assert len(block_plies) == 2 and outcome.winner == block_plies[1] % 2
    assert endings <= {"line", "second block"} and "line" in endings
