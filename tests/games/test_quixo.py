"""Quixo rules (RULES.md section 2): takes, pushes, lines, the 4-player dots and skips, draws.

Positions are written as ``set_position`` boards: rows from the top rank down, tokens split
by spaces (``.`` blank, ``O``, ``X``; with four players ``On`` ``Xe`` ...).
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from tavola.games import IllegalMoveError, Outcome, Reason, new_game
from tavola.games.quixo import Quixo, QuixoMove

EMPTY5 = [". . . . ."] * 5


def quixo(**params: Any) -> Quixo:
    game = new_game("quixo", **params)
    assert isinstance(game, Quixo)
    return game


def position(rows: list[str], to_move: int = 0, **params: Any) -> Quixo:
    game = quixo(**params)
    game.set_position({"board": rows, "to_move": to_move})
    return game


def play(game: Quixo, *texts: str) -> None:
    for text in texts:
        game.apply(game.parse_move(text))


def moves_of(game: Quixo) -> set[str]:
    return {str(m) for m in game.legal_moves()}


# --------------------------------------------------------------------- taking and pushing
@pytest.mark.parametrize(("size", "count"), [(5, 44), (4, 32), (3, 20)])
def test_empty_board_move_counts(size: int, count: int) -> None:
    # 5x5: 12 edge cubes x 3 + 4 corners x 2 = 44 (RULES 2.3); 3x3: 20 (RULES 2.4).
    assert len(quixo(size=size).legal_moves()) == count


def test_corner_has_two_pushes_and_edge_cube_three() -> None:
    legal = moves_of(quixo())
    assert {m for m in legal if m.startswith("a1>")} == {"a1>e1", "a1>a5"}
    assert {m for m in legal if m.startswith("b1>")} == {"b1>a1", "b1>e1", "b1>b5"}
    assert {m for m in legal if m.startswith("a3>")} == {"a3>a1", "a3>a5", "a3>e3"}
    assert not any(m.startswith(("b2>", "c3>", "d4>")) for m in legal)


def test_only_border_cubes_may_be_taken() -> None:
    g = quixo()
    with pytest.raises(IllegalMoveError, match="c3 is inside the board"):
        play(g, "c3>c1")


def test_the_cube_never_goes_back_where_it_was_taken() -> None:
    g = quixo()
    with pytest.raises(IllegalMoveError, match=r"may not go back where it was taken \(b1\)"):
        play(g, "b1>b1")
    with pytest.raises(IllegalMoveError, match="push it in at a1 or e1 or b5"):
        play(g, "b1>c3")


def test_push_along_a_row_slides_the_cubes_towards_the_gap() -> None:
    # Row 1 holds X O X . X; O takes the blank d1 and pushes in at a1: a1..c1 slide right.
    g = position([". . . . ."] * 4 + ["X O X . X"])
    play(g, "d1>a1")
    assert [g.view()[c] for c in ("a1", "b1", "c1", "d1", "e1")] == ["O", "X", "O", "X", "X"]


def test_push_along_a_column_slides_the_cubes_towards_the_gap() -> None:
    # Column c from c1 up: . X O X .; O takes c1 and pushes in at c5: c2..c5 slide down.
    g = position([". . . . .", ". . X . .", ". . O . .", ". . X . .", ". . . . ."])
    play(g, "c1>c5")
    assert [g.view()[f"c{r}"] for r in range(1, 6)] == ["X", "O", "X", ".", "O"]
    assert g.current_player == 1


def test_a_blank_or_own_cube_goes_back_with_the_mover_mark() -> None:
    g = position([". . . . .", ". . . . .", "X . . . .", ". . . . .", "O . . . ."], to_move=0)
    play(g, "a1>e1")  # O's own cube moves from a1 to e1
    assert g.view()["e1"] == "O" and g.view()["a1"] == "."
    play(g, "a1>e1")  # X takes the blank that slid to a1
    assert [g.view()[c] for c in ("a1", "b1", "c1", "d1", "e1")] == [".", ".", ".", "O", "X"]


def test_the_opponents_cubes_may_not_be_taken() -> None:
    g = position([". . . . .", ". . . . .", ". . . . .", ". . . . .", "X . . . O"])
    assert not any(m.startswith("a1>") for m in moves_of(g))  # X's cube
    assert {m for m in moves_of(g) if m.startswith("e1>")} == {"e1>a1", "e1>e5"}
    with pytest.raises(IllegalMoveError, match=r"a1 shows the other side's mark \(X\)"):
        play(g, "a1>e1")


def test_first_round_only_blank_cubes_exist() -> None:
    g = quixo()
    play(g, "a1>e1")
    # X's first move: the O cube at e1 is not takeable, everything else is blank.
    assert not any(m.startswith("e1>") for m in moves_of(g))
    assert len(g.legal_moves()) == 44 - 2


# --------------------------------------------------------------------- lines
@pytest.mark.parametrize(
    ("rows", "move"),
    [
        # row 5: a5 blank, O at b5..e5; taking a5 and pushing in at e5 fills the row
        ([". O O O O", ". . . . .", ". . . . .", ". . . . .", ". . . . ."], "a5>e5"),
        # column a: O at a2..a5; taking a1 and pushing in at a5 slides them down
        (["O . . . .", "O . . . .", "O . . . .", "O . . . .", ". . . . ."], "a1>a5"),
        # diagonal a1-e5 without d4: taking d5 and pushing in at d1 lifts d3's O to d4
        (["X . . . O", ". . . . .", ". . O O .", ". O . . .", "O . . . ."], "d5>d1"),
        # diagonal a5-e1 without d2: taking d1 and pushing in at d5 drops d3's O to d2
        (["O . . . .", ". O . . .", ". . O O .", ". . . . .", ". . . . O"], "d1>d5"),
    ],
    ids=["row", "column", "diagonal", "anti-diagonal"],
)
def test_a_line_of_the_mover_mark_wins(rows: list[str], move: str) -> None:
    g = position(rows)
    assert g.outcome() is None
    play(g, move)
    assert g.outcome() == Outcome(0, Reason.LINE)
    assert g.legal_moves() == ()
    with pytest.raises(IllegalMoveError, match="the game is over"):
        play(g, "b1>b5")


def test_making_the_opponents_line_loses() -> None:
    # Row 5 is O O O O X and e4 holds O: X takes its own e5 cube and pushes it in at e1,
    # so column e slides up and the O from e4 completes O's row 5.
    g = position(["O O O O X", ". . . . O", ". . . . .", ". . . . .", ". . . . ."], to_move=1)
    play(g, "e5>e1")
    assert g.view()["e5"] == "O" and g.view()["e1"] == "X"
    assert g.outcome() == Outcome(0, Reason.OPPONENT_LINE)


def test_making_both_lines_at_once_still_loses() -> None:
    # X takes e1 and pushes in at e5: its X completes row 5, while column e slides down
    # and the O from e2 lands on e1, completing O's row 1.
    g = position(["X X X X .", ". . . . .", ". . . . .", ". . . . O", "O O O O ."], to_move=1)
    play(g, "e1>e5")
    assert g.view()["e5"] == "X" and g.view()["e1"] == "O"
    assert g.outcome() == Outcome(0, Reason.OPPONENT_LINE)


def test_column_win_by_hand() -> None:
    # O pushes blanks out of column a from the top four times while X does the same in
    # column e; O's fifth push fills column a (ply 9).
    g = quixo()
    for _ in range(4):
        play(g, "a1>a5", "e1>e5")
    assert g.outcome() is None
    assert [g.view()[f"a{r}"] for r in range(1, 6)] == [".", "O", "O", "O", "O"]
    play(g, "a1>a5")
    assert g.outcome() == Outcome(0, Reason.LINE)


# --------------------------------------------------------------------- parameters
def test_first_player_is_circle_by_default_and_cross_on_request() -> None:
    g = quixo()
    assert g.player_names == ("Circle", "Cross")
    play(g, "a1>e1")
    assert g.view()["e1"] == "O"
    g = quixo(first="cross")
    assert g.player_names == ("Cross", "Circle") and g.current_player == 0
    play(g, "a1>e1")
    assert g.view()["e1"] == "X"
    # player 0 is still the one who moved first, so X's line is a win for player 0
    g = position([". X X X X"] + [". . . . ."] * 4, first="cross")
    play(g, "a5>e5")
    assert g.outcome() == Outcome(0, Reason.LINE)


def test_small_boards() -> None:
    g = quixo(size=3)
    assert sorted(g.view()) == sorted(f"{f}{r}" for f in "abc" for r in (1, 2, 3))
    assert "b2" not in {str(m).split(">")[0] for m in g.legal_moves()}
    play(g, "a1>a3", "c1>c3", "a1>a3", "c1>c3")
    assert g.outcome() is None
    play(g, "a1>a3")  # column a: O O O
    assert g.outcome() == Outcome(0, Reason.LINE)
    with pytest.raises(ValueError, match="'d1' is not a cell of the 3x3 quixo board"):
        quixo(size=3).parse_move("a1>d1")
    with pytest.raises(ValueError, match="'size' must be one of 3, 4, 5"):
        quixo(size=6)


CYCLE = ["a3>e3", "a2>e2", "e3>a3", "e2>a2"]


def test_repetition_is_no_draw_by_default() -> None:
    g = quixo()
    for _ in range(5):
        play(g, *CYCLE)
    assert g.outcome() is None


def test_threefold_repetition_draw_when_enabled() -> None:
    # After the first two moves the cycle returns to the same board, O to move, every
    # four moves: the third occurrence comes after ply 10.
    g = quixo(threefold_repetition=True)
    play(g, *CYCLE[:2])
    for _ in range(2):
        play(g, *CYCLE[2:], *CYCLE[:1])
        assert g.outcome() is None
        play(g, CYCLE[1])
    assert len(g.history) == 10
    assert g.outcome() == Outcome(None, Reason.THREEFOLD_REPETITION)
    g.undo()
    assert g.outcome() is None


def test_move_cap_draw_and_a_line_on_the_last_move_still_wins() -> None:
    g = quixo(max_plies=4)
    play(g, "a1>a5", "e1>e5", "a1>a5")
    assert g.outcome() is None
    play(g, "e1>e5")
    assert g.outcome() == Outcome(None, Reason.MOVE_CAP)
    g = quixo(max_plies=9)
    for _ in range(4):
        play(g, "a1>a5", "e1>e5")
    play(g, "a1>a5")
    assert g.outcome() == Outcome(0, Reason.LINE)
    assert quixo().options["max_plies"] == 0


def test_require_announcement_is_not_a_parameter() -> None:
    with pytest.raises(ValueError, match="unknown parameter 'require_announcement'"):
        quixo(require_announcement=True)


# --------------------------------------------------------------------- notation
def test_notation_round_trips_and_errors_are_plain() -> None:
    g = quixo()
    assert g.parse_move(" A1>E1 ") == QuixoMove("a1", "e1")
    assert str(g.parse_move("a1>e1")) == "a1>e1"
    for text, message in [
        ("a1e1", "not a Quixo move: write the cube you take, '>'"),
        ("z9>a1", "'z9' is not a cell of the 5x5 quixo board; cells are a1 ... e5"),
        ("a1>e1:q", "'q' is not a dot direction; use n, e, s or w"),
    ]:
        with pytest.raises(ValueError, match=message):
            g.parse_move(text)
    with pytest.raises(IllegalMoveError, match="the 2-player game has no dots: write a1>e1"):
        play(g, "a1>e1:n")


# --------------------------------------------------------------------- four players
SEATS = ["Circle south (A1)", "Cross west (B1)", "Circle north (A2)", "Cross east (B2)"]


def test_four_player_seats_and_dot_choices() -> None:
    g = quixo(players=4)
    assert list(g.player_names) == SEATS
    assert len(g.legal_moves()) == 88  # 44 pushes x 2 dot directions
    assert {m.dot for m in g.legal_moves()} == {"n", "s"}  # A1 south: self or partner
    play(g, "a1>e1:s")
    assert g.view()["e1"] == "Os" and g.current_player == 1
    assert {m.dot for m in g.legal_moves()} == {"e", "w"}  # B1 west
    with pytest.raises(IllegalMoveError, match=r"dot must point at you \(w\) or your partner"):
        play(g, "a2>e2:n")
    with pytest.raises(IllegalMoveError, match="say which way the dot points: a2>e2:e or a2>e2:w"):
        play(g, "a2>e2")
    play(g, "a2>e2:w", "a3>e3:n", "a4>e4:e")
    assert [g.view()[f"e{r}"] for r in range(1, 5)] == ["Os", "Xw", "On", "Xe"]
    assert g.current_player == 0


def test_team_cube_only_when_its_dot_points_at_the_mover() -> None:
    rows = ["On . . . .", ". . . . .", ". . . . .", ". . . . .", "Os . . . Ow"]
    with pytest.raises(ValueError, match="e1: 'Ow' points at an opponent"):
        position(rows, players=4)
    rows = ["On . . . .", ". . . . .", ". . . . .", ". . . . .", "Os . . . On"]
    g = position(rows, players=4)  # A1 (south) to move
    takes = {m.take for m in g.legal_moves()}
    assert "a1" in takes and "a5" not in takes and "e1" not in takes
    with pytest.raises(IllegalMoveError, match="the dot on e1 points north, not at you"):
        play(g, "e1>a1:s")
    g = position(rows, to_move=2, players=4)  # A2 (north): the other way round
    takes = {m.take for m in g.legal_moves()}
    assert "a1" not in takes and "a5" in takes and "e1" in takes


def test_sideways_dots_only_when_enabled() -> None:
    g = quixo(players=4, sideways_dots=True)
    assert {m.dot for m in g.legal_moves()} == {"n", "e", "s", "w"}
    play(g, "a1>e1:e")
    assert g.view()["e1"] == "Oe"
    # nobody may take a cube pointing at an opponent: not A1, not A2, and B never takes O
    for seat in range(4):
        g.set_position({"board": g.to_dict()["state"]["board"], "to_move": seat})
        assert "e1" not in {m.take for m in g.legal_moves()}


def test_team_line_wins_whatever_the_dots() -> None:
    rows = [". . . . .", ". . . . .", ". . . . .", ". . . . .", ". On Os On Os"]
    g = position(rows, to_move=2, players=4)  # A2 completes row 1 from the a-side
    play(g, "a5>a1:s")
    # column a slides up: a1 gets the new cube, so row 1 reads Os On Os On Os
    assert g.outcome() == Outcome(0, Reason.LINE, (0, 2))
    rows = [". . . . .", ". . . . .", ". . . . .", ". . . . .", ". Xe Xw Xe Xw"]
    g = position(rows, to_move=2, players=4)  # A2 puts its O in front of B's row
    play(g, "a5>a1:n")
    assert g.outcome() is None
    g = position(rows, to_move=1, players=4)  # B1 completes it
    play(g, "a5>a1:e")
    assert g.outcome() == Outcome(1, Reason.LINE, (1, 3))


def test_making_the_other_teams_line_loses_for_the_team() -> None:
    rows = ["Xe Xe Xe Xe On", ". . . . Xw", ". . . . .", ". . . . .", ". . . . ."]
    g = position(rows, to_move=2, players=4)  # A2 pushes column e up from e1
    play(g, "e5>e1:n")
    assert g.view()["e5"] == "Xw"
    assert g.outcome() == Outcome(1, Reason.OPPONENT_LINE, (1, 3))


# Border of alternating marks (no line anywhere): O where file+rank is even, X elsewhere.
# ``o`` and ``x`` are the dots; a1 is blank so that exactly one blank cube exists.
def ring(o: str, x: str) -> list[str]:
    rows = []
    for r in range(4, -1, -1):
        cells = []
        for f in range(5):
            if (0 < r < 4 and 0 < f < 4) or (r == 0 and f == 0):
                cells.append(".")
            else:
                cells.append("O" + o if (r + f) % 2 == 0 else "X" + x)
        rows.append(" ".join(cells))
    return rows


def test_a_stuck_seat_misses_its_turn() -> None:
    # O cubes point north (at A2), X cubes point west (at B1); a1 is the one blank.
    g = position(ring("n", "w"), players=4)
    assert g.current_player == 0
    play(g, "a1>e1:n")  # A1 uses the only blank; row 1 slides left
    # B1 may take its X cubes (dot west); so B1 moves.
    assert g.current_player == 1 and g.to_dict()["state"]["skipped"] == []
    g = position(ring("n", "e"), players=4)  # X cubes point east (at B2)
    play(g, "a1>e1:n")
    # B1 has no blank and no X pointing west: skipped; A2 may take the O cubes.
    assert g.current_player == 2
    assert g.to_dict()["state"]["skipped"] == [1]
    assert "Cross west (B1) could not move" in str(g)
    assert g.legal_moves()
    g.undo()
    assert g.current_player == 0 and g.to_dict()["state"]["skipped"] == []


def test_a_stuck_seat_to_move_in_a_loaded_position_is_skipped() -> None:
    rows = ring("n", "e")
    rows[4] = "Xe" + rows[4][1:]  # no blank left: a1 holds an X pointing east
    g = position(rows, to_move=1, players=4)  # B1 cannot move
    assert g.current_player == 2 and g.to_dict()["state"]["skipped"] == [1]


def test_a_full_round_without_a_move_is_a_draw() -> None:
    # Sideways dots: O cubes point east, X cubes point north; nobody can take anything
    # once the last blank is gone.
    g = position(ring("e", "n"), players=4, sideways_dots=True)
    play(g, "a1>e1:w")
    assert g.outcome() == Outcome(None, Reason.BLOCKED)
    assert g.legal_moves() == ()
    g.undo()
    play(g, "a1>e1:s")  # this cube points at A1 itself: the others skip, A1 moves again
    assert g.outcome() is None and g.current_player == 0
    assert g.to_dict()["state"]["skipped"] == [1, 2, 3]
    rows = ring("e", "n")
    rows[4] = "Xn" + rows[4][1:]
    g = position(rows, players=4, sideways_dots=True)
    assert g.outcome() == Outcome(None, Reason.BLOCKED)


def test_four_player_tokens_and_sensing() -> None:
    g = quixo(players=4)
    assert quixo().needs == "identity"
    play(g, "c1>c5:n", "a3>e3:w")
    view = g.view()
    assert view["c5"] == "On" and view["e3"] == "Xw" and view["a1"] == "."
    assert set(g.view("occupancy").values()) == {"#"}


def test_four_player_notation_needs_the_dot() -> None:
    g = quixo(players=4)
    assert str(g.legal_moves()[0]).count(":") == 1
    assert g.parse_move("a1>e1:N") == QuixoMove("a1", "e1", "n")


def test_time_out_in_the_team_game_is_left_to_the_session() -> None:
    assert quixo(players=4).time_out(0) is None
    assert quixo().time_out(0) == Outcome(1, Reason.TIME)


# --------------------------------------------------------------------- positions
def test_set_position_validates_and_judges_lines() -> None:
    g = quixo()
    with pytest.raises(ValueError, match="board must be a list of 5 rows"):
        g.set_position({"board": EMPTY5[:4]})
    with pytest.raises(ValueError, match="rank 3 must have 5 tokens"):
        g.set_position({"board": [". . . . .", ". . . . .", ". . . .", ". . . . .", EMPTY5[0]]})
    with pytest.raises(ValueError, match="c5: 'Q' is not a 2-player token"):
        g.set_position({"board": [". . Q . .", *EMPTY5[1:]]})
    with pytest.raises(ValueError, match=r"to_move must be a player index 0 \.\.\. 1"):
        g.set_position({"board": EMPTY5, "to_move": 2})
    # A line already on the board: the player before to_move made it.
    g.set_position({"board": ["X X X X X", *EMPTY5[1:]], "to_move": 0})
    assert g.outcome() == Outcome(1, Reason.LINE)
    g.set_position({"board": ["X X X X X", "O O O O O", *EMPTY5[2:]], "to_move": 0})
    assert g.outcome() == Outcome(0, Reason.OPPONENT_LINE)


def test_state_dict_round_trip() -> None:
    g = quixo(players=4)
    play(g, "b1>b5:n", "a2>e2:e")
    state = g.to_dict()["state"]
    assert state["board"][0] == ". On . . ."
    assert state["to_move"] == 2 and state["ply"] == 2
    twin = quixo(players=4)
    twin.set_position(state)
    assert twin.to_dict()["state"] == state and twin.view() == g.view()


# --------------------------------------------------------------------- random games
def reference_successors(board: dict[str, str], mark: str, n: int = 5) -> dict[str, dict[str, str]]:
    """Every 2-player move and its board, written independently of the engine.

    A push is "remove the taken cube from its line, then add the new cube at the chosen
    end": the other cubes of the line keep their order.
    """
    files = "abcde"[:n]
    out: dict[str, dict[str, str]] = {}
    for f in range(n):
        for r in range(n):
            cell = f"{files[f]}{r + 1}"
            if not (f in (0, n - 1) or r in (0, n - 1)) or board[cell] not in (".", mark):
                continue
            row = [f"{files[k]}{r + 1}" for k in range(n)]
            col = [f"{files[f]}{k + 1}" for k in range(n)]
            for line in (row, col):
                rest = [board[c] for c in line if c != cell]
                for end, order in ((line[0], [mark, *rest]), (line[-1], [*rest, mark])):
                    if end == cell:
                        continue
                    after = dict(board)
                    after.update(zip(line, order, strict=True))
                    out[f"{cell}>{end}"] = after
    return out


def test_moves_agree_with_an_independent_push_model() -> None:
    rng = random.Random(7)
    for _ in range(30):
        g = quixo()
        while g.outcome() is None and len(g.history) < 60:
            mark = "O" if g.current_player == 0 else "X"
            expected = reference_successors(g.view(), mark)
            assert moves_of(g) == set(expected)
            for move in g.legal_moves():
                g.apply(move)
                assert g.view() == expected[str(move)], str(move)
                g.undo()
            g.apply(rng.choice(g.legal_moves()))


@pytest.mark.parametrize("players", [2, 4])
def test_random_game_invariants(players: int) -> None:
    rng = random.Random(players)
    for _ in range(20):
        g = quixo(players=players)
        while g.outcome() is None:
            before = g.view()
            seat = g.current_player
            mark = "O" if seat % 2 == 0 else "X"
            move = rng.choice(g.legal_moves())
            taken_blank = before[move.take] == "."
            g.apply(move)
            after = g.view()
            count = {t: sum(v[:1] == t for v in after.values()) for t in "OX."}
            was = {t: sum(v[:1] == t for v in before.values()) for t in "OX."}
            # 25 cubes; the opponents' count never changes; the mover gains a cube only
            # when a blank was taken; blanks never come back.
            assert sum(count.values()) == 25
            other = "X" if mark == "O" else "O"
            assert count[other] == was[other]
            assert count[mark] == was[mark] + taken_blank
            assert after[move.push][:1] == mark
            if players == 4:
                # dots: team A (O) always north/south, team B (X) always east/west
                assert all(v in (".", "On", "Os", "Xe", "Xw") for v in after.values())
                assert after[move.push][1:] == move.dot
                if g.outcome() is None:
                    skipped = g.to_dict()["state"]["skipped"]
                    assert g.current_player == (seat + 1 + len(skipped)) % 4
        outcome = g.outcome()
        assert outcome is not None and outcome.reason in (Reason.LINE, Reason.OPPONENT_LINE)
        assert len(outcome.winners) == players // 2


# --------------------------------------------------------------------- solved boards
@pytest.mark.slow
def test_three_by_three_is_a_first_player_win() -> None:
    """Solve 3x3 Quixo with the engine's moves: retrograde analysis over all positions
    reachable from the empty board (the game graph has cycles, so iterate to a fixpoint)."""
    n = 3
    g = quixo(size=n)

    def rows(board: str) -> list[str]:
        return [" ".join(board[r * n : (r + 1) * n]) for r in reversed(range(n))]

    start = ("." * n * n, 0)
    children: dict[tuple[str, int], list[Any]] = {}
    todo = [start]
    while todo:
        state = todo.pop()
        if state in children:
            continue
        g.set_position({"board": rows(state[0]), "to_move": state[1]})
        kids: list[Any] = []
        for move in g.legal_moves():
            g.apply(move)
            result = g.outcome()
            if result is not None:
                kids.append(result.winner)
            else:
                kid = ("".join(g.board), g.current_player)
                kids.append(kid)
                todo.append(kid)
            g.undo()
        children[state] = kids
    value: dict[tuple[str, int], int] = {}  # +1 win / -1 loss for the player to move
    changed = True
    while changed:
        changed = False
        for state, kids in children.items():
            if state in value:
                continue
            results = [
                (1 if k == state[1] else -1) if isinstance(k, int) else -value.get(k, 0)
                for k in kids
            ]
            if 1 in results:
                value[state] = 1
                changed = True
            elif all(r == -1 for r in results):
                value[state] = -1
                changed = True
    assert value.get(start) == 1
