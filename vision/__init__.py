"""Reading a board from an overhead camera: pure OpenCV and numpy.

The public names are imported on first use, so that ``import vision.geometry`` (pure
Python) does not load OpenCV:

- :class:`Recogniser`, :class:`Reading` (vision.classify): frames -> cell tokens;
- :class:`BoardTracker`, :func:`find_markers`, :class:`VisionError`,
  :class:`MarkersNotFoundError` (vision.detect): the markers and the homography;
- :class:`Calibration`, :func:`calibrate` (vision.calibrate): colours of a real set;
- :func:`open_source`, :class:`FrameSource` (vision.source): cameras, files, lists;
- :mod:`vision.commands`: what ``tavola vision calibrate`` / ``classify`` run.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "Recogniser": "tavola.vision.classify",
    "Reading": "tavola.vision.classify",
    "BoardTracker": "tavola.vision.detect",
    "find_markers": "tavola.vision.detect",
    "VisionError": "tavola.vision.detect",
    "MarkersNotFoundError": "tavola.vision.detect",
    "Calibration": "tavola.vision.calibrate",
    "calibrate": "tavola.vision.calibrate",
    "open_source": "tavola.vision.source",
    "FrameSource": "tavola.vision.source",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return getattr(importlib.import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'vision' has no attribute {name!r}")
