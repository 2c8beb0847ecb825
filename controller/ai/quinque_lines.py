"""Quinque: lines of five across tiles, which tiles cannot move, and threats nobody stops.

Quinque gives a player two actions a turn, a backpack and a tile move. A four is blocked by
a backpack on its free fifth skydiver; a line on tiles that can move is broken by moving
one of them away (a gap breaks a line). So a threat is only as good as the tiles it lies
on: a tile closed on four sides, or one holding the cluster together (moved, it would
split the cluster), cannot move, and a line on such tiles is *solid*. A win needs
completions that neither one backpack and one tile move, nor two tile moves, stop: two
fours on solid tiles, or an open four (free at both ends) on them. This module reads
that from the skydivers around the backpacks, without generating the hundreds of
actions of a turn:

- :func:`wins_in_one`: the player to move completes a line with the backpack they may put
  down now (the searcher's question at a turn's start);
- :func:`evaluate`: the static score, from the strategy: lines still open (solid ones
  weigh more), the completions each side threatens and whether the other side can still
  stop them all, and the backpacks held in reserve (a player who runs out cannot block).

Only completions by a backpack are threats here; a tile move that completes a line is
left to the search, so the answers may miss a threat, never claim one that is not there.
"""

from __future__ import annotations

from typing import Any

from tavola.games import Game
from tavola.games.quinque import AddTile, TileMove, tile_of

Cell = tuple[int, int]
Threats = dict[Cell, frozenset[Cell]]  # completion cell -> the tiles its lines lie on

_FIRST_ACTION, _SECOND_ACTION = 1, 2  # tavola.games.quinque's phases of a turn
_DIRECTIONS = ((1, 0), (0, 1), (1, 1), (1, -1))
_AROUND = tuple((dx, dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1) if dx or dy)
_SIDES = ((1, 0), (-1, 0), (0, 1), (0, -1))

# A window of ``line_length`` skydivers holding only one colour: its value by the count.
LINE = (0, 1, 4, 12, 40, 100, 100, 100, 100, 100, 100)
SOLID = 2  # a window on tiles that cannot move counts this many times
# Completions the side to move cannot stop in its turn: the opponent completes five next
# (hundredths of a man; far above any count of lines, far below a proved win).
UNSTOPPABLE = 5000
THREAT = 25  # each completion the other side must answer (it spends a backpack or a move)
BACKPACK = 4  # each backpack held more than the opponent: one more block in reserve


def wins_in_one(game: Game[Any], mover: bool = True) -> bool:
    """Whether the player to move (``mover``), or the other player at their next turn
    (``mover=False``: the threat they make), completes ``line_length`` backpacks in a line
    by putting one down on a free skydiver now."""
    g: Any = game
    player = g.player if mover else 1 - g.player
    if (mover and g.phase != _FIRST_ACTION) or not g.left[player]:
        return False
    sky: dict[Cell, int] = g.sky
    tiles: dict[Cell, int] = g.tiles
    length: int = g.options["line_length"]
    seen: set[Cell] = set()
    for (x, y), owner in sky.items():
        if owner != player:
            continue
        for dx, dy in _AROUND:
            cell = (x + dx, y + dy)
            if cell in sky or cell in seen:
                continue
            seen.add(cell)
            if not _placeable(cell, tiles, g.supply) or not _completes(cell, player, sky,
                                                                       length):
                continue
            return True
    return False


def _placeable(cell: Cell, tiles: dict[Cell, int], supply: int) -> bool:
    """A free skydiver on a tile on the table, or on a tile that can be added there."""
    tx, ty = tile_of(cell)
    if (tx, ty) in tiles:
        return True
    return supply > 0 and any(n in tiles for n in ((tx + 1, ty), (tx - 1, ty),
                                                   (tx, ty + 1), (tx, ty - 1)))


def _completes(cell: Cell, player: int, sky: dict[Cell, int], length: int) -> bool:
    """Whether a backpack of ``player`` on ``cell`` makes a line of ``length`` or more."""
    x, y = cell
    for dx, dy in _DIRECTIONS:
        n = 1
        cx, cy = x + dx, y + dy
        while sky.get((cx, cy)) == player:
            n += 1
            cx, cy = cx + dx, cy + dy
        cx, cy = x - dx, y - dy
        while sky.get((cx, cy)) == player:
            n += 1
            cx, cy = cx - dx, cy - dy
        if n >= length:
            return True
    return False


