"""Quixo read as bitboards: the evaluation's line counts and the one-move win check.

A Quixo line is won or lost in one push, and a push can complete a line in ways a shallow
search does not see coming (it shifts a whole row or column). The searcher asks two
questions at every node, so both are answered here on two integers (one bit a cell, the
cell index ``rank * size + file`` of :mod:`tavola.games.quixo`) rather than by playing moves:

- :func:`wins_in_one`: can a player complete a line of their mark with one push, without
  completing one of the opponent's (which would lose)? A line is completed in one push
  only if it holds four of the mark already: a push changes one cell of a line it crosses,
  and on its own line it adds at most one cube of the mark (the taken cube is blank or the
  mover's, never the opponent's). So positions without such a line are answered at once.
- :func:`evaluate`: open lines for each side, the centre, own cubes (evaluation.py's
  weights), from the same bitboards.

Only the two-player game: four players' dots decide which cubes a seat may take.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

from tavola.games import Game

# Weights of a line by how many cubes of one mark it holds with none of the other's.
LINE_WEIGHTS = (0, 1, 4, 12, 60, 0, 0)
_OPPONENT_FOUR = 3  # the opponent's four is a threat: the mover must answer it at once


@dataclass(frozen=True)
class _Board:
    """Bit masks of one board size: lines, the border, and every push as bit operations."""

    size: int
    lines: tuple[int, ...]
    centre: int
    # (take, keep, source, shift, put): the cells that do not move stay (& keep), the cells
    # sliding toward the gap (& source) move by ``shift`` bits (right when positive), and
    # the pushed cube lands on ``put``.
    pushes: tuple[tuple[int, int, int, int, int], ...]
    border: int


@cache
def _board(n: int) -> _Board:
    last = n - 1
    full = (1 << n * n) - 1
    lines = (
        [sum(1 << (r * n + f) for f in range(n)) for r in range(n)]
        + [sum(1 << (r * n + f) for r in range(n)) for f in range(n)]
        + [sum(1 << (k * n + k) for k in range(n)),
           sum(1 << (k * n + last - k) for k in range(n))]
    )
    pushes = []
    border = 0
    for i in range(n * n):
        r, f = divmod(i, n)
        if not (f in (0, last) or r in (0, last)):
            continue
        border |= 1 << i
        for t in sorted({r * n, r * n + last, f, last * n + f} - {i}):
            step = (1 if t > i else -1) * (1 if t // n == r else n)
            path = list(range(i, t + step, step))
            mask = sum(1 << c for c in path)
            source = mask & ~(1 << i)
            pushes.append((1 << i, full & ~mask, source, step, 1 << t))
    centre = 1 << (n // 2 * n + n // 2)
    return _Board(n, tuple(lines), centre, tuple(pushes), border)


_TO_O = str.maketrans({"O": "1", "X": "0", ".": "0"})
_TO_X = str.maketrans({"O": "0", "X": "1", ".": "0"})


def masks(game: Game[Any]) -> tuple[int, int]:
    """The cells showing the mark of the player to move (with four players: their team's)
    and the other mark, as bitboards."""
    g: Any = game
    text = "".join(g.board)[::-1]  # the board's top faces; cell 0 (a1) the lowest bit
    circles, crosses = int(text.translate(_TO_O), 2), int(text.translate(_TO_X), 2)
    if game.player_names[game.current_player].startswith("Circle"):
        return circles, crosses
    return crosses, circles


def _wins(own: int, opp: int, n: int) -> bool:
    """Whether the owner of ``own`` has a push that completes a line of theirs and none of
    the opponent's."""
    geo = _board(n)
    fours = [line for line in geo.lines if (own & line).bit_count() >= n - 1]
    if not fours:
        return False
    theirs = [line for line in geo.lines if (opp & line).bit_count() >= n - 1]
    for take, keep, source, shift, put in geo.pushes:
        if opp & take:
            continue  # the opponent's cube may not be taken
        if shift > 0:
            mine = (own & keep) | ((own & source) >> shift) | put
            other = (opp & keep) | ((opp & source) >> shift)
        else:
            mine = (own & keep) | ((own & source) << -shift) | put
            other = (opp & keep) | ((opp & source) << -shift)
        if any(mine & line == line for line in fours) and not any(
            other & line == line for line in theirs
        ):
            return True
    return False


def wins_in_one(game: Game[Any], mover: bool = True) -> bool:
    """Whether the player to move (``mover``) or the other player (``mover=False``: the
    threat they make) has a push that wins at once. Always False with four players."""
    if game.num_players != 2:
        return False
    own, opp = masks(game)
    if not mover:
        own, opp = opp, own
    return _wins(own, opp, game.options["size"])


def evaluate(game: Game[Any]) -> int:
    """Quixo for the player to move: open lines of each side (an opponent's four counts
    triple: it must be answered), the centre cube, own cubes."""
    n = game.options["size"]
    own, opp = masks(game)
    geo = _board(n)
    k = n - 5  # small boards: scale the line weights down to their length
    score = 0
    for line in geo.lines:
        a, b = own & line, opp & line
        if not b:
            score += LINE_WEIGHTS[max(0, a.bit_count() - k)]
        elif not a:
            count = b.bit_count()
            score -= LINE_WEIGHTS[max(0, count - k)] * (_OPPONENT_FOUR if count == n - 1 else 1)
    if own & geo.centre:
        score += 4
    elif opp & geo.centre:
        score -= 4
    return score + own.bit_count() - opp.bit_count()

