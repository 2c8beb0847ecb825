"""How boards and pieces look from straight above, in nominal colours: the renderer's paint box.

Everything here is drawn top-down in board coordinates (vision.geometry: one unit per
cell, y downwards) at ``ppc`` pixels per cell; vision.render puts it in perspective and
lights it. Colours are BGR uint8 under neutral light (render.light_gain(5500) is 1, 1, 1).

- Boards are fixed per game (the same physical board in every frame): the wood grain and
  sequence-kids' busy pictures are seeded by the game and cell name, not by the frame.
- Pieces carry their own seeded variation: placement jitter of a few % of a cell, size
  +-4 %, a small rotation for square pieces, and for tessere the arrangement of the
  tesserae.

Piece sizes (cells; quinque: skydiver units) and heights are the constants below. Draughts
kings (``WK``/``BK``) are a double stack (twice the height) with no crown, as real sets
crown a man by stacking a second one on it (BOARD.md).
"""

from __future__ import annotations

import math
import random
import zlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache

import cv2
import numpy as np

from tavola.vision.geometry import BoardGeometry, geometry_for
from tavola.vision.markers import MODULES, PAPER, marker_bits

BGR = tuple[int, int, int]
At = Callable[[float, float], tuple[float, float]]

BOARD_MARGIN = 0.5  # cells of board beyond the markers (BoardGeometry.extent's margin)

# Nominal colours (BGR).
DISC: dict[str, BGR] = {"W": (200, 226, 238), "B": (38, 40, 48)}
TESSERA: dict[str, BGR] = {
    "R": (45, 40, 200),
    "Y": (35, 205, 240),
    "G": (70, 150, 40),
    "B": (175, 95, 30),
    "K": (30, 30, 32),
}
CHIP: dict[str, BGR] = {
    "R": (40, 40, 205),
    "Y": (30, 205, 240),
    "B": (195, 110, 30),
    "G": (60, 165, 50),
}
BACKPACK: dict[str, BGR] = {"R": (40, 35, 190), "O": (25, 125, 245)}
CUBE_FACE: BGR = (150, 198, 228)
CUBE_MARK: BGR = (48, 44, 46)
PRINT_BLACK: BGR = (30, 30, 30)
PAPER_WHITE: BGR = (238, 242, 242)

# Sizes (cells) and heights (cells) of the pieces.
DISC_SIZE, DISC_HEIGHT = 0.8, 0.15  # morris and draughts; a king is two discs
CUBE_SIZE, CUBE_HEIGHT = 0.92, 0.92  # quixo
TILE_SIZE, TILE_HEIGHT = 0.85, 0.12  # tessere checkers and blocks
CHIP_SIZE, CHIP_HEIGHT = 0.7, 0.06  # sequence-kids
QTILE_SIZE, QTILE_HEIGHT = 1.94, 0.08  # quinque tile (2x2 skydivers)
BACKPACK_SIZE, BACKPACK_HEIGHT = 0.42, 0.15  # quinque backpack, on a tile

DOT_OFFSET = 0.36  # quixo: the dot's distance from the cube's centre, cells
DOT_DIRECTION = {"n": (0.0, -1.0), "e": (1.0, 0.0), "s": (0.0, 1.0), "w": (-1.0, 0.0)}
TESSERA_ORDER = "RYGB"
FREE_CORNERS = ("a1", "f1", "a7", "f7")  # sequence-kids


