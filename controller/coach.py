"""The player's help from the engine on one board: hints asked for, turns reviewed.

A player asks for a hint with the console or web command ``hint``, the gesture (one piece
lifted and put back twice within a second, :class:`~tavola.hints.Gesture`) or a piece put
on the hint cell (``[hints] cell``). The :class:`Coach` asks the engine for the best turn
of the player to move (a :class:`~tavola.hints.Search` the daemon runs off its loop) and,
asked again in the same turn, for the next best, up to ``[hints] per_turn``. Under
``teaching`` hints are on (``[game] hints``); under ``arbiter`` only when the referee allows
them (``[hints] arbiter``, or the referee's command). With ``[hints] feedback`` every turn
a player makes in ``teaching`` is reviewed, and a blunder is flashed and named with the
better turn. Every hint and blunder is journaled (:class:`~tavola.record.HintEntry`).

In a game with hidden information (private hands) a hint tells what the player holds: it
goes to that player's seat page only, and without seat pages (``[web] enabled``) it is
refused; a blunder's better turn stays in the journal, out of the shared status.

Pure: the game, the help on display (:class:`~tavola.board_help.BoardHelp`, which the
session owns and rolls back) and the time are passed in. What it returns carries no LED
frame or status: the session adds those.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from tavola.board_help import BoardHelp, Review, blunder_text
from tavola.effects import Effects
from tavola.games import Game
from tavola.hints import Answer, Gesture, HintSettings, Search, ShownTurn, turn_cells
from tavola.record import HintEntry


class Coach:
    """Hints and move-quality feedback for the players at one board."""

    def __init__(self, settings: HintSettings, *, policy: str, hints: bool,
                 seat_pages: bool) -> None:
        self.settings = settings
        self.policy = policy
        self.hints = hints  # [game] hints: the white targets and the hint command
        self.seat_pages = seat_pages  # the web's seat pages are on: a private hint goes there
        self.referee_allows = settings.arbiter
        self._asking: tuple[Any, ...] | None = None  # the history a hint is searched at
        self._gesture = Gesture()
        self._cell_before: dict[str, str] | None = None  # the last reading, for the hint cell

    # ----------------------------------------------------------------- who may see what
    @property
    def allowed(self) -> bool:
        """Whether a player may ask for a hint now: hints on, and under ``arbiter`` only
        when the referee allows them."""
        return self.hints and (self.policy == "teaching" or self.referee_allows)

    @staticmethod
    def private(game: Game[Any]) -> bool:
        """Whether a hint must stay with the player who asked: in a game with hidden
        information (the contract's ``hidden_information``), the hinted move tells what
        that player holds."""
        return game.hidden_information

    def on_board(self, game: Game[Any]) -> bool:
        """Whether the hint on display lights the board and names itself in the status."""
        return self.allowed and not self.private(game)

    def seat_hint(self, seat: int, game: Game[Any],
                  help: BoardHelp) -> tuple[str, frozenset[str]] | None:
        """The private hint for ``seat``'s page: (its text, the cells still to play) while
        ``seat`` is to move and the game follows it; None for anyone else, in an open game
        (whose hint is on the board) or when there is none."""
        hint = help.hint
        if (not self.private(game) or not self.allowed or hint is None
                or seat != game.current_player or game.outcome() is not None):
            return None
        cells = hint.remaining(game.history)
        return None if cells is None else (hint.text, cells.all)

    def allow(self, allowed: bool, help: BoardHelp) -> str:
        """The referee allows (or forbids again) hints under the arbiter policy; what to
        log."""
        self.referee_allows = allowed
        if not allowed:
            help.hint = None
        return "Hints allowed by the referee." if allowed else "Hints off."

    # ----------------------------------------------------------------- asking
    def ask(self, game: Game[Any], help: BoardHelp, *, busy: str = "") -> Effects:
        """Ask the engine for the best turn of the player to move, or the next best.
        ``busy``: why the player to move cannot have one (the computer's turn to make)."""
        settings = self.settings
        if not self.hints:
            return Effects(log=("Hints are off on this board ([game] hints = false).",))
        if not self.allowed:
            return Effects(log=("No hints under the arbiter policy unless the referee "
                                "allows them ([hints] arbiter = true).",))
        if game.outcome() is not None:
            return Effects(log=("The game is over.",))
        if busy:
            return Effects(log=(busy,))
        private = self.private(game)
        if private and not self.seat_pages:
            return Effects(log=(f"Hints in {game.name} need the seat page (the hint would "
                                f"show the hidden cards to everyone): turn on the web, "
                                f"[web] enabled = true.",))
        at = tuple(game.history)
        if len(help.this_turn(game)) >= settings.per_turn:
            return Effects(log=(f"No more hints this turn (at most {settings.per_turn}, "
                                f"[hints] per_turn).",))
        if self._asking == at:
            return Effects(log=("Still looking for the hint.",))
        self._asking = at
        search = Search("hint", game.copy(), at, settings.level, settings.nodes,
                        settings.seconds, seed=len(at), exclude=help.still_open(at))
        who = game.player_names[game.current_player]
        where = f"; it goes to {who}'s seat page only" if private else ""
        return Effects(searches=(search,), log=(f"Looking for a hint for {who}{where}...",))

    def asked_on_board(self, game: Game[Any], expected: Mapping[str, str],
                       reading: Mapping[str, str], cells: Iterable[str], now: float) -> bool:
        """Whether ``reading`` (every sensed cell) asks for a hint: a piece put on the hint
        cell, or the gesture on the board's ``cells`` (``expected``: the position in
        play)."""
        settings = self.settings
        if game.outcome() is not None or not self.allowed:
            return False
        if settings.cell:
            was = (self._cell_before or {}).get(settings.cell, "")
            self._cell_before = dict(reading)
            if reading.get(settings.cell, "") and not was:
                return True
        return settings.gesture and self._gesture.feed(
            expected, {c: reading.get(c, "") for c in cells}, now)

    def review(self, before: Game[Any], turn: tuple[Any, ...], game: Game[Any]) -> Effects:
        """Ask for a review of ``turn``, just played from ``before`` to ``game``
        (``teaching``, ``[hints] feedback``)."""
        settings = self.settings
        if (not settings.feedback or self.policy != "teaching" or not self.hints
                or game.outcome() is not None):
            return Effects()
        return Effects(searches=(Search(
            "review", before, tuple(before.history), settings.level, settings.nodes,
            seed=len(before.history), played=turn, threshold=settings.threshold),))

    # ----------------------------------------------------------------- answers
    def forget(self, search: Search) -> None:
        """``search`` is answered (or failed): a hint may be asked again there."""
        if search.purpose == "hint" and self._asking == search.at:
            self._asking = None

    def answered(self, found: Answer, game: Game[Any], help: BoardHelp, now: float,
                 wall: float) -> Effects:
        """The engine's hint or review, for ``game`` still where it was asked: put on
        display in ``help`` and journaled."""
        search, best = found.search, found.best
        if search.purpose == "review":
            verdict = found.verdict
            if verdict is None or not verdict.blunder or best is None:
                return Effects()
            mover = search.game.current_player
            text = blunder_text(game.player_names[mover], verdict.loss, verdict.threw_win,
                                "" if self.private(game) else best.text)
            help.review = Review(tuple(game.history),
                                 turn_cells(search.game, search.played).all, text)
            entry = HintEntry("review", mover, len(search.at), tuple(map(str, best.turn)),
                              wall, now, 1, best.score, played=verdict.played)
            return Effects(journal=(entry,), log=(f"Blunder: {text}.",))
        if best is None:
            return Effects(log=("No other move to suggest.",))
        player = game.current_player
        shown = ShownTurn.of(game, best)
        given = (*help.this_turn(game), shown)
        help.given, help.hint = given, shown
        entry = HintEntry("hint", player, len(game.history), tuple(map(str, best.turn)),
                          wall, now, len(given), best.score)
        who = game.player_names[player]
        log = (f"Hint {len(given)} for {who} sent to {who}'s seat page."
               if self.private(game) else f"Hint {len(given)} for {who}: {best.text}")
        return Effects(journal=(entry,), log=(log,))
