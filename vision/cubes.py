"""Quixo (:class:`QuixoReader`): dark marks on the light cube face, each pixel measured
against the face right beside it (a glare lights a glossy face unevenly, and veils its
marks to a faint step, in the colour channel it left below the sensor's ceiling if not in
the lightness): a dark centre is an X, a dark ring with a light centre an O; with four
players the darkest of the four dot spots gives the direction. Cube tops are almost a cell
above the board, so their plane is fitted to the picture (the grid of light faces between
dark seams), not only computed from the camera model (:func:`fit_top_grid`). All 25 cubes
are always on the board: an arm over them hides the seams between them
(:meth:`QuixoReader.arm_over`, :func:`hidden_seams`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import cv2
import numpy as np
import numpy.typing as npt

from .detect import Image, Matrix, lifted, warp_area
from .geometry import BoardGeometry
from .light import Float, lab, linear
from .pieces import CEILING, SKIPPED, Bool, Prototypes, Reader

__all__ = ["QuixoReader", "fit_top_grid", "hidden_seams"]


class QuixoReader(Reader):
    """Quixo: blank, O or X on the cube's top face; with four players, the dot too."""

    game = "quixo"
    height = 0.92  # a cube's top
    GLARE_HIDES_ONLY = True  # 334 marks read surely on blown-out faces of the 3D set: all right
    DEFAULT: ClassVar[dict[str, tuple[float, float]]] = {
        # (dark share of the centre, dark share of the ring where an O's line runs)
        ".": (0.0, 0.02),
        "O": (0.0, 0.95),
        "X": (1.0, 0.35),
    }
    SPREAD: ClassVar[tuple[float, float]] = (0.16, 0.16)
    DARK = 22.0  # L a dot lies below its face in plain light (the unit of the dots' margin)
    # A mark is a thin stroke darker than the face on both sides of it: a pixel's step is
    # how much darker it is than the face closed over strokes up to NEAR pixels wide (a
    # shadow's or a glare's edge is one-sided and makes none). A step of MARK_STEP is a
    # mark; a glare's veil on a glossy face, or the sensor's ceiling, shrinks a mark's step,
    # so on a face without texture (no grain or noise left) a step above TEXTURE times the
    # face's own and above NOISE_STEP counts too.
    NEAR = 9
    MARK_STEP = 12.0
    TEXTURE = 4.0
    NOISE_STEP = 6.0
    # A glare blows a glossy face out to the sensor's ceiling, where no noise is left: a
    # share of BLOWN_SHARE of the face within FLAT of its brightest is at the ceiling, and
    # a step of CEILING_STEP beside it is ink (a mark the glare veiled nearly to white).
    CEILING_STEP = 3.0
    FLAT = 0.2
    BLOWN_SHARE = 0.3
    STROKE = 5  # pixels (at 32 a cell): a blurred stroke's width; it is dark to half its depth
    INKED = 3  # dark pixels (at 32 a cell) that ink a sector of the ring ...
    LINE = 0.9  # ... if they cover at most this share of it

    def __init__(self, players: int = 2, params: Mapping[str, Any] | None = None,
                 start: Mapping[str, str] | None = None) -> None:
        self.prototypes = Prototypes.of(self.DEFAULT, self.SPREAD)
        super().__init__(players, params, start)
        b = self.blocks
        self._face = (np.abs(b.u) < 0.4) & (np.abs(b.v) < 0.4)
        self._centre = b.ring(0.0, 0.1)
        # Where an O's line runs, cut in sixteen sectors: an O inks every one of them (at
        # whatever radius its line runs in this picture), an X's arms four pairs.
        self._sectors = np.stack(b.sectors(0.15, 0.33, 16))
        self._dots = {d: np.hypot(b.u - x, b.v - y) < 0.055
                      for d, (x, y) in (("n", (0, -0.36)), ("e", (0.36, 0)), ("s", (0, 0.36)),
                                        ("w", (-0.36, 0)))}
        self._fitted: tuple[int, Matrix] | None = None  # (id of the homography, plane)

    def planes(self, homography: Matrix, camera: Matrix, image: Image) -> list[Matrix]:
        """The cube tops' plane: the camera model's, then fitted to the picture (once per
        homography: the camera and the board stay put while cubes move)."""
        key = id(homography)
        if self._fitted is None or self._fitted[0] != key:
            model = lifted(homography, camera, self.height)
            self._fitted = (key, fit_top_grid(image, model, self.geometry))
        return [self._fitted[1]]

    def _blown(self, light: Float) -> tuple[Bool, Float]:
        """(which cells' faces are blown out to the sensor's ceiling, each face's
        brightest level (cells, 1)), from the cells' lightness blocks."""
        face = light[:, self._face]
        top = np.percentile(face, 99, axis=1)[:, None]
        blown: Bool = (face > top - self.FLAT).mean(axis=1) >= self.BLOWN_SHARE
        return blown, top

    def cut(self, tops: Sequence[Float]) -> list[Float]:
        """Lab cell blocks with three more channels: the lightness each of B, G and R would
        have as a grey (a mark is dark in every channel, :meth:`_dark`), continued above
        the ceiling (the white balance's gain lifts a channel beyond 255, where the raw
        picture kept the mark's step)."""
        return [self.blocks.cut(
            np.concatenate([lab(top), _lightness(linear(np.maximum(top, 0)))], axis=2),
            self.geometry, self.cells) for top in tops]

    def _strokes(self, light: Float) -> tuple[Float, Float, Float]:
        """(each pixel's step below the face right beside it, the least step that is a
        mark there, the deepest step within a stroke's width) of lightness blocks."""
        # Against the face right beside each pixel, not the whole face's level: a lamp's
        # reflection lights a glossy face unevenly (a glare's edge, a gradient).
        light = np.ascontiguousarray(light)
        near = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (self.NEAR, self.NEAR))
        step = np.stack([cv2.morphologyEx(cv2.blur(cell, (3, 3)), cv2.MORPH_CLOSE, near)
                         for cell in light]) - light
        # The face's own texture (wood grain, noise): a mark and the seams a cube pushed
        # aside shows cover less than two fifths of the face.
        texture = np.percentile(step[:, self._face], 60, axis=1)[:, None, None]
        # Where the face beside a pixel is blown out to the sensor's ceiling (a share of the
        # face at one level, its brightest: a lit face always keeps some noise), no noise
        # makes a step: there CEILING_STEP is enough, unless the face has grain.
        blown, top = self._blown(light)
        clipped = (light > top[:, :, None] - self.FLAT).astype(np.uint8)
        at_ceiling = blown[:, None, None] & (np.stack([cv2.dilate(c, near) for c in clipped]) > 0)
        floor = np.where(at_ceiling, self.CEILING_STEP, self.NOISE_STEP)
        least = np.clip(self.TEXTURE * texture, floor, self.MARK_STEP)
        # A blurred stroke's skirts are a little darker than the face too: the stroke is
        # where it is at least half as deep as its core (its width whatever the blur).
        width = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (self.STROKE, self.STROKE))
        depth: Float = np.stack([cv2.dilate(cell, width) for cell in step])
        return step.astype(np.float32), least.astype(np.float32), depth

    def _dark(self, blocks: Float) -> Bool:
        step, least, depth = self._strokes(blocks[..., 0])
        dark: Bool = (step > least) & (step > 0.5 * depth)
        # The ink is dark in every colour channel. A lamp's veil lifts the face to the
        # sensor's ceiling first in the channels its light is strongest in (red and green
        # for a warm lamp, blue for a cool one), where the mark's step is lost; a channel
        # left below the ceiling keeps it. So on a face the veil makes at least as light as
        # the paper (CEILING), each channel is read as the lightness is, no lower than the
        # lightness's own least step there (wood grain seen in the lightness is texture in
        # every channel). A face below that keeps its marks' step in the lightness, and the
        # wood's brown grain is deeper in blue than any of it.
        veiled = np.flatnonzero(np.percentile(blocks[:, self._face, 0], 99, axis=1) >= CEILING)
        for k in range(3, blocks.shape[-1] if len(veiled) else 3):
            step_k, least_k, depth_k = self._strokes(blocks[veiled, :, :, k])
            dark[veiled] |= (step_k > np.maximum(least_k, least[veiled])) & (
                step_k > 0.5 * depth_k)
        return dark

    def features(self, blocks: Float) -> npt.NDArray[np.float64]:
        dark = self._dark(blocks)
        # A sector is inked by a few dark pixels: a mark's line is thin, and an O a little
        # larger or off the face's middle (a cube pushed aside) still crosses every one. A
        # sector dark all over is a shadow, not a line.
        count = np.einsum("cyx,syx->cs", dark.astype(np.float32),
                          self._sectors.astype(np.float32))
        inked = (count >= self.INKED) & (count <= self.LINE * self._sectors.sum(axis=(1, 2)))
        return np.column_stack([dark[:, self._centre].mean(axis=1),
                                inked.mean(axis=1)]).astype(np.float64)

    def arm_over(self, tops: Sequence[Float]) -> bool:
        """Whether an arm hides part of the grid of cubes: all 25 are always on the board,
        each top face ringed by the dark seams between cubes, and an arm (or a cube lifted
        out of its place) is one surface across several of them. A patch of cells joined
        by hidden seams that runs both along the files and along the ranks and reaches the
        area's edge (an arm comes in from outside) is an arm; the cubes' light sides seen
        at a tilt hide seams of one direction only."""
        light = lab(tops[0])[:, :, 0]
        ranks, files, px = self.geometry.ranks, self.geometry.files, self.px
        cells = light.reshape(ranks, px, files, px).transpose(0, 2, 1, 3).reshape(-1, px, px)
        blown = self._blown(cells)[0].reshape(ranks, files)  # rows from the last rank
        return _edge_patch(*hidden_seams(light, px, blown))

    def decide(self, planes: list[Float]) -> tuple[list[str], npt.NDArray[np.float64]]:
        blocks = planes[0]
        tokens, confidence = self.prototypes.classify(self.features(blocks))
        if self.players == 4:
            # The darkest of the four dot spots, by their own lightness (no threshold: a
            # face's light majority does not decide which of them is darkest).
            spots = np.column_stack([blocks[:, m, 0].mean(axis=1) for m in self._dots.values()])
            names = list(self._dots)
            for i, t in enumerate(tokens):
                if t == ".":
                    continue
                order = np.argsort(spots[i])
                tokens[i] = t + names[order[0]]
                margin = (spots[i][order[1]] - spots[i][order[0]]) / (0.4 * self.DARK)
                confidence[i] = min(confidence[i], float(np.clip(margin, 0, 1)))
        return tokens, confidence

    def calibrate(self, tops: Sequence[Float], truth: Mapping[str, str],
                  skip: frozenset[str] = frozenset()) -> dict[str, Any]:
        blocks = self.cut(tops)[0]
        labels = [SKIPPED if c in skip else truth.get(c, ".")[:1] or "." for c in self.cells]
        self.prototypes = self.prototypes.fitted(self.features(blocks), labels)
        return {"prototypes": self.prototypes.to_dict()}

    def load(self, params: Mapping[str, Any]) -> None:
        self.prototypes = Prototypes.from_dict(params["prototypes"])


