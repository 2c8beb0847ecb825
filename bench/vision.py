"""Vision accuracy and speed on rendered frames: per cell, per board, ms per frame.

Run: ``.venv/bin/python bench/vision.py [GAME ...] [--frames 500] [--hard] [--hands]``.

For each game, ``--frames`` random positions are rendered (vision.render) under random
conditions (``random_conditions``: tilt, turn, position in the frame, 2700-6500 K light,
brightness, gradient, shadow, noise, blur, JPEG; ``--hard`` leans on the far ends of every
range). Each frame is read by a fresh :class:`~vision.classify.Recogniser` with no
calibration, exactly as ``tavola vision classify`` reads a picture:

- per cell: cells read right / cells; per board: frames read entirely right / frames. A
  frame whose markers are not found counts every cell wrong. Quinque names skydivers in
  the game's coordinates, which depend on where the game started; a single picture cannot
  know that, so its reading is compared after the best whole-tile translation.
- "wrong but flagged": of the wrong cells, the share the recogniser marked uncertain
  (inference then prefers a legal position there, RULES.md "rules help the eyes").
- time per 1280x720 frame: "re-detect" is the first frame (markers searched on the
  downscaled frame, the homography fitted, Quixo's cube-top plane fitted); "tracked" is
  the same frame read again with the homography kept (four marker patches checked).

``--hands``: also the share of frames with a hand over the board that are flagged, and of
clean frames flagged by mistake, for a single picture and for a camera that saw the bare
rim first. Prints a Markdown table (for the README).

``--set DIR``: score a directory of frames instead of rendering (each ``NAME.jpg`` or
``.png`` with ``NAME.json`` beside it: ``{"game": ..., "cells": {...}, "hand": bool}``, as
bench/render3d/generate.py writes them; ``"fov"`` if known). Draughts is compared by
colour (``WK`` as ``W``): the game supplies the rank. Per game: per cell and per board
over the frames without a hand, frames where the board was not found, and of the hand
frames how many were skipped (hand seen, or the board not found) and how many were
*misread*: reported as a position that is not the true one; and frames without a hand
taken for one (skipped, so a board lost in play). ``--numbers A:B`` scores only frames
``NAME-<k>`` with A <= k < B, ``--parity even|odd`` only even or odd k (a held-out half);
``--calibrate`` instead calibrates from every clean frame with its true position and
counts the calibrations kept and refused (too many cells read with doubt, or a picture
that still differs surely); ``--check`` judges every clean frame as ``tavola vision
check`` does and reads it (how the frames it passes read, and what it asks to fix).
``--ink-balance`` reads with the white balance that takes a clipped paper's tint from its
markers' ink (Recogniser's ``ink_balance``, off by default). ``--camera`` shows the frames
as a camera other than the renderer's would take them (:data:`CAMERAS`: a 640x480 webcam,
a lens a little out of focus, a webcam's MJPEG stream at quality 40), to measure what the
reader does with pictures it was not tuned on. "wrong but flagged" counts the cells of the
frames read (a frame whose board was not found is counted under "not found"); "trusted
misreads" are the frames read with a wrong cell that was not flagged (what inference would
believe). A second table splits the same readings where a lamp's reflection blows the
picture out (``Recogniser.blown_cells``: more than 12 % of a cell at the sensor's
ceiling): per cell on the cells blown and on the rest, and the boards with no cell blown
(Quinque not measured: its cells come and go).

``--idle``: the CPU cost of the camera backend per second of play and of an idle board,
as a ratio to decoding the same JPEG frames alone (15 fps, measured in this process):
"idle" feeds one picture's frames (fresh sensor noise each) for 10 s; "play" adds a change
every 2 s; the last column reads every frame in full (no change gate), for reference.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import random
import statistics
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# This file is bench/vision.py: put the repository first, so that "vision" is the package.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import cv2
import numpy as np

from tavola.vision.classify import GLARE_SHARE, Recogniser, as_seen
from tavola.vision.detect import MarkersNotFoundError
from tavola.vision.motion import ChangeGate
from tavola.vision.render import GAMES, random_conditions, random_position, render
from tavola.vision.source import FrameList, read_image


@dataclass
class Tally:
    game: str
    cells: int = 0
    wrong: int = 0
    flagged: int = 0  # wrong cells marked uncertain
    doubted: int = 0  # right cells marked uncertain
    boards: int = 0
    boards_wrong: int = 0
    lost: int = 0  # frames whose markers were not found
    redetect: list[float] = field(default_factory=list)
    tracked: list[float] = field(default_factory=list)
    hand_seen: int = 0
    hand_frames: int = 0
    hand_seen_tracked: int = 0
    false_hands: int = 0
    clean_frames: int = 0


def aligned(truth: Mapping[str, str], read: Mapping[str, str]) -> dict[str, str]:
    """Quinque: the reading moved by the whole-tile translation that best matches."""
    if not read or not truth:
        return dict(read)
    keys = [tuple(int(v) for v in k.split(",")) for k in read]
    anchor = tuple(int(v) for v in next(iter(truth)).split(","))
    best: tuple[int, dict[str, str]] = (-1, dict(read))
    for x, y in keys:
        dx, dy = anchor[0] - x, anchor[1] - y
        if dx % 2 or dy % 2:
            continue
        moved = {f"{kx + dx},{ky + dy}": read[f"{kx},{ky}"] for kx, ky in keys}
        score = sum(moved.get(k) == v for k, v in truth.items())
        if score > best[0]:
            best = (score, moved)
    return best[1]


def run(game: str, frames: int, *, hard: bool, hands: bool, seed: int) -> Tally:
    tally = Tally(game)
    rng = random.Random(f"{seed}:{game}")
    # Warm up (OpenCV's first colour conversions build tables): not timed.
    with contextlib.suppress(MarkersNotFoundError):
        Recogniser(game).read(render(game, random_position(game, rng),
                                     random_conditions(rng)).image)
    for k in range(frames):
        players = 4 if game in ("quixo", "sequence-kids") and k % 4 == 3 else 2
        cells = random_position(game, rng, players=players)
        conditions = random_conditions(rng, hard=hard)
        frame = render(game, cells, conditions, players=players)
        recogniser = Recogniser(game, players=players)
        tally.boards += 1
        try:
            start = time.perf_counter()
            reading = recogniser.read(frame.image)
            tally.redetect.append(time.perf_counter() - start)
            start = time.perf_counter()
            recogniser.read(frame.image)
            tally.tracked.append(time.perf_counter() - start)
        except MarkersNotFoundError:
            tally.lost += 1
            tally.boards_wrong += 1
            tally.cells += len(frame.cells)
            tally.wrong += len(frame.cells)
            continue
        wrong, doubt, compared, _ = _compare(game, frame.cells, reading)
        tally.cells += compared
        tally.wrong += len(wrong)
        tally.flagged += len(wrong & doubt)
        tally.doubted += len(doubt - wrong)
        tally.boards_wrong += bool(wrong)
        if hands and k % 2 == 0:
            handy = dataclasses.replace(conditions, hand=rng.uniform(0.1, 0.4))
            image = render(game, cells, handy, players=players).image
            tally.hand_frames += 1
            tally.clean_frames += 1
            tally.false_hands += reading.hand
            tally.hand_seen_tracked += _sees_hand(recogniser, image)  # saw the bare rim
            tally.hand_seen += _sees_hand(Recogniser(game, players=players), image)
    return tally


def _sees_hand(recogniser: Recogniser, image: Any) -> bool:
    try:
        return recogniser.read(image).hand
    except MarkersNotFoundError:  # the hand covers two corners: the frame is skipped too
        return True


def ms(values: list[float], q: float) -> str:
    if not values:
        return "-"
    if q == 0.5:
        return f"{statistics.median(values) * 1000:.1f}"
    ordered = sorted(values)
    return f"{ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000:.1f}"


def _vga(image: Any) -> Any:
    """A 640x480 webcam: the frame shrunk (to 640 pixels wide) as its sensor would see it."""
    h, w = image.shape[:2]
    size = (640, round(h * 640 / w))
    return cv2.resize(image, size, interpolation=cv2.INTER_AREA) if w > 640 else image


def _soft(image: Any) -> Any:
    """A lens a little out of focus: a Gaussian blur of 1.5 pixels at 960x720."""
    return cv2.GaussianBlur(image, (0, 0), 1.5 * image.shape[1] / 960)


def _jpeg40(image: Any) -> Any:
    """A webcam's MJPEG stream: re-encoded at quality 40 (4:2:0 colour)."""
    data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 40])[1]
    return cv2.imdecode(data, cv2.IMREAD_COLOR)


