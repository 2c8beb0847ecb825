"""Quinque's lattice (and backpacks the light disguises) on the physically rendered set.

Every Quinque truth file of tests/vision/data3d carries ``origin``: where the renderer
laid the game's coordinates on the table area (skydiver (x, y) covers the unit square from
(ox + x, oy - y - 1)), so the lattice's true phase is the origin modulo one tile (2 units).
A lattice half a unit off reads every skydiver from its neighbour's square, and then
backpacks are read free (trusted): the phase is checked on its own here.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tavola.vision.classify import Recogniser
from tavola.vision.detect import MarkersNotFoundError
from tavola.vision.source import read_image
from tavola.vision.tiles import QuinqueReader
from tests.vision.frames3d import assert_read_or_doubted, read_3d

DATA = Path(__file__).parent / "data3d"
NEAR = 0.15  # units: where the reader and the truth agree (tiles are laid by hand)
# quinque-135: a new game's one tile that an area light's reflection hides whole; one
# print shows, and the tile is not found.
OFF: set[str] = {"quinque-135"}


def phase_error(name: str) -> float | None:
    """How far (units, the worse axis) the lattice read from frame ``name`` lies from its
    truth; None where no tile was read or the board not found."""
    meta = json.loads((DATA / f"{name}.json").read_text(encoding="utf-8"))
    recogniser = Recogniser("quinque", fov=float(meta["fov"]))
    try:
        reading = recogniser.read(read_image(DATA / f"{name}.jpg"))
    except MarkersNotFoundError:
        return None
    reader = recogniser.reader
    assert isinstance(reader, QuinqueReader)
    if not reading.cells or reader.phase is None:
        return None
    return max(abs((p - float(o) + 1) % 2 - 1)
               for p, o in zip(reader.phase, meta["origin"], strict=True))


def test_every_quinque_frame_says_where_its_tiles_lie() -> None:
    for path in sorted(DATA.glob("quinque-*.json")):
        origin = json.loads(path.read_text(encoding="utf-8"))["origin"]
        assert len(origin) == 2 and all(0 <= v <= 16 for v in origin), path.stem


@pytest.mark.parametrize("name", ["quinque-029", "quinque-119", "quinque-120", "quinque-177",
                                  "quinque-190"])
def test_the_lattice_lies_where_the_tiles_do(name: str) -> None:
    # quinque-029 (tilted 24 degrees): the coverage alone put the lattice a fifth of a unit
    # off, the tiles' edges put it right. quinque-120 and -177 (small clusters, one near
    # the area's edge, one on a light mat seen from 1.2 m) and -119 (one tile under an
    # area light's reflection: only a backpack shows): the edges were pulled a third and
    # half a unit off; the prints, gathered around the skydivers' middles, say where the
    # lattice lies. quinque-190: a cluster of seven tiles an area light blows out shows
    # few prints (its tile pixels split no better than noise, the lattice was 0.85 unit
    # off and 17 cells read "no tile", trusted); the blown-out faces place it.
    error = phase_error(name)
    assert error is not None and error < NEAR, (name, error)


@pytest.mark.slow
def test_the_lattice_lies_where_the_tiles_do_in_every_frame() -> None:
    off = []
    for path in sorted(DATA.glob("quinque-*.json")):
        if json.loads(path.read_text(encoding="utf-8"))["hand"]:
            continue
        error = phase_error(path.stem)
        if error is not None and error >= NEAR:
            off.append((path.stem, round(error, 2)))
    assert {name for name, _ in off} <= OFF, off


def test_a_tile_showing_only_a_backpack_under_a_reflection_is_found() -> None:
    # quinque-119: a new game's one tile in an area light's square reflection, white on
    # white; only its red backpack shows. The square holding that print, white to its
    # edges, is a tile (doubted where nothing shows); before, the tile was found only with
    # the lattice half a unit off, each skydiver read from the wrong square.
    frame = read_3d("quinque-119")
    assert set(frame.read) == set(frame.truth["cells"])
    assert frame.read["0,0"] == "R"
    assert_read_or_doubted("quinque-119", ("0,1", "1,0", "1,1"))


def test_a_red_backpack_a_cool_light_turned_pink_is_doubted_not_free() -> None:
    # Under a cool lamp the white balance undoes only in part, a red backpack's hue falls
    # below red's (to -32 degrees) and it pales: read free and trusted, it made the rules
    # see a move nobody made (quinque-110 and -163: mismatches in bench/referee3d.py).
    for name, cell in (("quinque-110", "0,1"), ("quinque-120", "2,0"),
                       ("quinque-163", "0,1"), ("quinque-189", "1,0")):
        assert_read_or_doubted(name, (cell,))


def test_a_backpack_blown_out_but_for_a_tint_is_doubted_not_free() -> None:
    # quinque-196: an area light's reflection blows two orange backpacks out to the face's
    # white but for a faint tint (chroma 6); their darker edges pass for a free
    # skydiver's printed arms, and they read free, trusted. A grey recess clips neutral.
    assert_read_or_doubted("quinque-196", ("4,0", "5,0"))
