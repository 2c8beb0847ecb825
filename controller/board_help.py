"""What the engine's help shows on one board: the hint, the computer's turn, a blunder.

The session (controller/session.py) asks the engine and decides; :class:`BoardHelp` holds
what came back and says how it shows: its part of the LED scene (:meth:`BoardHelp.scene`),
of the status line (:meth:`BoardHelp.status`), and, after a restart, what the journal's
``hint`` entries put back on display (:meth:`BoardHelp.restore`): the hints of the turn,
the computer's turn still to be made, a blunder the next player has not answered yet. Pure:
the game and the history are passed in. A plain dataclass, so the session copies it to roll
it back.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from tavola.ai import WIN, ScoredTurn
from tavola.feedback import Scene
from tavola.games import Capability, Game
from tavola.hints import ShownTurn, turn_cells
from tavola.record import (
    AmendEntry,
    Entry,
    HintEntry,
    RefereeEntry,
    TimeoutEntry,
    UndoEntry,
)


@dataclass(frozen=True)
class Review:
    """A blunder found in the turn that led to ``at``: its ``cells`` flash, the status
    says ``text`` (what was lost, the better turn)."""

    at: tuple[Any, ...]
    cells: frozenset[str]
    text: str


@dataclass
class BoardHelp:
    """The engine's help on display."""

    hint: ShownTurn | None = None
    given: tuple[ShownTurn, ...] = ()  # the hints shown this turn, in order
    computer: ShownTurn | None = None  # the computer's turn, to be made on the board
    review: Review | None = None

    def scene(self, base: Scene, history: Sequence[Any], hints_shown: bool) -> Scene:
        """``base`` with the hint (blue), the computer's turn and a blunder's cells."""
        hint = self.hint.remaining(history) if self.hint and hints_shown else None
        if hint is not None:
            base = replace(base, hint=hint.all)
        computer = self.computer.remaining(history) if self.computer else None
        if computer is not None:
            base = replace(base, computer_from=computer.origin, computer_to=computer.targets,
                           computer_removes=computer.removed)
        if self.review is not None and self.review.at == tuple(history):
            base = replace(base, blunder=self.review.cells)
        return base

    def status(self, history: Sequence[Any], computer_to_move: bool, hints_shown: bool) -> str:
        """The status line's part: ', hint: a7 xb2', ', the computer plays ...'."""
        if computer_to_move:
            shown = self.computer
            if shown is None or shown.played(history) is None:
                return ", the computer is thinking"
            return f", the computer plays {shown.text}: make it on the board"
        parts = ""
        if self.review is not None and self.review.at == tuple(history):
            parts += f", blunder: {self.review.text}"
        if self.hint is not None and hints_shown and self.hint.played(history) is not None:
            parts += f", hint: {self.hint.text}"
        return parts

    def this_turn(self, game: Game[Any]) -> list[ShownTurn]:
        """The hints given since the player to move began this turn (a mill's removal
        is the same turn as the mill: a hint asked before and after it counts twice)."""
        history = tuple(game.history)
        start = len(history) - len(turn_before(game, game.current_player)[1])
        return [h for h in self.given
                if len(h.at) >= start and history[:len(h.at)] == h.at]

    def still_open(self, history: Sequence[Any]) -> tuple[tuple[Any, ...], ...]:
        """What remains of the hints given that the game still follows: not to be given
        again as the next hint."""
        out = []
        for h in self.given:
            k = h.played(history)
            if k is not None:
                out.append(h.turn[k:])
        return tuple(out)

    def computer_says(self, game: Game[Any]) -> str:
        """What the computer's turn is, for a player who tried something else."""
        name = game.player_names[game.current_player]
        shown = self.computer
        if shown is None or shown.played(game.history) is None:
            return f"{name} (the computer) is thinking; wait for its move on the board."
        return f"{name} (the computer) plays {shown.text}: make that move on the board."

    def as_computer_played(self, game: Game[Any], moves: Sequence[Any],
                           capability: Capability) -> tuple[Any, ...] | None:
        """The computer's next actions, if the board cannot tell ``moves`` from them (a
        blank Quixo cube pushed along blanks, either way, leaves the same position)."""
        shown = self.computer
        k = shown.played(game.history) if shown is not None else None
        if shown is None or k is None:
            return None
        want = shown.turn[k:k + len(moves)]
        seen, meant = game.copy(), game.copy()
        try:
            for move in moves:
                seen.apply(move)
            for move in want:
                meant.apply(move)
        except ValueError:
            return None
        return want if seen.view(capability) == meant.view(capability) else None

    def restore(self, game: Game[Any], entries: Iterable[Entry]) -> bool | None:
        """Put back on display the hints, the computer's turn and the blunder that the
        journal's ``entries`` hold for ``game``'s position (so the per-turn limit holds
        across a restart, the computer's turn is made as shown, the blunder flashes until
        the next player acts). Returns the referee's last word on hints (allowed or not),
        if any."""
        history = game.history
        allowed: bool | None = None
        recent: list[HintEntry] = []
        for entry in entries:
            if isinstance(entry, RefereeEntry) and entry.action in ("allow hints",
                                                                    "forbid hints"):
                allowed = entry.action == "allow hints"
            if isinstance(entry, (UndoEntry, AmendEntry, TimeoutEntry)):
                recent = []  # the line changed: hints before it may be of another position
            elif isinstance(entry, HintEntry):
                recent.append(entry)
        for entry in recent:
            if entry.kind == "review":
                self.review = _review(game, entry) or self.review
                continue
            shown = _shown(game, entry)
            if shown is None or shown.played(history) is None:
                continue
            if entry.kind == "computer":
                self.computer = shown
            else:
                self.given = (*self.this_turn(game), shown)
                self.hint = shown
        return allowed


