"""What every per-game reader shares: a top-down, white-balanced image of the playing area
-> cell tokens.

Every reader works on a float32 BGR image of the area, ``px`` pixels per cell, warped at
the ``height`` of the faces it reads (the plane of the pieces' tops), converted to Lab.
Each cell is a ``px`` x ``px`` block; its regions (a centre disc, an annulus, the four
corners, the quadrants) are fixed masks (:class:`Blocks`), so a whole board is read with a
few vectorised statistics. Features are compared with prototypes (:class:`Prototypes`):
each token's typical feature vector and spread. The defaults describe the nominal set of
BOARD.md under white-balanced light; a calibration (:mod:`vision.calibrate`) replaces them
with the colours of the real set in the real room.

The readers: :mod:`vision.discs` (morris, draughts), :mod:`vision.tesserae` (tessere),
:mod:`vision.cubes` (quixo), :mod:`vision.chips` (sequence-kids), :mod:`vision.tiles`
(quinque).

The confidence of a cell (0-1) is the margin between the best and the second-best
prototype in units of their spread, lowered when the best is far off (a hand, a foreign
object).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt

from .detect import Image, Matrix, lifted
from .geometry import BoardGeometry, geometry_for
from .light import Float, lab

__all__ = [
    "SKIPPED",
    "Blocks",
    "Bool",
    "Cells",
    "Confidence",
    "Prototypes",
    "Reader",
    "ceiling_tint",
    "cell_median",
]

Bool = npt.NDArray[np.bool_]
Cells = dict[str, str]
Confidence = dict[str, float]


# --------------------------------------------------------------------------- prototypes
@dataclass
class Prototypes:
    """Feature centres of named classes, with one spread per feature (the distance unit)."""

    names: list[str]
    centres: npt.NDArray[np.float64]  # (classes, features)
    spread: npt.NDArray[np.float64]  # (features,)

    @classmethod
    def of(cls, table: Mapping[str, Sequence[float]], spread: Sequence[float]) -> Prototypes:
        return cls(list(table), np.array(list(table.values()), np.float64),
                   np.array(spread, np.float64))

    def distances(self, x: npt.ArrayLike) -> npt.NDArray[np.float64]:
        """Scaled distances (n, classes) of feature rows ``x`` (n, features)."""
        d = (np.asarray(x, np.float64)[:, None, :] - self.centres[None]) / self.spread
        out: npt.NDArray[np.float64] = np.sqrt((d * d).sum(axis=2))
        return out

    def nearest(self, x: Float) -> npt.NDArray[np.intp]:
        """The index of the nearest class of each row (many rows: pixels), quickly."""
        scale = (1 / self.spread).astype(np.float32)
        rows = np.asarray(x, np.float32).reshape(-1, self.centres.shape[1]) * scale
        centres = (self.centres * (1 / self.spread)).astype(np.float32)
        # |x - c|^2 = |x|^2 - 2 x.c + |c|^2; |x|^2 is the same for every class.
        scores = rows @ (-2 * centres.T) + (centres * centres).sum(axis=1)
        out: npt.NDArray[np.intp] = np.argmin(scores, axis=1)
        return out

    def classify(self, x: npt.ArrayLike) -> tuple[list[str], npt.NDArray[np.float64]]:
        """The nearest class of each row and a confidence (0-1): the margin to the second
        nearest in spreads (2 or more: sure), lowered when even the nearest is far."""
        d = self.distances(x)
        order = np.argsort(d, axis=1)
        rows = np.arange(len(d))
        best, second = d[rows, order[:, 0]], d[rows, order[:, 1]]
        confidence = np.clip((second - best) / 2.0, 0, 1) * np.clip(4.0 / np.maximum(best, 1e-9),
                                                                      0, 1) ** 2
        return [self.names[i] for i in order[:, 0]], confidence

    def fitted(self, x: npt.ArrayLike, labels: Sequence[str]) -> Prototypes:
        """These prototypes with each class seen in ``labels`` moved to its rows' centre:
        the mean of the rows within 3 spreads of their median (robust: one odd cell, a
        glare spot or a piece misplaced, does not drag a colour away)."""
        x = np.asarray(x, np.float64)
        centres = self.centres.copy()
        for i, name in enumerate(self.names):
            rows = x[[k for k, label in enumerate(labels) if label == name]]
            if len(rows):
                median = np.median(rows, axis=0)
                near = np.sqrt((((rows - median) / self.spread) ** 2).sum(axis=1)) <= 3.0
                centres[i] = rows[near].mean(axis=0) if near.any() else median
        return Prototypes(list(self.names), centres, self.spread.copy())

    def to_dict(self) -> dict[str, Any]:
        return {"centres": {n: [round(float(v), 3) for v in c]
                            for n, c in zip(self.names, self.centres, strict=True)},
                "spread": [round(float(v), 4) for v in self.spread]}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Prototypes:
        return cls.of(d["centres"], d["spread"])


# --------------------------------------------------------------------------- cell blocks
# The label of a cell left out of a calibration's fit (no prototype has it).
SKIPPED = "?"


class Blocks:
    """A top-down area image cut into cells: ``px`` x ``px`` blocks and masks on them."""

    def __init__(self, px: int) -> None:
        self.px = px
        c = (np.arange(px) + 0.5) / px - 0.5
        self.u, self.v = np.meshgrid(c, c)  # cell-relative, -0.5 .. 0.5, v downwards
        self.r = np.hypot(self.u, self.v)
        self.angle = np.arctan2(self.v, self.u)

    def cut(self, image: Float, geometry: BoardGeometry, cells: Sequence[str]) -> Float:
        """(cells, px, px, channels) blocks of ``image`` (the area, origin at its top left)."""
        px = self.px
        ranks, files = geometry.ranks, geometry.files
        grid = image.reshape(ranks, px, files, px, -1).transpose(0, 2, 1, 3, 4)
        index = [geometry.position(c) for c in cells]
        rows = np.array([ranks - 1 - r for _, r in index])
        cols = np.array([f for f, _ in index])
        out: Float = grid[rows, cols]
        return out

    def ring(self, r0: float, r1: float) -> Bool:
        return (self.r >= r0) & (self.r < r1)

    def corners(self, lo: float, hi: float = 0.5) -> Bool:
        au, av = np.abs(self.u), np.abs(self.v)
        return (au >= lo) & (au < hi) & (av >= lo) & (av < hi)

    def sectors(self, r0: float, r1: float, n: int) -> list[Bool]:
        ring = self.ring(r0, r1)
        k = ((self.angle + np.pi) / (2 * np.pi) * n).astype(int) % n
        return [ring & (k == i) for i in range(n)]


class Rim:
    """Just inside and just outside a round piece's rim, in ``n`` directions: how clearly
    each cell shows a piece's outline. A disc steps in colour across its rim in (nearly)
    every direction; a flat blob of light, a shadow, the lines through a point or a
    picture's blob step in some directions only."""

    def __init__(self, blocks: Blocks, inside: tuple[float, float],
                 outside: tuple[float, float], n: int = 16) -> None:
        rings = blocks.sectors(*inside, n) + blocks.sectors(*outside, n)
        label = np.full(blocks.r.shape, len(rings))  # the last label: in neither ring
        for k, mask in enumerate(rings):
            label[mask] = k
        self._label = label.ravel()
        self._size = np.bincount(self._label, minlength=len(rings) + 1)

    def steps(self, blocks: Float) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
        """(outline, bluer) per cell of Lab ``blocks``: the colour step (Lab distance)
        from just inside to just outside that holds in three directions of four, and how
        much bluer (b) the inside is than the outside in three directions of four."""
        # Each sector's mean colour, all at once (a piece's top and the board are even).
        n, size = len(blocks), len(self._size)
        index = (np.arange(n)[:, None] * size + self._label[None]).ravel()
        pixels = blocks.reshape(-1, 3)
        means = np.stack([np.bincount(index, pixels[:, c], n * size).reshape(n, size)
                          for c in range(3)], axis=2) / self._size[None, :, None]
        inside, outside = np.split(means[:, :-1], 2, axis=1)
        step = np.linalg.norm(inside - outside, axis=2)
        outline: npt.NDArray[np.float64] = np.percentile(step, 25, axis=1).astype(np.float64)
        bluer: npt.NDArray[np.float64] = np.percentile(
            outside[..., 2] - inside[..., 2], 25, axis=1).astype(np.float64)
        return outline, bluer


