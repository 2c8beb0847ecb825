"""``tavola vision calibrate`` / ``classify`` (vision/commands.py) and the frame sources."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt
import pytest

from tavola.vision import commands, source
from tavola.vision.commands import VisionError
from tavola.vision.render import Conditions, render
from tavola.vision.source import CameraError, FrameList, ImageFiles, open_source, read_image

POSITION = {"a1": "RY", "c3": "K", "e5": "RYGB", "b4": "G"}


@pytest.fixture
def picture(tmp_path: Path) -> Path:
    path = tmp_path / "board.png"
    cv2.imwrite(str(path), render("tessere", POSITION, Conditions(tilt=8.0, seed=2)).image)
    return path


def write_position(path: Path, cells: dict[str, str]) -> Path:
    path.write_text(json.dumps({"cells": cells}))
    return path


def test_classify_prints_the_position_form_and_a_grid(picture: Path) -> None:
    out = json.loads(commands.classify(picture, "tessere", as_json=True))
    assert out["cells"] == {c: POSITION.get(c, "") for c in out["cells"]}
    assert len(out["cells"]) == 25 and out["uncertain"] == [] and out["hand"] is False
    grid = commands.classify(picture, "tessere").splitlines()
    assert grid[0].split() == ["5", ".", ".", ".", ".", "RYGB"]
    assert grid[2].split() == ["3", ".", ".", "K", ".", "."]
    assert grid[-1].split() == list("abcde")


def test_calibrate_then_classify_with_the_calibration(picture: Path, tmp_path: Path) -> None:
    position = write_position(tmp_path / "position.json", POSITION)
    calib = tmp_path / "calib.json"
    commands.calibrate(picture, "tessere", position, calib)
    assert json.loads(calib.read_text())["game"] == "tessere"
    other = tmp_path / "other.jpg"
    cv2.imwrite(str(other), render("tessere", {"d2": "YB"},
                                   Conditions(tilt=20.0, kelvin=3000.0, seed=5)).image)
    out = json.loads(commands.classify(other, "tessere", calib, as_json=True))
    assert {c: t for c, t in out["cells"].items() if t} == {"d2": "YB"}
    with pytest.raises(VisionError, match="is for tessere, not quixo"):
        commands.classify(other, "quixo", calib)


def test_quixo_and_morris_grids(tmp_path: Path) -> None:
    path = tmp_path / "q.png"
    cells = {c: "." for c in (f"{f}{r}" for f in "abcde" for r in range(1, 6))} | {"c3": "X"}
    cv2.imwrite(str(path), render("quixo", cells, Conditions(seed=1)).image)
    grid = commands.classify(path, "quixo").splitlines()
    assert grid[2].split() == ["3", "-", "-", "X", "-", "-"]
    cv2.imwrite(str(path), render("morris", {"d2": "W"}, Conditions(seed=1)).image)
    grid = commands.classify(path, "morris").splitlines()
    assert grid[0].split() == ["7", ".", ".", "."]  # a7 d7 g7: only the points
    assert grid[5].split() == ["2", ".", "W", "."]


def test_errors_a_user_meets(picture: Path, tmp_path: Path) -> None:
    with pytest.raises(VisionError, match="does not exist"):
        commands.classify(tmp_path / "missing.png", "tessere")
    junk = tmp_path / "junk.png"
    junk.write_bytes(b"not a picture")
    with pytest.raises(VisionError, match="could not be read: is it a PNG or JPEG"):
        commands.classify(junk, "tessere")
    blank = tmp_path / "blank.png"
    cv2.imwrite(str(blank), np.full((720, 1280, 3), 150, np.uint8))
    with pytest.raises(VisionError, match=r"no board markers found.*tavola vision markers"):
        commands.classify(blank, "tessere")
    with pytest.raises(VisionError, match="cannot read 'chess'"):
        commands.classify(picture, "chess")
    bad = tmp_path / "bad.json"
    bad.write_text('{"a1": "R"}')
    with pytest.raises(VisionError, match=r'must be \{"cells"'):
        commands.calibrate(picture, "tessere", bad, tmp_path / "c.json")
    with pytest.raises(VisionError, match="cannot read position"):
        commands.calibrate(picture, "tessere", tmp_path / "none.json", tmp_path / "c.json")


def test_markers_missing_are_named(tmp_path: Path) -> None:
    frame = render("tessere", POSITION, Conditions(seed=2))
    image = frame.image.copy()
    for m in (1, 2):  # cover two corners with a cloth
        corners = cv2.perspectiveTransform(
            np.array([[[x, y] for x, y in _marker(m)]], np.float64), frame.homography)[0]
        cv2.fillConvexPoly(image, cv2.convexHull(corners.astype(np.int32)) * 1, (60, 70, 80))
    path = tmp_path / "covered.png"
    cv2.imwrite(str(path), image)
    with pytest.raises(VisionError, match=r"markers 1 \(top right.*\) and 2 \(bottom right"):
        commands.classify(path, "tessere")
    # One covered marker is not an error: three pin the board down.
    image = frame.image.copy()
    corners = cv2.perspectiveTransform(
        np.array([[[x, y] for x, y in _marker(2)]], np.float64), frame.homography)[0]
    cv2.fillConvexPoly(image, cv2.convexHull(corners.astype(np.int32)), (60, 70, 80))
    cv2.imwrite(str(path), image)
    out = json.loads(commands.classify(path, "tessere", as_json=True))
    assert {c: t for c, t in out["cells"].items() if t} == POSITION


def _marker(m: int) -> list[tuple[float, float]]:
    from tavola.vision.geometry import geometry_for

    (x0, y0), _, (x1, y1), _ = geometry_for("tessere").marker(m)
    pad = 0.15
    return [(x0 - pad, y0 - pad), (x1 + pad, y0 - pad), (x1 + pad, y1 + pad), (x0 - pad, y1 + pad)]


def test_quinque_grid_tells_a_doubted_square_without_a_tile_from_a_free_skydiver() -> None:
    # quinque-113: a hand over the mat is read as no tile, doubted; the real tile's free
    # skydivers are ".": the squares the reader doubts show "-?", never ".?".
    frame = Path(__file__).parent / "data3d" / "quinque-113.jpg"
    lines = commands.classify(frame, "quinque").splitlines()
    assert any("-?" in line for line in lines)
    assert not any(".?" in line for line in lines)
    assert any(" R " in f"{line} " for line in lines)


def test_quinque_grid_names_skydivers(tmp_path: Path) -> None:
    path = tmp_path / "q.png"
    view = {"0,0": "R", "1,0": ".", "0,1": ".", "1,1": "O"}
    cv2.imwrite(str(path), render("quinque", view, Conditions(seed=4)).image)
    grid = commands.classify(path, "quinque").splitlines()
    assert grid == ["1 .  O", "0 R  .", "  0  1"]


# --------------------------------------------------------------------------- sources
def test_a_camera_that_will_not_open_is_one_line_not_opencvs_warnings() -> None:
    # A fresh process, as the daemon is: OpenCV's log level is set when the module loads.
    proc = subprocess.run([sys.executable, "-m", "tavola.cli", "vision", "check", "--game",
                           "morris", "--source", "7"], capture_output=True, text=True,
                          env={k: v for k, v in os.environ.items() if k != "OPENCV_LOG_LEVEL"},
                          timeout=60)
    assert proc.returncode == 2
    assert proc.stderr.splitlines() == [
        "tavola: error: camera 7 could not be opened: is it plugged in, and is this user in "
        "the 'video' group? (list cameras with 'v4l2-ctl --list-devices')"], proc.stderr


def test_a_camera_named_by_its_device_path_is_a_camera() -> None:
    # source = "/dev/video0" (or a /dev/v4l/by-id/ name, the one that survives a reboot)
    # was refused as "not a camera index": a device is not a regular file. /dev/null is a
    # device that is no camera: Video4Linux itself, not a file reader, says it is not one.
    with pytest.raises(CameraError, match="camera /dev/null could not be opened: is it "
                                          "plugged in, and is this user in the 'video' group"):
        open_source("/dev/null")
    # A camera not plugged in yet: said so (the camera sensor retries until it comes).
    with pytest.raises(CameraError, match="no camera at /dev/video97: is it plugged in"):
        open_source("/dev/video97")


def test_frame_sources(tmp_path: Path) -> None:
    a, b = np.zeros((4, 4, 3), np.uint8), np.full((4, 4, 3), 9, np.uint8)
    frames = FrameList([a, b])
    assert open_source(frames) is frames
    assert frames.read() is a and frames.read() is b and frames.read() is None
    for k, image in enumerate((a, b)):
        cv2.imwrite(str(tmp_path / f"{k}.png"), image)
    (tmp_path / "notes.txt").write_text("not a frame")
    files = open_source(str(tmp_path))
    assert isinstance(files, ImageFiles) and len(files.paths) == 2
    first, second = files.read(), files.read()
    assert first is not None and second is not None and int(second[0, 0, 0]) == 9
    assert files.read() is None
    assert read_image(tmp_path / "1.png").shape == (4, 4, 3)
    with pytest.raises(CameraError, match="neither an image file nor a directory"):
        ImageFiles(tmp_path / "nothing")
    with pytest.raises(CameraError, match="is not a camera index or device, 'picamera2'"):
        open_source(str(tmp_path / "nothing"))
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(CameraError, match="holds no images"):
        open_source(str(empty))


def test_a_directory_skips_a_file_that_cannot_be_read(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    # Raised, it made the camera open the directory again from its first frame: the game
    # was played over and over, undone and replayed, and the frames after it never came.
    for name, value in (("0.png", 7), ("2.png", 9)):
        cv2.imwrite(str(tmp_path / name), np.full((4, 4, 3), value, np.uint8))
    (tmp_path / "1.png").write_text("not a picture")
    files = ImageFiles(tmp_path)
    first, second = files.read(), files.read()
    assert first is not None and int(first.max()) == 7
    assert second is not None and int(second.max()) == 9 and files.read() is None
    assert "1.png could not be read: is it a PNG or JPEG picture?; skipped" in caplog.text
    with pytest.raises(CameraError, match="could not be read"):  # one file: nothing else
        ImageFiles(tmp_path / "1.png").read()


def test_a_directory_of_links_to_one_picture_is_decoded_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # An idle camera is benchmarked with links to one frame: each link must still give
    # the picture, as an array of its own (a reader may draw on it), without a new decode.
    cv2.imwrite(str(tmp_path / "a.png"), np.full((4, 4, 3), 7, np.uint8))
    (tmp_path / "b.png").symlink_to("a.png")
    cv2.imwrite(str(tmp_path / "c.png"), np.full((4, 4, 3), 9, np.uint8))
    decoded: list[str] = []

    def counting(path: Path) -> npt.NDArray[np.uint8]:
        decoded.append(Path(path).name)
        return read_image(path)

    monkeypatch.setattr(source, "read_image", counting)
    files = ImageFiles(tmp_path)
    first = files.read()
    assert first is not None
    first[0, 0] = 0  # the reader draws on its frame
    again = files.read()
    assert again is not None and again is not first and int(again.min()) == 7
    third = files.read()
    assert third is not None and int(third.max()) == 9 and files.read() is None
    assert decoded == ["a.png", "c.png"]


def test_a_missing_picamera2_says_what_to_install() -> None:
    pytest.importorskip("cv2")
    try:
        import picamera2  # noqa: F401
    except ImportError:
        with pytest.raises(CameraError, match="needs the picamera2 package"):
            open_source("picamera2")
    else:  # pragma: no cover - on a Raspberry Pi
        pytest.skip("picamera2 is installed here")


def test_classify_names_the_markers_it_did_not_see() -> None:
    # quinque-088 (the 3D set): a reflection blows out marker 0, marker 1 is mostly above
    # the frame; the other two place the board, and the user is told which are missing.
    frame = Path(__file__).parent / "data3d" / "quinque-088.jpg"
    assert json.loads(commands.classify(frame, "quinque", as_json=True))[
        "missing_markers"] == [0, 1]
    text = commands.classify(frame, "quinque")
    assert "markers not seen: 0 (top left" in text and "1 (top right" in text


def test_classify_names_the_cells_a_lamps_reflection_blows_out() -> None:
    # quixo-040 (3D set): five cubes blown out to white. The user is told where, and what
    # to do about it, beside the grid that marks them doubted.
    picture = Path(__file__).parent / "data3d" / "quixo-040.jpg"
    text = commands.classify(picture, "quixo")
    assert ("(a lamp's reflection blows out c4, c5, d3, d5, e3: only the light shows there"
            in text and "move the lamp or tilt the camera" in text)
    out = json.loads(commands.classify(picture, "quixo", as_json=True))
    assert out["blown"] == ["c4", "c5", "d3", "d5", "e3"]
    assert set(out["blown"]) <= set(out["uncertain"])
