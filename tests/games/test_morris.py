"""Nine Men's Morris: the rules of RULES.md section 5, each edge case and each parameter.

Positions are set up with ``set_position``; expected results are worked out by hand from the
board diagram in the comments (or by the small independent reference model at the bottom,
written from the RULES.md tables and not from the engine's bitboards).
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from tavola.games import Game, IllegalMoveError, Outcome, Reason, new_game, perft
from tavola.games.morris import POINTS, Morris, MorrisMove

# The 24 points of RULES.md "Notation", in its order.
RULES_POINTS = [
    "a1", "a4", "a7", "b2", "b4", "b6", "c3", "c4", "c5", "d1", "d2", "d3",
    "d5", "d6", "d7", "e3", "e4", "e5", "f2", "f4", "f6", "g1", "g4", "g7",
]  # fmt: skip
# The 16 lines exactly as RULES.md 5.2 lists them (rows, then columns), in order along
# each line, so the second point of a line is next to both others.
RULES_LINES = [
    ("a7", "d7", "g7"), ("b6", "d6", "f6"), ("c5", "d5", "e5"), ("a4", "b4", "c4"),
    ("e4", "f4", "g4"), ("c3", "d3", "e3"), ("b2", "d2", "f2"), ("a1", "d1", "g1"),
    ("a7", "a4", "a1"), ("b6", "b4", "b2"), ("c5", "c4", "c3"), ("d7", "d6", "d5"),
    ("d3", "d2", "d1"), ("e5", "e4", "e3"), ("f6", "f4", "f2"), ("g7", "g4", "g1"),
]  # fmt: skip
RULES_MILLS = [set(line) for line in RULES_LINES]
# Adjacency = consecutive points along the lines.
REF_ADJ: dict[str, set[str]] = {p: set() for p in RULES_POINTS}
for _a, _mid, _b in RULES_LINES:
    REF_ADJ[_a].add(_mid)
    REF_ADJ[_b].add(_mid)
    REF_ADJ[_mid] |= {_a, _b}


def position(
    white: str = "",
    black: str = "",
    *,
    hand: tuple[int, int] = (0, 0),
    to_move: int = 0,
    **params: Any,
) -> Morris:
    """A game with White's and Black's men on the points given (space-separated)."""
    game = Morris(**params)
    board = {p: "W" for p in white.split()} | {p: "B" for p in black.split()}
    game.set_position({"board": board, "hand": list(hand), "to_move": to_move})
    return game


def play(game: Morris, moves: str) -> None:
    for text in moves.split():
        game.apply(game.parse_move(text))


def legal(game: Game[Any]) -> set[str]:
    return {str(m) for m in game.legal_moves()}


# ------------------------------------------------------------------ board and notation
def test_points_mills_and_neighbours_match_rules_md() -> None:
    from tavola.games import morris as mod

    assert sorted(mod.POINTS) == RULES_POINTS
    assert sorted(sorted(mod.POINTS[i] for i in m) for m in mod.MILLS) == sorted(
        sorted(m) for m in RULES_MILLS
    )
    for i, name in enumerate(mod.POINTS):
        assert {mod.POINTS[j] for j in mod.NEIGHBOURS[i]} == REF_ADJ[name], name
    degree = sorted(len(REF_ADJ[p]) for p in RULES_POINTS)
    assert degree == [2] * 12 + [3] * 8 + [4] * 4
    assert {p for p in RULES_POINTS if len(REF_ADJ[p]) == 4} == {"d6", "b4", "f4", "d2"}


def test_notation_round_trips_and_moves_are_interned() -> None:
    g = Morris()
    for text in ("d2", "a1-a4", "g7-c3", "xg7", "pass"):
        move = g.parse_move(text)
        assert str(move) == text
        assert g.parse_move(f" {text.upper()} ") is move
        assert eval(repr(move), {"MorrisMove": MorrisMove}) is move


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("z9", "'z9' is not a point of the morris board; points are a1 a4 a7"),
        ("d4", "'d4' is not a point"),
        ("xb7", "'b7' is not a point"),
        ("a1-a1", "must move to another point"),
        ("a1-a4-a7", "two points joined by '-'"),
    ],
)
def test_bad_notation_is_explained(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Morris().parse_move(text)


def test_needs_occupancy_and_reports_w_b_tokens() -> None:
    assert Morris.needs == "occupancy"
    g = Morris()
    play(g, "d2 g7")
    view = g.view()
    assert sorted(view) == RULES_POINTS
    assert view["d2"] == "W" and view["g7"] == "B"
    assert {t for c, t in view.items() if c not in ("d2", "g7")} == {""}
    assert g.view("occupancy")["d2"] == "#"


def test_every_default_of_rules_md_is_a_parameter() -> None:
    table = Morris.param_table()
    defaults = {name: p.default for name, p in table.items()}
    assert defaults == {
        "strict_seed": False,
        "remove_per_mill": 1,
        "flying": True,
        "reformed_mills": "count",
        "optional_removal": False,
        "threefold_repetition": True,
        "no_removal_plies": 100,
    }
    assert all(p.doc for p in table.values())
    with pytest.raises(ValueError, match="remove_per_mill"):
        Morris(remove_per_mill=3)


# ------------------------------------------------------------------ placing and removal
def test_placing_alternates_and_the_removal_is_a_separate_action() -> None:
    g = Morris()
    assert len(g.legal_moves()) == 24
    play(g, "a1 b2 a4 b4")
    assert g.current_player == 0
    play(g, "a7")  # a1-a4-a7: a mill
    assert g.current_player == 0, "White still has to remove"
    # Black's men b2, b4 are both outside mills: either may go.
    assert legal(g) == {"xb2", "xb4"}
    play(g, "xb4")
    assert g.current_player == 1
    assert g.view()["b4"] == ""
    assert g.to_dict()["state"]["hand"] == [6, 7], "a removed man does not go back to the hand"


def test_men_in_mills_are_protected_while_others_exist() -> None:
    # Black: mill a1-d1-g1 and a loose man on b4. White closes b2-d2-f2 with f4-f2.
    g = position("b2 d2 f4 c5", "a1 d1 g1 b4")
    play(g, "f4-f2")
    assert legal(g) == {"xb4"}
    with pytest.raises(IllegalMoveError, match=r"d1 is in a mill.*remove one of b4"):
        g.apply(g.parse_move("xd1"))


def test_all_men_in_mills_may_be_removed_by_default() -> None:
    # Every black man is in a mill (a1-d1-g1, a7-d7-g7).
    g = position("b2 d2 f4 c5", "a1 d1 g1 a7 d7 g7")
    play(g, "f4-f2")
    assert legal(g) == {"xa1", "xd1", "xg1", "xa7", "xd7", "xg7"}
    play(g, "xd7")
    assert g.current_player == 1


def test_strict_seed_gives_no_removal_when_all_are_in_mills() -> None:
    g = position("b2 d2 f4 c5", "a1 d1 g1 a7 d7 g7", strict_seed=True)
    play(g, "f4-f2")
    assert g.current_player == 1, "the mill earns nothing: the turn passes"
    assert g.view()["a1"] == "B" and sum(t == "B" for t in g.view().values()) == 6
    assert all(m.kind != 2 for m in g.legal_moves())
    # ... but a loose man is still taken under strict_seed.
    g = position("b2 d2 f4 c5", "a1 d1 g1 b4", strict_seed=True)
    play(g, "f4-f2")
    assert legal(g) == {"xb4"}


def test_a_mill_with_no_opposing_man_on_the_board_passes_the_turn() -> None:
    # Placing phase: Black has nothing on the board yet (all in hand).
    g = position("a1 d1", "", hand=(5, 7))
    play(g, "g1")
    assert g.current_player == 1
    assert g.outcome() is None


def test_two_mills_at_once_give_one_removal_by_default() -> None:
    # White a1 d1 (row a1-d1-g1) and g7 g4 (column g7-g4-g1): placing g1 closes both.
    g = position("a1 d1 g7 g4", "b6 c3 e3", hand=(5, 6))
    play(g, "g1")
    assert legal(g) == {"xb6", "xc3", "xe3"}
    play(g, "xb6")
    assert g.current_player == 1


def test_two_mills_at_once_give_two_removals_with_remove_per_mill_2() -> None:
    g = position("a1 d1 g7 g4", "b6 c3 e3", hand=(5, 6), remove_per_mill=2)
    play(g, "g1")
    play(g, "xb6")
    assert g.current_player == 0, "a second removal is owed"
    assert legal(g) == {"xc3", "xe3"}
    play(g, "xc3")
    assert g.current_player == 1
    assert [g.view()[p] for p in ("b6", "c3", "e3")] == ["", "", "B"]
    # One mill still earns one removal.
    g = position("a1 d1 g7", "b6 c3 e3", hand=(5, 6), remove_per_mill=2)
    play(g, "g1 xb6")
    assert g.current_player == 1


def test_second_removal_lapses_when_nothing_is_left_to_remove() -> None:
    g = position("a1 d1 g7 g4", "b6", hand=(5, 6), remove_per_mill=2)
    play(g, "g1 xb6")
    assert g.current_player == 1 and g.outcome() is None


def test_removal_is_compulsory_unless_optional_removal() -> None:
    g = position("b2 d2 f4 c5", "a1 b4 g7 e3")
    play(g, "f4-f2")
    assert "pass" not in legal(g)
    with pytest.raises(IllegalMoveError, match="cannot be passed up"):
        g.apply(g.parse_move("pass"))
    with pytest.raises(IllegalMoveError, match="remove a black man first"):
        g.apply(g.parse_move("c5-d5"))
    g = position("b2 d2 f4 c5", "a1 b4 g7 e3", optional_removal=True)
    play(g, "f4-f2")
    assert legal(g) == {"xa1", "xb4", "xg7", "xe3", "pass"}
    play(g, "pass")
    assert g.current_player == 1
    assert sum(t == "B" for t in g.view().values()) == 4


# ------------------------------------------------------------------ moving and flying
def test_slides_go_to_empty_neighbours_only() -> None:
    g = position("a1 d6 f4 e3", "d1 a4 b4 g4 d5")
    # a1: d1 and a4 are black -> stuck. d6: d7 b6 f6 free, d5 black. f4: f6 f2 e4 free,
    # g4 black. e3: e4 d3 free.
    assert legal(g) == {
        "d6-d7", "d6-b6", "d6-f6", "f4-f6", "f4-f2", "f4-e4", "e3-e4", "e3-d3",
    }  # fmt: skip
    with pytest.raises(IllegalMoveError, match="e3 and c3 are not neighbours"):
        g.apply(g.parse_move("e3-c3"))
    with pytest.raises(IllegalMoveError, match="d1 has no white man"):
        g.apply(g.parse_move("d1-g1"))
    with pytest.raises(IllegalMoveError, match="d5 is occupied"):
        g.apply(g.parse_move("d6-d5"))
    with pytest.raises(IllegalMoveError, match="all white men are placed"):
        g.apply(g.parse_move("c3"))


def test_placing_phase_messages() -> None:
    g = position("d2", "", hand=(8, 9))
    with pytest.raises(IllegalMoveError, match="d2 is occupied"):
        g.apply(g.parse_move("d2"))
    with pytest.raises(IllegalMoveError, match="place a man first: white still has 8"):
        g.apply(g.parse_move("d2-d3"))
    with pytest.raises(IllegalMoveError, match="nothing to remove"):
        g.apply(g.parse_move("xd2"))


def test_a_player_with_three_men_flies() -> None:
    g = position("a1 d7 g4", "b2 b4 b6 d2 f2")
    moves = legal(g)
    assert len(moves) == 3 * (24 - 8)
    assert "a1-e3" in moves and "g4-c5" in moves
    play(g, "a1-e3")
    # Black has 5 men: slides only. b2 is boxed in by b4 and d2.
    assert legal(g) == {"b4-a4", "b4-c4", "b6-d6", "d2-d1", "d2-d3", "f2-f4"}


def test_four_men_do_not_fly() -> None:
    g = position("a1 d7 g4 c3", "b2 b4 b6 d2 f2")
    assert "a1-e3" not in legal(g)
    with pytest.raises(IllegalMoveError, match=r"flies only with 3 men; white has 4"):
        g.apply(g.parse_move("a1-e3"))


def test_flying_can_be_switched_off() -> None:
    g = position("a1 d7 g4", "b2 b4 b6 d2 f2", flying=False)
    assert legal(g) == {"a1-d1", "a1-a4", "d7-a7", "d7-g7", "d7-d6", "g4-g7", "g4-g1", "g4-f4"}
    with pytest.raises(IllegalMoveError, match="flying is off"):
        g.apply(g.parse_move("a1-e3"))


def test_three_men_without_flying_can_be_blocked() -> None:
    # White a1 is boxed in by d1 a4; d7 by a7 g7 d6; g4 by g7 g1 f4. Black makes a
    # waiting move (c5-c4 closes nothing), then White has no slide at all.
    g = position("a1 d7 g4", "d1 a4 a7 g7 d6 g1 f4 c5", to_move=1, flying=False)
    play(g, "c5-c4")
    assert g.outcome() == Outcome(1, Reason.BLOCKED)
    assert g.legal_moves() == ()
    # With flying (the default) the same position is not a block.
    g = position("a1 d7 g4", "d1 a4 a7 g7 d6 g1 f4 c5", to_move=1)
    play(g, "c5-c4")
    assert g.outcome() is None and "a1-e3" in legal(g)


def test_when_both_have_three_men_both_fly() -> None:
    g = position("a1 d7 g4", "b2 b6 f6")
    play(g, "a1-e3")
    assert "b2-e5" in legal(g)
    assert len(g.legal_moves()) == 3 * 18


# ------------------------------------------------------------------ losing
# Eighteen placements, no mill on the way, after which White (to move) is walled in:
# the six empty points (c5 d5 e5 e3 d3 c3) only touch Black's c4 d6 e4 d2.
BLOCKING_PLACEMENT = "a7 d6 d7 d2 g4 e4 d1 c4 a4 g7 g1 a1 b6 f6 f4 f2 b2 b4"


def test_blocked_at_the_start_of_the_moving_phase_loses() -> None:
    g = Morris()
    moves = BLOCKING_PLACEMENT.split()
    play(g, " ".join(moves[:-1]))
    assert g.outcome() is None
    play(g, moves[-1])
    assert g.outcome() == Outcome(1, Reason.BLOCKED)
    assert g.legal_moves() == ()
    assert {c for c, t in g.view().items() if not t} == {"c5", "d5", "e5", "e3", "d3", "c3"}


def test_blocked_mid_game_loses() -> None:
    # White a1 (exits d1 a4: black), g1 (g4 d1: black), c3 (c4 d3: black) and d7 (a7 g7:
    # black, d6 empty). Black plays d5-d6, closing no mill, and White is walled in.
    g = position("a1 g1 d7 c3", "d1 a4 g4 a7 g7 d5 c4 d3 b2", to_move=1)
    play(g, "d5-d6")
    assert g.outcome() == Outcome(1, Reason.BLOCKED)


def test_loss_below_three_men_counts_men_in_hand() -> None:
    # Placing phase: Black has 2 on the board and 1 in hand = 3, not yet lost.
    g = position("a1 d1", "b2 b6", hand=(3, 1))
    assert g.outcome() is None
    play(g, "g1 xb2")  # 1 on the board + 1 in hand = 2
    assert g.outcome() == Outcome(0, Reason.TOO_FEW_MEN)
    assert g.legal_moves() == ()
    # With 2 in hand the same removal leaves 3: the game goes on.
    g = position("a1 d1", "b2 b6", hand=(3, 2))
    play(g, "g1 xb2")
    assert g.outcome() is None and g.current_player == 1


def test_loss_below_three_men_in_the_moving_phase() -> None:
    g = position("b2 d2 f4 c5", "a1 g7 e5")
    play(g, "f4-f2")
    assert g.outcome() is None, "the game ends with the removal, not the mill"
    play(g, "xe5")
    assert g.outcome() == Outcome(0, Reason.TOO_FEW_MEN)
    with pytest.raises(IllegalMoveError, match="the game is over"):
        g.apply(g.parse_move("a1-a4"))


def test_a_second_owed_removal_is_not_needed_once_the_game_is_won() -> None:
    # Black has exactly 3 men: the first of two owed removals ends the game.
    g = position("a1 d1 g7 g4", "b6 c3 e3", hand=(1, 0), remove_per_mill=2)
    play(g, "g1 xb6")
    assert g.outcome() == Outcome(0, Reason.TOO_FEW_MEN)


# ------------------------------------------------------------------ draws
# White a7 and Black g1 shuttle; neither shuttle closes a mill. White also has c3 e5 d2,
# Black c5 e3 f6 (no flying: four men each).
SHUTTLE_W, SHUTTLE_B = "a7 c3 e5 d2", "g1 c5 e3 f6"
SHUTTLE = "a7-a4 g1-g4 a4-a7 g4-g1"


def test_threefold_repetition_is_a_draw() -> None:
    g = position(SHUTTLE_W, SHUTTLE_B)
    play(g, SHUTTLE)  # the start position, second time
    play(g, "a7-a4 g1-g4 a4-a7")
    assert g.outcome() is None
    play(g, "g4-g1")  # third time
    assert g.outcome() == Outcome(None, Reason.THREEFOLD_REPETITION)


def test_threefold_repetition_can_be_switched_off() -> None:
    g = position(SHUTTLE_W, SHUTTLE_B, threefold_repetition=False)
    play(g, f"{SHUTTLE} {SHUTTLE} {SHUTTLE}")
    assert g.outcome() is None


def test_hundred_plies_without_a_removal_is_a_draw() -> None:
    g = Morris()
    g.set_position({**position(SHUTTLE_W, SHUTTLE_B).to_dict()["state"], "quiet_plies": 98})
    play(g, "a7-a4")
    assert g.outcome() is None
    play(g, "g1-g4")
    assert g.outcome() == Outcome(None, Reason.NO_REMOVAL)


def test_the_no_removal_count_is_a_parameter() -> None:
    g = position(SHUTTLE_W, SHUTTLE_B, no_removal_plies=3, threefold_repetition=False)
    play(g, "a7-a4 g1-g4")
    assert g.outcome() is None
    play(g, "a4-a7")
    assert g.outcome() == Outcome(None, Reason.NO_REMOVAL)
    g = Morris(no_removal_plies=0, threefold_repetition=False)
    g.set_position({**position(SHUTTLE_W, SHUTTLE_B).to_dict()["state"], "quiet_plies": 500})
    play(g, SHUTTLE)
    assert g.outcome() is None


def test_a_removal_resets_the_no_removal_count() -> None:
    state = position("b2 d2 f4 c5", "a1 b4 g7 e3").to_dict()["state"]
    g = Morris()
    g.set_position({**state, "quiet_plies": 99})
    play(g, "f4-f2")  # the 100th quiet ply, but it closes a mill
    assert g.outcome() is None and g.current_player == 0
    play(g, "xa1")
    assert g.outcome() is None
    assert g.to_dict()["state"]["quiet_plies"] == 0


def test_placements_do_not_count_toward_the_no_removal_draw() -> None:
    g = Morris(no_removal_plies=10)
    play(g, BLOCKING_PLACEMENT.replace(" b4", " c5"))  # Black's last goes elsewhere
    assert g.outcome() is None
    assert g.to_dict()["state"]["quiet_plies"] == 0


def test_a_placement_restarts_the_no_removal_count() -> None:
    # A set-up position where White already slides and Black still places.
    g = Morris()
    state = position(SHUTTLE_W, SHUTTLE_B, hand=(0, 2)).to_dict()["state"]
    g.set_position({**state, "quiet_plies": 5})
    play(g, "a7-a4")
    assert g.to_dict()["state"]["quiet_plies"] == 6
    play(g, "d7")
    assert g.to_dict()["state"]["quiet_plies"] == 0


def test_a_blocked_player_loses_even_on_the_drawing_ply() -> None:
    g = Morris()
    state = position("a1 g1 d7 c3", "d1 a4 g4 a7 g7 d5 c4 d3 b2", to_move=1).to_dict()
    g.set_position({**state["state"], "quiet_plies": 99})
    play(g, "d5-d6")
    assert g.outcome() == Outcome(1, Reason.BLOCKED)


# ------------------------------------------------------------------ re-formed mills
# White's mill a1-d1-g1 with g1 able to step out to g4 and back.
# Black waits with e3-d3 / d3-e3, White with c5-c4; none of these closes a mill.
REFORM_W, REFORM_B = "a1 d1 g1 c5", "b2 b4 f6 e3"


def test_a_reformed_mill_counts_by_default() -> None:
    g = position(REFORM_W, REFORM_B)
    play(g, "g1-g4 e3-d3 g4-g1")
    assert g.current_player == 0 and all(m.kind == 2 for m in g.legal_moves())


def test_reformed_mills_can_earn_nothing() -> None:
    g = position(REFORM_W, REFORM_B, reformed_mills="no-removal")
    play(g, "g1-g4 e3-d3 g4-g1")
    assert g.current_player == 1, "stepping straight back earns no removal"
    # The restriction is for the immediate return only: a waiting move in between and the
    # mill counts again.
    g = position(REFORM_W, REFORM_B, reformed_mills="no-removal")
    play(g, "g1-g4 e3-d3 c5-c4 d3-e3 g4-g1")
    assert g.current_player == 0 and all(m.kind == 2 for m in g.legal_moves())


# ------------------------------------------------------------------ positions
def test_set_position_rejects_bad_input() -> None:
    g = Morris()
    with pytest.raises(ValueError, match="'d4' is not a point"):
        g.set_position({"board": {"d4": "W"}})
    with pytest.raises(ValueError, match="token must be"):
        g.set_position({"board": {"d2": "X"}})
    with pytest.raises(ValueError, match="more than 9 men"):
        g.set_position({"board": {"d2": "W"}, "hand": [9, 0]})


def test_set_position_works_out_a_finished_position() -> None:
    g = position("a1 d7", "b2 b4 b6 d2 f2")
    assert g.outcome() == Outcome(1, Reason.TOO_FEW_MEN) and g.legal_moves() == ()


def test_state_round_trips_through_json() -> None:
    g = Morris(remove_per_mill=2)
    play(g, "a1 b2 a4 b4 a7")
    again = Morris.from_dict(json.loads(json.dumps(g.to_dict())))
    assert again.to_dict() == g.to_dict()
    assert again.current_player == 0 and legal(again) == {"xb2", "xb4"}


def test_perft_of_the_first_turns() -> None:
    # 24 placements, then 23, 22 (RULES.md reference counts, whole turns).
    g = Morris()
    assert [perft(g, d) for d in (1, 2, 3)] == [24, 552, 12144]


# ------------------------------------------------------------------ random games
def _ref_in_mill(board: dict[str, str], point: str) -> bool:
    colour = board[point]
    return any(point in m and all(board[q] == colour for q in m) for m in RULES_MILLS)


def _ref_legal(state: dict[str, Any], params: dict[str, Any]) -> set[str]:
    """Legal actions from the RULES.md tables, written independently of the engine."""
    board, me = state["board"], "WB"[state["to_move"]]
    opp = "WB"[1 - state["to_move"]]
    if state["pending_removals"]:
        theirs = [p for p in RULES_POINTS if board[p] == opp]
        free = [p for p in theirs if not _ref_in_mill(board, p)]
        allowed = free or ([] if params.get("strict_seed") else theirs)
        return {"x" + p for p in allowed} | ({"pass"} if params.get("optional_removal") else set())
    empty = [p for p in RULES_POINTS if not board[p]]
    if state["hand"][state["to_move"]]:
        return set(empty)
    mine = [p for p in RULES_POINTS if board[p] == me]
    if params.get("flying", True) and len(mine) == 3:
        return {f"{a}-{b}" for a in mine for b in empty}
    return {f"{a}-{b}" for a in mine for b in REF_ADJ[a] if not board[b]}


RANDOM_SETTINGS: list[dict[str, Any]] = [
    {},
    {"strict_seed": True},
    {"remove_per_mill": 2, "optional_removal": True},
    {"flying": False, "reformed_mills": "no-removal"},
]


@pytest.mark.parametrize("params", RANDOM_SETTINGS, ids=lambda p: json.dumps(p) or "default")
def test_random_games_agree_with_the_reference_and_keep_the_men(params: dict[str, Any]) -> None:
    for seed in range(12):
        rng = random.Random(seed)
        g = Morris(**params)
        removed = [0, 0]
        while True:
            state = g.to_dict()["state"]
            board, hand = state["board"], state["hand"]
            on_board = [sum(board[p] == c for p in RULES_POINTS) for c in "WB"]
            # Men are conserved: on the board + in hand + removed = 9.
            assert [on_board[p] + hand[p] + removed[p] for p in (0, 1)] == [9, 9]
            moves = g.legal_moves()
            outcome = g.outcome()
            if outcome is not None:
                assert not moves
                loser = None if outcome.winner is None else 1 - outcome.winner
                if outcome.reason == "too few men":
                    assert loser is not None and on_board[loser] + hand[loser] < 3
                elif outcome.reason == "blocked":
                    assert loser == state["to_move"] and hand[loser] == 0
                    assert not _ref_legal(state, params)
                else:
                    assert outcome.reason in (Reason.THREEFOLD_REPETITION, Reason.NO_REMOVAL)
                break
            assert {str(m) for m in moves} == _ref_legal(state, params), state
            assert min(on_board[p] + hand[p] for p in (0, 1)) >= 3
            move = rng.choice(moves)
            mover = g.current_player
            g.apply(move)
            if move.kind == 2:
                removed[1 - mover] += 1
            after = g.to_dict()["state"]
            # A mill closed by a placement or slide keeps the turn iff a removal is allowed.
            if move.kind in (0, 1) and g.outcome() is None:
                dst = str(move).split("-")[-1]
                closed = _ref_in_mill(after["board"], dst)
                reformed = (
                    params.get("reformed_mills") == "no-removal"
                    and state["last_slides"][mover] is not None
                    and state["last_slides"][mover].split("-")[::-1] == str(move).split("-")
                )
                owed = {**after, "to_move": mover, "pending_removals": 1}
                victims = _ref_legal(owed, params) - {"pass"}
                if not closed or reformed or not victims:
                    assert g.current_player != mover
                else:
                    assert g.current_player == mover and after["pending_removals"] >= 1


def test_men_in_hand_count_down_as_they_are_placed() -> None:
    game = new_game("morris")
    assert (game.men_in_hand(0), game.men_in_hand(1)) == (9, 9)
    game.apply("d2")
    assert (game.men_in_hand(0), game.men_in_hand(1)) == (8, 9)
    game.undo()
    assert game.men_in_hand(0) == 9


def _documented_order(text: str) -> tuple[int, ...]:
    """docs/games/morris.md: points in the engine's order (POINTS), removals and placements
    by point, ``pass`` last, slides and flies by origin then destination."""
    if text == "pass":
        return (len(POINTS),)
    return tuple(POINTS.index(p) for p in text.removeprefix("x").split("-"))


@pytest.mark.parametrize("params", RANDOM_SETTINGS, ids=lambda p: json.dumps(p) or "default")
def test_moves_are_listed_in_the_documented_order(params: dict[str, Any]) -> None:
    kinds: set[int] = set()
    for seed in range(6):
        rng = random.Random(seed)
        g = Morris(**params)
        while moves := g.legal_moves():
            texts = [str(m) for m in moves]
            assert texts == sorted(texts, key=_documented_order), texts
            kinds.add(moves[0].kind)
            g.apply(rng.choice(moves))
    assert kinds == {0, 1, 2}  # placements, slides or flies, removals
