"""Light: white balance from the markers' white paper and black print, and Lab colour.

The four markers are printed on white paper, so every frame carries a white reference at
each corner of the board. The gain that makes each corner's paper read :data:`PAPER` undoes
the colour of the light (2700-6500 K), its level and a gradient across the board; it is
interpolated between the corners.

A camera's auto exposure often puts the paper, the lightest thing on the board, at the
sensor's ceiling: a channel read at 255 says only that the light there is at least that
bright, and a paper clipped in every channel reads white whatever the light's colour. The
markers' black print is far below the ceiling and lit by the same light: its colour gives
the light's tint (:func:`paper_light`), and the paper's unclipped channels, or else the
ceiling itself, its level.
"""

from __future__ import annotations

from collections.abc import Mapping

import cv2
import numpy as np
import numpy.typing as npt

from .appearance import PAPER_WHITE, PRINT_BLACK
from .detect import BGR, BLOWN, Image
from .geometry import MARKER_IDS, BoardGeometry

__all__ = [
    "INK_SHARE",
    "PAPER",
    "PAPER_CHROMA",
    "Float",
    "chromaticity",
    "encoded",
    "lab",
    "linear",
    "paper_light",
    "shade_free",
    "white_balance",
]

Float = npt.NDArray[np.float32]
Double = npt.NDArray[np.float64]

PAPER: BGR = (235.0, 235.0, 235.0)  # what white paper reads after white balance
INK_DARKEST = 3.0  # ink this dark (grey levels) is lost in the sensor's noise: no tint
INK_LIGHTEST = 160.0  # ink this light is veiled by a reflection: its colour is the lamp's
# The ink's gloss adds light of its own to its dim diffuse colour: the lamp's, undiluted by
# the room's light that the paper also gets, so the ink shows the light's colour stronger
# than the paper does. The paper's log-chromaticity is this share of the ink's (on the 3D
# set's frames whose paper is not clipped: 0.65, residual 0.03 against 0.08 for none).
INK_SHARE = 0.65


def linear(srgb: npt.ArrayLike) -> Double:
    """sRGB (0-255) -> linear light (1 at 255); lights multiply colours there."""
    s = np.asarray(srgb, np.float64) / 255.0
    out: Double = np.where(s <= 0.04045, s / 12.92, ((s + 0.055) / 1.055) ** 2.4)
    return out


def encoded(light: npt.ArrayLike) -> Double:
    """Linear light -> sRGB (0-255), continued above 255 for light beyond the ceiling."""
    x = np.maximum(np.asarray(light, np.float64), 0.0)
    out: Double = 255.0 * np.where(x <= 0.0031308, 12.92 * x, 1.055 * x ** (1 / 2.4) - 0.055)
    return out


def chromaticity(light: Double) -> Double:
    """A linear colour's log-chromaticity: its logs less their mean (its level)."""
    log = np.log(np.maximum(light, 1e-9))
    out: Double = log - log.mean()
    return out


# The ink is nominally neutral, the paper a little warm: the paper's own chromaticity.
PAPER_CHROMA = chromaticity(linear(PAPER_WHITE)) - chromaticity(linear(PRINT_BLACK))


def paper_light(paper: Mapping[int, BGR], ink: Mapping[int, BGR]) -> dict[int, BGR]:
    """The colour each marker's paper would read without the sensor's ceiling.

    A channel below :data:`~tavola.vision.detect.BLOWN` is a measurement and stays; a
    channel at the ceiling is only a lower bound on the light there. The light's tint
    (its colour, not its level) is the median over the markers of what each shows: its
    paper if no channel is clipped, else its ink (far below the ceiling), as the paper
    would show it. A clipped channel then reads what the tint makes of the paper's
    unclipped channels, or, all three clipped, of the least light the ceiling allows; and
    never less than it read."""
    tints = []
    for m, colour in paper.items():
        if max(colour) < BLOWN:
            tints.append(chromaticity(linear(colour)))
        elif m in ink and min(ink[m]) >= INK_DARKEST and max(ink[m]) < INK_LIGHTEST:
            tints.append(INK_SHARE * chromaticity(linear(ink[m])) + PAPER_CHROMA)
    if not tints:
        return dict(paper)
    log_tint = np.median(np.array(tints), axis=0)
    tint = np.exp(log_tint - log_tint.max())  # the light's colour on the paper, max 1
    out: dict[int, BGR] = {}
    for m, colour in paper.items():
        measured = np.array(colour, np.float64)
        clipped = measured >= BLOWN
        if not clipped.any():
            out[m] = colour
            continue
        levels = linear(measured) / tint
        # Unclipped channels measure the level; clipped ones only bound it from below.
        level = float(np.median(levels[~clipped])) if (~clipped).any() else float(levels.max())
        seen = np.where(clipped, np.maximum(measured, encoded(level * tint)), measured)
        out[m] = (float(seen[0]), float(seen[1]), float(seen[2]))
    return out


