"""Finding the board in a frame: the four ArUco markers, the homography, and tracking.

:func:`find_markers` runs ``cv2.aruco.ArucoDetector`` (4x4_50, ids 0-3) on a downscaled
frame, then refines the corners to sub-pixel precision on the full frame.
:func:`board_homography` fits the map from board coordinates (cell units,
:mod:`vision.geometry`) to pixels from the corners of three or four markers (a plane
needs four points; three markers give twelve, so one marker may be covered).

:class:`BoardTracker` keeps that homography between frames. A tracked frame costs four tiny
warps: each marker's patch (the marker and its quiet zone) is sampled where the homography
says it is and compared with the marker's known pattern. While three or more still match,
the homography stands; otherwise (the camera or the board moved, markers covered) the
markers are detected again. :func:`warp_area` then turns the playing area into a small
top-down image, ``px`` pixels per cell, for the classifiers.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import cv2
import numpy as np
import numpy.typing as npt

from .geometry import MARKER_IDS, BoardGeometry

Image = npt.NDArray[np.uint8]
Matrix = npt.NDArray[np.float64]
Corners = npt.NDArray[np.float32]  # (4, 2): top-left, top-right, bottom-right, bottom-left

__all__ = [
    "BoardTracker",
    "Fix",
    "MarkersNotFoundError",
    "VisionError",
    "board_homography",
    "camera_matrix",
    "find_markers",
    "inspect_marker",
    "lifted",
    "marker_covered",
    "marker_match",
    "warp_area",
    "warp_matrix",
]

MIN_MARKERS = 3  # twelve corners fix a plane's homography; one marker may be covered
# Two markers' eight corners fix it too, exactly (no check left over): accepted only when
# they fit within this many pixels and the other two are explained (see _two_markers).
TWO_MARKER_ERROR = 1.5
DETECT_SIDE = 800  # the long side of the downscaled frame markers are first searched on
MODULES = 6  # a 4x4 ArUco marker with its one-module black border
MATCH = 0.7  # correlation of a marker patch with its pattern that counts as a match
WHERE = {
    0: "top left, beyond the last rank on file a",
    1: "top right, beyond the last rank on the last file",
    2: "bottom right, beyond rank 1 on the last file",
    3: "bottom left, beyond a1",
}


class VisionError(ValueError):
    """A picture the recogniser cannot use; the message says what is wrong and what to do."""


class MarkersNotFoundError(VisionError):
    """Too few of the four corner markers were found to locate the board."""

    def __init__(self, missing: Sequence[int]) -> None:
        self.missing = tuple(sorted(missing))
        if len(self.missing) == len(MARKER_IDS):
            message = (
                "no board markers found: the four ArUco markers (4x4_50, ids 0-3) must be in "
                "the picture, printed at the board's corners ('tavola vision markers' prints "
                "them), lit and in focus"
            )
        else:
            named = [f"{m} ({WHERE[m]})" for m in self.missing]
            names = named[0] if len(named) == 1 else ", ".join(named[:-1]) + " and " + named[-1]
            which = "marker" if len(self.missing) == 1 else "markers"
            message = (
                f"{which} {names} not found: is something covering the board's corners, or "
                f"is that corner outside the picture? At least {MIN_MARKERS} of the 4 are "
                "needed"
            )
        super().__init__(message)


# --------------------------------------------------------------------------- detection
def _detector() -> cv2.aruco.ArucoDetector:
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_NONE  # refined on the full frame
    # Small, blurred, noisy markers (a Quinque table seen from afar): read the bits on a
    # finer grid away from the module edges, and accept every correctable id. The four
    # ids 0-3 of a 50-marker dictionary are far apart, and every marker found must also
    # fit the board's geometry and pass the patch check.
    params.errorCorrectionRate = 1.0
    params.perspectiveRemovePixelPerCell = 8
    params.perspectiveRemoveIgnoredMarginPerCell = 0.25
    dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    return cv2.aruco.ArucoDetector(dictionary, params)


_DETECTOR = _detector()


def _grey(image: Image) -> Image:
    if image.ndim == 2:
        return image
    return np.asarray(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), np.uint8)


def find_markers(
    image: Image, *, detect_side: int = DETECT_SIDE, geometry: BoardGeometry | None = None,
    soft_looks: bool = True,
) -> dict[int, Corners]:
    """The corners of the board markers (ids 0-3) found in a BGR or grey frame.

    The search runs on a copy whose long side is ``detect_side`` pixels (0: full size);
    markers too small there are searched for again at full size. Corners are refined to
    sub-pixel precision on the full frame. A marker id seen twice keeps its largest copy.
    With the board's ``geometry``, markers the detector missed are looked for where the
    others say they must be, and kept if their patch matches (see :func:`inspect_marker`).
    ``soft_looks``: when the board is still not found, look again at the frame enlarged and
    sharpened (:data:`_SOFT_LOOKS`; they cost about three times the search before them).
    """
    grey = _grey(image)
    height, width = grey.shape[:2]
    scale = 1.0
    if detect_side and max(height, width) > detect_side:
        scale = detect_side / max(height, width)
    found, candidates = _detect(grey, scale)
    if len(found) < len(MARKER_IDS) and scale < 1.0:
        again, candidates = _detect(grey, 1.0)
        if len(again) > len(found):
            found = again
    refined = _placed(image, grey, geometry, found, candidates)
    # A soft or small picture (a webcam out of focus, a VGA sensor: markers of 2-3 pixels
    # a module, their edges smeared over as many) defeats the detector's thresholds: when
    # the board is not found, look again on the frame enlarged and on it sharpened (an
    # unsharp mask restores the modules' edges), keeping every marker any look decoded.
    # Only then: a frame found without them is read as before.
    if len(refined) >= MIN_MARKERS or not soft_looks:
        return refined
    for look in _SOFT_LOOKS:
        again, more = _detect(grey, *look)
        for m, pts in again.items():
            found.setdefault(m, pts)
        candidates += [q for q in more if not any(_same_square(q, c) for c in candidates)]
        if len(found) >= MIN_MARKERS:
            break
    candidates = [q for q in candidates if not any(_same_square(q, m) for m in found.values())]
    return _placed(image, grey, geometry, found, candidates)


def _placed(image: Image, grey: Image, geometry: BoardGeometry | None,
            found: Mapping[int, Corners], candidates: list[Corners]) -> dict[int, Corners]:
    """The decoded markers refined on the full frame, and with the board's ``geometry``
    those completed from them (:func:`_complete`) or from the undecoded ``candidates``
    (:func:`_by_layout`)."""
    refined = {m: _refine(grey, c) for m, c in found.items()}
    if geometry is not None and 2 <= len(refined) < len(MARKER_IDS):
        refined.update(_complete(image, grey, geometry, refined, candidates))
    if geometry is not None and len(refined) < MIN_MARKERS:
        refined.update(_by_layout(image, grey, geometry, refined, candidates))
    return refined


def _inside(grey: Image, pts: npt.NDArray[np.float64], margin: float = 0.0) -> (
        npt.NDArray[np.bool_]):
    """Which points lie in the frame, ``margin`` pixels from its edges."""
    limit = np.array([grey.shape[1], grey.shape[0]], np.float64) - 1 - margin
    inside: npt.NDArray[np.bool_] = np.all((pts >= margin) & (pts <= limit), axis=1)
    return inside


def _complete(image: Image, grey: Image, geometry: BoardGeometry,
              found: Mapping[int, Corners],
              squares: Sequence[Corners] = ()) -> dict[int, Corners]:
    """Markers predicted from those found, refined, and kept if their patches match.

    A marker cut by the frame's edge (a camera close to the board) is kept if the part
    in the frame matches; its corners outside the frame are NaN (not measured). Where
    only two markers were decoded the prediction can be several pixels off (below), so a
    marker whose patch does not match where predicted is searched for around it; and
    further off (two small markers seen at a tilt: two marker sides, quinque-133), the
    detector's undecoded ``squares`` of the found markers' size are tried as it, turned
    as predicted: one whose patch matches on the fit of the found markers and its
    corners is the marker.
    """
    src = np.array([geometry.marker(m) for m in found], np.float64).reshape(-1, 2)
    dst = np.array([found[m] for m in found], np.float64).reshape(-1, 2)
    keep = np.all(np.isfinite(dst), axis=1)
    h, _ = cv2.findHomography(src[keep], dst[keep], 0)
    if h is None:
        return {}
    known = (src[keep], dst[keep])
    extra: dict[int, Corners] = {}
    for m in MARKER_IDS:
        if m in found:
            continue
        guess = _project(h, geometry.marker(m))
        corners = _confirmed(image, grey, geometry, m, known, guess)
        if corners is None and len(found) == 2:
            shift = _search(image, np.asarray(h, np.float64), geometry, m)
            if shift is not None:
                corners = _confirmed(image, grey, geometry, m, known, guess + shift)
        if corners is None and len(found) == 2:
            corners = _undecoded(image, grey, geometry, m, known, guess, squares)
        if corners is not None:
            extra[m] = corners
    return extra


def _confirmed(image: Image, grey: Image, geometry: BoardGeometry, marker: int,
               known: tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]],
               guess: npt.NDArray[np.float64]) -> Corners | None:
    """The marker's corners refined around ``guess`` (NaN outside the frame), if its
    patch matches on the fit of the ``known`` corners (board, pixels) and these."""
    side = _perimeter(guess.astype(np.float32)) / 4
    inside = _inside(grey, guess, margin=side / MODULES)
    if not np.any(inside):
        return None
    limit = np.array([grey.shape[1] - 1, grey.shape[0] - 1], np.float64)
    corners = np.clip(guess, 0, limit).astype(np.float32)
    corners[inside] = _refine(grey, corners, reach=1.25)[inside]
    corners[~inside] = np.nan
    patch_h, _ = cv2.findHomography(
        np.vstack([known[0], np.array(geometry.marker(marker))[inside]]),
        np.vstack([known[1], corners[inside]]), 0)
    if patch_h is None or inspect_marker(
            image, np.asarray(patch_h, np.float64), geometry, marker)[0] < MATCH:
        return None
    return corners


# Two markers' tilt error moves a far marker by sides but scales it by a few per cent: an
# undecoded square whose side is further than this share from the predicted marker's is
# something else (a cloth over the marker, a piece).
SQUARE_SIZE = 0.2


def _undecoded(image: Image, grey: Image, geometry: BoardGeometry, marker: int,
               known: tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]],
               guess: npt.NDArray[np.float64], squares: Sequence[Corners]) -> Corners | None:
    """The undecoded square nearest ``guess`` that is ``marker`` (see :func:`_complete`):
    of the predicted marker's size (within :data:`SQUARE_SIZE`), its corners ordered as
    the prediction's are turned, and its patch matching on the fit of the ``known``
    corners and its own."""
    side = _perimeter(guess.astype(np.float32))
    middle = guess.mean(axis=0)
    for square in sorted(squares, key=lambda q: float(np.linalg.norm(q.mean(axis=0) - middle))):
        if abs(_perimeter(square) / side - 1) > SQUARE_SIZE:
            continue
        turned = _turned(square, guess - middle + square.mean(axis=0))
        if turned is None:
            continue
        corners = _confirmed(image, grey, geometry, marker, known, turned.astype(np.float64))
        if corners is not None:
            return corners
    return None


# Two markers' small squares fix the board's position well but its tilt poorly: a corner
# measured a third of a pixel off, over a lever twenty marker sides long, puts the markers
# across the table up to half a side away (quinque-119, -124: 6-16 px at 26 px a side).
SEARCH_REACH = MODULES  # modules (one marker side) searched around a predicted marker


def _search(image: Image, homography: Matrix, geometry: BoardGeometry,
            marker: int) -> npt.NDArray[np.float64] | None:
    """The shift (pixels) of ``marker`` from where ``homography`` puts it at which its
    patch (the part in the frame) matches its pattern best, within :data:`SEARCH_REACH`
    modules, in steps of a quarter module; None when it matches nowhere.

    The marker's surroundings are sampled once, :data:`_PATCH_MODULE` pixels per module,
    and every shift is scored as :func:`inspect_marker` scores a patch: the correlation
    of the modules' middles with the pattern, over the modules in the frame (at least
    half of them)."""
    (x0, y0), *_ = geometry.marker(marker)
    module, k = geometry.marker_side / MODULES, _PATCH_MODULE
    n, margin = MODULES + 2 * _QUIET_MODULES, SEARCH_REACH + _QUIET_MODULES
    start = (x0 - margin * module, y0 - margin * module)
    inverse = homography @ warp_matrix(k / module, *start)
    size = (n + 2 * SEARCH_REACH) * k
    flags = cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP
    grey = _grey(image).astype(np.float32)
    patch = np.asarray(cv2.warpPerspective(grey, inverse, (size, size), flags=flags,
                                           borderMode=cv2.BORDER_CONSTANT), np.float64)
    inside = np.asarray(cv2.warpPerspective(np.ones_like(grey), inverse, (size, size),
                                            flags=flags, borderMode=cv2.BORDER_CONSTANT),
                        np.float64) > 0.999
    # The mean (and whether all is in the frame) of the 2x2 pixels at each module's middle.
    middle = (patch[:-1, :-1] + patch[1:, :-1] + patch[:-1, 1:] + patch[1:, 1:]) / 4
    seen = inside[:-1, :-1] & inside[1:, :-1] & inside[:-1, 1:] & inside[1:, 1:]
    steps = np.arange(-SEARCH_REACH * k, SEARCH_REACH * k + 1)
    at = SEARCH_REACH * k + 1 + np.arange(n) * k  # module middles at shift 0
    rows = (steps[:, None, None, None] + at[None, None, :, None])
    cols = (steps[None, :, None, None] + at[None, None, None, :])
    shape = (len(steps), len(steps), n * n)
    values = middle[rows, cols].reshape(shape)
    weight = seen[rows, cols].reshape(shape).astype(np.float64)
    pattern = _PATTERNS[marker]
    count = weight.sum(axis=2)
    enough = count >= n * n / 2
    count = np.maximum(count, 1)
    centred = values - (weight * values).sum(axis=2, keepdims=True) / count[..., None]
    p_centred = pattern - (weight * pattern).sum(axis=2, keepdims=True) / count[..., None]
    cov = (weight * centred * p_centred).sum(axis=2)
    spread = (weight * centred**2).sum(axis=2)
    p_spread = (weight * p_centred**2).sum(axis=2)
    flat = spread / count < 8.0**2  # a flat patch: covered, or nothing there
    score = np.where(enough & ~flat, cov / np.sqrt(np.maximum(spread * p_spread, 1e-9)), -1.0)
    i, j = np.unravel_index(int(np.argmax(score)), score.shape)
    if score[i, j] < MATCH:
        return None
    # The best shift, in board units, taken back to pixels where the marker lies.
    shift = np.array([steps[j], steps[i]], np.float64) * module / k
    corners = np.array(geometry.marker(marker), np.float64)
    moved: npt.NDArray[np.float64] = (_project(homography, corners + shift)
                                      - _project(homography, corners)).mean(axis=0)
    return moved


LAYOUT_SQUARES = 12  # the largest undecoded squares tried as markers
LAYOUT_SIZES = 2.5  # the largest of four markers' sides over the smallest, at most


def _by_layout(image: Image, grey: Image, geometry: BoardGeometry,
               found: Mapping[int, Corners], candidates: Sequence[Corners]) -> (
        dict[int, Corners]):
    """Markers too small or blurred to decode (a Quinque table seen from afar: two
    pixels per module), told apart by where they lie.

    The detector still finds their black squares, but not their bits. The squares, with
    any markers decoded, are tried four at a time as the board's four corners in their
    clockwise order (a camera does not mirror), each of the four ways round; the fit
    whose four patches all match their patterns best is kept (the whole pattern of each
    marker is compared, so a wrong assignment or a stray square scores low). Squares of
    very different sizes are not tried together, and a way round whose first patch does
    not match is dropped at once: a chequered board's many squares stay cheap.
    """
    fixed = [(m, c) for m, c in found.items() if np.all(np.isfinite(c))]
    squares = sorted((c for c in candidates if _perimeter(c) > 4 * MODULES * 1.5),
                     key=_perimeter, reverse=True)[:LAYOUT_SQUARES]
    board = np.array([np.mean(geometry.marker(m), axis=0) for m in MARKER_IDS], np.float64)
    # A marker's side over the mean distance between neighbouring markers' middles.
    expected = geometry.marker_side / float(np.linalg.norm(board - np.roll(board, 1, axis=0),
                                                  axis=1).mean())
    best: tuple[float, dict[int, Corners]] = (0.0, {})
    for extra in itertools.combinations(squares, len(MARKER_IDS) - len(fixed)):
        quads = [c for _, c in fixed] + list(extra)
        sides = [_perimeter(c) for c in quads]
        if max(sides) > LAYOUT_SIZES * min(sides):
            continue
        centres = np.array([c.mean(axis=0) for c in quads], np.float64)
        middle = centres.mean(axis=0)
        order = np.argsort(np.arctan2(centres[:, 1] - middle[1], centres[:, 0] - middle[0]))
        ring = centres[order]
        apart = float(np.linalg.norm(ring - np.roll(ring, 1, axis=0), axis=1).mean())
        if apart <= 0 or not 0.5 < np.mean(sides) / 4 / apart / expected < 2.0:
            continue  # one square twice, or not the markers' size
        for turn in range(len(MARKER_IDS)):
            # Marker m on the square order[(m + turn) % 4] (clockwise in the image, y down).
            at = [int(order[(m + turn) % 4]) for m in MARKER_IDS]
            if any(k < len(fixed) and fixed[k][0] != m
                   for m, k in zip(MARKER_IDS, at, strict=True)):
                continue  # a decoded marker keeps its id
            scored = _layout_fit(image, grey, geometry, board, [quads[k] for k in at],
                                 centres[at])
            if scored is not None and scored[0] > best[0]:
                best = scored
    return {m: c for m, c in best[1].items() if m not in found}


def _layout_fit(image: Image, grey: Image, geometry: BoardGeometry,
                board: npt.NDArray[np.float64], quads: Sequence[Corners],
                centres: npt.NDArray[np.float64]) -> tuple[float, dict[int, Corners]] | None:
    """(sum of the patch scores, corners) of the four squares taken as markers 0-3, or
    None when they do not fit the board."""
    at, _ = cv2.findHomography(board, centres, 0)
    if at is None:
        return None
    where = _project(at, np.array([geometry.marker(m) for m in MARKER_IDS]).reshape(-1, 2))
    corners: dict[int, Corners] = {}
    for m, quad in zip(MARKER_IDS, quads, strict=True):
        turned = _turned(quad, where[4 * m:4 * m + 4])
        if turned is None:
            return None
        corners[m] = turned
    rough, _ = _fit(geometry, corners, MARKER_IDS)
    for m in MARKER_IDS:  # a cheap first look, on the squares' corners as found
        if inspect_marker(image, rough, geometry, m)[0] < MATCH / 2:
            return None
    refined = {m: _refine(grey, c) for m, c in corners.items()}
    h, _ = _fit(geometry, refined, MARKER_IDS)
    scores = [inspect_marker(image, h, geometry, m)[0] for m in MARKER_IDS]
    if min(scores) < MATCH:
        return None
    return sum(scores), refined


def _turned(quad: Corners, where: npt.NDArray[np.float64]) -> Corners | None:
    """The square's corners in the order of the predicted ones ``where``; None if the
    square is not where, or not the size, the other squares say the marker is."""
    side = _perimeter(where.astype(np.float32)) / 4
    k = np.arange(4)
    turns = (k[:, None] + k[None, :]) % 4  # the four ways round, and mirrored
    ways = np.concatenate([quad[turns], quad[::-1][turns]])
    errors = np.sqrt(((ways - where) ** 2).sum(axis=2)).max(axis=1)
    best = int(np.argmin(errors))
    if errors[best] > 0.3 * side:
        return None
    out: Corners = ways[best].astype(np.float32)
    return out


# The looks at a soft picture (scale, unsharp mask's sigma in pixels of the scaled frame
# or 0): enlarged, enlarged and sharpened, sharpened. Of 298 frames of the 3D set blurred
# as by a lens a little out of focus, three markers were decoded in 218 without them and in
# 265 with them; of 298 shrunk to 640x480, in 266 and 283.
_SOFT_LOOKS: tuple[tuple[float, float], ...] = ((2.0, 0.0), (2.0, 3.0), (1.0, 1.5))
SHARPEN = 1.5  # the unsharp mask's amount
# A tracker whose board stays lost takes the soft looks on one search in this many (a frame
# with no board found cost 75 ms median here without them, 276 ms with them).
SOFT_EVERY = 8


def _detect(grey: Image, scale: float,
            sharpen: float = 0.0) -> tuple[dict[int, Corners], list[Corners]]:
    """The board markers decoded at this scale (the frame sharpened by an unsharp mask of
    ``sharpen`` pixels first, if not 0), and the squares found but not decoded."""
    small = grey
    if scale != 1.0:
        size = (round(grey.shape[1] * scale), round(grey.shape[0] * scale))
        method = cv2.INTER_AREA if scale < 1.0 else cv2.INTER_CUBIC
        small = np.asarray(cv2.resize(grey, size, interpolation=method), np.uint8)
    if sharpen:
        blurred = cv2.GaussianBlur(small, (0, 0), sharpen)
        small = np.asarray(cv2.addWeighted(small, 1 + SHARPEN, blurred, -SHARPEN, 0), np.uint8)
    corners, ids, rejected = _DETECTOR.detectMarkers(small)
    found: dict[int, Corners] = {}
    squares = [((np.asarray(q, np.float32).reshape(4, 2) + 0.5) / scale - 0.5).astype(np.float32)
               for q in rejected]
    if ids is None:
        return found, squares
    for quad, marker in zip(corners, ids.ravel(), strict=True):
        m = int(marker)
        if m not in MARKER_IDS:
            continue
        pts = np.asarray(quad, np.float32).reshape(4, 2)
        # Pixel centres: (x + 0.5) / scale - 0.5 maps a small-image coordinate back.
        pts = (pts + 0.5) / scale - 0.5
        if m not in found or _perimeter(pts) > _perimeter(found[m]):
            found[m] = pts.astype(np.float32)
    return found, squares


def _same_square(a: Corners, b: Corners) -> bool:
    """Whether two squares found are one (found again on another look at the frame)."""
    return bool(np.linalg.norm(a.mean(axis=0) - b.mean(axis=0)) < _perimeter(b) / 16)


def _perimeter(pts: Corners) -> float:
    return float(np.sum(np.linalg.norm(pts - np.roll(pts, 1, axis=0), axis=1)))


def _refine(grey: Image, pts: Corners, reach: float = 2.5) -> Corners:
    """Corners to sub-pixel precision, each searched within a window of the marker's
    side / (``reach`` x modules) around it (a corner predicted, not detected, may be
    further off: a smaller ``reach``)."""
    side = _perimeter(pts) / 4
    win = int(max(2, min(10, side / (MODULES * reach))))
    refined = pts.reshape(-1, 1, 2).copy()
    criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_COUNT, 30, 0.01)
    cv2.cornerSubPix(grey, refined, (win, win), (-1, -1), criteria)
    out: Corners = refined.reshape(4, 2)
    # A refinement that wandered off (blur, a hand at the edge) keeps the detected corner.
    moved = np.linalg.norm(out - pts, axis=1) > win
    out[moved] = pts[moved]
    return out


def board_homography(
    geometry: BoardGeometry, corners: Mapping[int, Corners], *, max_error: float = 3.0
) -> tuple[Matrix, frozenset[int]]:
    """The homography board coordinates -> pixels, and the markers it rests on.

    Needs :data:`MIN_MARKERS` markers. When four are found and one disagrees with the
    other three by more than ``max_error`` pixels (a stray copy lying on the table, a bad
    detection), it is left out. :class:`MarkersNotFoundError` when too few are usable.
    """
    use = sorted(m for m in corners if m in MARKER_IDS)
    if len(use) < MIN_MARKERS:
        raise MarkersNotFoundError([m for m in MARKER_IDS if m not in use])
    h, error = _fit(geometry, corners, use)
    if error <= max_error or len(use) == MIN_MARKERS:
        return h, frozenset(use)
    # The three that agree best; the fourth rejoins if it agrees with them.
    fits = [_fit(geometry, corners, [m for m in use if m != out]) for out in use]
    best = min(range(len(use)), key=lambda i: fits[i][1])
    return fits[best][0], frozenset(m for m in use if m != use[best])


def _fit(geometry: BoardGeometry, corners: Mapping[int, Corners], use: Sequence[int]) -> (
        tuple[Matrix, float]):
    """The least-squares homography of these markers' corners, and its worst error."""
    src = np.array([geometry.marker(m) for m in use], np.float64).reshape(-1, 2)
    dst = np.array([corners[m] for m in use], np.float64).reshape(-1, 2)
    seen = np.all(np.isfinite(dst), axis=1)  # a corner outside the frame is NaN
    src, dst = src[seen], dst[seen]
    h, _ = cv2.findHomography(src, dst, 0) if len(dst) >= 4 else (None, None)
    if h is None:
        raise MarkersNotFoundError([m for m in MARKER_IDS if m not in use])
    error = float(np.linalg.norm(_project(h, src) - dst, axis=1).max()) / _size_factor(dst)
    return np.asarray(h, np.float64), error


