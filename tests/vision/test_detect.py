"""Markers, homography and tracking (vision/detect.py) on boards drawn with cv2 directly."""

from __future__ import annotations

from typing import Any, cast

import cv2
import numpy as np
import numpy.typing as npt
import pytest

from tavola.vision.detect import (
    MIN_MARKERS,
    BoardTracker,
    MarkersNotFoundError,
    _by_layout,
    _complete,
    _project,
    board_homography,
    find_markers,
    marker_match,
    warp_area,
    warp_matrix,
)
from tavola.vision.geometry import BoardGeometry, geometry_for

Image = npt.NDArray[np.uint8]
PX = 40  # pixels per cell of the drawn top-down board


def top_down(geometry: BoardGeometry) -> tuple[Image, tuple[float, float]]:
    """A light board with the four markers and a dark playing area outline, from above."""
    x0, y0, x1, y1 = geometry.extent()
    image = np.full((round((y1 - y0) * PX), round((x1 - x0) * PX), 3), (200, 215, 225), np.uint8)
    dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    for m in range(4):
        (mx, my), _, (mx1, _), _ = geometry.marker(m)
        side = round((mx1 - mx) * PX)
        bits = cv2.aruco.generateImageMarker(dictionary, m, side, borderBits=1)
        x, y = round((mx - x0) * PX), round((my - y0) * PX)
        image[y : y + side, x : x + side] = bits[:, :, None]
    for f in range(geometry.files):  # a chequer so that warps can be checked
        for r in range(geometry.ranks):
            if (f + r) % 2:
                x, y = round((f - x0) * PX), round((r - y0) * PX)
                image[y : y + PX, x : x + PX] = (60, 90, 120)
    return image, (x0, y0)


def camera(geometry: BoardGeometry, *, tilt: float = 0.0, turn: float = 0.0,
           shift: tuple[float, float] = (0.0, 0.0)) -> npt.NDArray[np.float64]:
    """A board -> pixel homography of a pinhole camera over the board's middle, looking down
    at ``tilt`` degrees from vertical, the board turned by ``turn``, 1280x720."""
    span = max(geometry.files, geometry.ranks) + 2 * (geometry.quiet + geometry.marker_side)
    distance = 3.0 * span  # cells: a normal lens at a normal height
    focal = 720 * 0.75 * distance / span
    t, a = np.radians(tilt), np.radians(turn)
    turn_m = np.array([[np.cos(a), -np.sin(a), 0], [np.sin(a), np.cos(a), 0], [0, 0, 1]])
    tilt_m = np.array([[1, 0, 0], [0, np.cos(t), -np.sin(t)], [0, np.sin(t), np.cos(t)]])
    r = tilt_m @ turn_m
    centre = np.array([[1, 0, -geometry.files / 2], [0, 1, -geometry.ranks / 2], [0, 0, 1.0]])
    # Plane z = 0: [r1 r2 t] maps (x, y, 1) to the camera frame.
    extrinsic = np.column_stack([r[:, 0], r[:, 1], [0.0, 0.0, distance]])
    k = np.array([[focal, 0, 640 + shift[0]], [0, focal, 360 + shift[1]], [0, 0, 1.0]])
    h = k @ extrinsic @ centre
    return np.asarray(h / h[2, 2], np.float64)


def frame(geometry: BoardGeometry, h: npt.NDArray[np.float64]) -> Image:
    image, (x0, y0) = top_down(geometry)
    out = cv2.warpPerspective(image, h @ warp_matrix(PX, x0, y0), (1280, 720),
                              borderValue=(90, 90, 90))
    return cast(Image, out)  # OpenCV's stubs widen the dtype; the image stays uint8


def corner_error(a: npt.ArrayLike, b: npt.ArrayLike, geometry: BoardGeometry) -> float:
    pts = np.array(geometry.area(), np.float64).reshape(-1, 1, 2)
    pa = cv2.perspectiveTransform(pts, np.asarray(a, np.float64))
    pb = cv2.perspectiveTransform(pts, np.asarray(b, np.float64))
    return float(np.abs(pa - pb).max())


