"""Calibration from one frame of a known position (vision/calibrate.py)."""

from __future__ import annotations

import json
import random
import warnings
from pathlib import Path

import numpy as np
import pytest

from tavola.vision.calibrate import Calibration, CalibrationError, calibrate
from tavola.vision.classify import Recogniser, as_seen
from tavola.vision.detect import MarkersNotFoundError, VisionError
from tavola.vision.render import Conditions, random_conditions, random_position, render

# A set whose colours differ from the nominal ones (an odd printing), in warm light.
WARM = Conditions(tilt=12.0, kelvin=2900.0, brightness=0.9, seed=4)


@pytest.mark.parametrize("game", ["tessere", "sequence-kids", "draughts", "quixo", "quinque"])
def test_a_calibration_round_trip(game: str, tmp_path: Path) -> None:
    rng = random.Random(f"calibrate:{game}")
    known = random_position(game, rng, players=4 if game == "sequence-kids" else 2)
    players = 4 if game == "sequence-kids" else 2
    result = calibrate(render(game, known, WARM, players=players).image, game, known,
                       players=players)
    path = tmp_path / "calib.json"
    result.save(path)
    loaded = Calibration.load(path)
    assert loaded == Calibration.from_dict(json.loads(path.read_text()))
    assert loaded.game == game and loaded.rim is not None
    # Another position, other light, read with the calibration.
    other = random_position(game, rng, players=players)
    frame = render(game, other, random_conditions(rng), players=players)
    reader = Recogniser(game, players=players, calibration=loaded,
                        start=other if game == "quinque" else None)
    assert dict(reader.read(frame.image).cells) == as_seen(game, frame.cells)


def test_calibration_learns_colours_that_differ_from_nominal() -> None:
    known = {"a1": "R", "b1": "Y", "c1": "G", "d1": "B", "e1": "K"}
    image = render("tessere", known, WARM).image.astype(np.int16)
    image[..., 0] += 25  # every colour bluer than the nominal set (and the light)
    shifted = np.clip(image, 0, 255).astype(np.uint8)
    result = calibrate(shifted, "tessere", known)
    nominal = Recogniser("tessere").reader
    tuned = Recogniser("tessere", calibration=result).reader
    assert tuned.colours.to_dict() != nominal.colours.to_dict()  # type: ignore[attr-defined]
    assert dict(Recogniser("tessere", calibration=result).read(shifted).cells) == {
        c: known.get(c, "") for c in nominal.cells}


def test_one_odd_cell_is_doubted_but_a_position_that_is_not_the_picture_is_refused() -> None:
    image = render("tessere", {"c3": "RY", "a1": "R", "e5": "K"}, WARM).image
    # One cell that reads otherwise (here: the file forgot it) does not spoil the rest.
    kept = calibrate(image, "tessere", {"a1": "R", "e5": "K"})
    assert kept.doubted == ("c3",)
    assert Calibration.from_dict(kept.to_dict()).doubted == ("c3",)
    with pytest.raises(VisionError, match=r"still differs .* in 2 cells \(a1 reads 'R' not ''"):
        calibrate(image, "tessere", {"e5": "K"})
    with pytest.raises(VisionError, match="holds 'XYZ', not a tessere token"):
        calibrate(image, "tessere", {"c3": "XYZ"})
    with pytest.raises(VisionError, match="tessere has no cell 'z9'"):
        calibrate(image, "tessere", {"z9": "R"})
    with pytest.raises(MarkersNotFoundError):
        calibrate(np.full((720, 1280, 3), 128, np.uint8), "tessere", {})


