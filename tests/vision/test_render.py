"""The synthetic renderer: every game draws, markers are where the homography says, the
hand is reported where it is, frames are deterministic, and every token looks like itself."""

from __future__ import annotations

import math
import random
from dataclasses import replace
from typing import Any

import cv2
import numpy as np
import pytest

from tavola.games import new_game
from tavola.vision import appearance as look
from tavola.vision.geometry import geometry_for
from tavola.vision.render import (
    GAMES,
    Conditions,
    camera,
    empty_board,
    light_gain,
    random_conditions,
    random_position,
    render,
    tokens,
)


def small(**changes: Any) -> Conditions:
    """A 640x360 frame: enough pixels for most checks, four times faster."""
    return replace(Conditions(width=640, height=360), **changes)


def _detect(image: np.ndarray) -> dict[int, np.ndarray]:
    dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    corners, ids, _ = cv2.aruco.ArucoDetector(dictionary, params).detectMarkers(image)
    if ids is None:
        return {}
    return {int(i): c.reshape(4, 2) for i, c in zip(ids.ravel(), corners, strict=True)}


def _to_image(h: np.ndarray, pts: object) -> np.ndarray:
    arr = np.array([pts], np.float64)
    return np.asarray(cv2.perspectiveTransform(arr, h)[0])


@pytest.mark.parametrize("game", GAMES)
def test_every_game_renders_empty_and_random_positions(game: str) -> None:
    rng = random.Random(game)
    for cells, cond in (
        (empty_board(game), small()),
        (random_position(game, rng), small(seed=1)),
        (random_position(game, rng), random_conditions(rng, hand=True, hard=True)),
    ):
        frame = render(game, cells, cond)
        assert frame.image.shape == (cond.height, cond.width, 3)
        assert frame.image.dtype == np.uint8
        assert frame.homography.shape == (3, 3)
        assert {k: v for k, v in frame.cells.items() if v} == {k: v for k, v in cells.items() if v}
        assert frame.image.std() > 10  # not a blank frame


