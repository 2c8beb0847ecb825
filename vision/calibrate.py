"""Colour calibration from one frame of a known position.

``tavola vision calibrate IMAGE --game G --position POSITION.json -o CALIB.json``: the
board is located and white-balanced as for any frame, then the game's reader measures
what each token looks like in this picture (the real set under the real light) and, where
the game needs it, each bare cell (sequence-kids' pictures). The result is a small JSON
file that ``tavola vision classify --calibration`` and the camera backend load.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tavola.files import write_whole

from .detect import Image, VisionError

__all__ = ["Calibration", "CalibrationError", "calibrate"]

VERSION = 1
# A cell more than this share of whose picture a lamp's reflection blows out shows the
# light in its middle, not the piece: it is left out of the fit (a cell blown out less
# still reads by its medians, and at the reader's GLARE_SHARE a misread there is the
# light's, not the position file's).
WASHED = 0.5


class CalibrationError(VisionError):
    """A calibration file that cannot be used; the message names the file and the fix."""


@dataclass(frozen=True)
class Calibration:
    """What one game's pieces look like to one camera in one room.

    ``reader``: the game reader's parameters (prototype colours and spreads, bare cells);
    ``rim``: the bare rim around the playing area (white-balanced Lab rows), the reference
    hands are detected against. ``doubted``: cells of the picture that still read otherwise;
    ``unsure``: cells that read otherwise with doubt (not counted against the position);
    ``blown``: those of them a lamp's reflection blows out.
    """

    game: str
    players: int = 2
    reader: Mapping[str, Any] = field(default_factory=dict)
    rim: list[list[float]] | None = None
    doubted: tuple[str, ...] = ()
    unsure: tuple[str, ...] = ()
    blown: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """The JSON form (``version`` included)."""
        return {"version": VERSION, "game": self.game, "players": self.players,
                "reader": dict(self.reader), "rim": self.rim, "doubted": list(self.doubted),
                "unsure": list(self.unsure), "blown": list(self.blown)}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any], source: str = "<calibration>") -> Calibration:
        """Parse the JSON form; :class:`CalibrationError` if it is not one."""
        if not isinstance(d, Mapping) or "game" not in d or "reader" not in d:
            raise CalibrationError(f"{source} is not a tavola calibration file "
                                   "(write one with 'tavola vision calibrate')")
        if d.get("version", VERSION) != VERSION:
            raise CalibrationError(f"{source} was written by another version of tavola "
                                   f"(format {d.get('version')}, this one reads {VERSION}): "
                                   "calibrate again")
        return cls(str(d["game"]), int(d.get("players", 2)), dict(d["reader"]), d.get("rim"),
                   *(_cell_names(d, key, source) for key in ("doubted", "unsure", "blown")))

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the JSON file, whole or not at all (the camera reads it at every start)."""
        write_whole(Path(path), (json.dumps(self.to_dict(), indent=1) + "\n").encode("utf-8"))

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> Calibration:
        """Read a file written by :meth:`save`."""
        p = Path(path)
        try:
            data = json.loads(p.read_text(encoding="utf-8"))
        except OSError as exc:
            raise CalibrationError(f"cannot read calibration {p}: {exc.strerror or exc}") from exc
        except json.JSONDecodeError as exc:
            raise CalibrationError(f"calibration {p} is not valid JSON ({exc}): write it "
                                   "again with 'tavola vision calibrate'") from exc
        return cls.from_dict(data, str(p))