def _size_factor(dst: npt.NDArray[np.float64]) -> float:
    # Allow a larger error on a board that fills a large part of a big frame.
    span = float(np.ptp(dst[:, 0]) + np.ptp(dst[:, 1])) / 2
    return max(1.0, span / 600)


def _project(h: npt.ArrayLike, pts: npt.ArrayLike) -> npt.NDArray[np.float64]:
    p = np.asarray(pts, np.float64).reshape(-1, 1, 2)
    out = np.asarray(cv2.perspectiveTransform(p, np.asarray(h, np.float64)), np.float64)
    return out.reshape(-1, 2)


# --------------------------------------------------------------------------- warping
def warp_matrix(px: float, x0: float, y0: float) -> Matrix:
    """Map top-down pixel coordinates (``px`` per cell, origin at board point (x0, y0))
    to board coordinates."""
    return np.array(
        [[1 / px, 0, x0 + 0.5 / px], [0, 1 / px, y0 + 0.5 / px], [0, 0, 1]], np.float64
    )


def warp_area(
    image: Image,
    homography: Matrix,
    rect: tuple[float, float, float, float],
    px: int,
) -> Image:
    """The board rectangle ``rect`` = (x0, y0, x1, y1) (cell units) seen from straight
    above, ``px`` pixels per cell: pixel (i, j) covers board point (x0 + (j+.5)/px, ...)."""
    x0, y0, x1, y1 = rect
    size = (round((x1 - x0) * px), round((y1 - y0) * px))
    inverse = homography @ warp_matrix(px, x0, y0)
    out = cv2.warpPerspective(
        image,
        inverse,
        size,
        flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
        borderMode=cv2.BORDER_REPLICATE,
    )
    return np.asarray(out, np.uint8)