# How another camera would show a frame (``--camera``): name -> the transform.
CAMERAS: dict[str, Callable[[Any], Any]] = {
    "vga": _vga,
    "soft": _soft,
    "jpeg40": _jpeg40,
}


@dataclass
class SetTally:
    game: str
    frames: int = 0
    cells: int = 0
    wrong: int = 0
    flagged: int = 0
    boards: int = 0
    boards_wrong: int = 0
    lost: int = 0
    hand_frames: int = 0
    hand_skipped: int = 0
    hand_misread: int = 0
    false_hands: int = 0  # frames without a hand taken for one (skipped: a board lost)
    trusted: int = 0  # frames read with a wrong cell not flagged
    lost_cells: int = 0  # the cells of the frames whose board was not found (all wrong)
    # Where a lamp's reflection blows the picture out (Recogniser.blown_cells): the cells
    # so blown and how many of them were misread; the boards with no such cell, and how
    # many of them were read entirely right. None for Quinque, whose cells come and go.
    blown: int | None = 0
    blown_wrong: int = 0
    clear_boards: int = 0
    clear_boards_right: int = 0
    ms: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


def score_set(directory: Path, games: list[str], first: int | None = None,
              indices: range | None = None, parity: int | None = None,
              ink_balance: bool = False, camera: str | None = None) -> dict[str, SetTally]:
    """Read every frame of ``directory`` (or each game's ``first`` ones; or those whose
    number ``NAME-<k>`` is in ``indices``, and of ``parity`` 0 even, 1 odd) with a fresh
    recogniser (``ink_balance``: Recogniser's), as ``camera`` (a name of :data:`CAMERAS`)
    would show it, and compare with its truth."""
    tallies: dict[str, SetTally] = {}
    truths = sorted(directory.glob("*.json"))
    if not truths:
        raise SystemExit(f"no truth files (*.json) in {directory}: give a directory of frames "
                         "with their truth, e.g. tests/vision/data3d")
    for path in truths:
        meta = json.loads(path.read_text(encoding="utf-8"))
        game = meta["game"]
        if games and game not in games:
            continue
        number = path.stem.rsplit("-", 1)[-1]
        if (indices is not None or parity is not None) and not number.isdigit():
            continue
        if indices is not None and int(number) not in indices:
            continue
        if parity is not None and int(number) % 2 != parity:
            continue
        image_path = next((p for p in (path.with_suffix(".jpg"), path.with_suffix(".png"))
                           if p.exists()), None)
        if image_path is None:
            continue
        image = read_image(image_path)
        if camera is not None:
            image = CAMERAS[camera](image)
        t = tallies.setdefault(game, SetTally(game))
        if first is not None and t.frames >= first:
            continue
        t.frames += 1
        truth = dict(meta["cells"])
        recogniser = Recogniser(game, players=int(meta.get("players", 2)),
                                fov=float(meta.get("fov", 62.0)), ink_balance=ink_balance)
        start = time.perf_counter()
        try:
            reading = recogniser.read(image)
        except MarkersNotFoundError:
            reading = None
        t.ms.append(time.perf_counter() - start)
        if meta.get("hand"):
            t.hand_frames += 1
            if reading is None or reading.hand:
                t.hand_skipped += 1
            elif _compare(game, truth, reading)[0]:  # reported as a position that is not it
                t.hand_misread += 1
                t.errors.append(f"{path.stem}: hand not seen, position misread")
            continue
        t.boards += 1
        if reading is None:
            t.lost += 1
            t.boards_wrong += 1
            t.cells += len(truth)
            t.wrong += len(truth)
            t.lost_cells += len(truth)
            t.errors.append(f"{path.stem}: board not found")
            continue
        wrong, doubt, keys, read = _compare(game, truth, reading)
        if reading.fix is None or not recogniser.cells:
            t.blown = None  # Quinque: no fixed cells to look at
        elif t.blown is not None:
            blown = set(reading.blown)
            t.blown += len(blown)
            t.blown_wrong += len(wrong & blown)
            t.clear_boards += not blown
            t.clear_boards_right += not blown and not wrong
        t.cells += keys
        t.wrong += len(wrong)
        t.flagged += len(wrong & doubt)
        t.boards_wrong += bool(wrong)
        t.trusted += bool(wrong - doubt) and not reading.hand
        if reading.hand:
            t.false_hands += 1
            t.errors.append(f"{path.stem}: a hand seen where there is none")
        if wrong:
            blown_here = set(reading.blown) if t.blown is not None else set()
            detail = ", ".join(f"{c} {truth.get(c, '')!r}->{read.get(c, '')!r}"
                               f"{'*' if c in blown_here else ''}{'?' if c in doubt else ''}"
                               for c in sorted(wrong)[:6])
            t.errors.append(f"{path.stem}: {detail}")
    return tallies


