"""The base class's own mechanics, on a tiny game written here for the purpose.

"Race": two players take turns adding 1 or 2 to a shared counter on a strip of cells; a
player who adds 2 must then "bank" (a second atomic action by the same player). Reaching
``goal`` wins once the turn ends; the same total seen three times with the same player to
move is a draw (possible because "back" subtracts 1). Small enough to reason about by hand.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, ClassVar

import pytest

from tavola.games import IllegalMoveError, Outcome, Param, Reason, legal_turns, perft
from tavola.games.base import Game


@dataclass(frozen=True, slots=True)
class Step:
    text: str

    def __str__(self) -> str:
        return self.text


ONE, TWO, BANK, BACK = Step("+1"), Step("+2"), Step("bank"), Step("back")


class Race(Game[Step]):
    name = "race"
    params = (
        Param("goal", 4, "total that wins", minimum=1, maximum=9),
        Param("back", False, "allow stepping back one"),
        Param("greeting", "hi", "a string parameter", choices=("hi", "hello")),
    )
    variants: ClassVar[dict[str, dict[str, Any]]] = {"short": {}, "long": {"goal": 8}}
    _state_fields = ("total", "player", "must_bank", "result")

    def _setup(self) -> None:
        self.total = 0
        self.player = 0
        self.must_bank = False
        self.result: Outcome | None = None

    def _legal_moves(self) -> list[Step]:
        if self.must_bank:
            return [BANK]
        moves = [ONE, TWO] if self.total + 2 <= self.options["goal"] else [ONE]
        if self.options["back"] and self.total > 0:
            moves.append(BACK)
        return moves

    def _apply(self, move: Step) -> None:
        if move is BANK or move == BANK:
            self.must_bank = False
        elif move == TWO:
            self.total += 2
            self.must_bank = True
        else:
            self.total += 1 if move == ONE else -1
        if not self.must_bank:  # a turn is judged when it ends
            if self.total >= self.options["goal"]:
                self.result = Outcome(self.player, Reason.LINE)  # the goal reached
                return
            self.player = 1 - self.player
            if self._seen(self._position_key()) >= 2:
                self.result = Outcome(None, Reason.THREEFOLD_REPETITION)

    def _position_key(self) -> tuple[int, int, bool]:
        return (self.total, self.player, self.must_bank)

    def _current_player(self) -> int:
        return self.player

    def _outcome(self) -> Outcome | None:
        return self.result

    def _parse_move(self, text: str) -> Step:
        for step in (ONE, TWO, BANK, BACK):
            if text == step.text:
                return step
        raise ValueError(f"{text!r} is not +1, +2, bank or back")

    def _state_dict(self) -> dict[str, Any]:
        return {"total": self.total, "player": self.player, "must_bank": self.must_bank}

    def _load_state(self, d: dict[str, Any]) -> None:
        self.total, self.player, self.must_bank = d["total"], d["player"], d["must_bank"]
        self.result = None

    def _view(self) -> dict[str, str]:
        return {f"c{i}": ("X" if i < self.total else "") for i in range(self.options["goal"])}

    def _board_str(self) -> str:
        return f"total {self.total}, player {self.player}"


def test_params_defaults_variant_presets_and_overrides() -> None:
    assert Race().options == {"goal": 4, "back": False, "greeting": "hi", "variant": "short"}
    assert Race(variant="long").options["goal"] == 8
    assert Race(variant="long", goal=5).options["goal"] == 5  # explicit beats the preset
    assert Race(goal="6", back="yes").options["goal"] == 6  # config text is converted
    assert Race(back="off").options["back"] is False


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"goal": 0}, "'goal' must be >= 1"),
        ({"goal": "many"}, "'goal' must be int"),
        ({"goal": True}, "'goal' must be int"),
        ({"greeting": "hey"}, "'greeting' must be one of 'hi', 'hello'"),
        ({"variant": "medium"}, "'variant' must be one of 'short', 'long'"),
        ({"colour": "red"}, "unknown parameter 'colour'; known parameters: back, goal"),
    ],
)
def test_bad_params_are_named(params: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Race(**params)


def test_atomic_actions_keep_the_player_until_the_turn_ends() -> None:
    g = Race()
    g.apply(TWO)
    assert g.current_player == 0 and g.legal_moves() == (BANK,)
    g.apply(g.parse_move("bank"))
    assert g.current_player == 1 and [str(m) for m in g.history] == ["+2", "bank"]


def test_illegal_move_raises_a_value_error_with_the_reason() -> None:
    g = Race()
    g.apply(TWO)
    with pytest.raises(IllegalMoveError, match=r"\+1: not a legal move") as err:
        g.apply(ONE)
    assert isinstance(err.value, ValueError)
    assert len(g.history) == 1  # nothing changed


def test_equal_but_not_identical_moves_are_legal() -> None:
    g = Race()
    g.apply(Step("+1"))
    assert g.total == 1


def test_legal_moves_is_one_tuple_per_position_handed_out_as_it_is() -> None:
    g = Race(back=True)  # the hook returns a list: the base keeps it as a tuple
    moves = g.legal_moves()
    assert moves == (ONE, TWO) and g.legal_moves() is moves
    g.apply(moves[0])
    after = g.legal_moves()
    assert after is not moves
    assert after == (ONE, TWO, BACK)
    g.undo()
    assert g.legal_moves() is moves  # the position's own tuple comes back with it


def test_undo_restores_position_legal_moves_and_outcome() -> None:
    g = Race(goal=2)
    g.apply(TWO)
    g.apply(BANK)
    assert g.outcome() == Outcome(0, Reason.LINE) and g.legal_moves() == ()
    assert g.undo() == BANK
    assert g.outcome() is None and g.legal_moves() == (BANK,)
    g.undo()
    assert g.to_dict() == Race(goal=2).to_dict()
    with pytest.raises(IndexError):
        g.undo()


def test_copy_is_independent_in_both_directions() -> None:
    g = Race()
    g.apply(ONE)
    c = g.copy()
    assert isinstance(c, Race)  # a copy keeps the game's class
    c.apply(ONE)
    g.apply(TWO)
    assert (g.total, c.total) == (3, 2)
    c.undo()
    c.undo()
    assert c.total == 0 and g.total == 3


def test_repetition_draw_uses_recorded_keys_and_undo_forgets_them() -> None:
    g = Race(back=True, goal=9)
    # total 0 with player 0 to move: at the start, then after +1/back, then again.
    for text in ["+1", "back", "+1", "back"]:
        assert g.outcome() is None
        g.apply(g.parse_move(text))
    assert g.outcome() == Outcome(None, Reason.THREEFOLD_REPETITION)
    g.undo()
    assert g.outcome() is None
    g.apply(BACK)
    assert g.outcome() is not None


def test_to_dict_from_dict_replays_and_detects_a_tampered_record() -> None:
    g = Race()
    for m in (TWO, BANK, ONE):
        g.apply(m)
    d = g.to_dict()
    again = Race.from_dict(d)
    assert again.to_dict() == d and again.history == g.history
    d["state"]["total"] = 1
    with pytest.raises(ValueError, match="does not match"):
        Race.from_dict(d)
    d = g.to_dict()
    d["moves"][1] = "+1"
    with pytest.raises(ValueError, match=r"move 2 \('\+1'\)"):
        Race.from_dict(d)


def test_set_position_becomes_the_start_and_round_trips() -> None:
    g = Race(goal=5)
    g.set_position({"total": 3, "player": 1, "must_bank": False})
    assert g.current_player == 1 and g.history == ()
    g.apply(TWO)
    g.apply(BANK)
    assert g.outcome() == Outcome(1, Reason.LINE)
    again = Race.from_dict(g.to_dict())
    assert again.outcome() == Outcome(1, Reason.LINE)


def test_adjudication_and_time_out() -> None:
    g = Race()
    assert g.time_out(0) == Outcome(1, Reason.TIME)
    assert g.outcome() == Outcome(1, Reason.TIME) and g.legal_moves() == ()
    with pytest.raises(IllegalMoveError, match="the game is over"):
        g.apply(ONE)
    again = Race.from_dict(g.to_dict())
    assert again.outcome() == Outcome(1, Reason.TIME)
    with pytest.raises(IndexError):  # adjudication is not an action: nothing to undo
        g.undo()


def test_views() -> None:
    g = Race(goal=3)
    g.apply(ONE)
    assert g.view() == {"c0": "X", "c1": "", "c2": ""}
    assert g.view("occupancy") == {"c0": "#", "c1": "", "c2": ""}
    with pytest.raises(ValueError, match="capability"):
        g.view("smell")  # type: ignore[arg-type]


def test_legal_turns_and_perft_count_whole_turns() -> None:
    g = Race(goal=4)
    assert sorted(tuple(map(str, t)) for t in legal_turns(g)) == [("+1",), ("+2", "bank")]
    # Depth 2: each of the 2 first turns is followed by 2 turns -> 4 leaves.
    assert perft(g, 1) == 2 and perft(g, 2) == 4
    # From total 3 only +1 fits, and it wins: a terminal leaf at the last level counts.
    g.set_position({"total": 3, "player": 0, "must_bank": False})
    assert perft(g, 1) == 1 and perft(g, 2) == 0
    assert g.to_dict()["moves"] == []  # perft leaves the game as it found it


def test_outcome_winners_for_teams() -> None:
    assert Outcome(0, Reason.LINE).winners == (0,)
    assert Outcome(0, Reason.LINE, (0, 2)).winners == (0, 2)
    assert Outcome(None, Reason.AGREEMENT).winners == ()
    team_win = Outcome(1, Reason.SEQUENCE, (1, 3))
    assert Outcome.from_dict(team_win.to_dict()) == team_win


def test_outcome_reasons_are_an_enumeration_written_as_text() -> None:
    outcome = Outcome(None, Reason.THREEFOLD_REPETITION)
    assert json.loads(json.dumps(outcome.to_dict()))["reason"] == "threefold repetition"
    assert type(Outcome.from_dict(outcome.to_dict()).reason) is Reason
    assert Outcome(0, Reason.LINE).reason is Reason.LINE  # text is converted on the way in


@pytest.mark.parametrize(
    ("old", "reason"),
    [
        ("line made by the opponent", Reason.OPPONENT_LINE),
        ("line completed by the opponent", Reason.OPPONENT_LINE),
        ("no move possible", Reason.BLOCKED),
        ("100 plies without a removal", Reason.NO_REMOVAL),
        ("15 moves of kings only", Reason.KING_MOVES),
        ("abandoned for a new game", Reason.NEW_GAME),
    ],
)
def test_old_records_read_their_free_text_reasons(old: str, reason: Reason) -> None:
    assert Outcome.from_dict({"winner": None, "reason": old}).reason is reason


def test_an_unknown_reason_names_the_known_ones() -> None:
    with pytest.raises(ValueError, match="unknown outcome reason 'goal'; reasons are 'line'"):
        Outcome.from_dict({"winner": 0, "reason": "goal"})


def test_apply_takes_a_move_or_its_notation() -> None:
    g = Race()
    g.apply("+2")
    assert g.history == (TWO,)
    with pytest.raises(IllegalMoveError, match="not a legal move"):
        g.apply("+1")  # bank first
    with pytest.raises(ValueError, match="'jump'"):
        g.apply("jump")
    g.apply(BANK)
    assert g.current_player == 1


def test_push_plays_a_legal_move_unchecked_and_undoes_like_apply() -> None:
    g = Race()
    for move in (TWO, BANK, ONE):
        g.push(move)
    assert g.to_dict()["moves"] == ["+2", "bank", "+1"]
    assert g.undo() is ONE and g.current_player == 1
