"""Board geometry as data: which cell sits where in the sensor matrix and on the LED strip.

A layout file (``hardware/layouts/*.toml``, format in docs/layouts.md) names every cell of a
board with its sensor-matrix row and column, the index of its LED on the strip and where to
draw it in a terminal, plus the run of LEDs that shows the move timer and, optionally, the
slots of a reserve tray. A builder with a differently wired board edits a copy; nothing in
the code knows a wiring.

Loading checks everything and names the cell and the key in each error, so a bad layout
stops the daemon at start-up instead of lighting the wrong square in the middle of a game.

>>> layout = Layout.for_game("morris")
>>> len(layout.cells), layout.led_of("a1"), layout.cell_at(0, 0)
(24, 0, 'a1')
>>> layout.check_cells(["a1", "z9"])  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
tavola.hardware.layout.LayoutError: layout 'morris' (morris.toml): the game needs cell z9, ...
"""

from __future__ import annotations

import difflib
import itertools
import os
import re
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

_PACKAGE = __name__.rpartition(".")[0]  # the layouts ship inside this package

__all__ = ["DEFAULT_LAYOUTS", "Cell", "Layout", "LayoutError"]

# Registry game name -> the shipped layout a board for it is built to by default. Aliases
# ("checkers", "muehle") are the controller's to resolve: hardware never imports it.
DEFAULT_LAYOUTS: dict[str, str] = {
    "morris": "morris",
    "draughts": "draughts",
    "quixo": "5x5",
    "tessere": "5x5",
    "sequence-kids": "sequence",
    "quinque": "timer-only",
}

BOARD_CELL = re.compile(r"[a-z][1-9][0-9]?")  # RULES.md notation: file letter, rank number
SLOT_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_-]*")
COLOR_ORDERS = frozenset(
    "".join(p) for letters in ("RGB", "RGBW") for p in itertools.permutations(letters)
)
TOP_KEYS = ("name", "description", "games", "matrix", "leds", "timer", "cells", "tray")
CELL_KEYS = ("row", "col", "led", "x", "y")
SLOT_KEYS = (*CELL_KEYS, "piece")


class LayoutError(ValueError):
    """A layout file that cannot be used, or a layout that does not fit the game."""


@dataclass(frozen=True)
class Cell:
    """One sensed place: a board cell, or a reserve-tray slot (then ``piece`` is its token).

    ``row``/``col`` locate its switch in the sensor matrix, ``led`` its LED on the strip,
    ``x``/``y`` where a terminal draws it (x to the right, y downwards, in cells).
    """

    name: str
    row: int
    col: int
    led: int
    x: int
    y: int
    piece: str | None = None

    @property
    def in_tray(self) -> bool:
        """True for a reserve-tray slot."""
        return self.piece is not None


