"""Tessere's exact endgame solver against plain minimax over the rules engine."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from tavola.ai import (
    LEVELS,
    TESSERE_SOLVE_EMPTIES,
    TESSERE_SOLVER_NODES_PER_NODE,
    TESSERE_SOLVER_SHARE,
    TESSERE_STRONGEST_NODES,
    analyse,
)
from tavola.ai.evaluation import KNOWLEDGE
from tavola.ai.search import AlphaBeta, Budget
from tavola.ai.tessere_endgame import solve
from tavola.games import new_game
from tavola.games.tessere import Tessere, TessereMove


def _position(seed: int, empties: int) -> Tessere:
    """A position reached by random placements that end nothing, ``empties`` cells left
    (blocks placed now and then, so passes and the tie-break come up)."""
    rng = random.Random(seed)
    while True:
        game = new_game("tessere")
        assert isinstance(game, Tessere)
        while True:
            left = sum(1 for token in game.view().values() if not token)
            if left == empties:
                return game
            moves = list(game.legal_moves())  # the game's cached tuple: shuffle a copy
            rng.shuffle(moves)
            blocks = [m for m in moves if str(m).startswith("K@")]
            if blocks and rng.random() < 0.1:
                moves = blocks + moves
            for move in moves:
                game.push(move)
                if game.outcome() is None:
                    break
                game.undo()
            else:
                break  # every placement ends the game: start again


def _wins(game: Tessere) -> bool:
    """Whether the player to move wins, by trying every legal move to the end."""
    outcome = game.outcome()
    if outcome is not None:
        return outcome.winner == game.current_player
    me = game.current_player
    for move in game.legal_moves():
        game.push(move)
        try:
            outcome = game.outcome()
            if outcome is not None:
                won = outcome.winner == me
            elif game.current_player == me:
                won = _wins(game)
            else:
                won = not _wins(game)
        finally:
            game.undo()
        if won:
            return True
    return False


def test_a_line_completed_at_once_is_found() -> None:
    game = new_game("tessere")
    assert isinstance(game, Tessere)
    for text in ("R@a1", "RY@b1", "RB@c1", "K@e5"):
        game.apply(text)
    solution = solve(game, 1000)
    assert solution.wins is True and solution.move is not None
    game.apply(solution.move)
    outcome = game.outcome()
    assert outcome is not None and outcome.winner == 0


@pytest.mark.parametrize("seed", range(16))
def test_the_solver_agrees_with_minimax_on_small_endgames(seed: int) -> None:
    _agrees(_position(seed, empties=2 + seed % 2))


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(6))
def test_the_solver_agrees_with_minimax_with_four_cells_left(seed: int) -> None:
    _agrees(_position(100 + seed, empties=4))


def _agrees(game: Tessere) -> None:
    solution = solve(game, 100_000)
    assert solution.wins is not None
    assert solution.wins == _wins(game)
    if solution.wins:  # the move it gives keeps the win
        assert solution.move is not None
        me = game.current_player
        game.apply(solution.move)
        outcome = game.outcome()
        if outcome is not None:
            assert outcome.winner == me
        else:
            assert _wins(game) == (game.current_player == me)


def test_a_budget_too_small_gives_no_answer() -> None:
    game = new_game("tessere")
    assert isinstance(game, Tessere)
    solution = solve(game, 10)  # the opening: far from any end
    assert solution.wins is None and solution.move is None and solution.nodes == 10


def test_strongest_plays_a_proved_win_and_counts_the_solver_nodes() -> None:
    for seed in range(40):
        game = _position(seed, empties=7)
        solution = solve(game, 100_000)
        if solution.wins:
            result = analyse(game, "strongest")
            assert result.ranked[0].wins
            assert result.ranked[0].turn == (solution.move,)
            # The result counts solver nodes in search nodes' time.
            assert result.nodes * TESSERE_SOLVER_NODES_PER_NODE >= solution.nodes
            return
    pytest.fail("no won position among the samples")


def test_strongest_proves_a_win_as_soon_as_it_solves_within_its_budget() -> None:
    nodes = LEVELS["strongest"].nodes_for("tessere")
    solver_nodes = int(nodes * TESSERE_SOLVER_SHARE) * TESSERE_SOLVER_NODES_PER_NODE
    for seed in range(40):
        game = _position(seed, empties=TESSERE_SOLVE_EMPTIES)
        solution = solve(game, solver_nodes)
        if solution.wins:
            result = analyse(game, "strongest")
            assert result.ranked[0].wins
            assert result.ranked[0].turn == (solution.move,)
            assert result.nodes <= nodes
            return
    pytest.fail("no position proved won among the samples")


def test_strongest_has_tessere_s_own_budget() -> None:
    strongest = LEVELS["strongest"]
    assert strongest.nodes_for("tessere") == TESSERE_STRONGEST_NODES > strongest.nodes
    assert strongest.nodes_for("morris") == strongest.nodes
    result = analyse(new_game("tessere"), "strongest")  # the opening: the budget runs out
    assert strongest.nodes < result.nodes <= TESSERE_STRONGEST_NODES + 64


def test_strongest_wins_a_twelve_cell_endgame_the_old_budget_lost() -> None:
    """12 empty cells, won for the player to move: the proof takes about 15 000 solver
    nodes. Half of the old 12 000-node budget did not find it, and the search then played
    B@c1, which loses; half of tessere's budget now proves B@d4."""
    game = _position(193, empties=12)
    assert solve(game, 6_000).wins is None
    result = analyse(game, "strongest")
    assert result.ranked[0].wins
    (move,) = result.ranked[0].turn
    game.apply(move)
    assert game.outcome() is None and solve(game, 1_000_000).wins is False