# ----------------------------------------------------------------------------- tiles
_FIXED: dict[frozenset[Cell], frozenset[Cell]] = {}
_FIXED_MAX = 4096


def fixed_tiles(tiles: frozenset[Cell]) -> frozenset[Cell]:
    """The tiles that cannot move: a lone tile, a tile closed on all four sides, and a
    tile holding the cluster together (without it the others fall into two groups).

    The last is the rule that the tiles form one group after the move: such a tile moves
    only to a place in a straight line from it that touches every group again."""
    found = _FIXED.get(tiles)
    if found is None:
        if len(_FIXED) >= _FIXED_MAX:
            _FIXED.clear()
        found = _FIXED[tiles] = frozenset(_fixed(tiles))
    return found


def _fixed(tiles: frozenset[Cell]) -> set[Cell]:
    if len(tiles) <= 1:
        return set(tiles)
    out = set()
    for t in tiles:
        x, y = t
        if all((x + dx, y + dy) in tiles for dx, dy in _SIDES):
            out.add(t)
            continue
        groups = _groups(tiles - {t})
        if len(groups) > 1 and not any(_joins(t, spot, groups) for spot in _around(tiles, t)):
            out.add(t)
    return out


def _around(tiles: frozenset[Cell], t: Cell) -> set[Cell]:
    """Free places next to the cluster (``t`` lifted) in a straight line from ``t``: where
    it could slide to (over other tiles)."""
    x, y = t
    return {n for a, b in tiles if (a, b) != t for dx, dy in _SIDES
            if (n := (a + dx, b + dy)) != t and (n not in tiles)
            and (n[0] == x or n[1] == y or abs(n[0] - x) == abs(n[1] - y))}


def _joins(t: Cell, spot: Cell, groups: list[set[Cell]]) -> bool:
    """Whether a tile at ``spot`` touches every one of ``groups``."""
    x, y = spot
    near = {(x + dx, y + dy) for dx, dy in _SIDES}
    return all(near & g for g in groups)


def _groups(tiles: frozenset[Cell]) -> list[set[Cell]]:
    """The edge-joined groups of ``tiles``."""
    left = set(tiles)
    out = []
    while left:
        start = left.pop()
        group = {start}
        todo = [start]
        while todo:
            x, y = todo.pop()
            for dx, dy in _SIDES:
                n = (x + dx, y + dy)
                if n in left:
                    left.discard(n)
                    group.add(n)
                    todo.append(n)
        out.append(group)
    return out


# ----------------------------------------------------------------------------- evaluation
def evaluate(game: Game[Any]) -> int:
    """The position's score for the player to move (hundredths of a man)."""
    g: Any = game
    me: int = g.player
    tiles: dict[Cell, int] = g.tiles
    sky: dict[Cell, int] = g.sky
    left: list[int] = g.left
    length: int = g.options["line_length"]
    fixed = fixed_tiles(frozenset(tiles))
    addable = _addable(tiles) if g.supply else frozenset()
    score, threats = _lines(tiles, sky, length, me, fixed, addable)
    score += BACKPACK * (left[me] - left[1 - me])
    mine, theirs = threats[me] if left[me] else {}, threats[1 - me] if left[1 - me] else {}
    if g.phase == _SECOND_ACTION:
        # One tile move left for the mover (not the tile marked this turn); then the
        # opponent's whole turn answers the mover's threats.
        pinned = frozenset(() if g.marked is None else (g.marked,))
        if theirs and not _stopped(theirs, 1, pinned, fixed):
            return score - UNSTOPPABLE
        if mine and not _answerable(game, mine, left[1 - me] > 0, fixed):
            return score + UNSTOPPABLE
        return score + THREAT * len(mine) - THREAT * len(theirs)
    if mine:  # the searcher asks first; greedy play scores positions it did not ask about
        return score + 2 * UNSTOPPABLE
    if theirs and not _answerable(game, theirs, left[me] > 0, fixed):
        return score - UNSTOPPABLE
    return score - THREAT * len(theirs)


