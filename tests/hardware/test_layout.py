"""Layouts: every shipped file loads and fits its games; every bad file names what is wrong."""

from __future__ import annotations

import dataclasses
import itertools
import math
from pathlib import Path

import pytest

from tavola.hardware.layout import DEFAULT_LAYOUTS, Layout, LayoutError, shipped_names

MORRIS = {
    "a1", "a4", "a7", "b2", "b4", "b6", "c3", "c4", "c5", "d1", "d2", "d3",
    "d5", "d6", "d7", "e3", "e4", "e5", "f2", "f4", "f6", "g1", "g4", "g7",
}  # fmt: skip


def grid(files: int, ranks: int) -> set[str]:
    return {f"{'abcdefgh'[f]}{r + 1}" for f in range(files) for r in range(ranks)}


EXPECTED_CELLS = {
    "morris": MORRIS,
    "draughts": {c for c in grid(8, 8) if (ord(c[0]) - ord("a") + int(c[1]) - 1) % 2 == 0},
    "5x5": grid(5, 5),
    "5x5-tray": grid(5, 5),
    "sequence": grid(6, 7),
    "timer-only": set(),
}


def test_every_layout_is_shipped_and_has_expected_cells() -> None:
    assert set(shipped_names()) == set(EXPECTED_CELLS)
    for name, cells in EXPECTED_CELLS.items():
        layout = Layout.shipped(name)
        assert layout.name == name
        assert set(layout.cells) == cells, name
        assert len(layout.timer_leds) == 8
        assert layout.color_order == "GRB"
        # Every LED on the strip is used once: the cells, the tray, then the timer.
        used = [layout.led_of(c) for c in layout.sensed] + list(layout.timer_leds)
        assert sorted(used) == list(range(layout.led_count)), name
        for c in layout.sensed:
            cell = layout.cell(c)
            assert layout.cell_at(cell.row, cell.col) == c


def test_draughts_has_only_dark_squares() -> None:
    layout = Layout.for_game("draughts")
    assert len(layout.cells) == 32 and "a1" in layout.cells and "b1" not in layout.cells
    assert (layout.rows, layout.columns) == (8, 4)


def test_tray_layout_has_one_slot_per_tessere_piece() -> None:
    layout = Layout.shipped("5x5-tray")
    assert len(layout.tray) == 25
    pieces = sorted(layout.cell(s).piece or "" for s in layout.tray)
    expected = ["R", "Y", "G", "B", "RYGB", "K", "K"] + ["RY", "RG", "RB", "YG", "YB", "GB"] * 3
    assert pieces == sorted(expected)
    assert layout.cell("a1").in_tray is False and layout.cell("slot-K1").in_tray is True


@pytest.mark.parametrize("name", ["5x5", "sequence"])
def test_led_strip_snakes_through_neighbouring_cells(name: str) -> None:
    layout = Layout.shipped(name)
    by_led = sorted(layout.places, key=lambda c: c.led)
    for a, b in itertools.pairwise(by_led):
        assert abs(a.x - b.x) + abs(a.y - b.y) == 1, (a.name, b.name)


def test_morris_wiring_by_file_and_rank() -> None:
    layout = Layout.for_game("morris")
    assert (layout.rows, layout.columns) == (7, 7)
    assert layout.cell_at(0, 0) == "a1" and layout.cell_at(6, 3) == "d7"
    assert layout.cell_at(0, 1) is None  # no point there: no switch
    assert layout.led_of("a1") == 0 and layout.led_of("d2") == 4  # rank 2 runs right to left
    assert layout.timer_leds == tuple(range(24, 32)) and layout.led_count == 32


@pytest.mark.parametrize("game", sorted(DEFAULT_LAYOUTS))
def test_default_layout_fits_the_game(game: str) -> None:
    layout = Layout.for_game(game)
    assert game in layout.games
    try:
        from tavola.games import new_game

        view = new_game(game).view("identity")
    except ImportError:
        pytest.skip(f"game {game} is not written yet")
    layout.check_cells(view, game=game)


