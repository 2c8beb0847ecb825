"""Synthetic camera frames of any position of any game, for tests and the vision benchmark.

The board is drawn top-down (vision.appearance) and seen through a pinhole camera (tilt,
turn, scale, shift), pieces are prisms with height (their tops shift with parallax and
their sides show), then the frame gets a light colour and level, a light gradient, a soft
shadow, optionally a hand and arm over the board, blur, sensor noise and a JPEG round trip.

>>> frame = render("tessere", {"c3": "RY", "a1": "K"}, Conditions(tilt=20, seed=3))
>>> frame.image.shape, frame.cells["c3"], frame.hand
((720, 1280, 3), 'RY', False)

Board coordinates are vision.geometry's (cells; origin at the playing area's top-left
corner, y downwards); ``Rendered.homography`` maps them on the board's surface (height 0:
the markers, the cell lines) to image pixels, with pixel centres at integer coordinates.
A piece's top face is higher and so lies off that plane: see docs/vision-renderer.md.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import lru_cache

import cv2
import numpy as np

from tavola.vision import appearance as look
from tavola.vision.geometry import QUINQUE_AREA, BoardGeometry, geometry_for

FOV = 62.0  # degrees, the camera's horizontal field of view
BOARD_THICKNESS = 0.35  # cells; the board's edge shows under tilt
NEUTRAL_KELVIN = 5500.0  # light of this temperature leaves colours as drawn
WB_RESIDUAL = 0.6  # share of the light's colour cast the camera's white balance leaves

GAMES = ("morris", "draughts", "quixo", "tessere", "sequence-kids", "quinque")
_TESSERE = ("R", "Y", "G", "B", "RY", "RG", "RB", "YG", "YB", "GB", "RYGB", "K")


@dataclass(frozen=True)
class Conditions:
    """How the camera sees the board in one frame. Defaults: square on, neutral, clean."""

    width: int = 1280
    height: int = 720
    tilt: float = 0.0  # degrees, camera tilt from straight down (0..30)
    turn: float = (
        0.0  # degrees, rotation of the board in the image (-15..15), + = counter-clockwise
    )
    scale: float = 0.8  # fraction of the frame's short side the board extent fills
    shift: tuple[float, float] = (0.0, 0.0)  # board centre offset, fraction of frame
    kelvin: float = 5000.0  # light colour temperature 2700..6500
    brightness: float = 1.0  # 0.6..1.3
    gradient: float = 0.0  # 0..0.5, a linear light falloff across the board
    shadow: float = 0.0  # 0..0.5, opacity of a soft shadow blob
    noise: float = 0.0  # sensor noise sigma in 0..255 units (0..8)
    blur: float = 0.0  # gaussian blur sigma in pixels (0..1.5)
    jpeg: int | None = None  # JPEG quality (40..95) or None
    hand: float = 0.0  # 0: none; else fraction of the board a hand/arm covers (0.1..0.4)
    seed: int = 0
    azimuth: float = (
        0.0  # degrees, where the tilted camera stands: 0 beyond rank 1, 90 beyond the last file
    )


@dataclass(frozen=True)
class Rendered:
    """A frame and the truth behind it."""

    image: np.ndarray  # HxWx3 uint8, BGR
    homography: np.ndarray  # 3x3, board coordinates (cell units) -> image pixels
    cells: dict[str, str]  # the truth that was drawn (cell -> token)
    hand: bool  # a hand is over the board in this frame
    hand_cells: frozenset[str]  # cells the hand covers (partly or wholly)
    centres: dict[str, tuple[float, float]] = field(default_factory=dict)
    """Board coordinates where each piece's centre was drawn (jitter included); quinque:
    every skydiver's centre on the table area, so the engine-to-table offset is known."""
    hand_mask: np.ndarray | None = None  # HxW uint8, 255 where the hand is; None without one


def tokens(game: str, *, players: int = 2) -> frozenset[str]:
    """The tokens ``render`` draws for ``game`` (``""`` is always allowed: an empty cell).

    >>> sorted(tokens("draughts"))
    ['B', 'BK', 'W', 'WK']
    """
    geometry_for(game)
    if game == "quixo":
        if players == 4:
            return frozenset({"."} | {m + d for m in "OX" for d in "nesw"})
        return frozenset({".", "O", "X"})
    return frozenset(
        {
            "morris": ("W", "B"),
            "draughts": ("W", "B", "WK", "BK"),
            "tessere": _TESSERE,
            "sequence-kids": ("R", "Y", "B", "G"),
            "quinque": (".", "R", "O"),
        }[game]
    )


def light_gain(kelvin: float) -> tuple[float, float, float]:
    """The BGR factors a light of ``kelvin`` puts on nominal colours (green is 1).

    Divide a frame's colours by it (and by the brightness) to undo the cast:
    ``light_gain(2700)`` is about (0.71, 1, 1.24), orange; ``light_gain(6500)`` slightly blue.
    """

    def rgb(k: float) -> np.ndarray:
        t = k / 100.0
        r = 255.0 if t <= 66 else 329.698727446 * (t - 60) ** -0.1332047592
        g = (
            99.4708025861 * math.log(t) - 161.1195681661
            if t <= 66
            else 288.1221695283 * (t - 60) ** -0.0755148492
        )
        b = (
            255.0
            if t >= 66
            else (0.0 if t <= 19 else 138.5177312231 * math.log(t - 10) - 305.0447927307)
        )
        return np.asarray(np.clip(np.array([r, g, b]), 1.0, 255.0), np.float64)

    ratio = (rgb(kelvin) / rgb(NEUTRAL_KELVIN)) ** WB_RESIDUAL
    ratio /= ratio[1]
    return float(ratio[2]), float(ratio[1]), float(ratio[0])