def as_truth(game: str, truth: Mapping[str, str],
             reading: Any) -> tuple[dict[str, str], set[str]]:
    """A reading's cells named as the truth's (Quinque's lattice, which the reading names
    from its own anchor, moved by the best whole-tile translation: what the daemon's
    ``start`` position does), and the cells it doubts, named alike."""
    if game != "quinque":
        return dict(reading.cells), set(reading.uncertain)
    read = aligned(truth, reading.cells)  # names moved with the cells: carry the doubts
    return read, {n for n, c in zip(read, reading.cells, strict=True) if c in reading.uncertain}


def _compare(game: str, truth: Mapping[str, str],
             reading: Any) -> tuple[set[str], set[str], int, dict[str, str]]:
    """(wrong cells, doubted cells, cells compared, the reading compared) of one reading
    against the truth (Quinque's moved by the best whole-tile translation). The cells
    compared are the truth's and those read with something on them: a Quinque reading
    names squares it cannot see into as doubted empty cells, which are no tile's."""
    truth = as_seen(game, truth)
    read, doubt = as_truth(game, truth, reading)
    keys = set(truth) | {c for c, token in read.items() if token}
    wrong = {c for c in keys if truth.get(c, "") != read.get(c, "")}
    return wrong, doubt & keys, len(keys), read