@dataclass(frozen=True)
class Layout:
    """A board's wiring, loaded and checked. Build it with :meth:`load` or :meth:`for_game`."""

    name: str
    games: tuple[str, ...]
    rows: int
    columns: int
    led_count: int
    color_order: str
    timer_leds: tuple[int, ...]
    places: tuple[Cell, ...]
    source: str = "<layout>"
    description: str = ""
    _by_name: dict[str, Cell] = field(init=False, repr=False, compare=False)
    _by_position: dict[tuple[int, int], str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_by_name", {c.name: c for c in self.places})
        object.__setattr__(self, "_by_position", {(c.row, c.col): c.name for c in self.places})

    # ------------------------------------------------------------------ loading
    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> Layout:
        """Read and check a layout file; :class:`LayoutError` names the cell and the key."""
        p = Path(path)
        try:
            text = p.read_text(encoding="utf-8")
        except OSError as exc:
            raise LayoutError(f"cannot read layout file {p}: {exc.strerror or exc}") from exc
        return cls.loads(text, source=str(p))

    @classmethod
    def loads(cls, text: str, source: str = "<layout>") -> Layout:
        """Parse and check layout TOML given as text (``source`` names it in errors)."""
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise LayoutError(f"{source}: not valid TOML: {exc}") from exc
        return _build(data, source)

    @classmethod
    def shipped(cls, name: str) -> Layout:
        """One of the layouts shipped with tavola, by name (``"morris"``, ``"5x5-tray"``)."""
        known = shipped_names()
        if name not in known:
            raise LayoutError(f"no shipped layout {name!r}; shipped layouts: {', '.join(known)}")
        text = resources.files(_PACKAGE).joinpath(f"layouts/{name}.toml").read_text("utf-8")
        return cls.loads(text, source=f"{name}.toml")

    @classmethod
    def for_game(cls, game_name: str) -> Layout:
        """The shipped default layout for a game (by registry name, e.g. ``"sequence-kids"``).

        Quinque has no fixed board (tiles on an unbounded grid, sensed by the camera): its
        default is ``timer-only``, a layout with no cells and just the timer strip.
        """
        if game_name not in DEFAULT_LAYOUTS:
            known = ", ".join(sorted(DEFAULT_LAYOUTS))
            raise LayoutError(f"no default layout for game {game_name!r}; known games: {known}")
        return cls.shipped(DEFAULT_LAYOUTS[game_name])

    # ------------------------------------------------------------------ queries
    @property
    def cells(self) -> tuple[str, ...]:
        """The board cells, in file order (reserve-tray slots not included)."""
        return tuple(c.name for c in self.places if not c.in_tray)

    @property
    def tray(self) -> tuple[str, ...]:
        """The reserve-tray slots, in file order (empty for most boards)."""
        return tuple(c.name for c in self.places if c.in_tray)

    @property
    def sensed(self) -> tuple[str, ...]:
        """Every sensed name: board cells, then tray slots. What a sensor snapshot holds."""
        return tuple(c.name for c in self.places)

    def cell(self, name: str) -> Cell:
        """The :class:`Cell` called ``name`` (a board cell or a tray slot)."""
        try:
            return self._by_name[name]
        except KeyError:
            raise LayoutError(f"layout {self.name!r} has no cell {name!r}") from None

    def led_of(self, cell: str) -> int:
        """The strip index of the LED under ``cell``."""
        return self.cell(cell).led

    def cell_at(self, row: int, col: int) -> str | None:
        """The cell wired at matrix ``row``/``col``, or None where no switch is fitted."""
        return self._by_position.get((row, col))

    def check_cells(self, expected: Iterable[str], *, game: str | None = None) -> None:
        """Check that the board cells are exactly ``expected`` (a game's cell names).

        Raises :class:`LayoutError` naming the first cell the game needs and the layout
        lacks, or the first layout cell the game does not know (a typo such as ``d9``).
        Tray slots are not board cells and are not compared. A layout with no cells (the
        camera-only ``timer-only``) leaves the cells to the sensor and accepts any game.
        """
        if not self.places:
            return
        want = list(dict.fromkeys(expected))
        missing = [c for c in want if c not in set(self.cells)]
        unknown = [c for c in self.cells if c not in set(want)]
        who = f"the game {game}" if game else "the game"
        where = f"layout {self.name!r} ({Path(self.source).name})"
        if missing:
            typo = difflib.get_close_matches(missing[0], unknown, n=1, cutoff=0.5)
            hint = f" (is cell {typo[0]} a typo for it?)" if typo else ""
            raise LayoutError(
                f"{where}: {who} needs cell {missing[0]}, which the layout does not have"
                f"{hint}; add it under [cells]"
            )
        if unknown:
            raise LayoutError(
                f"{where}: cell {unknown[0]} is not a cell of {who}; remove it or fix its name"
            )


def shipped_names() -> tuple[str, ...]:
    """Names of the layouts shipped in ``hardware/layouts``, sorted."""
    folder = resources.files(_PACKAGE).joinpath("layouts")
    return tuple(sorted(p.name[:-5] for p in folder.iterdir() if p.name.endswith(".toml")))


# ---------------------------------------------------------------------- checking
def _suggest(word: str, choices: Iterable[str]) -> str:
    close = difflib.get_close_matches(word, list(choices), n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""


def _type_name(value: Any) -> str:
    return {"str": "string", "int": "integer", "dict": "table", "list": "array"}.get(
        type(value).__name__, type(value).__name__
    )


class _Checker:
    """Reads values out of the parsed TOML, raising errors that say where and what."""

    def __init__(self, source: str) -> None:
        self.source = source

    def fail(self, where: str, message: str) -> LayoutError:
        return LayoutError(
            f"{self.source}: {where}: {message}" if where else f"{self.source}: {message}"
        )

    def keys(self, table: Mapping[str, Any], allowed: Iterable[str], where: str) -> None:
        allowed = tuple(allowed)
        for key in table:
            if key not in allowed:
                raise self.fail(
                    where,
                    f"unknown key {key!r}{_suggest(key, allowed)}; known keys: "
                    + ", ".join(allowed),
                )

    def table(self, data: Mapping[str, Any], key: str, where: str) -> Mapping[str, Any]:
        value = self.get(data, key, where)
        if not isinstance(value, dict):
            raise self.fail(where, f"{key!r} must be a table, got {_type_name(value)}")
        return value

    def get(self, data: Mapping[str, Any], key: str, where: str) -> Any:
        if key not in data:
            raise self.fail(where, f"missing key {key!r}")
        return data[key]

    def integer(self, data: Mapping[str, Any], key: str, where: str, low: int = 0) -> int:
        value = self.get(data, key, where)
        if not isinstance(value, int) or isinstance(value, bool):
            raise self.fail(
                where, f"{key!r} must be an integer, got {value!r} ({_type_name(value)})"
            )
        if value < low:
            raise self.fail(where, f"{key!r} must be >= {low}, got {value}")
        return value

    def string(self, data: Mapping[str, Any], key: str, where: str) -> str:
        value = self.get(data, key, where)
        if not isinstance(value, str) or not value:
            raise self.fail(
                where, f"{key!r} must be a non-empty string, got {value!r} ({_type_name(value)})"
            )
        return value


def _build(data: Mapping[str, Any], source: str) -> Layout:
    check = _Checker(source)
    check.keys(data, TOP_KEYS, "top level")
    name = check.string(data, "name", "top level")
    description = data.get("description", "")
    if not isinstance(description, str):
        raise check.fail("top level", "'description' must be a string")
    games = check.get(data, "games", "top level")
    if not isinstance(games, list) or not all(isinstance(g, str) and g for g in games):
        raise check.fail("top level", f"'games' must be an array of game names, got {games!r}")

    matrix = check.table(data, "matrix", "top level")
    check.keys(matrix, ("rows", "columns"), "[matrix]")
    rows = check.integer(matrix, "rows", "[matrix]")
    columns = check.integer(matrix, "columns", "[matrix]")

    leds = check.table(data, "leds", "top level")
    check.keys(leds, ("count", "order"), "[leds]")
    count = check.integer(leds, "count", "[leds]", low=1)
    order = leds.get("order", "GRB")
    if order not in COLOR_ORDERS:
        raise check.fail(
            "[leds]",
            f"'order' must be a colour order such as 'GRB', 'RGB' or 'GRBW', got {order!r}",
        )

    timer: tuple[int, ...] = ()
    if "timer" in data:
        timer_table = check.table(data, "timer", "top level")
        check.keys(timer_table, ("leds",), "[timer]")
        run = check.get(timer_table, "leds", "[timer]")
        if not isinstance(run, list) or not all(
            isinstance(i, int) and not isinstance(i, bool) for i in run
        ):
            raise check.fail("[timer]", f"'leds' must be an array of LED indices, got {run!r}")
        timer = tuple(run)

    places: list[Cell] = []
    cells = check.table(data, "cells", "top level") if "cells" in data else {}
    for cell_name, spec in cells.items():
        if not BOARD_CELL.fullmatch(cell_name):
            raise check.fail(
                f"cell {cell_name}",
                "a board cell is named by a file letter and a rank number, like 'd2' (RULES.md)",
            )
        places.append(_place(check, cell_name, spec, "cell", rows, columns))
    tray = check.table(data, "tray", "top level") if "tray" in data else {}
    for slot_name, spec in tray.items():
        if not SLOT_NAME.fullmatch(slot_name) or BOARD_CELL.fullmatch(slot_name):
            raise check.fail(
                f"tray slot {slot_name}",
                "a slot name starts with a letter, uses letters, digits, - and _, "
                "and is not named like a board cell (use e.g. 'slot-RY1')",
            )
        places.append(_place(check, slot_name, spec, "tray slot", rows, columns))

    _check_unique(check, places, timer, count)
    return Layout(
        name=name,
        games=tuple(games),
        rows=rows,
        columns=columns,
        led_count=count,
        color_order=order,
        timer_leds=timer,
        places=tuple(places),
        source=source,
        description=description,
    )


def _place(check: _Checker, name: str, spec: Any, kind: str, rows: int, columns: int) -> Cell:
    where = f"{kind} {name}"
    if not isinstance(spec, dict):
        raise check.fail(
            where,
            f"must be a table like {{ row = 0, col = 0, led = 0, x = 0, y = 0 }}, got {spec!r}",
        )
    keys = SLOT_KEYS if kind == "tray slot" else CELL_KEYS
    check.keys(spec, keys, where)
    row = check.integer(spec, "row", where)
    col = check.integer(spec, "col", where)
    if row >= rows:
        raise check.fail(where, f"row {row} is outside the matrix ([matrix] rows = {rows})")
    if col >= columns:
        raise check.fail(where, f"col {col} is outside the matrix ([matrix] columns = {columns})")
    piece = check.string(spec, "piece", where) if kind == "tray slot" else None
    return Cell(
        name=name,
        row=row,
        col=col,
        led=check.integer(spec, "led", where),
        x=check.integer(spec, "x", where),
        y=check.integer(spec, "y", where),
        piece=piece,
    )


def _check_unique(check: _Checker, places: list[Cell], timer: tuple[int, ...], count: int) -> None:
    def label(c: Cell) -> str:
        return f"tray slot {c.name}" if c.in_tray else f"cell {c.name}"

    def pair(a: Cell, b: Cell) -> str:  # "cells d2 and f4", "cell e5 and tray slot slot-R"
        if a.in_tray == b.in_tray:
            return f"{'tray slots' if a.in_tray else 'cells'} {a.name} and {b.name}"
        return f"{label(a)} and {label(b)}"

    leds: dict[int, Cell] = {}
    positions: dict[tuple[int, int], Cell] = {}
    drawn: dict[tuple[int, int], Cell] = {}
    for c in places:
        if c.led >= count:
            raise check.fail(
                label(c),
                f"led {c.led} is out of range: [leds] count = {count} allows 0..{count - 1}",
            )
        if c.led in leds:
            raise check.fail("", f"{pair(leds[c.led], c)} both use led {c.led}")
        leds[c.led] = c
        if (c.row, c.col) in positions:
            other = positions[(c.row, c.col)]
            raise check.fail("", f"{pair(other, c)} both sit at matrix row {c.row}, col {c.col}")
        positions[(c.row, c.col)] = c
        if (c.x, c.y) in drawn:
            other = drawn[(c.x, c.y)]
            raise check.fail("", f"{pair(other, c)} are both drawn at x={c.x}, y={c.y}")
        drawn[(c.x, c.y)] = c
    seen: set[int] = set()
    for i in timer:
        if not 0 <= i < count:
            raise check.fail(
                "[timer]", f"led {i} is out of range: [leds] count = {count} allows 0..{count - 1}"
            )
        if i in seen:
            raise check.fail("[timer]", f"led {i} is listed twice")
        if i in leds:
            raise check.fail("", f"{label(leds[i])} and the timer both use led {i}")
        seen.add(i)
