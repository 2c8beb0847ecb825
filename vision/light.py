"""Light: white balance from the markers' white paper, and Lab colour.

The four markers are printed on white paper, so every frame carries a white reference at
each corner of the board. The gain that makes each corner's paper read :data:`PAPER` undoes
the colour of the light (2700-6500 K), its level and a gradient across the board; it is
interpolated between the corners.
"""

from __future__ import annotations

from collections.abc import Mapping

import cv2
import numpy as np
import numpy.typing as npt

from .detect import BGR, Image
from .geometry import MARKER_IDS, BoardGeometry

__all__ = ["PAPER", "Float", "lab", "shade_free", "white_balance"]

Float = npt.NDArray[np.float32]

PAPER: BGR = (235.0, 235.0, 235.0)  # what white paper reads after white balance


def lab(image: Float | Image) -> Float:
    """BGR (uint8, or float 0-255) -> CIE Lab float32 (L 0-100, a and b about -100..100)."""
    f = np.asarray(image, np.float32) * np.float32(1 / 255)
    out: Float = cv2.cvtColor(np.clip(f, 0, 1), cv2.COLOR_BGR2Lab)
    return out


def white_balance(
    top: Image, rect: tuple[float, float, float, float], geometry: BoardGeometry,
    paper: Mapping[int, BGR], target: BGR = PAPER,
) -> Float:
    """``top`` (a warp of board rectangle ``rect``) with the light of the markers' paper
    undone: each channel's gain is target / paper at each marker, interpolated over the
    board (bilinearly with four markers, as a plane with three). Returns float32 BGR."""
    out = np.asarray(top, np.float32)
    if not paper:
        return out
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
    out *= np.asarray(field, np.float32)
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