@pytest.mark.parametrize(("game", "tilt", "turn"), [
    ("tessere", 0.0, 0.0), ("draughts", 25.0, 10.0), ("quinque", 15.0, -20.0),
    ("sequence-kids", 30.0, 180.0),
])
def test_the_markers_give_the_homography_to_a_fraction_of_a_pixel(
        game: str, tilt: float, turn: float) -> None:
    g = geometry_for(game)
    truth = camera(g, tilt=tilt, turn=turn)
    corners = find_markers(frame(g, truth))
    assert sorted(corners) == [0, 1, 2, 3]
    h, used = board_homography(g, corners)
    assert used == {0, 1, 2, 3}
    assert corner_error(h, truth, g) < 0.5


def test_three_markers_suffice_and_fewer_are_named() -> None:
    g = geometry_for("quixo")
    truth = camera(g, tilt=10.0)
    image = frame(g, truth)
    # Cover marker 2 (bottom right) with a hand-sized dark blob.
    (x, y), *_ = cv2.perspectiveTransform(np.array([[g.marker(2)[0]]], np.float64), truth)[0]
    cv2.circle(image, (int(x) + 30, int(y) + 30), 60, (40, 60, 90), -1)
    corners = find_markers(image)
    assert sorted(corners) == [0, 1, 3]
    h, used = board_homography(g, corners)
    assert used == {0, 1, 3} and corner_error(h, truth, g) < 0.7
    with pytest.raises(MarkersNotFoundError, match=r"markers 1 \(top right.*and 2") as err:
        board_homography(g, {m: corners[m] for m in (0, 3)})
    assert err.value.missing == (1, 2)
    with pytest.raises(MarkersNotFoundError, match="no board markers found"):
        board_homography(g, {})
    assert MIN_MARKERS == 3


def test_a_stray_marker_is_left_out() -> None:
    g = geometry_for("tessere")
    corners = find_markers(frame(g, camera(g)))
    corners[1] = corners[1] + np.float32(80)  # a marker 1 lying elsewhere on the table
    _, used = board_homography(g, corners)
    assert used == {0, 2, 3}


def test_the_tracker_keeps_the_homography_until_the_board_moves() -> None:
    g = geometry_for("tessere")
    tracker = BoardTracker(g)
    still = frame(g, camera(g, tilt=12.0))
    first = tracker.update(still)
    assert first.redetected and first.missing == ()
    again = tracker.update(still)
    assert not again.redetected and again.seen == {0, 1, 2, 3}
    moved_h = camera(g, tilt=12.0, shift=(8.0, 0.0))  # a bump: 8 px
    moved = frame(g, moved_h)
    assert min(marker_match(moved, first.homography, g, m) for m in range(4)) < 0.7
    fix = tracker.update(moved)
    assert fix.redetected and corner_error(fix.homography, moved_h, g) < 0.5


def test_a_covered_marker_keeps_tracking_and_a_lost_board_raises() -> None:
    g = geometry_for("tessere")
    h = camera(g)
    tracker = BoardTracker(g)
    tracker.update(frame(g, h))
    covered = frame(g, h)
    (x, y), *_ = cv2.perspectiveTransform(np.array([[g.marker(0)[2]]], np.float64), h)[0]
    cv2.circle(covered, (int(x) - 30, int(y) - 30), 70, (40, 60, 90), -1)
    fix = tracker.update(covered)
    assert not fix.redetected and fix.missing == (0,)
    blank = np.full((720, 1280, 3), 90, np.uint8)
    with pytest.raises(MarkersNotFoundError):
        tracker.update(blank)


