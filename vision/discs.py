"""Morris and draughts (:class:`DiscReader`): the colour of a ring inside the disc against
the cell's own bare corners (light, dark, or the board itself), and the man's outline; a
draughts king (two men stacked) reads as its colour, ``W`` or ``B``: the game knows its
rank. Morris also reads the board's lines, which a man hides up to his rim."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt

from .detect import Image, Matrix, lifted
from .light import Float
from .pieces import SKIPPED, Bool, Prototypes, Reader, Rim, cell_median

__all__ = ["DiscReader", "DraughtsReader", "MorrisReader"]


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
      (nearly) every direction, also where a veil of light took the board's colour or
      the step the prototypes need (a glossy black top mirrors the veil, a few shades
      darker than the veiled square) and the cues above go blind. A blob of light, a
      shadow or the lines through a point step in some directions only. A middle so
      outlined is no reflection's edge either. On draughts the converse holds too: a man
      on a dark square always steps from it, so a middle with no rim at all is a blob of
      light or a shadow's edge on the bare square (unless the blob swallowed square and
      man alike: the glare test doubts that cell);
    - a white man is white all over its top and neutral or cream, as the paper is under
      the same light; a glossy black top mirrors the room: bluish, or blown out by the
      lamp's highlight in part and grey in the rest (a white man in a shadow is dimmer
      all over, and stays lighter than its cell);
    - under a lamp's veil a glossy black top mirroring the room is bluer than paper and
      bluer than the wood just outside its rim all around; the veiled wood is the lamp's
      light over yellow wood, never bluer than paper, and a veil's edge or a shadow steps
      in some directions only;
    - a glossy black top inside the lamp's highlight is white all over, as a white man
      is (both blown out): nothing on the top tells them apart, so such readings are
      doubted (the glare test), not trusted. On a veiled square a white middle in the
      lamp's own neutral colour is doubted too (a white man shows his cream unless
      blown out), and so is a disc read white that is neither as light as paper nor
      cream (a shadow dims a white man, not his colour; a black top's highlight fading
      across it is neutral to bluish).
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
    # A disc read white, short of paper's white, whose middle's sectors differ by this
    # much in lightness: a highlight fading across a glossy black top (the 3D set's white
    # men short of paper's white: none; black men read so: spread 3.6-14)
    FADE = 5.0
    PAPER_BARE = 85.0  # a bare cell this light is veiled as white as paper (see _colours)
    DARK_STEP: ClassVar[float] = 99.0  # a middle this much darker than its bare cell is black
    BLOWN = 90.0  # a sector of the middle this light (white-balanced) is blown out ...
    CUT = 15.0  # ... and when another is this much darker, a reflection's edge crosses it
    CUT_BARE = 5.0  # ... if that one is no lighter than this above the bare cell (wood)
    # Lab distance across a man's rim in three directions of four: a man stands there (a
    # bare cell's two rings differ by 7 at most on the 3D set, by sensor noise and grain).
    EDGE = 8.0
    # Less than this across a man's rim is no man's outline at all: a lamp's blob over a
    # bare cell (its rings differ by 3.4 at most on the 3D set where its middle is light).
    OUTLINED = 4.0
    RIM_SHOWS: ClassVar[bool] = False  # every man shows OUTLINED (DraughtsReader)
    # Where men show their rim: a bare cell this light (white-balanced; a bare dark square
    # reads 35-65, one under a lamp's veil up to paper's 92) with rings differing by more
    # than FAINT_RIM is no sure empty square (a glossy black man on it may have lost his
    # bluish rim to a webcam's JPEG). In the 3D set's 152 clean draughts frames 4 empty
    # squares are so and doubted; none was read otherwise.
    VEILED = 80.0
    FAINT_RIM = 3.0
    UNSURE = 0.3  # the confidence of an empty reading there (below CONFIDENT)
    BLUE = 4.0  # a top this much bluer than paper (b below -BLUE) is a glossy black one
    # Just inside a man's rim this much bluer (b) than just outside it, in three directions
    # of four: a top mirroring the room over veiled wood (a bare cell's rings differ by 2
    # at most in b, alike in every direction).
    BLUE_RIM = 3.0

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
        self._outline_rings = Rim(b, (0.2, 0.28), (0.46, 0.5))
        self.kings = self.game == "draughts"

    def features(self, blocks: Float) -> npt.NDArray[np.float64]:
        rim = cell_median(blocks, self._rim)
        bare = cell_median(blocks, self._bare)
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
        middle, bare = cell_median(blocks, self._rim), cell_median(blocks, self._bare)
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
        outline, bluer_rim = self._outline_rings.steps(blocks)
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
                # The veil whitens a glossy black top too, in the lamp's colour (neutral, as
                # paper); a white man shows his own cream (b above 0) unless blown out: a
                # neutral one is doubted.
                tokens[i] = "W"
                confidence[i] = float(min(np.clip(white[i] / 5, 0, 1),
                                          np.clip(middle[i, 2] / 5, 0, 1)))
            elif grey[i] > 0:  # the square's colour is gone: a man stands there
                light = middle[i, 0] - self.WHITE
                tokens[i] = "W" if light > 0 else "B"
                confidence[i] = float(min(np.clip(grey[i], 0, 1), np.clip(abs(light) / 5, 0, 1)))
                if light <= 0 and outline[i] < self.EDGE:
                    # Read black yet lighter than the bare cell, with no man's outline: a
                    # lamp's veil took the square's colour, its corners partly outside it
                    # (draughts-166 f8). A black top under that veil mirrors it, no lighter
                    # than the veiled wood: doubted unless darker than the cell.
                    confidence[i] = min(float(confidence[i]),
                                        float(np.clip((lighter[i] - middle[i, 0]) / 5, 0, 1)))
            elif -self.BLUE - middle[i, 2] > 0 and bluer_rim[i] > self.BLUE_RIM:
                # A glossy black top mirroring the room on wood a veil paled: bluish, and
                # bluer than the wood all around its rim.
                tokens[i] = "B"
                confidence[i] = float(min(np.clip((-self.BLUE - middle[i, 2]) / 5, 0, 1),
                                          np.clip((bluer_rim[i] - self.BLUE_RIM) / 5, 0, 1)))
            elif outline[i] > self.EDGE and (chroma_bare[i] < self.WOOD_CHROMA or share[i] < 1):
                # A man's rim all around the middle, where a veil took the square's colour
                # (the grey cue is blind) or its step (a glossy black top mirrors the veil);
                # a man is grey, white or black: less of the wood's colour than the wood.
                tokens[i] = "B" if dimmer[i] > 0 else "W"
                confidence[i] = float(min(np.clip((outline[i] - self.EDGE) / 5, 0, 1),
                                          np.clip(abs(dimmer[i]) / 5, 0, 1)))
        for i in range(len(tokens)):
            if self.RIM_SHOWS and not tokens[i] and (
                    bare[i, 0] > self.VEILED and outline[i] > self.FAINT_RIM):
                # A dark square veiled as light as paper, with a faint rim on it: a glossy
                # black man mirrors the veil as light as the square, and a webcam's JPEG
                # (colour at half resolution) erases the bluish rim that told him apart
                # (draughts-038, -080, -105 at quality 40). Empty is not sure there.
                confidence[i] = min(float(confidence[i]), self.UNSURE)
                continue
            if self.RIM_SHOWS and tokens[i] and outline[i] < self.OUTLINED:
                # No rim steps from the wood around this middle: a lamp's blob on the bare
                # square or a shadow's edge (a blob that swallowed a man whole, square and
                # all, is doubted by the glare test).
                tokens[i] = ""
                confidence[i] = float(np.clip((self.OUTLINED - outline[i]) / 5, 0, 1))
            elif tokens[i] == "W":
                # A white man is as light as paper, or in a shadow still cream (a shadow
                # dims the light, not the man's colour); neither is a glossy black top's
                # highlight fading across it, neutral and bluish: doubted.
                sure = max(middle[i, 0] - self.NOT_WHITE, middle[i, 2]) / 5
                if middle[i, 0] < self.NOT_WHITE:
                    # Short of paper's white, and uneven: a shadow dims a flat white top
                    # evenly; a lamp's highlight fades across a glossy black one (a warm
                    # lamp leaves it cream: draughts-186 a1).
                    sure = min(sure, (self.FADE - (top[i] - low[i])) / 5)
                if bare[i, 0] > self.PAPER_BARE:
                    # On wood a lamp's veil lights as white as paper, a glossy black top
                    # mirrors the veil as white as a white man: a white man stands out
                    # only by being lighter still (morris-216 g4: 0.8 lighter, black).
                    sure = min(sure, (middle[i, 0] - bare[i, 0]) / self.LIGHTER)
                confidence[i] = min(float(confidence[i]), float(np.clip(sure, 0, 1)))
        return tokens, confidence, dimmer.astype(np.float64)

    def calibrate(self, tops: Sequence[Float], truth: Mapping[str, str],
                  skip: frozenset[str] = frozenset()) -> dict[str, Any]:
        blocks = self.cut(tops)[0]
        labels = [SKIPPED if c in skip else truth.get(c, "")[:1] for c in self.cells]
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
    ONE_LINE = 10.0  # ... or one this much, running on beyond a man's rim (RUN_ON)
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
        # Every point has two arms at least; where a lamp's blob hides all but one, that
        # one line runs through the middle and on beyond a man's rim: no man hides it.
        through = np.minimum(inside - self.ONE_LINE, outside - self.RUN_ON).max(axis=1)
        shown = np.maximum(np.sort(inside, axis=1)[:, -2] - self.LINES, through)
        beyond = np.sort(outside, axis=1)[:, -2]
        hidden = np.minimum(self.HIDDEN - inside.max(axis=1), beyond - self.RUN_ON)
        for i, token in enumerate(tokens):
            if token and shown[i] > 0:
                tokens[i], confidence[i] = "", float(np.clip(shown[i] / 5, 0, 1))
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
    # Men stand on the dark squares: a white or black man's rim steps from the dark wood in
    # most directions, unless a lamp's blob whitened square and man alike.
    RIM_SHOWS = True
