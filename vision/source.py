"""Where frames come from: a USB webcam, a Raspberry Pi camera, image files, or a list.

Every source has ``read()`` (the next BGR frame, or None when a finite source is used up)
and an idempotent ``close()``. :func:`open_source` picks one from the string a config file
holds: a camera index (``"0"``), a camera's device path (``"/dev/video0"``, or the
``/dev/v4l/by-id/...`` name that stays the same after a reboot), ``"picamera2"``, an image
file, a directory of images (played in name order) or a video file / stream URL.
Picamera2 is imported only when asked for, so the module loads on any machine with OpenCV.

>>> import numpy as np
>>> src = FrameList([np.zeros((2, 2, 3), np.uint8)])
>>> src.read().shape, src.read()
((2, 2, 3), None)
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Iterable
from pathlib import Path
from types import TracebackType
from typing import Any, Protocol, Self, runtime_checkable

import cv2
import numpy as np
import numpy.typing as npt

Image = npt.NDArray[np.uint8]

log = logging.getLogger("tavola.vision")

# OpenCV's own warnings for a camera that will not open ("[ WARN:0@0.1] global
# cap_v4l.cpp:915 open VIDEOIO(V4L2:/dev/video5): can't open camera by index", and one per
# backend tried) went to stderr at every retry of an unplugged camera, two lines each
# 30 s all evening past the quiet backoff log; CameraError says the same in words.
# OPENCV_LOG_LEVEL, when set, still decides.
if "OPENCV_LOG_LEVEL" not in os.environ:
    cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_ERROR)

IMAGE_SUFFIXES = frozenset({".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp"})

__all__ = [
    "IMAGE_SUFFIXES",
    "CameraError",
    "FrameList",
    "FrameSource",
    "ImageFiles",
    "Picamera2Source",
    "VideoSource",
    "open_source",
    "read_image",
]


class CameraError(OSError):
    """A frame source that cannot be opened or read; the message says what to check."""


@runtime_checkable
class FrameSource(Protocol):
    """A stream of BGR frames. ``read()`` blocks until the next frame; None: no more."""

    def read(self) -> Image | None: ...

    def close(self) -> None: ...


class _Closing:
    def close(self) -> None:  # pragma: no cover - overridden
        pass

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def read_image(path: str | os.PathLike[str]) -> Image:
    """One image file as a BGR array; :class:`CameraError` if it cannot be read."""
    p = Path(path)
    if not p.is_file():
        raise CameraError(f"image {p} does not exist (give the path of a photo of the board)")
    image = cv2.imread(str(p), cv2.IMREAD_COLOR)
    if image is None:
        raise CameraError(f"image {p} could not be read: is it a PNG or JPEG picture?")
    return np.ascontiguousarray(image, dtype=np.uint8)


class FrameList(_Closing):
    """Frames held in memory (tests, benchmarks), handed out once each in order."""

    def __init__(self, frames: Iterable[Image]) -> None:
        self._frames = iter(frames)
        self.closed = False

    def read(self) -> Image | None:
        """The next frame, or None once all were read or the source was closed."""
        if self.closed:
            return None
        return next(self._frames, None)

    def close(self) -> None:
        """Stop handing out frames. Idempotent."""
        self.closed = True


class ImageFiles(_Closing):
    """An image file, or every image in a directory in name order, each read once.

    A file that is the very file read just before (a link to it: a directory of links to
    one picture stands for a camera watching a board where nothing happens) is not decoded
    again: a copy of that image is handed out. Decoding a 1280x720 PNG costs tens of
    milliseconds, a copy well under one, so the idle cost measured with such a directory
    is the daemon's, not the decoder's.
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        p = Path(path)
        if p.is_dir():
            self.paths = sorted(f for f in p.iterdir() if f.suffix.lower() in IMAGE_SUFFIXES)
            if not self.paths:
                kinds = ", ".join(sorted(IMAGE_SUFFIXES))
                raise CameraError(f"directory {p} holds no images ({kinds})")
        elif p.is_file():
            self.paths = [p]
        else:
            raise CameraError(f"{p} is neither an image file nor a directory of images")
        self._next = 0
        # The file read last, as (device, inode, size, modification time), and a copy of
        # its image that nobody else holds (a reader may draw on the frames it gets).
        self._last_file: tuple[int, int, int, int] | None = None
        self._last_image: Image | None = None

    def read(self) -> Image | None:
        """The next image, or None after the last one. In a directory, a file that cannot
        be read is skipped with a warning: raised, it made the camera open the directory
        again, from its first frame, and play the game over and over."""
        while self._next < len(self.paths):
            try:
                return self._read_one(self.paths[self._next])
            except CameraError as exc:
                if len(self.paths) == 1:
                    raise
                log.warning("%s; skipped", exc)
            finally:
                self._next += 1
        return None

    def _read_one(self, path: Path) -> Image:
        try:
            st = path.stat()  # follows links: a link and its target are one file
        except OSError:
            return read_image(path)  # gone meanwhile: read_image says so
        file = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)
        if file == self._last_file and self._last_image is not None:
            return self._last_image.copy()
        image = read_image(path)
        self._last_file, self._last_image = file, image.copy()
        return image

    def close(self) -> None:
        """Hand out no more images. Idempotent."""
        self._next = len(self.paths)


