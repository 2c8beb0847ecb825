"""Positions that several test modules start from."""

from __future__ import annotations

from typing import Any

from tavola.games import Game, new_game
from tavola.games.morris import Morris


def morris_moving_phase() -> Morris:
    """Morris with all 18 men placed and no mill closed (the first action that keeps the
    turn moving on is taken each time): White slides next. The same position every time."""
    game = new_game("morris")
    place_all_without_mills(game)
    return game


def place_all_without_mills(game: Game[Any]) -> None:
    """Play a fresh morris ``game`` on to the end of its placing phase, closing no mill."""
    while len(game.history) < 18:
        for move in game.legal_moves():
            player = game.current_player
            game.apply(move)
            if game.current_player != player:
                break
            game.undo()
