"""Quinque's cluster geometry: where a tile may be added, and where each tile may move.

It depends only on where the tiles lie (and on the rules ``pass_over`` and ``advanced``),
so one :class:`Geometry` serves every position with the same tiles (cached by the game).

Inside, a cluster lies in a *frame*: a square window of the grid, ``tiles + 6`` cells a
side, its corner snapped to multiples of 4 (so that nearby clusters share a frame and the
move lists kept per frame), the cluster at least one free cell from its edges;
column-major, so tile or cell (x, y) is bit ``(x - x0) * width + (y - y0)`` of an int, its
edge neighbours are the bits +-1 and +-width, and whole-cluster questions are a few shifts
and ands on ints, for every tile at once:

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
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

from .quinque_moves import AddTile, Cell, TileMove, adds, tile_move

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


class _Frame:
    """A square window of ``size`` x ``size`` cells of the grid, column-major, and for each
    of its cells (filled when first asked for) the bitboards ``(its row, column and
    diagonals; its row and column; its four edge neighbours; its row, column and diagonals
    less its edge neighbours)``."""

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


_FRAMES: dict[int, _Frame] = {}


def _frame(size: int) -> _Frame:
    frame = _FRAMES.get(size)
    if frame is None:
        frame = _FRAMES[size] = _Frame(size)
    return frame


# A tile's moves from the bitboard of its destinations: (all, along its row and column,
# along its diagonals, one step along its row or column), each in (x, y) order of dst.
Slide = tuple[Cell, Moves, Moves, Moves, Moves]


class _Made:
    """The move lists made so far in one frame (x0, y0, width): ``known[t]``, the moves of
    the tile at bit ``t`` by the bitboard of their destinations, and the moves by the bits
    of both cells (a bit's cell is worked out once per frame, not once per position)."""

    __slots__ = ("advanced", "known", "moves", "width", "x0", "y0")

    def __init__(self, x0: int, y0: int, width: int, advanced: bool) -> None:
        self.x0, self.y0, self.width, self.advanced = x0, y0, width, advanced
        self.known: list[dict[int, Slide]] = [{} for _ in range(width * width)]
        self.moves: list[dict[int, TileMove]] = [{} for _ in range(width * width)]

    def slide(self, src: Cell, t: int, reach: int, straight: int, sides: int) -> Slide:
        """The moves of the tile ``src`` (bit ``t``) to the cells of ``reach``, made and
        kept."""
        known = self.moves[t]
        advanced = self.advanced
        every: Moves = []
        orth: Moves = []
        diag: Moves = []
        step: Moves = []
        rest = reach
        while rest:  # the highest cell first (fewer operations than the lowest), reversed
            c = rest.bit_length() - 1
            low = 1 << c
            rest ^= low
            move = known.get(c)
            if move is None:
                x, y = divmod(c, self.width)
                move = known[c] = tile_move(src, (x + self.x0, y + self.y0))
            every.append(move)
            if advanced:
                if low & straight:
                    orth.append(move)
                    if low & sides:
                        step.append(move)
                else:
                    diag.append(move)
        every.reverse()
        if advanced:
            orth.reverse()
            diag.reverse()
            step.reverse()
            made = (src, every, orth, diag, step)
        else:
            made = (src, every, NO_MOVES, NO_MOVES, NO_MOVES)
        table = self.known[t]
        if len(table) >= _SLIDES_MAX:
            table.clear()
        table[reach] = made
        return made


_SLIDES_MAX = 1 << 11  # per tile's cell in a frame
_MADE: dict[tuple[int, int, int, bool], _Made] = {}


def _made(x0: int, y0: int, width: int, advanced: bool) -> _Made:
    made = _MADE.get((x0, y0, width, advanced))
    if made is None:
        if len(_MADE) >= 64:  # a few MB at most
            _MADE.clear()
        made = _MADE[x0, y0, width, advanced] = _Made(x0, y0, width, advanced)
    return made


class Geometry:
    """What depends only on where the tiles lie, for the move generator.

    ``order``: the tiles in (x, y) order. ``slides``: for each tile that may move somewhere,
    in (x, y) order, ``(tile, all its moves, along its row and column, along its diagonals,
    one step along its row or column)``, the last three only with ``advanced``. ``adds``:
    every way to add a tile and mark one of its skydivers (built when first asked for: most
    of a game is played with every tile on the table). ``tiles``: how many tiles the game
    has, which sizes the frame (a cluster of n tiles spans at most n cells).
    """

    __slots__ = ("_adds", "_front", "_width", "_x0", "_y0", "order", "slides")

    def __init__(self, order: list[Cell], pass_over: bool, advanced: bool, tiles: int) -> None:
        self.order = order
        # The frame: its corner snapped, so that the frames (and the cached move lists of
        # the tiles, keyed by frame) stay the same while the cluster drifts a little.
        width = max(tiles, len(order)) + _SNAP + 2
        x0 = (order[0][0] - 1) // _SNAP * _SNAP
        y0 = (min([y for _, y in order]) - 1) // _SNAP * _SNAP
        base = x0 * width + y0
        bits = [x * width + y - base for x, y in order]
        occ = sum(map((1).__lshift__, bits))  # distinct bits: the sum is their union
        # Shifted copies: bit c of ``east`` is set when a tile lies east of cell c, etc.
        north, south, east, west = occ >> 1, occ << 1, occ >> width, occ << width
        front = (north | south | east | west) & ~occ
        self._front, self._x0, self._y0, self._width = front, x0, y0, width
        self._adds: list[AddTile] | None = None
        self.slides: list[Slide] = []
        if len(bits) < 2:
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
        holes = ((occ & north).bit_count() + (occ & east).bit_count() - len(bits)
                 - blocks.bit_count() + 1)
        cuts: dict[int, list[int]] | None = None
        splitting = anyjoin = three = 0  # without holes: the tiles that split the others
        if holes:
            cuts = _splits(bits, width, occ)
        else:
            ne, nw = occ >> (width + 1), occ << (width - 1)
            sw, se = occ << (width + 1), occ >> (width - 1)
            joins = (east & ne & north, north & nw & west, west & sw & south, south & se & east)
            j1, j2, j3, j4 = joins
            anyjoin = j1 | j2 | j3 | j4
            twojoins = (j1 & j2) | (j3 & j4) | ((j1 | j2) & (j3 | j4))
            three = (north & south & (east | west)) | (east & west & (north | south))
            two = twos & ~three
            joined = (two & anyjoin) | (three & twojoins)
            splitting = occ & twos & ~closed & ~joined
        frame = _frame(width)
        cells = frame.cells
        made = _made(x0, y0, width, advanced)
        known = made.known
        slides = self.slides
        # A tile lands on a free cell beside two tiles or more, or on one beside a single
        # tile that is not itself (it would touch only its old place).
        crowded = front & twos
        pairs: Iterable[tuple[int, Cell]] = zip(bits, order, strict=True)
        if closed:
            pairs = [(t, c) for t, c in zip(bits, order, strict=True) if not closed >> t & 1]
        for t, src in pairs:
            masks = cells[t] or frame.masks(t)
            if pass_over:
                reach = masks[0] & crowded | masks[3] & single
            else:
                clear = _clear(occ, t, width)
                reach = clear & crowded | clear & ~masks[2] & single
            if splitting >> t & 1:
                # Lifting t splits the others: it must land beside every group again, so
                # on a cell beside two tiles or more (t not counted), in the one-step
                # spread of each group.
                # Without holes each run of tiles around t is a group of its own: two, or
                # three when t has three edge neighbours and none joined to the next.
                reach &= twos & ~(masks[2] & ~three)  # beside two tiles once t is gone
                if not reach:
                    continue
                others = occ ^ (1 << t)
                seeds = masks[2] & occ
                if not three >> t & 1:
                    # Two edge neighbours, one in each group: flood from both at once, so
                    # that the smaller group (a short arm, usually) ends the race.
                    g = _race(seeds & -seeds, seeds & (seeds - 1), others, width)
                    others ^= g
                    reach &= (((g << 1) | (g >> 1) | (g << width) | (g >> width))
                              & ((others << 1) | (others >> 1) | (others << width)
                                 | (others >> width)))
                else:
                    groups = 3 - (anyjoin >> t & 1)
                    while groups > 1 and reach:
                        g = _flood(seeds & -seeds, others, width)
                        seeds &= ~g
                        others ^= g
                        reach &= (g << 1) | (g >> 1) | (g << width) | (g >> width)
                        groups -= 1
                    reach &= ((others << 1) | (others >> 1) | (others << width)
                              | (others >> width))
            elif cuts is not None:
                cut = cuts.get(t)
                if cut is not None:
                    for g in cut:
                        reach &= (g << 1) | (g >> 1) | (g << width) | (g >> width)
            if reach:
                slide = known[t].get(reach)
                if slide is None:
                    slide = made.slide(src, t, reach, masks[1], masks[2])
                slides.append(slide)

    @property
    def adds(self) -> list[AddTile]:
        """Every way to add a tile: the frontier's cells in (x, y) order, each tile's four
        skydivers in (x, y) order."""
        found = self._adds
        if found is None:
            found = []
            front, x0, y0, width = self._front, self._x0, self._y0, self._width
            while front:
                low = front & -front
                front ^= low
                x, y = divmod(low.bit_length() - 1, width)
                found += adds((x + x0, y + y0))
            self._adds = found
        return found


def _flood(seed: int, within: int, width: int) -> int:
    """The group of tiles of the bitboard ``within`` joined to the tile ``seed`` (a bit)."""
    group = seed
    while True:
        grown = (group | (group << 1) | (group >> 1) | (group << width)
                 | (group >> width)) & within
        if grown == group:
            return group
        group = grown


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


def _splits(tiles: list[int], width: int, bits: int) -> dict[int, list[int]]:
    """The tiles whose removal splits the others (articulation points, by one iterative
    pass of Tarjan's depth-first search), in the frame's bits: tile -> the groups the
    others fall into once it is lifted, each a bitboard. ``bits`` is the bitboard of
    ``tiles``. Tiles that split nothing are absent."""
    local = set(tiles)
    adj = {t: [c for c in (t + 1, t + width, t - 1, t - width) if c in local] for t in tiles}
    start = tiles[0]
    disc = {start: 0}
    low = {start: 0}
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
                disc[v] = low[v] = len(disc)
                stack.append((v, u, 0))
                break
            if v != parent and disc[v] < low[u]:
                low[u] = disc[v]
        else:
            stack.pop()
            done[u] = len(disc)
            if parent >= 0:
                lu = low[u]
                if lu < low[parent]:
                    low[parent] = lu
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
                rest = bits ^ (1 << t)
                for g in groups:
                    rest ^= g
                groups.append(rest)
            out[t] = groups
    return out
