"""The referee's correction, checked and turned into steps on the board.

A correction takes the game back to a ply and plays the intended actions from there. Here it
is checked like moves (a ply out of range, a move the rules refuse, nothing to change), and
the differences between the game and the board are turned into what a person does on the
board ('lift f4, put a piece on f2'), as for an ``undo`` typed while the board still shows
the action. Pure: the session applies the correction and keeps
the board waiting until it reads the corrected position.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from tavola.games import Capability, Game, Reason


class Refused(ValueError):
    """A correction that cannot be made; the message says why, for the referee."""


def intended_actions(game: Game[Any], ply: int, moves: Sequence[str]) -> list[Any]:
    """The actions of ``moves`` (the game's notation) played from ``ply``: checked on a
    copy, so ``game`` is left as it was. Raises :class:`Refused` with the reason. A game
    the rules ended may be corrected (its final move misread); one whose result was
    declared may not until that result is withdrawn."""
    played = len(game.history)
    declared = game.adjudicated
    if declared is not None:  # the referee's word, withdrawn only by the referee's word
        how = ("The game was lost on time" if declared.reason == Reason.TIME else
               f"The result was declared ({declared.reason})")
        raise Refused(f"{how}: withdraw the result first, then correct the game.")
    if not 0 <= ply <= played:
        raise Refused(f"There is no ply {ply}: the game is at ply {played}.")
    probe = game.copy()
    for _ in range(played - ply):
        probe.undo()
    intended: list[Any] = []
    for text in moves:
        if probe.outcome() is not None:
            raise Refused(f"The game is over before {text}.")
        try:
            move = probe.parse_move(text)
        except ValueError as exc:
            raise Refused(f"Not understood: {exc}") from None
        if not probe.is_legal(move):
            raise Refused(f"Illegal after ply {ply + len(intended)}: {probe.explain(move)}")
        probe.apply(move)
        intended.append(move)
    if [str(m) for m in game.history[ply:]] == [str(m) for m in intended]:
        raise Refused("That is the game as recorded; nothing to correct.")
    return intended


def differences(view: Mapping[str, str], sensed: Mapping[str, str],
                cells: Iterable[str]) -> list[tuple[str, str, str]]:
    """(cell, what the game has there, what the board reads) where they differ; a sensed
    name that is not one of the board's ``cells`` (a tray slot) is not compared."""
    compared = sorted(set(view) | (set(sensed) & set(cells)))
    return [(c, view.get(c, ""), sensed.get(c, "")) for c in compared
            if view.get(c, "") != sensed.get(c, "")]


def restore_steps(diffs: Iterable[tuple[str, str, str]], capability: Capability) -> str:
    """What to do on the board to show the game's position ('lift f4, put a piece on
    f2'), from :func:`differences`; a sensor that reads occupancy only is told 'a piece'."""
    steps = []
    for cell, want, got in diffs:
        piece = want if capability == "identity" else "a piece"
        if not want:
            steps.append(f"lift {cell}")
        elif not got:
            steps.append(f"put {piece} on {cell}")
        else:
            steps.append(f"put {piece} on {cell} instead of {got}")
    return ", ".join(steps)


def take_back_steps(game: Game[Any], capability: Capability,
                    sensed: Mapping[str, str] | None) -> str:
    """If the board reads the position after the last action, and that action changed
    the board, what to do there to take it back ('' otherwise)."""
    if sensed is None or not game.history:
        return ""
    after = game.view(capability)
    probe = game.copy()
    probe.undo()
    before = probe.view(capability)
    if before == after or any(sensed.get(c, "") != v for c, v in after.items()):
        return ""
    steps = []
    for cell in sorted(set(before) | set(after)):
        was, now = before.get(cell, ""), after.get(cell, "")
        if was == now:
            continue
        if not was:
            steps.append(f"lift {cell}")
        else:
            steps.append(f"put {was if capability == 'identity' else 'a piece'} "
                         f"back on {cell}")
    return ", ".join(steps)