CEILING = 93.0  # lightness (white-balanced: paper reads 92) of a spot blown out


def ceiling_tint(blocks: Float) -> Float:
    """The (a, b) of what is blown out to the sensor's ceiling in a picture (Lab cell
    blocks): its lightest pixels, if they are that light (else neutral). The white
    balance's gains tint a clipped white; a piece blown out whole reads that tint, not its
    colour."""
    light = blocks[..., 0].ravel()
    top = float(np.percentile(light, 99.5))
    if top < CEILING:
        return np.zeros(2, np.float32)
    out: Float = np.median(blocks[..., 1:].reshape(-1, 2)[light >= top - 1.0], axis=0)
    return out


def cell_median(blocks: Float, mask: Bool) -> Float:
    """Per-cell median colour over a mask: (cells, channels)."""
    out: Float = np.median(blocks[:, mask], axis=1)
    return out


# --------------------------------------------------------------------------- the base
class Reader:
    """Reads one game's cells. Subclasses set the class attributes and write
    :meth:`features`/:meth:`decide` (or override :meth:`read`).

    ``height``: cells above the board of the faces read; ``px``: pixels per cell of the
    warp. :meth:`calibrate` measures the prototypes on a frame of a known position and
    returns them as a JSON-able dict; :meth:`load` takes such a dict.
    """

    game: ClassVar[str]
    height: ClassVar[float] = 0.0
    px: ClassVar[int] = 32
    # Whether a lamp's reflection can only hide this game's pieces, never show one: a
    # blown-out spot is white, a Quixo mark a dark stroke and a Sequence chip a colour, so
    # a piece read surely there is one, and only an empty reading is doubted (a white
    # morris or draughts man is as white as the spot: every reading there is doubted).
    GLARE_HIDES_ONLY: ClassVar[bool] = False

    def __init__(self, players: int = 2, params: Mapping[str, Any] | None = None,
                 start: Mapping[str, str] | None = None) -> None:
        self.players = players
        self.geometry = geometry_for(self.game)
        self.cells: tuple[str, ...] = self.geometry.cells
        self.blocks = Blocks(self.px)
        if params:
            self.load(params)

    @property
    def rect(self) -> tuple[float, float, float, float]:
        """The board rectangle warped: the playing area."""
        return (0.0, 0.0, float(self.geometry.files), float(self.geometry.ranks))

    def planes(self, homography: Matrix, camera: Matrix, image: Image) -> list[Matrix]:
        """The homographies (board -> pixels) of the planes read: the pieces' tops."""
        return [lifted(homography, camera, self.height)]

    def cut(self, tops: Sequence[Float]) -> list[Float]:
        """Each plane's area image as Lab cell blocks (cells, px, px, 3)."""
        return [self.blocks.cut(lab(top), self.geometry, self.cells) for top in tops]

    def read(self, tops: Sequence[Float]) -> tuple[Cells, Confidence]:
        """Tokens and confidences of every cell, from white-balanced area images of the
        planes :meth:`planes` gave."""
        tokens, confidence = self.decide(self.cut(tops))
        return (dict(zip(self.cells, tokens, strict=True)),
                {c: float(p) for c, p in zip(self.cells, confidence, strict=True)})

    def arm_over(self, tops: Sequence[Float]) -> bool:
        """Whether the pieces themselves show an arm over the board, from the same area
        images as :meth:`read` (a set whose pieces always make one pattern: Quixo's grid
        of cubes); the rim's test is the rest's."""
        return False

    def decide(self, planes: list[Float]) -> tuple[list[str], npt.NDArray[np.float64]]:
        raise NotImplementedError

    def calibrate(self, tops: Sequence[Float], truth: Mapping[str, str],
                  skip: frozenset[str] = frozenset()) -> dict[str, Any]:
        """Fit this reader to a frame whose position is known; returns its parameters.
        The cells of ``skip`` are left out of the fit: a lamp's reflection blows them out
        (:meth:`~vision.classify.Recogniser.blown_cells`), so their colour is the light's,
        not the piece's."""
        raise NotImplementedError

    def load(self, params: Mapping[str, Any]) -> None:
        """Use parameters from :meth:`calibrate`."""
        raise NotImplementedError
