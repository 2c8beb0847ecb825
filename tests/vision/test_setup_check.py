"""``tavola vision check``: the camera's setup judged from one picture (vision/setup_check.py)."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from tavola.cli import main
from tavola.vision import commands
from tavola.vision.classify import Recogniser
from tavola.vision.commands import VisionError
from tavola.vision.render import Conditions, render
from tavola.vision.setup_check import MAX_EDGE_PX, SetupReport, check_setup
from tavola.vision.source import read_image

DATA = Path(__file__).parent / "data3d"


def frame3d(name: str) -> tuple[np.ndarray, dict[str, object]]:
    meta = json.loads((DATA / f"{name}.json").read_text(encoding="utf-8"))
    return read_image(DATA / f"{name}.jpg"), meta


def finding(report: SetupReport, what: str) -> tuple[bool, str, str]:
    (f,) = [f for f in report.findings if f.what == what]
    return f.fix, f.said, f.advice


def test_a_good_setup_is_good_to_play() -> None:
    image, meta = frame3d("quixo-000")
    report = check_setup(image, "quixo")
    assert report.ok and str(report).endswith("good to play")
    assert finding(report, "markers")[:2] == (False, "4 of 4 seen, the smallest 34 px wide "
                                                      "(20 recommended)")
    fix, said, _ = finding(report, "camera tilt")
    true_tilt = meta["camera"]["tilt"]  # type: ignore[index]
    assert not fix and abs(int(said.split()[0]) - true_tilt) <= 3
    # A 960-pixel picture reads, with less to spare: a note, not a fix.
    fix, said, advice = finding(report, "resolution")
    assert not fix and said == "960x720" and "1280x720" in advice


def test_a_lamps_reflection_is_named_with_what_to_do() -> None:
    report = check_setup(frame3d("quixo-040")[0], "quixo")
    fix, said, advice = finding(report, "glare")
    assert fix and said.startswith("a lamp's reflection blows out c4, c5, d3, d5, e3")
    assert advice.startswith("move the lamp or tilt the camera")
    assert not report.ok and str(report).endswith("1 thing to fix before playing")


def test_a_soft_picture_asks_for_focus() -> None:
    image = frame3d("quixo-000")[0]
    sharp = finding(check_setup(image, "quixo"), "focus")
    blurred = np.asarray(cv2.GaussianBlur(image, (0, 0), 1.5), np.uint8)
    soft = finding(check_setup(blurred, "quixo"), "focus")
    assert not sharp[0] and soft[0] and "focus the camera on the board" in soft[2]
    # "the markers' edges take 2.1 px (3 at most)"
    assert float(soft[1].split()[4]) > MAX_EDGE_PX > float(sharp[1].split()[4])


def test_a_marker_out_of_sight_and_a_steep_camera_are_to_fix() -> None:
    # tessere-140: marker 0 not seen; the board is placed from the other three.
    fix, said, advice = finding(check_setup(frame3d("tessere-140")[0], "tessere"), "markers")
    assert fix and "not seen: 0 (top left" in said and "keep all four in the picture" in advice
    # A camera 40 degrees off straight above (the flat renderer's board).
    steep = render("morris", {}, Conditions(tilt=40.0, seed=2)).image
    fix, said, advice = finding(check_setup(steep, "morris"), "camera tilt")
    assert fix and 36 <= int(said.split()[0]) <= 44 and "more straight down" in advice


def test_no_board_in_the_picture_says_how_to_put_one_there() -> None:
    report = check_setup(np.full((720, 1280, 3), 128, np.uint8), "draughts")
    fix, said, advice = finding(report, "markers")
    assert fix and "markers" in said and "tavola vision markers" in advice
    assert finding(report, "resolution") == (False, "1280x720", "")


def test_a_hand_over_the_board_and_doubted_cells_are_to_fix() -> None:
    hand = next(name for name in (p.stem for p in sorted(DATA.glob("draughts-*.json")))
                if frame3d(name)[1]["hand"]
                and Recogniser("draughts").read(frame3d(name)[0]).hand)
    assert finding(check_setup(frame3d(hand)[0], "draughts"), "hand")[0]
    # sequence-kids-157: a reflection's veil that clips nothing pales b3's chip: doubted.
    fix, said, _ = finding(check_setup(frame3d("sequence-kids-157")[0], "sequence-kids"),
                           "doubts")
    assert fix and "b3" in said


def test_quinque_glare_is_measured_over_its_table_area() -> None:
    fix, said, _ = finding(check_setup(frame3d("quinque-000")[0], "quinque"), "glare")
    assert not fix and said.endswith("of the table area blown out by a lamp's reflection")


@pytest.mark.slow
def test_every_frame_the_check_passes_reads_right() -> None:
    # What the check is for: a setup it calls good to play reads the board right. On the
    # 3D set 222 clean frames pass it (1 Dec), and every cell of them reads right.
    from bench.vision import _compare

    passed = 0
    for path in sorted(DATA.glob("*.json")):
        meta = json.loads(path.read_text(encoding="utf-8"))
        if meta["hand"]:
            continue
        image = read_image(path.with_suffix(".jpg"))
        if not check_setup(image, meta["game"]).ok:
            continue
        passed += 1
        reading = Recogniser(meta["game"]).read(image)
        assert not _compare(meta["game"], meta["cells"], reading)[0], path.stem
    assert passed >= 200


def test_the_command_reads_a_picture_or_a_camera(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    picture = str(DATA / "quixo-040.jpg")
    assert main(["vision", "check", picture, "--game", "quixo"]) == 1  # glare to fix
    out = capsys.readouterr().out
    assert out.startswith("camera setup for quixo, from a 960x720 picture:")
    assert "FIX   glare" in out
    # A source as the camera backend names it: here a file, read as a camera's frames.
    assert main(["vision", "check", "--game", "quixo", "--source",
                 str(DATA / "quixo-000.jpg")]) == 0
    assert capsys.readouterr().out.rstrip().endswith("good to play")
    with pytest.raises(VisionError, match="give a picture of the board, or --source"):
        commands.check(None, "quixo")
    with pytest.raises(VisionError, match="not both"):
        commands.check(picture, "quixo", source="0")
    with pytest.raises(VisionError, match="the camera cannot read 'chess'"):
        commands.check(picture, "chess")


def test_the_check_reads_with_the_boards_calibration(tmp_path: Path) -> None:
    # The doubts depend on the calibration the camera plays with: the check takes it.
    from tavola.vision.calibrate import calibrate

    image, meta = frame3d("quixo-000")
    path = tmp_path / "quixo.json"
    calibrate(image, "quixo", meta["cells"]).save(path)  # type: ignore[arg-type]
    picture = DATA / "quixo-000.jpg"
    assert commands.check(picture, "quixo", calibration_path=path).ok
    assert main(["vision", "check", str(picture), "--game", "quixo", "--calibration",
                 str(path)]) == 0
    with pytest.raises(VisionError, match="is for quixo, not tessere"):
        commands.check(picture, "tessere", calibration_path=path)