def test_quinque_gets_a_timer_only_layout_that_accepts_any_cells() -> None:
    layout = Layout.for_game("quinque")
    assert layout.cells == () and layout.led_count == 8
    layout.check_cells(["t0_0", "t1_0"])


def test_unknown_game_and_shipped_name() -> None:
    with pytest.raises(LayoutError, match=r"no default layout for game 'chess'.*morris"):
        Layout.for_game("chess")
    with pytest.raises(LayoutError, match=r"no shipped layout 'go'.*5x5-tray"):
        Layout.shipped("go")


def test_layout_is_frozen() -> None:
    layout = Layout.for_game("morris")
    with pytest.raises(dataclasses.FrozenInstanceError):
        layout.name = "x"  # type: ignore[misc]


def test_cell_queries_name_unknown_cells() -> None:
    layout = Layout.for_game("morris")
    with pytest.raises(LayoutError, match="no cell 'd4'"):
        layout.led_of("d4")


# ------------------------------------------------------------------ check_cells
def test_check_cells_names_a_missing_cell() -> None:
    layout = Layout.for_game("morris")
    with pytest.raises(LayoutError, match="the game morris needs cell d4"):
        layout.check_cells([*sorted(MORRIS), "d4"], game="morris")


def test_check_cells_names_a_cell_the_game_does_not_know() -> None:
    text = SMALL.replace("b1 = {", "b9 = {")
    layout = Layout.loads(text, source="typo.toml")
    with pytest.raises(LayoutError, match=r"cell b9 is not a cell of the game; remove it"):
        layout.check_cells(["a1", "a2"])
    with pytest.raises(LayoutError, match=r"needs cell b1, .* \(is cell b9 a typo for it\?\)"):
        layout.check_cells(["a1", "b1", "a2"])


def test_check_cells_ignores_tray_slots() -> None:
    layout = Layout.shipped("5x5-tray")
    assert len(layout.tray) == 25 and set(layout.cells) == set(grid(5, 5))
    layout.check_cells(sorted(grid(5, 5)))  # the slots are not board cells: no error
    with pytest.raises(LayoutError, match="needs cell f1"):
        layout.check_cells([*grid(5, 5), "f1"])


# ------------------------------------------------------------------ validation
SMALL = """\
name = "small"
games = ["test"]

[matrix]
rows = 2
columns = 2

[leds]
count = 6

[timer]
leds = [4, 5]

[cells]
a1 = { row = 0, col = 0, led = 0, x = 0, y = 1 }
b1 = { row = 0, col = 1, led = 1, x = 1, y = 1 }
a2 = { row = 1, col = 0, led = 2, x = 0, y = 0 }
"""

TRAY = '\n[tray]\nslot-R = { row = 1, col = 1, led = 3, x = 3, y = 0, piece = "R" }\n\n[timer]'


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "board.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_small_layout_loads_with_defaults(tmp_path: Path) -> None:
    layout = Layout.load(write(tmp_path, SMALL))
    assert layout.cells == ("a1", "b1", "a2") and layout.tray == ()
    assert layout.color_order == "GRB" and layout.timer_leds == (4, 5)
    assert layout.source.endswith("board.toml")


