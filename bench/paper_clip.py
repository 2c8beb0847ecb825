"""How often the markers' paper is clipped at the sensor's ceiling, and how well their ink
tells the light's tint where it is not.

Run: ``.venv/bin/python bench/paper_clip.py [DIR]`` (default tests/vision/data3d).

Per game: markers seen, the share whose paper is clipped in blue, green, red and in all
three (``BLOWN``), frames whose every marker is clipped in all three; then over the
markers whose paper is below the ceiling, how far (standard deviation of the
log-chromaticity, linear light) the paper's tint is from none (the paper-only balance on
a clipped paper) and from the tint :func:`~tavola.vision.light.paper_light` takes from
the ink (``INK_SHARE`` of the ink's).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path

# This file is bench/paper_clip.py: put the repository first (as bench/vision.py does).
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np
import numpy.typing as npt

from tavola.vision.detect import BLOWN, BoardTracker, MarkersNotFoundError
from tavola.vision.geometry import geometry_for
from tavola.vision.light import INK_SHARE, PAPER_CHROMA, chromaticity, linear
from tavola.vision.source import read_image


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("directory", nargs="?", type=Path, default=Path("tests/vision/data3d"),
                        help="frames (JPEG) with their truth files (JSON) beside them")
    directory = parser.parse_args(argv).directory
    if not any(directory.glob("*.json")):
        parser.error(f"{directory}: no truth files (*.json) there")
    clipped: dict[str, list[npt.NDArray[np.bool_]]] = defaultdict(list)
    white_frames: dict[str, int] = defaultdict(int)
    frames: dict[str, int] = defaultdict(int)
    errors: dict[str, list[tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]]] = (
        defaultdict(list))
    for path in sorted(directory.glob("*.json")):
        game = json.loads(path.read_text(encoding="utf-8"))["game"]
        image = read_image(path.with_suffix(".jpg"))
        try:
            fix = BoardTracker(geometry_for(game)).update(image)
        except MarkersNotFoundError:
            continue
        frames[game] += 1
        every = True
        for m, paper in fix.paper.items():
            clip = np.array(paper) >= BLOWN
            clipped[game].append(clip)
            every &= bool(clip.all())
            ink = fix.ink[m]
            if not clip.any() and max(ink) < 160:
                tint = chromaticity(linear(paper))
                guess = INK_SHARE * chromaticity(linear(ink)) + PAPER_CHROMA
                errors[game].append((tint - PAPER_CHROMA, tint - guess))
        white_frames[game] += every
    print("| game | markers | paper clipped in B / G / R / all | frames all white | "
          "tint error: none / from the ink (markers below the ceiling) |")
    print("|---|---|---|---|---|")
    for game in sorted(clipped):
        c = np.array(clipped[game])
        share = [f"{100 * v:.0f}" for v in (*c.mean(axis=0), c.all(axis=1).mean())]
        e = np.array(errors[game]) if errors[game] else np.zeros((0, 2, 3))
        none, from_ink = ((f"{float(np.std(e[:, k])):.3f}" if len(e) else "-") for k in (0, 1))
        print(f"| {game} | {len(c)} | {' / '.join(share)} % | {white_frames[game]}/"
              f"{frames[game]} | {none} / {from_ink} ({len(e)}) |")


if __name__ == "__main__":
    main()