def _shown(game: Game[Any], entry: HintEntry) -> ShownTurn | None:
    """The turn ``entry`` suggested, in the position it was suggested in (``entry.ply``
    actions into ``game``'s history), or None if it is not a turn there."""
    history = game.history
    if entry.ply > len(history):
        return None
    probe = game.copy()
    for _ in range(len(history) - entry.ply):
        probe.undo()
    work, turn = probe.copy(), []
    try:
        for text in entry.moves:
            move = work.parse_move(text)
            work.apply(move)
            turn.append(move)
    except ValueError:
        return None
    return ShownTurn.of(probe, ScoredTurn(tuple(turn), entry.score,
                                          game.turn_notation(list(entry.moves))))


def _review(game: Game[Any], entry: HintEntry) -> Review | None:
    """The blunder ``entry`` reviewed, on display again if ``game`` still stands right after
    the turn it reviewed (the next player has not acted); None otherwise, or for a record
    that did not keep the played turn's score."""
    history = tuple(game.history)
    if entry.played is None or not 0 <= entry.ply < len(history):
        return None
    before = game.copy()
    for _ in range(len(history) - entry.ply):
        before.undo()
    work = before.copy()
    for move in history[entry.ply:]:
        if work.current_player != entry.player:
            return None  # the next player has moved since: the blunder is history
        work.apply(move)
    # The loss and the thrown-away win as tavola.ai.blunder_check judged them.
    loss = max(0, entry.score - entry.played)
    threw = entry.score > WIN // 2 >= entry.played
    better = "" if game.hidden_information else game.turn_notation(list(entry.moves))
    text = blunder_text(game.player_names[entry.player], loss, threw, better)
    return Review(history, turn_cells(before, history[entry.ply:]).all, text)


def blunder_text(mover: str, loss: int, threw_win: bool, better: str) -> str:
    """How the status names a blunder: 'White lost 1.5 men; better was a7 xb2' (``loss``
    in hundredths of a man; ``better`` '' to keep the better turn private)."""
    what = "threw away a won position" if threw_win else f"lost {loss / 100:.1f} men"
    return f"{mover} {what}" + (f"; better was {better}" if better else "")


def turn_before(game: Game[Any], player: int) -> tuple[Game[Any], tuple[Any, ...]]:
    """The position before ``player``'s last turn in ``game`` (a copy), and that turn."""
    probe = game.copy()
    turn: list[Any] = []
    while probe.history:
        move = probe.undo()
        if probe.current_player != player:
            probe.apply(move)
            break
        turn.insert(0, move)
    return probe, tuple(turn)