def test_bad_calibration_files_are_named(tmp_path: Path) -> None:
    path = tmp_path / "calib.json"
    with pytest.raises(CalibrationError, match="cannot read calibration"):
        Calibration.load(path)
    path.write_text("{not json")
    with pytest.raises(CalibrationError, match=r"is not valid JSON.*: write it again with "
                                               r"'tavola vision calibrate'"):
        Calibration.load(path)
    path.write_text('{"cells": {}}')
    with pytest.raises(CalibrationError, match="is not a tavola calibration file"):
        Calibration.load(path)
    path.write_text('{"version": 99, "game": "quixo", "reader": {}}')
    with pytest.raises(CalibrationError, match="calibrate again"):
        Calibration.load(path)
    path.write_text('{"game": "quixo", "reader": {}, "blown": "c4"}')
    with pytest.raises(CalibrationError, match=r"calib.json: 'blown' must be a list of cell "
                       r"names such as \["):
        Calibration.load(path)
    with pytest.raises(ValueError, match="the calibration is for quixo, not tessere"):
        Recogniser("tessere", calibration=Calibration("quixo"))


def test_a_calibration_follows_the_light_from_an_accepted_position() -> None:
    # Calibrated in daylight; at dusk the light is warm and dim and the set looks bluer to
    # the camera: a reading from the accepted position brings the colours along.
    known = {"a1": "R", "b1": "Y", "c1": "G", "d1": "B", "e1": "K", "c3": "RY"}
    day = calibrate(render("tessere", known, Conditions(kelvin=6000.0, seed=1)).image,
                    "tessere", known)
    dusk = render("tessere", known, Conditions(kelvin=2900.0, brightness=0.7, seed=2))
    image = dusk.image.astype(np.int16)
    image[..., 0] += 30
    bluer = np.clip(image, 0, 255).astype(np.uint8)
    recogniser = Recogniser("tessere", calibration=day)
    before = recogniser.reader.colours.to_dict()  # type: ignore[attr-defined]
    assert recogniser.refresh(bluer, known) is not None
    assert recogniser.reader.colours.to_dict() != before  # type: ignore[attr-defined]
    assert dict(recogniser.read(bluer).cells) == {c: known.get(c, "") for c in recogniser.cells}
    # A picture that is not the position changes nothing.
    assert recogniser.refresh(bluer, {"a1": "K", "b1": "K", "c1": "K"}) is None


def test_a_refresh_keeps_the_colours_of_tokens_the_position_does_not_show() -> None:
    known = {"a1": "R", "b1": "Y", "c1": "G", "d1": "B", "e1": "K"}
    image = render("tessere", known, WARM).image.astype(np.int16)
    image[..., 0] += 25  # a bluish set: its block is not the nominal black
    shifted = np.clip(image, 0, 255).astype(np.uint8)
    recogniser = Recogniser("tessere", calibration=calibrate(shifted, "tessere", known))
    block = recogniser.reader.colours.to_dict()["centres"]["K"]  # type: ignore[attr-defined]
    no_block = {c: t for c, t in known.items() if t != "K"}
    later = render("tessere", no_block, WARM).image.astype(np.int16)
    later[..., 0] += 25
    assert recogniser.refresh(np.clip(later, 0, 255).astype(np.uint8), no_block) is not None
    assert recogniser.reader.colours.to_dict()["centres"]["K"] == block  # type: ignore[attr-defined]


DATA3D = Path(__file__).parent / "data3d"


def _frame3d(name: str) -> tuple[np.ndarray, dict[str, str]]:
    """A committed 3D frame and its true position."""
    from tavola.vision.source import read_image

    meta = json.loads((DATA3D / f"{name}.json").read_text(encoding="utf-8"))
    return read_image(DATA3D / f"{name}.jpg"), dict(meta["cells"])


def test_cells_a_lamps_reflection_blows_out_do_not_refuse_a_calibration() -> None:
    # quixo-040: an area lamp's reflection blows five cubes out to white, symbols and all.
    # They were counted against the position file ("is the position file the one in the
    # picture?") and the calibration refused; they are the light's: kept, and named.
    image, cells = _frame3d("quixo-040")
    kept = calibrate(image, "quixo", cells)
    assert kept.blown == kept.unsure == ("c4", "c5", "d3", "d5", "e3") and kept.doubted == ()
    again = Calibration.from_dict(kept.to_dict())
    assert (again.unsure, again.blown) == (kept.unsure, kept.blown)
    # Read with it, the rest of the board is right, and the blown cubes are doubted.
    reading = Recogniser("quixo", calibration=kept).read(image)
    wrong = {c for c, t in as_seen("quixo", cells).items() if reading.cells[c] != t}
    assert wrong <= set(kept.blown) and wrong <= reading.uncertain
    # A position file that is not the picture is still refused, glare or not.
    shifted = {c: cells[f"{chr(ord(c[0]) + 1)}{c[1]}"] if c[0] < "e" else "." for c in cells}
    with pytest.raises(VisionError, match="still differs"):
        calibrate(image, "quixo", shifted)


