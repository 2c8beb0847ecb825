"""Per-game readers: a top-down, white-balanced image of the playing area -> cell tokens.

Every reader works on a float32 BGR image of the area, ``px`` pixels per cell, warped at
the ``height`` of the faces it reads (the plane of the pieces' tops), converted to Lab.
Each cell is a ``px`` x ``px`` block; its regions (a centre disc, an annulus, the four
corners, the quadrants) are fixed masks, so a whole board is read with a few vectorised
statistics. Features are compared with prototypes (:class:`Prototypes`): each token's
typical feature vector and spread. The defaults describe the nominal set of BOARD.md under
white-balanced light; a calibration (:mod:`vision.calibrate`) replaces them with the
colours of the real set in the real room.

- morris, draughts (:class:`DiscReader`): the colour of a ring inside the disc against the
  cell's own bare corners (light, dark, or the board itself), and the man's outline; a
  draughts king (two men stacked) reads as its colour, ``W`` or ``B``: the game knows its
  rank. Morris also reads the board's lines, which a man hides up to his rim.
- tessere (:class:`TessereReader`): each quadrant's median colour is a tessera of the
  nearest hue (R Y G B) when colourful and away from the board's print, a block when grey
  and dark; under a lamp's veil (lighter, paler, same hue) by its hue and what chroma a veil
  leaves; the token is the set of the four colours (RULES.md order), ``K`` for a block.
- quixo (:class:`QuixoReader`): dark marks on the light cube face, each pixel measured
  against the face right beside it (a glare lights a glossy face unevenly, and veils its
  marks to a faint step): a dark centre is an X, a dark ring with a light centre an O;
  with four players the darkest of the four dot spots gives the direction. Cube tops are
  almost a cell above the board, so their plane is fitted to the picture (the grid of
  light faces between dark seams), not only computed from the camera model.
- sequence-kids (:class:`ChipReader`): a chip is a disc of one uniform colour; an animal
  picture is not. Eight sectors of a ring and the centre must agree, and their colour must
  be a chip colour. With a calibration, each cell's bare picture is known too.

The confidence of a cell (0-1) is the margin between the best and the second-best
prototype in units of their spread, lowered when the best is far off (a hand, a foreign
object).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import cv2
import numpy as np
import numpy.typing as npt

from .detect import Image, Matrix, lifted, warp_area
from .geometry import BoardGeometry, geometry_for
from .light import SHADE, Float, lab, shade_free

__all__ = [
    "ChipReader",
    "DiscReader",
    "DraughtsReader",
    "MorrisReader",
    "Prototypes",
    "QuixoReader",
    "Reader",
    "TessereReader",
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


def _median(blocks: Float, mask: Bool) -> Float:
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

    def decide(self, planes: list[Float]) -> tuple[list[str], npt.NDArray[np.float64]]:
        raise NotImplementedError

    def calibrate(self, tops: Sequence[Float], truth: Mapping[str, str]) -> dict[str, Any]:
        """Fit this reader to a frame whose position is known; returns its parameters."""
        raise NotImplementedError

    def load(self, params: Mapping[str, Any]) -> None:
        """Use parameters from :meth:`calibrate`."""
        raise NotImplementedError


# --------------------------------------------------------------------------- discs
class DiscReader(Reader):
    """Morris and draughts: light and dark discs (a draughts king reads as its colour).

    The disc's middle is compared with the cell's own bare corners (the prototypes), and
    these cues hold where that step shrinks: under a veil of reflected light on the
    varnish, on a blown-out spot, or with glossy tops mirroring the room.

    - a lamp's reflection on the varnish is a blob as white as a white man; where its
      edge crosses a cell's middle, part of the middle is blown out and part is far
      darker, the bare wood. A man's top is not cut so (a glossy top's highlight fades
      into the man's own colour, not to the board's), so such a middle holds no man;

    - men are grey or white while the board is coloured wood, so a man takes most of its
      cell's colour away (a black man mirroring a light ceiling still does);
    - a white man is as white as the markers' paper;
    - a disc neither as white as paper nor clearly lighter than its cell is black (a
      glossy black top mirroring the room reads as light as its cell, but not white);
    - on a light board, a middle far darker than the bare cell is a black man, whatever
      its colour (a lamp's reflection on its gloss tints it);
    - a man is a disc: just inside its rim and just outside it the colours differ in
      (nearly) every direction, also where a veil of light took the board's colour and
      the cues above go blind. A blob of light, a shadow or the lines through a point
      step in some directions only. A middle so outlined is no reflection's edge either;
    - a white man is white all over its top and neutral or cream, as the paper is under
      the same light; a glossy black top mirrors the room: bluish, or blown out by the
      lamp's highlight in part and grey in the rest (a white man in a shadow is dimmer
      all over, and stays lighter than its cell).
    """

    height = 0.15  # a disc's top
    # The disc's middle minus the cell's bare corners, in Lab: the board reads (0, 0, 0)
    # whatever the light, a light or dark disc reads lighter or darker and greyer.
    DEFAULT: ClassVar[dict[str, tuple[float, float, float]]] = {}
    SPREAD: ClassVar[tuple[float, float, float]] = (9.0, 5.0, 5.0)
    WOOD_CHROMA: ClassVar[float] = 5.0  # a bare cell at least this colourful shows the chroma cue
    GREY = 0.45  # a disc's middle with at most this share of its cell's chroma is a man
    WHITE = 86.0  # lightness (white-balanced: paper reads 92) a man above is white
    WHITE_STEP: ClassVar[float] = 15.0  # ... when also this much lighter than its cell
    NOT_WHITE = 87.0  # a disc read white but darker than this (a white man in a shadow
    LIGHTER = 5.0  # may be) and not this much lighter than its cell is black
    DARK_STEP: ClassVar[float] = 99.0  # a middle this much darker than its bare cell is black
    BLOWN = 90.0  # a sector of the middle this light (white-balanced) is blown out ...
    CUT = 15.0  # ... and when another is this much darker, a reflection's edge crosses it
    CUT_BARE = 5.0  # ... if that one is no lighter than this above the bare cell (wood)
    # Lab distance across a man's rim in three directions of four: a man stands there (a
    # bare cell's two rings differ by 7 at most on the 3D set, by sensor noise and grain).
    EDGE = 8.0
    BLUE = 4.0  # a top this much bluer than paper (b below -BLUE) is a glossy black one

    def __init__(self, players: int = 2, params: Mapping[str, Any] | None = None,
                 start: Mapping[str, str] | None = None) -> None:
        self.prototypes = Prototypes.of(self.DEFAULT, self.SPREAD)
        super().__init__(players, params, start)
        b = self.blocks
        self._rim = b.ring(0.0, 0.3)
        self._bare = b.ring(0.58, 0.8) & b.corners(0.3)
        self._sectors = b.sectors(0.05, 0.25, 8)
        # Just inside and just outside a man's rim (radius 0.4, placed within 0.05 of the
        # point), in sixteen directions.
        rings = b.sectors(0.2, 0.28, 16) + b.sectors(0.46, 0.5, 16)
        label = np.full(b.r.shape, len(rings))  # the last label: in neither ring
        for k, mask in enumerate(rings):
            label[mask] = k
        self._ring_label = label.ravel()
        self._ring_size = np.bincount(self._ring_label, minlength=len(rings) + 1)
        self.kings = self.game == "draughts"

    def features(self, blocks: Float) -> npt.NDArray[np.float64]:
        rim = _median(blocks, self._rim)
        bare = _median(blocks, self._bare)
        return (rim - bare).astype(np.float64)

    def planes(self, homography: Matrix, camera: Matrix, image: Image) -> list[Matrix]:
        """Men's tops; for draughts also kings' (a double stack, twice as high)."""
        tops = [lifted(homography, camera, self.height)]
        if self.kings:
            tops.append(lifted(homography, camera, 2 * self.height))
        return tops

    def decide(self, planes: list[Float]) -> tuple[list[str], npt.NDArray[np.float64]]:
        tokens, confidence, _ = self._colours(planes[0])
        if not self.kings:
            return tokens, confidence
        # A king is two men stacked (BOARD.md: no printed crown), its top twice as high:
        # at a tilt it is seen away from a man's. Read the colour on both planes and keep
        # the surer reading. The rank is not read: the game knows which men are kings, and
        # a misread crown must never become a mismatch (docs/vision.md, "Kings").
        high, sure, _ = self._colours(planes[1], fill=False)
        for i in range(len(tokens)):
            if high[i] and sure[i] > confidence[i]:
                tokens[i], confidence[i] = high[i], sure[i]
        return tokens, confidence

    def _colours(self, blocks: Float, fill: bool = True
                 ) -> tuple[list[str], npt.NDArray[np.float64], npt.NDArray[np.float64]]:
        """Each cell's disc colour on one plane: the prototypes, then the cues. ``fill``:
        also look for a man in the cells read as empty (the men's plane; on the kings'
        plane the cues would find a man's shifted top as a cell of its own). Also each
        cell's darkness: above 0, a man there is black (below: white)."""
        tokens, confidence = self.prototypes.classify(self.features(blocks))
        middle, bare = _median(blocks, self._rim), _median(blocks, self._bare)
        # How much of the cell's own colour the middle keeps: its colour along the bare
        # cell's hue (a veil or a shadow shrinks the wood's colour but keeps its hue; a
        # grey man, or a black one mirroring a bluish room, has none of it).
        chroma_bare = np.hypot(bare[:, 1], bare[:, 2])
        along = (middle[:, 1:] * bare[:, 1:]).sum(axis=1) / np.maximum(chroma_bare, 1e-6)
        share = (np.maximum(along, 0) + 1) / (chroma_bare + 1)
        grey = np.where(chroma_bare >= self.WOOD_CHROMA, (self.GREY - share) / 0.2, -1.0)
        white = np.minimum(middle[:, 0] - self.WHITE, middle[:, 0] - bare[:, 0] - self.WHITE_STEP)
        sectors = np.stack([np.median(blocks[:, m, 0], axis=1) for m in self._sectors], axis=1)
        top, low = sectors.max(axis=1), sectors.min(axis=1)
        outline = self._outline(blocks)
        # (A man's outline all around the middle is no reflection's edge across it.)
        cut = np.minimum.reduce([top - self.BLOWN, top - low - self.CUT,
                                 bare[:, 0] + self.CUT_BARE - low, self.EDGE - outline])
        # A white man's top is white all over and neutral or cream (the paper's light);
        # a glossy black one mirrors the room: bluish, or blown out by the lamp's highlight
        # in part and grey in the rest. A white man in a shadow is dimmer all over, but
        # still lighter than its cell.
        whiteness = np.minimum(low - self.NOT_WHITE, middle[:, 2] + self.BLUE)
        lighter = bare[:, 0] + self.LIGHTER
        dimmer = np.maximum.reduce([
            np.minimum(self.NOT_WHITE - middle[:, 0], lighter - middle[:, 0]),
            -self.BLUE - middle[:, 2],
            np.minimum.reduce([top - self.BLOWN, self.NOT_WHITE - low, lighter - low])])
        for i, token in enumerate(tokens):
            if cut[i] > 0:
                tokens[i], confidence[i] = "", float(np.clip(cut[i] / 5, 0, 1))
                continue
            if token == "W" and dimmer[i] > 0:
                tokens[i] = "B"
                confidence[i] = min(float(confidence[i]), float(np.clip(dimmer[i] / 5, 0, 1)))
            elif token == "B" and whiteness[i] > 0:
                tokens[i] = "W"
                confidence[i] = min(float(confidence[i]), float(np.clip(whiteness[i] / 5, 0, 1)))
            if token or not fill:
                continue
            step = bare[i, 0] - middle[i, 0]
            if step > self.DARK_STEP:  # darker than the board's own marks make a cell
                tokens[i] = "B"
                confidence[i] = float(np.clip((step - self.DARK_STEP) / 5, 0, 1))
            elif white[i] > 0:  # white on a veiled square: lighter than any bare wood
                tokens[i], confidence[i] = "W", float(np.clip(white[i] / 5, 0, 1))
            elif grey[i] > 0:  # the square's colour is gone: a man stands there
                light = middle[i, 0] - self.WHITE
                tokens[i] = "W" if light > 0 else "B"
                confidence[i] = float(min(np.clip(grey[i], 0, 1), np.clip(abs(light) / 5, 0, 1)))
            elif outline[i] > self.EDGE and chroma_bare[i] < self.WOOD_CHROMA:
                # A veil took the cell's colour (the grey cue is blind), not a man's rim.
                tokens[i] = "B" if dimmer[i] > 0 else "W"
                confidence[i] = float(min(np.clip((outline[i] - self.EDGE) / 5, 0, 1),
                                          np.clip(abs(dimmer[i]) / 5, 0, 1)))
        return tokens, confidence, dimmer.astype(np.float64)

    def _outline(self, blocks: Float) -> npt.NDArray[np.float64]:
        """How clearly each cell shows a man's outline: the colour step (Lab distance) from
        just inside a man's rim to just outside it that holds in three directions of four.
        A flat blob of light or a shadow steps in some directions only; lines through a
        point cross both rings alike."""
        # Each sector's mean colour, all at once (a man's top and the wood are even).
        n, size = len(blocks), len(self._ring_size)
        index = (np.arange(n)[:, None] * size + self._ring_label[None]).ravel()
        pixels = blocks.reshape(-1, 3)
        means = np.stack([np.bincount(index, pixels[:, c], n * size).reshape(n, size)
                          for c in range(3)], axis=2) / self._ring_size[None, :, None]
        inside, outside = np.split(means[:, :-1], 2, axis=1)
        step = np.linalg.norm(inside - outside, axis=2)
        out: npt.NDArray[np.float64] = np.percentile(step, 25, axis=1).astype(np.float64)
        return out

    def calibrate(self, tops: Sequence[Float], truth: Mapping[str, str]) -> dict[str, Any]:
        blocks = self.cut(tops)[0]
        labels = [truth.get(c, "")[:1] for c in self.cells]
        self.prototypes = self.prototypes.fitted(self.features(blocks), labels)
        return {"prototypes": self.prototypes.to_dict()}

    def load(self, params: Mapping[str, Any]) -> None:
        self.prototypes = Prototypes.from_dict(params["prototypes"])


class MorrisReader(DiscReader):
    """Morris: discs on the points of a light wooden board, where lines meet."""

    game = "morris"
    DEFAULT: ClassVar[dict[str, tuple[float, float, float]]] = {
        "": (-1.5, -0.8, -1.3), "W": (27.0, -7.3, -15.0), "B": (-48.0, -4.3, -25.5)}
    # The light board pales to a glare's white in places: the middle of a lamp's blob on
    # a point is white and its corners keep some yellow (up to 8), as a white man's do.
    WOOD_CHROMA = 9.0
    # The lines and the dot at a point darken an empty point's middle by 15 at most.
    DARK_STEP = 22.0
    LINES = 5.0  # two arms this much darker than beside them in the middle: no man there
    HIDDEN = 2.0  # every arm less than this in the middle ...
    RUN_ON = 8.0  # ... and two arms this clear beyond a man's rim: a man covers the point

    def __init__(self, players: int = 2, params: Mapping[str, Any] | None = None,
                 start: Mapping[str, str] | None = None) -> None:
        super().__init__(players, params, start)
        b = self.blocks
        # The board's lines leave a point along the axes. For each direction, the line's
        # strip and the wood beside it, under a man (inside) and beyond his rim (outside).
        self._arms: list[tuple[Bool, Bool, Bool, Bool]] = []
        for along, across in ((b.u, b.v), (-b.v, b.u), (-b.u, -b.v), (b.v, -b.u)):
            line, beside = np.abs(across) < 0.04, (np.abs(across) > 0.09) & (np.abs(across) < 0.16)
            inside, outside = (along >= 0.14) & (along < 0.3), (along >= 0.42) & (along < 0.5)
            self._arms.append((inside & line, inside & beside, outside & line, outside & beside))

    def planes(self, homography: Matrix, camera: Matrix, image: Image) -> list[Matrix]:
        """Men's tops, and the board itself (its lines)."""
        return [lifted(homography, camera, self.height), homography]

    def decide(self, planes: list[Float]) -> tuple[list[str], npt.NDArray[np.float64]]:
        """The discs' colours on the men's plane (:meth:`DiscReader.decide`), then the
        lines on the board's: a man stands on his point and hides its lines as far as his
        rim, where they run on; a lamp's blob on a bare point veils them at most."""
        tokens, confidence, darkness = self._colours(planes[0])
        inside, outside = self._lines(planes[1])
        shown = np.sort(inside, axis=1)[:, -2]  # every point has two arms at least
        beyond = np.sort(outside, axis=1)[:, -2]
        hidden = np.minimum(self.HIDDEN - inside.max(axis=1), beyond - self.RUN_ON)
        for i, token in enumerate(tokens):
            if token and shown[i] > self.LINES:
                tokens[i], confidence[i] = "", float(np.clip((shown[i] - self.LINES) / 5, 0, 1))
            elif not token and hidden[i] > 0:
                tokens[i] = "B" if darkness[i] > 0 else "W"
                confidence[i] = float(min(np.clip(hidden[i] / 2, 0, 1),
                                          np.clip(abs(darkness[i]) / 5, 0, 1)))
        return tokens, confidence

    def _lines(self, blocks: Float) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
        """How much darker than the wood beside it each arm's line is: (cells, 4) inside
        a man's rim and (cells, 4) beyond it."""
        light = blocks[..., 0].astype(np.float64)

        def darker(line: Bool, beside: Bool) -> npt.NDArray[np.float64]:
            out: npt.NDArray[np.float64] = (np.median(light[:, beside], axis=1)
                                            - np.median(light[:, line], axis=1))
            return out

        inside = [darker(line, beside) for line, beside, _, _ in self._arms]
        outside = [darker(line, beside) for _, _, line, beside in self._arms]
        return np.stack(inside, axis=1), np.stack(outside, axis=1)


class DraughtsReader(DiscReader):
    """Draughts: men and kings on the dark squares."""

    game = "draughts"
    DEFAULT: ClassVar[dict[str, tuple[float, float, float]]] = {
        "": (0.0, 1.6, 0.4), "W": (56.0, -12.6, -13.0), "B": (-18.0, -9.4, -23.0)}
    # A dark square paled by a lamp's reflection reads as light as paper at most where
    # its corners do; a white man on it is a little lighter still.
    WHITE_STEP = 5.0


# --------------------------------------------------------------------------- tessere
class TessereReader(Reader):
    """tessere: four tesserae per checker; the token is their colour set."""

    game = "tessere"
    height = 0.12
    COLOURS: ClassVar[dict[str, tuple[float, float, float]]] = {
        # Lab of the nominal set; "board" and "grout" are what is not a tessera
        "R": (45.0, 62.0, 42.0),
        "Y": (82.0, 0.0, 78.0),
        "G": (56.0, -48.0, 44.0),
        "B": (42.0, 12.0, -50.0),
        "K": (13.0, 0.0, 0.0),
        "board": (84.0, 5.0, 20.0),
        "grout": (81.0, -1.0, 1.0),
    }
    # in shade-free Lab (vision.light.shade_free): lightness counts less than colour
    SPREAD: ClassVar[tuple[float, float, float]] = (22.0, 7.0, 7.0)
    AWAY = 14.0  # a colour this far (a, b) from the bare board's ...
    GREY = 12.0  # ... and at least this chromatic is a tessera
    DARK = 0.75  # of the way from K's lightness to the board's: darker is a block, surely
    SURE_DARK = 0.5  # ... if darker than this (between: a glossy block, or a grey coin)
    BLOWN = 92.0  # a grey this light is a glare (white balance puts paper at 92)
    BLOWN_CHROMA = 6.0
    # A lamp's reflection on a glossy tile adds white light: lightness goes up and chroma
    # down towards white (L 100), the hue stays. Under such a veil a quadrant is a tessera
    # of its hue when that hue is far from the board's (red, green, blue: the board's print
    # is yellowish however veiled) and it keeps at least half the chroma its colour keeps
    # when lightened that much (a bluish grey block mirroring the sky keeps far less).
    VEIL_HUE = 40.0  # degrees off the board's hue
    VEIL_SHARE = 0.5
    FAINT = 4.0  # the least chroma read as a colour (sensor noise and JPEG give 2-3)
    # A block is grey; the board's print keeps some yellow until a veil makes it white.
    # So a grey short of white with less yellow than this is a block under a veil.
    BLOCK_TINT = 3.0
    BLOCK_VEILED = 91.0  # ... if darker than this (near white the board's yellow is gone)
    VEILED_SURE = 0.45  # a veiled quadrant is a guess: its cell stays uncertain
    YELLOWER = 6.0  # chroma by which a yellow tessera is clearly more yellow than the print

    def __init__(self, players: int = 2, params: Mapping[str, Any] | None = None,
                 start: Mapping[str, str] | None = None) -> None:
        nominal = shade_free(np.array(list(self.COLOURS.values()), np.float32))
        self.colours = Prototypes.of(dict(zip(self.COLOURS, nominal.tolist(), strict=True)),
                                     self.SPREAD)
        super().__init__(players, params, start)
        b = self.blocks
        au, av = np.abs(b.u), np.abs(b.v)
        inner = (au >= 0.07) & (au < 0.36) & (av >= 0.07) & (av < 0.36)
        self._quadrants = [inner & (np.sign(b.u) == su) & (np.sign(b.v) == sv)
                           for su, sv in ((-1, -1), (1, -1), (1, 1), (-1, 1))]

    def cut(self, tops: Sequence[Float]) -> list[Float]:
        """Cell blocks in shade-free Lab (pixels are compared with colours, not shades)."""
        return [shade_free(b) for b in super().cut(tops)]

    def quadrants(self, blocks: Float) -> Float:
        """(cells, 4, 3): each quadrant's median in plain Lab (L, a, b)."""
        out = np.stack([np.median(blocks[:, m], axis=1) for m in self._quadrants], axis=1)
        out[..., 1:] *= (out[..., :1] + SHADE) / 60.0  # undo shade_free: plain a, b
        result: Float = out.astype(np.float32)
        return result

    def _hues(self) -> tuple[list[str], npt.NDArray[np.float64], Float, float, float]:
        """The tesserae colours' names and hues (degrees), the board's (a, b), and
        the lightness under which a grey is a block, and surely one; from the prototypes
        (nominal or calibrated)."""
        c = self.colours.centres.copy()
        c[:, 1:] *= (c[:, :1] + SHADE) / 60.0
        index = {n: i for i, n in enumerate(self.colours.names)}
        names = [n for n in "RYGB" if n in index]
        hues = np.array([np.degrees(np.arctan2(c[index[n], 2], c[index[n], 1])) for n in names])
        board = c[index["board"]]
        k_light = c[index["K"], 0]
        dark, sure_dark = (k_light + share * (board[0] - k_light)
                           for share in (self.DARK, self.SURE_DARK))
        return names, hues, board[1:].astype(np.float32), float(dark), float(sure_dark)

    def decide(self, planes: list[Float]) -> tuple[list[str], npt.NDArray[np.float64]]:
        """Each quadrant by its colour's hue and chroma (:meth:`quadrant_tokens`); the
        token is the set of the tesserae's colours, ``K`` for a block."""
        q = self.quadrants(planes[0])
        plain = planes[0].copy()  # the blocks are shade-free: plain a, b for the tint
        plain[..., 1:] *= (plain[..., :1] + SHADE) / 60.0
        kinds, sure = self.quadrant_tokens(q.reshape(-1, 3), ceiling_tint(plain))
        kinds = kinds.reshape(len(q), 4)
        sure = sure.reshape(len(q), 4)
        names, hues, _, _, _ = self._hues()
        hue = np.degrees(np.arctan2(q[..., 2], q[..., 1]))
        gap = np.abs((hue[..., None] - hues + 180) % 360 - 180)
        chroma = np.hypot(q[..., 1], q[..., 2])
        yellowish = (np.array(names)[np.argmin(gap, axis=-1)] == "Y") & (chroma >= self.FAINT)
        tokens: list[str] = []
        confidence = np.ones(len(q))
        for i in range(len(q)):
            colours_seen = sum(k in "RYGB" for k in kinds[i])
            if colours_seen:
                # A veiled grey beside tesserae is a veiled tessera, not a block (a block is
                # grey all over): nothing to read there.
                kinds[i][kinds[i] == "k"] = "blown"
            else:
                kinds[i][kinds[i] == "k"] = "K"
            pale = (kinds[i] == "board") & yellowish[i]
            if colours_seen >= 2 and pale.any() and not any(k in "RGB" for k in kinds[i]):
                # Yellow tesserae alone prove a checker only if clearly more yellow than
                # the print beside them (a warm light makes the print as yellow as a pale
                # yellow tessera).
                yellow = chroma[i][kinds[i] == "Y"].min() if "Y" in kinds[i] else 0.0
                pale &= yellow >= chroma[i][pale].max() + self.YELLOWER
            if colours_seen >= 2:
                # Inside a checker there is no board: beside two tesserae, a quadrant read as
                # the board's yellowish print is a yellow tessera paled by a veil.
                kinds[i][pale] = "Y"
                sure[i][pale] = self.VEILED_SURE
            tile = [k for k in kinds[i] if k not in ("board", "blown")]
            board = int((kinds[i] == "board").sum())
            # A blown-out quadrant hides what is under it: with no bare board in sight, the
            # tesserae that can be seen are the checker's (doubted, as a colour may hide).
            if len(tile) >= 3 or (len(tile) == 2 and board == 0) or (
                    board == 0 and colours_seen >= 1):
                colours = set(tile)
                rest = [s for k, s in zip(kinds[i], sure[i], strict=True) if k in colours]
                # A quadrant not read as a tessera may hide a colour of the checker.
                confidence[i] = min(rest) * (1.0 if len(tile) == 4 else 0.3)
                if "K" in colours:
                    if colours != {"K"}:
                        confidence[i] = 0.0
                    tokens.append("K")
                else:
                    tokens.append("".join(c for c in "RYGB" if c in colours))
            else:
                tokens.append("")
                bare = [s for k, s in zip(kinds[i], sure[i], strict=True) if k == "board"]
                # Empty only if it looks like the bare board (a blown-out glare, a coin or a
                # finger is something else: unsure).
                confidence[i] = (min(bare) if board >= 3 and not tile else 0.3 * min(bare)
                                 if board >= 2 else 0.0)
        return tokens, confidence

    def quadrant_tokens(self, q: Float, tint: Float | None = None
                        ) -> tuple[npt.NDArray[np.str_], npt.NDArray[np.float64]]:
        """Each quadrant colour (plain Lab rows) -> ``R Y G B K``, ``board``, ``blown`` (a
        glare: nothing to read) or ``k`` (a light grey: a block under a veil if its whole
        cell is grey), with a confidence 0-1. ``tint``: the (a, b) a spot blown out to the
        sensor's ceiling reads in this picture (:func:`ceiling_tint`).

        A lamp's reflection on a glossy tessera adds white light to its colour: lightness
        goes up and chroma down, but the hue stays. So a colour clearly away from the bare
        board's and not grey is a tessera of the nearest hue, however pale; a grey darker
        than the board is a block (``K``)."""
        names, hues, board_ab, dark, sure_dark = self._hues()
        chroma = np.hypot(q[:, 1], q[:, 2])
        away = np.hypot(q[:, 1] - board_ab[0], q[:, 2] - board_ab[1])
        # > 0: a tessera's colour (away from the board's, and colourful)
        colour = np.minimum(away - self.AWAY, chroma - self.GREY)
        hue = np.degrees(np.arctan2(q[:, 2], q[:, 1]))
        gap = np.abs((hue[:, None] - hues[None, :] + 180) % 360 - 180)
        order = np.argsort(gap, axis=1)
        rows = np.arange(len(q))
        nearest, second = gap[rows, order[:, 0]], gap[rows, order[:, 1]]
        kinds = np.full(len(q), "board", dtype="<U5")
        sure = np.ones(len(q))
        # A block's own colour (a calibrated set's may be tinted) is a block's, not a tile's.
        # Compared shade-free (vision.light.shade_free): a deep shadow on the bare board
        # shrinks its colour towards a grey, but keeps its ratio to the lightness.
        free = shade_free(q)[:, 1:]
        to = np.linalg.norm(free[:, None] - self.colours.centres[None, :, 1:], axis=2)
        k = self.colours.names.index("K")
        like_block = (q[:, 0] < dark) & (to[:, k] < self.AWAY) & (np.argmin(to, axis=1) == k)
        tile = (colour >= 0) & ~like_block
        kinds[tile] = np.array(names)[order[tile, 0]]
        sure[tile] = np.minimum(np.clip(colour[tile] / 6, 0, 1),
                                np.clip((second[tile] - nearest[tile]) / 30, 0, 1))
        veiled = ~tile & ~like_block & self._veiled(q, names, hue, order[:, 0])
        if tint is not None:  # the ceiling's tint is no tessera's colour
            veiled &= np.hypot(q[:, 1] - tint[0], q[:, 2] - tint[1]) >= self.FAINT
        kinds[veiled] = np.array(names)[order[veiled, 0]]
        sure[veiled] = self.VEILED_SURE * np.clip((chroma[veiled] - self.FAINT) / 3, 0, 1)
        tile |= veiled
        grey = ~tile
        # A block is grey, or (glossy, mirroring the sky) off the board's colour; a shadow
        # on the bare board darkens it but keeps its colour. Under a veil it is a light grey
        # with no yellow in it: the board keeps some until it is near white.
        board_dir = board_ab / max(float(np.hypot(*board_ab)), 1e-6)
        yellow = q[:, 1:] @ board_dir  # along the print's hue
        pale_block = (q[:, 0] >= dark) & (q[:, 0] < self.BLOCK_VEILED) & (
            yellow < self.BLOCK_TINT) & (chroma < self.GREY)
        block = grey & (((q[:, 0] < dark) & (like_block | (away >= self.AWAY))) | pale_block)
        kinds[block] = np.where(pale_block[block], "k", "K")
        pale_sure = self.VEILED_SURE * np.clip((self.BLOCK_TINT - yellow[block]) / 2, 0, 1)
        dark_sure = np.clip((sure_dark - q[block, 0]) / 8, 0, 1)
        sure[block] = np.where(pale_block[block], pale_sure, dark_sure)
        blown = grey & ~block & (q[:, 0] >= self.BLOWN) & (chroma < self.BLOWN_CHROMA)
        kinds[blown] = "blown"
        sure[blown] = 0.0
        bare = grey & ~block & ~blown
        sure[bare] = np.clip(-colour[bare] / 6, 0, 1)
        return kinds, sure

    def _veiled(self, q: Float, names: list[str], hue: npt.NDArray[np.float64],
                nearest: npt.NDArray[np.intp]) -> npt.NDArray[np.bool_]:
        """Quadrants (plain Lab rows) that are a tessera paled by a lamp's reflection: of a
        hue far from the board's, and as colourful as the tessera of that hue (``nearest``:
        index into ``names``) stays when a veil lightens it to the quadrant's lightness."""
        c = self.colours.centres.copy()
        c[:, 1:] *= (c[:, :1] + SHADE) / 60.0
        index = {n: i for i, n in enumerate(self.colours.names)}
        board = c[index["board"]]
        board_hue = np.degrees(np.arctan2(board[2], board[1]))
        off = np.abs((hue - board_hue + 180) % 360 - 180) >= self.VEIL_HUE
        own = c[[index[n] for n in names]]  # the tesserae colours, in ``names`` order
        light, colourful = own[:, 0], np.hypot(own[:, 1], own[:, 2])
        # A veil lightening a colour from L to 100 takes its chroma from C to 0.
        kept = colourful[nearest] * np.clip((100.0 - q[:, 0]) / (100.0 - light[nearest]), 0, 1)
        chroma = np.hypot(q[:, 1], q[:, 2])
        out: npt.NDArray[np.bool_] = off & (chroma >= self.FAINT) & (
            chroma >= self.VEIL_SHARE * kept) & (q[:, 0] > light[nearest])  # a veil lightens
        return out

    def calibrate(self, tops: Sequence[Float], truth: Mapping[str, str]) -> dict[str, Any]:
        blocks = self.cut(tops)[0]
        # Each known colour: pixels of cells holding only that colour, near the middle of
        # a quadrant; the board: empty cells.
        inner = np.zeros_like(self._quadrants[0])
        for m in self._quadrants:
            inner |= m
        rows: list[Float] = []
        labels: list[str] = []
        for i, cell in enumerate(self.cells):
            token = truth.get(cell, "")
            name = "board" if not token else token if len(token) == 1 else None
            if name is None:
                continue
            rows.append(np.median(blocks[i][inner], axis=0)[None])
            labels.append(name)
        if rows:
            self.colours = self.colours.fitted(np.concatenate(rows), labels)
        return {"colours": self.colours.to_dict()}

    def load(self, params: Mapping[str, Any]) -> None:
        self.colours = Prototypes.from_dict(params["colours"])


# --------------------------------------------------------------------------- quixo
class QuixoReader(Reader):
    """Quixo: blank, O or X on the cube's top face; with four players, the dot too."""

    game = "quixo"
    height = 0.92  # a cube's top
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

    def _dark(self, blocks: Float) -> Bool:
        # Against the face right beside each pixel, not the whole face's level: a lamp's
        # reflection lights a glossy face unevenly (a glare's edge, a gradient).
        light = np.ascontiguousarray(blocks[..., 0])
        near = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (self.NEAR, self.NEAR))
        step = np.stack([cv2.morphologyEx(cv2.blur(cell, (3, 3)), cv2.MORPH_CLOSE, near)
                         for cell in light]) - light
        # The face's own texture (wood grain, noise): a mark and the seams a cube pushed
        # aside shows cover less than two fifths of the face.
        texture = np.percentile(step[:, self._face], 60, axis=1)
        least = np.clip(self.TEXTURE * texture, self.NOISE_STEP, self.MARK_STEP)
        # A blurred stroke's skirts are a little darker than the face too: the stroke is
        # where it is at least half as deep as its core (its width whatever the blur).
        width = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (self.STROKE, self.STROKE))
        depth = np.stack([cv2.dilate(cell, width) for cell in step])
        dark: Bool = (step > least[:, None, None]) & (step > 0.5 * depth)
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

    def calibrate(self, tops: Sequence[Float], truth: Mapping[str, str]) -> dict[str, Any]:
        blocks = self.cut(tops)[0]
        labels = [truth.get(c, ".")[:1] or "." for c in self.cells]
        self.prototypes = self.prototypes.fitted(self.features(blocks), labels)
        return {"prototypes": self.prototypes.to_dict()}

    def load(self, params: Mapping[str, Any]) -> None:
        self.prototypes = Prototypes.from_dict(params["prototypes"])


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