@dataclass(frozen=True)
class Piece:
    """One piece as placed in a frame: a disc or a square prism with a painted top face."""

    cell: str  # the key in the rendered truth (quinque: the skydiver "x,y")
    token: str
    kind: str  # disc, cube, tessera, chip, qtile, backpack
    centre: tuple[float, float]  # board coordinates, jitter included
    size: float  # diameter or side, cells
    height: float
    base: float = 0.0  # height of the piece's bottom above the board (backpacks lie on tiles)
    angle: float = 0.0  # degrees, rotation of the top face
    colours: tuple[str, ...] = ()  # tessere: the four quadrants; quinque tile: marks
    round: bool = True  # a disc (True) or a square (False)

    def side_colour(self) -> BGR:
        """The colour of the piece's side, darker than its top as the light comes from above."""
        base = {
            "disc": DISC.get(self.token[:1], DISC["W"]),
            "cube": CUBE_FACE,
            "tessera": (60, 60, 62) if self.token == "K" else (170, 170, 170),
            "chip": CHIP.get(self.token, (128, 128, 128)),
            "qtile": (200, 200, 200),
            "backpack": BACKPACK.get(self.token, (128, 128, 128)),
        }[self.kind]
        return (int(base[0] * 0.6), int(base[1] * 0.6), int(base[2] * 0.6))

    def outline(self, z: float, points: int = 20) -> list[tuple[float, float, float]]:
        """Points (x, y, height) around the piece's footprint at height ``z``."""
        cx, cy = self.centre
        if self.round:
            r = self.size / 2
            return [
                (
                    cx + r * math.cos(2 * math.pi * k / points),
                    cy + r * math.sin(2 * math.pi * k / points),
                    z,
                )
                for k in range(points)
            ]
        h = self.size / 2
        a = math.radians(self.angle)
        c, s = math.cos(a), math.sin(a)
        return [
            (cx + u * c - v * s, cy + u * s + v * c, z)
            for u, v in ((-h, -h), (h, -h), (h, h), (-h, h))
        ]


# --- textures ---------------------------------------------------------------------------


def smooth_noise(shape: tuple[int, int], cell: float, rng: np.random.Generator) -> np.ndarray:
    """Smooth noise of roughly unit amplitude with features about ``cell`` pixels across."""
    h, w = shape
    gh, gw = max(2, int(h / cell) + 2), max(2, int(w / cell) + 2)
    coarse = rng.standard_normal((gh, gw)).astype(np.float32)
    return np.asarray(cv2.resize(coarse, (w, h), interpolation=cv2.INTER_CUBIC), np.float32)