def empty_board(game: str) -> dict[str, str]:
    """Every cell of ``game`` empty (quixo: no cubes in the tray; quinque: no tiles)."""
    if game == "quinque":
        return {}
    return {cell: "" for cell in geometry_for(game).cells}


def random_position(game: str, rng: random.Random, *, players: int = 2) -> dict[str, str]:
    """A plausible mix of the game's tokens (not necessarily reachable by play)."""
    g = geometry_for(game)
    out = empty_board(game)
    if game == "morris":
        free = list(g.cells)
        rng.shuffle(free)
        for colour in "WB":
            for _ in range(rng.randint(0, 9)):
                out[free.pop()] = colour
    elif game == "draughts":
        p = rng.uniform(0.2, 0.6)
        counts = {"W": 0, "B": 0}
        for cell in g.cells:
            colour = rng.choice("WB")
            if rng.random() < p and counts[colour] < 12:
                counts[colour] += 1
                out[cell] = colour + ("K" if rng.random() < 0.2 else "")
    elif game == "quixo":
        marks = sorted(tokens(game, players=players) - {"."})
        blank = rng.uniform(0.2, 0.9)
        for cell in g.cells:
            out[cell] = "." if rng.random() < blank else rng.choice(marks)
    elif game == "tessere":
        bag = ["R", "Y", "G", "B", "RYGB", "K", "K"] + [
            t for t in _TESSERE if len(t) == 2 for _ in range(3)
        ]
        rng.shuffle(bag)
        cells = list(g.cells)
        rng.shuffle(cells)
        for cell, token in zip(cells[: rng.randint(0, 25)], bag, strict=False):
            out[cell] = token
    elif game == "sequence-kids":
        colours = "RYBG"[: max(2, min(players, 4))]
        p = rng.uniform(0.1, 0.6)
        for cell in g.cells:
            if cell not in look.FREE_CORNERS and rng.random() < p:
                out[cell] = rng.choice(colours)
    else:  # quinque
        out = _random_quinque(rng)
    return out


def _random_quinque(rng: random.Random) -> dict[str, str]:
    tiles = [(0, 0)]
    for _ in range(rng.randint(0, 15)):
        for _attempt in range(20):
            tx, ty = rng.choice(tiles)
            dx, dy = rng.choice(((1, 0), (-1, 0), (0, 1), (0, -1)))
            new = (tx + dx, ty + dy)
            xs, ys = [t[0] for t in [*tiles, new]], [t[1] for t in [*tiles, new]]
            if new not in tiles and max(xs) - min(xs) < 7 and max(ys) - min(ys) < 7:
                tiles.append(new)
                break
    out: dict[str, str] = {}
    left = {"R": 18, "O": 18}
    for tx, ty in tiles:
        keys = [f"{2 * tx + i},{2 * ty + j}" for j in (0, 1) for i in (0, 1)]
        for k in keys:
            out[k] = "."
        colour = rng.choice("RO")  # a tile enters with a backpack
        out[rng.choice(keys)] = colour
        left[colour] -= 1
    extra = rng.randint(0, min(left.values()))
    free = sorted(k for k, v in out.items() if v == ".")
    rng.shuffle(free)
    for k in free[: 2 * extra]:
        out[k] = rng.choice("RO")
    return out


def random_conditions(rng: random.Random, *, hand: bool = False, hard: bool = False) -> Conditions:
    """Conditions drawn from BOARD.md's ranges; ``hard`` leans on their far ends.

    The board with its markers always lies wholly in the frame, 3 % from its edges (a marker
    touching the frame's edge is lost to any detector; that case is for explicit tests).
    """
    u = rng.uniform
    scale = u(0.55, 0.85) if hard else u(0.65, 0.9)
    cond = Conditions(
        tilt=u(15, 30) if hard else u(0, 20),
        turn=u(-15, 15) if hard else u(-8, 8),
        azimuth=u(-180, 180),
        scale=scale,
        shift=(u(-0.25, 0.25), u(-0.12, 0.12)),
        kelvin=u(2700, 6500),
        brightness=u(0.6, 1.3) if hard else u(0.8, 1.15),
        gradient=u(0.2, 0.5) if hard else u(0, 0.25),
        shadow=u(0.2, 0.5) if hard else rng.choice((0.0, u(0, 0.25))),
        noise=u(3, 8) if hard else u(0, 3),
        blur=u(0.5, 1.5) if hard else u(0, 0.6),
        jpeg=rng.randint(40, 75) if hard else rng.choice((None, rng.randint(70, 95))),
        hand=u(0.1, 0.4) if hand else 0.0,
        seed=rng.randrange(2**31),
    )
    for attempt in range(40):
        if _fits(cond):
            break
        sx, sy = cond.shift
        cond = replace(cond, shift=(sx * 0.8, sy * 0.8))
        if attempt % 4 == 3:
            cond = replace(cond, scale=cond.scale * 0.97)
    return cond


_PROBE = BoardGeometry("probe", 8, 8, ())  # every board's extent fits its square, to scale


def _fits(c: Conditions, margin: float = 0.03) -> bool:
    """Whether the board's extent lies in the frame, ``margin`` of it from the edges."""
    x0, y0, x1, y1 = _PROBE.extent()
    corners = np.array([[x0, y0, 0], [x1, y0, 0], [x1, y1, 0], [x0, y1, 0]], float)
    pts = camera(_PROBE, c).project(corners)
    mx, my = margin * c.width, margin * c.height
    return bool(
        pts[:, 0].min() >= mx
        and pts[:, 1].min() >= my
        and pts[:, 0].max() <= c.width - mx
        and pts[:, 1].max() <= c.height - my
    )