# --------------------------------------------------------------------------- tracking
_PATCH_MODULE = 4  # pixels per marker module in a sampled patch
_QUIET_MODULES = 1  # a ring of the quiet zone, expected light, around each patch


def _pattern(marker: int) -> npt.NDArray[np.float64]:
    """The marker's modules, light = +1, dark = -1, with a light ring of quiet zone."""
    dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    bits = cv2.aruco.generateImageMarker(dictionary, marker, MODULES, borderBits=1)
    ring = np.pad(bits, _QUIET_MODULES, constant_values=255)
    return np.where(ring > 127, 1.0, -1.0).ravel()


_PATTERNS = {m: _pattern(m) for m in MARKER_IDS}


def _marker_patch(
    image: Image, homography: Matrix, geometry: BoardGeometry, marker: int
) -> Image:
    """The marker and a ring of its quiet zone, :data:`_PATCH_MODULE` pixels per module."""
    (x0, y0), *_ = geometry.marker(marker)
    module = geometry.marker_side / MODULES
    start = (x0 - _QUIET_MODULES * module, y0 - _QUIET_MODULES * module)
    inverse = homography @ warp_matrix(_PATCH_MODULE / module, *start)
    side = (MODULES + 2 * _QUIET_MODULES) * _PATCH_MODULE
    patch = cv2.warpPerspective(
        image, inverse, (side, side),
        flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP, borderMode=cv2.BORDER_CONSTANT,
    )
    return np.asarray(patch, np.uint8)