def print_set(directory: Path, games: list[str], verbose: bool, indices: range | None = None,
              parity: int | None = None, ink_balance: bool = False,
              camera: str | None = None) -> None:
    tallies = score_set(directory, games, indices=indices, parity=parity,
                        ink_balance=ink_balance, camera=camera)
    which = "" if indices is None else f" numbered {indices.start}-{indices.stop - 1}"
    which += "" if parity is None else (" (even)", " (odd)")[parity]
    which += ", ink balance" if ink_balance else ""
    which += "" if camera is None else f", as a {camera} camera shows them"
    print(f"frames of {directory}{which}, no calibration\n")
    head = ("| game | frames | per cell | per board | wrong but flagged | trusted misreads | "
            "not found | hand frames skipped | hand frames misread | "
            "clean frames taken for a hand | ms per frame (median) |")
    print(head)
    print("|" + "---|" * (head.count("|") - 1))
    for game in in_order(tallies):
        t = tallies[game]
        cell = 1 - t.wrong / max(t.cells, 1)
        board = 1 - t.boards_wrong / max(t.boards, 1)
        read_wrong = t.wrong - t.lost_cells  # a board not found is "not found", not a misread
        flagged = f"{t.flagged / read_wrong:.0%}" if read_wrong else "-"
        print(f"| {game} | {t.frames} | {cell:.3%} | {board:.1%} ({t.boards - t.boards_wrong}"
              f"/{t.boards}) | {flagged} | {t.trusted} | {t.lost} | "
              f"{t.hand_skipped}/{t.hand_frames} | {t.hand_misread} | "
              f"{t.false_hands}/{t.boards} | {ms(t.ms, 0.5)} |")
    print_glare(tallies)
    if verbose:
        for t in tallies.values():
            for line in t.errors:
                print("  " + line)


