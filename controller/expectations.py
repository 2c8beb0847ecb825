"""What the board should read after every legal action of one position.

For the position in play, :class:`Expectations` maps each *change* the board may show (cell
-> new reading) to the legal actions that make it: every single action, and every run of
actions one player makes in a row (a mill and its removal, the jumps of a capture chain), so
that a reading taken after the whole run is matched at once. It also holds the positions
1-8 actions back (for a takeback) and, where different actions leave the very same position,
which actions are equivalent. Building them plays the actions on the game and undoes them;
nothing here reads a sensor or a clock. :mod:`tavola.inference` matches readings against it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from tavola.games import Capability, Game

Change = frozenset[tuple[str, str]]  # (cell, new reading) pairs
Seq = tuple[Any, ...]  # actions played in a row
MAX_TAKEBACK = 8  # actions: about two whole turns of a compound game
MAX_RUN = 6  # actions one player makes in a row that are matched as one reading
RUN_STARTS = 12  # more turn-keeping actions than this (Quinque): runs are not expanded


_RANKED = {"WK": "W", "BK": "B"}  # a draughts king's token -> its colour


def _unranked(cells: Mapping[str, str]) -> dict[str, str]:
    return {c: _RANKED.get(v, v) for c, v in cells.items()}


def shows_ranks(reading: Mapping[str, str]) -> bool:
    """The reading names a draughts king (``WK``, ``BK``): the sensor reads ranks, not only
    colours."""
    return any(v in _RANKED for v in reading.values())


def change_between(before: Mapping[str, str], after: Mapping[str, str]) -> Change:
    """The cells whose reading differs, with their reading in ``after``."""
    cells = set(before) | set(after)
    return frozenset(
        (c, after.get(c, "")) for c in cells if before.get(c, "") != after.get(c, "")
    )


@dataclass
class Expectations:
    """What the board should read after each legal action (or run) of one position."""

    current: dict[str, str]
    by_change: dict[Change, list[Seq]]
    earlier: list[dict[str, str]] = field(default_factory=list)  # 1, 2, ... actions back
    equivalent: dict[Seq, list[Seq]] = field(default_factory=dict)  # same position

    @cached_property
    def touched(self) -> frozenset[str]:
        """Every cell some legal action changes."""
        return frozenset(c for change in self.by_change for c, _ in change)

    @cached_property
    def rankless(self) -> Expectations:
        """These expectations as a sensor that reads colour only sees them: a draughts king
        (``WK``, ``BK``) as its colour (RULES.md: the engine tracks kings; the camera does
        not read them, so a misread crown never becomes a mismatch). Itself if no king."""
        if not any(v in _RANKED for v in self.current.values()) and not any(
                v in _RANKED for change in self.by_change for _, v in change):
            return self
        current = _unranked(self.current)
        by_change: dict[Change, list[Seq]] = {}
        for change, seqs in self.by_change.items():
            seen = frozenset((c, _RANKED.get(v, v)) for c, v in change
                             if _RANKED.get(v, v) != current.get(c, ""))
            if seen:
                by_change.setdefault(seen, []).extend(seqs)
        return Expectations(current, by_change, [_unranked(e) for e in self.earlier],
                            self.equivalent)

    @classmethod
    def of(cls, game: Game[Any], capability: Capability) -> Expectations:
        """The expectations of ``game``'s position (the game is left as it was)."""
        current = game.view(capability)
        by_change: dict[Change, list[Seq]] = {}

        def add(seq: Seq, after: dict[str, str]) -> None:
            change = change_between(current, after)
            if change:
                by_change.setdefault(change, []).append(seq)

        player = game.current_player
        runs: list[Seq] = []  # first actions after which the same player acts again
        for move in game.legal_moves():
            game.push(move)
            after = game.view(capability)
            if after != current or game.outcome() is not None:
                add((move,), after)
                if game.outcome() is None and game.current_player == player:
                    runs.append((move,))
            elif game.current_player != player:
                # A silent action that ends the turn: the next player's actions follow it.
                for nxt in game.legal_moves():
                    game.push(nxt)
                    add((move, nxt), game.view(capability))
                    game.undo()
            game.undo()
        if len(runs) <= RUN_STARTS:
            for run in runs:
                game.push(run[0])
                _extend_run(game, capability, run, player, add)
                game.undo()
        equivalent: dict[Seq, list[Seq]] = {}
        for change, seqs in by_change.items():
            if len(seqs) > 1:
                by_change[change] = _distinct_outcomes(game, seqs, equivalent)
        earlier: list[dict[str, str]] = []
        probe = game.copy()  # undoing the live game would also lift an adjudication
        for _ in range(min(MAX_TAKEBACK, len(game.history))):
            probe.undo()
            earlier.append(probe.view(capability))
        return cls(current, by_change, earlier, equivalent)


def _extend_run(game: Game[Any], capability: Capability, run: Seq, player: int,
                add: Callable[[Seq, dict[str, str]], None]) -> None:
    """Add every longer run of visible actions by ``player``; ``game`` stands after ``run``."""
    if len(run) >= MAX_RUN:
        return
    before = game.view(capability)
    for move in game.legal_moves():
        game.push(move)
        after = game.view(capability)
        if after != before:
            seq = (*run, move)
            add(seq, after)
            if game.outcome() is None and game.current_player == player:
                _extend_run(game, capability, seq, player, add)
        game.undo()


def _distinct_outcomes(
    game: Game[Any], seqs: list[Seq], equivalent: dict[Seq, list[Seq]]
) -> list[Seq]:
    """One action sequence per distinct resulting position; the others that lead to the
    same position are kept in ``equivalent`` under the first."""
    seen: dict[str, Seq] = {}
    for seq in seqs:
        for move in seq:
            game.push(move)
        key = json.dumps(game.to_dict()["state"], sort_keys=True, default=str)
        for _ in seq:
            game.undo()
        first = seen.setdefault(key, seq)
        equivalent.setdefault(first, []).append(seq)
    return list(seen.values())