class VideoSource(_Closing):
    """A USB webcam by index or device path, or a video file or stream URL, through
    ``cv2.VideoCapture``.

    ``live``: a camera (the default for an index), not a recording: its ``width``/
    ``height``/``fps`` are requested (it may choose others), the driver's buffer is kept at
    one frame so that a slow reader gets the newest frame, and frames that stop coming are
    a fault, not the end of a file.
    """

    def __init__(
        self,
        device: int | str,
        *,
        width: int = 1280,
        height: int = 720,
        fps: float = 15.0,
        live: bool | None = None,
    ) -> None:
        self.device = device
        self._live = isinstance(device, int) if live is None else live
        if self._live and isinstance(device, str) and sys.platform.startswith("linux"):
            # A device path through Video4Linux itself: OpenCV's first choice for a file
            # name, FFmpeg, reads it as a file (or not at all).
            self._capture = cv2.VideoCapture(os.path.realpath(device), cv2.CAP_V4L2)
        else:
            self._capture = cv2.VideoCapture(device)
        if not self._capture.isOpened():
            self._capture.release()
            what = f"camera {device}" if self._live else f"video {device!r}"
            raise CameraError(
                f"{what} could not be opened: is it plugged in, and is this user in the "
                "'video' group? (list cameras with 'v4l2-ctl --list-devices')"
            )
        if self._live:
            self._capture.set(cv2.CAP_PROP_FRAME_WIDTH, width)
            self._capture.set(cv2.CAP_PROP_FRAME_HEIGHT, height)
            self._capture.set(cv2.CAP_PROP_FPS, fps)
            self._capture.set(cv2.CAP_PROP_BUFFERSIZE, 1)
        self._closed = False

    def read(self) -> Image | None:
        """The next frame; None at the end of a file. A live camera that stops delivering
        raises :class:`CameraError`."""
        if self._closed:
            return None
        ok, frame = self._capture.read()
        if not ok or frame is None:
            if self._live:
                raise CameraError(f"camera {self.device} stopped delivering frames: "
                                  "check its cable")
            return None
        return np.ascontiguousarray(frame, dtype=np.uint8)

    def close(self) -> None:
        """Release the camera. Idempotent."""
        if not self._closed:
            self._closed = True
            self._capture.release()


class Picamera2Source(_Closing):
    """The Raspberry Pi camera through Picamera2 (imported here, only when chosen)."""

    def __init__(self, *, width: int = 1280, height: int = 720, fps: float = 15.0) -> None:
        try:
            from picamera2 import Picamera2
        except ImportError as exc:
            raise CameraError(
                "source 'picamera2' needs the picamera2 package: on Raspberry Pi OS, "
                "'sudo apt install python3-picamera2' (and create the venv with "
                "--system-site-packages), or use a USB webcam with source = \"0\""
            ) from exc
        self._camera: Any = Picamera2()
        config = self._camera.create_video_configuration(
            main={"size": (width, height), "format": "RGB888"},
            controls={"FrameRate": fps},
        )
        self._camera.configure(config)
        self._camera.start()
        self._closed = False

    def read(self) -> Image | None:
        """The newest frame (Picamera2's RGB888 is BGR in memory, as OpenCV wants)."""
        if self._closed:
            return None
        frame = self._camera.capture_array("main")
        return np.ascontiguousarray(frame[:, :, :3], dtype=np.uint8)

    def close(self) -> None:
        """Stop the camera. Idempotent."""
        if not self._closed:
            self._closed = True
            self._camera.stop()
            self._camera.close()


def open_source(
    spec: str | int | os.PathLike[str] | FrameSource,
    *,
    width: int = 1280,
    height: int = 720,
    fps: float = 15.0,
) -> FrameSource:
    """The frame source a config value names.

    ``"0"``, ``"1"`` ... (or an int): that USB camera; a device under ``/dev``: that
    camera (missing: a :class:`CameraError` that the camera sensor retries, so a camera
    plugged in later is found); ``"picamera2"``: the Pi camera; an image file or a
    directory of images; any other existing file or a URL: a video through OpenCV. A
    :class:`FrameSource` object is returned as it is.
    """
    if isinstance(spec, FrameSource):
        return spec
    if isinstance(spec, int):
        return VideoSource(spec, width=width, height=height, fps=fps)
    text = os.fspath(spec).strip()
    if text.isdigit():
        return VideoSource(int(text), width=width, height=height, fps=fps)
    if text.lower() == "picamera2":
        return Picamera2Source(width=width, height=height, fps=fps)
    path = Path(text)
    if path.is_char_device():
        return VideoSource(text, width=width, height=height, fps=fps, live=True)
    if text.startswith("/dev/"):
        raise CameraError(
            f"no camera at {text}: is it plugged in? ('v4l2-ctl --list-devices' lists the "
            "cameras; a /dev/v4l/by-id/ name stays the same after a reboot)"
        )
    if path.is_dir() or (path.is_file() and path.suffix.lower() in IMAGE_SUFFIXES):
        return ImageFiles(path)
    if path.is_file() or "://" in text:
        return VideoSource(text, width=width, height=height, fps=fps)
    raise CameraError(
        f"camera source {text!r} is not a camera index or device, 'picamera2', an image, a "
        "directory of images or a video: check the sensor's source option"
    )