def _addable(tiles: dict[Cell, int]) -> frozenset[Cell]:
    """Free places next to the cluster where a tile from the supply can be added."""
    return frozenset(n for x, y in tiles for dx, dy in _SIDES
                     if (n := (x + dx, y + dy)) not in tiles)


def _lines(tiles: dict[Cell, int], sky: dict[Cell, int], length: int, me: int,
           fixed: frozenset[Cell], addable: frozenset[Cell]) -> tuple[int, list[Threats]]:
    """The score of every window of ``length`` skydivers for ``me``, and each player's
    completions: where one backpack makes five, with the tiles every such line lies on
    (moving any of them stops it; a window crossing one free place where a tile can be
    added counts too, and is stopped by any tile moved there)."""
    score = 0
    spans: list[Threats] = [{}, {}]
    for tx, ty in (*tiles, *addable):  # a window may begin on a place for a new tile
        for cx in (2 * tx, 2 * tx + 1):
            for cy in (2 * ty, 2 * ty + 1):
                for dx, dy in _DIRECTIONS:
                    counts = [0, 0]
                    free: Cell | None = None
                    gap: Cell | None = None
                    spanned: set[Cell] = set()
                    for k in range(length):
                        cell = (cx + k * dx, cy + k * dy)
                        t = (cell[0] >> 1, cell[1] >> 1)
                        if t not in tiles:
                            if t not in addable or gap is not None:
                                break
                            gap = free = cell
                            continue
                        spanned.add(t)
                        owner = sky.get(cell)
                        if owner is None:
                            free = cell
                        else:
                            counts[owner] += 1
                    else:
                        own, opp = counts[me], counts[1 - me]
                        if own and opp:
                            continue
                        weight = SOLID if gap is None and spanned <= fixed else 1
                        score += (LINE[own] - LINE[opp]) * weight
                        n, owner = (opp, 1 - me) if opp else (own, me)
                        if n == length - 1 and free is not None:
                            # A tile moved into the gap may stop it: any tile, to be safe.
                            span = frozenset(tiles if gap is not None else spanned)
                            known = spans[owner].get(free)
                            spans[owner][free] = span if known is None else known & span
    return score, spans


def _answerable(game: Game[Any], threats: Threats, backpack: bool,
                fixed: frozenset[Cell]) -> bool:
    """Whether the player facing ``threats`` at the start of their turn stops them all:
    a backpack on one completion and one tile move, or two tile moves; a tile moved or
    added first may free a fixed tile for the move that follows (a neighbour moved away
    opens a closed tile, a tile next to a joint lets the cluster hold without it)."""
    if backpack:
        for cell in threats:
            rest = {c: b for c, b in threats.items() if c != cell}
            if _stopped(rest, 1, frozenset((tile_of(cell),)), fixed):  # marked: stays put
                return True
    if _stopped(threats, 2, frozenset(), fixed):
        return True
    # A tile moved or added first can free a fixed one (it bridges around it) for the
    # second action: answered on the cluster each of them leaves.
    tiles = frozenset(game.tiles)  # type: ignore[attr-defined]
    for move in game.legal_moves():
        if isinstance(move, TileMove):
            rest = {c: b for c, b in threats.items() if move.src not in b}
            after, pinned = tiles - {move.src} | {move.dst}, frozenset[Cell]()
        elif isinstance(move, AddTile) and backpack:
            rest = {c: b for c, b in threats.items() if c != move.cell}
            pinned = frozenset((tile_of(move.cell),))
            after = tiles | pinned
        else:
            continue
        if _stopped(rest, 1, pinned, fixed_tiles(after)):
            return True
    return False


def _stopped(threats: Threats, moves: int, pinned: frozenset[Cell],
             fixed: frozenset[Cell]) -> bool:
    """Whether ``moves`` moves of tiles that can move (never a ``pinned`` one) break every
    completion in ``threats``."""
    if not threats:
        return True
    if not moves:
        return False
    first = next(iter(threats.values()))
    for tile in first - fixed - pinned:
        rest = {c: b for c, b in threats.items() if tile not in b}
        if _stopped(rest, moves - 1, pinned, fixed):
            return True
    return False


__all__ = ["LINE", "THREAT", "UNSTOPPABLE", "evaluate", "fixed_tiles", "wins_in_one"]
