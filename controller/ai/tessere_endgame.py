"""Tessere's endgame solved exactly: who wins with perfect play once few cells are empty.

Tessere cannot be drawn (a full board goes to the player who placed their block second), so
a position is simply won or lost for the player to move, and a proof search decides it:
the player to move wins when some placement leaves the opponent lost. Three facts of the
rules make the tail small enough to search to the end:

- whoever can complete a configuration now wins, so such a node is a leaf;
- a placement that leaves three checkers of a configuration sharing a colour that a
  checker still off the board carries hands that line to the opponent: it is searched only
  when every placement does (and then the node is lost at once);
- an empty cell that every configuration through it no longer concerns (a block on it,
  no colour shared, or no checker left that carries the shared colours) is a *dead* cell:
  which dead cell takes a checker changes nothing, so one stands for all.

Positions met again by another order of placements are looked up in a table. The search
counts its nodes and gives up (returns None) past a budget, so a caller can fall back to
the heuristic search.

>>> from tavola.games import new_game
>>> g = new_game("tessere")
>>> for text in ("R@a1", "RY@b1", "RB@c1"):
...     g.apply(text)
>>> g.apply("K@e5")
>>> result = solve(g, 1000)  # a checker carrying R on d1 completes a1-d1
>>> result.wins, str(result.move)
(True, 'RY@d1')
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tavola.games.tessere import (
    BLOCK,
    CHECKERS,
    CONFIGURATIONS,
    MASK,
    PASS,
    PLACE,
    Tessere,
    TessereMove,
)

TOKENS: tuple[str, ...] = tuple(CHECKERS)  # the shared checkers, by index
TOKEN_MASK: tuple[int, ...] = tuple(MASK[t] for t in TOKENS)
_BLOCK = len(TOKENS)  # the index of a block in a solver's move
_CELLS = 25


ORDER_FROM = 6  # placements are ordered by the replies they leave above this many empty cells


class _Budget(Exception):
    """The node budget ran out."""


@dataclass(frozen=True)
class Solution:
    """The exact result for the player to move: ``wins`` and, when it wins, a ``move`` that
    keeps the win (when it loses, the move the proof tried first); ``nodes`` searched.
    ``wins`` and ``move`` are None when the budget ran out first."""

    wins: bool | None
    move: TessereMove | None
    nodes: int


class _Solver:
    """The position as small integers, changed and taken back in place by the search."""

    def __init__(self, game: Tessere, budget: int) -> None:
        lines = CONFIGURATIONS[game.options["diagonals"]]
        self.lines = lines
        self.lines_at: list[list[int]] = [
            [k for k, line in enumerate(lines) if i in line] for i in range(_CELLS)
        ]
        index = {t: k for k, t in enumerate(TOKENS)}
        # Per cell: -1 empty, a token index, or _BLOCK.
        self.cell = [
            -1 if not t else _BLOCK if t == BLOCK else index[t] for t in game.board
        ]
        self.left = [game.supply[t] for t in TOKENS]
        self.carriers = [sum(n for k, n in enumerate(self.left) if TOKEN_MASK[k] >> c & 1)
                         for c in range(4)]
        self.blocks = list(game.blocks)
        self.in_hand = [game.block_at[p] < 0 for p in (0, 1)]
        self.to_move = game.to_move
        self.budget = budget
        self.nodes = 0
        self.table: dict[tuple[Any, ...], bool] = {}
        self.history: dict[tuple[int, int], int] = {}

    # ------------------------------------------------------------------ reading
    def available(self) -> int:
        """The colours some checker off the board carries."""
        c = self.carriers
        return (c[0] > 0) | (c[1] > 0) << 1 | (c[2] > 0) << 2 | (c[3] > 0) << 3

    def line_state(self, k: int) -> tuple[int, int, int]:
        """Configuration ``k``: (colours its checkers share, checkers on it, an empty cell
        or -1); shared is 0 when a block stands on it."""
        shared, placed, empty = 15, 0, -1
        cell = self.cell
        for i in self.lines[k]:
            t = cell[i]
            if t < 0:
                empty = i
            elif t == _BLOCK:
                return 0, 0, -1
            else:
                shared &= TOKEN_MASK[t]
                placed += 1
        return shared, placed, empty

    def completes(self, available: int) -> tuple[int, int] | None:
        """A placement (token, cell) of the player to move that completes a line."""
        for k in range(len(self.lines)):
            shared, placed, empty = self.line_state(k)
            if placed == 3 and shared & available:
                for t, n in enumerate(self.left):
                    if n and TOKEN_MASK[t] & shared:
                        return t, empty
        return None

    # ------------------------------------------------------------------ changing
    def place(self, t: int, i: int) -> None:
        player = self.to_move
        self.cell[i] = t
        if t == _BLOCK:
            self.in_hand[player] = False
            self.blocks.append(player)
        else:
            self.left[t] -= 1
            mask = TOKEN_MASK[t]
            for c in range(4):
                if mask >> c & 1:
                    self.carriers[c] -= 1
        self.to_move = 1 - player

    def take_back(self, t: int, i: int) -> None:
        self.to_move = player = 1 - self.to_move
        self.cell[i] = -1
        if t == _BLOCK:
            self.in_hand[player] = True
            self.blocks.pop()
        else:
            self.left[t] += 1
            mask = TOKEN_MASK[t]
            for c in range(4):
                if mask >> c & 1:
                    self.carriers[c] += 1

    # ------------------------------------------------------------------ search
    def survey(self) -> tuple[bool, int, int, list[int]] | None:
        """One pass over the configurations: None when the player to move completes one
        now; else whether a cell is empty, the colours that still matter (shared by the
        checkers of a configuration that can still be completed, and carried by a checker
        off the board), the cells on such configurations, and per cell the colours that a
        checker there would leave shared by three with the fourth cell empty."""
        available = self.available()
        cell = self.cell
        relevant = live = 0
        danger = [0] * _CELLS
        any_empty = False
        for line in self.lines:
            shared, placed, empty = 15, 0, 0
            for i in line:
                t = cell[i]
                if t < 0:
                    empty |= 1 << i
                elif t == _BLOCK:
                    shared = 0
                    break
                else:
                    shared &= TOKEN_MASK[t]
                    placed += 1
            if empty:
                any_empty = True
            shared &= available
            if not shared:
                continue
            if placed == 3:
                return None
            relevant |= shared
            live |= empty
            if placed == 2:
                for i in line:
                    if empty >> i & 1:
                        danger[i] |= shared
        if not any_empty:
            any_empty = any(t < 0 for t in cell)
        return any_empty, relevant, live, danger

    def moves(self, relevant: int, live: int,
              danger: list[int]) -> tuple[list[tuple[int, int]], bool]:
        """The placements worth searching and whether any of them is safe: the safe ones,
        else every placement (all hand over a line). Checkers that carry the same colours
        that still matter stand for each other, and one dead cell (on no configuration
        that can still be completed) for all."""
        cell = self.cell
        empties = [i for i in range(_CELLS) if cell[i] < 0]
        cells = [i for i in empties if live >> i & 1]
        dead = [i for i in empties if not live >> i & 1]
        cells += dead[:1]
        carriers = self.carriers
        kinds: dict[int, int] = {}
        for t, n in enumerate(self.left):
            if n:
                kinds.setdefault(TOKEN_MASK[t] & relevant, t)
        safe: list[tuple[int, int]] = []
        unsafe: list[tuple[int, int]] = []
        for projected, t in kinds.items():
            # The colours a checker of this kind would leave without a carrier.
            last = 0
            for c in range(4):
                if projected >> c & 1 and carriers[c] == 1:
                    last |= 1 << c
            keep = projected & ~last
            for i in cells:
                (unsafe if danger[i] & keep else safe).append((t, i))
        if self.in_hand[self.to_move]:
            # A block on a live cell kills lines; on a dead one it only spends the block.
            safe.extend((_BLOCK, i) for i in cells)
        return (safe, True) if safe else (unsafe, False)

    def projected_key(self, relevant: int) -> tuple[Any, ...]:
        """The position as far as the rest of the game can tell: colours that no longer
        matter are left out of every checker, on the board and off it."""
        codes = [-1 if t < 0 else 16 if t == _BLOCK else TOKEN_MASK[t] & relevant
                 for t in self.cell]
        supply = [0] * 16
        for t, n in enumerate(self.left):
            supply[TOKEN_MASK[t] & relevant] += n
        return (*codes, *supply, self.to_move, *self.blocks)

    def order(self, moves: list[tuple[int, int]]) -> list[tuple[int, int]]:
        """``moves`` with those leaving the opponent the fewest safe replies first (a
        proof is shortest through the opponent's narrowest choices); a look at a child
        counts as a node."""
        counted: list[tuple[int, tuple[int, int]]] = []
        for t, i in moves:
            self.nodes += 1
            self.place(t, i)
            try:
                survey = self.survey()
                if survey is None:
                    replies = 1000  # hands over a line (not among safe moves)
                elif not survey[0]:
                    replies = 0
                else:
                    found, safe = self.moves(survey[1], survey[2], survey[3])
                    replies = len(found) if safe else 0
            finally:
                self.take_back(t, i)
            counted.append((replies, (t, i)))
        counted.sort(key=lambda c: c[0])
        return [m for _, m in counted]

    def wins(self) -> bool:
        """Whether the player to move wins with perfect play from here."""
        self.nodes += 1
        if self.nodes > self.budget:
            raise _Budget
        survey = self.survey()
        if survey is None:
            return True  # a line to complete
        any_empty, relevant, live, danger = survey
        if not any_empty:
            return self.blocks[1] == self.to_move
        key = self.projected_key(relevant)
        known = self.table.get(key)
        if known is not None:
            return known
        moves, safe = self.moves(relevant, live, danger)
        if not moves:  # nothing to place: the player to move passes
            self.to_move = 1 - self.to_move
            result = not self.wins()
            self.to_move = 1 - self.to_move
        elif not safe:
            result = False  # every placement hands the opponent a line
        else:
            if len(moves) > 1 and self.cell.count(-1) > ORDER_FROM:
                moves = self.order(moves)
            result = any(self.wins_by(t, i) for t, i in moves)
        self.table[key] = result
        return result

    def wins_by(self, t: int, i: int) -> bool:
        """Whether placing token ``t`` on cell ``i`` wins for the player to move (the
        position after it is lost for the opponent); the position is left as it was."""
        self.place(t, i)
        try:
            return not self.wins()
        finally:
            self.take_back(t, i)


def _move(t: int, i: int) -> TessereMove:
    return PLACE[BLOCK if t == _BLOCK else TOKENS[t]][i]


def solve(game: Tessere, budget: int) -> Solution:
    """The exact result of ``game`` for the player to move, searching at most ``budget``
    nodes (``wins`` None: the budget ran out first); ValueError once the game is over."""
    if game.outcome() is not None:
        raise ValueError("the game is over: there is nothing to solve")
    solver = _Solver(game, budget)
    try:
        survey = solver.survey()
        if survey is None:
            finish = solver.completes(solver.available())
            assert finish is not None
            return Solution(True, _move(*finish), 1)
        _, relevant, live, danger = survey
        moves, safe = solver.moves(relevant, live, danger)
        if not moves:  # nothing to place: pass
            solver.to_move = 1 - solver.to_move
            return Solution(not solver.wins(), PASS, solver.nodes)
        if safe:
            for t, i in moves:
                if solver.wins_by(t, i):
                    return Solution(True, _move(t, i), solver.nodes)
        return Solution(False, _move(*moves[0]), solver.nodes)
    except _Budget:
        return Solution(None, None, budget)
