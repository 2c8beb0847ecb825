"""Quinque's cluster geometry: where a tile may be added, and where each tile may move.

It depends only on where the tiles lie (and on the rules ``pass_over`` and ``advanced``).
A game keeps its cluster as the bits of an int in a :class:`Frame`, a square window of the
grid, ``tiles + 6`` cells a side, its corner snapped to multiples of 4 (so that nearby
clusters, and the games that start alike, share a frame and what it keeps), the cluster at
least one free cell from its edges. Placing or moving a tile changes one or two bits; the
game moves to another frame only when a tile lands too near the edge. Column-major, so
tile or cell (x, y) is bit ``(x - x0) * width + (y - y0)``, its edge neighbours are the bits
+-1 and +-width, and whole-cluster questions are a few shifts and ands on ints, for every
tile at once:

- the frontier (free cells sharing an edge with a tile) is the tiles' one-step spread less
  the tiles; the cells sharing an edge with two or more tiles come from the same four
  shifted copies;
- the tiles whose lifting splits the others (articulation points): a planar cluster's
  holes are its cycles that no 2x2 block fills, counted by Euler's formula (edges - tiles
  - 2x2 blocks + 1); without holes a tile splits the others exactly when the tiles in its
  ring of 8 cells are not all joined (two edge neighbours not joined through the corner
  between them, or opposite ones), which eight shifted copies tell for every tile; with
  holes, one pass of Tarjan's search decides;
- a tile's destinations are its row, column and diagonals anded with the frontier, less its
  own free sides that touch no other tile; a tile that splits the others lands only beside
  every group again, i.e. in the one-step spread of each group (found by flooding from its
  neighbours, one flood per neighbour growing in turn so that the smallest group, usually
  a short arm, ends the search; or from Tarjan's search);
- set bits come out in increasing order, which is (x, y) order: the **canonical order** of
  the move lists (tiles in (x, y) order, each tile's destinations in (x, y) order) is what
  iterating them gives, whatever order the tiles were added or moved in.

A frame keeps the :class:`Geometry` of the clusters it has seen (a tile moved and moved
back, the same tiles reached two ways in a turn, the first clusters of every game) and
each tile's move list by the bitboard of its destinations.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

from .quinque_moves import AddTile, Cell, Mark, TileMove, adds, marks_by_mask, tile_move

Moves = list[TileMove]
NO_MOVES: Final[Moves] = []  # shared, never appended to


def neighbours(c: Cell) -> tuple[Cell, Cell, Cell, Cell]:
    """The four cells sharing an edge with ``c``."""
    x, y = c
    return ((x + 1, y), (x, y + 1), (x - 1, y), (x, y - 1))


def components(occ: Iterable[Cell]) -> dict[Cell, int]:
    """Tile -> label of its edge-connected group (for explanations and loading states)."""
    rest = set(occ)
    label: dict[Cell, int] = {}
    n = 0
    for seed in sorted(rest):
        if seed in label:
            continue
        label[seed] = n
        stack = [seed]
        while stack:
            for v in neighbours(stack.pop()):
                if v in rest and v not in label:
                    label[v] = n
                    stack.append(v)
        n += 1
    return label


def first_tile_between(occ: Iterable[Cell], src: Cell, dst: Cell) -> Cell | None:
    """The first tile strictly between ``src`` and ``dst`` (in line), or None."""
    tiles = set(occ)
    dx = (dst[0] > src[0]) - (dst[0] < src[0])
    dy = (dst[1] > src[1]) - (dst[1] < src[1])
    x, y = src[0] + dx, src[1] + dy
    while (x, y) != dst:
        if (x, y) in tiles:
            return (x, y)
        x += dx
        y += dy
    return None


_SNAP = 4  # a frame's corner lies on multiples of this: nearby clusters share frames


class _Lines:
    """For each cell of a square window ``size`` cells a side, column-major (filled when
    first asked for), the bitboards ``(its row, column and diagonals; its row and column;
    its four edge neighbours; its row, column and diagonals less its edge neighbours)``:
    the same for every frame of that size."""

    __slots__ = ("cells", "size")

    def __init__(self, size: int) -> None:
        self.size = size
        self.cells: list[tuple[int, int, int, int] | None] = [None] * (size * size)

    def masks(self, c: int) -> tuple[int, int, int, int]:
        """The bitboards of cell ``c`` (see the class)."""
        found = self.cells[c]
        if found is None:
            size = self.size
            x, y = divmod(c, size)
            straight = (sum(1 << (i * size + y) for i in range(size))
                        | ((1 << size) - 1) << (x * size))
            slanted = 0
            for i in range(-size, size):
                if 0 <= x + i < size and 0 <= y + i < size:
                    slanted |= 1 << ((x + i) * size + y + i)
                if 0 <= x + i < size and 0 <= y - i < size:
                    slanted |= 1 << ((x + i) * size + y - i)
            sides = (5 << (c - 1)) | (1 << (c + size)) | (1 << (c - size))
            rays = straight | slanted
            found = self.cells[c] = (rays, straight, sides, rays & ~sides)
        return found


_LINES: dict[int, _Lines] = {}


def _lines(size: int) -> _Lines:
    lines = _LINES.get(size)
    if lines is None:
        lines = _LINES[size] = _Lines(size)
    return lines


# Under the advanced rules, a tile's moves from the bitboard of its destinations: (the
# tile, all its moves, along its row and column, along its diagonals, one step along its
# row or column), each in (x, y) order of dst. The basic rules keep only the list of all.
Slide = tuple[Cell, Moves, Moves, Moves, Moves]

_LISTS_MAX = 1 << 11  # move lists kept per cell of a frame
_GEOMETRIES_MAX = 512  # clusters kept per frame


class Frame:
    """A square window of the tile grid, ``width`` cells a side from ``(x0, y0)``, in which
    a cluster is an int (bit ``(x - x0) * width + (y - y0)`` for tile (x, y)), for the
    rules ``pass_over`` and ``advanced``; and what is kept for the clusters seen in it:
    their :class:`Geometry` by occupancy, and for each cell the moves of a tile there by
    destination bit (``moves[t]``) and the lists of them by the bitboard of the
    destinations (``lists[t]``, or ``slides[t]`` under the advanced rules)."""

    __slots__ = ("advanced", "cells", "geometries", "inner", "lines", "lists", "moves",
                 "pass_over", "slides", "width", "x0", "y0")

    def __init__(self, x0: int, y0: int, width: int, pass_over: bool, advanced: bool) -> None:
        self.x0, self.y0, self.width = x0, y0, width
        self.pass_over, self.advanced = pass_over, advanced
        self.lines = _lines(width)
        area = width * width
        self.cells = [(x0 + c // width, y0 + c % width) for c in range(area)]
        # Where a tile may lie: a cell inside the edge, so that its free sides are in the
        # frame too. Tile -> its bit.
        self.inner = {(x0 + x, y0 + y): 1 << (x * width + y)
                      for x in range(1, width - 1) for y in range(1, width - 1)}
        self.moves: list[dict[int, TileMove]] = [{} for _ in range(area)]
        self.lists: list[dict[int, Moves]] = [] if advanced else [{} for _ in range(area)]
        self.slides: list[dict[int, Slide]] = [{} for _ in range(area)] if advanced else []
        self.geometries: dict[int, Geometry] = {}

    def occupancy(self, tiles: Iterable[Cell]) -> int:
        """The cluster ``tiles`` as an int; -1 if one lies outside :attr:`inner`."""
        inner = self.inner
        occ = 0
        for t in tiles:
            bit = inner.get(t)
            if bit is None:
                return -1
            occ |= bit
        return occ

    def geometry(self, occ: int) -> Geometry:
        """The geometry of the cluster ``occ`` (kept: a cluster comes back)."""
        geo = self.geometries.get(occ)
        if geo is None:
            if len(self.geometries) >= _GEOMETRIES_MAX:
                self.geometries.clear()
            geo = self.geometries[occ] = Geometry(self, occ)
        return geo

    def list(self, t: int, reach: int) -> Moves:
        """The moves of the tile at bit ``t`` to the cells of ``reach``, made and kept."""
        known = self.moves[t]
        src = self.cells[t]
        cells = self.cells
        every: Moves = []
        rest = reach
        while rest:  # the highest cell first (fewer operations than the lowest), reversed
            c = rest.bit_length() - 1
            rest ^= 1 << c
            move = known.get(c)
            if move is None:
                move = known[c] = tile_move(src, cells[c])
            every.append(move)
        every.reverse()
        table = self.lists[t]
        if len(table) >= _LISTS_MAX:
            table.clear()
        table[reach] = every
        return every

    def slide(self, t: int, reach: int, straight: int, sides: int) -> Slide:
        """:meth:`list` split by the advanced rules' ways to move (``straight``: the tile's
        row and column; ``sides``: its edge neighbours)."""
        known = self.moves[t]
        src = self.cells[t]
        cells = self.cells
        every: Moves = []
        orth: Moves = []
        diag: Moves = []
        step: Moves = []
        rest = reach
        while rest:
            c = rest.bit_length() - 1
            low = 1 << c
            rest ^= low
            move = known.get(c)
            if move is None:
                move = known[c] = tile_move(src, cells[c])
            every.append(move)
            if low & straight:
                orth.append(move)
                if low & sides:
                    step.append(move)
            else:
                diag.append(move)
        every.reverse()
        orth.reverse()
        diag.reverse()
        step.reverse()
        made = (src, every, orth, diag, step)
        table = self.slides[t]
        if len(table) >= _LISTS_MAX:
            table.clear()
        table[reach] = made
        return made


_FRAMES: dict[tuple[int, int, int, bool, bool], Frame] = {}


def frame_for(tiles: Iterable[Cell], size: int, pass_over: bool, advanced: bool) -> Frame:
    """The frame for the cluster ``tiles`` of a game of ``size`` tiles (a cluster of n tiles
    spans at most n cells): its corner snapped, so that the frames (and what they keep)
    stay the same while the cluster drifts a little."""
    cells = list(tiles)
    width = max(size, len(cells)) + _SNAP + 2
    x0 = (min([x for x, _ in cells]) - 1) // _SNAP * _SNAP
    y0 = (min([y for _, y in cells]) - 1) // _SNAP * _SNAP
    key = (x0, y0, width, pass_over, advanced)
    frame = _FRAMES.get(key)
    if frame is None:
        if len(_FRAMES) >= 64:  # a few MB at most
            _FRAMES.clear()
        frame = _FRAMES[key] = Frame(x0, y0, width, pass_over, advanced)
    return frame


class Geometry:
    """What depends only on where the tiles lie, for the move generator, made from the
    cluster ``occ`` in ``frame``.

    ``moves``: every tile move, tiles in (x, y) order, each tile's destinations in (x, y)
    order (the canonical order). ``slides``: under the advanced rules, for each tile that
    may move somewhere, in (x, y) order, ``(tile, all its moves, along its row and column,
    along its diagonals, one step along its row or column)`` (and ``moves`` is empty).
    ``order`` (the tiles in (x, y) order) and ``adds`` (every way to add a tile and mark
    one of its skydivers) are made when first asked for: most of a game is played with
    every tile on the table.
    """

    __slots__ = ("_adds", "_frame", "_front", "_marks", "_occ", "_order", "_without", "moves",
                 "slides")

    def __init__(self, frame: Frame, occ: int) -> None:
        self._frame, self._occ = frame, occ
        self._order: list[Cell] | None = None
        self._adds: list[AddTile] | None = None
        self._marks: list[tuple[Cell, tuple[tuple[Mark, ...], ...]]] | None = None
        self._without: tuple[Cell, Moves] | None = None
        width = frame.width
        # Shifted copies: bit c of ``east`` is set when a tile lies east of cell c, etc.
        north, south, east, west = occ >> 1, occ << 1, occ >> width, occ << width
        front = (north | south | east | west) & ~occ
        self._front = front
        self.slides: list[Slide] = []
        moves: Moves = []
        self.moves = moves
        if not occ & (occ - 1):
            return  # a lone tile cannot move
        # Cells beside two tiles or more; free cells beside exactly one (a tile may not land
        # on one of its own free sides that touches no other tile).
        twos = (north & south) | (east & west) | ((north | south) & (east | west))
        single = front & ~twos
        closed = occ & north & south & east & west  # tiles closed on all four sides
        # A planar cluster's holes are its cycles that no 2x2 block of tiles fills (Euler:
        # edges - tiles - blocks + 1). Without holes, lifting a tile splits the others
        # exactly when the tiles around it (the ring of 8 cells) are not all joined: two
        # edge neighbours not joined through the corner between them, or opposite ones.
        # With holes, one pass of Tarjan's search decides.
        blocks = occ & north & east & (east >> 1)
        holes = ((occ & north).bit_count() + (occ & east).bit_count() - occ.bit_count()
                 - blocks.bit_count() + 1)
        cuts: dict[int, list[int]] | None = None
        splitting = j1 = j2 = j3 = j4 = three = 0  # without holes: the splitting tiles
        if holes:
            cuts = _splits(occ, width)
        else:
            # j1: a tile's north and east neighbours are joined through its north-east
            # corner; j2 north and west, j3 west and south, j4 south and east.
            ne, nw = occ >> (width + 1), occ << (width - 1)
            sw, se = occ << (width + 1), occ >> (width - 1)
            j1, j2 = east & ne & north, north & nw & west
            j3, j4 = west & sw & south, south & se & east
            anyjoin = j1 | j2 | j3 | j4
            twojoins = (j1 & j2) | (j3 & j4) | ((j1 | j2) & (j3 | j4))
            three = (north & south & (east | west)) | (east & west & (north | south))
            joined = (twos & ~three & anyjoin) | (three & twojoins)
            splitting = occ & twos & ~closed & ~joined
        lines = frame.lines.cells
        masks_of = frame.lines.masks
        pass_over = frame.pass_over
        advanced = frame.advanced
        lists = frame.lists
        slides = self.slides
        # A tile lands on a free cell beside two tiles or more, or on one beside a single
        # tile that is not itself (it would touch only its old place).
        crowded = front & twos
        movable = occ & ~closed
        while movable:  # the tiles in (x, y) order
            low = movable & -movable
            movable ^= low
            t = low.bit_length() - 1
            masks = lines[t] or masks_of(t)
            if pass_over:
                reach = masks[0] & crowded | masks[3] & single
            else:
                clear = _clear(occ, t, width)
                reach = clear & crowded | clear & ~masks[2] & single
            if splitting & low:
                # Lifting t splits the others: it must land beside every group again, so
                # on a cell beside two tiles or more (t not counted), in the one-step
                # spread of each group. Without holes each run of tiles around t is a
                # group of its own: two, or three when t has three edge neighbours and
                # none joined to the next. A flood from one edge neighbour and one from
                # another grow in turn until one has its whole group: the smaller group
                # (a short arm, usually) ends the race.
                sides = masks[2]
                reach &= twos & ~(sides & ~three)  # beside two tiles once t is gone
                if not reach:
                    continue
                others = occ ^ low
                seeds = sides & occ
                if not three & low:  # two edge neighbours, one in each group
                    g = seeds & -seeds
                    b = seeds ^ g
                    while True:  # _race, inlined: most splitting tiles come here
                        grown = (g | (g << 1) | (g >> 1) | (g << width)
                                 | (g >> width)) & others
                        if grown == g:
                            break
                        g = grown
                        grown = (b | (b << 1) | (b >> 1) | (b << width)
                                 | (b >> width)) & others
                        if grown == b:
                            g = b
                            break
                        b = grown
                elif j1 & low or j2 & low or j3 & low or j4 & low:
                    # Three edge neighbours, two of them joined: the third is a group.
                    north_, east_ = low << 1, low << width
                    south_, west_ = low >> 1, low >> width
                    pair = (north_ | east_ if j1 & low else north_ | west_ if j2 & low
                            else west_ | south_ if j3 & low else south_ | east_)
                    g = seeds & pair
                    g = _race(seeds & ~pair, g & -g, others, width)
                else:
                    # Three groups: the first found, then one of the other two.
                    b = seeds & (seeds - 1)
                    g = _race(seeds & -seeds, b & -b, others, width)
                    others ^= g
                    reach &= (g << 1) | (g >> 1) | (g << width) | (g >> width)
                    seeds &= ~g
                    g = _race(seeds & -seeds, seeds & (seeds - 1), others, width)
                others ^= g
                reach &= (((g << 1) | (g >> 1) | (g << width) | (g >> width))
                          & ((others << 1) | (others >> 1) | (others << width)
                             | (others >> width)))
            elif cuts is not None:
                cut = cuts.get(t)
                if cut is not None:
                    for g in cut:
                        reach &= (g << 1) | (g >> 1) | (g << width) | (g >> width)
            if reach:
                if advanced:
                    slide = frame.slides[t].get(reach)
                    if slide is None:
                        slide = frame.slide(t, reach, masks[1], masks[2])
                    slides.append(slide)
                else:
                    every = lists[t].get(reach)
                    if every is None:
                        every = frame.list(t, reach)
                    moves += every

    def moves_but(self, tile: Cell) -> Moves:
        """:attr:`moves` less those of ``tile`` (the tile marked this turn)."""
        found = self._without
        if found is None or found[0] != tile:
            found = self._without = (tile, [m for m in self.moves if m.src != tile])
        return found[1]

    @property
    def order(self) -> list[Cell]:
        """The tiles in (x, y) order."""
        found = self._order
        if found is None:
            cells = self._frame.cells
            found = []
            rest = self._occ
            while rest:
                low = rest & -rest
                rest ^= low
                found.append(cells[low.bit_length() - 1])
            self._order = found
        return found

    @property
    def marks(self) -> list[tuple[Cell, tuple[tuple[Mark, ...], ...]]]:
        """Each tile in (x, y) order with its free skydivers' marks by the mask of those
        taken (:func:`~tavola.games.quinque_moves.marks_by_mask`)."""
        found = self._marks
        if found is None:
            found = self._marks = [(t, marks_by_mask(t)) for t in self.order]
        return found

    @property
    def adds(self) -> list[AddTile]:
        """Every way to add a tile: the frontier's cells in (x, y) order, each tile's four
        skydivers in (x, y) order."""
        found = self._adds
        if found is None:
            found = []
            cells = self._frame.cells
            front = self._front
            while front:
                low = front & -front
                front ^= low
                found += adds(cells[low.bit_length() - 1])
            self._adds = found
        return found


def _race(a: int, b: int, within: int, width: int) -> int:
    """One whole group of tiles of ``within``: the group of tile ``a`` or that of tile ``b``
    (two bits in different groups), whichever a flood from each, step by step, fills first."""
    while True:
        grown = (a | (a << 1) | (a >> 1) | (a << width) | (a >> width)) & within
        if grown == a:
            return a
        a = grown
        grown = (b | (b << 1) | (b >> 1) | (b << width) | (b >> width)) & within
        if grown == b:
            return b
        b = grown


def _clear(occ: int, t: int, width: int) -> int:
    """The cells ``t`` reaches in a straight line without passing over a tile, as a
    bitboard (the first tile in each direction stops it)."""
    out = 0
    x0, y0 = divmod(t, width)
    for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (1, -1), (-1, 1), (-1, -1)):
        x, y = x0 + dx, y0 + dy
        while 0 <= x < width and 0 <= y < width:
            c = 1 << (x * width + y)
            if occ & c:
                break
            out |= c
            x += dx
            y += dy
    return out


def _splits(occ: int, width: int) -> dict[int, list[int]]:
    """The tiles whose removal splits the others (articulation points, by one iterative
    pass of Tarjan's depth-first search), as bits of the frame: tile -> the groups the
    others fall into once it is lifted, each a bitboard. ``occ`` is the cluster's
    bitboard. Tiles that split nothing are absent."""
    tiles = []
    rest = occ
    while rest:
        low = rest & -rest
        rest ^= low
        tiles.append(low.bit_length() - 1)
    local = set(tiles)
    adj = {t: [c for c in (t + 1, t + width, t - 1, t - width) if c in local] for t in tiles}
    start = tiles[0]
    disc = {start: 0}
    low_ = {start: 0}
    done: dict[int, int] = {}  # discovery count when the tile's subtree was finished
    split: dict[int, list[int]] = {}  # tile -> children whose subtree it cuts off
    # A frame: (tile, its parent, the index of its next neighbour to look at).
    stack = [(start, -1, 0)]
    while stack:
        u, parent, i = stack[-1]
        near = adj[u]
        n = len(near)
        while i < n:
            v = near[i]
            i += 1
            if v not in disc:
                stack[-1] = (u, parent, i)
                disc[v] = low_[v] = len(disc)
                stack.append((v, u, 0))
                break
            if v != parent and disc[v] < low_[u]:
                low_[u] = disc[v]
        else:
            stack.pop()
            done[u] = len(disc)
            if parent >= 0:
                lu = low_[u]
                if lu < low_[parent]:
                    low_[parent] = lu
                if lu >= disc[parent]:
                    if parent in split:
                        split[parent].append(u)
                    else:
                        split[parent] = [u]
    out: dict[int, list[int]] = {}
    if not split:
        return out
    # A subtree is a run of discovery times: its bitboard is a difference of prefixes.
    prefix = [0]
    acc = 0
    for t in disc:  # insertion order is discovery order
        acc |= 1 << t
        prefix.append(acc)
    for t, children in split.items():
        if t != start or len(children) > 1:
            groups = [prefix[done[v]] ^ prefix[disc[v]] for v in children]
            if t != start:
                rest = occ ^ (1 << t)
                for g in groups:
                    rest ^= g
                groups.append(rest)
            out[t] = groups
    return out