def print_glare(tallies: Mapping[str, SetTally]) -> None:
    """The same readings split where a lamp's reflection blows the picture out: the
    misreads such glare leaves no colour to read, and those the reader makes where the
    picture shows the board (frames whose board was not found are left out of both)."""
    print(f"\nwhere a lamp's reflection blows the picture out (more than {GLARE_SHARE:.0%} "
          "of a cell at the sensor's ceiling)\n")
    head = ("| game | cells blown | per cell, not blown | per cell, blown | "
            "boards with no cell blown: read right |")
    print(head)
    print("|" + "---|" * (head.count("|") - 1))
    for game in in_order(tallies):
        t = tallies[game]
        if t.blown is None:
            print(f"| {game} | not measured (its cells come and go) | | | |")
            continue
        read = t.cells - t.lost_cells
        clear = read - t.blown
        clear_wrong = t.wrong - t.lost_cells - t.blown_wrong
        print(f"| {game} | {t.blown / max(read, 1):.1%} ({t.blown}/{read}) | "
              f"{1 - clear_wrong / max(clear, 1):.3%} ({clear_wrong} wrong) | "
              f"{1 - t.blown_wrong / max(t.blown, 1):.2%} ({t.blown_wrong} wrong) | "
              f"{t.clear_boards_right / max(t.clear_boards, 1):.1%} "
              f"({t.clear_boards_right}/{t.clear_boards}) |")


def clean_frames(directory: Path, games: list[str]) -> Iterator[tuple[Path, dict[str, Any],
                                                                       Path]]:
    """(truth file, its contents, picture) of every frame of ``directory`` without a hand
    over the board, of ``games`` (all if empty), in name order."""
    for path in sorted(directory.glob("*.json")):
        meta = json.loads(path.read_text(encoding="utf-8"))
        image_path = path.with_suffix(".jpg")
        if (games and meta["game"] not in games) or meta.get("hand") or not image_path.exists():
            continue
        yield path, meta, image_path


def in_order(games: Iterable[str]) -> list[str]:
    """``games`` in the order of :data:`GAMES` (any other last)."""
    return sorted(games, key=lambda g: GAMES.index(g) if g in GAMES else 99)


def print_calibrations(directory: Path, games: list[str], verbose: bool) -> None:
    """Calibrate from every clean frame of ``directory`` with its true position (what
    ``tavola vision calibrate`` does with a picture and the right position file): how many
    are kept, kept naming cells read otherwise with doubt (a lamp's reflection), or refused
    for too many such cells, or because the picture still differs surely."""
    from tavola.vision.calibrate import calibrate
    from tavola.vision.detect import VisionError

    rows: dict[str, list[int]] = {}
    refusals: list[str] = []
    for path, meta, image_path in clean_frames(directory, games):
        game = meta["game"]
        row = rows.setdefault(game, [0, 0, 0, 0, 0])  # frames, kept, naming, light, differs
        row[0] += 1
        try:
            result = calibrate(read_image(image_path), game, meta["cells"],
                             players=int(meta.get("players", 2)))
        except VisionError as refused:
            unsure = "cannot be read surely" in str(refused)
            row[3 if unsure else 4] += 1
            refusals.append(f"{path.stem}: {refused}")
            continue
        row[1] += 1
        row[2] += bool(result.unsure)
    print(f"calibrations from the true position, frames of {directory}\n")
    print("| game | frames | kept | kept, naming cells read with doubt | "
          "refused: too many cells read with doubt | refused: the picture still differs |")
    print("|---|---|---|---|---|---|")
    for game in in_order(rows):
        frames, kept, naming, light, differs = rows[game]
        print(f"| {game} | {frames} | {kept} | {naming} | {light} | {differs} |")
    if verbose:
        for line in refusals:
            print("  " + line)


