"""Quinque's actions, their notation, and the tables that share one object per action.

Tile (x, y) holds skydivers (2x+i, 2y+j), i, j in {0, 1} (see :mod:`tavola.games.quinque`).
The grid is unbounded, so the tables of move objects fill lazily and are emptied when a
drifting cluster has filled them too far.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

Cell = tuple[int, int]


@dataclass(frozen=True, slots=True)
class Mark:
    """Put a backpack on the free skydiver ``cell`` of a tile on the table: ``m 1,0``."""

    cell: Cell

    @property
    def tile(self) -> Cell:
        """The tile that holds the skydiver."""
        return (self.cell[0] >> 1, self.cell[1] >> 1)

    def __str__(self) -> str:
        return f"m {self.cell[0]},{self.cell[1]}"


@dataclass(frozen=True, slots=True)
class AddTile:
    """Add the tile holding skydiver ``cell`` from the supply and mark ``cell``: ``t 2,1``."""

    cell: Cell

    @property
    def tile(self) -> Cell:
        """The tile that enters play."""
        return (self.cell[0] >> 1, self.cell[1] >> 1)

    def __str__(self) -> str:
        return f"t {self.cell[0]},{self.cell[1]}"


@dataclass(frozen=True, slots=True)
class TileMove:
    """Move the tile at tile coordinates ``src`` to ``dst``: ``0,0>2,2``."""

    src: Cell
    dst: Cell

    def __str__(self) -> str:
        return f"{self.src[0]},{self.src[1]}>{self.dst[0]},{self.dst[1]}"


@dataclass(frozen=True, slots=True)
class Pass:
    """End the turn without a (further) action: ``pass``."""

    def __str__(self) -> str:
        return "pass"


QuinqueMove = Mark | AddTile | TileMove | Pass
PASS = Pass()

# A tile's backpacks as a mask: bit i set when skydivers(tile)[i] carries one.
BACKPACKS_IN_MASK = tuple(bin(mask).count("1") for mask in range(16))

_MARKS: dict[Cell, Mark] = {}
_FREE_MARKS: dict[Cell, tuple[tuple[Mark, ...], ...]] = {}  # tile -> mask -> its free marks
_ADDS: dict[Cell, tuple[AddTile, AddTile, AddTile, AddTile]] = {}
_TILE_MOVES: dict[Cell, dict[Cell, TileMove]] = {}  # src -> dst -> move
_SKYDIVERS: dict[Cell, tuple[Cell, Cell, Cell, Cell]] = {}
_TABLES_MAX = 65536  # cells a table may hold before it starts afresh


def skydivers(tile: Cell) -> tuple[Cell, Cell, Cell, Cell]:
    """The four skydiver cells of ``tile``: (2x, 2y), (2x+1, 2y), (2x, 2y+1), (2x+1, 2y+1)."""
    cells = _SKYDIVERS.get(tile)
    if cells is None:
        x, y = 2 * tile[0], 2 * tile[1]
        cells = _SKYDIVERS[tile] = ((x, y), (x + 1, y), (x, y + 1), (x + 1, y + 1))
    return cells


def tile_of(cell: Cell) -> Cell:
    """The tile that holds skydiver ``cell``."""
    return (cell[0] >> 1, cell[1] >> 1)


def mark(cell: Cell) -> Mark:
    """The one shared :class:`Mark` of skydiver ``cell``."""
    move = _MARKS.get(cell)
    if move is None:
        move = _MARKS[cell] = Mark(cell)
    return move


def free_marks(tile: Cell, taken: int) -> tuple[Mark, ...]:
    """The marks of ``tile``'s free skydivers, in (x, y) order, when the mask ``taken`` says
    which carry a backpack (bit i: ``skydivers(tile)[i]``)."""
    return marks_by_mask(tile)[taken]


def marks_by_mask(tile: Cell) -> tuple[tuple[Mark, ...], ...]:
    """:func:`free_marks` of ``tile`` for each of the 16 masks, in a tuple by mask."""
    table = _FREE_MARKS.get(tile)
    if table is None:
        cells = skydivers(tile)
        table = _FREE_MARKS[tile] = tuple(
            tuple(mark(c) for c in sorted(c for i, c in enumerate(cells) if not m >> i & 1))
            for m in range(16)
        )
    return table


def adds(tile: Cell) -> tuple[AddTile, AddTile, AddTile, AddTile]:
    """The four ways to add ``tile`` (one per skydiver to mark), in (x, y) order."""
    moves = _ADDS.get(tile)
    if moves is None:
        a, b, c, d = sorted(skydivers(tile))
        moves = _ADDS[tile] = (AddTile(a), AddTile(b), AddTile(c), AddTile(d))
    return moves


def tile_move(src: Cell, dst: Cell) -> TileMove:
    """The one shared :class:`TileMove` from ``src`` to ``dst``."""
    known = _TILE_MOVES.get(src)
    if known is None:
        if len(_TILE_MOVES) >= 4096:  # a drifting cluster keeps finding new cells
            _TILE_MOVES.clear()
        known = _TILE_MOVES[src] = {}
    move = known.get(dst)
    if move is None:
        move = known[dst] = TileMove(src, dst)
    return move


def forget_if_full() -> None:
    """Empty the tables once drifting clusters have filled them (called at a game's start)."""
    if len(_MARKS) > _TABLES_MAX:
        for table in (_MARKS, _FREE_MARKS, _ADDS, _SKYDIVERS, _TILE_MOVES):
            table.clear()


def cell_name(cell: Cell) -> str:
    """``'x,y'``: a cell as the notation and the state dictionaries write it."""
    return f"{cell[0]},{cell[1]}"


def parse_cell(text: Any, what: str) -> Cell:
    """'x,y' -> (x, y) for state dictionaries; ValueError naming ``what`` otherwise."""
    try:
        x, y = str(text).split(",")
        return int(x), int(y)
    except ValueError:
        raise ValueError(f"{what} {text!r} is not written 'x,y' (e.g. '0,-1')") from None


_NUM = r"([+-]?\d+)"
_PAIR = rf"\(?{_NUM},{_NUM}\)?"
_RE_PLACE = re.compile(rf"([mt]){_PAIR}")
_RE_SLIDE = re.compile(rf"{_PAIR}>{_PAIR}")
_SYNTAX = (
    "write 'm 1,0' (mark skydiver 1,0), 't 2,1' (add the tile holding skydiver 2,1 and "
    "mark it), '0,0>2,2' (move the tile at tile 0,0 to tile 2,2) or 'pass'"
)


def parse(text: str) -> QuinqueMove:
    """The action written ``text`` (spaces optional); ValueError with the syntax otherwise."""
    compact = "".join(text.split()).lower()
    if compact == "pass":
        return PASS
    m = _RE_PLACE.fullmatch(compact)
    if m:
        cell = (int(m.group(2)), int(m.group(3)))
        return mark(cell) if m.group(1) == "m" else AddTile(cell)
    m = _RE_SLIDE.fullmatch(compact)
    if m:
        a, b, c, d = (int(g) for g in m.groups())
        return tile_move((a, b), (c, d))
    raise ValueError(f"{text!r} is not a quinque action; {_SYNTAX}")
