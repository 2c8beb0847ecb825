"""Quinque (Mind Fitness Games, 2018): five skydivers in a line on a loose cluster of tiles.

Rules as implemented (RULES.md section 4; the decisions where the sources are silent are
parameters or are listed here):

- Two players, Red (moves first) and Orange, each with 18 backpacks. 16 square tiles of 2x2
  skydivers. There is no board: tiles lie in one cluster on an unbounded grid.
- Setup: the first tile lies at tile (0,0). ``opening="one"``: Red puts one backpack on it,
  then Orange takes the first regular turn. ``opening="each"``: Red, then Orange, puts one
  backpack on it, then Red takes the first regular turn.
- A turn is a mandatory first action and an optional second action, each one atomic action:

  - first: mark a free skydiver on a tile on the table; or add a tile from the supply at a
    free cell sharing an edge with a tile on the table and mark one of its skydivers (a tile
    never enters empty); or move a tile;
  - second: move a tile, or ``pass`` to end the turn.

- Moving a tile: to a free tile cell in a straight line (row, column or diagonal), passing
  over other tiles (``pass_over``). Afterwards all tiles form one edge-connected group; only
  the final position is checked, not the way there. A tile with all 4 sides closed cannot
  move; a tile marked this turn cannot move; a lone tile cannot move (it would only shift the
  cluster). The same tile may move in both actions of a turn. ``advanced=true``: a tile with
  1 backpack (either colour) moves one step along its row or column; 2: anywhere along its
  row or column; 3: anywhere along a diagonal; 4: any of the 8 directions; a tile with no
  backpack (only in set-up positions) cannot move.
- Win, checked after every action: ``line_length`` (5) or more backpacks of one colour in a
  straight line of adjacent skydivers (row, column, diagonal), across tile borders; a cell
  without a tile breaks the line. If the action gives the mover a line, the mover wins (also
  when it gives both players one). If it gives only the opponent one: ``opponent_line=
  "opponent_wins"`` the opponent wins; ``"ignore"``: lines count only after their owner's
  own action (the mover may still break it with a second action).
- Draw: at the end of a turn after which no backpack can be placed any more (both players
  out of backpacks; with non-default counts also: every skydiver taken and no tile left),
  unless that turn made a line.
- A player out of backpacks (``out_of_backpacks="move"``) must move a tile as first action,
  and passes the turn (``pass``) only when no tile can move; ``"move_or_pass"`` lets them
  pass anyway. A player with backpacks but nothing to mark does the same.
- Not in the rules, off by default: ``repetition_draw`` (third occurrence of a position).

Parameters (RULES.md 4.3 defaults first): ``advanced`` (False), ``opening`` ("one" |
"each"), ``pass_over`` (True), ``opponent_line`` ("opponent_wins" | "ignore"),
``out_of_backpacks`` ("move" | "move_or_pass"), ``line_length`` (5), ``tiles`` (16),
``backpacks`` (18 per player), ``repetition_draw`` (False). Fixed, not parameters: 2x2
skydivers per tile, tiles added edge to edge, transit not checked.

Coordinates are fixed for the whole game, never re-centred: tile (x, y) holds skydivers
(2x+i, 2y+j), i, j in {0, 1}; x grows to the right, y upwards; negative numbers occur. A
camera adapter matches the table against :meth:`view` up to a translation.

Notation (``parse_move(str(m)) == m``; spaces are optional on input):

- ``m 1,0``: mark skydiver (1,0), on the tile already on the table that holds it;
- ``t 2,1``: add the tile holding skydiver (2,1), i.e. tile (1,0), and mark that skydiver;
- ``0,0>2,2``: move the tile at tile coordinates (0,0) to (2,2);
- ``pass``: decline the second action (or pass a turn in which nothing can be done).

Order of ``legal_moves()`` (canonical: a function of the position alone, not of the order
the tiles came or moved in): marks, tile by tile in (x, y) order, each tile's free
skydivers in (x, y) order; then additions, by tile in (x, y) order, each tile's skydivers
in (x, y) order; then tile moves, by moving tile in (x, y) order, then by destination in
(x, y) order; then ``pass`` when allowed. Tuple order, x first: (x, y) < (x', y') when
x < x' or x = x' and y < y'. The geometry behind the tile moves is in
:mod:`tavola.games.quinque_geometry`, the actions' types and notation in
:mod:`tavola.games.quinque_moves`.

``view()``: ``"sx,sy"`` (skydiver coordinates) -> ``"."`` free skydiver, ``"R"`` red
backpack, ``"O"`` orange backpack; cells without a tile are absent. Needs: identity.

>>> from tavola.games import new_game
>>> g = new_game("quinque")
>>> g.apply("m 0,0")
>>> g.apply("t 2,1")
>>> g.view()["0,0"], g.view()["2,1"], g.current_player
('R', 'O', 1)
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, ClassVar

from .base import Game, Outcome, Param, Reason
from .quinque_geometry import Frame, Geometry, components, first_tile_between, frame_for, neighbours
from .quinque_moves import (
    BACKPACKS_IN_MASK,
    PASS,
    AddTile,
    Cell,
    Mark,
    Pass,
    QuinqueMove,
    TileMove,
    cell_name,
    forget_if_full,
    free_marks,
    parse,
    parse_cell,
    skydivers,
    tile_of,
)

__all__ = [
    "FREE", "ORANGE", "PASS", "RED", "TOKENS", "AddTile", "Cell", "Mark", "Pass", "Quinque",
    "QuinqueMove", "TileMove", "skydivers", "tile_of",
]

RED, ORANGE = 0, 1
TOKENS = ("R", "O")
FREE = "."

_OPENING, _FIRST, _SECOND = 0, 1, 2
_PHASES = ("opening", "first", "second")

# The indices of a tile mask's set bits: the skydivers that carry a backpack.
_BITS_OF_MASK = tuple(tuple(i for i in range(4) if mask >> i & 1) for mask in range(16))

# --------------------------------------------------------------------------- the game
class Quinque(Game[QuinqueMove]):
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

    tiles: dict[Cell, int]  # tile -> which skydivers carry a backpack (bit i: skydivers(tile)[i])
    sky: dict[Cell, int]  # skydiver cell -> owner of the backpack on it
    left: list[int]  # backpacks each player still holds
    supply: int  # tiles not yet on the table
    player: int
    phase: int
    marked: Cell | None  # the tile marked this turn
    result: Outcome | None
    # The cluster as the bits of an int in a frame (quinque_geometry), kept up to date by
    # each action, and its geometry once asked for: the move generator's input, without
    # sorting or hashing the tiles.
    frame: Frame
    occ: int
    geo: Geometry | None

    # ----------------------------------------------------------------- setup
    def _setup(self) -> None:
        forget_if_full()
        o = self.options
        self._ignore = o["opponent_line"] == "ignore"
        self._may_pass = o["out_of_backpacks"] == "move_or_pass"
        self._length = o["line_length"]
        self._repetition = o["repetition_draw"]
        self._shape = (o["tiles"], o["pass_over"], o["advanced"])
        self.tiles = {(0, 0): 0}
        self.sky = {}
        self.left = [o["backpacks"], o["backpacks"]]
        self.supply = o["tiles"] - 1
        self.player = RED
        self.phase = _OPENING
        self.marked = None
        self.result = None
        self._frame_cluster()

    def _frame_cluster(self) -> None:
        """Put the cluster in the frame that fits it (at the start, after loading a state,
        and when a tile lands too near the edge of the old one)."""
        self.frame = frame_for(self.tiles, *self._shape)
        self.occ = self.frame.occupancy(self.tiles)
        self.geo = None

    def _current_player(self) -> int:
        return self.player

    def _snapshot(self) -> Any:  # the default, written out: it runs on every action
        return (dict(self.tiles), dict(self.sky), list(self.left), self.supply, self.player,
                self.phase, self.marked, self.result, self.frame, self.occ, self.geo)

    def _restore(self, state: Any) -> None:
        (tiles, sky, left, self.supply, self.player, self.phase, self.marked, self.result,
         self.frame, self.occ, self.geo) = state
        self.tiles, self.sky, self.left = dict(tiles), dict(sky), list(left)

    def _outcome(self) -> Outcome | None:
        return self.result

    # ----------------------------------------------------------------- legal actions
    def _legal_moves(self) -> list[QuinqueMove]:
        # The canonical order (module docstring): marks, additions, tile moves, pass.
        tiles = self.tiles
        if self.phase == _OPENING:
            return [m for t in sorted(tiles) for m in free_marks(t, tiles[t])]
        geo = self.geo
        if geo is None:
            geo = self.geo = self.frame.geometry(self.occ)
        out: list[QuinqueMove] = []
        if self.phase == _FIRST and self.left[self.player]:
            for t, marks in geo.marks:
                out += marks[tiles[t]]
            if self.supply:
                out += geo.adds
        placing = len(out)
        marked = self.marked
        if self._shape[2]:  # advanced
            count = BACKPACKS_IN_MASK
            for t, every, orth, diag, step in geo.slides:
                if t != marked:
                    n = count[tiles[t]]
                    if n >= 4:
                        out += every
                    elif n > 0:
                        out += step if n == 1 else orth if n == 2 else diag
        else:
            out += geo.moves if marked is None else geo.moves_but(marked)
        if self.phase == _SECOND or not out or (self._may_pass and not placing):
            out.append(PASS)
        return out

    # ----------------------------------------------------------------- applying
    def _apply(self, move: QuinqueMove) -> None:
        p = self.player
        if type(move) is TileMove:  # the commonest action first
            src, dst = move.src, move.dst
            tiles, sky = self.tiles, self.sky
            mask = tiles[dst] = tiles.pop(src)  # relative to the tile: it travels along
            inner = self.frame.inner
            landed = inner.get(dst)
            self.geo = None
            if landed is None:
                self._frame_cluster()
            else:
                self.occ ^= inner[src] | landed
            moved = []
            if mask:
                olds, news = skydivers(src), skydivers(dst)
                for i in _BITS_OF_MASK[mask]:
                    new = news[i]
                    sky[new] = sky.pop(olds[i])
                    moved.append(new)
            # Under opponent_line=ignore any action of a player's makes their lines count.
            if (mask or self._ignore) and self.result is None and len(sky) >= self._length:
                self._judge(moved)
            if self.phase == _FIRST:
                self.phase = _SECOND
            else:
                self._end_turn()
        elif isinstance(move, (Mark, AddTile)):
            cell = move.cell
            t = (cell[0] >> 1, cell[1] >> 1)
            bit = 1 << ((cell[0] & 1) | (cell[1] & 1) << 1)  # skydivers(t).index(cell)
            if type(move) is AddTile:
                self.tiles[t] = bit
                self.supply -= 1
                landed = self.frame.inner.get(t)
                self.geo = None
                if landed is None:
                    self._frame_cluster()
                else:
                    self.occ |= landed
            else:
                self.tiles[t] |= bit
            self.sky[cell] = p
            self.left[p] -= 1
            if self.result is None and len(self.sky) >= self._length:
                self._judge((cell,))
            if self.phase == _OPENING:
                self._end_turn(opening=True)
            else:
                self.phase = _SECOND
                self.marked = t
        else:
            if self._ignore and self.result is None and len(self.sky) >= self._length:
                self._judge(())
            self._end_turn()
        if self._repetition and self.result is None and self._seen(self._position_key()) >= 2:
            self.result = Outcome(None, Reason.THREEFOLD_REPETITION)

    def _judge(self, changed: Iterable[Cell]) -> None:
        """Set the outcome if the action just played (it changed ``changed``) made a line;
        called only while the game runs and with at least a line's backpacks on the table."""
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
        return parse(text)

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
                        hint = f"; to add that tile and mark it write 't {cell_name(cell)}'"
                    return f"there is no tile under skydiver {cell_name(cell)}{hint}"
                if cell in self.sky:
                    colour = ("a red", "an orange")[self.sky[cell]]
                    return f"skydiver {cell_name(cell)} already carries {colour} backpack"
            else:
                if t in tiles:
                    return (f"tile {cell_name(t)} is already on the table; to mark skydiver "
                            f"{cell_name(cell)} on it write 'm {cell_name(cell)}'")
                if not self.supply:
                    return f"all {self.options['tiles']} tiles are on the table"
                if not any(n in tiles for n in neighbours(t)):
                    return (f"a new tile must share an edge with a tile on the table; tile "
                            f"{cell_name(t)} (skydivers {cell_name(skydivers(t)[0])} to "
                            f"{cell_name(skydivers(t)[3])}) touches none")
        if isinstance(move, TileMove):
            return self._explain_tile_move(move)
        return "not a legal move in this position"

    def _explain_tile_move(self, move: TileMove) -> str:
        src, dst = move.src, move.dst
        tiles = self.tiles
        if src not in tiles:
            return (f"there is no tile at {cell_name(src)} (a move names tile coordinates: tile "
                    "x,y holds skydivers 2x,2y to 2x+1,2y+1)")
        if dst == src:
            return "the tile does not move"
        if dst in tiles:
            return f"there is already a tile at {cell_name(dst)}"
        if len(tiles) < 2:
            return "a lone tile cannot move: the tiles must stay one group"
        if src == self.marked:
            return f"a skydiver on tile {cell_name(src)} was marked this turn: the tile cannot move"
        if all(n in tiles for n in neighbours(src)):
            return f"tile {cell_name(src)} is closed on all four sides and cannot move"
        dx, dy = dst[0] - src[0], dst[1] - src[1]
        straight = dx == 0 or dy == 0
        if not straight and abs(dx) != abs(dy):
            return (f"a tile moves in a straight line (row, column or diagonal); "
                    f"{cell_name(dst)} is not in line with {cell_name(src)}")
        if self.options["advanced"]:
            n = BACKPACKS_IN_MASK[tiles[src]]
            carries = f"tile {cell_name(src)} carries {n} backpack{'s' if n != 1 else ''}"
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
            blocker = first_tile_between(occ, src, dst)
            if blocker is not None:
                return (f"the tile would pass over tile {cell_name(blocker)}, and passing over "
                        "tiles is off (pass_over=false)")
        occ.discard(src)
        others = [n for n in neighbours(dst) if n in occ]
        if not others:
            return (f"at {cell_name(dst)} the tile would touch no other tile: all tiles must stay "
                    "one edge-connected group")
        comp = components(occ)
        if len({comp[n] for n in others}) < len(set(comp.values())):
            return "the move would split the tiles into separate groups: they must stay one group"
        return "not a legal move in this position"

    # ----------------------------------------------------------------- records
    def _state_dict(self) -> dict[str, Any]:
        return {
            "tiles": [cell_name(t) for t in sorted(self.tiles)],
            "backpacks": {cell_name(c): TOKENS[q] for c, q in sorted(self.sky.items())},
            "backpacks_left": list(self.left),
            "tiles_left": self.supply,
            "player": self.player,
            "phase": _PHASES[self.phase],
            "marked": None if self.marked is None else cell_name(self.marked),
            "outcome": None if self.result is None else self.result.to_dict(),
        }

    def _load_state(self, d: dict[str, Any]) -> None:
        tiles = {parse_cell(t, "tile"): 0 for t in d["tiles"]}
        if not tiles:
            raise ValueError("a quinque position needs at least one tile")
        if max(components(tiles).values()) > 0:
            raise ValueError("the tiles must form one edge-connected group")
        sky: dict[Cell, int] = {}
        for name, token in dict(d.get("backpacks", {})).items():
            cell = parse_cell(name, "skydiver")
            if token not in TOKENS:
                raise ValueError(f"backpack {token!r} at {name} must be 'R' or 'O'")
            if tile_of(cell) not in tiles:
                raise ValueError(f"backpack at {name}: there is no tile under that skydiver")
            sky[cell] = TOKENS.index(token)
        for cell in sky:
            tiles[tile_of(cell)] |= 1 << skydivers(tile_of(cell)).index(cell)
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
        self._frame_cluster()
        self.player = int(d.get("player", 0))
        if self.player not in (RED, ORANGE):
            raise ValueError(f"player must be 0 (Red) or 1 (Orange), got {self.player!r}")
        self.phase = _PHASES.index(phase)
        marked = d.get("marked")
        self.marked = None if marked is None else parse_cell(marked, "marked tile")
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