# --- the camera -------------------------------------------------------------------------


class Camera:
    """A pinhole camera over the board. Points are (x, y, height above the board), cells."""

    def __init__(self, K: np.ndarray, R: np.ndarray, t: np.ndarray) -> None:
        self.K, self.R, self.t = K, R, t
        self.position = -R.T @ t

    def project(self, pts: np.ndarray) -> np.ndarray:
        """Image pixels (N, 2) of points (N, 3)."""
        world = np.column_stack([pts[:, 0], pts[:, 1], -pts[:, 2]])
        cam = world @ self.R.T + self.t
        uv = cam @ self.K.T
        return np.asarray(uv[:, :2] / uv[:, 2:3])

    def plane(self, height: float = 0.0) -> np.ndarray:
        """The homography from board coordinates at ``height`` to image pixels."""
        m = np.column_stack([self.R[:, 0], self.R[:, 1], -self.R[:, 2] * height + self.t])
        h = self.K @ m
        return np.asarray(h / h[2, 2])

    def distance(self, x: float, y: float, height: float) -> float:
        return float(np.linalg.norm(self.position - np.array([x, y, -height])))


def camera(geometry: BoardGeometry, c: Conditions) -> Camera:
    """The camera the conditions describe: it looks at the board extent's centre."""
    x0, y0, x1, y1 = geometry.extent()
    size = max(x1 - x0, y1 - y0)
    f = c.width / (2 * math.tan(math.radians(FOV / 2)))
    dist = size * f / (c.scale * min(c.width, c.height))
    centre = np.array([(x0 + x1) / 2, (y0 + y1) / 2, 0.0])
    tilt, az, turn = math.radians(c.tilt), math.radians(c.azimuth), math.radians(c.turn)
    away = np.array([math.sin(az), math.cos(az), 0.0])  # azimuth 0: beyond the bottom edge
    pos = centre + dist * math.sin(tilt) * away + np.array([0.0, 0.0, -dist * math.cos(tilt)])
    fwd = (centre - pos) / np.linalg.norm(centre - pos)
    down = np.array([-math.sin(turn), math.cos(turn), 0.0])
    y_axis = down - down.dot(fwd) * fwd
    y_axis /= np.linalg.norm(y_axis)
    x_axis = np.cross(y_axis, fwd)
    R = np.stack([x_axis, y_axis, fwd])
    K = np.array([[f, 0.0, (c.width - 1) / 2], [0.0, f, (c.height - 1) / 2], [0.0, 0.0, 1.0]])
    # ``shift``: turn the camera (the principal point stays at the frame's centre, as in a
    # real camera) so that the board's centre lands off the middle of the frame
    target = np.array(
        [(c.width - 1) / 2 + c.shift[0] * c.width, (c.height - 1) / 2 + c.shift[1] * c.height, 1.0]
    )
    ray = np.linalg.solve(K, target)
    ray /= np.linalg.norm(ray)
    axis = np.cross([0.0, 0.0, 1.0], ray)
    if np.linalg.norm(axis) > 1e-12:
        angle = math.atan2(float(np.linalg.norm(axis)), float(ray[2]))
        R = _rotation(axis / np.linalg.norm(axis) * angle) @ R
    # A camera tilted from a diagonal, or turned off-centre, sees the board a little rotated:
    # roll it about the ray to the board's centre so that the board's "down" (towards rank 1)
    # is at ``turn`` in the image there.
    for _ in range(3):
        a, b = R @ (centre - pos), R @ (centre + np.array([0.0, 0.01, 0.0]) - pos)
        pa, pb = a[:2] / a[2], b[:2] / b[2]
        seen = math.atan2((pb - pa)[0], (pb - pa)[1])
        R = _rotation(ray * (seen - turn)) @ R
    return Camera(K, R, -R @ pos)


def _rotation(vector: np.ndarray) -> np.ndarray:
    """The rotation matrix of a rotation vector (axis times angle in radians)."""
    matrix, _ = cv2.Rodrigues(np.asarray(vector, np.float64).reshape(3, 1))
    return np.asarray(matrix, np.float64)


# --- rendering --------------------------------------------------------------------------


def render(
    game: str, cells: Mapping[str, str], conditions: Conditions = Conditions(), *, players: int = 2
) -> Rendered:
    """Draw ``cells`` (a position as ``Game.view()`` gives it) as the camera would see it.

    Cells missing from ``cells`` are empty. quinque: ``cells`` is keyed by skydiver
    ``"x,y"`` as the engine's view; a tile's missing skydivers are drawn free (``"."``).
    Unknown games, cells or tokens raise ValueError naming them.
    """
    c = conditions
    _check(c)
    g = geometry_for(game)
    truth = _truth(game, g, cells, players)
    # one random stream per stage, so that e.g. adding a hand leaves the pieces where they were
    rng = random.Random(f"{c.seed}:pieces")
    cam = camera(g, c)
    origin = _quinque_origin(truth, rng) if game == "quinque" else (0.0, 0.0)
    placed = look.pieces(game, truth, rng, origin=origin)
    ppc = _ppc(cam, g, c)

    frame = _table((c.height, c.width), random.Random(f"{c.seed}:table"))
    _draw_board(frame, game, g, cam, ppc)
    _draw_pieces(frame, placed, cam, ppc, np.random.default_rng([c.seed, 2]))
    hand_cells: frozenset[str] = frozenset()
    mask = None
    if c.hand > 0:
        hand_rng = random.Random(f"{c.seed}:hand")
        mask = _draw_hand(frame, g, cam, c.hand, hand_rng, np.random.default_rng([c.seed, 3]))
        regions = _cell_regions(game, g, truth, placed)
        hand_cells = _covered(mask, regions, cam)
    _light(frame, g, cam, c, random.Random(f"{c.seed}:light"))
    if c.blur > 0.05:
        frame = cv2.GaussianBlur(frame, (0, 0), c.blur)
    if c.noise > 0:
        frame += _sensor_noise(frame.shape, c.seed) * np.float32(c.noise)
    image = np.clip(frame + 0.5, 0, 255).astype(np.uint8)
    if c.jpeg is not None:
        ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, int(c.jpeg)])
        assert ok
        image = np.asarray(cv2.imdecode(data, cv2.IMREAD_COLOR), np.uint8)
    return Rendered(
        image=image,
        homography=cam.plane(0.0),
        cells=truth,
        hand=c.hand > 0,
        hand_cells=hand_cells,
        centres=_centres(game, truth, placed, origin),
        hand_mask=mask,
    )


