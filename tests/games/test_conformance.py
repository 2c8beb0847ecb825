"""The contract every registered game keeps, checked by seeded random games.

Parametrised over the registry (and each game's variants and CONFORMANCE_PARAMS), so a new
game joins by being registered.
"""

from __future__ import annotations

import dataclasses
import importlib
import json
import random
import sys
from typing import Any

import pytest

from tavola.games import GAMES, Game, IllegalMoveError, Reason, new_game
from tavola.games.base import EMPTY, OCCUPIED

GAMES_PER_CASE = 4
MAX_PLIES = 300


def _cases() -> list[Any]:
    cases = []
    for name in GAMES:
        try:
            cls = GAMES[name]
        except ImportError as exc:  # test_every_game_imports reports it
            cases.append(pytest.param(name, {}, marks=pytest.mark.skip(reason=str(exc)), id=name))
            continue
        settings: list[dict[str, Any]] = [{"variant": v} for v in cls.variants] or [{}]
        settings += list(getattr(cls, "CONFORMANCE_PARAMS", ()))
        for params in settings:
            label = ",".join(f"{k}={v}" for k, v in params.items())
            cases.append(pytest.param(name, params, id=f"{name}[{label}]" if label else name))
    return cases


def test_every_game_imports() -> None:
    for name in GAMES:
        module = GAMES[name].__module__
        assert importlib.import_module(module)
        assert GAMES[name].name == name


def _check_move_type(move: Any) -> None:
    """A move is a small frozen dataclass whose repr pastes back (in its module)."""
    assert dataclasses.is_dataclass(move) and not isinstance(move, type)
    assert vars(type(move))["__dataclass_params__"].frozen
    namespace = vars(sys.modules[type(move).__module__])
    assert eval(repr(move), dict(namespace)) == move, repr(move)


def _check_position(game: Game[Any], rng: random.Random) -> None:
    legal = game.legal_moves()
    assert (not legal) == (game.outcome() is not None), "legal moves empty iff game over"
    assert 0 <= game.current_player < game.num_players
    # Every legal move prints and parses back to itself, and is distinct.
    assert len(set(legal)) == len(legal), "duplicate legal moves"
    for move in legal:
        assert game.parse_move(str(move)) == move, str(move)
        _check_move_type(move)
    # Views: the occupancy view is the identity view with every piece as OCCUPIED.
    ident = game.view("identity")
    occ = game.view("occupancy")
    assert set(ident) == set(occ)
    assert all(isinstance(t, str) for t in ident.values())
    assert occ == {c: (OCCUPIED if t else EMPTY) for c, t in ident.items()}
    for player in range(game.num_players):
        seen = game.view_for(player)
        assert seen["board"] == ident and seen["player"] == player
    # apply + undo restores everything; copy() is independent.
    before = game.to_dict()
    json.dumps(before)  # JSON-safe
    if legal:
        move = rng.choice(legal)
        twin = game.copy()
        twin.apply(str(move))  # the notation is as good as the move
        assert game.to_dict() == before, "copy() shares state with the original"
        game.apply(move)
        assert game.to_dict() == twin.to_dict()
        assert game.view() == twin.view()
        assert game.undo() == move
        assert game.to_dict() == before, "apply then undo did not restore the game"
        assert game.legal_moves() == legal
        assert twin.undo() == move and twin.to_dict() == before


@pytest.mark.parametrize(("name", "params"), _cases())
def test_random_games_keep_the_contract(name: str, params: dict[str, Any]) -> None:
    for seed in range(GAMES_PER_CASE):
        rng = random.Random(f"{name}{params}{seed}")
        table = GAMES[name].param_table()
        dealt = {"seed": seed} if "seed" in table and "seed" not in params else {}
        game = new_game(name, **params, **dealt)  # a dealt game is reproducible by seed
        ended = False
        for ply in range(MAX_PLIES):
            _check_position(game, rng)
            legal = game.legal_moves()
            if not legal:
                ended = True
                break
            game.apply(rng.choice(legal))
            assert len(game.history) == ply + 1
            if ply % 25 == 0:
                again = type(game).from_dict(json.loads(json.dumps(game.to_dict())))
                assert again.to_dict() == game.to_dict()
                assert again.view() == game.view()
                assert again.legal_moves() == game.legal_moves()
        # Once over, nothing can be played; the record replays to the same result.
        if ended:
            outcome = game.outcome()
            assert outcome is not None and isinstance(outcome.reason, Reason)
            assert outcome.winner is None or 0 <= outcome.winner < game.num_players
            with pytest.raises(IllegalMoveError):
                game.apply(game.history[-1])
        again = type(game).from_dict(game.to_dict())
        assert again.outcome() == game.outcome()
        assert str(again) == str(game)


@pytest.mark.parametrize(("name", "params"), _cases())
def test_registry_rejects_unknown_parameters(name: str, params: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match=r"unknown parameter 'no_such_rule'.*known parameters"):
        new_game(name, no_such_rule=1, **params)


def test_unknown_game_names_the_known_ones() -> None:
    with pytest.raises(ValueError, match="unknown game 'chess'; known games: draughts, morris"):
        new_game("chess")


@pytest.mark.parametrize(("name", "params"), _cases())
def test_winning_cells_are_cells_of_the_board_and_only_after_a_win(
    name: str, params: dict[str, Any]
) -> None:
    rng = random.Random(f"win{name}{params}")
    for _ in range(GAMES_PER_CASE):
        game = new_game(name, **params)
        for _ in range(MAX_PLIES):
            assert game.winning_cells() == () or game.outcome() is not None
            moves = game.legal_moves()
            if not moves:
                break
            game.apply(rng.choice(moves))
        cells = set(game.winning_cells())
        assert cells <= set(game.view())
        outcome = game.outcome()
        if cells:
            assert outcome is not None and outcome.winner is not None