def _modules(patch: Image) -> npt.NDArray[np.float32]:
    """The mean colour (or grey) of each module's centre: (n*n, channels)."""
    n, k = MODULES + 2 * _QUIET_MODULES, _PATCH_MODULE
    channels = 1 if patch.ndim == 2 else patch.shape[2]
    blocks = patch.reshape(n, k, n, k, channels)[:, 1 : k - 1, :, 1 : k - 1]
    out: npt.NDArray[np.float32] = blocks.mean(axis=(1, 3), dtype=np.float32).reshape(-1, channels)
    return out


def inspect_marker(
    image: Image, homography: Matrix, geometry: BoardGeometry, marker: int
) -> tuple[float, BGR, BGR]:
    """(match, paper, ink): how well the patch where ``homography`` puts ``marker``
    matches its pattern, as the correlation (-1 ... 1) of its modules' brightness with the
    known modules (above :data:`MATCH`: the marker is there, within about a third of a
    module); and the colours (BGR) of its white paper and of its black print, for white
    balance (vision.light)."""
    modules = _modules(_marker_patch(image, homography, geometry, marker))
    grey = modules.mean(axis=1) if modules.shape[1] > 1 else modules[:, 0]
    pattern = _PATTERNS[marker]
    inside = _inside(image, _project(homography, _module_centres(geometry, marker)), 1.0)
    if not np.all(inside):  # a marker cut by the frame's edge: judge the part in it
        if np.mean(inside) < 0.5:
            return 0.0, (0.0, 0.0, 0.0), (0.0, 0.0, 0.0)
        modules, grey, pattern = modules[inside], grey[inside], pattern[inside]
    paper, ink = (_median_colour(modules[side], grey[side]) for side in (pattern > 0, pattern < 0))
    if float(grey.std()) < 8:  # a flat patch: covered, or nothing there
        return 0.0, paper, ink
    return float(np.corrcoef(grey, pattern)[0, 1]), paper, ink