def _check(c: Conditions) -> None:
    limits: dict[str, tuple[float, float]] = {
        "width": (64, 8192), "height": (64, 8192), "tilt": (0, 45), "turn": (-180, 180),
        "scale": (0.1, 1.5), "kelvin": (1500, 12000), "brightness": (0.1, 3), "gradient": (0, 1),
        "shadow": (0, 1), "noise": (0, 50), "blur": (0, 10), "hand": (0, 0.8),
        "azimuth": (-360, 360),
    }  # fmt: skip
    for name, (lo, hi) in limits.items():
        value = getattr(c, name)
        if not lo <= value <= hi:
            raise ValueError(f"Conditions.{name}={value} is out of range; give {lo}..{hi}")
    if c.jpeg is not None and not 1 <= c.jpeg <= 100:
        raise ValueError(f"Conditions.jpeg={c.jpeg} is out of range; give 1..100 or None")


def _truth(game: str, g: BoardGeometry, cells: Mapping[str, str], players: int) -> dict[str, str]:
    allowed = tokens(game, players=players) | {""}
    for key, token in cells.items():
        if token not in allowed:
            known = " ".join(sorted(allowed - {""}))
            raise ValueError(f"token {token!r} at {key!r} is not a {game} token; known: {known}")
    if game == "quinque":
        out: dict[str, str] = {}
        for key, token in cells.items():
            try:
                sx, sy = (int(v) for v in key.split(","))
            except ValueError:
                raise ValueError(f"quinque cell {key!r} is not a skydiver 'x,y'") from None
            if token:
                for j in (0, 1):
                    for i in (0, 1):
                        out.setdefault(f"{sx - sx % 2 + i},{sy - sy % 2 + j}", ".")
                out[f"{sx},{sy}"] = token
        return dict(sorted(out.items()))
    unknown = sorted(set(cells) - set(g.cells))
    if unknown:
        raise ValueError(f"cells {', '.join(unknown)} are not on the {game} board")
    for corner in look.FREE_CORNERS if game == "sequence-kids" else ():
        if cells.get(corner):
            raise ValueError(f"{corner} is a printed free space; no chip goes there")
    return {cell: cells.get(cell, "") for cell in g.cells}


def _quinque_origin(truth: Mapping[str, str], rng: random.Random) -> tuple[float, float]:
    tiles = look.quinque_tiles(truth)
    if not tiles:
        return 0.0, float(QUINQUE_AREA)
    xs, ys = [t[0] for t in tiles], [t[1] for t in tiles]
    m = 0.25
    lo_x, hi_x = m - 2 * min(xs), QUINQUE_AREA - m - 2 - 2 * max(xs)
    lo_y, hi_y = m + 2 + 2 * max(ys), QUINQUE_AREA - m + 2 * min(ys)
    if lo_x > hi_x or lo_y > hi_y:
        span = 2 * max(max(xs) - min(xs), max(ys) - min(ys)) + 2
        raise ValueError(
            f"the quinque cluster spans {span} skydivers; the table area holds {QUINQUE_AREA}"
        )
    return rng.uniform(lo_x, hi_x), rng.uniform(lo_y, hi_y)


def _ppc(cam: Camera, g: BoardGeometry, c: Conditions) -> int:
    """Pixels per cell of the top-down drawings: a little finer than the frame, a multiple of 30."""
    x0, y0, x1, y1 = g.extent()
    corners = np.array([[x0, y0, 0], [x1, y0, 0], [x1, y1, 0], [x0, y1, 0]], float)
    img = cam.project(corners)
    sides = [
        np.linalg.norm(img[k] - img[(k + 1) % 4]) / (x1 - x0 if k % 2 == 0 else y1 - y0)
        for k in range(4)
    ]
    out_ppc = max(sides)
    return 30 * min(4, max(1, math.ceil(1.2 * out_ppc / 30)))


_TABLES = ((60, 95, 135), (40, 60, 90), (150, 158, 165), (195, 200, 205), (70, 82, 72))


def _table(shape: tuple[int, int], rng: random.Random) -> np.ndarray:
    """The table around the board (float32 BGR): one of a few woods and laminates."""
    kind = rng.randrange(2 * len(_TABLES))
    tex = _table_texture(shape, kind)
    if rng.random() < 0.5:  # the same table, seen the other way round
        tex = tex[::-1, ::-1]
    return np.asarray(tex, np.float32)