def wood(
    shape: tuple[int, int], colour: BGR, rng: np.random.Generator, *, period: float
) -> np.ndarray:
    """A wood-grain texture (float32 BGR, 0-255): grain lines along x, about ``period`` px apart."""
    h, w = shape
    warp = smooth_noise(shape, period * 4, rng)
    y = np.arange(h, dtype=np.float32)[:, None]
    rings = np.sin(2 * np.pi * y / period + 2.5 * warp)
    fibre = smooth_noise((h, max(2, w // 8)), 1.5, rng)
    fibre = cv2.resize(fibre, (w, h), interpolation=cv2.INTER_LINEAR)
    shade = 1.0 + 0.05 * rings + 0.03 * fibre + 0.03 * smooth_noise(shape, period * 6, rng)
    return np.asarray(shade[:, :, None] * np.array(colour, np.float32), np.float32)


def _seed(*parts: str) -> int:
    return zlib.crc32("/".join(parts).encode())


# --- drawing helpers --------------------------------------------------------------------

_SHIFT = 4
_ONE = 1 << _SHIFT


def _fx(v: float) -> int:
    return round(v * _ONE)


class Canvas:
    """A top-down drawing of a board-coordinate region at ``ppc`` pixels per cell.

    Pixel centres are at integer pixel coordinates (OpenCV's convention), so board point
    (x, y) is at pixel ``((x - x0) * ppc - 0.5, (y - y0) * ppc - 0.5)``.
    """

    def __init__(self, image: np.ndarray, x0: float, y0: float, ppc: float) -> None:
        self.image, self.x0, self.y0, self.ppc = image, x0, y0, ppc

    def px(self, x: float, y: float) -> tuple[int, int]:
        return _fx((x - self.x0) * self.ppc - 0.5), _fx((y - self.y0) * self.ppc - 0.5)

    def poly(self, pts: Sequence[tuple[float, float]], colour: BGR | int) -> None:
        arr = np.array([self.px(x, y) for x, y in pts], np.int32)
        cv2.fillPoly(self.image, [arr], _c(colour), cv2.LINE_AA, _SHIFT)

    def rect(self, x0: float, y0: float, x1: float, y1: float, colour: BGR | int) -> None:
        self.poly([(x0, y0), (x1, y0), (x1, y1), (x0, y1)], colour)

    def line(
        self, a: tuple[float, float], b: tuple[float, float], width: float, colour: BGR | int
    ) -> None:
        t = max(1, round(width * self.ppc))
        cv2.line(self.image, self.px(*a), self.px(*b), _c(colour), t, cv2.LINE_AA, _SHIFT)

    def circle(self, x: float, y: float, r: float, colour: BGR | int, width: float = 0.0) -> None:
        t = -1 if width <= 0 else max(1, round(width * self.ppc))
        cv2.circle(self.image, self.px(x, y), _fx(r * self.ppc), _c(colour), t, cv2.LINE_AA, _SHIFT)

    def ellipse(
        self, x: float, y: float, ax: float, ay: float, angle: float, colour: BGR | int
    ) -> None:
        cv2.ellipse(
            self.image, self.px(x, y), (_fx(ax * self.ppc), _fx(ay * self.ppc)), angle, 0, 360,
            _c(colour), -1, cv2.LINE_AA, _SHIFT,
        )  # fmt: skip


def _c(colour: BGR | int) -> tuple[int, int, int] | int:
    return colour if isinstance(colour, int) else (int(colour[0]), int(colour[1]), int(colour[2]))


# --- boards -----------------------------------------------------------------------------


def canvas_origin(geometry: BoardGeometry) -> tuple[float, float, float, float]:
    """The board region the board image covers: the extent with ``BOARD_MARGIN``."""
    return geometry.extent(BOARD_MARGIN)


@lru_cache(maxsize=8)
def board_image(game: str, ppc: int) -> np.ndarray:
    """The empty board of ``game`` from straight above (BGR uint8), markers included.

    It covers ``canvas_origin(geometry)``; use a ``ppc`` that is a multiple of 30 so that
    the markers' modules fall on whole pixels.
    """
    g = geometry_for(game)
    x0, y0, x1, y1 = canvas_origin(g)
    w, h = round((x1 - x0) * ppc), round((y1 - y0) * ppc)
    rng = np.random.default_rng(_seed("board", game))
    if game == "quinque":
        felt = np.array((86, 102, 92), np.float32)  # a mat
        img = felt * (1 + 0.04 * smooth_noise((h, w), ppc * 0.7, rng))[:, :, None]
        img += rng.normal(0, 4, (h, w, 1)).astype(np.float32)
    else:
        frame = {"quixo": (60, 100, 150), "tessere": (110, 150, 190)}.get(game, (80, 125, 170))
        img = wood((h, w), frame, rng, period=ppc * 0.35)
    image = np.clip(img, 0, 255).astype(np.uint8)
    canvas = Canvas(image, x0, y0, ppc)
    {
        "morris": _morris,
        "draughts": _draughts,
        "quixo": _quixo,
        "tessere": _tessere,
        "sequence-kids": _sequence_kids,
        "quinque": _quinque_mat,
    }[game](canvas, g, rng)
    _markers(canvas, g)
    image.flags.writeable = False
    return image


def _area_texture(canvas: Canvas, g: BoardGeometry, colour: BGR, rng: np.random.Generator) -> None:
    ppc = canvas.ppc
    a, b = canvas.px(0, 0), canvas.px(g.files, g.ranks)
    c0, r0 = (a[0] + _ONE // 2) // _ONE, (a[1] + _ONE // 2) // _ONE
    c1, r1 = (b[0] + _ONE // 2) // _ONE, (b[1] + _ONE // 2) // _ONE
    tex = wood((r1 - r0 + 1, c1 - c0 + 1), colour, rng, period=ppc * 0.3)
    canvas.image[r0 : r1 + 1, c0 : c1 + 1] = np.clip(tex, 0, 255).astype(np.uint8)


def _morris(canvas: Canvas, g: BoardGeometry, rng: np.random.Generator) -> None:
    _area_texture(canvas, g, (120, 170, 210), rng)
    ink = (35, 40, 45)
    for k in range(3):
        lo, hi = 0.5 + k, 6.5 - k
        for a, b in (
            ((lo, lo), (hi, lo)),
            ((hi, lo), (hi, hi)),
            ((hi, hi), (lo, hi)),
            ((lo, hi), (lo, lo)),
        ):
            canvas.line(a, b, 0.06, ink)
    for a, b in (
        ((3.5, 0.5), (3.5, 2.5)),
        ((3.5, 4.5), (3.5, 6.5)),
        ((0.5, 3.5), (2.5, 3.5)),
        ((4.5, 3.5), (6.5, 3.5)),
    ):
        canvas.line(a, b, 0.06, ink)
    for cell in g.cells:
        canvas.circle(*g.cell_center(cell), 0.11, ink)


def _draughts(canvas: Canvas, g: BoardGeometry, rng: np.random.Generator) -> None:
    _area_texture(canvas, g, (150, 198, 230), rng)
    dark = wood((64, 64), (45, 80, 125), rng, period=9)
    for f in range(g.files):
        for r in range(g.ranks):
            if (f + r) % 2 == 0:
                cell = f"{chr(97 + f)}{r + 1}"
                x0, y0, x1, y1 = g.cell_rect(cell)
                tone = dark[(f * 7 + r * 3) % 64, (f * 11 + r * 5) % 64]
                canvas.rect(x0, y0, x1, y1, (int(tone[0]), int(tone[1]), int(tone[2])))
    _border(canvas, g, 0.05, (30, 45, 70))


def _quixo(canvas: Canvas, g: BoardGeometry, rng: np.random.Generator) -> None:
    _area_texture(canvas, g, (70, 115, 160), rng)
    for cell in g.cells:
        x0, y0, x1, y1 = g.cell_rect(cell)
        canvas.rect(x0 + 0.03, y0 + 0.03, x1 - 0.03, y1 - 0.03, (55, 95, 138))
    _border(canvas, g, 0.06, (35, 60, 95))


def _tessere(canvas: Canvas, g: BoardGeometry, rng: np.random.Generator) -> None:
    _area_texture(canvas, g, (175, 212, 232), rng)
    for k in range(g.files + 1):
        canvas.line((k, 0), (k, g.ranks), 0.03, (70, 75, 85))
    for k in range(g.ranks + 1):
        canvas.line((0, k), (g.files, k), 0.03, (70, 75, 85))
    _border(canvas, g, 0.07, (50, 60, 140))


def _sequence_kids(canvas: Canvas, g: BoardGeometry, rng: np.random.Generator) -> None:
    canvas.rect(0, 0, g.files, g.ranks, (225, 235, 240))
    for cell in g.cells:
        if cell in FREE_CORNERS:
            _free_corner(canvas, g, cell)
        else:
            _busy_picture(canvas, g, cell)
    for k in range(g.files + 1):
        canvas.line((k, 0), (k, g.ranks), 0.04, (60, 60, 60))
    for k in range(g.ranks + 1):
        canvas.line((0, k), (g.files, k), 0.04, (60, 60, 60))


_PICTURE_COLOURS: tuple[BGR, ...] = (
    (60, 60, 200), (40, 180, 230), (60, 150, 60), (190, 120, 40), (40, 100, 160), (150, 60, 150),
    (30, 30, 30), (240, 240, 240), (90, 200, 120), (200, 200, 80), (120, 80, 40), (80, 160, 220),
)  # fmt: skip


def _busy_picture(canvas: Canvas, g: BoardGeometry, cell: str) -> None:
    """A deterministic busy 'animal picture' for one cell: background, blobs, stripes, text."""
    r = random.Random(_seed("sequence-kids", cell))
    x0, y0, x1, y1 = g.cell_rect(cell)
    pastel = r.choice(
        ((200, 230, 210), (210, 220, 245), (235, 215, 200), (200, 235, 240), (225, 225, 225))
    )
    canvas.rect(x0, y0, x1, y1, pastel)
    for _ in range(r.randint(2, 4)):  # stripes or grass
        a = (x0 + r.random(), y0 + r.random())
        b = (x0 + r.random(), y0 + r.random())
        canvas.line(a, b, r.uniform(0.03, 0.1), r.choice(_PICTURE_COLOURS))
    for _ in range(r.randint(3, 6)):  # blobs
        canvas.ellipse(
            x0 + r.uniform(0.1, 0.9), y0 + r.uniform(0.1, 0.9), r.uniform(0.05, 0.25),
            r.uniform(0.05, 0.2), r.uniform(0, 180), r.choice(_PICTURE_COLOURS),
        )  # fmt: skip
    # the animal: a body, a head, an eye
    bx, by = x0 + r.uniform(0.35, 0.65), y0 + r.uniform(0.4, 0.65)
    body = r.choice(_PICTURE_COLOURS)
    canvas.ellipse(bx, by, r.uniform(0.18, 0.3), r.uniform(0.1, 0.18), r.uniform(-20, 20), body)
    hx, hy = bx + r.choice((-1, 1)) * r.uniform(0.18, 0.28), by - r.uniform(0.1, 0.2)
    canvas.circle(hx, hy, r.uniform(0.07, 0.12), body)
    canvas.circle(hx, hy - 0.02, 0.025, (20, 20, 20))
    # the animal's name, as text-like marks along the bottom
    tx = x0 + 0.1
    for _ in range(r.randint(3, 6)):
        w = r.uniform(0.04, 0.1)
        canvas.rect(tx, y1 - 0.14, tx + w, y1 - 0.07, (40, 40, 40))
        tx += w + 0.03
        if tx > x1 - 0.15:
            break


def _free_corner(canvas: Canvas, g: BoardGeometry, cell: str) -> None:
    """The printed free space: a flat white disc with a four-colour ring and a star."""
    x0, y0, x1, y1 = g.cell_rect(cell)
    canvas.rect(x0, y0, x1, y1, (190, 220, 235))
    cx, cy = g.cell_center(cell)
    for k, colour in enumerate(CHIP[c] for c in "RYBG"):
        pts = [(cx, cy)] + [
            (
                cx + 0.36 * math.cos(math.radians(90 * k + d)),
                cy + 0.36 * math.sin(math.radians(90 * k + d)),
            )
            for d in range(0, 91, 10)
        ]
        canvas.poly(pts, colour)
    canvas.circle(cx, cy, 0.27, (245, 245, 245))
    star = [
        (cx + (0.2 if k % 2 == 0 else 0.08) * math.sin(math.pi * k / 5),
         cy - (0.2 if k % 2 == 0 else 0.08) * math.cos(math.pi * k / 5))
        for k in range(10)
    ]  # fmt: skip
    canvas.poly(star, (40, 170, 230))


def _quinque_mat(canvas: Canvas, g: BoardGeometry, rng: np.random.Generator) -> None:
    canvas.line((0, 0), (g.files, 0), 0.04, (150, 160, 150))
    canvas.line((g.files, 0), (g.files, g.ranks), 0.04, (150, 160, 150))
    canvas.line((g.files, g.ranks), (0, g.ranks), 0.04, (150, 160, 150))
    canvas.line((0, g.ranks), (0, 0), 0.04, (150, 160, 150))


def _border(canvas: Canvas, g: BoardGeometry, width: float, colour: BGR) -> None:
    w, h = g.files, g.ranks
    for a, b in (((0, 0), (w, 0)), ((w, 0), (w, h)), ((w, h), (0, h)), ((0, h), (0, 0))):
        canvas.line(a, b, width, colour)


def _markers(canvas: Canvas, g: BoardGeometry) -> None:
    ppc = canvas.ppc
    paper = PAPER * g.marker_unit
    for marker_id in range(4):
        (mx0, my0), _, (mx1, my1), _ = g.marker(marker_id)
        canvas.rect(mx0 - paper, my0 - paper, mx1 + paper, my1 + paper, PAPER_WHITE)
        bits = marker_bits(marker_id)
        side = (mx1 - mx0) * ppc
        c0, r0 = round((mx0 - canvas.x0) * ppc), round((my0 - canvas.y0) * ppc)
        n = round(side)
        if abs(side - n) < 1e-6 and n % MODULES == 0 and abs((mx0 - canvas.x0) * ppc - c0) < 1e-6:
            big = np.kron(bits, np.ones((n // MODULES, n // MODULES), np.uint8))
            patch = np.where(
                big[:, :, None] > 0,
                np.array(PAPER_WHITE, np.uint8),
                np.array(PRINT_BLACK, np.uint8),
            )
            canvas.image[r0 : r0 + n, c0 : c0 + n] = patch
        else:  # not pixel-aligned: draw module by module (edges antialiased)
            m = (mx1 - mx0) / MODULES
            for r in range(MODULES):
                for c in range(MODULES):
                    if bits[r, c] == 0:
                        canvas.rect(
                            mx0 + c * m,
                            my0 + r * m,
                            mx0 + (c + 1) * m,
                            my0 + (r + 1) * m,
                            PRINT_BLACK,
                        )


# --- pieces -----------------------------------------------------------------------------


def pieces(
    game: str,
    truth: Mapping[str, str],
    rng: random.Random,
    *,
    origin: tuple[float, float] = (0.0, 0.0),
) -> list[Piece]:
    """The pieces of a (validated) position, placed with seeded jitter.

    ``origin`` is quinque's offset: skydiver (sx, sy) lies on the unit square whose
    top-left corner is (ox + sx, oy - sy - 1) in board coordinates (the engine's y grows
    upwards, the board's downwards).
    """
    if game == "quinque":
        return _quinque_pieces(truth, rng, origin)
    g = geometry_for(game)
    out: list[Piece] = []
    for cell in sorted(truth):
        token = truth[cell]
        if not token:
            continue
        cx, cy = g.cell_center(cell)
        if game in ("morris", "draughts"):
            j, size = 0.05, DISC_SIZE * rng.uniform(0.96, 1.04)
            height = DISC_HEIGHT * (2 if token.endswith("K") else 1)
            out.append(Piece(cell, token, "disc", _jitter(cx, cy, j, rng), size, height))
        elif game == "quixo":
            centre = _jitter(cx, cy, 0.015, rng)
            size = CUBE_SIZE * rng.uniform(0.99, 1.01)
            angle = rng.uniform(-3, 3)
            out.append(
                Piece(cell, token, "cube", centre, size, CUBE_HEIGHT, angle=angle, round=False)
            )
        elif game == "tessere":
            centre = _jitter(cx, cy, 0.04, rng)
            size = TILE_SIZE * rng.uniform(0.97, 1.03)
            angle, layout = rng.uniform(-6, 6), tessera_layout(token, rng)
            piece = Piece(cell, token, "tessera", centre, size, TILE_HEIGHT, angle=angle)
            out.append(replace(piece, colours=layout, round=False))
        else:  # sequence-kids
            out.append(
                Piece(
                    cell,
                    token,
                    "chip",
                    _jitter(cx, cy, 0.05, rng),
                    CHIP_SIZE * rng.uniform(0.96, 1.04),
                    CHIP_HEIGHT,
                )
            )
    return out


def tessera_layout(token: str, rng: random.Random) -> tuple[str, ...]:
    """The colours of a checker's four tesserae (top-left, top-right, bottom-right, bottom-left).

    One colour: all four; ``RYGB``: one each; two colours: 3+1, 2+2 or 1+3 at random, in a
    random arrangement; ``K``: the block, all black.
    """
    colours = list(token)
    if len(colours) == 2:
        first = rng.choice((1, 2, 3))
        colours = [colours[0]] * first + [colours[1]] * (4 - first)
    elif len(colours) == 1:
        colours *= 4
    rng.shuffle(colours)
    return tuple(colours)


def _jitter(cx: float, cy: float, amount: float, rng: random.Random) -> tuple[float, float]:
    return cx + rng.uniform(-amount, amount), cy + rng.uniform(-amount, amount)


def quinque_tiles(truth: Mapping[str, str]) -> dict[tuple[int, int], dict[tuple[int, int], str]]:
    """Tile (tx, ty) -> {(i, j): token} for the skydivers of a quinque view."""
    tiles: dict[tuple[int, int], dict[tuple[int, int], str]] = {}
    for key, token in truth.items():
        sx, sy = (int(v) for v in key.split(","))
        tiles.setdefault((sx // 2, sy // 2), {})[(sx % 2, sy % 2)] = token
    return tiles


def _quinque_pieces(
    truth: Mapping[str, str], rng: random.Random, origin: tuple[float, float]
) -> list[Piece]:
    ox, oy = origin
    out: list[Piece] = []
    for (tx, ty), marks in sorted(quinque_tiles(truth).items()):
        cx, cy = _jitter(ox + 2 * tx + 1, oy - 2 * ty - 1, 0.05, rng)
        angle = rng.uniform(-2.5, 2.5)
        a = math.radians(angle)
        layout = tuple(marks.get((i, j), ".") for i, j in ((0, 1), (1, 1), (1, 0), (0, 0)))
        out.append(
            Piece(f"{2 * tx},{2 * ty}", "tile", "qtile", (cx, cy), QTILE_SIZE, QTILE_HEIGHT,
                  angle=angle, colours=layout, round=False)
        )  # fmt: skip
        for (i, j), token in sorted(marks.items()):
            if token not in BACKPACK:
                continue
            u, v = i - 0.5, 0.5 - j  # skydiver's centre relative to the tile's, board axes
            bx = cx + u * math.cos(a) - v * math.sin(a) + rng.uniform(-0.05, 0.05)
            by = cy + u * math.sin(a) + v * math.cos(a) + rng.uniform(-0.05, 0.05)
            size = BACKPACK_SIZE * rng.uniform(0.95, 1.05)
            turn = angle + rng.uniform(-12, 12)
            key = f"{2 * tx + i},{2 * ty + j}"
            piece = Piece(
                key, token, "backpack", (bx, by), size, BACKPACK_HEIGHT, QTILE_HEIGHT, turn
            )
            out.append(replace(piece, round=False))
    return out


def top_face(piece: Piece, ppc: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """The piece's top face as a square BGRA uint8 patch at ``ppc`` pixels per cell.

    Returns the patch and the 3x3 transform from patch pixels to board coordinates (at the
    piece's top; the renderer lifts it).
    """
    n = math.ceil(piece.size * math.sqrt(2) * ppc) + 4
    half = (n - 1) / 2 / ppc
    cx, cy = piece.centre
    canvas = Canvas(
        np.zeros((n, n, 3), np.uint8), cx - half - 0.5 / ppc, cy - half - 0.5 / ppc, ppc
    )
    alpha = Canvas(np.zeros((n, n), np.uint8), canvas.x0, canvas.y0, ppc)
    a = math.radians(piece.angle)
    ca, sa = math.cos(a), math.sin(a)

    def at(u: float, v: float) -> tuple[float, float]:
        return cx + u * ca - v * sa, cy + u * sa + v * ca

    r = piece.size / 2
    if piece.round:
        alpha.circle(cx, cy, r, 255)
    else:
        alpha.poly([at(-r, -r), at(r, -r), at(r, r), at(-r, r)], 255)
    if piece.kind == "disc":
        colour = DISC[piece.token[:1]]
        canvas.circle(cx, cy, r, colour)
        canvas.circle(cx, cy, r * 0.72, _scale(colour, 0.85), width=0.03)
    elif piece.kind == "chip":
        colour = CHIP[piece.token]
        canvas.circle(cx, cy, r, _scale(colour, 0.85))
        canvas.circle(cx, cy, r * 0.82, colour)
        canvas.circle(cx - r * 0.25, cy - r * 0.25, r * 0.18, _scale(colour, 1.25))
    elif piece.kind == "cube":
        tex = wood((n, n), CUBE_FACE, rng, period=ppc * 0.25)
        canvas.image[:] = np.clip(tex, 0, 255).astype(np.uint8)
        _outline_square(canvas, at, r, _scale(CUBE_FACE, 0.8), 0.04)
        symbol = piece.token[:1]
        if symbol == "O":
            canvas.circle(cx, cy, 0.24, CUBE_MARK, width=0.08)
        elif symbol == "X":
            for d in (45, 135):
                dx, dy = 0.28 * math.cos(math.radians(d)), 0.28 * math.sin(math.radians(d))
                canvas.line(at(-dx, -dy), at(dx, dy), 0.09, CUBE_MARK)
        if len(piece.token) == 2:
            ux, uy = DOT_DIRECTION[piece.token[1]]
            canvas.circle(*at(ux * DOT_OFFSET, uy * DOT_OFFSET), 0.065, CUBE_MARK)
    elif piece.kind == "tessera":
        grout = (200, 205, 205) if piece.token != "K" else (70, 70, 72)
        canvas.poly([at(-r, -r), at(r, -r), at(r, r), at(-r, r)], grout)
        g = 0.025
        quads = (
            ((-r + g, -r + g), (-g, -g)),
            ((g, -r + g), (r - g, -g)),
            ((g, g), (r - g, r - g)),
            ((-r + g, g), (-g, r - g)),
        )
        for ((u0, v0), (u1, v1)), c in zip(quads, piece.colours, strict=True):
            canvas.poly([at(u0, v0), at(u1, v0), at(u1, v1), at(u0, v1)], TESSERA[c])
    elif piece.kind == "qtile":
        _quinque_tile(canvas, piece, at, r)
    elif piece.kind == "backpack":
        colour = BACKPACK[piece.token]
        canvas.poly([at(-r, -r), at(r, -r), at(r, r), at(-r, r)], colour)
        canvas.line(at(-r * 0.5, -r * 0.6), at(-r * 0.5, r * 0.6), 0.04, _scale(colour, 0.7))
        canvas.line(at(r * 0.5, -r * 0.6), at(r * 0.5, r * 0.6), 0.04, _scale(colour, 0.7))
    patch = canvas.image.astype(np.float32)
    # light from above: a little brighter in the middle, a little darker at the rim
    yy, xx = np.mgrid[0:n, 0:n].astype(np.float32)
    d = np.hypot(xx - (n - 1) / 2, yy - (n - 1) / 2) / max(1.0, r * ppc)
    shade = 1.04 - 0.08 * np.clip(d, 0, 1) ** 2
    patch *= shade[:, :, None]
    patch += rng.normal(0, 2.0, (n, n, 1)).astype(np.float32)
    bgra = np.dstack([np.clip(patch, 0, 255).astype(np.uint8), alpha.image])
    to_board = np.array(
        [[1 / ppc, 0, canvas.x0 + 0.5 / ppc], [0, 1 / ppc, canvas.y0 + 0.5 / ppc], [0, 0, 1]]
    )
    return bgra, to_board


_SUITS: tuple[BGR, ...] = (
    (140, 70, 40),
    (60, 120, 60),
    (120, 60, 110),
    (90, 90, 90),
    (40, 150, 170),
    (150, 120, 60),
)


def _quinque_tile(canvas: Canvas, piece: Piece, at: At, r: float) -> None:
    canvas.poly([at(-r, -r), at(r, -r), at(r, r), at(-r, r)], (238, 212, 170))
    canvas.poly([at(-r, -r), at(r, -r), at(r, 0), at(-r, 0)], (244, 224, 190))
    suits = random.Random(_seed("quinque", piece.cell))
    for u, v in ((-0.5, -0.5), (0.5, -0.5), (0.5, 0.5), (-0.5, 0.5)):
        suit = suits.choice(_SUITS)
        for du, dv in ((-0.3, -0.3), (0.3, -0.3), (-0.25, 0.33), (0.25, 0.33)):  # arms and legs
            canvas.line(at(u, v), at(u + du, v + dv), 0.07, suit)
        canvas.circle(*at(u, v - 0.24), 0.09, (150, 180, 220))  # head
        canvas.ellipse(*at(u, v), 0.11, 0.18, piece.angle, suit)
        canvas.circle(*at(u, v), 0.12, (185, 190, 190))  # the backpack's recess
    _outline_square(canvas, at, r, (150, 150, 150), 0.03)


def _outline_square(canvas: Canvas, at: At, r: float, colour: BGR, width: float) -> None:
    pts = [at(-r, -r), at(r, -r), at(r, r), at(-r, r)]
    for k in range(4):
        canvas.line(pts[k], pts[(k + 1) % 4], width, colour)


def _scale(colour: BGR, k: float) -> BGR:
    return (
        min(255, int(colour[0] * k)),
        min(255, int(colour[1] * k)),
        min(255, int(colour[2] * k)),
    )