def test_a_picture_mostly_blown_out_is_refused_for_the_light_not_the_position() -> None:
    # quixo-077: fifteen cubes read as the lamp's white, not their symbols: the message
    # says to move the lamp, not to check the position file.
    image, cells = _frame3d("quixo-077")
    with pytest.raises(VisionError, match=r"15 cells cannot be read surely \(a1, a4, a5, b2, "
                       r"b3, c1, \.\.\.; all blown out by a lamp's reflection\): .* move the lamp"):
        calibrate(image, "quixo", cells)


def test_cells_read_with_doubt_do_not_refuse_a_quinque_calibration() -> None:
    # quinque-146: a lamp's reflection pales five backpacks to a free skydiver's grey, read
    # with doubt. The reading cannot tell, so it does not contradict the file: kept,
    # those cells named (Quinque names no blown cells: its cells come and go).
    image, cells = _frame3d("quinque-146")
    kept = calibrate(image, "quinque", cells)
    assert len(kept.unsure) == 5 and kept.doubted == () and kept.blown == ()


def test_a_tessera_calibrated_as_light_as_the_ceiling_is_no_division_by_zero() -> None:
    # tessere-190 once calibrated a tessera's colour at lightness 100 (measured on a cell
    # a reflection blows out), and the veil test divided by zero (numpy's RuntimeWarning,
    # an inf in the chroma a veil keeps).
    image, cells = _frame3d("tessere-190")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        kept = calibrate(image, "tessere", cells)
        Recogniser("tessere", calibration=kept).read(image)


def test_a_refresh_during_play_follows_the_light_despite_a_reflection() -> None:
    # The camera refreshes its calibration from frames of the accepted position; a lamp's
    # reflection on five cubes used to refuse every refresh ("light refreshes refused").
    image, cells = _frame3d("quixo-040")
    recogniser = Recogniser("quixo")
    refreshed = recogniser.refresh(image, cells)
    assert refreshed is not None and refreshed.blown and recogniser.calibration is refreshed


def test_a_save_that_fails_part_way_keeps_the_old_calibration(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The camera reads the file at every start: one cut short by a full disk or a power
    cut while `tavola vision calibrate` wrote it stopped the board starting."""
    import errno
    import os

    path = tmp_path / "calib.json"
    old = Calibration("quixo", 2, {"X": [1, 2, 3]}, None)
    old.save(path)
    before = path.read_bytes()

    def full(fd: int) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(OSError, match="No space left"):
        Calibration("quixo", 2, {"X": [9, 9, 9]}, None).save(path)
    assert path.read_bytes() == before and Calibration.load(path) == old
    assert [p.name for p in tmp_path.iterdir()] == ["calib.json"]  # no temporary left


@pytest.mark.parametrize("name", ["quixo-008", "tessere-007"])
def test_a_picture_with_a_hand_over_the_board_is_not_calibrated_from(name: str) -> None:
    # Its rim, learned with the arm across it, is what hands are told from: every clean
    # frame after read as a hand, and the daemon recorded nothing, silently.
    from tavola.vision.source import read_image

    folder = Path(__file__).parent / "data3d"
    truth = json.loads((folder / f"{name}.json").read_text())
    assert truth["hand"]
    image = read_image(folder / f"{name}.jpg")
    with pytest.raises(VisionError, match="a hand or arm is over the board in this picture"):
        calibrate(image, truth["game"], truth["cells"])
