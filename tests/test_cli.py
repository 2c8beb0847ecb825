"""The tavola command: sub-commands reach their code, user errors are one line and exit 2."""

from __future__ import annotations

import json
import random
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tavola.cli import main


def test_rules_lists_every_game_with_its_parameters(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules"]) == 0
    out = capsys.readouterr().out
    for name in ("morris", "draughts", "quixo", "tessere", "sequence-kids", "quinque"):
        assert f"{name}  (needs" in out
    assert "variant russian: capture='compulsory'" in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["play", "chess"], "unknown game 'chess'; known games"),
        (["play", "morris", "-p", "flying"], "-p takes KEY=VALUE"),
        (["play", "morris", "-p", "flying=maybe"], "parameter 'flying' must be bool"),
        (["export", "nope", "--journal", "/nonexistent"], "no finished game 'nope'"),
        (["vision", "markers", "-o", "sheet.png"], "name it *.svg or *.pdf"),
    ],
)
def test_user_errors_are_one_line(argv: list[str], message: str,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("tavola: error: ") and message in err and "Traceback" not in err


def test_play_in_a_terminal_through_the_console_script() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "tavola.cli", "play", "morris"],
        input="d2\nz9\n?\nquit\n", capture_output=True, text=True, timeout=60,
    )
    assert done.returncode == 0
    assert "Black to move> " in done.stdout
    assert "Not understood: 'z9'" in done.stdout
    assert "23 legal:" in done.stdout


def test_vision_markers_and_classify(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cv2 = pytest.importorskip("cv2")
    from tavola.vision.render import Conditions, random_position, render

    sheet = tmp_path / "markers.svg"
    assert main(["vision", "markers", "--cell-mm", "40", "-o", str(sheet)]) == 0
    assert sheet.read_text().startswith("<?xml") and "Wrote" in capsys.readouterr().out
    rendered = render("tessere", random_position("tessere", random.Random(2)),
                      Conditions(tilt=15, seed=2))
    image = tmp_path / "board.png"
    cv2.imwrite(str(image), rendered.image)
    assert main(["vision", "classify", str(image), "--game", "tessere", "--json"]) == 0
    reading = json.loads(capsys.readouterr().out)
    assert {c: t for c, t in reading["cells"].items() if t} == \
        {c: t for c, t in rendered.cells.items() if t}


def test_run_takes_game_parameters_like_play(tmp_path: Path) -> None:
    """4-player Quixo on the daemon: `-p players=4`, as with `tavola play`."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "tavola.cli", "run", "--game", "quixo", "-p", "players=4",
         "--journal", str(tmp_path), "--console", "off", "--leds", "none"],
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        journal = tmp_path / "current.jsonl"
        end = time.monotonic() + 15
        while not (journal.exists() and journal.read_text().endswith("\n")):
            assert proc.poll() is None and time.monotonic() < end, proc.stderr
            time.sleep(0.05)
        start = json.loads(journal.read_text().splitlines()[0])
    finally:
        proc.terminate()
        proc.wait(10)
    assert start["params"]["players"] == 4 and len(start["players"]) == 4


def test_a_mistyped_run_parameter_is_one_line(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "tavola.cli", "run", "-p", "flyin=false", "--journal",
         str(tmp_path), "--console", "off"],
        capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "-p flyin: " in done.stderr and "did you mean 'flying'" in done.stderr
