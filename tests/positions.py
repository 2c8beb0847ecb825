"""Positions that several test modules start from."""

from __future__ import annotations

import random
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


def random_position(name: str, seed: int, actions: int) -> Game[Any]:
    """``name`` after about ``actions`` random legal actions, at the start of a turn and
    not over; the same position for the same arguments (a dealt game is dealt from
    ``seed`` too, not from a fresh seed of its own)."""
    rng = random.Random(seed)
    game = new_game(name)
    if "seed" in game.options:
        game = new_game(name, seed=seed)
    while len(game.history) < actions:
        player = game.current_player
        game.apply(rng.choice(game.legal_moves()))
        if game.outcome() is not None:
            game.undo()
            break
    while game.history and game.current_player == player and len(game.history) >= actions:
        game.undo()  # back to the start of the turn in play
    return game
