"""Two or more people play one game in a terminal: the board, moves typed in notation.

The loop reads lines through ``read`` and writes through ``write`` so tests can drive it.
Commands (also shown by ``help``): a move in the game's notation, ``moves`` (or ``?``),
``undo``, ``save FILE``, ``help``, ``quit``. For games with hidden information (Sequence
for Kids' hands) the screen is cleared and handed on between players.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tavola.games import Game, IllegalMoveError, Outcome
from tavola.record import describe

CLEAR = "\x1b[2J\x1b[H"

HELP = """\
Type a move in the game's notation, or one of:
  moves, ?      list the legal moves
  undo          take back the last action
  save FILE     write the game to FILE (resume with: tavola play --load FILE)
  help          this text
  quit          leave (Ctrl-D too)"""


def play(
    game: Game[Any],
    read: Callable[[str], str] = input,
    write: Callable[[str], None] = print,
) -> Outcome | None:
    """Run the game until it ends and the players quit; return the outcome, if any."""
    hidden = game.hidden_information
    shown_to: int | None = None
    write(f"{game.name}: type a move in the game's notation, ? for the legal moves, help.")
    while True:
        outcome = game.outcome()
        if hidden and outcome is None and shown_to != game.current_player:
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
        elif command in ("moves", "?"):
            moves = sorted(str(m) for m in game.legal_moves())
            write(f"{len(moves)} legal: " + " ".join(moves) if moves else "No legal moves.")
        elif command == "undo":
            if not game.history:
                write("Nothing to undo.")
            else:
                write(f"Took back {game.undo()}.")
                shown_to = game.current_player if hidden else None
        elif command == "save" and arg:
            try:
                Path(arg).write_text(json.dumps(game.to_dict(), indent=1) + "\n")
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
