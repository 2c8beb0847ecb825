"""A reserve tray: tessere on an occupancy board, the slot that emptied naming the piece."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import tavola.hardware
from tavola.games import new_game
from tavola.hardware.layout import Layout
from tavola.hardware.sim import SimSensor
from tavola.session import Session, StartupError
from tavola.tray import UNKNOWN, tray_reading

TRAY = Layout.shipped("5x5-tray")


def test_one_piece_taken_from_the_tray_is_the_piece_put_down() -> None:
    slots = {"slot-R": "R", "slot-RY1": "RY", "slot-RY2": "RY"}
    position = {"a1": "", "b1": "R"}
    reading = {"a1": "#", "b1": "#", "slot-R": "", "slot-RY1": "", "slot-RY2": "#"}
    out, doubt = tray_reading(position, reading, slots)
    assert (out["a1"], out["b1"], doubt) == ("RY", "R", frozenset())


def test_two_kinds_in_hand_leave_the_cell_uncertain() -> None:
    slots = {"slot-R": "R", "slot-Y": "Y"}
    out, doubt = tray_reading({"a1": ""}, {"a1": "#", "slot-R": "", "slot-Y": ""}, slots)
    assert out["a1"] == UNKNOWN and doubt == {"a1"}


def test_tessere_is_followed_on_an_occupancy_board_with_a_tray() -> None:
    game = new_game("tessere")
    sensor = SimSensor(TRAY, "occupancy")  # reed switches: "#" or ""
    s = Session(game, TRAY, sensor.capability, cells=TRAY.cells, settle=0.1, grace=0.5)
    s.start(0.0, 0.0)
    for text in ("RY@c3", "G@a1", "K@e5"):
        sensor.command(text)  # from its slot to the board
        sensor.settle()
        sensor.advance(0.3)
        for event in sensor.drain():
            s.on_snapshot(event.cells, sensor.now, sensor.now)  # type: ignore[union-attr]
        s.tick(sensor.now + 0.2, sensor.now + 0.2)
    assert [str(m) for m in game.history] == ["RY@c3", "G@a1", "K@e5"]
    assert game.view()["c3"] == "RY"


def test_without_a_tray_the_occupancy_board_is_still_refused() -> None:
    try:
        Session(new_game("tessere"), Layout.for_game("tessere"), "occupancy")
    except StartupError as exc:
        assert "tells pieces apart" in str(exc)
    else:
        raise AssertionError("tessere started on an occupancy board without a tray")


def test_the_daemon_runs_tessere_on_a_tray_board(tmp_path: Path) -> None:
    layout = Path(tavola.hardware.__file__).parent / "layouts" / "5x5-tray.toml"
    (tmp_path / "moves.txt").write_text("RY@c3\nwait 0.5\nG@a1\nwait 30\n")
    env = {**os.environ, "TAVOLA_SENSOR_OPTIONS_CAPABILITY": "occupancy",
           "TAVOLA_LAYOUT_FILE": str(layout)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "tavola.cli", "run", "--game", "tessere", "--journal",
         str(tmp_path / "state"), "--leds", "none", "--console", "off", "--script",
         str(tmp_path / "moves.txt")],
        env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True)
    journal = tmp_path / "state" / "current.jsonl"

    def moves() -> list[str]:
        if not journal.exists():
            return []
        return [json.loads(line).get("move", "") for line in journal.read_text().splitlines()
                if '"action"' in line]

    try:
        end = time.monotonic() + 15
        while moves() != ["RY@c3", "G@a1"] and time.monotonic() < end:
            assert proc.poll() is None, proc.communicate()[1]
            time.sleep(0.05)
        assert moves() == ["RY@c3", "G@a1"]
    finally:
        proc.terminate()
        proc.wait(10)


def test_two_pieces_out_of_the_tray_wait_for_the_player_to_say_which() -> None:
    game = new_game("tessere")
    s = Session(game, TRAY, "occupancy", cells=TRAY.cells, settle=0.1, grace=0.5)
    s.start(0.0, 0.0)
    reading = {c: "" for c in TRAY.cells} | {slot: "#" for slot in TRAY.tray}
    reading |= {"slot-R": "", "slot-Y": "", "a1": "#"}
    s.on_snapshot(reading, 1.0, 1.0)
    fx = s.tick(3.0, 3.0)  # past the grace time: not an error, not a move
    assert not game.history and fx.journal == ()
    fx = s.command("Y@a1", 4.0, 4.0)
    assert [str(m) for m in game.history] == ["Y@a1"]
    reading["slot-R"] = "#"  # the red one goes back: nothing else happens
    assert s.on_snapshot(reading, 5.0, 5.0).journal == ()
    assert "board does not match" not in s.status()
