"""Morris's engine against the one it replaced (``tests/games/morris_oracle.py``).

Both play the same seeded random games side by side, in every setting of RULES.md section 5
and docs/games/morris.md: every position must have the same legal actions in the same
order, the same player to move, the same outcome, position key and serialised state, and
undoing an action must restore the whole game exactly.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from tavola.games.morris import Morris
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


def play(params: dict[str, Any], games: int) -> int:
    """Play ``games`` seeded random games on both engines, checking every position; the
    number of positions checked."""
    positions = 0
    for seed in range(games):
        rng = random.Random(seed)
        game, oracle = Morris(**params), OracleMorris(**params)
        for _ in range(400):
            moves = [str(m) for m in game.legal_moves()]
            expected = [str(m) for m in oracle.legal_moves()]
            where = f"{params} seed {seed} after {game.to_dict()['moves']}"
            assert moves == expected, where
            assert game.current_player == oracle.current_player, where
            assert game.outcome() == oracle.outcome(), where
            assert game._state_dict() == oracle._state_dict(), where
            assert game.position_key() == oracle.position_key(), where
            positions += 1
            if not moves:
                break
            text = rng.choice(moves)
            if rng.random() < 0.1:  # an action taken back must leave no trace
                before = game.to_dict()
                game.apply(text)
                game.undo()
                assert game.to_dict() == before, where
            game.apply(text)
            oracle.apply(text)
    return positions


@pytest.mark.parametrize("params", SETTINGS, ids=lambda p: json.dumps(p) or "default")
def test_random_games_match_the_old_engine(params: dict[str, Any]) -> None:
    assert play(params, 25) > 25 * 40


@pytest.mark.slow
@pytest.mark.parametrize("params", SETTINGS, ids=lambda p: json.dumps(p) or "default")
def test_many_random_games_match_the_old_engine(params: dict[str, Any]) -> None:
    assert play(params, 300) > 300 * 40