def print_checks(directory: Path, games: list[str], camera: str | None) -> None:
    """Judge every clean frame of ``directory`` as ``tavola vision check`` does, and read
    it: how the frames the check passes read, how those it asks to fix read, and what it
    asks to fix (a frame may need several things)."""
    from collections import Counter

    from tavola.vision.setup_check import check_setup

    rows: dict[str, list[int]] = {}  # passed, cells, wrong; to fix, cells, wrong
    asked: dict[str, Counter[str]] = {}
    for _, meta, image_path in clean_frames(directory, games):
        game = meta["game"]
        image = read_image(image_path)
        if camera is not None:
            image = CAMERAS[camera](image)
        fov = float(meta.get("fov", 62.0))
        report = check_setup(image, game, fov=fov, players=int(meta.get("players", 2)))
        asked.setdefault(game, Counter()).update(f.what for f in report.findings if f.fix)
        try:
            reading = Recogniser(game, fov=fov).read(image)
            wrong, _, cells, _ = _compare(game, meta["cells"], reading)
        except MarkersNotFoundError:
            wrong, cells = set(meta["cells"]), len(meta["cells"])
        row = rows.setdefault(game, [0] * 6)
        at = 0 if report.ok else 3
        row[at] += 1
        row[at + 1] += cells
        row[at + 2] += len(wrong)
    which = "" if camera is None else f", as a {camera} camera shows them"
    print(f"'tavola vision check' on the clean frames of {directory}{which}\n")
    print("| game | good to play: frames | their cells read right | to fix: frames | "
          "their cells read right | what to fix (frames) |")
    print("|---|---|---|---|---|---|")
    for game in in_order(rows):
        good, good_cells, good_wrong, fix, fix_cells, fix_wrong = rows[game]
        what = ", ".join(f"{k} {n}" for k, n in asked[game].most_common())
        print(f"| {game} | {good} | {_share(good_cells - good_wrong, good_cells)} | {fix} | "
              f"{_share(fix_cells - fix_wrong, fix_cells)} | {what} |")


def _share(part: int, whole: int) -> str:
    """``part`` of ``whole`` as a percentage, or "-" of nothing."""
    return f"{part / whole:.3%}" if whole else "-"