def _lightness(light: npt.NDArray[np.float64]) -> Float:
    """CIE lightness (L, 0-100 up to the ceiling, beyond it above) of linear light."""
    out: Float = np.where(light > 216 / 24389, 116 * np.cbrt(light) - 16,
                          light * 24389 / 27).astype(np.float32)
    return out


# The seam between two cubes is a shadowed crevice, tens of L darker than the faces beside
# it; across an arm (skin, a sleeve) it is no darker than SEAM_DEPTH. A seam blown out to the
# sensor's ceiling by a lamp's reflection (the faces both sides of it blown out: the
# glare's bloom fills the thin crevice) shows nothing.
SEAM_DEPTH = 10.0
SEAM_SPAN = (0.2, 0.8)  # the stretch of a cube's side its seam is averaged along (no corners)
SEAM_NEAR = 0.1  # cells either side of the nominal seam it may lie (the plane's fit)
SEAM_FACE = 0.3  # cells into each face its lightest point is sought


def hidden_seams(light: Float, px: int, blown: Bool) -> tuple[Bool, Bool]:
    """Which seams between neighbouring cubes do not show, from the lightness (Lab L) of
    the area on the cube tops' plane, ``px`` pixels per cell: (the seams between files,
    ranks x (files - 1); the seams between ranks, (ranks - 1) x files), rows from the
    area's top (the last rank). ``blown``: (ranks, files), the faces blown out to the
    sensor's ceiling (their seams tell nothing).

    Each seam is averaged along the middle of the side (marks run across it in places
    only), then its profile across: the darkest point near the seam against the lightest
    point of each face beside it."""
    ranks, files = light.shape[0] // px, light.shape[1] // px
    a0, a1 = (round(f * px) for f in SEAM_SPAN)
    near, face = round(SEAM_NEAR * px), round(SEAM_FACE * px)

    def hidden(profiles: Float) -> Bool:
        # profiles: (..., 2 * face) across the seam, which lies at index ``face``.
        seam = profiles[..., face - near:face + near].min(axis=-1)
        faces = np.minimum(profiles[..., :face - near].max(axis=-1),
                           profiles[..., face + near:].max(axis=-1))
        out: Bool = faces - seam < SEAM_DEPTH
        return out

    cols = np.arange(1, files) * px  # x of the seams between files
    rows = np.arange(1, ranks) * px
    # Between files: for every rank and seam, the profile along x, averaged along y.
    spans = light.reshape(ranks, px, -1)[:, a0:a1].mean(axis=1)  # (ranks, width)
    between_files = hidden(np.stack([spans[:, c - face:c + face] for c in cols], axis=1)) & ~(
        blown[:, :-1] & blown[:, 1:])
    spans = light.reshape(-1, files, px)[:, :, a0:a1].mean(axis=2)  # (height, files)
    between_ranks = hidden(np.stack([spans[r - face:r + face].T for r in rows], axis=0)) & ~(
        blown[:-1] & blown[1:])
    return between_files, between_ranks


