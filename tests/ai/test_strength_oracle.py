"""The strength bench's oracle (bench/strength.py, part ``luck``): tavola's MCTS seeing
every card. Its figure is only worth something if it really sees them, and play never does."""

from __future__ import annotations

import random

from bench.strength import _seeing_every_card
from tavola.ai import mcts
from tavola.games import new_game


def test_the_oracle_searches_the_true_deal_and_play_never_does() -> None:
    game = new_game("sequence-kids", seed=5)
    truth = game.to_dict()["state"]
    rng = random.Random(1)
    # Honest: the other hand and the deck are dealt at random from the unseen cards.
    honest = [mcts.determinise(game, 0, rng).to_dict()["state"] for _ in range(5)]
    assert any(s["hands"][1] != truth["hands"][1] or s["deck"] != truth["deck"]
               for s in honest)
    assert all(s["hands"][0] == truth["hands"][0] for s in honest)  # its own, as seen
    with _seeing_every_card():
        seen = mcts.determinise(game, 0, rng).to_dict()["state"]
        assert seen["hands"] == truth["hands"] and seen["deck"] == truth["deck"]
    # And honest again once the bench's oracle is done.
    again = [mcts.determinise(game, 0, rng).to_dict()["state"] for _ in range(5)]
    assert any(s["hands"][1] != truth["hands"][1] for s in again)