def _hands_over_a_line(game: Tessere, move: TessereMove) -> bool:
    """Whether the opponent completes a configuration at once after ``move``."""
    game.push(move)
    try:
        if game.outcome() is not None:
            return False
        for reply in game.legal_moves():
            game.push(reply)
            outcome = game.outcome()
            game.undo()
            if outcome is not None and outcome.winner == game.current_player:
                return True
        return False
    finally:
        game.undo()


@pytest.mark.parametrize("empties", [11, 13, 14, 16])
def test_strongest_never_hands_over_a_line_when_a_safe_placement_exists(empties: int) -> None:
    for seed in range(3):
        game = _position(100 + seed, empties)
        safe = [m for m in game.legal_moves() if not _hands_over_a_line(game, m)]
        if not safe:
            continue
        (move,) = analyse(game, "strongest", seed=seed).ranked[0].turn
        assert not _hands_over_a_line(game, move), (seed, str(move))


# RULES.md 1.4's full board with no configuration, e5 emptied: Player 1's block stands on
# c5, every checker is down and Player 2 still holds their block.
_NOTHING_TO_PLACE = {
    "a5": "RB", "b5": "GB", "c5": "K", "d5": "GB",
    "a4": "RG", "b4": "B", "c4": "RY", "d4": "YG", "e4": "RG",
    "a3": "Y", "b3": "YB", "c3": "R", "d3": "RY", "e3": "RY",
    "a2": "RB", "b2": "YG", "c2": "GB", "d2": "YG", "e2": "YB",
    "a1": "RB", "b1": "RYGB", "c1": "RG", "d1": "G", "e1": "YB",
}  # fmt: skip


def test_a_player_with_nothing_to_place_passes_and_loses_the_tie_break() -> None:
    game = new_game("tessere")
    assert isinstance(game, Tessere)
    game.set_position({"board": _NOTHING_TO_PLACE, "blocks": [[0, "c5"]], "to_move": 0})
    assert [str(m) for m in game.legal_moves()] == ["pass"]
    solution = solve(game, 100)
    assert solution.wins is False and str(solution.move) == "pass"
    assert _wins(game) is False
    game.apply("pass")
    assert solve(game, 100).wins is True  # Player 2's block goes down second


def _completes(game: Tessere, move: TessereMove) -> bool:
    """Whether ``move`` completes a configuration: the mover wins at once."""
    me = game.current_player
    game.push(move)
    try:
        outcome = game.outcome()
        return outcome is not None and outcome.winner == me
    finally:
        game.undo()


@pytest.mark.parametrize("empties", [15, 19])
def test_scoring_leaves_at_once_changes_no_search(empties: int) -> None:
    """Tessere's leaves are scored without generating their moves (no lone reply comes
    up before the very end): the same ranking, scores and nodes as a search that
    generates them."""
    tessere = KNOWLEDGE["tessere"]
    assert not tessere.extend_lone_reply
    generating = replace(tessere, extend_lone_reply=True)
    games = (_position(500 + seed, empties) for seed in range(20))
    quiet = [g for g in games if not any(_completes(g, m) for m in g.legal_moves())]
    assert len(quiet) >= 2
    for game in quiet[:2]:  # no line to complete at once: the search goes deep
        runs = [AlphaBeta(game.copy(), k, Budget(nodes=3000)).run(count=3)
                for k in (tessere, generating)]
        assert [(r.text, r.score) for r in runs[0].ranked[:3]] == \
            [(r.text, r.score) for r in runs[1].ranked[:3]]
        assert runs[0].nodes == runs[1].nodes and runs[0].depth == runs[1].depth >= 2
