"""Quinque: whether a player completes a line of five by putting one backpack down.

The searcher asks at the start of every turn whether the player to move wins with one
action; in Quinque the first action of a turn may put a backpack on a free skydiver of a
tile on the table, or on a tile added from the supply at a free cell next to the cluster.
Answered from the skydivers around the player's backpacks, without generating the
hundreds of actions of a turn. A tile move can complete a line too; that is left to the
search, so the answer may say "no" where a move would win, never "yes" where nothing wins.
"""

from __future__ import annotations

from typing import Any

from tavola.games import Game
from tavola.games.quinque import tile_of

_FIRST_ACTION = 1  # tavola.games.quinque's phase of a turn's first action
_DIRECTIONS = ((1, 0), (0, 1), (1, 1), (1, -1))
_AROUND = tuple((dx, dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1) if dx or dy)


def wins_in_one(game: Game[Any], mover: bool = True) -> bool:
    """Whether the player to move (``mover``), or the other player at their next turn
    (``mover=False``: the threat they make), completes ``line_length`` backpacks in a line
    by putting one down on a free skydiver now."""
    g: Any = game
    player = g.player if mover else 1 - g.player
    if (mover and g.phase != _FIRST_ACTION) or not g.left[player]:
        return False
    sky: dict[tuple[int, int], int] = g.sky
    tiles: dict[tuple[int, int], int] = g.tiles
    length: int = g.options["line_length"]
    seen: set[tuple[int, int]] = set()
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


def _placeable(cell: tuple[int, int], tiles: dict[tuple[int, int], int], supply: int) -> bool:
    """A free skydiver on a tile on the table, or on a tile that can be added there."""
    tx, ty = tile_of(cell)
    if (tx, ty) in tiles:
        return True
    return supply > 0 and any(n in tiles for n in ((tx + 1, ty), (tx - 1, ty),
                                                   (tx, ty + 1), (tx, ty - 1)))


def _completes(cell: tuple[int, int], player: int, sky: dict[tuple[int, int], int],
               length: int) -> bool:
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