def _median_colour(modules: npt.NDArray[np.float32], grey: npt.NDArray[np.float32]) -> BGR:
    """The median colour (BGR; a grey frame's grey thrice) of some modules."""
    if not len(grey):
        return (0.0, 0.0, 0.0)
    c = np.median(modules, axis=0) if modules.shape[1] == 3 else np.repeat(np.median(grey), 3)
    return (float(c[0]), float(c[1]), float(c[2]))


def _module_centres(geometry: BoardGeometry, marker: int) -> npt.NDArray[np.float64]:
    """Board coordinates of the middle of each module of :func:`_marker_patch`, in the
    order of :func:`_modules`."""
    (x0, y0), *_ = geometry.marker(marker)
    module = geometry.marker_side / MODULES
    n = MODULES + 2 * _QUIET_MODULES
    steps = (np.arange(n) - _QUIET_MODULES + 0.5) * module
    xs, ys = np.meshgrid(x0 + steps, y0 + steps)
    return np.column_stack([xs.ravel(), ys.ravel()])


# A reflection that hides a marker blows much of its patch out to the sensor's ceiling and
# leaves the rest light; a hand lying on it leaves a smooth patch (skin), darker than that
# and hardly blown out; a marker that shows but is sampled a few pixels off (the lens's
# distortion at the frame's edge) keeps its black and white modules' contrast. Measured on
# the 3D set: glare-hidden patches average 223-255 with 52-100 % blown out, hand-covered
# ones 45-176 with at most 13 % and a spread of 6-19, markers sampled off a spread of 63-73.
COVER_LIGHT = 200.0  # a hidden marker's patch darker than this on average,
COVER_BLOWN = 0.3  # less than this share of it blown out,
COVER_SMOOTH = 30.0  # and varying less than this (grey levels, std) is covered
BLOWN = 248  # a pixel with every channel this bright is at the sensor's ceiling (blown out)


