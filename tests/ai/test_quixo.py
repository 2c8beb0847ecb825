"""Quixo tactics: a line completed in one push is seen without playing it, the opponent's
threat at the horizon is answered, and no level hands the opponent a line."""

from __future__ import annotations

import random
from typing import Any

from tavola.ai import LEVELS, WIN, analyse, choose_turn
from tavola.ai.evaluation import QUIXO_CONTEMPT, knowledge
from tavola.ai.quixo_lines import wins_in_one
from tavola.ai.search import AlphaBeta, Budget
from tavola.games import Game, new_game


def _position(rows: list[str], to_move: int) -> Game[Any]:
    game = new_game("quixo")
    game.set_position({"board": rows, "to_move": to_move})
    return game


def _wins_with(game: Game[Any], move: Any) -> bool:
    work = game.copy()
    work.apply(move)
    outcome = work.outcome()
    return outcome is not None and game.current_player in outcome.winners


def _can_win(game: Game[Any]) -> bool:
    return any(_wins_with(game, m) for m in game.legal_moves())


def test_wins_in_one_agrees_with_playing_every_push() -> None:
    seen = {True: 0, False: 0}
    for params in ({}, {"first": "cross"}, {"size": 4}):
        for seed in range(12):
            rng = random.Random(seed)
            game = new_game("quixo", **params)
            while game.outcome() is None:
                expected = _can_win(game)
                assert wins_in_one(game) == expected, game.to_dict()
                seen[expected] += 1
                # The other player's threat: the same board with them to move.
                state = game.to_dict()["state"]
                twin = new_game("quixo", **params)
                twin.set_position({"board": state["board"], "to_move": 1 - state["to_move"]})
                if twin.outcome() is None:
                    assert wins_in_one(game, mover=False) == _can_win(twin), game.to_dict()
                game.apply(rng.choice(game.legal_moves()))
    assert seen[True] > 30 and seen[False] > 300, seen


def test_no_level_hands_the_opponent_a_line() -> None:
    """Game 76 of the bench: after a5>e5 the crosses complete file a (e1>a1). club's
    choice among the near-best once read upper bounds as scores and played it."""
    game = _position(["O X . O O", "X . . O O", "X O . . X", "X X . . X", "O O X X X"], 0)
    for level, seeds in (("beginner", 12), ("club", 12), ("strongest", 1)):
        for seed in range(seeds):
            turn = choose_turn(game, level, seed=seed)
            work = game.copy()
            for move in turn:
                work.apply(move)
            assert work.outcome() is None and not _can_win(work), (level, seed, turn)


def test_a_threat_beyond_the_horizon_is_answered() -> None:
    """Circles to move; after e2>e5 the crosses have a push after which every circle move
    lets them complete a line: lost in four plies. A two-ply search sees it because at its
    horizon the crosses' threat is answered (every circle reply searched) instead of
    scored statically; without that it rated e2>e5 near the best."""
    game = _position(["O O O X X", "X X X O O", "X X . O O", "X X O . O", "O . X O X"], 0)
    losing = game.parse_move("e2>e5")
    after = game.copy()
    after.apply(losing)
    assert not _can_win(after)  # no line at once: the loss is two pushes deep

    def lost_for_circles(position: Game[Any]) -> bool:
        return all(_can_win(_after(position, m)) or _loses(position, m)
                   for m in position.legal_moves())

    assert any(not _wins_with(after, r) and lost_for_circles(_after(after, r))
               for r in after.legal_moves())
    ranked = AlphaBeta(game.copy(), knowledge(game), Budget(nodes=10**6), max_depth=2).run(
        count=64).ranked
    scores = {r.turn[0]: r.score for r in ranked}
    assert scores[losing] < -WIN // 2
    assert ranked[0].score > -WIN // 2


def _after(game: Game[Any], move: Any) -> Game[Any]:
    work = game.copy()
    work.apply(move)
    return work


def _loses(game: Game[Any], move: Any) -> bool:
    outcome = _after(game, move).outcome()
    return outcome is not None and game.current_player not in outcome.winners


def _ranked_scores(game: Game[Any], depth: int) -> dict[Any, int]:
    search = AlphaBeta(game.copy(), knowledge(game), Budget(nodes=10**6), max_depth=depth)
    return {r.turn[0]: r.score for r in search.run(count=64).ranked}


def test_a_position_met_again_scores_the_contempt() -> None:
    """Bench game 0 v greedy ran to the ply cap: strongest pushed its cube back and forth,
    greedy answered likewise, and the same positions came round for ever. A push that lets
    the opponent bring back a position already played now scores at most the contempt
    (the searcher's side is worse off cycling than in an even game); in the same position
    without that history it is an ordinary push."""
    played = new_game("quixo")
    for text in ("a1>e1", "a5>e5", "e1>a1", "e5>a5"):  # then a1>e1, a5>e5 repeat
        played.apply(played.parse_move(text))
    fresh = _position(_rows(played), 0)
    cycle = played.parse_move("a1>e1")
    assert _ranked_scores(played, 3)[cycle] <= -QUIXO_CONTEMPT
    assert _ranked_scores(fresh, 3)[cycle] > -QUIXO_CONTEMPT // 2


def _rows(game: Game[Any]) -> list[str]:
    view = game.view()
    return [" ".join(view[f"{f}{r}"][:1] for f in "abcde") for r in range(5, 0, -1)]


# Bench game 103, beginner (crosses) v random play, up to the crosses' 19th push.
_GAME_103 = (
    "a4>a1 e4>e1 a5>a1 e2>a2 e2>a2 c1>a1 a2>e2 a2>e2 a5>e5 e1>e5 a4>e4 d5>e5 a3>e3 d5>d1 "
    "b5>e5 e2>e5 a4>a5 a4>a1 e3>e5 a4>e4 b5>a5 a2>a5 e2>e5 a3>e3 a4>a1 a5>a1 a5>a1 d5>d1 "
    "a1>e1 a4>a5 b5>e5 a5>a1 e4>a4 a1>e1 e5>a5 c1>c5 a1>a5"
)


def test_only_strongest_has_contempt() -> None:
    """c5>e5 and d5>e5 bring back played positions. With contempt they scored -40 and
    beginner's 0.3-man slack then reached e4>a4 (-66), a weak push that lost the game to
    random play; beginner now scores them as the search sees them, strongest (which picks
    the best alone) keeps the contempt."""
    game = new_game("quixo")
    for text in _GAME_103.split():
        game.apply(game.parse_move(text))
    weak = game.parse_move("e4>a4")
    ranked = analyse(game, "beginner", seed=0).ranked
    near = [r.turn[0] for r in ranked if r.score >= ranked[0].score - LEVELS["beginner"].slack]
    assert weak not in near
    cycling = game.parse_move("c5>e5")
    strong = {r.turn[0]: r.score for r in analyse(game, "strongest", seed=0, count=64).ranked}
    assert strong[cycling] <= -QUIXO_CONTEMPT
