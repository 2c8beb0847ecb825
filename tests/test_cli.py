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
from tavola.games import new_game


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
        (["export", "nope", "--journal", "/nonexistent"],
         "no journal directory /nonexistent (set by --journal)"),
        (["games", "--journal", "/nonexistent"],
         "no journal directory /nonexistent (set by --journal): nothing has been kept there"),
        (["vision", "markers", "-o", "sheet.png"], "name it *.svg or *.pdf"),
        (["play", "morris", "--opponent", "ai", "--level", "master"],
         "unknown level 'master'; levels: beginner, club, strongest"),
        (["play", "morris", "--opponent", "ai", "--ai-plays", "2"], "--ai-plays 2: players"),
        (["endgames", "build", "--tables", "5v5"], "--tables '5v5': choose from 3v3"),
        # An OSError read as the user reads it, not "[Errno 2] No such file or directory".
        (["vision", "markers", "-o", "/nonexistent/sheet.pdf"],
         "/nonexistent/sheet.pdf: the folder /nonexistent does not exist; create it or give "
         "another path"),
    ],
)
def test_user_errors_are_one_line(argv: list[str], message: str,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("tavola: error: ") and message in err and "Traceback" not in err


def test_endgames_refuse_a_folder_they_cannot_keep_before_the_build(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    # The build takes minutes; the bad --dir was found only when writing, after them.
    import tavola.ai.morris_retrograde as retrograde

    def no_build(*args: object) -> None:
        raise AssertionError("built before the folder was checked")

    monkeypatch.setattr(retrograde, "build", no_build)
    taken = tmp_path / "a-file"
    taken.write_text("not a folder")
    assert main(["endgames", "build", "--tables", "3v3", "--dir", str(taken)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"tavola: error: cannot keep the endgame tables in {taken} (")
    assert "give --dir a folder this user may write, or set TAVOLA_ENDGAMES" in err


@pytest.mark.parametrize("seconds", ["-1", "0", "nan", "inf", "soon"])
def test_selftest_seconds_must_be_a_positive_number(
        seconds: str, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    # A negative --step flashed every LED at once, and --listen nan never ended.
    import tavola.selftest

    def accepted(*args: object, **kwargs: object) -> int:
        raise AssertionError(f"{seconds} s accepted")

    monkeypatch.setattr(tavola.selftest, "run_selftest", accepted)
    for option in ("--step", "--listen"):
        with pytest.raises(SystemExit) as stop:
            main(["selftest", option, seconds])
        assert stop.value.code == 2
        assert f"argument {option}: {seconds!r}" in capsys.readouterr().err


def test_games_and_export_name_a_journal_given_wrong(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A file, or a journal's games/ folder, is not read as an empty journal ("no finished
    games"), which would send the user looking for lost games."""
    games = tmp_path / "journal" / "games"
    games.mkdir(parents=True)
    game = games / "20261201-1830-morris.jsonl"
    game.write_text("{}\n")
    for argv, message in (
            (["games", "--journal", str(game)],
             f"{game} (set by --journal) is a file, not a journal directory (a game's file: "
             f"'tavola export ID' prints one); give the directory 'tavola run' keeps"),
            (["export", "x", "--journal", str(games)],
             f"{games} (set by --journal) is the journal's games/ folder; give its parent, "
             f"{games.parent}")):
        assert main(argv) == 2
        assert message in capsys.readouterr().err


def test_games_says_where_it_looked_and_what_is_unfinished(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    from tavola.games import new_game
    from tavola.journal import Journal
    from tavola.record import StartEntry

    for name in ("STATE_DIRECTORY", "XDG_STATE_HOME", "TAVOLA_CONFIG"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))  # the default, never made: no error
    assert main(["games"]) == 0
    default = tmp_path / "home" / ".local" / "state" / "tavola"
    assert capsys.readouterr().out == f"No finished games yet in {default}.\n"

    journal = Journal(tmp_path / "j")
    journal.begin(StartEntry.of(new_game("morris"), game_id="g1", wall=0.0))
    assert main(["games", "--journal", str(journal.directory)]) == 0
    assert capsys.readouterr().out == (
        f"No finished games yet in {journal.directory}; it holds a game in progress "
        f"(current.jsonl; listed once it ends).\n")
    journal.pause()
    assert main(["games", "--journal", str(journal.directory)]) == 0
    assert "1 put aside unfinished (tavola run --resume g1)." in capsys.readouterr().out


def test_games_lists_a_finished_game_with_its_time_zone(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The start time is UTC, as in the id: unlabelled, a club an hour off UTC read it as
    its own time."""
    from tavola.journal import Journal

    from .controller.test_journal import finished_tessere

    game_id = finished_tessere(Journal(tmp_path))
    assert main(["games", "--journal", str(tmp_path)]) == 0
    assert capsys.readouterr().out == f"{game_id}  2024-05-01 14:30 UTC  tessere  0-1 line  " \
        "4 actions\n"


def test_a_saved_game_that_cannot_be_loaded_is_named(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Before: a bare JSON error without the file, and `tavola play draughts --load
    morris.json` played the morris game as if draughts had not been typed."""
    saved = tmp_path / "morris.json"
    game = new_game("morris")
    game.apply("d2")
    saved.write_text(json.dumps(game.to_dict()))
    (tmp_path / "torn.json").write_text('{"game": "morr')
    (tmp_path / "other.json").write_text('{"moves": []}')
    (tmp_path / "bad-move.json").write_text('{"game": "morris", "moves": ["d2", "d2"]}')
    for argv, message in (
            (["play", "--load", str(tmp_path / "torn.json")],
             f"{tmp_path / 'torn.json'} is not a game saved by tavola play (not JSON: "),
            (["play", "--load", str(tmp_path / "other.json")],
             f"{tmp_path / 'other.json'} is not a game saved by tavola play (it names no game)"),
            (["play", "--load", str(tmp_path / "absent.json")],
             f"cannot read the saved game {tmp_path / 'absent.json'}: No such file"),
            (["play", "--load", str(tmp_path / "bad-move.json")],
             f"{tmp_path / 'bad-move.json'}: move 2 ('d2'): "),
            (["play", "draughts", "--load", str(saved)],
             f"{saved}: it holds a game of morris, not draughts: leave the game out")):
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert err.startswith("tavola: error: ") and message in err, err


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


def test_vision_takes_the_games_aliases(tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    """`--game checkers` (an alias `tavola play` and the config take) reads as draughts;
    an unknown name is told the games and aliases."""
    cv2 = pytest.importorskip("cv2")
    from tavola.vision.render import Conditions, random_position, render

    rendered = render("draughts", random_position("draughts", random.Random(3)),
                      Conditions(seed=3))
    image = tmp_path / "board.png"
    cv2.imwrite(str(image), rendered.image)
    assert main(["vision", "classify", str(image), "--game", "Checkers", "--json"]) == 0
    cells = json.loads(capsys.readouterr().out)["cells"]
    assert set(cells) == set(rendered.cells)
    sheet = tmp_path / "m.svg"
    assert main(["vision", "markers", "--game", "mill", "-o", str(sheet)]) == 0
    assert "morris" in sheet.read_text()
    assert main(["vision", "classify", str(image), "--game", "chess"]) == 2
    err = capsys.readouterr().err
    assert "unknown game 'chess'" in err and "checkers" in err


def test_vision_calibrates_from_the_start_position(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """`calibrate --position start`: draughts' start needs no position file; a game whose
    start shows no pieces says what to do instead."""
    cv2 = pytest.importorskip("cv2")
    from tavola.games import new_game
    from tavola.vision.render import Conditions, render

    start = new_game("draughts").view("identity")
    image = tmp_path / "start.png"
    cv2.imwrite(str(image), render("draughts", start, Conditions(seed=5)).image)
    calib = tmp_path / "calib.json"
    assert main(["vision", "calibrate", str(image), "--game", "checkers", "--position", "start",
                 "-o", str(calib)]) == 0
    assert json.loads(calib.read_text())["game"] == "draughts"
    assert f"Wrote {calib}" in capsys.readouterr().out
    assert main(["vision", "classify", str(image), "--game", "draughts", "--calibration",
                 str(calib), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["cells"] == start
    assert main(["vision", "calibrate", str(image), "--game", "morris", "--position", "start",
                 "-o", str(tmp_path / "m.json")]) == 2
    assert "shows no pieces to learn" in capsys.readouterr().err
    assert not (tmp_path / "m.json").exists()


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


def test_the_console_reads_its_lines_from_a_file(tmp_path: Path) -> None:
    """`--console on < commands.txt` stopped the start with "[Errno 1] Operation not
    permitted": the event loop cannot poll a regular file. Its lines are read at once."""
    commands = tmp_path / "commands.txt"
    commands.write_text("d2\n")
    with commands.open() as stdin:
        proc = subprocess.Popen(
            [sys.executable, "-m", "tavola.cli", "run", "--game", "morris", "--journal",
             str(tmp_path / "j"), "--console", "on", "--leds", "none"],
            stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        journal = tmp_path / "j" / "current.jsonl"
        end = time.monotonic() + 15
        while not (journal.exists() and '"action"' in journal.read_text()):
            assert proc.poll() is None and time.monotonic() < end, proc.communicate()
            time.sleep(0.05)
    finally:
        proc.terminate()
        proc.wait(10)
    assert json.loads(journal.read_text().splitlines()[1])["move"] == "d2"


def test_a_mistyped_run_parameter_is_one_line(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "tavola.cli", "run", "-p", "flyin=false", "--journal",
         str(tmp_path), "--console", "off"],
        capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "-p flyin: " in done.stderr and "did you mean 'flying'" in done.stderr