def _hidden_by(image: Image, homography: Matrix, geometry: BoardGeometry,
               marker: int) -> str:
    """What hides ``marker``, not matched where ``homography`` puts it: ``"edge"`` (part of
    it lies outside the picture), ``"glare"`` (a lamp's reflection blew it out),
    ``"cover"`` (something smooth lies on it: a hand), or ``""`` (it shows, but not where
    the homography puts it, e.g. a few pixels off at the frame's edge)."""
    centres = _project(homography, _module_centres(geometry, marker))
    if not np.all(_inside(image, centres, 1.0)):
        return "edge"
    patch = _marker_patch(image, homography, geometry, marker)
    if patch.ndim == 2:  # a grey frame
        patch = patch[:, :, None]
    blown = float(np.mean(np.all(patch >= BLOWN, axis=-1)))
    grey = patch.mean(axis=-1)
    if float(grey.mean()) >= COVER_LIGHT or blown >= COVER_BLOWN:
        return "glare"
    return "cover" if float(grey.std()) < COVER_SMOOTH else ""


def marker_covered(image: Image, homography: Matrix, geometry: BoardGeometry,
                   marker: int) -> bool:
    """Whether ``marker``, not matched where ``homography`` puts it, is covered by
    something lying on it (a hand on the board's corner) rather than blown out by a
    lamp's reflection or sampled a few pixels off; False when the homography puts any of
    it outside the picture (nothing can be said of what is not in view)."""
    return _hidden_by(image, homography, geometry, marker) == "cover"


