"""Quinque: tiles anywhere on the marked table area, read in the game's own coordinates.

The table area is ``QUINQUE_AREA`` skydiver units square (vision.geometry); a tile is 2x2
units. Tiles are laid edge to edge, so the whole cluster sits on one lattice of period 2
whose phase (where a tile's corner falls) is found from the picture: what is not the
table mat and lies near prints (a lamp's reflection on the mat is light but bare) is
tile, and the phase that leaves the fewest tile pixels in half-full lattice squares wins;
it is then moved to the tiles' edges, and on to where the prints gather (around the
skydivers' middles) when they clearly say it lies elsewhere.
Each full lattice square is a tile; each of its skydivers holds a red or an orange
backpack, or is free, by the colour of its middle (a backpack covers it; a free skydiver
shows a grey recess there): in Lab, and where a lamp's reflection lights the middle up to
the face's white, in linear light, where the white a reflection adds leaves the step
between the colour channels (what it blanks altogether is doubted).

The game's coordinates (controller/games/quinque.py): tile (x, y) holds skydivers
(2x+i, 2y+j), x to the right, y *upwards*; the first tile is (0, 0) and coordinates never
change during a game. The table has no such origin, so the reader *anchors* once: with a
``start`` position (the game's view when the camera starts: the daemon knows it), the
translation that best matches it; without one, the tile nearest the middle of the area is
(0, 0), which is right for a new game (its single tile lies in the middle). The anchor and
the lattice phase are then kept while the board is tracked: tiles that move, come and go
keep their names, as the engine's do.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from .geometry import QUINQUE_AREA
from .light import PAPER, Float, lab, linear
from .pieces import Cells, Confidence, Reader

__all__ = ["QuinqueReader"]

PAPER_L = float(lab(np.array([[PAPER]], np.float32))[0, 0, 0])  # the paper's lightness

Lattice = tuple[float, float]  # the phase: board position of a tile corner, mod 2


class QuinqueReader(Reader):
    """Reads tiles and backpacks (``.`` free, ``R`` red, ``O`` orange) by skydiver."""

    game = "quinque"
    height = 0.15  # between a tile's top (0.08) and a backpack's (0.23), in units
    px = 16  # pixels per skydiver unit
    MAT_CHROMA = 7.0  # (a, b) distance from the mat's colour that is no longer mat
    MAT_STEP = 18.0  # lightness above the mat's that is no longer mat
    PRINT_CHROMA = 8.0  # chroma, and distance from the mat's, of a tile's prints
    PRINT_REACH = 0.6  # units from a print that a tile's face may lie
    PRINT_AROUND = 0.5  # units each side of a print over which its surroundings are seen
    PRINT_STEP = 4.0  # chroma by which a print differs from them (a tint varies less)
    CORE = 0.15  # radius (units) of a skydiver's middle read: inside a backpack (0.42 wide)
    RED_HUE = (6.0, 42.0)  # degrees in (a, b): red, then orange up to ...
    ORANGE_HUE = 106.0  # ... (beyond: olive and green suits)
    # Degrees from the red/orange split over which a backpack's colour grows sure (half
    # that is doubted): as rendered reds reach 37 and oranges fall to 46 (the split 42),
    # but a webcam's JPEG (quality 40) moves them to 43 and 36: quinque-010's orange at
    # 38 read red, trusted, when the ramp was 8 degrees. Wider would doubt more of the flat
    # renderer's backpacks under warm and cool lamps (14: 0.5 -> 1.3 % of its cells).
    SPLIT_RAMP = 10.0
    # A red backpack under a cool lamp that the white balance undoes only in part turns
    # pink: its hue falls below red's (to -32 degrees), lighter than a free skydiver's grey
    # recess (lightness 81-93 v 63-80), short of the suits' purple and blue (-35 to -60).
    # Such a middle read free is doubted (quinque-110, -120, -163, -189).
    PINK_HUE, PINK_CHROMA, PINK_L = -33.0, 6.0, 78.0
    TINT_L, TINT = 97.0, 4.5  # a middle this light keeping this much chroma: see _skydivers
    DISGUISED = 0.3  # the confidence of "free" for those two: a backpack the light disguised
    MIN_CHROMA = 12.0  # the least chroma of a backpack's middle (a lamp's reflection pales it)
    ORANGE_CHROMA = 27.0  # grey left warm by a clipped paper reads orange up to 26
    YELLOWER, YELLOW_CHROMA = 95.0, 1.5  # more chroma per degree of hue beyond 95
    LIKE_CHROMA = 10.0  # a pixel of a backpack's hue and this chroma ...
    SHARE = 0.4  # ... covers more than this share of the middle under a backpack
    # Under a reflection (see _glared), in linear light: opponent hue in degrees (red 26.6,
    # orange 37.8, a clipped orange up to 95, yellow 90) ...
    GLARE_HUE = (5.0, 100.0, 35.5)  # ... of a backpack: from, to, and red below orange
    # (a warm cast the white balance leaves moves a paled red up to 34; a cool one moves it
    # below 5, pink, as in Lab): a lit middle of too little excess for a backpack is
    # doubted rather than read free down to this hue (quinque-123's red at 3; on the set,
    # 3 reds and 4 free skydivers lie lit between -10 and 5, 24 free ones below -10)
    GLARE_PINK = -10.0
    LIT = 0.9  # a middle this light against its face's white is under a reflection
    # Below it, a middle with a backpack's excess at the hue of an orange no channel clips
    # (short of the olive suits', 65-90) is a veiled backpack or a warm-cast recess:
    UNCLIPPED, VEILED = 65.0, 0.3  # ... doubted (this confidence) when Lab reads it free
    # So is one lit to this share of the face's white keeping this share of a backpack's
    # excess there: a veil that close to the white leaves an orange a hair short of its
    # need (quinque-044: 0.296 of 0.3, lit to 0.88); free skydivers lit so keep that much
    # 4 times on the set (2 under jpeg40), a warm cast on a flat paper rarely that lit.
    NEAR_LIT, NEAR_NEED = 0.8, 2 / 3
    # Above it, a middle that is no backpack shows nothing if no print shows within a
    # backpack's footprint (half-width 0.21) around it either: the footprint's darkest
    # tenth, where it is lightest within SEEK, above LIT of the face's white (see _glared).
    # Whatever tint the middle keeps: a lamp's own cast the white balance leaves tints a
    # blown backpack's top and a blown recess alike (cool lamps: an excess of 0.075-0.11,
    # no backpack's hue; quinque-120, -158, -196, -213), and a backpack lit to 0.94 of
    # the face's white, its footprint to 0.93 (quinque-086), was read free and trusted.
    FOOTPRINT = (0.1, 0.2)
    # ... wherever the backpack stands within this of the middle the lattice puts (units):
    # tiles and backpacks are placed by hand (a twentieth of a unit each, and turned), and
    # at a tilt its top (0.23 high) is seen beside where the plane read (0.15) puts it.
    SEEK = 0.125
    NEED_RED = 0.15  # excess (a share of the face's white) of a red backpack paled
    NEED_ORANGE = 0.3  # ... and of an orange one, however yellow its clipped red makes
    # it (a free skydiver's middle under a reflection, its olive suit and its head's
    # tint in its grey recess, shows 0.13-0.25 at any hue from 70 to 100; 0.34 at most)
    # A middle under a reflection tinted by up to this share of a backpack's need is
    # doubted: a clipped orange keeps as little as a free skydiver's middle shows there.
    DOUBTED = 1 / 3
    BLIND = 0.2  # the confidence of "no tile" on a square a reflection whitened (_washed)
    PRINTED = 4.5  # colour spread (Lab) over a lattice square under which it is no tile
    FACE_SHARE = 0.12  # share of a square lighter than the mat under which it shows no face
    WHITE = 90.0  # lightness of a tile's face blown out by a lamp's reflection
    EDGE_REACH = 0.4  # units the tiles' edges may move the phase found from coverage
    # Prints gathered around the skydivers' middles (see _centred): at least this many
    # pixels, this clearly (the mean resultant of their positions modulo one unit; prints
    # spread over the whole skydiver say nothing: 0.0-0.1), and the outline's phase off
    # their middle by more than this (units; the two agree within 0.12 where both are sure)
    CENTRE_PIXELS, CENTRED, OFF_CENTRE = 40, 0.4, 0.2
    # Tile pixels whose best lattice is less clear than this say little; the blown-out
    # pixels beside them say where the tiles are if their lattice is this much clearer.
    MURKY, CLEARER = 0.3, 0.3
    SEED_PRINTS = 20  # print pixels in a lattice square that show a tile (a backpack: 40)
    CLEAR = 0.85  # share of the lattice's clarity when found under which the cluster has
    # moved (find the lattice again): a tile's face always leaves some holes in the mask

    def __init__(self, players: int = 2, params: Mapping[str, Any] | None = None,
                 start: Mapping[str, str] | None = None) -> None:
        self.split = self.RED_HUE[1]  # hue between red and orange (calibration moves it)
        self.start = dict(start) if start else None
        self.phase: Lattice | None = None
        self.clear = 1.0  # the lattice's clarity when it was found
        self.anchor: tuple[int, int] | None = None  # lattice index of the game's tile (0, 0)
        self.last: dict[str, str] = {}  # the last reading, to keep names when all tiles move
        super().__init__(players, params, start)
        self.cells = ()
        c = (np.arange(self.px) + 0.5) / self.px - 0.5
        u, v = np.meshgrid(c, c)
        self._core = np.hypot(u, v) < self.CORE
        r = np.hypot(u, v)
        self._footprint = (r > self.FOOTPRINT[0]) & (r < self.FOOTPRINT[1])

    @property
    def rect(self) -> tuple[float, float, float, float]:
        return (0.0, 0.0, float(QUINQUE_AREA), float(QUINQUE_AREA))

    def reset(self) -> None:
        """Forget the lattice and the anchor (the cluster was moved as a whole)."""
        self.phase = None
        self.anchor = None
        self.last = {}

    # ------------------------------------------------------------------ reading
    def read(self, tops: Sequence[Float]) -> tuple[Cells, Confidence]:
        image = lab(tops[0])
        unlike = self._unlike_mat(image)
        tile, prints = self._tile_mask(image, unlike)
        integral = np.pad(tile.astype(np.float64), ((1, 0), (1, 0))).cumsum(0).cumsum(1)
        moved = (self.phase is None
                 or self._clarity(integral, self.phase) < self.CLEAR * self.clear)
        if moved:  # the first frame, or the cluster was pushed as a whole: search afresh
            outline, faces = self._outline(image, tile, integral)
            self.phase = self._centred(prints, integral, self._edges(
                image[:, :, 0], faces, outline))
            self.clear = self._clarity(integral, self.phase)
        assert self.phase is not None
        tiles = self._tiles(integral, self.phase)
        texture = {t: self._texture(image, t) for t in tiles}
        tiles = {t: cover for t, cover in tiles.items() if texture[t] >= self.PRINTED}
        covered = self._covered(image, tiles)
        tiles = {t: cover for t, cover in tiles.items() if t not in covered}
        printed = self._printed(prints) - set(tiles) - covered
        washed, blind = self._washed(image, tile, tiles, printed)
        tiles |= {t: 0.5 for t in washed}  # read, but doubted
        tiles |= {t: 0.5 for t in self._pale(image, unlike, tiles, printed)}
        hidden = [*blind, *sorted(covered)]
        if not tiles and not (hidden and (self.last or self.start)):
            return {}, {}  # nothing to name the squares by: no tile, nothing doubted
        # Every tile hidden (a new game's one tile under a lamp's reflection, quinque-135):
        # the squares that may hold them are named from what is known, and doubted, rather
        # than the table read surely bare.
        seen = self._skydivers(image, tops[0], list(tiles)) if tiles else {}
        if self.anchor is None or moved:
            self.anchor = self._anchor(seen or {q: {} for q in hidden})
        cells: Cells = {}
        confidence: Confidence = {}
        for (i, j), cover in tiles.items():
            sure = float(np.clip(min(abs(cover - 0.5) / 0.25,
                                     (texture.get((i, j), 0.0) - self.PRINTED) / 3), 0, 1))
            for (a, b), (token, p) in seen[(i, j)].items():
                name = self._name(i, j, a, b)
                cells[name] = token
                confidence[name] = min(sure, p)
        if cells:
            self.last = dict(cells)
        # A square a reflection whitened to its edges, with the mat around it white too: a
        # tile blown out or bare mat, nobody can tell; or one covered by something that is
        # no tile's face (a hand over the mat, or over a tile). Read empty (no tile) but
        # doubted, so that the rules decide it rather than a tile being taken for lifted.
        for i, j in hidden:
            for a in (0, 1):
                for b in (0, 1):
                    name = self._name(i, j, a, b)
                    cells[name], confidence[name] = "", self.BLIND
        return cells, confidence

    def _tile_mask(self, image: Float, unlike: npt.NDArray[np.bool_] | None = None
                   ) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.uint8]]:
        """(tile, prints): the pixels that are not the mat (``unlike``, from
        :meth:`_unlike_mat` unless given) near the tiles' colourful prints, and those
        prints."""
        mask = self._unlike_mat(image) if unlike is None else unlike.copy()
        sample = image[::4, ::4].reshape(-1, 3)
        mat = np.median(sample[:, 1:], axis=0)
        da = image[:, :, 1] - np.float32(mat[0])
        db = image[:, :, 2] - np.float32(mat[1])
        # A lamp's reflection on the mat is light too, but bare: a tile carries prints
        # (its skydivers' suits, heads and backpacks), colourful and unlike the mat. Keep
        # what lies near prints. A reflection may carry the lamp's tint (the paper's white
        # balance need not undo it), but spread smoothly: a print is a small mark, unlike
        # the colour of its surroundings too.
        chroma = np.hypot(image[:, :, 1], image[:, :, 2])
        side = 2 * round(self.PRINT_AROUND * self.px) + 1
        around = cv2.blur(image[:, :, 1:], (side, side))
        la, lb = image[:, :, 1] - around[:, :, 0], image[:, :, 2] - around[:, :, 1]
        colourful = ((chroma > self.PRINT_CHROMA)
                     & (da * da + db * db > self.PRINT_CHROMA ** 2)
                     & (la * la + lb * lb > self.PRINT_STEP ** 2)).astype(np.uint8)
        prints = np.asarray(cv2.morphologyEx(colourful, cv2.MORPH_OPEN,
                                             np.ones((2, 2), np.uint8)), np.uint8)
        reach = round(self.PRINT_REACH * self.px)
        disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * reach + 1, 2 * reach + 1))
        mask &= cv2.dilate(prints, disc).astype(bool)
        return mask, prints

    def _unlike_mat(self, image: Float) -> npt.NDArray[np.bool_]:
        """The pixels that are not the mat (the mat is most of the area, dull and dark): a
        tile's face, a lamp's reflection, anything on the mat."""
        sample = image[::4, ::4].reshape(-1, 3)
        mat = np.median(sample[:, 1:], axis=0)
        da = image[:, :, 1] - np.float32(mat[0])
        db = image[:, :, 2] - np.float32(mat[1])
        unlike: npt.NDArray[np.bool_] = (da * da + db * db > self.MAT_CHROMA ** 2) | (
            image[:, :, 0] > self._face_light(image))
        return unlike

    def _face_light(self, image: Float) -> float:
        """The lightness above which a pixel may be a tile's face. A face is white card, as
        light as the markers' paper where the light is even: lighter than the mat (most of
        the area) by a step, or by half the way up to the paper's white on a light mat (a
        bright mat leaves less than the step)."""
        level = float(np.median(image[::4, ::4, 0]))
        return min(level + self.MAT_STEP, (level + PAPER_L) / 2)

    def _covered(self, image: Float, tiles: Mapping[tuple[int, int], float]
                 ) -> set[tuple[int, int]]:
        """The squares taken for tiles that show no tile's face: less than ``FACE_SHARE``
        of them is lighter than the mat (:meth:`_face_light`). Skin or a sleeve over the
        mat is unlike it and colourful, so it passes for a tile with prints (quinque-113: a
        hand whose olive sleeve, the mat's colour, crossed the rim unseen); on the set a
        tile shows its face over at least 0.24 of its square, under shadows too, and 27 of
        31 hands over the mat less than 0.21."""
        light = self._face_light(image)
        out = set()
        for index in tiles:
            square = self._inside(image, index)[:, :, 0]
            if square.size and float((square > light).mean()) < self.FACE_SHARE:
                out.add(index)
        return out

    def _white(self, image: Float) -> npt.NDArray[np.bool_]:
        """Pixels blown out to white by a lamp's reflection: a tile's face, or the mat."""
        white: npt.NDArray[np.bool_] = (image[:, :, 0] > self.WHITE) & (
            np.hypot(image[:, :, 1], image[:, :, 2]) < 8)
        return white

    def _outline(self, image: Float, tile: npt.NDArray[np.bool_],
                 integral: npt.NDArray[np.float64]
                 ) -> tuple[Lattice, npt.NDArray[np.bool_]]:
        """(phase, faces): the lattice phase the tiles' outline gives (:meth:`_phase`)
        from the tile pixels, which are the faces; or, where those split no better than
        noise (``MURKY``: a cluster an area light's reflection blows out shows few prints,
        so few tile pixels, quinque-190), from the tile and blown-out pixels together, the
        faces then, if they split clearly better."""
        phase = self._phase(integral)
        clarity = self._clarity(integral, phase)
        if clarity >= self.MURKY:
            return phase, tile
        faces = tile | self._white(image)
        lit = np.pad(faces.astype(np.float64), ((1, 0), (1, 0))).cumsum(0).cumsum(1)
        other = self._phase(lit)
        if self._clarity(lit, other) > clarity + self.CLEARER:
            return other, faces
        return phase, tile

    def _printed(self, prints: npt.NDArray[np.uint8]) -> set[tuple[int, int]]:
        """The lattice squares holding a print (a backpack's worth of print pixels)."""
        assert self.phase is not None
        ys, xs = np.nonzero(prints)
        n = self.px
        i = np.floor(((xs + 0.5) / n - self.phase[0]) / 2).astype(int)
        j = np.floor(((ys + 0.5) / n - self.phase[1]) / 2).astype(int)
        squares, counts = np.unique(np.stack([i, j], axis=1), axis=0, return_counts=True)
        return {(int(a), int(b)) for (a, b), c in zip(squares, counts, strict=True)
                if c >= self.SEED_PRINTS}

    def _washed(self, image: Float, tile: npt.NDArray[np.bool_],
                tiles: Mapping[tuple[int, int], float], printed: set[tuple[int, int]]
                ) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
        """(washed, blind): lattice squares beside the tiles found that hold a tile blown
        out by a lamp's reflection: few prints show, but the square is white (or tile) to
        its edges and the mat around it is not (a reflection on the mat alone is round, or
        spills over); and those white to their edges with white mat around them too,
        which may hold a tile or not (blind).
        Such squares are reached from the tiles through one another: a reflection may
        whiten two tiles side by side (the band between them is white, and no mat). A
        square with tiles on three sides, white to its edges and printed, is a tile
        whatever lies on its fourth (a reflection on the mat there): tiles are laid edge
        to edge, and a reflection on the mat cannot fill a notch to its corners and stop
        at the tiles' edges. A square that shows a print (``printed``) and is white to its
        edges is reached too, tiles found or not: a new game's one tile under an area
        light's reflection may show nothing but a backpack (quinque-119)."""
        n = self.px
        white = self._white(image)
        face = white | tile
        size = white.shape[0]
        steps = ((1, 0), (-1, 0), (0, 1), (0, -1))

        def whole(i: int, j: int) -> bool:
            x0, y0 = self._square(i, j)
            c0, r0 = round(x0 * n), round(y0 * n)
            if c0 < 0 or r0 < 0 or c0 + 2 * n > size or r0 + 2 * n > size:
                return False
            return float(face[r0 + 2:r0 + 2 * n - 2, c0 + 2:c0 + 2 * n - 2].mean()) > 0.85

        reached = {q for q in printed if whole(*q)}
        frontier = set(tiles) | reached
        while frontier:
            frontier = {(i + di, j + dj) for i, j in frontier for di, dj in steps} - set(
                tiles) - reached
            frontier = {q for q in frontier if whole(*q)}
            reached |= frontier
        notch = {q for q in reached if self._texture(image, q) >= self.PRINTED and sum(
            (q[0] + di, q[1] + dj) in tiles for di, dj in steps) >= 3}
        whitened = set(reached)
        while True:  # drop the squares with white mat around them, until none is dropped
            kept = {q for q in reached
                    if q in notch or self._bare_around(white, q, set(tiles) | reached)}
            if kept == reached:
                return sorted(kept), sorted(whitened - kept)
            reached = kept

    def _pale(self, image: Float, unlike: npt.NDArray[np.bool_],
              tiles: Mapping[tuple[int, int], float],
              printed: set[tuple[int, int]]) -> set[tuple[int, int]]:
        """Lattice squares beside the tiles that hold a tile whose suits print too pale to
        gate its face (:meth:`_tile_mask` keeps the face only near prints): printed (a
        backpack's worth), unlike the mat to its edges, the mat around it bare, and
        coloured like a tile's face (``PRINTED``). Seen from 1.2 m a tile of light blue and
        green suits keeps only its backpack's print, so only a corner of its face
        (quinque-076)."""
        n = self.px
        size = unlike.shape[0]
        steps = ((1, 0), (-1, 0), (0, 1), (0, -1))
        found: set[tuple[int, int]] = set()
        while True:
            inside = set(tiles) | found
            beside = {(i + di, j + dj) for i, j in inside for di, dj in steps}
            new = set()
            for q in (beside & printed) - inside:
                x0, y0 = self._square(*q)
                c0, r0 = round(x0 * n), round(y0 * n)
                if c0 < 0 or r0 < 0 or c0 + 2 * n > size or r0 + 2 * n > size:
                    continue
                face = float(unlike[r0 + 2:r0 + 2 * n - 2, c0 + 2:c0 + 2 * n - 2].mean())
                if (face > 0.85 and self._texture(image, q) >= self.PRINTED
                        and self._bare_around(unlike, q, inside | {q})):
                    new.add(q)
            if not new:
                return found
            found |= new

    def _bare_around(self, white: npt.NDArray[np.bool_], index: tuple[int, int],
                     inside: set[tuple[int, int]]) -> bool:
        """Whether the bands of mat just outside square ``index`` (toward the squares not
        ``inside``) are mostly not in ``white`` (blown out, or whatever mask is given);
        False if it has no such band."""
        n = self.px
        i, j = index
        x0, y0 = self._square(i, j)
        c0, r0 = round(x0 * n), round(y0 * n)
        c1, r1 = c0 + 2 * n, r0 + 2 * n
        m = round(0.3 * n)
        rings = []
        for di, dj, band in ((-1, 0, white[r0:r1, max(c0 - m, 0):c0]),
                             (1, 0, white[r0:r1, c1:c1 + m]),
                             (0, -1, white[max(r0 - m, 0):r0, c0:c1]),
                             (0, 1, white[r1:r1 + m, c0:c1])):
            if (i + di, j + dj) not in inside and band.size:
                rings.append(float(band.mean()))
        return bool(rings) and max(rings) < 0.3

    def _inside(self, image: Float, index: tuple[int, int]) -> Float:
        """The pixels of lattice square ``index`` inside the area (none if it lies out)."""
        x0, y0 = self._square(*index)
        n = self.px
        return image[max(0, round(y0 * n)):max(0, round((y0 + 2) * n)),
                     max(0, round(x0 * n)):max(0, round((x0 + 2) * n))]

    def _texture(self, image: Float, index: tuple[int, int]) -> float:
        """The spread of colour (Lab) over a lattice square (the part inside the area): a
        tile's face carries its skydivers' prints; a lamp's reflection on the mat or its
        edge line is smooth. Colour, not lightness alone: backpacks a veil paled to the
        face's lightness still differ from it in colour (quinque-162, a new game's one tile
        under an area light, spread 4.1 in lightness, more in colour)."""
        n = self.px
        patch = self._inside(image, index).reshape(-1, 3)
        if len(patch) <= (2 * n) ** 2 // 2:
            return 0.0
        return float(np.sqrt((patch.std(axis=0) ** 2).sum()))

    def _phase(self, integral: npt.NDArray[np.float64]) -> Lattice:
        """The lattice phase (x, y), 0 <= .. < 2 units, that best splits full from empty."""
        best, best_score = (0.0, 0.0), -1.0
        # Coarse to fine: every quarter unit, then the eighths around the best.
        for step, around in ((0.25, None), (0.125, 1)):
            if around is None:
                xs = ys = np.arange(0, 2, step)
            else:
                xs = (best[0] + np.arange(-around, around + 1) * step) % 2
                ys = (best[1] + np.arange(-around, around + 1) * step) % 2
            for ox in xs:
                for oy in ys:
                    score = self._clarity(integral, (float(ox), float(oy)))
                    if score > best_score:
                        best, best_score = (float(ox), float(oy)), score
        return best

    def _edges(self, lightness: Float, tile: npt.NDArray[np.bool_], phase: Lattice) -> Lattice:
        """``phase`` moved to where the tiles' edges are: the tiles' faces are lighter than
        the gaps, shadows and mat around them, so the lightness steps up entering a tile
        and down leaving it, every 2 units. The coverage of the tile mask alone is pulled
        by what borders the faces (a tile's side seen at a tilt, its shadow)."""
        n = self.px
        period = 2 * n
        near = cv2.dilate(tile.astype(np.uint8), np.ones((9, 9), np.uint8)).astype(bool)
        out = []
        for axis, start in ((1, phase[0]), (0, phase[1])):
            step = np.zeros_like(lightness)
            if axis == 1:
                step[:, 1:-1] = lightness[:, 2:] - lightness[:, :-2]
            else:
                step[1:-1] = lightness[2:] - lightness[:-2]
            profile = np.where(near, step, 0).sum(axis=1 - axis)
            folded = np.zeros((2, period))
            index = np.arange(len(profile)) % period
            np.add.at(folded[0], index, np.maximum(profile, 0))  # stepping up: entering
            np.add.at(folded[1], index, np.maximum(-profile, 0))  # stepping down: leaving
            # An edge between pixels b-1 and b: up at b-1 and b, down at b-2 and b-1 (the
            # tile before ends 0.06 units short of the line).
            score = (folded[0] + np.roll(folded[0], 1) + np.roll(folded[1], 1)
                     + np.roll(folded[1], 2))
            best = int(np.argmax(score))
            moved = (best / n - start + 1) % 2 - 1
            out.append(float((start + moved) % 2) if abs(moved) <= self.EDGE_REACH else start)
        return out[0], out[1]

    def _centred(self, prints: npt.NDArray[np.uint8], integral: npt.NDArray[np.float64],
                 phase: Lattice) -> Lattice:
        """``phase`` moved, on each axis, to where the prints say the skydivers' middles
        are, when they say it clearly and the tiles' outline disagrees.

        A skydiver's prints (its backpack above all) sit around its middle, half a unit
        from the lattice's lines, so where prints gather modulo one unit gives the phase
        modulo one unit. The outline can be pulled by what borders a small cluster on a
        light mat: a tile's lit side seen at a tilt, its shadow (quinque-177, a third of a
        unit off: every skydiver read from its neighbour's square). Of the two phases two
        units apart that agree with the prints, the one whose squares are clearer wins."""
        ys, xs = np.nonzero(prints)
        if len(xs) < self.CENTRE_PIXELS:
            return phase
        n = self.px
        out = list(phase)
        for axis, values in enumerate((xs, ys)):
            turn = complex(np.exp(2j * np.pi * (values + 0.5) / n).mean())
            if abs(turn) < self.CENTRED:  # prints spread evenly: they say nothing
                continue
            middle = float(np.angle(turn) / (2 * np.pi))  # units, modulo one
            moved = (middle - 0.5 - phase[axis] + 0.5) % 1 - 0.5
            if abs(moved) <= self.OFF_CENTRE:
                continue
            candidates = [(phase[axis] + moved) % 2, (phase[axis] + moved - np.sign(moved)) % 2]
            scores = []
            for value in candidates:
                trial = list(out)
                trial[axis] = float(value)
                scores.append(self._clarity(integral, (trial[0], trial[1])))
            out[axis] = float(candidates[int(np.argmax(scores))])
        return out[0], out[1]

    def _clarity(self, integral: npt.NDArray[np.float64], phase: Lattice) -> float:
        """How clearly the lattice squares of ``phase`` are full or empty: 1 when every
        square is all tile or all mat, less when squares are cut by tiles' edges."""
        cover = self._cover(integral, phase)
        touched = cover > 0.15  # the mat alone reads a few per cent (noise, texture)
        if not touched.any():
            return 1.0
        # The tile pixels in squares that are neither full nor empty, as a share of all
        # tile pixels: a sum, not a mean over squares, so that a lamp's reflection on the
        # mat (round: cut by every phase alike) does not outweigh a small cluster's edges.
        cut = np.minimum(cover, 1 - np.minimum(cover, 1))[touched].sum()
        return float(1 - 2 * cut / max(float(cover[touched].sum()), 1e-9))

    def _cover(self, integral: npt.NDArray[np.float64], phase: Lattice) -> npt.NDArray[
            np.float64]:
        """Share of tile pixels in every lattice square of that phase inside the area."""
        px = self.px
        size = QUINQUE_AREA * px
        xs = np.round((phase[0] + 2 * np.arange(-1, QUINQUE_AREA // 2 + 1)) * px).astype(int)
        ys = np.round((phase[1] + 2 * np.arange(-1, QUINQUE_AREA // 2 + 1)) * px).astype(int)
        xs, ys = np.clip(xs, 0, size), np.clip(ys, 0, size)
        x0, x1 = xs[:-1], xs[1:]
        y0, y1 = ys[:-1], ys[1:]
        area = np.maximum((y1 - y0)[:, None] * (x1 - x0)[None, :], 1)
        sums = (integral[y1][:, x1] - integral[y0][:, x1] - integral[y1][:, x0]
                + integral[y0][:, x0])
        full = (2 * px) ** 2
        # Squares cut by the area's edge count by what they hold of a whole tile.
        out: npt.NDArray[np.float64] = sums / np.where(area < full * 0.5, full, area)
        return out

    def _tiles(self, integral: npt.NDArray[np.float64], phase: Lattice) -> dict[
            tuple[int, int], float]:
        """Lattice index (column, row; row downwards) -> cover, of the squares holding a tile."""
        cover = self._cover(integral, phase)
        out = {}
        for r, c in zip(*np.nonzero(cover > 0.5), strict=True):
            out[(int(c) - 1, int(r) - 1)] = float(cover[r, c])
        return out

    def _square(self, i: int, j: int) -> tuple[float, float]:
        """Board position of lattice square (i, j)'s top-left corner."""
        assert self.phase is not None
        return self.phase[0] + 2 * i, self.phase[1] + 2 * j

    def _skydivers(self, image: Float, top: Float, tiles: Sequence[tuple[int, int]]) -> dict[
            tuple[int, int], dict[tuple[int, int], tuple[str, float]]]:
        """Per tile, (i, j) within it (i right, j up) -> (token, confidence), from the
        colour of each skydiver's middle (:meth:`_backpacks`, from ``image`` in Lab; and
        :meth:`_glared`, from ``top``, the area in BGR, in linear light)."""
        n = self.px
        out: dict[tuple[int, int], dict[tuple[int, int], tuple[str, float]]] = {}
        places: list[tuple[tuple[int, int], tuple[int, int]]] = []
        middles: list[Float] = []
        squares: list[Float] = []
        wide: list[Float] = []
        m = round(self.SEEK * n)
        padded = np.pad(top, ((m, m), (m, m), (0, 0)), mode="edge")
        for index in tiles:
            x0, y0 = self._square(*index)
            out[index] = {}
            for a in (0, 1):
                for b in (0, 1):
                    c0, r0 = round((x0 + a) * n), round((y0 + 1 - b) * n)
                    if r0 < 0 or c0 < 0 or r0 + n > image.shape[0] or c0 + n > image.shape[1]:
                        out[index][(a, b)] = (".", 0.0)  # cut by the edge of the area
                        continue
                    places.append((index, (a, b)))
                    middles.append(image[r0:r0 + n, c0:c0 + n][self._core])
                    squares.append(top[r0:r0 + n, c0:c0 + n])
                    wide.append(padded[r0:r0 + n + 2 * m, c0:c0 + n + 2 * m])
        if not middles:
            return out
        stacked = np.stack(middles)
        medians = np.median(stacked, axis=1)  # each middle's colour (Lab)
        readings = self._backpacks(stacked, medians)
        lit = _linear(np.stack(squares))
        top = lit.max(axis=3)
        # The face's white: the square's lightest part (the prints are darker).
        faces = np.maximum(np.percentile(top.reshape(len(lit), -1), 85, axis=1), 1e-3)
        # The darkest tenth of the footprint around the middle (prints, or a backpack's
        # top), where it is lightest within reach: where a backpack would stand.
        around = _linear(np.stack(wide)).max(axis=3)
        prints = np.max([np.percentile(around[:, dy:dy + n, dx:dx + n][:, self._footprint],
                                       10, axis=1)
                         for dy in range(2 * m + 1) for dx in range(2 * m + 1)], axis=0) / faces
        glared = self._glared(lit[:, self._core], faces.astype(np.float64),
                              prints.astype(np.float64))
        # A middle blown out to white that keeps a tint: a grey recess clips neutral
        # (chroma 3.7 at most on the 3D set), a backpack's top keeps the colour of a channel
        # the reflection did not clip (quinque-196: 4.9-6.4), however its edges look.
        tinted = (medians[:, 0] >= self.TINT_L) & (
            np.hypot(medians[:, 1], medians[:, 2]) >= self.TINT)
        for (index, ab), reading, second, tint in zip(places, readings, glared, tinted,
                                                      strict=True):
            token, sure = reading if reading[0] != "." or second is None else second
            if token == "." and tint:
                sure = min(sure, self.DISGUISED)
            out[index][ab] = (token, sure)
        return out

    def _backpacks(self, middles: Float, medians: Float) -> list[tuple[str, float]]:
        """(token, confidence) of each skydiver from the Lab pixels of its middle
        (skydivers, pixels, 3) and their medians (skydivers, 3).

        A backpack covers the middle whole with one colour; a free skydiver shows its
        grey recess there, and at most a little of its suit (thin lines). So: the median
        colour of the middle, by hue (red, orange) if it is colourful enough, and only if
        most of the middle is of a backpack's hues. A lamp's reflection pales a backpack
        (less chroma, same hue); a bright orange whose red is clipped turns yellow (hue up
        to 100 degrees), where an olive suit lies too: so the yellower an orange, the more
        chroma it needs (an olive suit's thin lines, mixed with the tile's white, stay pale).
        """
        low, high, split = self.RED_HUE[0], self.ORANGE_HUE, self.split
        chroma = np.hypot(middles[..., 1], middles[..., 2])
        hue = np.degrees(np.arctan2(middles[..., 2], middles[..., 1]))
        shares = ((chroma > self.LIKE_CHROMA) & (hue > low) & (hue < high)).mean(axis=1)
        out = []
        for m, share in zip(medians.tolist(), shares.tolist(), strict=True):
            c = float(np.hypot(m[1], m[2]))
            h = float(np.degrees(np.arctan2(m[2], m[1])))
            # The calibrated split tells red from orange; it never lowers the chroma a
            # warm grey needs to pass for a backpack (the default split bounds it).
            reddish = h < min(split, self.RED_HUE[1])
            need = (self.MIN_CHROMA if reddish else self.ORANGE_CHROMA) + (
                self.YELLOW_CHROMA * max(0.0, h - self.YELLOWER))
            if self.PINK_HUE <= h <= low and c > self.PINK_CHROMA and m[0] > self.PINK_L:
                out.append((".", self.DISGUISED))  # a red backpack a cool light turned pink?
            elif not low < h < high:
                out.append((".", 1.0))
            elif c > need and share > self.SHARE:
                edges = min(h - low, high - h) / 8, abs(h - split) / self.SPLIT_RAMP
                sure = min((c - need) / 6, *edges, (share - self.SHARE) / 0.2)
                out.append(("R" if h < split else "O", float(np.clip(sure, 0, 1))))
            else:  # doubted the nearer it comes to a backpack (a pale one under a reflection)
                sure = max((need - c) / 18, (self.SHARE - share) / 0.3)
                out.append((".", float(np.clip(sure, 0, 1))))
        return out

    def _glared(self, middles: Float, faces: npt.NDArray[np.float64],
                prints: npt.NDArray[np.float64]) -> list[tuple[str, float] | None]:
        """The reading of each skydiver whose middle is under a lamp's reflection (lit up
        to its face's white), from its linear-light pixels (skydivers, pixels, 3), that
        white (skydivers,) and the lightness of the darkest prints within a backpack's
        footprint around the middle, as a share of that white (skydivers,); None for the
        others (:meth:`_backpacks` reads those).

        A backpack's top is glossy: a reflection *adds* white light to it, which pales its
        colour in Lab (little chroma; an orange whose red clips turns yellow) but keeps,
        in linear light, the step between its strongest and weakest channel (its
        *excess*) until a channel clips, and its opponent hue. The grey recess and the
        suits (blue, green, purple, grey, teal) are never red-hued; an olive suit is
        yellow-orange, but mixed with the recess's grey under the reflection it keeps
        less excess than an orange, however yellow the orange's clipped red makes it (the
        clipping moves its hue, not its step down to blue); one that stays between is
        doubted. A middle lit to the face's white shows nothing: doubted too (a free
        skydiver's recess is darker than the face, a backpack coloured), unless prints
        show within a backpack's footprint around it. A backpack's top is one
        glossy surface standing above the prints: a reflection that blows out its middle
        blows it out to its edges. A free skydiver's suit, arms and the recess's rim lie
        there, printed, and absorb: they stay darker than the face's white where only the
        grey recess clips.
        """
        low, high, split = self.GLARE_HUE
        excess = (middles.max(axis=2) - middles.min(axis=2)) / faces.astype(np.float32)[:, None]
        hue = _hue(middles)
        out: list[tuple[str, float] | None] = []
        for k, m in enumerate(np.median(middles, axis=1)):
            level = float(m.max()) / float(faces[k])
            e = float(m.max() - m.min()) / float(faces[k])
            h = float(_hue(m[None])[0])
            need = self.NEED_RED if h < split else self.NEED_ORANGE
            share = float(((excess[k] > need / 2) & (hue[k] > low) & (hue[k] < high)).mean())
            backpack = low < h < high and e > need and share > self.SHARE
            if level < self.LIT:
                # A veil short of the face's white may pale a backpack under Lab's need
                # and leave its excess, at an unclipped orange's or red's hue; but so does
                # a warm cast the white balance leaves on the grey recess (a clipped
                # paper): a free reading there is doubted, not trusted. So is a middle
                # lit close to the white with its footprint lit beyond LIT all round,
                # whatever its tint: no suit prints there, so it may be a backpack's top
                # (around a free skydiver's recess its suit prints darker).
                close = level >= self.NEAR_LIT
                near = close and e > self.NEAR_NEED * need
                veiled = (backpack or near) and low < h < self.UNCLIPPED
                out.append((".", self.VEILED) if veiled or (close and prints[k] > self.LIT)
                           else None)
                continue
            if backpack:
                edge = min(h - low, abs(h - split) * 2, high - h)
                sure = min((e - need) / 0.1, edge / 8, (share - self.SHARE) / 0.2)
                out.append(("R" if h < split else "O", float(np.clip(sure, 0, 1))))
            elif prints[k] > self.LIT:
                out.append((".", 0.2))  # lit to the footprint's edges: nothing shows
            elif self.GLARE_PINK < h < high:  # between a suit and a paled backpack: doubted from
                # no excess to a third of what a backpack needs (olive suits reach a
                # yellow's need; a clipped orange keeps as little tint as a free
                # skydiver's middle under the same reflection, a sixth of its need)
                out.append((".", float(np.clip(1 - e / (self.DOUBTED * need), 0, 1))))
            else:
                out.append(None)
        return out

    # ------------------------------------------------------------------ anchoring
    def _name(self, i: int, j: int, a: int, b: int) -> str:
        assert self.anchor is not None
        tx, ty = i - self.anchor[0], self.anchor[1] - j
        return f"{2 * tx + a},{2 * ty + b}"

    def _anchor(self, seen: Mapping[tuple[int, int], Mapping[tuple[int, int], tuple[str, float]]]
                ) -> tuple[int, int]:
        """The lattice index of the game's tile (0, 0): the translation that best matches
        what is known (the last reading, else the start position); else the tile nearest
        the middle of the area."""
        known = self.last or self.start
        if known:
            wanted = {tuple(int(v) for v in k.split(",")): t for k, t in known.items()}
            wanted_tiles = {(x // 2, y // 2) for x, y in wanted}
            best, best_score = None, -1e9
            for ti, tj in seen:  # align some seen tile with some known tile
                for wx, wy in wanted_tiles:
                    anchor = (ti - wx, tj + wy)
                    score = 0.0
                    for (i, j), divers in seen.items():
                        tile = (i - anchor[0], anchor[1] - j)
                        score += 1.0 if tile in wanted_tiles else -1.0
                        for (a, b), (token, _) in divers.items():
                            sky = (2 * tile[0] + a, 2 * tile[1] + b)
                            score += 0.25 * (wanted.get(sky) == token)
                    if score > best_score:
                        best, best_score = anchor, score
            if best is not None:
                return best
        middle = QUINQUE_AREA / 2
        return min(seen, key=lambda t: np.hypot(self._square(*t)[0] + 1 - middle,
                                                self._square(*t)[1] + 1 - middle))

    # ------------------------------------------------------------------ calibration
    def calibrate(self, tops: Sequence[Float], truth: Mapping[str, str],
                  skip: frozenset[str] = frozenset()) -> dict[str, Any]:
        """Learns this set's hue between red and orange backpacks in this light: halfway
        between the two colours' median hues (the default when one colour is missing).
        ``skip`` is empty for Quinque (its cells come and go: nothing names them blown)."""
        image = lab(tops[0])
        self.reset()
        self.start = dict(truth)
        cells, _ = self.read(tops)
        hues: dict[str, list[float]] = {"R": [], "O": []}
        n = self.px
        for name, token in truth.items():
            if name not in cells or token not in hues:
                continue
            sx, sy = (int(v) for v in name.split(","))
            assert self.anchor is not None and self.phase is not None
            x0, y0 = self._square(sx // 2 + self.anchor[0], self.anchor[1] - sy // 2)
            c0, r0 = round((x0 + sx % 2) * n), round((y0 + 1 - sy % 2) * n)
            m = np.median(image[r0:r0 + n, c0:c0 + n][self._core], axis=0)
            hues[token].append(float(np.degrees(np.arctan2(m[2], m[1]))))
        self.reset()
        self.start = None
        if hues["R"] and hues["O"]:
            red, orange = float(np.median(hues["R"])), float(np.median(hues["O"]))
            if red < orange:
                self.split = (red + orange) / 2
        return {"split": self.split}

    def load(self, params: Mapping[str, Any]) -> None:
        # A calibration from before the hue split (nearest colours) keeps the default.
        self.split = float(params.get("split", self.RED_HUE[1]))


def _linear(top: Float) -> Float:
    """A white-balanced BGR area image (0-255) in linear light (0-1): the sRGB curve
    undone, so that light adds as it does on the piece."""
    out: Float = linear(np.clip(top, 0, 255)).astype(np.float32)
    return out


def _hue(colours: Float) -> npt.NDArray[np.float32]:
    """Opponent hue in degrees of linear BGR colours (..., 3): a red whose green and blue
    are alike lies at 26.6, an orange whose green is a fifth of its red at 37.8, a yellow
    (red and green alike) at 90. Adding white (a reflection) leaves it."""
    b, g, r = colours[..., 0], colours[..., 1], colours[..., 2]
    out: npt.NDArray[np.float32] = np.degrees(np.arctan2((r + g) / 2 - b, r - g)).astype(
        np.float32)
    return out