BAD = [
    # (what, replace this, with this, the message must contain)
    (
        "duplicate led",
        "b1 = { row = 0, col = 1, led = 1",
        "b1 = { row = 0, col = 1, led = 0",
        "cells a1 and b1 both use led 0",
    ),
    ("led and timer", "leds = [4, 5]", "leds = [2, 5]", "cell a2 and the timer both use led 2"),
    ("timer twice", "leds = [4, 5]", "leds = [4, 4]", "[timer]: led 4 is listed twice"),
    ("timer range", "leds = [4, 5]", "leds = [4, 6]", "[timer]: led 6 is out of range"),
    (
        "duplicate position",
        "b1 = { row = 0, col = 1,",
        "b1 = { row = 0, col = 0,",
        "cells a1 and b1 both sit at matrix row 0, col 0",
    ),
    (
        "led out of range",
        "led = 1,",
        "led = 6,",
        "cell b1: led 6 is out of range: [leds] count = 6 allows 0..5",
    ),
    ("missing key", "led = 1, ", "", "cell b1: missing key 'led'"),
    ("wrong type", "row = 1,", 'row = "1",', "cell a2: 'row' must be an integer, got '1' (string)"),
    ("bool is not int", "row = 1,", "row = true,", "cell a2: 'row' must be an integer"),
    ("negative", "x = 1, y = 1", "x = -1, y = 1", "cell b1: 'x' must be >= 0"),
    ("unknown cell key", "led = 1,", "leed = 1,",
     "cell b1: unknown key 'leed' (did you mean 'led'?)"),
    ("unknown top key", 'games = ["test"]', 'games = ["test"]\norder = "GRB"',
     "unknown key 'order'"),
    ("missing top key", 'name = "small"\n', "", "top level: missing key 'name'"),
    ("missing matrix", "[matrix]\nrows = 2\ncolumns = 2\n", "", "missing key 'matrix'"),
    ("row outside", "row = 1, col = 0", "row = 2, col = 0", "cell a2: row 2 is outside the matrix"),
    ("col outside", "col = 1,", "col = 2,", "cell b1: col 2 is outside the matrix"),
    ("bad cell name", "a2 = {", "A2 = {", "cell A2: a board cell is named"),
    ("bad order", "count = 6", 'count = 6\norder = "GRX"', "'order' must be a colour order"),
    ("zero leds", "count = 6", "count = 0", "[leds]: 'count' must be >= 1"),
    ("games type", 'games = ["test"]', 'games = "test"', "'games' must be an array"),
    ("timer type", "leds = [4, 5]", 'leds = ["4"]', "[timer]: 'leds' must be an array"),
    ("cell not table", "a2 = { row = 1, col = 0, led = 2, x = 0, y = 0 }", "a2 = 3",
     "cell a2: must be a table"),
    (
        "drawn twice",
        "x = 0, y = 0 }",
        "x = 0, y = 1 }",
        "cells a1 and a2 are both drawn at x=0, y=1",
    ),
    ("not toml", "[cells]", "[cells", "not valid TOML"),
    ("missing piece", "\n[timer]", TRAY.replace(', piece = "R"', ""),
     "tray slot slot-R: missing key 'piece'"),
    ("slot named like a cell", "\n[timer]", TRAY.replace("slot-R", "a1"), "tray slot a1"),
    ("cell gets a piece", "y = 0 }", 'y = 0, piece = "R" }', "cell a2: unknown key 'piece'"),
]  # fmt: skip


@pytest.mark.parametrize(("what", "old", "new", "message"), BAD, ids=[b[0] for b in BAD])
def test_bad_layout_names_the_cell_and_key(
    tmp_path: Path, what: str, old: str, new: str, message: str
) -> None:
    assert old in SMALL, what
    path = write(tmp_path, SMALL.replace(old, new, 1))
    with pytest.raises(LayoutError) as info:
        Layout.load(path)
    assert message in str(info.value)
    assert str(info.value).startswith(str(path))


def test_a_tray_slot_loads(tmp_path: Path) -> None:
    text = SMALL.replace("\n[timer]", TRAY)
    layout = Layout.load(write(tmp_path, text))
    assert layout.tray == ("slot-R",) and layout.sensed[-1] == "slot-R"
    assert layout.cell("slot-R").piece == "R" and layout.led_of("slot-R") == 3


def test_unreadable_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(LayoutError, match=r"cannot read layout file .*nowhere\.toml"):
        Layout.load(tmp_path / "nowhere.toml")


def test_layout_error_is_a_value_error() -> None:
    assert issubclass(LayoutError, ValueError)


def test_no_nan_or_float_sneaks_in(tmp_path: Path) -> None:
    path = write(tmp_path, SMALL.replace("led = 1,", f"led = {math.pi},"))
    with pytest.raises(LayoutError, match=r"'led' must be an integer, got 3\.14"):
        Layout.load(path)