def marker_match(image: Image, homography: Matrix, geometry: BoardGeometry, marker: int) -> float:
    """The match score of :func:`inspect_marker` alone."""
    return inspect_marker(image, homography, geometry, marker)[0]


# --------------------------------------------------------------------------- the camera
def camera_matrix(width: int, height: int, fov: float) -> Matrix:
    """A pinhole camera's intrinsics: horizontal field of view ``fov`` degrees, square
    pixels, the principal point in the middle of the frame."""
    f = width / (2 * np.tan(np.radians(fov) / 2))
    return np.array([[f, 0, (width - 1) / 2], [0, f, (height - 1) / 2], [0, 0, 1]], np.float64)


def lifted(homography: Matrix, camera: Matrix, height: float) -> Matrix:
    """The homography of the plane ``height`` cells above the board (the tops of pieces),
    from the board's own homography and the camera's intrinsics.

    Seen at a tilt, the top of a tall piece is displaced from its foot: a Quixo cube's top
    by up to two thirds of a cell. Decomposing ``homography`` = K [r1 r2 t] gives the
    camera's pose, and the plane at ``height`` is K [r1 r2 t + height n], n the board's
    normal towards the camera.
    """
    if height == 0:
        return homography
    m = np.linalg.inv(camera) @ homography
    scale = (np.linalg.norm(m[:, 0]) + np.linalg.norm(m[:, 1])) / 2
    r1, r2, t = m[:, 0] / scale, m[:, 1] / scale, m[:, 2] / scale
    r3 = np.cross(r1, r2)
    r3 /= np.linalg.norm(r3)
    centre = -np.column_stack([r1, r2, r3]).T @ t  # the camera, in board coordinates
    up = r3 if centre[2] > 0 else -r3
    h = camera @ np.column_stack([r1, r2, t + height * up])
    out: Matrix = h / h[2, 2]
    return out


BGR = tuple[float, float, float]


