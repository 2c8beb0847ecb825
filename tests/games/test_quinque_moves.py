"""Quinque's legal-move lists, order included, on thousands of random positions.

The digests were recorded from the move generator before its geometry was rewritten for
speed (the rewrite must give the same lists in the same order). Each game is a random
playout, seeded; every position's ``legal_moves()`` is written out in notation and hashed.
"""

from __future__ import annotations

import hashlib
import random
from typing import Any

import pytest

from tavola.games import new_game

SETTINGS: tuple[dict[str, Any], ...] = (
    {},
    {"advanced": True},
    {"opening": "each", "pass_over": False, "opponent_line": "ignore",
     "out_of_backpacks": "move_or_pass"},
    {"tiles": 4, "backpacks": 9, "line_length": 3, "repetition_draw": True},
    {"pass_over": False},
    {"advanced": True, "pass_over": False},
    {"tiles": 30, "backpacks": 40},
)


def digest(games: int) -> tuple[int, str]:
    """(positions seen, sha256 of their move lists) over ``games`` playouts per setting."""
    h = hashlib.sha256()
    positions = 0
    for i, params in enumerate(SETTINGS):
        for seed in range(games):
            rng = random.Random(seed * 31 + i)
            game = new_game("quinque", **params)
            for _ in range(300):
                moves = game.legal_moves()
                h.update(" ".join(map(str, moves)).encode() + b"|")
                positions += 1
                if not moves:
                    break
                game.apply(rng.choice(moves))
    return positions, h.hexdigest()


def test_move_lists_match_the_recorded_ones() -> None:
    assert digest(3) == (
        2599, "1a3d9600885c9670a679edfed14ddf0fafff5a8bfbd2815bc76432a41354fe16"
    )


@pytest.mark.slow
def test_move_lists_match_the_recorded_ones_on_many_games() -> None:
    assert digest(60) == (
        47713, "4ad3780d77880d0d0e96a1a584a5f7aa170cd17a57bb1a265f43e2b083222c48"
    )