# --------------------------------------------------------------------------- sequence
class ChipReader(Reader):
    """sequence-kids: R Y B G chips over busy animal pictures; the free corners are ''."""

    game = "sequence-kids"
    height = 0.06
    COLOURS: ClassVar[dict[str, tuple[float, float, float]]] = {
        "R": (45.0, 63.0, 43.0),
        "Y": (83.0, -5.0, 80.0),
        "B": (46.0, 10.0, -50.0),
        "G": (58.0, -48.0, 45.0),
    }
    SPREAD: ClassVar[tuple[float, float, float]] = (20.0, 9.0, 9.0)
    UNIFORM = 0.87  # the share of a cell's middle a chip's colour covers at least
    NEAR = 4.8  # the largest distance (in spreads) of a chip's colour from its prototype
    FREE = ("a1", "f1", "a7", "f7")
    PALE_CHROMA = 25.0  # a uniform middle this colourful is a chip, however pale ...
    HUE_MARGIN = 10.0  # ... if its hue is this much nearer one chip colour than the next
    # A middle this colourful is a chip too (sensor noise and JPEG leave a white a chroma
    # of 2-5), and this far from the colour of a spot blown out to the sensor's ceiling
    # (white-balanced, that has a tint of its own) ...
    FAINT_CHROMA = 8.0
    FAINT_LIGHT = 75.0  # ... if this light (a veil of white light lightens what it pales) ...
    FAINT_SHARE = 0.97  # ... and one colour over this much of it
    # The lightness of a chip's middle parts varies only with the shading and a veil's
    # gradient across it (20 at most in the 3D set); a picture's blobs differ by 50.
    LIGHT_SPREAD = 30.0

    def __init__(self, players: int = 2, params: Mapping[str, Any] | None = None,
                 start: Mapping[str, str] | None = None) -> None:
        self.colours = Prototypes.of(self.COLOURS, self.SPREAD)
        self.bare: dict[str, list[list[float]]] = {}  # cell -> bare picture's part colours
        super().__init__(players, params, start)
        b = self.blocks
        self._parts = [b.ring(0.0, 0.09), *b.sectors(0.1, 0.25, 8)]
        self._middle = b.ring(0.0, 0.25)

    def features(self, blocks: Float) -> Float:
        """(cells, 9 parts, Lab): the centre and eight sectors of a ring."""
        out: Float = np.stack([_median(blocks, m) for m in self._parts], axis=1)
        return out

    def decide(self, planes: list[Float]) -> tuple[list[str], npt.NDArray[np.float64]]:
        blocks = planes[0]
        parts = self.features(blocks)
        colour = np.median(parts, axis=1)
        # A chip covers the whole middle of its cell in one colour; a picture's blobs do
        # not (the largest covers about four fifths of it).
        middle = blocks[:, self._middle, 1:]
        share = (np.linalg.norm(middle - colour[:, None, 1:], axis=2) < 15.0).mean(axis=1)
        names, conf = self.colours.classify(colour)
        nearest = self.colours.distances(colour).min(axis=1)
        # A lamp's reflection on a glossy chip adds white light: lighter and paler, but of
        # the same hue. A uniform middle colourful enough is the chip of the nearest hue.
        hue, clear = self._hue(colour)
        chroma = np.hypot(colour[:, 1], colour[:, 2])
        # Under a strong veil a chip keeps little chroma; it is still one colour all over
        # its middle (a picture's blobs never cover it all), and lighter than it would be.
        blown = np.linalg.norm(colour[:, 1:] - ceiling_tint(blocks), axis=1)
        faint = ((np.minimum(chroma, blown) >= self.FAINT_CHROMA)
                 & (colour[:, 0] >= self.FAINT_LIGHT) & (share >= self.FAINT_SHARE))
        pale = clear & ((chroma >= self.PALE_CHROMA) | faint)
        light = dict(zip(self.colours.names, self.colours.centres[:, 0], strict=True))
        for i in map(int, np.nonzero(pale)[0]):
            # Near no chip colour; or nearest one of another hue but darker: a veil lightens
            # and pales a chip (a pale yellow comes nearer green than yellow) but keeps its hue.
            veiled = hue[i] != names[i] and colour[i, 0] > light[names[i]]
            if nearest[i] > self.NEAR or veiled:
                names[i], nearest[i] = hue[i], min(float(nearest[i]), self.NEAR - 0.8)
                conf[i] = min(float(conf[i]), 0.5)
        # The share above compares colour only: a picture's dark and light blobs of one
        # hue (navy and sky blue) pass it, but not this.
        spread = np.ptp(parts[:, :, 0], axis=1)
        tokens: list[str] = []
        confidence = np.ones(len(blocks))
        for i, cell in enumerate(self.cells):
            if cell in self.FREE:
                tokens.append("")
                continue
            evidence = min((share[i] - self.UNIFORM) / 0.04,  # > 0: one colour
                           (self.NEAR - nearest[i]) / 0.8,  # > 0: a chip's colour
                           (self.LIGHT_SPREAD - spread[i]) / 5.0)  # > 0: one lightness
            if cell in self.bare:
                same = np.linalg.norm(parts[i, :, 1:] - np.array(self.bare[cell])[:, 1:],
                                      axis=1).mean()
                evidence = min(evidence, (same - 10.0) / 5.0)
            if evidence > 0:
                tokens.append(names[i])
                confidence[i] = min(float(conf[i]), float(np.clip(evidence, 0, 1)))
            else:
                tokens.append("")
                confidence[i] = float(np.clip(-evidence, 0, 1))
        return tokens, confidence

    def _hue(self, colour: Float) -> tuple[list[str], npt.NDArray[np.bool_]]:
        """The chip colour of the nearest hue for each Lab row, and whether that hue is
        clear (``HUE_MARGIN`` nearer than the next chip colour's)."""
        c = self.colours.centres
        hues = np.degrees(np.arctan2(c[:, 2], c[:, 1]))
        angle = np.degrees(np.arctan2(colour[:, 2], colour[:, 1]))
        gap = np.abs((angle[:, None] - hues[None] + 180) % 360 - 180)
        order = np.argsort(gap, axis=1)
        rows = np.arange(len(colour))
        clear: npt.NDArray[np.bool_] = gap[rows, order[:, 1]] - gap[rows, order[:, 0]] > (
            self.HUE_MARGIN)
        return [self.colours.names[i] for i in order[:, 0]], clear

    def calibrate(self, tops: Sequence[Float], truth: Mapping[str, str]) -> dict[str, Any]:
        blocks = self.cut(tops)[0]
        parts = self.features(blocks)
        colour = np.median(parts, axis=1)
        labels = [truth.get(c, "") for c in self.cells]
        self.colours = self.colours.fitted(colour, labels)
        self.bare = {c: [[round(float(v), 2) for v in p] for p in parts[i]]
                     for i, c in enumerate(self.cells) if not labels[i] and c not in self.FREE}
        return {"colours": self.colours.to_dict(), "bare": self.bare}

    def load(self, params: Mapping[str, Any]) -> None:
        self.colours = Prototypes.from_dict(params["colours"])
        self.bare = {c: v for c, v in dict(params.get("bare", {})).items()}