@dataclass(frozen=True)
class Fix:
    """Where the board is in one frame.

    ``homography`` maps board coordinates to pixels; ``seen`` are the markers confirmed in
    this frame (their patches match); ``paper`` the colour of each seen marker's white
    paper (a white reference at each corner) and ``ink`` that of its black print (a second
    reference, vision.light); ``redetected`` says whether the markers were searched for
    afresh (a slower frame).
    """

    homography: Matrix
    seen: frozenset[int]
    redetected: bool
    paper: Mapping[int, BGR] = field(default_factory=dict)
    ink: Mapping[int, BGR] = field(default_factory=dict)

    @property
    def missing(self) -> tuple[int, ...]:
        """The markers not confirmed in this frame, in id order."""
        return tuple(m for m in MARKER_IDS if m not in self.seen)


def _fix(homography: Matrix, seen: Mapping[int, tuple[BGR, BGR]], redetected: bool) -> Fix:
    """A :class:`Fix` from the markers :meth:`BoardTracker.check` confirmed."""
    return Fix(homography, frozenset(seen), redetected, {m: p for m, (p, _) in seen.items()},
               {m: k for m, (_, k) in seen.items()})


@dataclass
class BoardTracker:
    """Keeps the board's homography from frame to frame (see the module docstring).

    ``redetect_every``: also search for the markers afresh every that many frames (0:
    only when the tracked homography stops matching). ``detect_side``: the long side of
    the downscaled frame searched first.
    """

    geometry: BoardGeometry
    redetect_every: int = 0
    detect_side: int = DETECT_SIDE
    homography: Matrix | None = None
    _frames_since: int = field(default=0, repr=False)
    _misses: int = field(default=0, repr=False)  # searches in a row that found no board

    def reset(self) -> None:
        """Forget the board's position: the next frame searches for the markers."""
        self.homography = None

    def check(self, image: Image, homography: Matrix | None = None) -> dict[int, tuple[BGR, BGR]]:
        """The markers whose patches match ``homography`` (default: the tracked one) in
        ``image``, with their paper and ink colours."""
        h = self.homography if homography is None else homography
        if h is None:
            return {}
        seen: dict[int, tuple[BGR, BGR]] = {}
        for m in MARKER_IDS:
            score, paper, ink = inspect_marker(image, h, self.geometry, m)
            if score >= MATCH:
                seen[m] = paper, ink
        return seen

    def update(self, image: Image) -> Fix:
        """Locate the board in ``image``; :class:`MarkersNotFoundError` if it cannot be.

        The tracked homography is kept while at least :data:`MIN_MARKERS` marker patches
        still match it (a covered marker costs no search: the rest pin the board down);
        otherwise the markers are detected afresh.
        """
        self._frames_since += 1
        periodic = self.redetect_every > 0 and self._frames_since >= self.redetect_every
        if self.homography is not None and not periodic:
            seen = self.check(image)
            if len(seen) >= MIN_MARKERS:
                return _fix(self.homography, seen, False)
        return self.redetect(image)

    def redetect(self, image: Image) -> Fix:
        """Search for the markers afresh and refit the homography.

        While the board stays lost (a hand over two corners, the camera turned away), the
        costly looks at a soft picture (:func:`find_markers`' ``soft_looks``) are taken on
        the first search and then on every :data:`SOFT_EVERY`-th only: a soft camera's
        board is found on its first frame, and a lost board's frames cost little more than
        before them."""
        soft = self._misses % SOFT_EVERY == 0
        try:
            fix = self._redetect(image, soft)
        except MarkersNotFoundError:
            self._misses += 1
            raise
        self._misses = 0
        return fix

    def _redetect(self, image: Image, soft_looks: bool) -> Fix:
        self._frames_since = 0
        corners = find_markers(image, detect_side=self.detect_side, geometry=self.geometry,
                               soft_looks=soft_looks)
        try:
            h, _ = board_homography(self.geometry, corners)
        except MarkersNotFoundError:
            # Too few markers detected: keep a homography that enough marker patches still
            # confirm (a blurred frame can hide a marker from the detector, not the check).
            seen = self.check(image)
            if self.homography is not None and len(seen) >= MIN_MARKERS:
                return _fix(self.homography, seen, True)
            two = self._two_markers(image, corners)
            if two is None:
                raise
            return two
        seen = self.check(image, h)
        if len(seen) < MIN_MARKERS:  # detected, but the fit does not hold: say which
            raise MarkersNotFoundError([m for m in MARKER_IDS if m not in seen])
        self.homography = h
        return _fix(h, seen, True)

    def _two_markers(self, image: Image, corners: Mapping[int, Corners]) -> Fix | None:
        """The board from two markers alone, when the other two are accounted for: each
        lies partly outside the picture or is blown out by a lamp's reflection. Their
        eight corners fix a plane's homography; a marker in view that neither shows nor is
        blown out (a hand on it, or a fit that does not hold) refuses the fit."""
        whole = {m: c for m, c in corners.items() if np.all(np.isfinite(c))}
        if len(whole) != 2:
            return None
        h, error = _fit(self.geometry, whole, sorted(whole))
        if error > TWO_MARKER_ERROR:
            return None
        seen = self.check(image, h)
        if set(seen) != set(whole):
            return None
        if any(_hidden_by(image, h, self.geometry, m) not in ("edge", "glare")
               for m in MARKER_IDS if m not in whole):
            return None
        self.homography = h
        return _fix(h, seen, True)
