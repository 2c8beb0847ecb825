"""White balance (vision.light): the markers' paper, its clipped channels, their ink."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import numpy.typing as npt

from tavola.vision import appearance as look
from tavola.vision.classify import Reading, Recogniser, as_seen
from tavola.vision.detect import BGR
from tavola.vision.geometry import geometry_for
from tavola.vision.light import INK_SHARE, PAPER, encoded, linear, paper_light, white_balance
from tavola.vision.source import read_image

GEOMETRY = geometry_for("morris")
RECT = (0.0, 0.0, float(GEOMETRY.files), float(GEOMETRY.ranks))
PX = 4


def _bgr(values: npt.ArrayLike) -> BGR:
    v = np.asarray(values, np.float64)
    return (float(v[0]), float(v[1]), float(v[2]))


def _seen(colour: npt.ArrayLike, tint: npt.NDArray[np.float64], level: float) -> BGR:
    """What the camera reads of a nominal colour under a light of linear ``tint`` and
    ``level`` (above 255: clipped at the sensor's ceiling)."""
    return _bgr(np.minimum(encoded(linear(colour) * tint * level), 255.0))


def _ink(tint: npt.NDArray[np.float64]) -> BGR:
    """The markers' ink under a light that gives the paper ``tint``: its gloss shows the
    light's colour stronger (INK_SHARE)."""
    strong = np.exp(np.log(tint) / INK_SHARE)
    return _seen(look.PRINT_BLACK, strong / strong.max(), 3.0)


WARM = np.array([0.55, 0.8, 1.0])  # linear BGR of a 2700 K lamp the camera left uncorrected


def test_a_paper_below_the_ceiling_is_measured_as_it_reads() -> None:
    paper = {0: (200.0, 210.0, 230.0), 1: (190.0, 200.0, 220.0)}
    assert paper_light(paper, {0: (30.0, 40.0, 60.0), 1: (30.0, 40.0, 60.0)}) == paper


def test_a_paper_clipped_in_every_channel_gets_the_lights_tint_from_its_ink() -> None:
    paper = {m: _seen(look.PAPER_WHITE, WARM, 2.5) for m in range(4)}
    assert all(c == 255.0 for colour in paper.values() for c in colour)  # clipped white
    ink = {m: _ink(WARM) for m in range(4)}
    light = paper_light(paper, ink)
    for colour in light.values():
        # The weakest channel of the light (blue) stays at the ceiling, the least light
        # the clipped channels allow; green and red are as much stronger as the tint says.
        assert colour[0] == 255.0
        true = linear(look.PAPER_WHITE) * WARM
        np.testing.assert_allclose(linear(colour) / linear(colour)[0], true / true[0],
                                   rtol=0.05)


def test_a_clipped_channel_is_a_lower_bound_and_unclipped_ones_stay() -> None:
    paper = {0: (200.0, 255.0, 255.0)}  # blue measured, green and red at the ceiling
    light = paper_light(paper, {0: (40.0, 40.0, 40.0)})  # a neutral ink: a neutral light
    assert light[0][0] == 200.0
    assert all(c >= 255.0 for c in light[0][1:])  # never less than the ceiling it read
    # ... and a neutral ink says the paper is neutral: green and red no brighter than blue
    # would make them.
    assert max(light[0][1:]) == 255.0


def test_no_ink_leaves_the_paper_as_measured() -> None:
    paper = {0: (255.0, 255.0, 255.0)}
    assert paper_light(paper, {}) == paper
    assert paper_light(paper, {0: (255.0, 250.0, 250.0)}) == paper  # ink blown out: no tint


def test_a_warm_light_with_the_paper_clipped_is_undone() -> None:
    # The board's cream print under a warm light, too dark to clip; the paper clipped.
    board = np.array((175.0, 212.0, 232.0))  # tessere's bare print
    top = np.full((GEOMETRY.ranks * PX, GEOMETRY.files * PX, 3), 0, np.uint8)
    top[:] = np.round(_seen(board, WARM, 1.0))
    paper = {m: _seen(look.PAPER_WHITE, WARM, 2.5) for m in range(4)}
    ink = {m: _ink(WARM) for m in range(4)}
    plain = white_balance(top, RECT, GEOMETRY, paper)
    balanced = white_balance(top, RECT, GEOMETRY, paper, ink=ink)

    def warmth(image: npt.NDArray[np.float32]) -> float:
        """How much redder than bluish the board reads, against its nominal colour."""
        b, _, r = image.reshape(-1, 3).mean(axis=0)
        return float(np.log(r / b) - np.log(board[2] / board[0]))

    assert warmth(plain) > 0.15  # the paper alone leaves the lamp's colour
    assert abs(warmth(balanced)) < 0.03  # its ink undoes it


def test_a_pixel_blown_out_in_every_channel_reads_white_not_the_gains_tint() -> None:
    top = np.full((GEOMETRY.ranks * PX, GEOMETRY.files * PX, 3), 255, np.uint8)
    top[0, 0] = (120, 140, 160)
    paper = {m: (200.0, 220.0, 240.0) for m in range(4)}  # gains tint a clipped white blue
    out = white_balance(top, RECT, GEOMETRY, paper, ink={})
    blown = out[1:, 1:].reshape(-1, 3)
    assert np.ptp(blown, axis=1).max() < 1e-3  # white: every channel alike
    assert blown.min() >= PAPER[0]  # and at least as light as the paper
    np.testing.assert_allclose(out[0, 0], np.array((120, 140, 160)) * 235 / np.array(
        (200, 220, 240)), rtol=1e-5)  # a pixel below the ceiling keeps its colour


def test_a_channel_at_the_ceiling_reads_at_least_as_light_as_the_paper() -> None:
    # Paper clipped (gains below one): the cream print's red and green at the ceiling read
    # as light as the paper, not darker (a grey, a block under a veil, in tessere).
    top = np.full((GEOMETRY.ranks * PX, GEOMETRY.files * PX, 3), (240, 255, 255), np.uint8)
    paper = {m: (255.0, 275.0, 285.0) for m in range(4)}
    out = white_balance(top, RECT, GEOMETRY, paper, ink={})
    assert out[..., 1:].min() >= PAPER[1]
    assert out[..., 0].max() < PAPER[0]  # blue, below the ceiling, is measured


DATA = Path(__file__).parent / "data3d"


def _read(name: str, ink_balance: bool) -> tuple[dict[str, str], Reading]:
    """(truth as the camera should see it, reading) of one committed 3D-set frame."""
    meta = json.loads((DATA / f"{name}.json").read_text(encoding="utf-8"))
    recogniser = Recogniser(meta["game"], fov=float(meta["fov"]), ink_balance=ink_balance)
    return as_seen(meta["game"], meta["cells"]), recogniser.read(read_image(DATA / f"{name}.jpg"))


def test_white_men_blown_out_under_clipped_paper_read_white_with_the_ink_balance() -> None:
    # draughts-080: paper and the white men at b4 and d4 at the sensor's ceiling; the
    # paper-only gains tint the men's clipped white, read as the bare square.
    truth, plain = _read("draughts-080", ink_balance=False)
    assert plain.cells["b4"] != truth["b4"]  # the paper-only balance's misread
    truth, reading = _read("draughts-080", ink_balance=True)
    for cell in ("b4", "d4"):
        assert reading.cells[cell] == truth[cell], cell


def test_a_tinted_reflection_on_the_rim_is_no_hand_with_the_ink_balance() -> None:
    # morris-052: the paper clipped, a bluish light left in the picture; a reflection over a
    # whole side of the rim kept that tint and read as a sleeve (FALSE_HANDS, test_data3d).
    assert _read("morris-052", ink_balance=False)[1].hand
    assert not _read("morris-052", ink_balance=True)[1].hand
