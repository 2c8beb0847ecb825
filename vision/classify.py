"""From a frame to a reading of the board: locate, light, warp, classify, check for hands.

:class:`Recogniser` holds what carries over between frames of one game: the tracked board
(:class:`~tavola.vision.detect.BoardTracker`), the camera's intrinsics (for the parallax of tall
pieces), the calibration, and the reference of the bare board's rim that hands are
detected against. For each frame it

1. locates the board (markers tracked, or detected afresh);
2. white-balances: the four markers' white paper give the colour and level of the light
   at each corner of the board; the gain is interpolated across it (a gradient included);
3. warps the playing area seen at the height of the pieces' tops to a small top-down image
   (``px`` pixels per cell; a Quixo cube's top is almost a cell above the board);
4. classifies every cell with the game's reader (:mod:`vision.pieces` lists them),
   each cell with a confidence (0-1);
5. looks at the rim of the board around the playing area: an arm reaching over the board
   crosses it, so a rim that differs from the bare rim means a hand is in the picture; a
   reader whose pieces always make one pattern sees an arm hide it too (Quixo's cubes:
   :meth:`~tavola.vision.pieces.Reader.arm_over`).

>>> Recogniser("tessere").cells[:3]
('a1', 'b1', 'c1')
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import cv2
import numpy as np
import numpy.typing as npt

from .chips import ChipReader
from .cubes import QuixoReader
from .detect import (
    BGR,
    BLOWN,
    BoardTracker,
    Fix,
    Image,
    camera_matrix,
    marker_covered,
    warp_area,
)
from .discs import DraughtsReader, MorrisReader
from .geometry import BoardGeometry, geometry_for
from .light import PAPER, Float, encoded, lab, linear, white_balance
from .pieces import Reader
from .tesserae import TessereReader
from .tiles import QuinqueReader

if TYPE_CHECKING:
    from .calibrate import Calibration

__all__ = ["CONFIDENT", "READERS", "TOKENS", "Reading", "Recogniser", "as_seen"]

CONFIDENT = 0.5  # a cell read with less confidence goes into Snapshot.uncertain
GLARE_SHARE = 0.12  # ... and a cell this much blown out is doubted
GLARE_CONFIDENCE = 0.3
# What a user can do about a lamp's reflection on the board (every message that names one).
MOVE_THE_LAMP = "move the lamp or tilt the camera until no white spot falls on the board"
FOV = 62.0  # degrees: the Raspberry Pi camera module v2's horizontal field of view
# The rim: a band of bare board around the playing area that an arm reaching over the
# board must cross. It starts a little out from the area (further for Quixo, whose tall
# cubes lean out in the picture) and is cut in segments along each side.
RIM_PX = 8  # pixels per cell of the rim images
RIM_INNER = {"": 0.3, "quixo": 0.8, "sequence-kids": 0.15}  # cells out from the area
RIM_WIDTH = 0.6  # cells
RIM_STEP = 10.0  # a single picture: a segment this far from its neighbours is an arm
RIM_HUE = 18.0  # ... and two segments this far (chroma, Lab) off the wood's hue are a sleeve
VEIL_HUE = 2.0  # a segment this close to the wood's hue, lighter and paler, is a reflection
VEIL_LIFT = 5.0  # ... lighter than the wood by this much (a step at a hand's edge is not)
VEIL_LIGHT = 2.0  # ... if at most this darker than a veil of white would make the wood
VEIL_LEFT = 6.0  # a step that a veil of light explains to within this is a reflection's edge
VEIL_KEEP = 0.8  # ... a veil dims the surface's own light to no less than this share
# An arm is one object reaching in from outside: where it crosses the rim, a stretch of the
# rim is darker than the wood on both sides of it (its shaded underside, a sleeve), and the
# wood on both sides matches; shorter than a side (tall pieces seen from the side at tilt
# darken a whole side). Lighter stretches are a lamp's reflection's business (the veil).
DARK_BAND = 11.0  # lightness (Lab L) a stretch is darker than the wood both sides of it
DARK_MATCH = 0.5  # ... whose two sides differ by at most this share of that drop
DARK_FLANK = 2  # segments of wood each side of the stretch
RIM_CLEAN = 5.0  # ... and below this the picture's rim is clean enough to learn from
RIM_CHANGE = 6.0  # with a reference: a segment changed this much is a hand
RIM_ADOPT = 45  # frames a still change of the rim must last to become the reference

TOKENS: dict[str, frozenset[str]] = {  # what each game's cells may read ("" empty)
    "morris": frozenset({"", "W", "B"}),
    "draughts": frozenset({"", "W", "B"}),  # a king reads as its colour: the game knows
    "quixo": frozenset({".", "O", "X"} | {m + d for m in "OX" for d in "nesw"}),
    "tessere": frozenset({"", "R", "Y", "G", "B", "RY", "RG", "RB", "YG", "YB", "GB", "RYGB",
                          "K"}),
    "sequence-kids": frozenset({"", "R", "Y", "B", "G"}),
    "quinque": frozenset({".", "R", "O"}),
}



def as_seen(game: str, cells: Mapping[str, str]) -> dict[str, str]:
    """What the camera reads for a true position: the same, but a draughts king (``WK``,
    ``BK``) reads as its colour; its rank is the game's to know (RULES.md: a king is
    tracked by the engine)."""
    if game != "draughts":
        return dict(cells)
    return {c: v[:1] if v in ("WK", "BK") else v for c, v in cells.items()}


READERS: dict[str, type[Reader]] = {
    r.game: r
    for r in (MorrisReader, DraughtsReader, QuixoReader, TessereReader, ChipReader, QuinqueReader)
}


@dataclass(frozen=True)
class Reading:
    """One frame's reading: ``cells`` (cell -> token, RULES.md) with a ``confidence``
    (0-1) each; ``hand`` says a hand or arm is over the board (the frame should be
    skipped); ``fix`` is where the board was found; ``blown``: the cells a lamp's
    reflection blows out (:meth:`Recogniser.blown_cells`), for telling the user."""

    cells: Mapping[str, str]
    confidence: Mapping[str, float]
    hand: bool = False
    fix: Fix | None = None
    threshold: float = CONFIDENT
    blown: frozenset[str] = frozenset()

    @property
    def uncertain(self) -> frozenset[str]:
        """The cells read with less than ``threshold`` confidence."""
        return frozenset(c for c, p in self.confidence.items() if p < self.threshold)


def player_counts(game: str) -> tuple[int, ...]:
    """How many may play ``game``: its ``players`` parameter's choices, else its one count.

    >>> player_counts("quixo"), player_counts("morris")
    ((2, 4), (2,))
    """
    from tavola.games import game_class, new_game  # the rules' own counts, said once

    param = game_class(game).param_table().get("players")
    if param is not None and param.choices is not None:
        return tuple(int(n) for n in param.choices)
    return (new_game(game).num_players,)


@dataclass
class Recogniser:
    """Reads one game's board from frames (see the module docstring).

    ``players``: 4 for the 4-player Quixo (dot directions). ``calibration``: the colours of
    this set in this room (:mod:`vision.calibrate`). ``redetect_every``: frames between
    fresh marker searches (0: only when tracking fails). ``fov``: the camera's horizontal
    field of view in degrees (for the parallax of tall pieces). ``start``: Quinque's
    position in the game's coordinates, to align the tiles on the table with them.
    ``ink_balance``: white-balance a paper clipped at the sensor's ceiling by the light's
    tint its markers' ink shows (:func:`~tavola.vision.light.paper_light`); off by
    default: the readers' thresholds were set under the paper-only balance (README).
    """

    game: str
    players: int = 2
    calibration: Calibration | None = None
    redetect_every: int = 150
    fov: float = FOV
    start: Mapping[str, str] | None = None
    ink_balance: bool = False
    geometry: BoardGeometry = field(init=False)
    reader: Reader = field(init=False)
    tracker: BoardTracker = field(init=False)
    rim_reference: Float | None = field(init=False, default=None)  # bare rim, Lab segments
    _last_rim: Float | None = field(init=False, default=None, repr=False)
    _still: int = field(init=False, default=0, repr=False)

    def __post_init__(self) -> None:
        if self.game not in READERS:
            known = ", ".join(sorted(READERS))
            raise ValueError(f"the camera cannot read {self.game!r}; it reads: {known}")
        counts = player_counts(self.game)
        if self.players not in counts:
            raise ValueError(f"{self.game} is played by {' or '.join(map(str, counts))} "
                             f"players, not {self.players} (--players, or the game's "
                             f"players parameter)")
        if self.calibration is not None and self.calibration.game != self.game:
            raise ValueError(
                f"the calibration is for {self.calibration.game}, not {self.game}: "
                "calibrate again with --game " + self.game
            )
        self.geometry = geometry_for(self.game)
        params = self.calibration.reader if self.calibration is not None else None
        self.reader = READERS[self.game](self.players, params, self.start)
        self.tracker = BoardTracker(self.geometry, redetect_every=self.redetect_every)
        if self.calibration is not None and self.calibration.rim is not None:
            self.rim_reference = np.asarray(self.calibration.rim, np.float32)

    @property
    def cells(self) -> tuple[str, ...]:
        """The cells every reading names (none for Quinque: its cells come and go)."""
        return self.geometry.cells

    def read(self, image: Image) -> Reading:
        """Read one frame; :class:`~tavola.vision.detect.MarkersNotFoundError` if the board
        cannot be located."""
        fix = self.tracker.update(image)
        tops = self.top_down(image, fix)
        cells, confidence = self.reader.read(tops)
        hand = self.hand_over(image, fix, tops)
        blown = self.blown_cells(image, fix)
        for cell in blown:
            if self.reader.GLARE_HIDES_ONLY and cells[cell] not in ("", "."):
                continue  # a piece read surely there is one (Reader.GLARE_HIDES_ONLY)
            confidence[cell] = min(confidence[cell], GLARE_CONFIDENCE)
        return Reading(cells, confidence, hand, fix, blown=frozenset(blown))

    def blown_cells(self, image: Image, fix: Fix, share: float = GLARE_SHARE) -> list[str]:
        """Cells more than ``share`` of whose picture is blown out (a lamp's
        reflection on a glossy board or piece: every channel at the sensor's ceiling, so
        the surface's colour is lost there). A reading of such a cell is doubted rather
        than trusted (highlights are not light pieces); where a reflection can only hide a
        piece (``Reader.GLARE_HIDES_ONLY``), only an empty reading is. ``bench/vision.py
        --set`` scores the cells it names apart from the rest. None are named for Quinque
        (its cells come and go)."""
        if not self.cells:
            return []
        k = camera_matrix(image.shape[1], image.shape[0], self.fov)
        plane = self.reader.planes(fix.homography, k, image)[0]
        px = 8
        g = self.geometry
        area = warp_area(image, plane, (0.0, 0.0, float(g.files), float(g.ranks)), px)
        clipped = cv2.inRange(area, (BLOWN,) * 3, (255, 255, 255))
        blocks = clipped.reshape(g.ranks, px, g.files, px).mean(axis=(1, 3)) / 255.0
        out = []
        for cell in self.cells:
            f, r = g.position(cell)
            if blocks[g.ranks - 1 - r, f] > share:
                out.append(cell)
        return out

    def refresh(self, image: Image, cells: Mapping[str, str]) -> Calibration | None:
        """Calibrate again from ``image``, a frame of the accepted position ``cells``, so
        that slow changes of the light (a window at dusk) are followed during play. The new
        calibration is used if it explains the picture (vision.calibrate's rule: one cell
        in fifty may be doubted); otherwise nothing changes and None is returned."""
        from .calibrate import calibrate
        from .detect import VisionError

        try:
            # Tokens absent from this position keep the colours already learned.
            result = calibrate(image, self.game, cells, players=self.players,
                               base=self.calibration)
        except VisionError:
            return None
        self.calibration = result
        self.reader.load(result.reader)
        return result

    def top_down(self, image: Image, fix: Fix) -> list[Float]:
        """The playing area seen on each plane the reader reads (the pieces' tops),
        white-balanced, as float32 BGR images."""
        k = camera_matrix(image.shape[1], image.shape[0], self.fov)
        rect, px = self.reader.rect, self.reader.px
        return [white_balance(warp_area(image, h, rect, px), rect, self.geometry, fix.paper,
                              ink=self._ink(fix))
                for h in self.reader.planes(fix.homography, k, image)]

    def _ink(self, fix: Fix) -> Mapping[int, BGR] | None:
        """The markers' ink for the white balance, if it is to use it."""
        return fix.ink if self.ink_balance else None

    # ------------------------------------------------------------------ hands
    def rim(self, image: Image, fix: Fix) -> Float:
        """The colours (white-balanced Lab) of the board's rim around the playing area, in
        segments along each side: (segments, 3), sides in the order n, s, w, e."""
        return self._rim(image, fix)[0]

    def _rim(self, image: Image, fix: Fix) -> tuple[Float, npt.NDArray[np.bool_]]:
        """(:meth:`rim`, which segments are blown out by a lamp's reflection).

        A blown-out pixel has lost the surface's colour, and the white balance tints it (the
        gain of the light's weak channel lifts a clipped white above the others): a
        segment's colour is the median of its pixels that are not blown out, and a segment
        mostly blown out is glare. Two channels at the sensor's ceiling are enough (a
        reflection of a warm lamp clips red and green and leaves blue just below: what is
        left reads greenish, a colour neither the wood nor the light has); one is not (the
        red of bright wood or skin in warm light may clip alone)."""
        g = self.geometry
        w, h = g.files, g.ranks
        inner = RIM_INNER.get(self.game, RIM_INNER[""])
        outer = inner + RIM_WIDTH
        rect = (-outer, -outer, w + outer, h + outer)
        raw = warp_area(image, fix.homography, rect, RIM_PX)
        around = lab(white_balance(raw, rect, g, fix.paper, ink=self._ink(fix)))
        clipped = (np.sum(raw >= BLOWN, axis=2) >= 2).astype(np.float32)
        o, i = round(outer * RIM_PX), round(inner * RIM_PX)
        ww, hh = w * RIM_PX, h * RIM_PX
        colours, glare = [], []
        for image_band, clip_band, n in zip(_bands(around, o, i, ww, hh),
                                            _bands(clipped, o, i, ww, hh), self.rim_sides,
                                            strict=True):
            pieces = image_band.reshape(image_band.shape[0], n, -1, 3).transpose(
                1, 0, 2, 3).reshape(n, -1, 3)
            blown = clip_band.reshape(clip_band.shape[0], n, -1).transpose(1, 0, 2).reshape(
                n, -1) > 0.5
            side = np.median(pieces, axis=1)
            share = blown.mean(axis=1)
            for k in np.flatnonzero((share > 0) & (share <= 0.5)):  # few segments have any
                side[k] = np.median(pieces[k][~blown[k]], axis=0)
            colours.append(side)
            glare.append(share > 0.5)
        return np.concatenate(colours).astype(np.float32), np.concatenate(glare)

    def hand_over(self, image: Image, fix: Fix, tops: Sequence[Float]) -> bool:
        """Whether a hand or arm is over the board (``tops``: :meth:`top_down`'s cells):
        across the rim, or an arm over the cells the reader tells."""
        return self._rim_crossed(image, fix) or self.reader.arm_over(tops)

    def _rim_crossed(self, image: Image, fix: Fix) -> bool:
        """Whether a hand or arm crosses the rim: it differs from the bare rim.

        With a reference of the bare rim (from the calibration, or learned from the first
        clean frames), any segment that changed is a hand. Without one (a single picture),
        a segment that differs from its neighbours along the rim is (a step of colour where
        the arm crosses; wood grain, light gradients and soft shadows change gently), unless
        a lamp's reflection explains the step: the segment is the wood under the veil (of
        the wood's hue, paler and lighter) or blown out (those are not compared, nor
        compared with), or the segment and its neighbours are the same surface, one of
        them seen through a veil of white light (the bare wood beside a reflection, or a
        veiled segment among bare wood: a veil adds light, never colour). A stretch of rim
        off the wood's hue is a hand however long (a sleeve along a whole side has no step
        but at its ends, and those may be off the rim). A marker in view whose pattern does
        not show, and not for a reflection (:func:`~tavola.vision.detect.marker_covered`),
        is under a hand too.
        """
        segments, glare = self._rim(image, fix)
        still = self._last_rim is not None and self._last_rim.shape == segments.shape and (
            float(np.max(_delta(segments - self._last_rim))) < 2.0)
        self._still = self._still + 1 if still else 0
        self._last_rim = segments
        if self._still < RIM_ADOPT and any(
                marker_covered(image, fix.homography, self.geometry, m) for m in fix.missing):
            return True  # a hand on the board's corner need not reach the rim's segments
        if self.rim_reference is None or self.rim_reference.shape != segments.shape:
            off_hue, veiled = _off_hue(segments)
            steps, unexplained = _rim_steps(segments, self.rim_sides, skip=veiled | glare)
            dark = _dark_band(segments[:, 0], self.rim_sides, skip=veiled | glare)
            # Learned only from a rim clean without excusing any step as a reflection's
            # edge: a hand taken for the bare rim would hide every hand after it.
            if (steps < RIM_CLEAN and off_hue < RIM_HUE and dark < DARK_BAND) or (
                    self._still >= RIM_ADOPT):
                self.rim_reference = segments
                return False
            return unexplained > RIM_STEP or off_hue > RIM_HUE or dark > DARK_BAND
        change = float(np.max(_delta(segments - self.rim_reference)))
        if change < RIM_CHANGE:
            # Follow slow changes of the light over the bare rim.
            self.rim_reference = np.float32(0.9) * self.rim_reference + np.float32(0.1) * segments
            return False
        if self._still >= RIM_ADOPT:
            # Something on the rim that stays put for a while (a box, a cup) becomes the rim.
            self.rim_reference = segments
            return False
        return True

    @property
    def rim_sides(self) -> list[int]:
        """How many rim segments each side has (n, s, w, e)."""
        g = self.geometry
        step = max(0.5, max(g.files, g.ranks) / 16)
        return [max(1, round(n / step)) for n in (g.files, g.files, g.ranks, g.ranks)]


def _bands(around: Float, o: int, i: int, ww: int, hh: int) -> tuple[Float, ...]:
    """The rim's four bands (n, s, w, e; each as rows across x along the side) of an image
    of the board's surroundings whose playing area starts ``o`` pixels in; ``i`` pixels
    next to the area are left out; the area is ``ww`` x ``hh`` pixels."""
    return (around[0:o - i, o:o + ww],  # n: beyond the last rank
            around[o + hh + i:o + hh + o, o:o + ww],  # s: beyond rank 1
            around[o:o + hh, 0:o - i].swapaxes(0, 1),  # w: beyond file a
            around[o:o + hh, o + ww + i:o + ww + o].swapaxes(0, 1))  # e


def _delta(diff: Float) -> npt.NDArray[np.float32]:
    """Colour differences with lightness at half weight (shadows change lightness)."""
    weights = np.array([0.5, 1.0, 1.0], np.float32)
    return np.asarray(np.linalg.norm(diff * weights, axis=-1), np.float32)


_WHITE = float(lab(np.array([[PAPER]], np.float32))[0, 0, 0])  # the paper's lightness


def _off_hue(segments: Float) -> tuple[float, npt.NDArray[np.bool_]]:
    """(how far the rim's second most off-hue segment is from the wood's hue, which
    segments are the wood veiled by a reflection), from white-balanced Lab segments.

    The wood's colour (a, b) is the median of the segments not washed out. Light and shade
    move a segment's colour along the line from white to the wood's (a veil of white
    light makes it paler, a shadow darker): what is off that line is something else on the
    rim. Two segments are asked for, so one odd segment (a knot, a chip's edge) is not.
    """
    light, ab = segments[:, 0], segments[:, 1:]
    chroma = np.linalg.norm(ab, axis=1)
    bare = chroma >= 0.5 * np.median(chroma)
    wood, wood_light = np.median(ab[bare], axis=0), float(np.median(light[bare]))
    along = ab @ wood / max(float(wood @ wood), 1.0)
    off = np.linalg.norm(ab - along[:, None] * wood, axis=1)
    # A veil of white light mixes white (a blown-out glare reads as light as the markers'
    # paper) into the wood: the share of the wood's chroma that is left says how light it
    # is at least (mixed in linear light, it is lighter than mixed in Lab). A pale hand or
    # sleeve of the wood's hue is darker than that.
    veiled: npt.NDArray[np.bool_] = ((light > wood_light + VEIL_LIFT) & (off < VEIL_HUE)
                                     & (along < 1)
                                     & (light > _veil_light(wood_light, along) - VEIL_LIGHT))
    return float(np.sort(off)[-2]) if len(off) > 1 else 0.0, veiled


def _veil_light(wood_light: npt.ArrayLike, along: npt.ArrayLike) -> npt.NDArray[np.float32]:
    """How light at least the wood of lightness ``wood_light`` is under a veil of white light
    that leaves the share ``along`` of its chroma (mixed in linear light, it is lighter
    than mixed in Lab): a pale hand or sleeve of the wood's hue is darker than that."""
    w = np.asarray(wood_light, np.float32)
    left = np.clip(np.asarray(along, np.float32), 0, 1)
    return np.asarray(w + (1 - left) * (np.float32(_WHITE) - w), np.float32)


def _rim_steps(segments: Float, sides: list[int], window: int = 5,
               skip: npt.NDArray[np.bool_] | None = None) -> tuple[float, float]:
    """The largest difference of a rim segment (but those in ``skip``) from the median of
    its neighbours (but those in ``skip``): of all, and of those that a veil of light does
    not explain (:func:`_veil_left`)."""
    skipped = np.zeros(len(segments), np.bool_) if skip is None else skip
    near = np.array(segments, np.float32, copy=True)
    start = 0
    for n in sides:
        for i in range(start, start + n):
            lo, hi = max(start, i - window), min(start + n, i + window + 1)
            # A reflection's veil is not the wood's colour: a bare segment beside it is
            # compared with the bare wood only.
            bare = ~skipped[lo:hi]
            if not skipped[i] and bare.any():
                near[i] = np.median(segments[lo:hi][bare], axis=0)
        start += n
    if not len(segments):
        return 0.0, 0.0
    step = np.where(skipped, np.float32(0), _delta(segments - near))
    # A reflection's edge leaves the bare wood darker beside a veil, or a veiled segment
    # lighter among bare wood (one the veil test missed: a little off the wood's hue or
    # the rim's median lightness): a veil explains either, if the lighter segment is as
    # light as a veil that pale makes the wood beside it (a pale hand is darker).
    ab, wood = segments[:, 1:], near[:, 1:]
    along = np.sum(ab * wood, axis=1) / np.maximum(np.sum(wood * wood, axis=1), 1.0)
    pale_as_veil = segments[:, 0] > _veil_light(near[:, 0], along) - VEIL_LIGHT
    explained = (_veil_left(segments, near) < VEIL_LEFT) & (
        (segments[:, 0] < near[:, 0]) | pale_as_veil)
    unexplained = np.where(explained, np.float32(0), step)
    return float(step.max()), float(unexplained.max())


def _dark_band(light: Float, sides: list[int], skip: npt.NDArray[np.bool_]) -> float:
    """How much darker (Lab lightness) than the wood on both sides of it the darkest
    stretch of the rim is, among stretches shorter than a side whose two sides match
    (:data:`DARK_MATCH`). Segments in ``skip`` (veiled, blown out) are left out: no stretch
    holds one, and the wood on each side of a stretch is the nearest that is not skipped
    (an arm crossing the rim between a reflection's veil and its blown-out spot is dark
    against the bare wood beyond them, which a veil never darkens).

    The rim is walked as the closed loop it is around the area (n west to east, e north to
    south, s east to west, w south to north), so an arm over a corner has wood on both
    sides too. A wide arm is no step from its neighbours' median (it is most of them):
    compared with the wood beside the whole stretch it covers, it is."""
    ns, ss, ws, es = (int(x) for x in np.cumsum([0, *sides])[:4])  # where each side starts
    order = np.concatenate([np.arange(ns, ss), np.arange(es, es + sides[3]),
                            np.arange(ss, ws)[::-1], np.arange(ws, es)[::-1]])
    where = np.flatnonzero(~skip[order])  # the kept segments' places in the loop
    size = len(where)
    if size <= 2 * DARK_FLANK:
        return 0.0
    lit = np.asarray(light, np.float32)[order[where]]
    # gap[k]: a skipped segment lies between kept segment k and the next (a stretch may
    # not reach over it).
    gap = np.diff(where, append=where[0] + len(order)) > 1
    start = np.arange(size)[:, None]
    flank = np.arange(DARK_FLANK)
    best = 0.0
    for m in range(1, min(sides) - 1):
        if m > size - 2 * DARK_FLANK:
            break
        within = (start + np.arange(m)) % size
        run = np.median(lit[within], axis=1)
        before = np.median(lit[(start - 1 - flank) % size], axis=1)
        after = np.median(lit[(start + m + flank) % size], axis=1)
        split = gap[within[:, :-1]].any(axis=1) if m > 1 else np.zeros(size, np.bool_)
        drop = np.minimum(before, after) - run
        band = ~split & (np.abs(before - after) <= DARK_MATCH * drop)
        if band.any():
            best = max(best, float(drop[band].max()))
    return best


def _linear(colours: Float) -> Float:
    """Lab -> linear-light BGR (0-1): lights add up there, not in Lab."""
    srgb = np.clip(cv2.cvtColor(colours.reshape(-1, 1, 3).astype(np.float32),
                                cv2.COLOR_Lab2BGR).reshape(colours.shape), 0, 1)
    out: Float = linear(srgb * 255).astype(np.float32)
    return out


def _from_linear(colours: Float) -> Float:
    """Linear-light BGR (0-1) -> Lab."""
    srgb = encoded(np.clip(colours, 0, 1))
    return lab(np.asarray(srgb, np.float32).reshape(-1, 1, 3)).reshape(colours.shape)


def _veil_left(a: Float, b: Float) -> npt.NDArray[np.float32]:
    """How far (:func:`_delta`) the lighter of each pair of Lab colours ``a``, ``b`` (one
    a row) is from the darker seen through a veil of white light: a lamp's reflection on
    the varnish adds its light to the surface's, whose own it dims to no less than
    :data:`VEIL_KEEP`. Small where a step along the rim is a reflection's edge; a veil
    adds no colour, so a pale hand, more colourful than the wood under a veil as light,
    is left with its excess."""
    lighter = a[:, 0] >= b[:, 0]
    top = np.where(lighter[:, None], a, b)
    under = _linear(np.where(lighter[:, None], b, a))
    seen = _linear(top)
    best = np.full(len(a), np.inf, np.float32)
    for keep in np.linspace(VEIL_KEEP, 1.0, 5, dtype=np.float32):
        veil = np.maximum(np.mean(seen - keep * under, axis=1, keepdims=True), 0)
        best = np.minimum(best, _delta(top - _from_linear(keep * under + veil)))
    # A reflection one can see lifts the surface (VEIL_LIFT); a mere loss of colour at the
    # same lightness (a shadow's soft edge, a sleeve) is no veil.
    best[np.abs(a[:, 0] - b[:, 0]) < VEIL_LIFT] = np.inf
    return best
