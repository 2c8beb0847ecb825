"""The ``camera`` sensor backend: frames from an overhead camera -> vision -> snapshots.

Each frame is read and recognised in a worker thread (``asyncio.to_thread``), so the daemon's
loop never blocks on the camera. A frame with a hand over the board is skipped. A reading is
reported as a :class:`~hardware.base.Snapshot` once ``agree`` consecutive frames agree on it
and it differs from the last one reported (the camera's debounce); cells the recogniser
doubts go into ``Snapshot.uncertain`` so that inference can prefer a legal position there.
When the board's markers stay out of sight for ``lost_after`` seconds, or the camera fails,
a :class:`~hardware.base.SensorFault` says so; the next snapshot means the board is back.

Options (``[sensor] options`` in the config; the daemon adds ``game`` and ``players``):

- ``game``: the registry name of the game (which pieces to recognise); ``players``: 2 or 4.
- ``source``: ``"0"`` (USB camera index, the default), ``"picamera2"``, an image file, a
  directory of images (played once in name order), a video file, or a frame-source object.
- ``calibration``: a file written by ``tavola vision calibrate`` (colours of this set of
  pieces in this room); without one, nominal colours and the bare board are used.
- ``agree`` (3): frames that must agree before a reading is reported.
- ``fps`` (15): frames per second asked of the camera; image files are paced at this rate
  (0: as fast as they can be read, for tests).
- ``lost_after`` (3.0): seconds without the board before a fault.
- ``redetect_every`` (150): frames between fresh marker searches (0: only when tracking
  fails). ``width``/``height`` (1280x720): the resolution asked of the camera.
- ``fov`` (62): the camera's horizontal field of view in degrees (the Raspberry Pi camera
  module v2's; a Logitech C920 is about 70), for the parallax of tall pieces.
- ``start``: for Quinque, the position the game is in (``game.view("identity")``), so that
  the tiles on the table are named in the game's coordinates; without it the tile nearest
  the middle of the table is tile (0,0) (the first tile of a new game).
- ``refresh_every`` (60): seconds between refreshes of the calibration during play (0:
  never). The daemon offers each accepted position (:meth:`CameraSensor.follow_position`);
  the frame thread recalibrates from the next clean frame that shows it with all four
  markers seen, so slow changes of the light (a window at dusk) are followed.
- ``clock``: a monotonic clock (tests inject one).

:meth:`CameraSensor.health` says how the camera sees the board (markers seen or missing,
for how long, the last refresh), for the web view and status.

>>> from hardware.layout import Layout
>>> from vision.source import FrameList
>>> sensor = CameraSensor(Layout.for_game("quixo"), game="quixo", source=FrameList([]))
>>> sensor.capability, len(sensor.cells)
('identity', 25)
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
import time
from collections import deque
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass

from tavola.backoff import QuietRetries
from tavola.vision.calibrate import Calibration
from tavola.vision.classify import MOVE_THE_LAMP, Reading, Recogniser, as_seen
from tavola.vision.detect import MarkersNotFoundError
from tavola.vision.motion import ChangeGate
from tavola.vision.setup_check import LASTING, WARM_UP_FRAMES, SetupReport, check_setup
from tavola.vision.source import CameraError, FrameSource, Image, open_source

from .base import (
    Capability,
    Closing,
    SensorEvent,
    SensorFault,
    Snapshot,
    option_number,
    option_whole,
)
from .layout import Layout

__all__ = ["CameraHealth", "CameraSensor"]

# A failed or missing camera is reopened after 1, 2, 4 ... seconds, at most every 30 s:
# a camera unplugged for the evening costs nothing, one plugged back in is found soon.
RETRY_FIRST = 1.0
RETRY_MAX = 30.0

log = logging.getLogger("tavola.camera")


@dataclass(frozen=True)
class CameraHealth:
    """How the camera sees the board, for a status page (:meth:`CameraSensor.health`).

    ``board_seen``: the last frame read found the board (three markers are enough);
    ``missing_markers``: the marker ids (0 top left, 1 top right, 2 bottom right, 3 beyond
    a1) not confirmed in it; ``lost_for``: seconds the board has been out of sight (None
    while it is seen); ``camera_ok``: the camera opens and delivers; ``hand``: a hand or arm
    was over the board; ``refreshed_at``: the clock time of the last calibration refresh
    that was kept (None: none yet), ``refresh_failed``: refreshes refused since (the
    picture did not fit the accepted position); ``frames``/``analysed``/``skipped``: frames
    read, read in full, skipped for a hand; ``glare``: the cells a lamp's reflection blew
    out in the last frame read (what to do about it is in the summary); ``setup``: what
    the first clear frame showed to fix that does not come and go with the light or a
    hand (the camera's tilt, its focus: :mod:`vision.setup_check`).
    """

    board_seen: bool
    missing_markers: tuple[int, ...]
    lost_for: float | None
    camera_ok: bool
    hand: bool
    refreshed_at: float | None
    refresh_failed: int
    frames: int
    analysed: int
    skipped: int
    glare: tuple[str, ...] = ()
    setup: tuple[str, ...] = ()

    def summary(self) -> str:
        """The health in words, for the live view's status line.

        >>> CameraHealth(True, (), None, True, False, None, 0, 9, 9, 0).summary()
        'camera: 4 of 4 markers seen'
        >>> CameraHealth(False, (2, 3), 12.4, True, False, None, 0, 9, 5, 0).summary()
        'camera: board out of sight for 12 s, markers 2, 3 not seen'
        >>> CameraHealth(True, (), None, True, True, None, 2, 9, 9, 0).summary()
        'camera: 4 of 4 markers seen, a hand over the board, 2 light refreshes refused'
        >>> CameraHealth(True, (), None, False, False, None, 0, 9, 9, 0).summary()
        'camera: not delivering frames, 4 of 4 markers seen'
        >>> CameraHealth(True, (), None, True, False, None, 0, 9, 9, 0, ("d5", "e5")).summary()
        "camera: 4 of 4 markers seen, a lamp's reflection over d5, e5 (move the lamp or tilt the camera until no white spot falls on the board)"
        >>> CameraHealth(True, (), None, True, False, None, 0, 9, 9, 0, (), ("focus",)).summary()
        "camera: 4 of 4 markers seen, setup to fix: focus ('tavola vision check' tells how)"
        """  # noqa: E501
        said = [] if self.camera_ok else ["not delivering frames"]
        if not self.board_seen:
            said.append("board out of sight" + (f" for {self.lost_for:.0f} s"
                                                if self.lost_for is not None else ""))
            if self.missing_markers:
                said.append("markers " + ", ".join(map(str, self.missing_markers)) +
                            " not seen")
        else:
            said.append(f"{4 - len(self.missing_markers)} of 4 markers seen")
        if self.hand:
            said.append("a hand over the board")
        if self.glare:
            said.append(f"a lamp's reflection over {', '.join(self.glare)} ({MOVE_THE_LAMP})")
        if self.refresh_failed:
            said.append(f"{self.refresh_failed} light refreshes refused")
        if self.setup:
            said.append(f"setup to fix: {', '.join(self.setup)} ('tavola vision check' tells "
                        "how)")
        return "camera: " + ", ".join(said)


class CameraSensor(Closing):
    """Reads the board through a camera (see the module docstring); a ``SensorBackend``."""

    capability: Capability = "identity"

    def __init__(
        self,
        layout: Layout,
        *,
        game: str,
        players: int = 2,
        source: str | int | os.PathLike[str] | FrameSource = "0",
        calibration: str | os.PathLike[str] | Calibration | None = None,
        agree: int = 3,
        fps: float = 15.0,
        lost_after: float = 3.0,
        redetect_every: int = 150,
        width: int = 1280,
        height: int = 720,
        fov: float = 62.0,
        start: Mapping[str, str] | None = None,
        refresh_every: float = 60.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        key = "[sensor.options] "  # a scripter's keywords are the config's options
        agree = option_whole(key + "agree", agree, 1, 100, "frames that must agree, e.g. 3")
        fps = option_number(key + "fps", fps, 0, 240, "frames a second, 0: as fast as they "
                            "come, e.g. 15")
        lost_after = option_number(key + "lost_after", lost_after, 0, 3600,
                                   "seconds, e.g. 3")
        refresh_every = option_number(key + "refresh_every", refresh_every, 0, 86400,
                                      "seconds, 0: never, e.g. 60")
        redetect_every = option_whole(key + "redetect_every", redetect_every, 0, 1_000_000,
                                      "frames, 0: only when tracking fails, e.g. 150")
        width = option_whole(key + "width", width, 160, 8192, "pixels, e.g. 1280")
        height = option_whole(key + "height", height, 120, 8192, "pixels, e.g. 720")
        fov = option_number(key + "fov", fov, 20, 170, "degrees across, e.g. 62")
        self.layout = layout
        self.game = game
        calib = calibration
        if calib is not None and not isinstance(calib, Calibration):
            calib = Calibration.load(calib)
        self.recogniser = Recogniser(
            game, players=int(players), calibration=calib,
            redetect_every=int(redetect_every), fov=float(fov), start=start,
        )
        known = set(self.recogniser.cells)
        unknown = [c for c in layout.cells if c not in known]
        if self.recogniser.cells and unknown:
            raise ValueError(
                f"camera: layout {layout.name!r} has cell {unknown[0]!r}, which the {game} "
                "board the camera reads does not have; choose the game's layout"
            )
        self._cells = tuple(c for c in layout.cells if c in known)
        self.agree = int(agree)
        self.fps = float(fps)
        self.lost_after = float(lost_after)
        self.clock = clock
        self._spec = source
        self._size = (int(width), int(height))
        self._source: FrameSource | None = None
        self._recent: deque[tuple[dict[str, str], frozenset[str]]] = deque(maxlen=self.agree)
        self._reported: tuple[dict[str, str], frozenset[str]] | None = None
        self._lost_since: float | None = None
        self._board_fault = False  # a fault was reported for lost markers
        self._camera_fault = False  # a fault was reported for a failed camera
        self._live = _is_live(source)
        self._gate = ChangeGate()
        self._last: Reading | MarkersNotFoundError | None = None  # of the last full read
        self._clean_frame: Image | None = None  # the last frame read in full without a hand
        self._retry_in = 0.0  # the current backoff step (0: the camera works)
        self._retries = QuietRetries(RETRY_MAX)  # which failed opens the log hears of
        self._retry_at = 0.0  # when to try to open the camera again
        self._closed = False
        self._busy = False
        self.refresh_every = float(refresh_every)
        # The position last accepted by the game, offered by the daemon's loop and taken by
        # the frame thread: one reference assigned whole, guarded by a lock all the same.
        self._offer_lock = threading.Lock()
        self._offered: dict[str, str] | None = None
        self._refresh_at = clock() + self.refresh_every
        self._refreshed_at: float | None = None
        self._refresh_failed = 0
        self._frame_lock = threading.Lock()  # one reading or refresh of the recogniser at once
        self.frames = 0  # frames read, for status and tests
        self.analysed = 0  # frames read in full (the others showed no change)
        self.skipped = 0  # frames skipped for a hand over the board
        self.setup: SetupReport | None = None  # the setup as the first clean frame showed it
        self._setup_judged = False

    # ------------------------------------------------------------ SensorBackend
    @property
    def cells(self) -> tuple[str, ...]:
        """The cells the camera reports (none for Quinque, whose cells come and go)."""
        return self._cells

    async def events(self) -> AsyncIterator[SensorEvent]:
        """Snapshots and faults until closed, or until a finite source (files) runs out."""
        period = 1.0 / self.fps if self.fps > 0 else 0.0
        while not self._closed:
            started = self.clock()
            self._busy = True
            try:
                done, event = await asyncio.to_thread(self._step)
            finally:
                self._busy = False
                if self._closed:
                    self._release()
            if event is not None:
                yield event
            if done:
                return
            if self._source is None and self._retry_in:
                await asyncio.sleep(max(0.0, self._retry_at - self.clock()))
            elif period and not self._live:  # a live camera paces itself
                await asyncio.sleep(max(0.0, period - (self.clock() - started)))
            else:
                await asyncio.sleep(0)

    def read_game(self, game: str, players: int, start: Mapping[str, str]) -> None:
        """Read ``game``'s pieces from now on: the daemon started another game on this
        board (``new tessere`` on a 5x5 board set up for Quixo; before, the camera went on
        reading Quixo's cubes and every tessere move was an illegal position). The
        calibration is kept if it is that game's; otherwise the nominal colours are used
        (a warning says to calibrate for it)."""
        with self._frame_lock:
            old = self.recogniser
            if (old.game, old.players) == (game, players):
                return
            calibration = old.calibration
            if calibration is not None and calibration.game != game:
                log.warning("camera: the calibration is for %s, not %s: reading %s's pieces "
                            "by their nominal colours (tavola vision calibrate --game %s)",
                            calibration.game, game, game, game)
                calibration = None
            self.recogniser = Recogniser(game, players=players, calibration=calibration,
                                         redetect_every=old.redetect_every, fov=old.fov,
                                         start=start)
            known = set(self.recogniser.cells)
            self._cells = tuple(c for c in self.layout.cells if c in known)
            self.game = game
            # What was read of the other game's pieces says nothing of these.
            self._recent.clear()
            self._reported = None
            self._gate = ChangeGate()
            self._last = None
            self._clean_frame = None
            self.setup, self._setup_judged = None, False

    def request_snapshot(self) -> None:
        """Report the next agreed reading even if it equals the last one (a resync)."""
        self._reported = None

    def refresh_calibration(self, position: Mapping[str, str]) -> bool:
        """Recalibrate from the last clean frame, which shows ``position`` (the game's
        identity view once a move was accepted): slow light changes are followed. Safe from
        any thread (it waits for the frame being read); it takes a fraction of a second, so
        not on the event loop: the daemon calls :meth:`follow_position` instead. False if
        the frame does not fit the position (nothing changes then)."""
        with self._frame_lock:
            frame = self._clean_frame
            ok = frame is not None and self.recogniser.refresh(frame, position) is not None
        if ok:
            self._refreshed_at = self.clock()
            self._refresh_failed = 0
        else:
            self._refresh_failed += 1
        return ok

    def follow_position(self, position: Mapping[str, str]) -> None:
        """The position the game accepted (its identity view), offered after each snapshot;
        cheap, for the event loop. Every ``refresh_every`` seconds the frame thread
        recalibrates from a clean frame that shows it with all four markers seen."""
        with self._offer_lock:
            self._offered = dict(position)

    def health(self) -> CameraHealth:
        """How the camera sees the board now (see :class:`CameraHealth`)."""
        last = self._last
        glare: tuple[str, ...] = ()
        if isinstance(last, Reading) and last.fix is not None:
            seen, missing, hand = True, last.fix.missing, last.hand
            glare = () if hand else tuple(sorted(last.blown))
        elif isinstance(last, MarkersNotFoundError):
            seen, missing, hand = False, tuple(last.missing), False
        else:  # nothing read yet, or the camera failed
            seen, missing, hand = False, (0, 1, 2, 3), False
        lost = None if self._lost_since is None else max(0.0, self.clock() - self._lost_since)
        setup = tuple(f.what for f in self.setup.findings if f.fix and f.what in LASTING
                      ) if self.setup is not None else ()
        return CameraHealth(seen, missing, lost, not self._camera_fault, hand,
                            self._refreshed_at, self._refresh_failed, self.frames,
                            self.analysed, self.skipped, glare, setup)

    def close(self) -> None:
        """Stop reading and release the camera. Idempotent."""
        self._closed = True
        if not self._busy:
            self._release()

    # ------------------------------------------------------------ the pure core
    def feed(self, image: Image, now: float) -> SensorEvent | None:
        """Recognise one frame taken at ``now``; the event it completes, if any."""
        self.frames += 1
        changed = self._gate.changed(image)
        # A hand moves (and a thing left on the rim must be seen to stay): read those in full.
        if changed or self._last is None or (isinstance(self._last, Reading) and self._last.hand):
            self.analysed += 1
            try:
                with self._frame_lock:
                    self._last = self.recogniser.read(image)
                if not self._last.hand:
                    self._clean_frame = image
            except MarkersNotFoundError as lost:
                self._last = lost
        # else: nothing moved since the last full reading, which stands for this frame too
        reading = self._last
        if (not self._setup_judged and isinstance(reading, Reading) and not reading.hand
                and (not self._live or self.frames > WARM_UP_FRAMES)):
            # (This frame, read or not: a still board after the warm-up is read no more.)
            self._check_setup(image)
        if isinstance(reading, MarkersNotFoundError):
            self._recent.clear()
            if self._lost_since is None:
                self._lost_since = now
            lost_for = now - self._lost_since
            if not self._board_fault and lost_for >= self.lost_after:
                self._board_fault = True
                return SensorFault(_lost_message(reading, lost_for), now)
            return None
        self._lost_since = None
        if self._board_fault:
            self._board_fault = False
            self._reported = None  # back: the next agreed reading is a full resync
        self._maybe_refresh(reading, now)
        return self._agree(reading, now)

    def _check_setup(self, image: Image) -> None:
        """Judge the setup once, from the first clean frame (a live camera's once its
        first WARM_UP_FRAMES have settled its exposure; what ``tavola vision check``
        says), and log what needs fixing: a club's table is set up without a screen, and
        its log is where a lamp's reflection or a soft focus shows first."""
        self._setup_judged = True  # once, whatever happens: never a cost on every frame
        try:
            self.setup = check_setup(image, self.game, fov=self.recogniser.fov,
                                     players=self.recogniser.players,
                                     calibration=self.recogniser.calibration)
        except Exception:  # advice must never cost the board its readings
            log.exception("camera: the setup could not be judged")
            return
        for finding in self.setup.findings:
            if finding.fix:
                log.warning("camera setup: %s: %s; %s ('tavola vision check' tells more)",
                            finding.what, finding.said, finding.advice)

    def _maybe_refresh(self, reading: Reading, now: float) -> None:
        """Refresh the calibration when due, from this frame if it is clean, shows all four
        markers and reads as the position the game accepted (so the colours learned are
        the right ones) wherever it reads surely."""
        if not self.refresh_every or now < self._refresh_at or reading.hand:
            return
        with self._offer_lock:
            position = self._offered
        if position is None or reading.fix is None or reading.fix.missing:
            return
        seen = as_seen(self.game, position)
        read = dict(reading.cells)
        if self._cells:
            read = {c: read.get(c, "") for c in self._cells}
            seen = {c: seen.get(c, "") for c in self._cells}
        # An empty cell and a cell not named are alike (a Quinque reading names the squares
        # a reflection hides as doubted empty cells); a cell read with doubt, or one a lamp's
        # reflection blows out, shows the light rather than the position: it neither
        # confirms nor contradicts it (calibrate's rule too, which then decides).
        unsure = reading.uncertain | reading.blown
        if any(read.get(c, "") != seen.get(c, "") for c in set(read) | set(seen)
               if c not in unsure):
            return
        self._refresh_at = now + self.refresh_every
        if self.refresh_calibration(position):
            log.info("camera: calibration refreshed from the accepted position")

    def _agree(self, reading: Reading, now: float) -> Snapshot | None:
        if reading.hand:
            self.skipped += 1
            self._recent.clear()
            return None
        cells = dict(reading.cells)
        if self._cells:
            cells = {c: cells.get(c, "") for c in self._cells}
        uncertain = frozenset(c for c in reading.uncertain if c in cells)
        self._recent.append((cells, uncertain))
        if len(self._recent) < self.agree or any(r != self._recent[0] for r in self._recent):
            return None
        if self._reported == (cells, uncertain):
            return None
        self._reported = (cells, uncertain)
        return Snapshot(cells, now, uncertain)

    # ------------------------------------------------------------ the thread
    def _step(self) -> tuple[bool, SensorEvent | None]:
        """Read and recognise one frame (in a worker thread): (source ended, event)."""
        now = self.clock()
        try:
            if self._source is None:
                if now < self._retry_at:
                    return False, None
                self._source = open_source(self._spec, width=self._size[0],
                                           height=self._size[1], fps=self.fps or 15.0)
            image = self._source.read()
        except CameraError as exc:
            return False, self._failed(exc, now)
        if image is None:
            return True, None
        if self._camera_fault:
            log.info("camera: working again")
            self._camera_fault = False
            self._reported = None  # back: the next agreed reading is a full resync
        self._retry_in = 0.0
        self._retries.succeeded()
        try:
            return False, self.feed(image, now)
        except Exception:  # a bug must cost one frame, never the sensor
            log.exception("camera: a frame could not be read; skipped")
            self._recent.clear()
            return False, None

    def _failed(self, exc: CameraError, now: float) -> SensorFault | None:
        """A camera that failed to open or to deliver: release it, wait the next backoff
        step (logged once per step), and report the fault once."""
        self._release()
        self._recent.clear()
        self._last = None
        self._gate.reset()
        self._retry_in = min(RETRY_MAX, self._retry_in * 2) if self._retry_in else RETRY_FIRST
        self._retry_at = now + self._retry_in
        said = self._retries.failed(self._retry_in)
        if said is not None:
            log.warning("camera: %s; %s", exc, said)
        if self._camera_fault:
            return None
        self._camera_fault = True
        return SensorFault(f"camera: {exc}", now)

    def _release(self) -> None:
        if self._source is not None:
            source, self._source = self._source, None
            source.close()


def _is_live(spec: object) -> bool:
    if isinstance(spec, int):
        return True
    if isinstance(spec, str):
        text = spec.strip().lower()
        return text.isdigit() or text == "picamera2" or "://" in text
    return False


def _lost_message(exc: MarkersNotFoundError, seconds: float) -> str:
    missing = exc.missing
    if len(missing) == 4:
        which = "no board markers seen"
    else:
        names = " and ".join(str(m) for m in missing)
        which = f"marker{'s' if len(missing) > 1 else ''} {names} not found"
    return (
        f"camera: {which} for {seconds:.0f} s: is something covering the board's corners, "
        "or has the camera moved?"
    )
