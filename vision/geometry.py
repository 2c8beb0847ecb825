"""The physical board as the camera sees it (BOARD.md), in cell units: one model shared by
the renderer that draws boards and the recogniser that reads them.

Board coordinates: the unit is one cell; the origin is the top-left corner of the playing
area as the first player sees it (beyond rank ``ranks``, file a); x grows to the right
(files), y grows downwards (towards rank 1). So cell a1 is the bottom-left cell and its
centre is ``(0.5, ranks - 0.5)``.

Markers (ArUco 4x4_50, ids 0-3) sit diagonally off the area's corners: id 0 top-left, 1
top-right, 2 bottom-right, 3 bottom-left (a1's corner). Each is a square of side
``MARKER_SIDE`` (0.8 cell, black border included) whose nearest corner is ``QUIET`` (0.25
cell) outside the area on both axes. Quinque's unit is a skydiver, half a tile, and BOARD.md
sizes its markers in tiles: its ``marker_unit`` is 2 cells, so its markers are 1.6 units a
side, 0.5 unit off the area. Markers are upright: their own top edge faces the top
of the board. Corner order everywhere is OpenCV's: top-left, top-right, bottom-right,
bottom-left.

This module is pure Python and imports nothing of ours.
"""

from __future__ import annotations

from dataclasses import dataclass

Point = tuple[float, float]
Quad = tuple[Point, Point, Point, Point]

MARKER_SIDE = 0.8
QUIET = 0.25
MARKER_IDS = (0, 1, 2, 3)
MORRIS_POINTS: tuple[str, ...] = (
    "a1", "a4", "a7", "b2", "b4", "b6", "c3", "c4", "c5", "d1", "d2", "d3",
    "d5", "d6", "d7", "e3", "e4", "e5", "f2", "f4", "f6", "g1", "g4", "g7",
)  # fmt: skip


@dataclass(frozen=True)
class BoardGeometry:
    """A rectangular playing area of ``files`` x ``ranks`` cells and the cells in use."""

    name: str
    files: int
    ranks: int
    cells: tuple[str, ...]  # the cell names the game uses, a subset of the grid
    marker_unit: float = 1.0  # cells in the unit the markers are sized in (Quinque: a tile)

    @property
    def marker_side(self) -> float:
        """A marker's side in cells, black border included."""
        return MARKER_SIDE * self.marker_unit

    @property
    def quiet(self) -> float:
        """The gap between the area's corner and its marker's nearest corner, in cells."""
        return QUIET * self.marker_unit

    def position(self, cell: str) -> tuple[int, int]:
        """(file index, rank index), both 0-based, of a cell name such as ``c5``."""
        f, r = ord(cell[0]) - ord("a"), int(cell[1:]) - 1
        if not (0 <= f < self.files and 0 <= r < self.ranks):
            raise ValueError(f"{cell!r} is not on the {self.files}x{self.ranks} {self.name} board")
        return f, r

    def cell_rect(self, cell: str) -> tuple[float, float, float, float]:
        """(x0, y0, x1, y1) of the cell's square in board coordinates."""
        f, r = self.position(cell)
        y0 = self.ranks - 1 - r
        return float(f), float(y0), float(f + 1), float(y0 + 1)

    def cell_center(self, cell: str) -> Point:
        x0, y0, x1, y1 = self.cell_rect(cell)
        return (x0 + x1) / 2, (y0 + y1) / 2

    def area(self) -> Quad:
        """The playing area's corners, top-left first, clockwise."""
        w, h = float(self.files), float(self.ranks)
        return ((0.0, 0.0), (w, 0.0), (w, h), (0.0, h))

    def marker(self, marker_id: int) -> Quad:
        """Corners of marker ``marker_id``, in OpenCV's order (top-left first, clockwise)."""
        w, h = float(self.files), float(self.ranks)
        near = self.quiet
        far = self.quiet + self.marker_side
        x0, y0 = {
            0: (-far, -far),
            1: (w + near, -far),
            2: (w + near, h + near),
            3: (-far, h + near),
        }[marker_id]
        x1, y1 = x0 + self.marker_side, y0 + self.marker_side
        return ((x0, y0), (x1, y0), (x1, y1), (x0, y1))

    def extent(self, margin: float = 0.5) -> tuple[float, float, float, float]:
        """(x0, y0, x1, y1) covering the area, the markers and ``margin`` cells around."""
        far = self.quiet + self.marker_side + margin
        return -far, -far, self.files + far, self.ranks + far


def _grid(name: str, files: int, ranks: int) -> BoardGeometry:
    cells = tuple(f"{chr(ord('a') + f)}{r + 1}" for r in range(ranks) for f in range(files))
    return BoardGeometry(name, files, ranks, cells)


# Quinque has no board: its "area" is the marked table region, in skydiver units (a tile
# is 2x2); tiles lie anywhere inside it and the recogniser finds them (no fixed grid).
QUINQUE_AREA = 16
QUINQUE_TILE = 2  # a tile's side in skydivers

GEOMETRIES: dict[str, BoardGeometry] = {
    "morris": BoardGeometry("morris", 7, 7, tuple(MORRIS_POINTS)),
    "draughts": BoardGeometry(
        "draughts",
        8,
        8,
        tuple(
            f"{chr(ord('a') + f)}{r + 1}" for r in range(8) for f in range(8) if (f + r) % 2 == 0
        ),
    ),
    "quixo": _grid("quixo", 5, 5),
    "tessere": _grid("tessere", 5, 5),
    "sequence-kids": _grid("sequence-kids", 6, 7),
    "quinque": BoardGeometry("quinque", QUINQUE_AREA, QUINQUE_AREA, (), QUINQUE_TILE),
}


def geometry_for(game: str) -> BoardGeometry:
    """The board geometry of a game by registry name; ValueError names the known ones."""
    try:
        return GEOMETRIES[game]
    except KeyError:
        known = ", ".join(sorted(GEOMETRIES))
        raise ValueError(f"no board geometry for {game!r}; known: {known}") from None
