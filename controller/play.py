"""Two or more people play one game in a terminal: the board, moves typed in notation.

The loop reads lines through ``read`` and writes through ``write`` so tests can drive it.
Commands (also shown by ``help``): a move in the game's notation, ``moves`` (or ``?``),
``hint``, ``undo``, ``save FILE``, ``help``, ``quit``. For games with hidden information
(Sequence for Kids' hands) the screen is cleared and handed on between players. With an
:class:`Opponent` the computer plays one side (``tavola play morris --opponent ai``).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tavola.files import write_whole
from tavola.games import Game, IllegalMoveError, Outcome
from tavola.record import describe

CLEAR = "\x1b[2J\x1b[H"

HELP = """\
Type a move in the game's notation, or one of:
  moves, ?      list the legal moves
  hint          the engine's best move; again: the next best (up to 3 a turn)
  undo          take back the last action
  save FILE     write the game to FILE (resume with: tavola play --load FILE)
  help          this text
  quit          leave (Ctrl-D too)"""


HINTS_PER_TURN = 3


@dataclass(frozen=True)
class Opponent:
    """The computer plays ``side`` at ``level`` (tavola.ai.LEVELS); hints use ``hint_level``.

    ``endgames``: morris endgame tables (tavola.ai.morris_endgames.load()), or None.
    """

    side: int | None = None
    level: str = "club"
    seed: int = 0
    hint_level: str = "strongest"
    endgames: Any = None


def play(
    game: Game[Any],
    read: Callable[[str], str] = input,
    write: Callable[[str], None] = print,
    opponent: Opponent | None = None,
) -> Outcome | None:
    """Run the game until it ends and the players quit; return the outcome, if any."""
    from tavola import ai

    engine = opponent or Opponent()
    hidden = game.hidden_information
    hand_on = hidden and engine.side is None  # two people share the screen: clear it
    shown_to: int | None = None
    hinted: list[tuple[Any, ...]] = []
    hinted_at = -1
    write(f"{game.name}: type a move in the game's notation, ? for the legal moves, help.")
    while True:
        outcome = game.outcome()
        if outcome is None and engine.side is not None and game.current_player == engine.side:
            turn = ai.choose_turn(game, engine.level, seed=engine.seed + len(game.history),
                                  endgames=engine.endgames)
            for move in turn:
                game.apply(move)
            text = game.turn_notation([str(m) for m in turn])
            write(f"{game.player_names[engine.side]} (computer, {engine.level}) plays {text}.")
            continue
        if hand_on and outcome is None and shown_to != game.current_player:
            name = game.player_names[game.current_player]
            write(CLEAR + f"Pass the screen to {name}, then press Enter.")
            try:
                read("")
            except EOFError:
                return game.outcome()
            write(CLEAR)
            shown_to = game.current_player
        write(str(game))
        if outcome is not None:
            write(f"Game over: {describe(outcome, game.player_names)}. Type undo or quit.")
            prompt = "> "
        else:
            private = game.private_text(game.current_player) if hidden else ""
            if private:
                write(private)
            prompt = f"{game.player_names[game.current_player]} to move> "
        try:
            line = read(prompt).strip()
        except EOFError:
            write("")
            return game.outcome()
        if not line:
            continue
        command, _, arg = line.partition(" ")
        if command in ("quit", "exit", "q"):
            return game.outcome()
        if command == "help":
            write(HELP)
        elif command == "hint":
            if outcome is not None:
                write("The game is over.")
                continue
            if hinted_at != len(game.history):
                hinted, hinted_at = [], len(game.history)
            if len(hinted) >= HINTS_PER_TURN:
                write(f"No more hints this turn ({HINTS_PER_TURN} shown).")
                continue
            try:
                found = ai.hint(game, engine.hint_level, count=1, exclude=hinted,
                                seed=engine.seed, endgames=engine.endgames)
            except ValueError as exc:
                write(f"No hint: {exc}.")
                continue
            if not found or found[0].turn in hinted:
                write("No other move to suggest.")
                continue
            hinted.append(found[0].turn)
            nth = ("Hint", "Second best", "Third best")[min(len(hinted), 3) - 1]
            write(f"{nth}: {found[0].text} ({_verdict(found[0])}).")
        elif command in ("moves", "?"):
            moves = sorted(str(m) for m in game.legal_moves())
            write(f"{len(moves)} legal: " + " ".join(moves) if moves else "No legal moves.")
        elif command == "undo":
            if not game.history:
                write("Nothing to undo.")
            else:
                taken = [str(game.undo())]
                while engine.side is not None and game.history and (
                        game.current_player == engine.side):
                    taken.append(str(game.undo()))  # back to the person's own turn
                write(f"Took back {', '.join(reversed(taken))}.")
                shown_to = game.current_player if hand_on else None
        elif command == "save" and arg:
            try:
                write_whole(Path(arg), (json.dumps(game.to_dict(), indent=1) + "\n").encode())
            except OSError as exc:  # a typo in the path must not end the game
                write(f"Cannot save to {arg}: {exc.strerror or exc}; the game goes on "
                      "(save to another file).")
            else:
                write(f"Saved to {arg}.")
        else:
            try:
                move = game.parse_move(line)
                game.apply(move)
            except IllegalMoveError as exc:
                write(f"Illegal: {exc}")
            except ValueError as exc:
                write(f"Not understood: {exc}. Type ? for the legal moves.")


def _verdict(scored: Any) -> str:
    from tavola.ai import WIN

    if scored.score > WIN // 2:
        return "wins"
    if scored.score < -WIN // 2:
        return "loses against best play"
    return f"score {scored.score:+d}"
