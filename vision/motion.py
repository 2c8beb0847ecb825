"""Whether the picture changed: a cheap test that lets an idle board cost little.

A full reading of a frame (markers, white balance, warps, every cell) costs tens of
milliseconds; most frames of an evening show a board where nothing moves. :class:`ChangeGate`
keeps a small grey copy of the last frame that was read in full (about ``SMALL`` pixels
wide, each pixel the mean of an 8x8 block, so sensor noise averages out) and compares each
new frame's copy with it: if no block of the picture changed by more than ``threshold``
grey levels, the frame says nothing new and the last reading stands. A piece put down, a
hand coming in, the camera bumped or the light switched change many blocks by far more.
Slow drifts (dusk) add up against the kept copy until they pass the threshold, and a full
reading is forced every ``refresh`` frames anyway.

>>> import numpy as np
>>> gate = ChangeGate()
>>> frame = np.full((720, 1280, 3), 120, np.uint8)
>>> gate.changed(frame), gate.changed(frame)
(True, False)
>>> frame[300:360, 600:660] = 30  # a dark piece put down
>>> gate.changed(frame)
True
"""

from __future__ import annotations

import cv2
import numpy as np
import numpy.typing as npt

SMALL = 160  # about this many pixels across the small copy: a 1280-wide frame in 8x8 blocks


class ChangeGate:
    """Says which frames need a full reading (see the module docstring)."""

    def __init__(self, threshold: float = 6.0, refresh: int = 300) -> None:
        self.threshold = threshold
        self.refresh = refresh
        self._kept: npt.NDArray[np.float32] | None = None
        self._since = 0

    def changed(self, image: npt.NDArray[np.uint8]) -> bool:
        """Whether ``image`` differs from the last frame for which this returned True
        (that frame is then kept as the new reference)."""
        h, w = image.shape[:2]
        f = max(1, round(w / SMALL))
        # A whole number of f x f blocks: OpenCV's fast path for an integer shrink.
        grey = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
        grey = grey[: h - h % f, : w - w % f]
        size = (grey.shape[1] // f, grey.shape[0] // f)
        small = cv2.resize(grey, size, interpolation=cv2.INTER_AREA).astype(np.float32)
        self._since += 1
        if (
            self._kept is None
            or self._kept.shape != small.shape
            or self._since >= self.refresh
            or float(np.max(np.abs(small - self._kept))) > self.threshold
        ):
            self._kept = small
            self._since = 0
            return True
        return False

    def reset(self) -> None:
        """Forget the reference: the next frame is read in full."""
        self._kept = None
