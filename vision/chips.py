"""sequence-kids (:class:`ChipReader`): a chip is a disc of one uniform colour; an animal
picture is not. Eight sectors of a ring and the centre must agree, and their colour must be
a chip colour. With a calibration, each cell's bare picture is known too."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt

from .light import Float
from .pieces import SKIPPED, Prototypes, Reader, Rim, ceiling_tint, cell_median

__all__ = ["ChipReader"]


class ChipReader(Reader):
    """sequence-kids: R Y B G chips over busy animal pictures; the free corners are ''."""

    game = "sequence-kids"
    height = 0.06
    GLARE_HIDES_ONLY = True  # 159 chips read surely on blown-out cells of the 3D set: all right
    COLOURS: ClassVar[dict[str, tuple[float, float, float]]] = {
        "R": (45.0, 63.0, 43.0),
        "Y": (83.0, -5.0, 80.0),
        "B": (46.0, 10.0, -50.0),
        "G": (58.0, -48.0, 45.0),
    }
    SPREAD: ClassVar[tuple[float, float, float]] = (20.0, 9.0, 9.0)
    UNIFORM = 0.87  # the share of a cell's middle a chip's colour covers at least
    SHARE_DOUBT = 0.1  # below it by less than this, with a chip's colour and lightness: doubted
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
    # One colour and one lightness over the whole middle is a chip's shape; when that
    # colour is no chip's (a lamp blew it out or tinted it past reading, or a glare whitened
    # a picture), an empty reading is doubted with this confidence (under CONFIDENT).
    UNKNOWN_COLOUR = 0.3
    # A chip is a disc on the board: just inside its rim and just outside it the colours
    # differ in (nearly) every direction (Lab distance in three directions of four: 13 or
    # more for 99 % of the chips of the 3D set; those below were doubted already). A
    # picture's blob evened out by a soft lens or a JPEG steps in some directions only
    # (2.4-9.8): a chip read without this outline is doubted (UNKNOWN_COLOUR).
    OUTLINED = 10.0

    def __init__(self, players: int = 2, params: Mapping[str, Any] | None = None,
                 start: Mapping[str, str] | None = None) -> None:
        self.colours = Prototypes.of(self.COLOURS, self.SPREAD)
        self.bare: dict[str, list[list[float]]] = {}  # cell -> bare picture's part colours
        super().__init__(players, params, start)
        b = self.blocks
        self._parts = [b.ring(0.0, 0.09), *b.sectors(0.1, 0.25, 8)]
        self._middle = b.ring(0.0, 0.25)
        self._outline_rings = Rim(b, (0.22, 0.3), (0.44, 0.5))

    def features(self, blocks: Float) -> Float:
        """(cells, 9 parts, Lab): the centre and eight sectors of a ring."""
        out: Float = np.stack([cell_median(blocks, m) for m in self._parts], axis=1)
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
        outline = self._outline_rings.steps(blocks)[0]
        tokens: list[str] = []
        confidence = np.ones(len(blocks))
        for i, cell in enumerate(self.cells):
            if cell in self.FREE:
                tokens.append("")
                continue
            shape = min((share[i] - self.UNIFORM) / 0.04,  # > 0: one colour
                        (self.LIGHT_SPREAD - spread[i]) / 5.0)  # > 0: one lightness
            evidence = min(shape, (self.NEAR - nearest[i]) / 0.8)  # > 0: a chip's colour
            bare = False
            if cell in self.bare:
                same = np.linalg.norm(parts[i, :, 1:] - np.array(self.bare[cell])[:, 1:],
                                      axis=1).mean()
                evidence = min(evidence, (same - 10.0) / 5.0)
                bare = same < 10.0
            if evidence > 0:
                tokens.append(names[i])
                confidence[i] = min(float(conf[i]), float(np.clip(evidence, 0, 1)))
                if outline[i] < self.OUTLINED:
                    # No disc's rim around the middle: a picture's blob a soft lens or a
                    # webcam's JPEG evened out to one colour (sequence-kids-189 d3).
                    confidence[i] = min(confidence[i], self.UNKNOWN_COLOUR)
            else:
                tokens.append("")
                confidence[i] = float(np.clip(-evidence, 0, 1))
                if shape > 0 and not bare:  # a chip's shape of no chip's colour
                    confidence[i] = min(confidence[i], self.UNKNOWN_COLOUR)
                elif not bare and min(self.LIGHT_SPREAD - spread[i],
                                      self.NEAR - nearest[i]) > 0:
                    # A chip's colour and one lightness over the middle, short of covering
                    # it only just: a webcam's JPEG (colour at half resolution, in blocks)
                    # frays a chip's colour at its edges (sequence-kids-084 at quality 40:
                    # 0.85), and a picture's largest blob covers about 0.8 of it.
                    miss = (self.UNIFORM - share[i]) / self.SHARE_DOUBT
                    confidence[i] = min(confidence[i], float(np.clip(miss, 0, 1)))
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

    def calibrate(self, tops: Sequence[Float], truth: Mapping[str, str],
                  skip: frozenset[str] = frozenset()) -> dict[str, Any]:
        blocks = self.cut(tops)[0]
        parts = self.features(blocks)
        colour = np.median(parts, axis=1)
        # (A skipped cell is neither a chip's colour nor a bare picture.)
        labels = [SKIPPED if c in skip else truth.get(c, "") for c in self.cells]
        self.colours = self.colours.fitted(colour, labels)
        self.bare = {c: [[round(float(v), 2) for v in p] for p in parts[i]]
                     for i, c in enumerate(self.cells) if not labels[i] and c not in self.FREE}
        return {"colours": self.colours.to_dict(), "bare": self.bare}

    def load(self, params: Mapping[str, Any]) -> None:
        self.colours = Prototypes.from_dict(params["colours"])
        self.bare = {c: v for c, v in dict(params.get("bare", {})).items()}