@lru_cache(maxsize=4)
def _table_texture(shape: tuple[int, int], kind: int) -> np.ndarray:
    nrng = np.random.default_rng(kind)
    colour = _TABLES[kind % len(_TABLES)]
    if kind >= len(_TABLES):
        tex = look.wood(shape, colour, nrng, period=12 + 3 * kind)
    else:
        shade = 1 + 0.05 * look.smooth_noise(shape, 60, nrng)
        tex = shade[:, :, None] * np.array(colour, np.float32)
    out: np.ndarray = np.clip(tex, 0, 255).astype(np.uint8)
    out.flags.writeable = False
    return out


@lru_cache(maxsize=2)
def _noise_bank(size: int) -> np.ndarray:
    bank = np.random.default_rng(2024).standard_normal(size, dtype=np.float32)
    bank.flags.writeable = False
    return bank


def _sensor_noise(shape: tuple[int, ...], seed: int) -> np.ndarray:
    """Unit gaussian noise for a frame: a seeded window into a shared bank (drawing millions
    of fresh normals would cost more than all the rest of the frame)."""
    n = math.prod(shape)
    bank = _noise_bank(max(1 << 22, (n >> 20) + 2 << 20))
    start = random.Random(f"{seed}:noise").randrange(len(bank) - n)
    return bank[start : start + n].reshape(shape)


def _draw_board(frame: np.ndarray, game: str, g: BoardGeometry, cam: Camera, ppc: int) -> None:
    x0, y0, x1, y1 = look.canvas_origin(g)
    thickness = 0.03 if game == "quinque" else BOARD_THICKNESS
    rim = [
        (x, y, h) for h in (0.0, -thickness) for x, y in ((x0, y0), (x1, y0), (x1, y1), (x0, y1))
    ]
    edge = (20, 30, 40) if game == "quinque" else (35, 62, 95)
    _fill(frame, cv2.convexHull(cam.project(np.array(rim)).astype(np.float32))[:, 0], edge)
    to_canvas = np.array([[ppc, 0, -x0 * ppc - 0.5], [0, ppc, -y0 * ppc - 0.5], [0, 0, 1.0]])
    h = cam.plane(0.0) @ np.linalg.inv(to_canvas)
    board = cv2.cvtColor(look.board_image(game, ppc), cv2.COLOR_BGR2BGRA)  # opaque
    _composite(frame, board, h, (0, 0, frame.shape[1], frame.shape[0]))


def _draw_pieces(
    frame: np.ndarray, placed: list[look.Piece], cam: Camera, ppc: int, nrng: np.random.Generator
) -> None:
    if not placed:
        return
    # contact shadows (ambient occlusion) under every piece
    ao = np.zeros(frame.shape[:2], np.uint8)
    cell_px = np.linalg.norm(
        cam.project(np.array([[0, 0, 0], [1, 0, 0]], float)) @ np.array([1, -1])
    )
    for p in placed:
        grown = look.Piece(
            p.cell,
            p.token,
            p.kind,
            p.centre,
            p.size * 1.12,
            p.height,
            p.base,
            p.angle,
            round=p.round,
        )
        pts = cam.project(np.array(grown.outline(p.base)))
        cv2.fillPoly(ao, [np.round(pts * 16).astype(np.int32)], 255, cv2.LINE_AA, 4)
    aof = _soft(ao, max(1.0, 0.05 * float(cell_px)))
    _scale(frame, 1.0 - 0.45 * aof)
    order = sorted(
        placed, key=lambda p: (p.base, -cam.distance(p.centre[0], p.centre[1], p.base + p.height))
    )
    for p in order:
        pts = np.array(p.outline(p.base) + p.outline(p.base + p.height))
        hull = cv2.convexHull(cam.project(pts).astype(np.float32))[:, 0]
        _fill(frame, hull, p.side_colour())
        bgra, to_board = look.top_face(p, ppc, nrng)
        h = cam.plane(p.base + p.height) @ to_board
        n = bgra.shape[0]
        corners = cv2.perspectiveTransform(
            np.array([[[0, 0], [n - 1, 0], [n - 1, n - 1], [0, n - 1]]], np.float32), h
        )[0]
        _composite(frame, bgra, h, _bbox(corners, frame.shape))


