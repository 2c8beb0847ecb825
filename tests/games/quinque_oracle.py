"""Quinque's engine as it was when issue 13 was filed: the oracle and the speed reference.

Its move generator rebuilt the cluster's whole geometry (frontier, articulation points, the
destinations of every tile) from scratch for each new set of tiles, and listed the moves in
the order it discovered them. The engine in :mod:`tavola.games.quinque` lists them in a
canonical order and derives its geometry from bitboards; tests check that both give the same
SET of moves on many random positions, and ``bench/engines.py`` times both in one run. Kept
verbatim but for this docstring, the absolute import and the class name; not registered.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, ClassVar

from tavola.games.base import Game, Outcome, Param, Reason

Cell = tuple[int, int]

RED, ORANGE = 0, 1
TOKENS = ("R", "O")
FREE = "."

_OPENING, _FIRST, _SECOND = 0, 1, 2
_PHASES = ("opening", "first", "second")


# --------------------------------------------------------------------------- moves
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

# Move objects are built once and shared (the grid is unbounded, so the tables fill lazily).
_MARKS: dict[Cell, Mark] = {}
_TILE_MARKS: dict[Cell, tuple[Mark, Mark, Mark, Mark]] = {}  # tile -> its marks
_ADDS: dict[Cell, tuple[AddTile, AddTile, AddTile, AddTile]] = {}
_TILE_MOVES: dict[Cell, dict[Cell, TileMove]] = {}  # src -> dst -> move
_SKYDIVERS: dict[Cell, tuple[Cell, Cell, Cell, Cell]] = {}


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


def _mark(cell: Cell) -> Mark:
    move = _MARKS.get(cell)
    if move is None:
        move = _MARKS[cell] = Mark(cell)
    return move


def _marks(tile: Cell) -> tuple[Mark, Mark, Mark, Mark]:
    moves = _TILE_MARKS.get(tile)
    if moves is None:
        a, b, c, d = skydivers(tile)
        moves = _TILE_MARKS[tile] = (_mark(a), _mark(b), _mark(c), _mark(d))
    return moves


def _adds(tile: Cell) -> tuple[AddTile, AddTile, AddTile, AddTile]:
    moves = _ADDS.get(tile)
    if moves is None:
        a, b, c, d = skydivers(tile)
        moves = _ADDS[tile] = (AddTile(a), AddTile(b), AddTile(c), AddTile(d))
    return moves


def _tile_move(src: Cell, dst: Cell) -> TileMove:
    known = _TILE_MOVES.get(src)
    if known is None:
        if len(_TILE_MOVES) >= 4096:  # a drifting cluster keeps finding new cells
            _TILE_MOVES.clear()
        known = _TILE_MOVES[src] = {}
    move = known.get(dst)
    if move is None:
        move = known[dst] = TileMove(src, dst)
    return move


def _name(cell: Cell) -> str:
    return f"{cell[0]},{cell[1]}"


_NUM = r"([+-]?\d+)"
_PAIR = rf"\(?{_NUM},{_NUM}\)?"
_RE_PLACE = re.compile(rf"([mt]){_PAIR}")
_RE_SLIDE = re.compile(rf"{_PAIR}>{_PAIR}")
_SYNTAX = (
    "write 'm 1,0' (mark skydiver 1,0), 't 2,1' (add the tile holding skydiver 2,1 and "
    "mark it), '0,0>2,2' (move the tile at tile 0,0 to tile 2,2) or 'pass'"
)


def _xy(text: Any, what: str) -> Cell:
    """'x,y' -> (x, y) for state dictionaries."""
    try:
        x, y = str(text).split(",")
        return int(x), int(y)
    except ValueError:
        raise ValueError(f"{what} {text!r} is not written 'x,y' (e.g. '0,-1')") from None


# --------------------------------------------------------------------------- geometry
@dataclass(frozen=True, slots=True)
class _Geometry:
    """What depends only on where the tiles lie: the ways to add a tile, and for every tile
    that may move the moves the cluster allows, sorted by kind."""

    adds: list[AddTile]  # every way to add a tile and mark one of its skydivers
    # (tile, its moves along its row and column, along its diagonals, one orthogonal step)
    slides: tuple[tuple[Cell, list[TileMove], list[TileMove], list[TileMove]], ...]


_GEOMETRY: dict[tuple[frozenset[Cell], bool, bool], _Geometry] = {}
_GEOMETRY_MAX = 1024  # a few MB at most; most reuse is within a turn or after an undo


def _neighbours(c: Cell) -> tuple[Cell, Cell, Cell, Cell]:
    x, y = c
    return ((x + 1, y), (x, y + 1), (x - 1, y), (x, y - 1))


def _components(occ: Iterable[Cell]) -> dict[Cell, int]:
    """Tile -> label of its edge-connected group."""
    rest = set(occ)
    label: dict[Cell, int] = {}
    n = 0
    for seed in sorted(rest):
        if seed in label:
            continue
        label[seed] = n
        stack = [seed]
        while stack:
            for v in _neighbours(stack.pop()):
                if v in rest and v not in label:
                    label[v] = n
                    stack.append(v)
        n += 1
    return label


def _first_tile_between(occ: frozenset[Cell] | set[Cell], src: Cell, dst: Cell) -> Cell | None:
    """The first tile strictly between ``src`` and ``dst`` (in line), or None."""
    dx = (dst[0] > src[0]) - (dst[0] < src[0])
    dy = (dst[1] > src[1]) - (dst[1] < src[1])
    x, y = src[0] + dx, src[1] + dy
    while (x, y) != dst:
        if (x, y) in occ:
            return (x, y)
        x += dx
        y += dy
    return None


def _splits(
    occ: set[int], start: int, width: int
) -> dict[int, tuple[list[int], dict[int, int], int]]:
    """The tiles whose removal splits the others (articulation points, by Tarjan's
    depth-first search), in the local encoding of :func:`_geometry`: tile -> (the group,
    once that tile is lifted, of every tile by its discovery time; every tile's discovery
    time; the number of groups). Group -1 is the side of the search's root; the others
    number the subtrees the tile cuts off. Tiles that split nothing are absent."""
    disc: dict[int, int] = {}
    low: dict[int, int] = {}
    done: dict[int, int] = {}  # discovery count when the tile's subtree was finished
    split: dict[int, list[int]] = {}  # tile -> children whose subtree it cuts off
    steps = (1, width, -1, -width)

    def visit(u: int, parent: int) -> None:
        disc[u] = low[u] = len(disc)
        for step in steps:
            v = u + step
            if v not in occ:
                continue
            if v not in disc:
                visit(v, u)
                if low[v] < low[u]:
                    low[u] = low[v]
                if low[v] >= disc[u]:
                    split.setdefault(u, []).append(v)
            elif v != parent and disc[v] < low[u]:
                low[u] = disc[v]
        done[u] = len(disc)

    visit(start, -1)
    out: dict[int, tuple[list[int], dict[int, int], int]] = {}
    for t, children in split.items():
        if t != start or len(children) > 1:
            group = [-1] * len(disc)
            for i, v in enumerate(children):
                group[disc[v] : done[v]] = [i] * (done[v] - disc[v])
            out[t] = (group, disc, len(children) + (t != start))
    return out


def _geometry(occ: frozenset[Cell], pass_over: bool, advanced: bool) -> _Geometry:
    """The frontier and the tile moves of a cluster (cached: it is most of move generation).

    Inside, a cell is one int, column-major with a margin of one free cell:
    ``(x - x0 + 1) * width + (y - y0 + 1)``, so its neighbours are +-1 and +-width.
    """
    key = (occ, pass_over, advanced)
    geo = _GEOMETRY.get(key)
    if geo is not None:
        return geo
    order = sorted(occ)
    x0 = order[0][0] - 1
    y0 = min(y for _, y in order) - 1
    width = max(y for _, y in order) - y0 + 2
    tiles = [(x - x0) * width + y - y0 for x, y in order]
    local = set(tiles)
    touching: dict[int, list[int]] = {}  # free cell -> the tiles it shares an edge with
    closed: set[int] = set()
    for t in tiles:
        sides = 0
        for c in (t + 1, t + width, t - 1, t - width):
            if c in local:
                sides += 1
            elif c in touching:
                touching[c].append(t)
            else:
                touching[c] = [t]
        if sides == 4:
            closed.add(t)
    cell = {c: (c // width + x0, c % width + y0) for c in touching}
    slides = []
    if len(tiles) > 1:
        cuts = _splits(local, tiles[0], width)
        shared = {c: near for c, near in touching.items() if len(near) > 1}
        lone = {c: near[0] for c, near in touching.items() if len(near) == 1}
        lonely = set(lone.values())
        rows: defaultdict[int, list[int]] = defaultdict(list)
        cols: defaultdict[int, list[int]] = defaultdict(list)
        diags: defaultdict[int, list[int]] = defaultdict(list)
        antis: defaultdict[int, list[int]] = defaultdict(list)
        for c in touching:
            x, y = divmod(c, width)
            rows[y].append(c)
            cols[x].append(c)
            diags[x - y].append(c)
            antis[x + y].append(c)
        empty: list[int] = []
        for t, src in zip(tiles, order, strict=True):
            if t in closed:
                continue
            x, y = divmod(t, width)
            straight = rows.get(y, empty) + cols.get(x, empty)
            slanted = diags.get(x - y, empty) + antis.get(x + y, empty)
            cut = cuts.get(t)
            if cut is None:
                # Lifting t leaves one group: any free cell touching another tile will do,
                # so not one of t's own free sides that touches nothing else.
                if t in lonely:
                    straight = [c for c in straight if lone.get(c) != t]
            else:
                # Lifting t splits the others: the cell must touch every group again.
                group, disc, groups = cut
                straight = [c for c in straight if c in shared
                            and len({group[disc[n]] for n in shared[c] if n != t}) == groups]
                slanted = [c for c in slanted if c in shared
                           and len({group[disc[n]] for n in shared[c] if n != t}) == groups]
            if not pass_over:
                straight = [c for c in straight if _clear(local, t, c, width)]
                slanted = [c for c in slanted if _clear(local, t, c, width)]
            if not straight and not slanted:
                continue
            known = _TILE_MOVES.get(src) or {}
            orth = [known.get(cell[c]) or _tile_move(src, cell[c]) for c in straight]
            diag = [known.get(cell[c]) or _tile_move(src, cell[c]) for c in slanted]
            step = [m for m, c in zip(orth, straight, strict=True)
                    if c - t in (1, -1, width, -width)] if advanced else orth
            slides.append((src, orth, diag, step))
    adds = [m for c in cell.values() for m in (_ADDS.get(c) or _adds(c))]
    geo = _Geometry(adds, tuple(slides))
    if len(_GEOMETRY) >= _GEOMETRY_MAX:
        _GEOMETRY.clear()
    _GEOMETRY[key] = geo
    return geo


def _clear(local: set[int], src: int, dst: int, width: int) -> bool:
    """Whether no tile lies strictly between ``src`` and ``dst`` (local encoding, in line)."""
    dx, dy = dst // width - src // width, dst % width - src % width
    step = ((dx > 0) - (dx < 0)) * width + (dy > 0) - (dy < 0)
    c = src + step
    while c != dst:
        if c in local:
            return False
        c += step
    return True


# --------------------------------------------------------------------------- the game
class OracleQuinque(Game[QuinqueMove]):
    """Quinque: mark skydivers, add and move tiles; five backpacks in a line win."""

    name = "quinque"
    needs = "identity"
    player_names = ("Red", "Orange")
    params = (
        Param(
            "advanced",
            False,
            "advanced movement: a tile with 1 backpack moves one step along its row or column, "
            "2 anywhere along its row or column, 3 along a diagonal, 4 in any of 8 directions",
        ),
        Param(
            "opening",
            "one",
            "backpacks put on the first tile before the first regular turn: 'one' (Red puts "
            "one, then Orange plays first) or 'each' (Red, then Orange, then Red plays first)",
            choices=("one", "each"),
        ),
        Param("pass_over", True, "a moving tile may pass over other tiles on its way"),
        Param(
            "opponent_line",
            "opponent_wins",
            "an action that completes a line only for the opponent: 'opponent_wins', or "
            "'ignore' (a line counts only after its owner's own action)",
            choices=("opponent_wins", "ignore"),
        ),
        Param(
            "out_of_backpacks",
            "move",
            "a player with nothing to mark: 'move' (must move a tile; pass only when none can "
            "move) or 'move_or_pass' (may pass the turn)",
            choices=("move", "move_or_pass"),
        ),
        Param("line_length", 5, "backpacks in a line that win (that many or more)",
              minimum=3, maximum=10),
        Param("tiles", 16, "tiles in the game, the first one included", minimum=1, maximum=64),
        Param("backpacks", 18, "backpacks per player", minimum=1, maximum=128),
        Param(
            "repetition_draw",
            False,
            "not in the rules: draw when a position (tiles, backpacks, player and action, up "
            "to shifting the whole cluster) occurs for the third time",
        ),
    )
    CONFORMANCE_PARAMS: ClassVar[tuple[dict[str, Any], ...]] = (
        {"advanced": True},
        {"opening": "each", "pass_over": False, "opponent_line": "ignore",
         "out_of_backpacks": "move_or_pass"},
        {"tiles": 4, "backpacks": 9, "line_length": 3, "repetition_draw": True},
    )
    _state_fields = ("tiles", "sky", "left", "supply", "player", "phase", "marked", "result")

    tiles: dict[Cell, int]  # tile -> number of backpacks on it
    sky: dict[Cell, int]  # skydiver cell -> owner of the backpack on it
    left: list[int]  # backpacks each player still holds
    supply: int  # tiles not yet on the table
    player: int
    phase: int
    marked: Cell | None  # the tile marked this turn
    result: Outcome | None

    # ----------------------------------------------------------------- setup
    def _setup(self) -> None:
        if len(_MARKS) > 65536:  # the move tables fill as clusters drift; start afresh
            for table in (_MARKS, _TILE_MARKS, _ADDS, _SKYDIVERS, _TILE_MOVES):
                table.clear()
        o = self.options
        self._ignore = o["opponent_line"] == "ignore"
        self._may_pass = o["out_of_backpacks"] == "move_or_pass"
        self._length = o["line_length"]
        self.tiles = {(0, 0): 0}
        self.sky = {}
        self.left = [o["backpacks"], o["backpacks"]]
        self.supply = o["tiles"] - 1
        self.player = RED
        self.phase = _OPENING
        self.marked = None
        self.result = None

    def _current_player(self) -> int:
        return self.player

    def _outcome(self) -> Outcome | None:
        return self.result

    # ----------------------------------------------------------------- legal actions
    def _legal_moves(self) -> list[QuinqueMove]:
        sky = self.sky
        marks = _TILE_MARKS
        if self.phase == _OPENING:
            return [m for t in self.tiles for m in (marks.get(t) or _marks(t))
                    if m.cell not in sky]
        o = self.options
        geo = _geometry(frozenset(self.tiles), o["pass_over"], o["advanced"])
        out: list[QuinqueMove] = []
        if self.phase == _FIRST and self.left[self.player]:
            out = [m for t in self.tiles for m in (marks.get(t) or _marks(t))
                   if m.cell not in sky]
            if self.supply:
                out += geo.adds
        placing = len(out)
        marked = self.marked
        if o["advanced"]:
            tiles = self.tiles
            for t, orth, diag, step in geo.slides:
                if t != marked:
                    n = tiles[t]
                    if n >= 4:
                        out += orth
                        out += diag
                    elif n > 0:
                        out += step if n == 1 else orth if n == 2 else diag
        else:
            for t, orth, diag, _ in geo.slides:
                if t != marked:
                    out += orth
                    out += diag
        if self.phase == _SECOND or not out or (self._may_pass and not placing):
            out.append(PASS)
        return out

    # ----------------------------------------------------------------- applying
    def _apply(self, move: QuinqueMove) -> None:
        p = self.player
        if isinstance(move, (Mark, AddTile)):
            cell = move.cell
            t = (cell[0] >> 1, cell[1] >> 1)
            if isinstance(move, AddTile):
                self.tiles[t] = 1
                self.supply -= 1
            else:
                self.tiles[t] += 1
            self.sky[cell] = p
            self.left[p] -= 1
            self._judge((cell,))
            if self.phase == _OPENING:
                self._end_turn(opening=True)
            else:
                self.phase = _SECOND
                self.marked = t
        elif isinstance(move, TileMove):
            src, dst = move.src, move.dst
            tiles, sky = self.tiles, self.sky
            tiles[dst] = tiles.pop(src)
            moved = []
            for old, new in zip(skydivers(src), skydivers(dst), strict=True):
                owner = sky.pop(old, None)
                if owner is not None:
                    sky[new] = owner
                    moved.append(new)
            self._judge(moved)
            if self.phase == _FIRST:
                self.phase = _SECOND
            else:
                self._end_turn()
        else:
            if self._ignore:
                self._judge(())
            self._end_turn()
        repeated = self.options["repetition_draw"] and self.result is None
        if repeated and self._seen(self._position_key()) >= 2:
            self.result = Outcome(None, Reason.THREEFOLD_REPETITION)

    def _judge(self, changed: Iterable[Cell]) -> None:
        """Set the outcome if the action just played (it changed ``changed``) made a line."""
        if self.result is not None:
            return
        p = self.player
        if self._ignore:
            if any(self._line_through(c, p) for c, q in self.sky.items() if q == p):
                self.result = Outcome(p, Reason.LINE)
            return
        mine = theirs = False
        for c in changed:
            q = self.sky[c]
            if q == p:
                mine = mine or self._line_through(c, q)
            else:
                theirs = theirs or self._line_through(c, q)
        if mine:
            self.result = Outcome(p, Reason.LINE)
        elif theirs:
            self.result = Outcome(1 - p, Reason.OPPONENT_LINE)

    def _line_through(self, cell: Cell, p: int) -> bool:
        """Whether ``cell`` lies on a line of ``line_length`` or more of ``p``'s backpacks."""
        get = self.sky.get
        x, y = cell
        for dx, dy in ((1, 0), (0, 1), (1, 1), (1, -1)):
            n = 1
            cx, cy = x + dx, y + dy
            while get((cx, cy)) == p:
                n += 1
                cx += dx
                cy += dy
            cx, cy = x - dx, y - dy
            while get((cx, cy)) == p:
                n += 1
                cx -= dx
                cy -= dy
            if n >= self._length:
                return True
        return False

    def _end_turn(self, opening: bool = False) -> None:
        p = self.player
        if self.result is None:
            if not self.left[0] and not self.left[1]:
                self.result = Outcome(None, Reason.OUT_OF_BACKPACKS)
            elif not self.supply and len(self.sky) == 4 * len(self.tiles):
                self.result = Outcome(None, Reason.NO_FREE_SKYDIVER)
        self.player = 1 - p
        self.marked = None
        if opening and self.options["opening"] == "each" and p == RED:
            self.phase = _OPENING
        else:
            self.phase = _FIRST

    def _position_key(self) -> Any:
        if not self.options["repetition_draw"]:
            return None
        mx = min(x for x, _ in self.tiles)
        my = min(y for _, y in self.tiles)
        tiles = frozenset((x - mx, y - my) for x, y in self.tiles)
        sky = frozenset((x - 2 * mx, y - 2 * my, q) for (x, y), q in self.sky.items())
        marked = None if self.marked is None else (self.marked[0] - mx, self.marked[1] - my)
        return (tiles, sky, tuple(self.left), self.player, self.phase, marked)

    # ----------------------------------------------------------------- notation
    def _parse_move(self, text: str) -> QuinqueMove:
        compact = "".join(text.split()).lower()
        if compact == "pass":
            return PASS
        m = _RE_PLACE.fullmatch(compact)
        if m:
            cell = (int(m.group(2)), int(m.group(3)))
            return _mark(cell) if m.group(1) == "m" else AddTile(cell)
        m = _RE_SLIDE.fullmatch(compact)
        if m:
            a, b, c, d = (int(g) for g in m.groups())
            return _tile_move((a, b), (c, d))
        raise ValueError(f"{text!r} is not a quinque action; {_SYNTAX}")

    # ----------------------------------------------------------------- explanations
    def _explain(self, move: QuinqueMove) -> str:
        p = self.player
        who = self.player_names[p]
        tiles = self.tiles
        if self.phase == _OPENING and not isinstance(move, Mark):
            return "the game opens with a backpack on the first tile: mark one of its skydivers"
        if isinstance(move, Pass):
            if self.phase == _FIRST and not self.left[p]:
                return (f"{who} has no backpacks left and must move a tile; passing is "
                        "allowed only when no tile can move")
            return ("take a first action: mark a skydiver, add a tile or move a tile ('pass' "
                    "only declines the optional second action)")
        if isinstance(move, (Mark, AddTile)):
            cell, t = move.cell, tile_of(move.cell)
            if self.phase == _SECOND:
                return ("the first action is done: the second action can only move a tile, or "
                        "'pass' to end the turn")
            if not self.left[p]:
                return f"{who} has no backpacks left: move a tile instead"
            if isinstance(move, Mark):
                if t not in tiles:
                    hint = ""
                    if self.phase == _FIRST and self.supply:
                        hint = f"; to add that tile and mark it write 't {_name(cell)}'"
                    return f"there is no tile under skydiver {_name(cell)}{hint}"
                if cell in self.sky:
                    colour = ("a red", "an orange")[self.sky[cell]]
                    return f"skydiver {_name(cell)} already carries {colour} backpack"
            else:
                if t in tiles:
                    return (f"tile {_name(t)} is already on the table; to mark skydiver "
                            f"{_name(cell)} on it write 'm {_name(cell)}'")
                if not self.supply:
                    return f"all {self.options['tiles']} tiles are on the table"
                if not any(n in tiles for n in _neighbours(t)):
                    return (f"a new tile must share an edge with a tile on the table; tile "
                            f"{_name(t)} (skydivers {_name(skydivers(t)[0])} to "
                            f"{_name(skydivers(t)[3])}) touches none")
        if isinstance(move, TileMove):
            return self._explain_tile_move(move)
        return "not a legal move in this position"

    def _explain_tile_move(self, move: TileMove) -> str:
        src, dst = move.src, move.dst
        tiles = self.tiles
        if src not in tiles:
            return (f"there is no tile at {_name(src)} (a move names tile coordinates: tile "
                    "x,y holds skydivers 2x,2y to 2x+1,2y+1)")
        if dst == src:
            return "the tile does not move"
        if dst in tiles:
            return f"there is already a tile at {_name(dst)}"
        if len(tiles) < 2:
            return "a lone tile cannot move: the tiles must stay one group"
        if src == self.marked:
            return f"a skydiver on tile {_name(src)} was marked this turn: the tile cannot move"
        if all(n in tiles for n in _neighbours(src)):
            return f"tile {_name(src)} is closed on all four sides and cannot move"
        dx, dy = dst[0] - src[0], dst[1] - src[1]
        straight = dx == 0 or dy == 0
        if not straight and abs(dx) != abs(dy):
            return (f"a tile moves in a straight line (row, column or diagonal); "
                    f"{_name(dst)} is not in line with {_name(src)}")
        if self.options["advanced"]:
            n = tiles[src]
            carries = f"tile {_name(src)} carries {n} backpack{'s' if n != 1 else ''}"
            if n == 0:
                return f"{carries}: under the advanced rules it cannot move"
            if n == 1 and not (straight and abs(dx) + abs(dy) == 1):
                return (f"{carries}: under the advanced rules it moves one step along its "
                        "row or column")
            if n == 2 and not straight:
                return f"{carries}: under the advanced rules it moves along its row or column"
            if n == 3 and straight:
                return f"{carries}: under the advanced rules it moves along a diagonal"
        occ = set(tiles)
        if not self.options["pass_over"]:
            blocker = _first_tile_between(occ, src, dst)
            if blocker is not None:
                return (f"the tile would pass over tile {_name(blocker)}, and passing over "
                        "tiles is off (pass_over=false)")
        occ.discard(src)
        others = [n for n in _neighbours(dst) if n in occ]
        if not others:
            return (f"at {_name(dst)} the tile would touch no other tile: all tiles must stay "
                    "one edge-connected group")
        comp = _components(occ)
        if len({comp[n] for n in others}) < len(set(comp.values())):
            return "the move would split the tiles into separate groups: they must stay one group"
        return "not a legal move in this position"

    # ----------------------------------------------------------------- records
    def _state_dict(self) -> dict[str, Any]:
        return {
            "tiles": [_name(t) for t in sorted(self.tiles)],
            "backpacks": {_name(c): TOKENS[q] for c, q in sorted(self.sky.items())},
            "backpacks_left": list(self.left),
            "tiles_left": self.supply,
            "player": self.player,
            "phase": _PHASES[self.phase],
            "marked": None if self.marked is None else _name(self.marked),
            "outcome": None if self.result is None else self.result.to_dict(),
        }

    def _load_state(self, d: dict[str, Any]) -> None:
        tiles = {_xy(t, "tile"): 0 for t in d["tiles"]}
        if not tiles:
            raise ValueError("a quinque position needs at least one tile")
        if max(_components(tiles).values()) > 0:
            raise ValueError("the tiles must form one edge-connected group")
        sky: dict[Cell, int] = {}
        for name, token in dict(d.get("backpacks", {})).items():
            cell = _xy(name, "skydiver")
            if token not in TOKENS:
                raise ValueError(f"backpack {token!r} at {name} must be 'R' or 'O'")
            if tile_of(cell) not in tiles:
                raise ValueError(f"backpack at {name}: there is no tile under that skydiver")
            sky[cell] = TOKENS.index(token)
        for cell in sky:
            tiles[tile_of(cell)] += 1
        o = self.options
        placed = [sum(1 for q in sky.values() if q == p) for p in (RED, ORANGE)]
        left = d.get("backpacks_left")
        self.left = [o["backpacks"] - n for n in placed] if left is None else [int(n) for n in left]
        supply = d.get("tiles_left")
        self.supply = o["tiles"] - len(tiles) if supply is None else int(supply)
        if min(self.left) < 0 or self.supply < 0 or len(self.left) != 2:
            raise ValueError("more backpacks or tiles on the table than the game has")
        phase = d.get("phase", "first")
        if phase not in _PHASES:
            raise ValueError(f"phase must be one of {', '.join(_PHASES)}, got {phase!r}")
        self.tiles = tiles
        self.sky = sky
        self.player = int(d.get("player", 0))
        if self.player not in (RED, ORANGE):
            raise ValueError(f"player must be 0 (Red) or 1 (Orange), got {self.player!r}")
        self.phase = _PHASES.index(phase)
        marked = d.get("marked")
        self.marked = None if marked is None else _xy(marked, "marked tile")
        if self.marked is not None and (self.phase != _SECOND or self.marked not in tiles):
            raise ValueError("marked names the tile marked this turn: a tile on the table, "
                             "and only in the second action")
        result = d.get("outcome")
        self.result = None if result is None else Outcome.from_dict(result)

    # ----------------------------------------------------------------- views
    def _view(self) -> dict[str, str]:
        sky = self.sky
        out: dict[str, str] = {}
        for t in self.tiles:
            for c in skydivers(t):
                q = sky.get(c)
                out[f"{c[0]},{c[1]}"] = FREE if q is None else TOKENS[q]
        return out

    def _board_str(self) -> str:
        left = ", ".join(f"{n} {k}" for n, k in zip(self.player_names, self.left, strict=True))
        if self.result is not None:
            winner = self.result.winner
            who = "Draw" if winner is None else f"{self.player_names[winner]} wins"
            status = f"{who} ({self.result.reason})"
        else:
            doing = {
                _OPENING: "opening: mark a skydiver on the first tile",
                _FIRST: "first action",
                _SECOND: "second action: move a tile or pass",
            }[self.phase]
            status = f"{self.player_names[self.player]} to move ({doing})"
        lines = [f"{status}; backpacks left: {left}; tiles left: {self.supply}"]
        cells = self._view()
        xs = [2 * x for x, _ in self.tiles]
        ys = [2 * y for _, y in self.tiles]
        x0, x1 = min(xs), max(xs) + 1
        y0, y1 = min(ys), max(ys) + 1
        width = max(len(str(v)) for v in (x0, x1, y0, y1)) + 1
        label = max(len(str(y0)), len(str(y1)))

        def row(head: str, items: list[str]) -> str:
            parts = [head.rjust(label), " "]
            for x, item in zip(range(x0, x1 + 1), items, strict=True):
                parts.append(("  " if x % 2 == 0 and x != x0 else "") + item.rjust(width))
            return "".join(parts).rstrip()

        lines.append(row("", [str(x) for x in range(x0, x1 + 1)]))
        for y in range(y1, y0 - 1, -1):
            if y % 2 and y != y1:
                lines.append("")
            lines.append(row(str(y), [cells.get(f"{x},{y}", "") for x in range(x0, x1 + 1)]))
        return "\n".join(lines)
