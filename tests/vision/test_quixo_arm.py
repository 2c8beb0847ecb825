"""An arm over Quixo's cubes (vision.cubes.QuixoReader.arm_over), on a synthetic grid of
cube tops: every top ringed by the dark seams between cubes, and what hides them."""

from __future__ import annotations

import random

import cv2
import numpy as np
import numpy.typing as npt

from tavola.vision.classify import Recogniser
from tavola.vision.cubes import QuixoReader
from tavola.vision.render import random_conditions, random_position, render

Light = npt.NDArray[np.float64]
PX = QuixoReader.px
SIZE = 5 * PX


def _bgr(light: Light) -> npt.NDArray[np.float32]:
    """A grey white-balanced area image (float BGR 0-255) of the given Lab lightness."""
    lab = np.zeros((*light.shape, 3), np.float32)
    lab[..., 0] = np.clip(light, 0, 100)
    out: npt.NDArray[np.float32] = cv2.cvtColor(lab, cv2.COLOR_Lab2BGR) * np.float32(255)
    return out


def _grid(face: float = 88.0, seam: float = 45.0, noise: float = 1.5) -> Light:
    """Cube tops of lightness ``face`` (with the sensor's noise), seams of ``seam``."""
    rng = np.random.default_rng(3)
    light = face + rng.normal(0.0, noise, (SIZE, SIZE))
    for k in range(1, 5):
        light[:, k * PX - 1:k * PX + 1] = seam
        light[k * PX - 1:k * PX + 1, :] = seam
    return light


def _arm(light: Light, rows: slice, cols: slice) -> Light:
    """An arm over part of the grid: one smooth surface, shaded across its width."""
    out = light.copy()
    y = np.arange(SIZE, dtype=np.float64)[rows, None]
    out[rows, cols] = 70.0 + 10.0 * np.sin(np.pi * (y - y.min()) / max(float(np.ptp(y)), 1.0))
    return out


def _arm_over(light: Light) -> bool:
    return QuixoReader().arm_over([_bgr(light)])


def test_the_bare_grid_of_cubes_is_no_arm() -> None:
    assert not _arm_over(_grid())
    assert not _arm_over(_grid(face=60.0, seam=30.0))  # dim light: the seams still show


def test_an_arm_reaching_in_over_the_cubes_is_seen() -> None:
    # quixo-122: a skin-coloured arm from the east over d4, e3-e5, about as light as the
    # cubes' faces and as the wood on the rim: over the cubes it hides their seams.
    assert _arm_over(_arm(_grid(), slice(0, 3 * PX - 8), slice(3 * PX + 8, SIZE)))
    # A darker sleeve from the south over c1-e1 (quixo-143).
    assert _arm_over(_arm(_grid(), slice(4 * PX - 10, SIZE), slice(2 * PX + 8, SIZE)))


def test_a_patch_that_does_not_reach_the_edge_is_no_arm() -> None:
    # An arm comes in from outside the area: a smooth patch in its middle is something
    # else (a reflection, a shadow without seams is not seen at all).
    assert not _arm_over(_arm(_grid(), slice(PX + 8, 4 * PX - 8), slice(PX + 8, 4 * PX - 8)))


def test_the_cubes_sides_at_a_tilt_hiding_the_seams_of_one_direction_are_no_arm() -> None:
    # Seen at a tilt the light side of the cube beyond each seam fills it: the seams
    # between ranks vanish, those between files stay.
    light = _grid()
    for k in range(1, 5):
        light[k * PX - 4:k * PX + 2, :] = 84.0
    for k in range(1, 5):
        light[:, k * PX - 1:k * PX + 1] = 45.0
    assert not _arm_over(light)


def test_seams_filled_by_a_glare_on_blown_out_faces_are_no_arm() -> None:
    # quixo-077: a lamp's reflection blows the tops out to one flat level at the sensor's
    # ceiling, and its bloom fills the thin seams between them.
    light = _grid(face=100.0, noise=0.0)
    light[: 3 * PX, : 3 * PX] = 100.0
    assert not _arm_over(light)


def test_a_cube_lifted_out_of_its_place_skips_the_frame() -> None:
    # Mid-push the cube taken out leaves a hole in the edge row: its seams are gone, the
    # board's floor shows. Read with a blank there, the frame would record a wrong move.
    rng = random.Random(5)
    for _ in range(3):
        cells = random_position("quixo", rng)
        conditions = random_conditions(rng)
        held = rng.choice(["a1", "c1", "e3", "b5", "a4", "e5"])
        assert not Recogniser("quixo").read(render("quixo", cells, conditions).image).hand
        del cells[held]
        assert Recogniser("quixo").read(render("quixo", cells, conditions).image).hand, held