def _soft(mask: np.ndarray, sigma: float) -> np.ndarray:
    """A uint8 mask blurred by ``sigma`` pixels, as float32 0..1 (wide blurs at low resolution)."""
    H, W = mask.shape
    k = max(1, int(sigma / 2))
    small = (
        mask
        if k == 1
        else cv2.resize(mask, (max(1, W // k), max(1, H // k)), interpolation=cv2.INTER_AREA)
    )
    soft = cv2.GaussianBlur(small.astype(np.float32) * np.float32(1 / 255), (0, 0), sigma / k)
    if k > 1:
        soft = cv2.resize(soft, (W, H), interpolation=cv2.INTER_LINEAR)
    return np.asarray(soft, np.float32)


def _bbox(pts: np.ndarray, shape: tuple[int, ...]) -> tuple[int, int, int, int]:
    bx0 = max(0, math.floor(float(pts[:, 0].min())) - 1)
    by0 = max(0, math.floor(float(pts[:, 1].min())) - 1)
    bx1 = min(shape[1], math.ceil(float(pts[:, 0].max())) + 2)
    by1 = min(shape[0], math.ceil(float(pts[:, 1].max())) + 2)
    return bx0, by0, bx1, by1


def _composite(
    frame: np.ndarray, bgra: np.ndarray, h: np.ndarray, box: tuple[int, int, int, int]
) -> None:
    """Warp a BGRA image by homography ``h`` into ``frame`` over the box, alpha-blended."""
    bx0, by0, bx1, by1 = box
    if bx1 <= bx0 or by1 <= by0:
        return
    shift = np.array([[1, 0, -bx0], [0, 1, -by0], [0, 0, 1.0]])
    warped = cv2.warpPerspective(
        bgra,
        shift @ h,
        (bx1 - bx0, by1 - by0),
        flags=cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_CONSTANT,
        borderValue=0,
    )
    a = warped[:, :, 3].astype(np.float32) * np.float32(1 / 255)
    _over(frame[by0:by1, bx0:bx1], warped[:, :, :3].astype(np.float32), a)


def _scale(img: np.ndarray, factor: np.ndarray) -> None:
    """``img`` (HxWx3 float32) *= ``factor`` (HxW float32), in place (cv2: 3x numpy's speed)."""
    cv2.multiply(img, cv2.merge((factor, factor, factor)), dst=img)


def _tint(img: np.ndarray, bgr: np.ndarray) -> None:
    """``img`` (HxWx3 float32) *= the colour ``bgr``, in place."""
    scalar = (float(bgr[0]), float(bgr[1]), float(bgr[2]), 0.0)
    cv2.multiply(img, scalar, dst=img)  # type: ignore[call-overload, unused-ignore]  # older cv2 stubs reject a Scalar


def _over(img: np.ndarray, colour: np.ndarray | tuple[float, ...], alpha: np.ndarray) -> None:
    """``img`` = ``colour`` over ``img`` with opacity ``alpha`` (HxW float32), in place."""
    if isinstance(colour, tuple):
        diff = cv2.subtract(img, (*colour, 0.0))  # type: ignore[call-overload, unused-ignore]  # a Scalar
    else:
        diff = cv2.subtract(img, colour)
    cv2.multiply(diff, cv2.merge((alpha, alpha, alpha)), dst=diff)
    cv2.subtract(img, diff, dst=img)


def _fill(
    frame: np.ndarray, pts: np.ndarray, colour: tuple[int, int, int], opacity: float = 1.0
) -> None:
    """Fill a polygon given in image pixels, antialiased."""
    bx0, by0, bx1, by1 = _bbox(pts, frame.shape)
    if bx1 <= bx0 or by1 <= by0:
        return
    mask = np.zeros((by1 - by0, bx1 - bx0), np.uint8)
    local = np.round((pts - np.array([bx0, by0])) * 16).astype(np.int32)
    cv2.fillPoly(mask, [local], 255, cv2.LINE_AA, 4)
    a = mask.astype(np.float32) * np.float32(opacity / 255)
    _over(frame[by0:by1, bx0:bx1], tuple(float(v) for v in colour), a)


# --- the hand ---------------------------------------------------------------------------

_SKIN = ((150, 182, 228), (128, 160, 212), (100, 132, 186), (72, 100, 150), (52, 72, 108))
_SLEEVE = ((60, 50, 40), (140, 90, 40), (40, 40, 140), (200, 200, 200), (60, 110, 60), (30, 30, 30))


def _hand_parts(
    g: BoardGeometry, rng: random.Random, fraction: float
) -> tuple[list[np.ndarray], bool]:
    """Board-space polygons of a hand and forearm covering ``fraction`` of the playing area.

    The first polygon is the forearm, whose first and last points are its far end (off the
    board); with a sleeve (the flag), the last polygon is the sleeve, of the same kind.
    """
    w, h = g.files, g.ranks
    side = rng.choices(("s", "e", "w", "n"), weights=(45, 20, 20, 15))[0]
    t = rng.uniform(0.2, 0.8)
    entry, inward = {
        "s": ((t * w, h), (0.0, -1.0)),
        "n": ((t * w, 0.0), (0.0, 1.0)),
        "e": ((w, t * h), (-1.0, 0.0)),
        "w": ((0.0, t * h), (1.0, 0.0)),
    }[side]
    a = math.radians(rng.uniform(-25, 25))
    du = (
        inward[0] * math.cos(a) - inward[1] * math.sin(a),
        inward[0] * math.sin(a) + inward[1] * math.cos(a),
    )
    dv = (-du[1], du[0])
    spread = [rng.uniform(-0.08, 0.08) for _ in range(4)]
    thumb_side = rng.choice((-1, 1))
    sleeve = rng.random() < 0.6
    width = max(1.5, 0.25 * min(w, h))

    def at(u: float, v: float) -> tuple[float, float]:
        return entry[0] + u * du[0] + v * dv[0], entry[1] + u * du[1] + v * dv[1]

    def capsule(u0: float, u1: float, v: float, fw: float) -> np.ndarray:
        r = fw / 2
        arc = [
            at(u1 - r + r * math.cos(q), v + r * math.sin(q))
            for q in np.linspace(-math.pi / 2, math.pi / 2, 7)
        ]
        return np.array([at(u0, v - r), *arc, at(u0, v + r)])

    def parts(reach: float, aw: float) -> list[np.ndarray]:
        pw, hl = aw * 1.2, aw * 1.9
        wrist = reach - hl
        out = [
            np.array(
                [at(-8, -aw / 2), at(wrist + 0.2, -aw / 2), at(wrist + 0.2, aw / 2), at(-8, aw / 2)]
            )
        ]
        palm_u = wrist + hl * 0.35
        out.append(
            np.array(
                [
                    at(palm_u + hl * 0.3 * math.cos(q), pw / 2 * math.sin(q))
                    for q in np.linspace(0, 2 * math.pi, 24, endpoint=False)
                ]
            )
        )
        for k in range(4):
            tip = reach - hl * 0.12 * abs(k - 1.5) / 1.5 + spread[k]
            out.append(capsule(palm_u, tip, (k - 1.5) * pw * 0.24, pw * 0.21))
        tv = pw / 2 * thumb_side
        out.append(np.array([at(palm_u - hl * 0.25, tv * 0.6), at(palm_u + hl * 0.05, tv * 1.35),
                             at(palm_u + hl * 0.15, tv * 1.2), at(palm_u, tv * 0.4)]))  # fmt: skip
        if sleeve:
            cuff = wrist - aw * rng_cuff
            out.append(
                np.array(
                    [
                        at(-8, -aw * 0.58),
                        at(cuff, -aw * 0.58),
                        at(cuff, aw * 0.58),
                        at(-8, aw * 0.58),
                    ]
                )
            )
        return out

    rng_cuff = rng.uniform(0.6, 2.0)
    res = 12  # raster px per cell for measuring coverage

    def coverage(polys: list[np.ndarray]) -> float:
        m = np.zeros((h * res, w * res), np.uint8)
        for poly in polys:
            cv2.fillPoly(m, [np.round((poly * res - 0.5) * 16).astype(np.int32)], 1, cv2.LINE_8, 4)
        return float(m.mean())

    hi = 0.0
    for _ in range(6):
        hi = math.hypot(w, h) + 2 * width
        if coverage(parts(hi, width)) >= fraction:
            lo = 0.0
            for _ in range(14):
                mid = (lo + hi) / 2
                lo, hi = (mid, hi) if coverage(parts(mid, width)) < fraction else (lo, mid)
            break
        width *= 1.3
    return parts(hi, width), sleeve


def _draw_hand(
    frame: np.ndarray,
    g: BoardGeometry,
    cam: Camera,
    fraction: float,
    rng: random.Random,
    nrng: np.random.Generator,
) -> np.ndarray:
    """Draw a hand and arm (and its shadow) over the frame; return its mask (uint8)."""
    polys, sleeve = _hand_parts(g, rng, fraction)
    H, W = frame.shape[:2]
    img_polys = []
    for k, poly in enumerate(polys):
        pts = cv2.perspectiveTransform(poly[None].astype(np.float64), cam.plane(0.0))[0]
        if k == 0 or (sleeve and k == len(polys) - 1):  # stretch the arm's far end out of the frame
            d = (pts[0] + pts[-1]) / 2 - (pts[1] + pts[2]) / 2
            d /= max(1e-6, float(np.linalg.norm(d)))
            pts[0] += d * 2 * (W + H)
            pts[-1] += d * 2 * (W + H)
            # clip to (just beyond) the frame: filling far-off polygons is slow
            frame_box = np.array([[-2, -2], [W + 2, -2], [W + 2, H + 2], [-2, H + 2]], np.float32)
            _, clipped = cv2.intersectConvexConvex(pts.astype(np.float32), frame_box)
            if clipped is None or len(clipped) < 3:
                img_polys.append(np.zeros((0, 2), np.int32))
                continue
            pts = clipped.reshape(-1, 2).astype(np.float64)
        img_polys.append(np.round(pts * 16).astype(np.int32))
    mask = np.zeros((H, W), np.uint8)
    for poly in img_polys:
        if len(poly):
            cv2.fillPoly(mask, [poly], 255, cv2.LINE_AA, 4)
    cell_px = float(
        np.linalg.norm(cam.project(np.array([[0, 0, 0], [1, 0, 0]], float)) @ np.array([1, -1]))
    )
    off = rng.uniform(0.3, 0.8) * cell_px
    ang = rng.uniform(0, 2 * math.pi)
    skin = np.array(rng.choice(_SKIN), np.float32)
    cloth = np.array(rng.choice(_SLEEVE), np.float32)
    # work on the part of the frame the hand and its shadow can reach
    ys, xs = np.nonzero(mask)
    if len(xs) == 0:
        return mask
    pad = int(off + 1.5 * cell_px) + 2
    x0, x1 = max(0, int(xs.min()) - pad), min(W, int(xs.max()) + pad + 1)
    y0, y1 = max(0, int(ys.min()) - pad), min(H, int(ys.max()) + pad + 1)
    roi, m = frame[y0:y1, x0:x1], mask[y0:y1, x0:x1]
    h, w = m.shape
    # its shadow on the board
    shift = np.array([[1, 0, off * math.cos(ang)], [0, 1, off * math.sin(ang)]], np.float32)
    shadow = cv2.warpAffine(m, shift, (w, h))
    _scale(roi, 1 - 0.4 * _soft(shadow, max(1.0, 0.4 * cell_px)))
    # skin, rounder in the middle and with some texture, and maybe a sleeve
    shade = 0.65 + 0.4 * _soft(m, max(1.0, 0.5 * cell_px))
    shade += 0.03 * look.smooth_noise((h, w), 8, nrng)
    colour = cv2.merge((shade, shade, shade))
    if sleeve:
        smask = np.zeros((H, W), np.uint8)
        if len(img_polys[-1]):
            cv2.fillPoly(smask, [img_polys[-1]], 255, cv2.LINE_AA, 4)
        sa = smask[y0:y1, x0:x1].astype(np.float32) / 255
        tint = cv2.merge(tuple(skin[k] + (cloth[k] - skin[k]) * sa for k in range(3)))
        cv2.multiply(colour, tint, dst=colour)
    else:
        _tint(colour, skin)
    _over(roi, colour, m.astype(np.float32) / 255)
    return mask


def _cell_regions(
    game: str, g: BoardGeometry, truth: Mapping[str, str], placed: list[look.Piece]
) -> dict[str, list[tuple[float, float, float]]]:
    """For each cell, 3D points whose image hull is what the camera sees of it (piece included)."""
    regions: dict[str, list[tuple[float, float, float]]] = {}
    if game == "quinque":
        for p in placed:
            if p.kind == "qtile":
                a = math.radians(p.angle)
                ca, sa = math.cos(a), math.sin(a)
                tx, ty = (int(v) for v in p.cell.split(","))
                for j in (0, 1):
                    for i in (0, 1):
                        u0, v0 = i - 0.5, 0.5 - j
                        pts = []
                        for du, dv in ((-0.5, -0.5), (0.5, -0.5), (0.5, 0.5), (-0.5, 0.5)):
                            u, v = u0 + du, v0 + dv
                            x, y = p.centre[0] + u * ca - v * sa, p.centre[1] + u * sa + v * ca
                            pts += [(x, y, 0.0), (x, y, p.height)]
                        regions[f"{tx + i},{ty + j}"] = pts
        for p in placed:
            if p.kind == "backpack":
                regions[p.cell] = regions.get(p.cell, []) + p.outline(p.base + p.height)
        return regions
    for cell in truth:
        x0, y0, x1, y1 = g.cell_rect(cell)
        regions[cell] = [(x0, y0, 0.0), (x1, y0, 0.0), (x1, y1, 0.0), (x0, y1, 0.0)]
    for p in placed:
        regions[p.cell] = regions[p.cell] + p.outline(p.base + p.height)
    return regions


def _covered(
    mask: np.ndarray, regions: Mapping[str, list[tuple[float, float, float]]], cam: Camera
) -> frozenset[str]:
    out = set()
    for cell, pts in regions.items():
        hull = cv2.convexHull(cam.project(np.array(pts)).astype(np.float32))[:, 0]
        bx0, by0, bx1, by1 = _bbox(hull, mask.shape)
        if bx1 <= bx0 or by1 <= by0:
            continue
        local = np.zeros((by1 - by0, bx1 - bx0), np.uint8)
        cv2.fillPoly(
            local,
            [np.round((hull - np.array([bx0, by0])) * 16).astype(np.int32)],
            255,
            cv2.LINE_8,
            4,
        )
        if np.any((local > 0) & (mask[by0:by1, bx0:bx1] > 64)):
            out.add(cell)
    return frozenset(out)


def _centres(
    game: str, truth: Mapping[str, str], placed: list[look.Piece], origin: tuple[float, float]
) -> dict[str, tuple[float, float]]:
    out: dict[str, tuple[float, float]] = {}
    if game != "quinque":
        return {p.cell: p.centre for p in placed}
    tiles = {p.cell: p for p in placed if p.kind == "qtile"}
    for key in truth:
        sx, sy = (int(v) for v in key.split(","))
        tile = tiles[f"{sx - sx % 2},{sy - sy % 2}"]
        a = math.radians(tile.angle)
        u, v = sx % 2 - 0.5, 0.5 - sy % 2
        out[key] = (
            tile.centre[0] + u * math.cos(a) - v * math.sin(a),
            tile.centre[1] + u * math.sin(a) + v * math.cos(a),
        )
    for p in placed:
        if p.kind == "backpack":
            out[p.cell] = p.centre
    return out


# --- light ------------------------------------------------------------------------------


def _light(
    frame: np.ndarray, g: BoardGeometry, cam: Camera, c: Conditions, rng: random.Random
) -> None:
    """Multiply the frame by the light: colour, level, vignette, gradient and shadow blob."""
    H, W = frame.shape[:2]
    sh, sw = max(2, H // 8), max(2, W // 8)
    ys, xs = np.mgrid[0:sh, 0:sw].astype(np.float64)
    u, v = (xs + 0.5) * W / sw - 0.5, (ys + 0.5) * H / sh - 0.5
    inv = np.linalg.inv(cam.plane(0.0))
    p = np.stack([u, v, np.ones_like(u)], -1) @ inv.T
    bx, by = p[..., 0] / p[..., 2], p[..., 1] / p[..., 2]
    x0, y0, x1, y1 = g.extent()
    cx, cy, size = (x0 + x1) / 2, (y0 + y1) / 2, max(x1 - x0, y1 - y0)
    r2 = ((u - W / 2) ** 2 + (v - H / 2) ** 2) / ((W / 2) ** 2 + (H / 2) ** 2)
    light = 1.0 - 0.15 * r2
    ang = rng.uniform(0, 2 * math.pi)
    if c.gradient > 0:
        ramp = np.clip(((bx - cx) * math.cos(ang) + (by - cy) * math.sin(ang)) / size + 0.5, 0, 1)
        light *= 1 - c.gradient * ramp
    if c.shadow > 0:
        sx, sy = rng.uniform(0, g.files), rng.uniform(0, g.ranks)
        ax, ay = rng.uniform(0.15, 0.35) * size, rng.uniform(0.1, 0.25) * size
        rot = rng.uniform(0, math.pi)
        du, dv = bx - sx, by - sy
        d = np.hypot(
            (du * math.cos(rot) + dv * math.sin(rot)) / ax,
            (-du * math.sin(rot) + dv * math.cos(rot)) / ay,
        )
        blob = np.clip((1.3 - d) / 0.6, 0, 1)
        light *= 1 - c.shadow * blob * blob * (3 - 2 * blob)
    full = cv2.resize(light.astype(np.float32), (W, H), interpolation=cv2.INTER_LINEAR)
    gain = np.array(light_gain(c.kelvin), np.float32) * np.float32(c.brightness)
    _scale(frame, full)
    _tint(frame, gain)
