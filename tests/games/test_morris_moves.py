"""Morris's engine against the one it replaced (``tests/games/morris_oracle.py``).

Both play the same seeded random games side by side, from the start and from crowded
boards, in every setting of RULES.md section 5 and docs/games/morris.md: every position
must have the same legal actions in the same order, the same player to move, the same
outcome, position key and serialised state, and undoing an action must restore the whole
game exactly.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from typing import Any

import pytest

from tavola.games.base import Reason
from tavola.games.morris import POINTS, Morris
from tests.games.morris_oracle import OracleMorris

# Every morris parameter away from its default, alone and in the conformance test's sets.
SETTINGS: tuple[dict[str, Any], ...] = (
    {},
    {"strict_seed": True},
    {"remove_per_mill": 2},
    {"flying": False},
    {"reformed_mills": "no-removal"},
    {"optional_removal": True},
    {"threefold_repetition": False},
    {"no_removal_plies": 20},
    {"no_removal_plies": 0},
    *Morris.CONFORMANCE_PARAMS,
)


def where(params: dict[str, Any], seed: int, game: Morris) -> str:
    """The failing game, for an assertion's message (worked out only on failure)."""
    return f"{params} seed {seed} after {game.to_dict()['moves']}"


def crowded(rng: random.Random) -> dict[str, Any]:
    """A random board with 9 men a side and nothing in hand (6 empty points: blocks come
    often, which random games from the start rarely reach)."""
    points = list(POINTS)
    rng.shuffle(points)
    board = {p: "W" if n < 9 else "B" if n < 18 else "" for n, p in enumerate(points)}
    return {"board": board, "hand": [0, 0], "to_move": rng.randrange(2)}


def play(params: dict[str, Any], games: int | list[int], crowd: bool = False) -> Counter[Reason]:
    """Play ``games`` seeded random games (or the games of these seeds) on both engines,
    from a :func:`crowded` board with ``crowd``, checking every position; how they ended."""
    endings: Counter[Reason] = Counter()
    for seed in range(games) if isinstance(games, int) else games:
        rng = random.Random(seed)
        game, oracle = Morris(**params), OracleMorris(**params)
        if crowd:
            start = crowded(rng)
            game.set_position(start)
            oracle.set_position(start)
        for _ in range(400):
            moves = [str(m) for m in game.legal_moves()]
            expected = [str(m) for m in oracle.legal_moves()]
            assert moves == expected, where(params, seed, game)
            assert game.current_player == oracle.current_player, where(params, seed, game)
            assert game.outcome() == oracle.outcome(), where(params, seed, game)
            assert game._state_dict() == oracle._state_dict(), where(params, seed, game)
            assert game.position_key() == oracle.position_key(), where(params, seed, game)
            if not moves:
                outcome = game.outcome()
                assert outcome is not None
                endings[outcome.reason] += 1
                break
            text = rng.choice(moves)
            if rng.random() < 0.1:  # an action taken back must leave no trace
                before = game.to_dict()
                game.apply(text)
                game.undo()
                assert game.to_dict() == before, where(params, seed, game)
            game.apply(text)
            oracle.apply(text)
    return endings


def test_the_random_games_end_in_every_way() -> None:
    endings: Counter[Reason] = Counter()
    for params in ({}, {"no_removal_plies": 20}):
        endings += play(params, 25) + play(params, 25, crowd=True)
    # Random games rarely block (1 game in 600 from crowded boards): seed 565 does.
    endings += play({"flying": False}, [*range(60), 565], crowd=True)
    assert set(endings) == {
        Reason.TOO_FEW_MEN,
        Reason.BLOCKED,
        Reason.THREEFOLD_REPETITION,
        Reason.NO_REMOVAL,
    }, endings


@pytest.mark.parametrize("params", SETTINGS, ids=lambda p: json.dumps(p) or "default")
def test_random_games_match_the_old_engine(params: dict[str, Any]) -> None:
    # Nearly every game ends within the 400 actions played (the others are checked too).
    assert play(params, 25).total() >= 22
    assert play(params, 25, crowd=True).total() >= 22


@pytest.mark.slow
@pytest.mark.parametrize("params", SETTINGS, ids=lambda p: json.dumps(p) or "default")
def test_many_random_games_match_the_old_engine(params: dict[str, Any]) -> None:
    assert play(params, 300).total() >= 270
    assert play(params, 100, crowd=True).total() >= 90
