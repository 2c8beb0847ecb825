"""What ``tavola vision calibrate``, ``classify`` and ``check`` do (the CLI wires them).

Each takes a picture of the board (``check`` also a frame from the camera itself); errors
a user can meet (an unreadable picture, markers not found, a bad position file, a
calibration for another game) raise :class:`VisionError` with a message that says what to
do, never a traceback.

A position file is the identity view of RULES.md: ``{"cells": {"a1": "RY", "b1": "", ...}}``
(Quinque: skydiver cells ``"x,y"``). ``classify --json`` prints the same form, plus the
cells it is unsure of and whether a hand was in the way.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

from .calibrate import Calibration
from .calibrate import calibrate as measure
from .classify import MOVE_THE_LAMP, READERS, Reading, Recogniser
from .detect import WHERE, VisionError
from .geometry import geometry_for
from .setup_check import WARM_UP_FRAMES, SetupReport, check_setup
from .source import CameraError, Image, open_source, read_image

__all__ = ["VisionError", "calibrate", "classify", "format_grid"]

log = logging.getLogger("tavola.vision")

PathLike = str | os.PathLike[str]


def calibrate(image_path: PathLike, game: str, position: PathLike | Mapping[str, str],
              out_path: PathLike, *, players: int = 2) -> Calibration:
    """Measure the pieces in the picture ``image_path`` of the known ``position`` (a
    position file, or its cells) and write the calibration to ``out_path``. Cells that
    still read otherwise (one in fifty is tolerated) are named in a warning on stderr."""
    _check_game(game)
    image = _image(image_path)
    cells = dict(position) if isinstance(position, Mapping) else _position(position)
    result = measure(image, game, cells, players=players)
    try:
        result.save(out_path)
    except OSError as exc:
        raise VisionError(f"cannot write calibration {out_path}: {exc.strerror or exc}") from exc
    if result.unsure:
        which = ("them" if result.blown == result.unsure else ", ".join(result.blown))
        glare = (f" (a lamp's reflection blows {which} out, and will in play: "
                 f"{MOVE_THE_LAMP})" if result.blown else "")
        log.warning("calibration kept without %s: the picture cannot show what stands there "
                    "(read otherwise with doubt), so a move there waits for the rules%s",
                    ", ".join(result.unsure), glare)
    if result.doubted:
        log.warning("calibration kept, but %s still read%s otherwise in this picture: check "
                    "the piece there (askew, a smudge), or the position file",
                    ", ".join(result.doubted), "s" if len(result.doubted) == 1 else "")
    return result


def classify(image_path: PathLike, game: str, calibration_path: PathLike | None = None, *,
             as_json: bool = False, players: int = 2) -> str:
    """The position recognised in the picture ``image_path``: the JSON position form
    (``as_json``) or a readable grid (cells read with doubt marked ``?``)."""
    _check_game(game)
    image = _image(image_path)
    calibration = _calibration(calibration_path, game)
    reading = Recogniser(game, players=players, calibration=calibration).read(image)
    missing = reading.fix.missing if reading.fix is not None else ()
    if as_json:
        return json.dumps({"cells": dict(reading.cells), "uncertain": sorted(reading.uncertain),
                           "hand": reading.hand, "missing_markers": list(missing),
                           "blown": sorted(reading.blown)}, indent=1)
    text = format_grid(game, reading)
    if reading.hand:
        text += "\n(a hand or arm is over the board: this reading may be wrong)"
    if reading.blown:
        text += "\n" + glare_advice(reading.blown)
    if missing:
        # The board was placed from the others; a user should know the picture is marginal.
        named = "; ".join(f"{m} ({WHERE[m]})" for m in missing)
        text += (f"\n(markers not seen: {named}; the board was placed from the others: keep"
                 " all four in the picture and out of a lamp's reflection)")
    return text


def check(image_path: PathLike | None, game: str, *, source: str | None = None,
          players: int = 2, calibration_path: PathLike | None = None,
          warm_up: int = WARM_UP_FRAMES) -> SetupReport:
    """Judge the camera's setup (:mod:`vision.setup_check`) from the picture
    ``image_path``, or from the camera ``source`` names (a config's ``source``: ``"0"``,
    ``"picamera2"``, a video file), its ``warm_up``-th frame (auto exposure and white
    balance settle in the first frames)."""
    _check_game(game)
    if image_path is None and source is None:
        raise VisionError("give a picture of the board, or --source CAMERA to take one (e.g. "
                          "--source 0 for the first USB camera)")
    if image_path is not None and source is not None:
        raise VisionError("give a picture of the board or --source CAMERA, not both")
    calibration = _calibration(calibration_path, game)
    if image_path is not None:
        return check_setup(_image(image_path), game, players=players, calibration=calibration)
    assert source is not None
    try:
        with contextlib.closing(open_source(source)) as camera:
            frame = None
            for _ in range(max(1, warm_up)):
                got = camera.read()
                if got is None:
                    break  # a file or directory that has no more
                frame = got
    except CameraError as exc:
        raise VisionError(str(exc)) from None
    if frame is None:
        raise VisionError(f"camera {source!r} gave no picture: is it plugged in, and not in "
                          "use by tavola run?")
    return check_setup(frame, game, players=players, calibration=calibration)


def glare_advice(cells: Iterable[str]) -> str:
    """What to tell a user whose picture a lamp's reflection blows out at ``cells``.

    >>> glare_advice(["d5", "c4"])
    "(a lamp's reflection blows out c4, d5: only the light shows there, so those cells are read with doubt; move the lamp or tilt the camera until no white spot falls on the board)"
    """  # noqa: E501
    named = ", ".join(sorted(cells))
    return (f"(a lamp's reflection blows out {named}: only the light shows there, so those "
            f"cells are read with doubt; {MOVE_THE_LAMP})")


def format_grid(game: str, reading: Reading) -> str:
    """The reading as a board: rank by rank from the top, files a, b, ... left to right;
    an empty cell is ``.`` (a Quixo blank is ``-``); a doubtful cell ends in ``?``.
    Quinque: skydivers by their coordinates, y upwards, a space where no tile lies and
    ``-?`` where the reader doubts whether a tile lies (a reflection or a hand hides it)."""
    doubt = reading.uncertain

    def show(cell: str, token: str) -> str:
        shown = token or "."
        if game == "quixo" and token.startswith("."):
            shown = "-"
        if game == "quinque" and not token:
            shown = "-"  # no tile: not a free skydiver's "."
        return shown + ("?" if cell in doubt else "")

    if game == "quinque":
        return _format_tiles(reading, show)
    g = geometry_for(game)
    cells = set(g.cells)
    shown = {c: show(c, reading.cells.get(c, "")) for c in g.cells}
    width = max(2, *(len(v) for v in shown.values())) + 1
    lines = []
    for r in range(g.ranks, 0, -1):
        row = "".join((shown[f"{chr(96 + f)}{r}"] if f"{chr(96 + f)}{r}" in cells else "")
                      .ljust(width) for f in range(1, g.files + 1))
        lines.append(f"{r:>2} {row}".rstrip())
    lines.append("   " + "".join(chr(96 + f).ljust(width) for f in range(1, g.files + 1)).rstrip())
    return "\n".join(lines)


def _format_tiles(reading: Reading, show: Callable[[str, str], str]) -> str:
    if not reading.cells:
        return "(no tiles on the table)"
    at = {tuple(int(v) for v in c.split(",")): c for c in reading.cells}
    xs = [x for x, _ in at]
    ys = [y for _, y in at]
    x0, x1, y0, y1 = min(xs), max(xs), min(ys), max(ys)
    texts = {xy: show(c, reading.cells[c]) for xy, c in at.items()}
    width = max(2, *(len(t) for t in texts.values())) + 1
    label = max(len(str(y0)), len(str(y1)))
    lines = []
    for y in range(y1, y0 - 1, -1):
        row = "".join(texts.get((x, y), "").ljust(width) for x in range(x0, x1 + 1))
        lines.append(f"{y:>{label}} {row}".rstrip())
    lines.append(" " * (label + 1) + "".join(str(x).ljust(width) for x in range(x0, x1 + 1)))
    return "\n".join(lines).rstrip()


def _calibration(path: PathLike | None, game: str) -> Calibration | None:
    """The calibration file ``path`` (None: none), checked to be ``game``'s."""
    calibration = Calibration.load(path) if path is not None else None
    if calibration is not None and calibration.game != game:
        raise VisionError(f"calibration {path} is for {calibration.game}, not "
                          f"{game}: use the game's own calibration, or none")
    return calibration


def _check_game(game: str) -> None:
    if game not in READERS:
        known = ", ".join(sorted(READERS))
        raise VisionError(f"the camera cannot read {game!r}; it reads: {known}")


def _image(path: PathLike) -> Image:
    try:
        return read_image(path)
    except CameraError as exc:
        raise VisionError(str(exc)) from None


def _position(path: PathLike) -> dict[str, str]:
    p = Path(path)
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except OSError as exc:
        raise VisionError(f"cannot read position {p}: {exc.strerror or exc}") from exc
    except json.JSONDecodeError as exc:
        raise VisionError(f"position {p} is not valid JSON ({exc})") from exc
    cells = data.get("cells") if isinstance(data, Mapping) else None
    if not isinstance(cells, Mapping):
        raise VisionError(f'position {p} must be {{"cells": {{"a1": "RY", "b1": "", ...}}}}')
    return {str(k): v for k, v in cells.items()}

