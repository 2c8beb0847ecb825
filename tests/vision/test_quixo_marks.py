"""Quixo's marks against the face right beside them (vision.cubes.QuixoReader), on
synthetic cube faces: a glare's veil, wood grain and a shadow's edge."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from tavola.vision.classify import Recogniser
from tavola.vision.cubes import QuixoReader
from tavola.vision.render import Conditions, render

Faces = npt.NDArray[np.float32]


def _faces(light: npt.NDArray[np.float64]) -> Faces:
    """Every cell of the board with the same top face: Lab blocks (cells, px, px, 3)."""
    reader = QuixoReader()
    out = np.zeros((len(reader.cells), reader.px, reader.px, 3), np.float32)
    out[..., 0] = light
    return out


def _uv() -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    b = QuixoReader().blocks
    return b.u, b.v


def _o(face: float, step: float) -> npt.NDArray[np.float64]:
    u, v = _uv()
    return np.where(np.abs(np.hypot(u, v) - 0.24) < 0.04, face - step, face)


def _x(face: float, step: float) -> npt.NDArray[np.float64]:
    u, v = _uv()
    arm = (np.minimum(np.abs(u - v), np.abs(u + v)) / np.sqrt(2) < 0.045) & (np.abs(u) < 0.2)
    return np.where(arm & (np.abs(v) < 0.2), face - step, face)


def _read(light: npt.NDArray[np.float64]) -> set[str]:
    tokens, _ = QuixoReader().decide([_faces(light)])
    return set(tokens)


def test_marks_veiled_to_a_faint_step_on_a_face_at_the_ceiling_are_read() -> None:
    # A lamp's reflection on a glossy top clips the face at the sensor's ceiling and lifts
    # the ink near it: the mark is only 8 L darker than the face.
    assert _read(_o(93.0, 8.0)) == {"O"}
    assert _read(_x(93.0, 8.0)) == {"X"}


def test_plain_marks_are_read() -> None:
    assert _read(_o(85.0, 45.0)) == {"O"}
    assert _read(_x(85.0, 45.0)) == {"X"}


def test_wood_grain_is_no_mark() -> None:
    # A light wooden cube's grain: stripes some 8 L from light to dark every few pixels,
    # as deep as a veiled mark, but over the whole face (its texture).
    _, v = _uv()
    for period in (0.2, 0.3):
        assert _read(85.0 + 4.0 * np.sin(2 * np.pi * v / period)) == {"."}, period


def test_a_shadow_or_a_glares_edge_across_the_face_is_no_mark() -> None:
    # Dark on one side only: the face beside the dark half is not lighter on both sides.
    u, v = _uv()
    assert _read(np.where(u + 0.3 * v < 0.02, 55.0, 90.0)) == {"."}
    assert _read(75.0 + 25.0 * (u + 0.5)) == {"."}  # a glare's gradient


def test_a_mark_veiled_nearly_to_white_on_a_face_at_the_ceiling_is_read() -> None:
    # quixo-090 d4: a lamp's reflection blows the face out to the sensor's ceiling, one
    # flat level with no noise left, and veils the ink to 4 L below it: nothing else there
    # makes a step, so the faint ring is the O.
    assert _read(_o(93.0, 4.0)) == {"O"}
    assert _read(_x(93.0, 4.0)) == {"X"}


def test_a_faint_step_on_a_lit_face_or_on_grain_beside_the_ceiling_is_no_mark() -> None:
    # Below the ceiling the sensor's noise keeps the face uneven, and wood grain whose
    # light stripes are blown out keeps its dark ones: its texture, no mark.
    rng = np.random.default_rng(7)
    noisy = 85.0 + rng.normal(0.0, 1.0, _uv()[0].shape)
    assert _read(noisy) == {"."}
    _, v = _uv()
    for period in (0.2, 0.3):
        assert _read(np.minimum(88.0, 85.0 + 4.0 * np.sin(2 * np.pi * v / period))) == {"."}


def _coloured(light: npt.NDArray[np.float64], red: npt.NDArray[np.float64],
              blue: npt.NDArray[np.float64]) -> Faces:
    """Lab blocks with the lightness each of B, G and R would have as a grey (as
    QuixoReader.cut makes them): green as light as the lightness."""
    out = np.zeros((len(QuixoReader().cells), QuixoReader.px, QuixoReader.px, 6), np.float32)
    out[..., 0], out[..., 3], out[..., 4], out[..., 5] = light, blue, light, red
    return out


def test_a_mark_a_veil_keeps_only_in_one_colour_channel_is_read() -> None:
    # quixo-123 e4, e5: a cool area light's reflection lifts the faces to the ceiling in
    # blue and green, where the X is gone; red, left below it, keeps a 10 L step.
    face = np.full(_uv()[0].shape, 97.0)
    for mark, token in ((_x, "X"), (_o, "O")):
        tokens, _ = QuixoReader().decide([_coloured(face, mark(90.0, 10.0), face)])
        assert set(tokens) == {token}, token


def test_a_bright_wooden_face_below_the_paper_is_read_by_its_lightness() -> None:
    # A frame of the flat renderer, bright (1.11) and bluish (6258 K): d1's blank wooden
    # face has brown grain deep in blue; read there, it made an O.
    cells = dict.fromkeys((f"{f}{r}" for f in "abcde" for r in range(1, 6)), ".")
    cells.update({"a1": "Xw", "b1": "Xw", "c1": "Xs", "e3": "On", "d4": "Ow", "a5": "Xw"})
    conditions = Conditions(
        width=1280, height=720, tilt=4.0551982422426995, turn=-4.972968266276199,
        scale=0.7278745283790062, shift=(0.03089705973965645, -0.036313332586653715),
        kelvin=6258.221321534325, brightness=1.1123875507392298,
        gradient=0.22841935873986832, shadow=0.0, noise=0.9042873584357619,
        blur=0.12313628219840111, jpeg=75, hand=0.0, seed=1328652288,
        azimuth=-89.1307273210895)
    frame = render("quixo", cells, conditions, players=4)
    assert Recogniser("quixo", players=4).read(frame.image).cells == cells