def calibrate(
    image: Image, game: str, cells: Mapping[str, str], *, players: int = 2,
    base: Calibration | None = None,
) -> Calibration:
    """Measure a game's pieces in ``image``, a picture of the known position ``cells``
    (cell -> token, the identity view of RULES.md; Quinque: skydiver ``"x,y"``).

    The fit is robust: each token's colour is the median over the cells that hold it, and
    a cell far from its token's colour is left out of the fit. A calibration that still
    reads one cell in fifty (at least one) otherwise, surely, is kept, those cells named in
    ``doubted`` (a smudge, a piece askew); more is refused. A cell read otherwise with
    doubt neither confirms nor contradicts the file: the picture cannot tell (a lamp's
    reflection blows it out, :meth:`~vision.classify.Recogniser.blown_cells`, or veils it).
    Such cells are named in ``unsure`` (those a reflection blows out also in ``blown``),
    not counted against the file; more than a third of the cells so is refused (move the
    lamp). Cells blown out over half show the light in their middle, not the piece: they
    are left out of the fit.

    ``base``: an earlier calibration whose colours the tokens absent from ``cells`` keep
    (a refresh during play, from a frame read clean); without it they keep the nominal
    colours, and a picture with a hand or arm over the board is refused.

    Raises :class:`~tavola.vision.detect.VisionError` (markers not found, a position that does not
    fit the game, or a picture that still reads differently once calibrated: the position
    file is probably not the one in the picture).
    """
    # (classify uses Calibration: import late)
    from .classify import MOVE_THE_LAMP, TOKENS, Recogniser, as_seen

    recogniser = Recogniser(game, players=players, calibration=base)
    kings = frozenset({"WK", "BK"}) if game == "draughts" else frozenset()
    truth = as_seen(game, _checked(game, cells, TOKENS[game] | kings, recogniser.cells))
    fix = recogniser.tracker.update(image)
    washed = frozenset(recogniser.blown_cells(image, fix, share=WASHED))
    tops = recogniser.top_down(image, fix)
    if base is None and recogniser.hand_over(image, fix, tops):
        # The rim learned here is what hands are told from: learned with an arm across it,
        # every clean frame after read as a hand, and the board recorded nothing. (A
        # refresh is given a frame play read clean; against the old rim, the very light
        # change it follows would pass for a hand.)
        raise VisionError("a hand or arm is over the board in this picture: take it again "
                          "with nothing between the camera and the board")
    params = recogniser.reader.calibrate(tops, truth, skip=washed)
    rim = recogniser.rim(image, fix)
    result = Calibration(game, players, params, [[round(float(v), 2) for v in s] for s in rim])
    check = Recogniser(game, players=players, calibration=result, start=truth or None)
    reading = check.read(image)
    differ = sorted(c for c in set(truth) | set(reading.cells)
                    if reading.cells.get(c, "") != truth.get(c, ""))
    # (Quinque names no blown cells, its cells coming and going: its reader doubts them.)
    unsure = [c for c in differ if c in reading.blown or c in reading.uncertain]
    blown = [c for c in unsure if c in reading.blown]
    wrong = [c for c in differ if c not in unsure]
    if len(unsure) * 3 > (len(recogniser.cells) or len(truth)):
        named = f"{', '.join(unsure[:6])}{', ...' if len(unsure) > 6 else ''}"
        light = ("all blown out by a lamp's reflection" if len(blown) == len(unsure) else
                 f"a lamp's reflection blows out {len(blown)} of them" if blown else
                 "veiled by the light")
        raise VisionError(
            f"{len(unsure)} cells cannot be read surely ({named}; {light}): too few are left "
            f"to measure the pieces by; {MOVE_THE_LAMP}, and take the picture again")
    if len(wrong) > max(1, len(truth) // 50):
        shown = ", ".join(f"{c} reads {reading.cells.get(c, '')!r} not {truth.get(c, '')!r}"
                          for c in wrong[:4])
        raise VisionError(
            f"after calibration the picture still differs from the position in {len(wrong)} "
            f"cell{'s' if len(wrong) > 1 else ''} ({shown}): is the position file the one in "
            "the picture, with a1 at the first player's bottom left?"
        )
    return Calibration(game, players, params, result.rim, tuple(wrong), tuple(unsure),
                       tuple(blown))


def _cell_names(d: Mapping[str, Any], key: str, source: str) -> tuple[str, ...]:
    """The list of cell names under ``key`` (none if absent); CalibrationError if it is
    something else (a hand-edited file: a string would read as its letters)."""
    names = d.get(key, [])
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise CalibrationError(f"{source}: {key!r} must be a list of cell names such as "
                               f'["c4", "d5"], not {names!r}: fix it or calibrate again')
    return tuple(names)


def _checked(game: str, cells: Mapping[str, str], tokens: frozenset[str],
             names: tuple[str, ...]) -> dict[str, str]:
    known = set(names)
    out: dict[str, str] = {}
    for cell, token in cells.items():
        if not isinstance(token, str) or token not in tokens:
            allowed = " ".join(repr(t) for t in sorted(tokens))
            raise VisionError(f"position: {cell} holds {token!r}, not a {game} token "
                              f"({allowed})")
        if known and cell not in known:
            raise VisionError(f"position: {game} has no cell {cell!r}")
        if not known and not _skydiver(cell):
            raise VisionError(f"position: quinque cells are skydivers 'x,y', not {cell!r}")
        out[cell] = token
    if known:
        blank = "." if game == "quixo" else ""
        out = {c: out.get(c, blank) for c in names}
    return out


def _skydiver(name: str) -> bool:
    x, _, y = name.partition(",")
    try:
        int(x), int(y)
    except ValueError:
        return False
    return True
