"""Quinque: tiles anywhere on the marked table area, read in the game's own coordinates.

The table area is ``QUINQUE_AREA`` skydiver units square (vision.geometry); a tile is 2x2
units. Tiles are laid edge to edge, so the whole cluster sits on one lattice of period 2
whose phase (where a tile's corner falls) is found from the picture: everything that is
not the table mat is tile, and the phase that makes lattice squares most clearly full or
empty wins. Each full lattice square is a tile; each of its skydivers holds a red or an
orange backpack, or is free, by the share of backpack-coloured pixels around its middle.

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
from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt

from .geometry import QUINQUE_AREA
from .light import Float, lab
from .pieces import Cells, Confidence, Prototypes, Reader

__all__ = ["QuinqueReader"]

Lattice = tuple[float, float]  # the phase: board position of a tile corner, mod 2


class QuinqueReader(Reader):
    """Reads tiles and backpacks (``.`` free, ``R`` red, ``O`` orange) by skydiver."""

    game = "quinque"
    height = 0.15  # between a tile's top (0.08) and a backpack's (0.23), in units
    px = 16  # pixels per skydiver unit
    COLOURS: ClassVar[dict[str, tuple[float, float, float]]] = {
        # Lab: the two backpacks, then what else a tile shows (its face, the recess a
        # backpack fits in, the skydivers' heads and suits), so that an olive suit or a
        # head in warm light is not taken for an orange backpack.
        "R": (42.0, 58.0, 40.0),
        "O": (66.0, 36.0, 66.0),
        "tile": (85.0, -3.0, -15.0),
        "recess": (76.0, 0.0, 0.0),
        "head": (76.0, 8.0, 18.0),
        "olive": (62.0, -5.0, 55.0),
        "blue": (31.0, 13.0, -40.0),
        "green": (45.0, -35.0, 28.0),
        "purple": (33.0, 28.0, -15.0),
        "grey": (38.0, 0.0, 0.0),
        "teal": (48.0, -8.0, -22.0),
    }
    SPREAD: ClassVar[tuple[float, float, float]] = (30.0, 12.0, 12.0)
    MAT_CHROMA = 7.0  # (a, b) distance from the mat's colour that is no longer mat
    BACKPACK = 0.22  # share of backpack pixels around a skydiver that makes a backpack
    VIVID = 12  # the most colourful pixels around a skydiver's middle ...
    VIVID_CHROMA = 25.0  # ... this colourful (median) are a backpack seen small, by hue:
    RED_HUE = (-15.0, 42.0)  # degrees in (a, b): red ...
    ORANGE_HUE = (42.0, 76.0)  # ... orange (an olive suit in warm light: 80 and more)
    PRINTED = 4.5  # lightness spread (L) over a lattice square under which it is no tile
    CLEAR = 0.8  # lattice clarity below which the cluster has moved: find the lattice again

    def __init__(self, players: int = 2, params: Mapping[str, Any] | None = None,
                 start: Mapping[str, str] | None = None) -> None:
        self.colours = Prototypes.of(self.COLOURS, self.SPREAD)
        self.start = dict(start) if start else None
        self.phase: Lattice | None = None
        self.anchor: tuple[int, int] | None = None  # lattice index of the game's tile (0, 0)
        self.last: dict[str, str] = {}  # the last reading, to keep names when all tiles move
        super().__init__(players, params, start)
        self.cells = ()
        c = (np.arange(self.px) + 0.5) / self.px - 0.5
        u, v = np.meshgrid(c, c)
        self._near = np.hypot(u, v) < 0.3  # around a skydiver's middle

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
        tile = self._tile_mask(image)
        integral = np.pad(tile.astype(np.float64), ((1, 0), (1, 0))).cumsum(0).cumsum(1)
        moved = self.phase is None or self._clarity(integral, self.phase) < self.CLEAR
        if moved:  # the first frame, or the cluster was pushed as a whole: search afresh
            self.phase = self._phase(integral)
        assert self.phase is not None
        tiles = self._tiles(integral, self.phase)
        texture = {t: self._texture(image, t) for t in tiles}
        tiles = {t: cover for t, cover in tiles.items() if texture[t] >= self.PRINTED}
        if not tiles:
            return {}, {}
        seen = self._skydivers(image, list(tiles))
        if self.anchor is None or moved:
            self.anchor = self._anchor(seen)
        cells: Cells = {}
        confidence: Confidence = {}
        for (i, j), cover in tiles.items():
            sure = float(np.clip(min(abs(cover - 0.5) / 0.25,
                                     (texture[(i, j)] - self.PRINTED) / 3), 0, 1))
            for (a, b), (token, p) in seen[(i, j)].items():
                name = self._name(i, j, a, b)
                cells[name] = token
                confidence[name] = min(sure, p)
        self.last = dict(cells)
        return cells, confidence

    def _tile_mask(self, image: Float) -> npt.NDArray[np.bool_]:
        """Pixels that are not the mat: the mat is most of the area, dull and dark."""
        sample = image[::4, ::4].reshape(-1, 3)
        mat = np.median(sample[:, 1:], axis=0)
        level = float(np.median(sample[:, 0]))
        da = image[:, :, 1] - np.float32(mat[0])
        db = image[:, :, 2] - np.float32(mat[1])
        mask: npt.NDArray[np.bool_] = (da * da + db * db > self.MAT_CHROMA ** 2) | (
            image[:, :, 0] > level + 18)
        return mask

    def _texture(self, image: Float, index: tuple[int, int]) -> float:
        """The spread of lightness over a lattice square (the part inside the area): a
        tile's face carries its skydivers' prints; a lamp's reflection on the mat or its
        edge line is smooth."""
        x0, y0 = self._square(*index)
        n = self.px
        patch = image[max(0, round(y0 * n)):max(0, round((y0 + 2) * n)),
                      max(0, round(x0 * n)):max(0, round((x0 + 2) * n)), 0]
        return float(patch.std()) if patch.size > (2 * n) ** 2 // 2 else 0.0

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

    def _clarity(self, integral: npt.NDArray[np.float64], phase: Lattice) -> float:
        """How clearly the lattice squares of ``phase`` are full or empty: 1 when every
        square is all tile or all mat, less when squares are cut by tiles' edges."""
        cover = self._cover(integral, phase)
        touched = cover > 0.15  # the mat alone reads a few per cent (noise, texture)
        if not touched.any():
            return 1.0
        return float((np.abs(cover[touched] - 0.5) * 2).mean())

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

    def _skydivers(self, image: Float, tiles: Sequence[tuple[int, int]]) -> dict[
            tuple[int, int], dict[tuple[int, int], tuple[str, float]]]:
        """Per tile, (i, j) within it (i right, j up) -> (token, confidence), from the
        shares of red and orange pixels (nearest colour) around each skydiver's middle."""
        n = self.px
        places: list[tuple[tuple[int, int], tuple[int, int]]] = []
        patches: list[Float] = []
        out: dict[tuple[int, int], dict[tuple[int, int], tuple[str, float]]] = {}
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
                    patches.append(image[r0:r0 + n, c0:c0 + n][self._near])
        if not patches:
            return out
        names = self.colours.nearest(np.concatenate(patches)).reshape(len(patches), -1)
        red = (names == self.colours.names.index("R")).mean(axis=1)
        orange = (names == self.colours.names.index("O")).mean(axis=1)
        # A backpack seen small (a camera far away, a tilt) covers little of the middle,
        # and a lamp's reflection pales it; its most colourful pixels still show its hue.
        stack = np.stack(patches)
        chroma = np.hypot(stack[..., 1], stack[..., 2])
        top = np.take_along_axis(stack, np.argsort(chroma, axis=1)[:, -self.VIVID:, None], 1)
        vivid = np.median(top, axis=1)
        vivid_chroma = np.hypot(vivid[:, 1], vivid[:, 2])
        hue = np.degrees(np.arctan2(vivid[:, 2], vivid[:, 1]))
        for (index, ab), r, o, c, h in zip(places, red, orange, vivid_chroma, hue, strict=True):
            total = float(r + o)
            if total > self.BACKPACK:
                sure = min(1.0, (total - self.BACKPACK) / 0.1) * min(
                    1.0, float(abs(r - o)) / total / 0.4)
                out[index][ab] = ("R" if r > o else "O", sure)
            elif c > self.VIVID_CHROMA and self.RED_HUE[0] < h < self.ORANGE_HUE[1]:
                token = "R" if h < self.RED_HUE[1] else "O"
                edge = min(abs(h - self.RED_HUE[0]), abs(h - self.RED_HUE[1]),
                           abs(h - self.ORANGE_HUE[1]))
                out[index][ab] = (token, float(min(1.0, (c - self.VIVID_CHROMA) / 10, edge / 10)))
            else:
                out[index][ab] = (".", min(1.0, (self.BACKPACK - total) / 0.1))
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
    def calibrate(self, tops: Sequence[Float], truth: Mapping[str, str]) -> dict[str, Any]:
        image = lab(tops[0])
        self.reset()
        self.start = dict(truth)
        cells, _ = self.read(tops)
        rows, labels = [], []
        for name, token in truth.items():
            if name not in cells or token not in ("R", "O"):
                continue
            sx, sy = (int(v) for v in name.split(","))
            assert self.anchor is not None and self.phase is not None
            i, j = sx // 2 + self.anchor[0], self.anchor[1] - sy // 2
            x0, y0 = self._square(i, j)
            cx, cy = x0 + sx % 2 + 0.5, y0 + (1 - sy % 2) + 0.5
            r = round(cy * self.px)
            c = round(cx * self.px)
            rows.append(np.median(image[r - 2: r + 3, c - 2: c + 3].reshape(-1, 3), axis=0))
            labels.append(token)
        if rows:
            self.colours = self.colours.fitted(np.array(rows), labels)
        self.reset()
        self.start = None
        return {"colours": self.colours.to_dict()}

    def load(self, params: Mapping[str, Any]) -> None:
        self.colours = Prototypes.from_dict(params["colours"])