def _paint(image: Image, g: BoardGeometry, h: npt.NDArray[np.float64], marker: int,
           colour: tuple[int, int, int]) -> None:
    """Paint over ``marker`` and its quiet zone (a hand on it, or a lamp's reflection)."""
    quad = cv2.perspectiveTransform(np.array([g.marker(marker)], np.float64), h)[0]
    middle = quad.mean(axis=0)
    grown = (middle + 1.6 * (quad - middle)).astype(np.int32)
    cv2.fillConvexPoly(image, grown, colour)


def test_two_markers_place_the_board_when_the_others_are_blown_out_or_out_of_view() -> None:
    g = geometry_for("tessere")
    h = camera(g, tilt=8.0)
    image = frame(g, h)
    _paint(image, g, h, 0, (255, 255, 255))  # a lamp's reflection blows marker 0 out
    _paint(image, g, h, 1, (255, 255, 255))
    fix = BoardTracker(g).update(image)
    assert fix.seen == {2, 3} and fix.missing == (0, 1)
    # Extrapolated from one side of the board: the far corners within a twentieth of a
    # cell (a cell is about 78 pixels here).
    assert corner_error(fix.homography, h, g) < 4.0
    # Marker 1 beyond the frame's top edge instead: the same.
    shifted = camera(g, tilt=8.0, shift=(0.0, -300.0))
    cut = frame(g, shifted)
    _paint(cut, g, shifted, 0, (255, 255, 255))
    fix = BoardTracker(g).update(cut)
    assert fix.seen == {2, 3} and corner_error(fix.homography, shifted, g) < 4.0


def test_two_markers_do_not_place_the_board_when_a_hand_covers_another() -> None:
    g = geometry_for("tessere")
    h = camera(g, tilt=8.0)
    image = frame(g, h)
    _paint(image, g, h, 0, (255, 255, 255))
    _paint(image, g, h, 1, (110, 150, 200))  # skin, smooth: something lies on marker 1
    with pytest.raises(MarkersNotFoundError):
        BoardTracker(g).update(image)


def test_periodic_redetection() -> None:
    g = geometry_for("quixo")
    tracker = BoardTracker(g, redetect_every=3)
    image = frame(g, camera(g))
    assert [tracker.update(image).redetected for _ in range(7)] == [
        True, False, False, True, False, False, True]


def test_the_warp_shows_the_area_from_above() -> None:
    g = geometry_for("draughts")
    h = camera(g, tilt=20.0, turn=30.0)
    top = warp_area(frame(g, h), h, (0.0, 0.0, 8.0, 8.0), 16)
    assert top.shape == (128, 128, 3)
    light, dark = top[4:12, 4:12].mean(), top[4:12, 20:28].mean()  # a8 light, b8 dark
    assert light > dark + 60


def test_markers_cut_by_the_frames_edge_still_place_the_board() -> None:
    # A camera so close that the frame cuts a corner off markers 1 and 3 (draughts-028 of
    # the 3D set): the two whole markers predict them, and the parts in the frame confirm.
    g = geometry_for("draughts")
    h = camera(g, turn=-15.0)
    pts = cv2.perspectiveTransform(
        np.array([g.marker(1) + g.marker(3)], np.float64), h)[0]
    top = int(pts[:4, 1].min() + 4)  # marker 1's top corner falls outside
    bottom = int(pts[4:, 1].max() - 4)  # and marker 3's bottom one
    image = np.ascontiguousarray(frame(g, h)[top:bottom])
    moved = np.array([[1, 0, 0], [0, 1, -top], [0, 0, 1]], np.float64) @ h
    corners = find_markers(image, geometry=g)
    assert sorted(corners) == [0, 1, 2, 3]
    assert np.isnan(corners[1]).any() and np.isnan(corners[3]).any()
    fitted, used = board_homography(g, corners)
    assert used == {0, 1, 2, 3} and corner_error(fitted, moved, g) < 0.7
    fix = BoardTracker(g).update(image)
    assert fix.seen == {0, 1, 2, 3}