def lab(image: Float | Image) -> Float:
    """BGR (uint8, or float 0-255) -> CIE Lab float32 (L 0-100, a and b about -100..100)."""
    f = np.asarray(image, np.float32) * np.float32(1 / 255)
    out: Float = cv2.cvtColor(np.clip(f, 0, 1), cv2.COLOR_BGR2Lab)
    return out


def white_balance(
    top: Image, rect: tuple[float, float, float, float], geometry: BoardGeometry,
    paper: Mapping[int, BGR], target: BGR = PAPER, ink: Mapping[int, BGR] | None = None,
) -> Float:
    """``top`` (a warp of board rectangle ``rect``) with the light of the markers' paper
    undone: each channel's gain is target / paper at each marker, interpolated over the
    board (bilinearly with four markers, as a plane with three). With the markers' ``ink``
    (even empty), a paper clipped at the sensor's ceiling counts as :func:`paper_light`
    reads it, and a pixel of ``top`` at the ceiling reads no lighter than its bound and
    the paper, white if clipped in every channel. Returns float32 BGR."""
    out = np.asarray(top, np.float32)
    if not paper:
        return out
    if ink is not None:
        paper = paper_light(paper, ink)
    pts, gains = [], []
    for m, colour in paper.items():
        quad = np.array(geometry.marker(m))
        pts.append(quad.mean(axis=0))
        gains.append([t / max(c, 1.0) for t, c in zip(target, colour, strict=True)])
    p, g = np.array(pts), np.array(gains)
    x0, y0, x1, y1 = rect
    h, w = top.shape[:2]
    xs = x0 + (np.arange(w) + 0.5) * (x1 - x0) / w
    ys = y0 + (np.arange(h) + 0.5) * (y1 - y0) / h
    if len(p) >= 4:
        # Bilinear over the markers' rectangle: its corners, in marker order 0 1 2 3.
        by = {m: gains[i] for i, m in enumerate(paper)}
        (ax, ay), (bx, _), (_, cy), _ = (np.array(geometry.marker(m)).mean(axis=0)
                                          for m in MARKER_IDS)
        u = ((xs - ax) / (bx - ax))[None, :, None]
        v = ((ys - ay) / (cy - ay))[:, None, None]
        g0, g1, g2, g3 = (np.array(by[m], np.float32) for m in MARKER_IDS)
        field = (1 - v) * ((1 - u) * g0 + u * g1) + v * ((1 - u) * g3 + u * g2)
    elif len(p) == 3:
        a = np.column_stack([p, np.ones(3)])
        coef = np.linalg.solve(a, g)  # gain = cx * x + cy * y + c, per channel
        field = (xs[None, :, None] * coef[0] + ys[:, None, None] * coef[1] + coef[2])
    else:
        field = g.mean(axis=0)[None, None, :]
    gain = np.asarray(field, np.float32)
    raw = np.asarray(top)
    out *= gain
    clipped = raw >= BLOWN
    if ink is not None and clipped.any():
        # A channel at the sensor's ceiling only says the light was at least that (the
        # ceiling times the gain), and at least as much as the paper's (clipped too, or
        # lighter). A pixel clipped in every channel has lost its colour: it reads white,
        # not the tint the gains would give it.
        bound = np.maximum(np.float32(255.0) * gain, np.asarray(target, np.float32))
        white = np.all(clipped, axis=2, keepdims=True)
        out = np.where(white, bound.max(axis=2, keepdims=True),
                       np.where(clipped, bound, out))
    return out


SHADE = 20.0  # lightness added below the chroma ratio, so that near-black stays steady


def shade_free(colours: Float) -> Float:
    """Lab -> (L, a', b') with a' = 60 a / (L + 20) and the same for b: a shadow darkens a
    colour and shrinks its a and b with it, but hardly changes their ratio to lightness.
    (60 / (L + 20) is 1 at L = 40: a' and b' keep the scale of a and b.)"""
    out = np.array(colours, np.float32, copy=True)
    k = np.float32(60.0) / (out[..., 0] + np.float32(SHADE))
    out[..., 1] *= k
    out[..., 2] *= k
    return out