def _edge_patch(between_files: Bool, between_ranks: Bool) -> bool:
    """Whether cells joined by hidden seams make a patch that has hidden seams of both
    directions and reaches the area's edge."""
    ranks, files = between_ranks.shape[0] + 1, between_files.shape[1] + 1
    # Cells at even positions of a finer grid, the seams between them at odd ones: a patch
    # is a 4-connected component of it.
    joined = np.zeros((2 * ranks - 1, 2 * files - 1), np.uint8)
    joined[::2, ::2] = 1
    joined[::2, 1::2] = between_files
    joined[1::2, ::2] = between_ranks
    label = cv2.connectedComponents(joined, connectivity=4)[1]
    edge = set(np.concatenate([label[0], label[-1], label[:, 0], label[:, -1]]).tolist())
    both = set(label[::2, 1::2][between_files].tolist()) & set(
        label[1::2, ::2][between_ranks].tolist())
    return bool(both & edge)


_FIT_PX = 12  # pixels per cell of the image the cube grid is fitted on
_FIT_MARGIN = 0.6
# Score (L units) lost per square cell of shift from the camera model. At a steep tilt the
# cubes' light sides make a grid a third of a cube off score well; the model is right
# within a tenth of a cell when the fov is, so moving far from it must be paid for.
_FIT_PRIOR = 80.0


