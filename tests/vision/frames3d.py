"""One frame of the committed physically rendered set (tests/vision/data3d) read as the
set's tests read it: with no calibration, the reading's cells named as the truth's (Quinque's
lattice is found up to a shift), and the cells the reader doubts."""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.vision import as_truth
from tavola.vision.classify import Reading, Recogniser
from tavola.vision.detect import BoardTracker
from tavola.vision.source import read_image

DATA = Path(__file__).parent / "data3d"
FIXTURES = Path(__file__).parent / "fixtures"


@dataclass(frozen=True)
class Frame3D:
    """``truth``: the frame's JSON (``cells``, ``hand``, the scene); ``read``: cell ->
    token as read, named as the truth's cells; ``doubted``: those read uncertain."""

    truth: dict[str, Any]
    reading: Reading
    read: dict[str, str]
    doubted: frozenset[str]


def read_3d(name: str) -> Frame3D:
    """Read ``name`` (``quinque-044``) with a fresh recogniser for its game."""
    truth = json.loads((DATA / f"{name}.json").read_text(encoding="utf-8"))
    reading = Recogniser(truth["game"], fov=float(truth["fov"])).read(
        read_image(DATA / f"{name}.jpg"))
    read, doubted = as_truth(truth["game"], truth["cells"], reading)
    return Frame3D(truth, reading, read, frozenset(doubted))


def read_small_markers(name: str) -> Frame3D:
    """Read ``name`` (``quinque-044``) as rendered when Quinque's markers were 0.8 skydiver
    (``tests/vision/fixtures/<name>-small-markers``): frames that showed a case the
    re-rendered set no longer does, read with the geometry they were drawn with."""
    truth = json.loads((FIXTURES / f"{name}-small-markers.json").read_text(encoding="utf-8"))
    recogniser = Recogniser(truth["game"], fov=float(truth["fov"]))
    recogniser.geometry = dataclasses.replace(recogniser.geometry, marker_unit=1.0)
    recogniser.tracker = BoardTracker(recogniser.geometry)
    reading = recogniser.read(read_image(FIXTURES / f"{name}-small-markers.jpg"))
    read, doubted = as_truth(truth["game"], truth["cells"], reading)
    return Frame3D(truth, reading, read, frozenset(doubted))


def assert_read_or_doubted(name: str, cells: tuple[str, ...]) -> Frame3D:
    """Each of ``cells`` of frame ``name`` (a piece there, not a bare tile) is read right or
    doubted (the rules then decide it): never a wrong reading trusted. The frame read."""
    frame = read_3d(name)
    for cell in cells:
        truth = frame.truth["cells"][cell]
        assert truth not in ("", "."), (name, cell)
        assert frame.read[cell] == truth or cell in frame.doubted, (name, cell)
    return frame