@pytest.mark.parametrize("game", GAMES)
def test_engine_positions_render_as_the_engine_reports_them(game: str) -> None:
    g = new_game(game)
    for _ in range(6):
        moves = g.legal_moves()
        if not moves:
            break
        g.apply(moves[len(moves) // 2])
    view = g.view("identity")
    frame = render(game, view, small())
    assert frame.cells == dict(view)


@pytest.mark.parametrize(("game", "tilt", "azimuth"), [
    ("morris", 30, 0), ("draughts", 30, 90), ("quixo", 25, 180), ("tessere", 30, -45),
    ("sequence-kids", 30, 135), ("quinque", 20, 0),
])  # fmt: skip
def test_markers_are_found_where_the_homography_puts_them(
    game: str, tilt: float, azimuth: float
) -> None:
    rng = random.Random(7)
    cells = empty_board(game) if game == "quixo" else random_position(game, rng)
    cond = Conditions(tilt=tilt, azimuth=azimuth, turn=12, kelvin=3200, noise=2, jpeg=85, seed=4)
    frame = render(game, cells, cond)
    found = _detect(frame.image)
    assert sorted(found) == [0, 1, 2, 3]
    g = geometry_for(game)
    for marker_id, corners in found.items():
        expected = _to_image(frame.homography, g.marker(marker_id))
        assert np.abs(corners - expected).max() < 1.5, marker_id


def test_random_conditions_keep_the_markers_visible() -> None:
    rng = random.Random(11)
    for k in range(6):
        game = GAMES[k % 5]  # quixo's tall cubes may hide a marker; see docs
        cells = empty_board(game)
        frame = render(game, cells, random_conditions(rng, hard=k % 2 == 1))
        assert sorted(_detect(frame.image)) == [0, 1, 2, 3]


def test_the_camera_conditions_act_as_documented() -> None:
    g = geometry_for("tessere")
    centre = np.array([[2.5, 2.5, 0.0], [2.5, 3.5, 0.0]])
    cam = camera(g, Conditions(turn=10))
    a, b = cam.project(centre)
    assert math.degrees(math.atan2(b[0] - a[0], b[1] - a[1])) == pytest.approx(10, abs=0.01)
    assert a == pytest.approx([639.5, 359.5])  # the board's centre at the frame's centre
    x0, y0, _, y1 = g.extent()
    corners = camera(g, Conditions(scale=0.8)).project(np.array([[x0, y0, 0], [x0, y1, 0]]))
    assert corners[1][1] - corners[0][1] == pytest.approx(0.8 * 720)
    shifted = camera(g, Conditions(shift=(0.1, -0.05))).project(centre[:1])[0]
    assert shifted == pytest.approx([639.5 + 128, 359.5 - 36], abs=0.01)
    near, far = (
        camera(g, Conditions(tilt=30))
        .project(np.array([[0, 5, 0], [5, 5, 0], [0, 0, 0], [5, 0, 0]], float))
        .reshape(2, 2, 2)
    )
    assert np.linalg.norm(near[1] - near[0]) > 1.1 * np.linalg.norm(far[1] - far[0])


def test_hand_flag_cells_and_mask_agree() -> None:
    g = geometry_for("draughts")
    cells = random_position("draughts", random.Random(2))
    base = small(seed=5)
    plain = render("draughts", cells, base)
    assert not plain.hand and plain.hand_cells == frozenset() and plain.hand_mask is None
    frame = render("draughts", cells, small(seed=5, hand=0.3))
    assert frame.hand and frame.hand_mask is not None
    mask = frame.hand_mask > 127
    # the hand changed the picture where it is, and only the hand and its shadow changed it
    diff = np.abs(frame.image.astype(int) - plain.image.astype(int)).max(axis=2)
    assert np.median(diff[mask]) > 20
    # it covers about the asked fraction of the playing area (measured on the board)
    res = 20
    to_board = np.diag([res, res, 1.0]) @ np.linalg.inv(frame.homography)
    on_board = cv2.warpPerspective(frame.hand_mask, to_board, (8 * res, 8 * res))
    assert (on_board > 127).mean() == pytest.approx(0.3, abs=0.06)
    # a cell is reported if and only if the hand reaches its square or its piece
    for cell in g.cells:
        x0, y0, x1, y1 = g.cell_rect(cell)
        square = _to_image(frame.homography, [(x0, y0), (x1, y0), (x1, y1), (x0, y1)])
        inside = np.zeros(mask.shape, np.uint8)
        cv2.fillConvexPoly(inside, np.round(square).astype(np.int32), 1)
        touched = (inside.astype(bool) & mask).sum()
        if cell not in frame.hand_cells:
            assert touched == 0, cell
        elif not cells.get(cell):
            assert touched > 0, cell
    assert len(frame.hand_cells) >= 6


def test_the_hand_covers_quinque_skydivers_by_their_keys() -> None:
    cells = random_position("quinque", random.Random(3))
    for seed in range(8):
        frame = render("quinque", cells, small(seed=seed, hand=0.4))
        assert frame.hand
        assert frame.hand_cells <= set(frame.cells)
        if frame.hand_cells:
            return
    pytest.fail("no hand over any tile in 8 frames")


def test_frames_are_deterministic_by_seed() -> None:
    cells = random_position("tessere", random.Random(1))
    cond = small(tilt=12, noise=3, hand=0.2, jpeg=80, seed=9, shadow=0.3)
    a, b = render("tessere", cells, cond), render("tessere", cells, cond)
    assert np.array_equal(a.image, b.image) and a.hand_cells == b.hand_cells
    other = render("tessere", cells, small(tilt=12, noise=3, hand=0.2, seed=10))
    assert not np.array_equal(a.image, other.image)
    # the input's order does not matter
    flipped = render("tessere", dict(reversed(list(cells.items()))), cond)
    assert np.array_equal(a.image, flipped.image)


def _top_colour(frame_image: np.ndarray, game: str, cond: Conditions, at: tuple[float, float],
                height: float) -> np.ndarray:  # fmt: skip
    """The light-corrected BGR colour around board point ``at`` on a piece's top."""
    cam = camera(geometry_for(game), cond)
    u, v = cam.project(np.array([[at[0], at[1], height]]))[0]
    patch = frame_image[round(v) - 1 : round(v) + 2, round(u) - 1 : round(u) + 2].reshape(-1, 3)
    return np.asarray(patch.mean(axis=0) / (np.array(light_gain(cond.kelvin)) * cond.brightness))


def _nearest(colour: np.ndarray, palette: dict[str, tuple[int, int, int]]) -> str:
    return min(palette, key=lambda k: float(np.linalg.norm(colour - np.array(palette[k]))))


@pytest.mark.parametrize("kelvin", [2700, 6500])
def test_every_token_looks_like_itself_after_white_balance(kelvin: float) -> None:
    cond = Conditions(kelvin=kelvin, brightness=0.9, seed=3)
    # discs: light and dark; a king is two men stacked, no crown (BOARD.md)
    frame = render("draughts", {"a1": "W", "c1": "B", "e1": "WK", "g1": "BK"}, cond)
    for cell, token in frame.cells.items():
        if not token:
            continue
        (cx, cy), h = frame.centres[cell], look.DISC_HEIGHT * len(token)
        top = _top_colour(frame.image, "draughts", cond, (cx, cy), h)
        assert _nearest(top, look.DISC) == token[0], cell
        ring = _top_colour(frame.image, "draughts", cond, (cx + 0.2, cy), h)
        assert _nearest(ring, look.DISC) == token[0], cell
    frame = render("morris", {"a1": "W", "d1": "B"}, cond)
    for cell in ("a1", "d1"):
        colour = _top_colour(frame.image, "morris", cond, frame.centres[cell], look.DISC_HEIGHT)
        assert _nearest(colour, look.DISC) == frame.cells[cell]
    # tessere: the colour set of every checker, whatever the arrangement
    cells = dict(zip(geometry_for("tessere").cells, sorted(tokens("tessere")), strict=False))
    frame = render("tessere", cells, cond)
    for cell, token in cells.items():
        cx, cy = frame.centres[cell]
        samples = [
            _top_colour(frame.image, "tessere", cond, (cx + dx, cy + dy), look.TILE_HEIGHT)
            for dx in (-0.2, 0.2)
            for dy in (-0.2, 0.2)
        ]
        seen = {_nearest(colour, look.TESSERA) for colour in samples}
        assert seen == set(token), cell
    # sequence-kids chips
    frame = render("sequence-kids", {"b2": "R", "c2": "Y", "d2": "B", "e2": "G"}, cond)
    for cell, token in frame.cells.items():
        if token:
            colour = _top_colour(frame.image, "sequence-kids", cond, frame.centres[cell],
                                 look.CHIP_HEIGHT)  # fmt: skip
            assert _nearest(colour, look.CHIP) == token, cell
    # quinque backpacks, red and orange
    frame = render("quinque", {"0,0": "R", "1,0": "O", "2,1": "R", "3,1": "."}, cond)
    for key in ("0,0", "1,0", "2,1"):
        colour = _top_colour(frame.image, "quinque", cond, frame.centres[key],
                             look.QTILE_HEIGHT + look.BACKPACK_HEIGHT)  # fmt: skip
        assert _nearest(colour, look.BACKPACK) == frame.cells[key], key


@pytest.mark.parametrize("players", [2, 4])
def test_quixo_faces_and_dots(players: int) -> None:
    cond = Conditions(kelvin=3500, seed=2)
    faces = sorted(tokens("quixo", players=players))
    cells = dict(zip(geometry_for("quixo").cells, faces, strict=False))
    frame = render("quixo", cells, cond, players=players)
    dark = look.CUBE_MARK
    for cell, token in cells.items():
        cx, cy = frame.centres[cell]

        def looks(dx: float, dy: float, cx: float = cx, cy: float = cy) -> str:
            c = _top_colour(frame.image, "quixo", cond, (cx + dx, cy + dy), look.CUBE_HEIGHT)
            return _nearest(c, {"mark": dark, "face": look.CUBE_FACE})

        assert looks(0, 0) == ("mark" if token[0] == "X" else "face"), cell
        assert looks(0.24, 0) == ("mark" if token[0] == "O" else "face"), cell
        for d, (ux, uy) in look.DOT_DIRECTION.items():
            dot = looks(ux * look.DOT_OFFSET, uy * look.DOT_OFFSET)
            assert dot == ("mark" if token[1:] == d else "face"), (cell, d)


def test_sequence_kids_pictures_are_busy_and_fixed_per_cell() -> None:
    board = look.board_image("sequence-kids", 60)
    again = look.board_image("sequence-kids", 60)
    assert board is again  # drawn once per size
    g = geometry_for("sequence-kids")
    x0, y0, _, _ = look.canvas_origin(g)

    def cell_pixels(cell: str) -> np.ndarray:
        cx0, cy0, _, _ = g.cell_rect(cell)
        c, r = round((cx0 - x0) * 60), round((cy0 - y0) * 60)
        return board[r + 3 : r + 57, c + 3 : c + 57]

    pictures = [cell_pixels(c) for c in ("b2", "c3", "d4", "e5")]
    assert all(p.std() > 30 for p in pictures)
    assert not np.array_equal(pictures[0], pictures[1])


def test_bad_input_is_named() -> None:
    with pytest.raises(ValueError, match="'Q' at 'a1' is not a tessere token"):
        render("tessere", {"a1": "Q"})
    with pytest.raises(ValueError, match="cells b1 are not on the morris board"):
        render("morris", {"b1": "W"})
    with pytest.raises(ValueError, match="a1 is a printed free space"):
        render("sequence-kids", {"a1": "R"})
    with pytest.raises(ValueError, match="'On' at 'a1' is not a quixo token"):
        render("quixo", {"a1": "On"})
    with pytest.raises(ValueError, match="no board geometry for 'chess'"):
        render("chess", {})
    with pytest.raises(ValueError, match=r"Conditions.tilt=50 is out of range"):
        render("tessere", {}, Conditions(tilt=50))
    with pytest.raises(ValueError, match="spans 34 skydivers"):
        render("quinque", {f"{2 * k},0": "R" for k in range(17)})


def test_quinque_is_drawn_up_to_a_translation() -> None:
    cells = random_position("quinque", random.Random(4))
    offsets = []
    for seed in (1, 2):
        frame = render("quinque", cells, small(seed=seed))
        assert set(frame.centres) == set(frame.cells) == set(cells)
        # board y grows downwards, the engine's upwards
        shift = {
            k: (x - int(k.split(",")[0]), y + int(k.split(",")[1]))
            for k, (x, y) in frame.centres.items()
        }
        xs, ys = zip(*shift.values(), strict=True)
        assert max(xs) - min(xs) < 0.4 and max(ys) - min(ys) < 0.4
        assert all(0 < x < 16 and 0 < y < 16 for x, y in frame.centres.values())
        offsets.append((xs[0], ys[0]))
    assert offsets[0] != offsets[1]


def test_light_gain_is_neutral_at_5500_and_warm_below() -> None:
    assert light_gain(5500) == pytest.approx((1.0, 1.0, 1.0))
    b, g, r = light_gain(2700)
    assert r > 1.1 and b < 0.8 and g == 1.0
    b, g, r = light_gain(6500)
    assert b > 1.0 > r


def test_random_conditions_stay_in_range() -> None:
    rng = random.Random(0)
    for hard in (False, True):
        for _ in range(50):
            c = random_conditions(rng, hard=hard, hand=True)
            assert 0 <= c.tilt <= 30 and -15 <= c.turn <= 15 and 2700 <= c.kelvin <= 6500
            assert 0.6 <= c.brightness <= 1.3 and 0 <= c.gradient <= 0.5 and 0 <= c.shadow <= 0.5
            assert 0 <= c.noise <= 8 and 0 <= c.blur <= 1.5 and 0.1 <= c.hand <= 0.4
            assert c.jpeg is None or 40 <= c.jpeg <= 95
    assert random_conditions(random.Random(1)) == random_conditions(random.Random(1))