def test_markers_cut_by_the_edge_are_searched_for_where_two_small_ones_predict_them() -> (
        None):
    # Small markers (43 px here; Quinque's were 24 px before they were sized in tiles): two,
    # diagonally opposite and
    # measured a fraction of a pixel off (blur, noise), put the other two 6-18 px from
    # where they are (quinque-119, -124 of the 3D set), too far for the corner refinement;
    # the part of each in the frame is searched for around the prediction.
    g = geometry_for("quinque")
    h = camera(g, turn=-15.0)
    pts = cv2.perspectiveTransform(np.array([g.marker(1) + g.marker(3)], np.float64), h)[0]
    top, bottom = int(pts[:4, 1].min() + 6), int(pts[4:, 1].max() - 6)
    image = np.ascontiguousarray(frame(g, h)[top:bottom])
    moved = np.array([[1, 0, 0], [0, 1, -top], [0, 0, 1]], np.float64) @ h
    found = find_markers(image)
    assert sorted(found) == [0, 2]  # the cut ones are not decoded
    # Each square measured 2 % too large (marker 0) or too small (marker 2): 0.3 px.
    off = {m: (c + 0.02 * (c - c.mean(axis=0)) * (1 if m == 0 else -1)).astype(np.float32)
           for m, c in found.items()}
    got = _complete(image, image[:, :, 1].copy(), g, off)
    assert sorted(got) == [1, 3]
    for m in (1, 3):
        truth = _project(moved, g.marker(m))
        seen = np.all(np.isfinite(got[m]), axis=1)
        assert 1 <= seen.sum() < 4  # cut by the frame's edge: the rest is not measured
        assert np.abs(got[m][seen] - truth[seen]).max() < 1.0


def test_markers_too_small_to_decode_are_told_apart_by_where_they_lie() -> None:
    # Four undecoded squares (a Quinque table from afar, quinque-008 of the 3D set): each
    # of the four ways round is fitted, and only the right one matches all four patterns.
    g = geometry_for("tessere")
    h = camera(g, tilt=20.0, turn=100.0)
    image = frame(g, h)
    truth = find_markers(image)
    squares = [np.roll(truth[m], k, axis=0) for k, m in enumerate((2, 0, 3, 1))]
    squares.append(np.array([[5, 5], [60, 5], [60, 60], [5, 60]], np.float32))  # a stray
    found = _by_layout(image, image[:, :, 1].copy(), g, {}, squares)
    assert sorted(found) == [0, 1, 2, 3]
    for m in range(4):
        assert np.abs(found[m] - truth[m]).max() < 1.0


def test_a_lost_board_takes_the_costly_soft_looks_only_now_and_then(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # The looks at a soft picture (the frame enlarged and sharpened) cost about three times
    # the search before them: a tracker whose board stays lost (a hand over two corners)
    # takes them on its first search and then on every SOFT_EVERY-th, and a found board
    # starts the count again.
    import tavola.vision.detect as detect

    g = geometry_for("draughts")
    looks: list[float] = []
    real = detect._detect

    def counted(grey: Image, scale: float, sharpen: float = 0.0) -> Any:
        if scale > 1.0 or sharpen:
            looks.append(scale)
        return real(grey, scale, sharpen)

    monkeypatch.setattr(detect, "_detect", counted)
    tracker = BoardTracker(g)
    empty = np.full((720, 1280, 3), 120, np.uint8)  # no board in view
    searches = []
    for _ in range(2 * detect.SOFT_EVERY + 1):
        before = len(looks)
        with pytest.raises(MarkersNotFoundError):
            tracker.update(empty)
        searches.append(len(looks) > before)
    assert [k for k, soft in enumerate(searches) if soft] == [0, detect.SOFT_EVERY,
                                                              2 * detect.SOFT_EVERY]
    tracker.update(frame(g, camera(g)))  # found: the next loss looks softly at once
    before = len(looks)
    with pytest.raises(MarkersNotFoundError):
        tracker.update(empty)
    assert len(looks) > before
