"""Quinque's engine plays whole random games beside the engine of issue 13 (the oracle):
the same actions, in the canonical order, and the same outcomes; undo walks every game back
through the same lists.

The move generator keeps caches between positions (geometries by cluster, move lists by
frame, the last geometry as a neighbour of the next), none of which may show: these games
mix tile moves, additions, marks and passes in the basic and advanced rules, and every
position's list is checked, not only the leaves.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from tavola.games import new_game
from tavola.games.quinque import AddTile, Mark, Pass, QuinqueMove, TileMove
from tests.games.quinque_oracle import OracleQuinque

RULES: tuple[dict[str, Any], ...] = ({}, {"advanced": True})


def canonical(move: QuinqueMove) -> tuple[int, tuple[int, ...]]:
    """The canonical order's key (docs/games/quinque.md): marks by tile then skydiver, then
    additions likewise, then tile moves by tile then destination, then pass; tiles and cells
    in (x, y) order."""
    if isinstance(move, Mark):
        return 0, (*move.tile, *move.cell)
    if isinstance(move, AddTile):
        return 1, (*move.tile, *move.cell)
    if isinstance(move, TileMove):
        return 2, (*move.src, *move.dst)
    assert isinstance(move, Pass)
    return 3, ()


def play_beside_the_oracle(params: dict[str, Any], seed: int) -> int:
    """One random game on both engines, every position compared, then undone (each
    position's state and, from a fresh game set to it, its list); the positions seen."""
    rng = random.Random(seed)
    game = new_game("quinque", **params)
    oracle = OracleQuinque(**params)
    seen: list[tuple[dict[str, Any], tuple[QuinqueMove, ...]]] = []
    for _ in range(400):
        moves = game.legal_moves()
        assert list(moves) == sorted(moves, key=canonical), game.history
        assert {str(m) for m in moves} == {str(m) for m in oracle.legal_moves()}, game.history
        assert game.outcome() == oracle.outcome(), game.history
        seen.append((game.to_dict()["state"], moves))
        if not moves:
            break
        text = str(rng.choice(moves))
        game.apply(text)
        oracle.apply(text)
    assert game.outcome() == oracle.outcome()
    assert game.outcome() is not None or len(seen) == 400
    fresh = new_game("quinque", **params)
    for state, moves in reversed(seen[:-1]):
        game.undo()
        assert game.to_dict()["state"] == state
        fresh.set_position(state)
        assert fresh.legal_moves() == moves
    assert not game.history
    return len(seen)


@pytest.mark.parametrize("params", RULES, ids=["basic", "advanced"])
def test_random_games_play_as_the_oracle(params: dict[str, Any]) -> None:
    assert sum(play_beside_the_oracle(params, seed) for seed in range(12)) > 12 * 20


@pytest.mark.slow
@pytest.mark.parametrize("params", RULES, ids=["basic", "advanced"])
def test_hundreds_of_random_games_play_as_the_oracle(params: dict[str, Any]) -> None:
    assert sum(play_beside_the_oracle(params, 1000 + seed) for seed in range(200)) > 200 * 20