def idle_cost(game: str, seconds: float = 10.0,
              fps: float = 15.0) -> tuple[float, float, float]:
    """CPU of the camera backend per second, idle, in play, and reading every frame in full
    (no change gate), each over decoding the same frames alone."""
    from tavola.hardware.camera import CameraSensor
    from tavola.hardware.layout import Layout

    rng = random.Random(f"idle:{game}")
    positions = [random_position(game, rng) for _ in range(8)]
    conditions = dataclasses.replace(random_conditions(rng), noise=2.0, jpeg=None)
    pictures = [render(game, p, conditions).image for p in positions]
    n = round(seconds * fps)

    def encoded(changes_every: int | None) -> list[bytes]:
        out = []
        for k in range(n):
            picture = pictures[0 if changes_every is None else (k // changes_every) % 8]
            noisy = np.clip(picture + np.random.default_rng(k).normal(0, 2.0, picture.shape),
                            0, 255).astype(np.uint8)  # a live sensor: new noise each frame
            out.append(cv2.imencode(".jpg", noisy, [cv2.IMWRITE_JPEG_QUALITY, 90])[1].tobytes())
        return out

    def cpu(frames: list[bytes], sensor: CameraSensor | None) -> float:
        start = time.process_time()
        for k, data in enumerate(frames):
            image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
            if sensor is not None and image is not None:
                sensor.feed(np.asarray(image, np.uint8), k / fps)
        return time.process_time() - start

    ratios: list[float] = []
    for every in (None, round(2 * fps), None):
        frames = encoded(every)
        layout = Layout.for_game(game)
        sensor = CameraSensor(layout, game=game, source=FrameList([]))
        if len(ratios) == 2:  # the reference: every frame read in full (2 s are enough)
            frames = frames[: round(2 * fps)]
            sensor._gate = ChangeGate(threshold=-1.0)  # every frame "changed"
        decode = min(cpu(frames, None) for _ in range(3))
        ratios.append(cpu(frames, sensor) / decode)
    return ratios[0], ratios[1], ratios[2]


def main() -> None:
    """Print the accuracy table (rendered, or ``--set``), or the idle cost (``--idle``)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("games", nargs="*", default=list(GAMES), help="games (default: all)")
    parser.add_argument("--frames", type=int, default=500, help="frames per game (500)")
    parser.add_argument("--hard", action="store_true", help="the far ends of every range")
    parser.add_argument("--hands", action="store_true", help="also measure hand detection")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--set", type=Path, help="score this directory of frames + truth")
    parser.add_argument("--numbers", metavar="A:B", help="--set: only frames NAME-<k>, A <= k < B")
    parser.add_argument("--parity", choices=("even", "odd"), help="--set: only even/odd frames")
    parser.add_argument("--idle", action="store_true", help="CPU idle / in play vs decoding")
    parser.add_argument("--camera", choices=sorted(CAMERAS),
                        help="--set: the frames as another camera shows them")
    parser.add_argument("--ink-balance", action="store_true",
                        help="--set: white-balance clipped paper by its markers' ink")
    parser.add_argument("--calibrate", action="store_true",
                        help="--set: calibrate from each clean frame's true position")
    parser.add_argument("--check", action="store_true",
                        help="--set: judge each clean frame as 'tavola vision check' does")
    parser.add_argument("-v", "--verbose", action="store_true",
                        help="list every misread (* a cell blown out, ? one doubted)")
    args = parser.parse_args()
    unknown = sorted(set(args.games) - set(GAMES))
    if unknown:
        parser.error(f"unknown game {unknown[0]!r}; known: {', '.join(GAMES)}")
    if args.set is not None:
        if not args.set.is_dir():
            parser.error(f"--set {str(args.set)!r} is not a directory of frames")
        indices = None
        if args.numbers:
            low, _, high = args.numbers.partition(":")
            if not (low.isdigit() and high.isdigit()):
                parser.error(f"--numbers {args.numbers!r}: give A:B, e.g. 16:100")
            indices = range(int(low), int(high))
        parity = None if args.parity is None else ("even", "odd").index(args.parity)
        if args.calibrate:
            print_calibrations(args.set, args.games, args.verbose)
            return
        if args.check:
            print_checks(args.set, args.games, args.camera)
            return
        print_set(args.set, args.games, args.verbose, indices, parity, args.ink_balance,
                  args.camera)
        return
    if args.idle:
        print("| game | idle CPU / decoding alone | in play (a change every 2 s) | "
              "every frame read in full |")
        print("|---|---|---|---|")
        for game in args.games:
            idle, play, full = idle_cost(game)
            print(f"| {game} | {idle:.2f}x | {play:.2f}x | {full:.2f}x |", flush=True)
        return
    print(f"{args.frames} frames per game, {'hard' if args.hard else 'random'} conditions, "
          "1280x720, no calibration\n")
    head = ("| game | per cell | per board | wrong but flagged | right but flagged | "
            "not found | re-detect ms (median / p99) | tracked ms (median / p99) |")
    if args.hands:
        head += " hand seen (picture / camera) | clean flagged |"
    print(head)
    print("|" + "---|" * (head.count("|") - 1))
    for game in args.games:
        t = run(game, args.frames, hard=args.hard, hands=args.hands, seed=args.seed)
        cell = 1 - t.wrong / max(t.cells, 1)
        board = 1 - t.boards_wrong / max(t.boards, 1)
        flagged = f"{t.flagged / t.wrong:.0%}" if t.wrong else "-"
        doubted = f"{t.doubted / max(t.cells - t.wrong, 1):.2%}"
        row = (f"| {game} | {cell:.4%} | {board:.2%} | {flagged} | {doubted} | {t.lost} | "
               f"{ms(t.redetect, 0.5)} / {ms(t.redetect, 0.99)} | "
               f"{ms(t.tracked, 0.5)} / {ms(t.tracked, 0.99)} |")
        if args.hands:
            n = max(t.hand_frames, 1)
            row += (f" {t.hand_seen / n:.0%} / {t.hand_seen_tracked / n:.0%} | "
                    f"{t.false_hands}/{t.clean_frames} |")
        print(row, flush=True)


if __name__ == "__main__":
    main()
