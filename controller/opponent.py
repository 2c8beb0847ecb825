"""The computer opponent on the board: ``[game] opponent = "ai"``.

When its side is to move, the :class:`ComputerOpponent` asks the engine for its turn (a
:class:`~tavola.hints.Search` the daemon runs off its loop), puts it on display (its origin
blinking cyan, its targets blue, its removals red: :class:`~tavola.board_help.BoardHelp`)
and journals it (a ``computer`` :class:`~tavola.record.HintEntry`). A player makes it on the
board, and the reading must be exactly that turn (:meth:`ComputerOpponent.judge`): any
other move is shown wrong and not taken, and a move typed for it at the console must be
that turn too.
If the engine fails in a position, a player makes a legal move for the computer there.

Pure: the game, the help on display (which the session owns and rolls back) and the time
are passed in; the session adds the LED frame and the status to what it returns.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from tavola.board_help import BoardHelp
from tavola.effects import Effects
from tavola.games import Capability, Game
from tavola.hints import Answer, ComputerPlayer, Search, ShownTurn
from tavola.inference import Accepted, Ambiguous, Amended, Result
from tavola.record import HintEntry


class ComputerOpponent:
    """The engine playing one side of the game, its turns made on the board by a player."""

    def __init__(self, player: ComputerPlayer, *, seconds: float | None) -> None:
        self.player = player
        self.seconds = seconds  # [hints] seconds: a cap on the search on a slow machine
        self._asking: tuple[Any, ...] | None = None  # the history its turn is searched at
        self._failed: tuple[Any, ...] | None = None  # the engine failed here

    def plays(self, player: int) -> bool:
        """Whether ``player`` is the computer's side."""
        return player == self.player.side

    def to_move(self, game: Game[Any]) -> bool:
        """The computer's side is to move and its move is to be checked (the engine did
        not fail in this position)."""
        return (game.outcome() is None and self.plays(game.current_player)
                and self._failed != tuple(game.history))

    def says(self, game: Game[Any], help: BoardHelp) -> str:
        """What the computer's turn is, for a player who tried something else."""
        return help.computer_says(game)

    def think(self, game: Game[Any], help: BoardHelp) -> Effects:
        """Ask for the computer's turn when its side is to move and it has none shown."""
        if not self.to_move(game):
            return Effects()
        shown = help.computer
        if shown is not None and shown.played(game.history) is not None:
            return Effects()
        at = tuple(game.history)
        if self._asking == at:
            return Effects()
        self._asking = at
        player = self.player
        return Effects(searches=(Search("opponent", game.copy(), at, player.level,
                                        player.nodes, self.seconds, seed=len(at)),))

    def forget(self, search: Search) -> None:
        """``search`` is answered (or failed): its turn may be asked for again there."""
        if search.purpose == "opponent" and self._asking == search.at:
            self._asking = None

    def failed(self, search: Search, game: Game[Any]) -> Effects:
        """The engine could not find the computer's turn: in that position it is not asked
        again (it would fail again), and a legal move made for it on the board is taken."""
        self.forget(search)
        if tuple(game.history) != search.at:
            return Effects(log=("The engine failed (opponent).",))
        self._failed = search.at
        return Effects(log=("The engine could not find the computer's move: make a legal "
                            "move for it on the board.",))

    def answered(self, found: Answer, game: Game[Any], help: BoardHelp, now: float,
                 wall: float) -> Effects:
        """The computer's turn, for ``game`` still where it was asked: shown and
        journaled."""
        best = found.best
        if best is None:
            return Effects(log=("No other move to suggest.",))
        help.computer = ShownTurn.of(game, best)
        entry = HintEntry("computer", game.current_player, len(game.history),
                          tuple(map(str, best.turn)), wall, now, 1, best.score)
        return Effects(journal=(entry,), log=(self.says(game, help),))

    def expects(self, game: Game[Any], help: BoardHelp, moves: Sequence[Any]) -> bool:
        """Whether ``moves`` (typed at the console) are the computer's next actions."""
        shown = help.computer
        return shown is not None and shown.expects(game.history, moves)

    def judge(self, result: Result, game: Game[Any], help: BoardHelp, capability: Capability,
              window_player: int | None) -> Result | None:
        """The reading ``result`` as the computer's turn allows it: an ambiguity one of
        whose readings is its turn becomes that turn, a turn the board cannot tell from
        its own is its own; None when the board shows another move for the computer's side
        (an ambiguity none of whose readings is its turn too; or a correction of a turn of
        the computer's, made as shown): refused."""
        if self.to_move(game):
            shown = help.computer
            if isinstance(result, Ambiguous):
                theirs = [seq for seq in result.candidates
                          if shown is not None and shown.expects(game.history, seq)]
                if len(theirs) == 1:
                    result = Accepted(theirs[0], result.cells)
                elif not theirs:  # asking which it was would take a move not its own
                    alike = {turn for seq in result.candidates
                             if (turn := help.as_computer_played(game, seq, capability))}
                    if not alike:
                        return None
                    if len(alike) == 1:
                        result = Accepted(alike.pop(), result.cells)
            if isinstance(result, Accepted) and (
                    shown is None or not shown.expects(game.history, result.moves)):
                same = help.as_computer_played(game, result.moves, capability)
                if same is None:
                    return None
                result = replace(result, moves=same)
        if isinstance(result, Amended) and window_player is not None and self.plays(
                window_player):
            return None
        return result
