"""The computer opponent's decisions, without a session: when to ask, what to take."""

from __future__ import annotations

from typing import Any

from tavola.ai import ScoredTurn
from tavola.board_help import BoardHelp
from tavola.games import Game, new_game
from tavola.hints import Answer, ComputerPlayer
from tavola.inference import Accepted, Ambiguous, Amended
from tavola.opponent import ComputerOpponent
from tavola.record import HintEntry


def opening() -> Game[Any]:
    game = new_game("morris")
    game.apply(game.parse_move("d2"))  # Black, the computer, to move
    return game


def shown(opponent: ComputerOpponent, game: Game[Any], help: BoardHelp, text: str) -> None:
    search, = opponent.think(game, help).searches
    move = game.parse_move(text)
    fx = opponent.answered(Answer(search, ScoredTurn((move,), 0, text)), game, help, 1.0, 1.0)
    entry, = fx.journal
    assert isinstance(entry, HintEntry) and (entry.kind, entry.moves) == ("computer", (text,))


def test_its_turn_is_asked_once_per_position_and_not_again_once_shown() -> None:
    game, help = opening(), BoardHelp()
    opponent = ComputerOpponent(ComputerPlayer(side=1, level="beginner"), seconds=None)
    search, = opponent.think(game, help).searches
    assert (search.purpose, search.level, search.at) == ("opponent", "beginner", game.history)
    assert opponent.think(game, help).searches == ()  # still being searched
    opponent.forget(search)
    shown(opponent, game, help, "g7")
    assert opponent.think(game, help).searches == ()  # on display
    white = ComputerOpponent(ComputerPlayer(side=0), seconds=None)
    assert not white.to_move(game) and white.think(game, help).searches == ()


def test_only_its_turn_is_taken_from_the_board() -> None:
    game, help = opening(), BoardHelp()
    opponent = ComputerOpponent(ComputerPlayer(side=1), seconds=None)
    shown(opponent, game, help, "g7")
    g7, a1 = game.parse_move("g7"), game.parse_move("a1")
    mine = Accepted((g7,), frozenset({"g7"}))
    assert opponent.judge(mine, game, help, "occupancy", 0) == mine
    assert opponent.judge(Accepted((a1,), frozenset({"a1"})), game, help, "occupancy",
                          0) is None
    either = Ambiguous(((a1,), (g7,)), frozenset({"a1", "g7"}))
    assert opponent.judge(either, game, help, "occupancy", 0) == Accepted((g7,), either.cells)
    game.apply(g7)  # made; White to move
    moved = Amended(1, (a1,), frozenset({"g7", "a1"}))  # the computer's man moved on
    assert opponent.judge(moved, game, help, "occupancy", 1) is None
    assert opponent.judge(moved, game, help, "occupancy", 0) == moved  # a player's own


def test_an_ambiguous_reading_none_of_whose_moves_is_its_turn_is_refused() -> None:
    # Sequence for Kids: a chip on f2 could be an alligator card or a unicorn; the computer
    # plays elsewhere. Asking the player which card it was would take a move not its own.
    game, help = opening(), BoardHelp()
    opponent = ComputerOpponent(ComputerPlayer(side=1), seconds=None)
    shown(opponent, game, help, "g7")
    a1, a4 = game.parse_move("a1"), game.parse_move("a4")
    neither = Ambiguous(((a1,), (a4,)), frozenset({"a1", "a4"}))
    assert opponent.judge(neither, game, help, "occupancy", 0) is None
    white = ComputerOpponent(ComputerPlayer(side=0), seconds=None)  # not its turn: asked
    assert white.judge(neither, game, help, "occupancy", 0) == neither


def test_after_the_engine_failed_any_legal_move_is_taken_there() -> None:
    game, help = opening(), BoardHelp()
    opponent = ComputerOpponent(ComputerPlayer(side=1), seconds=None)
    search, = opponent.think(game, help).searches
    assert "make a legal move for it" in opponent.failed(search, game).log[0]
    assert not opponent.to_move(game) and opponent.think(game, help).searches == ()
    a1 = Accepted((game.parse_move("a1"),), frozenset({"a1"}))
    assert opponent.judge(a1, game, help, "occupancy", 0) == a1
    stale = opponent.failed(search, new_game("morris"))  # the game is elsewhere now
    assert stale.log == ("The engine failed (opponent).",)