def fit_top_grid(image: Image, model: Matrix, geometry: BoardGeometry) -> Matrix:
    """Refine the plane of a full grid of cube tops: the top faces' clean corners light,
    the seams between cubes dark.

    Seen from the camera, the plane at a height is the board plane scaled about the point
    under the camera, so the model's error is a scale and a shift: they are searched
    coarse to fine (a few tens of milliseconds, once per camera position).
    """
    w, h = geometry.files, geometry.ranks
    m = _FIT_MARGIN
    rect = (-m, -m, w + m, h + m)
    light = lab(warp_area(image, model, rect, _FIT_PX))[:, :, 0]
    centres = np.array([(f + 0.5, r + 0.5) for r in range(h) for f in range(w)])
    corner = np.array([(sx * 0.37, sy * 0.37) for sx in (-1, 1) for sy in (-1, 1)])
    # Seams are sampled all along: a cube's middle column also crosses dark marks (an O's
    # ring), but only in places.
    along = np.linspace(-0.42, 0.42, 7)
    seam = np.array([(sx * 0.5, t) for sx in (-1, 1) for t in along]
                    + [(t, sy * 0.5) for sy in (-1, 1) for t in along])
    corners = (centres[:, None] + corner[None]).reshape(-1, 2)
    seams = (centres[:, None] + seam[None]).reshape(-1, 2)
    middle = np.array([w / 2, h / 2])

    def score(tx: npt.NDArray[np.float64], ty: npt.NDArray[np.float64],
              s: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
        means = []
        for pts in (corners, seams):
            q = middle + s[..., None, None] * (pts - middle) + np.stack([tx, ty], -1)[..., None, :]
            col = ((q[..., 0] + m) * _FIT_PX - 0.5).astype(np.float32).reshape(-1, len(pts))
            row = ((q[..., 1] + m) * _FIT_PX - 0.5).astype(np.float32).reshape(-1, len(pts))
            v = cv2.remap(light, col, row, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
            means.append(v.reshape(*q.shape[:-1]).mean(axis=-1))
        out: npt.NDArray[np.float64] = (means[0] - means[1]).astype(np.float64)
        return out

    tx, ty, s = 0.0, 0.0, 1.0
    # The right fit is a sharp peak (a twentieth of a cell wide); a grid shifted by half a
    # cube scores nearly as well where the cubes' sides show at a tilt. So the coarse steps
    # are fine, and a shift away from the camera model costs a little.
    for step, scale_step, n in ((0.05, 0.02, 7), (0.0125, 0.01, 3), (0.00625, 0.005, 1)):
        shifts = np.arange(-n, n + 1) * step
        scales = np.arange(-3, 4) * scale_step
        gx, gy, gs = np.meshgrid(tx + shifts, ty + shifts, s + scales, indexing="ij")
        prior = _FIT_PRIOR * (gx * gx + gy * gy)
        best = np.unravel_index(int(np.argmax(score(gx, gy, gs) - prior)), gx.shape)
        tx, ty, s = float(gx[best]), float(gy[best]), float(gs[best])
    # Model-plane point p is seen at middle + s (p - middle) + t.
    refine = np.array([[s, 0, middle[0] * (1 - s) + tx], [0, s, middle[1] * (1 - s) + ty],
                       [0, 0, 1]])
    out: Matrix = np.asarray(model @ refine, np.float64)
    out /= out[2, 2]
    return out
