"""Every backend's options go through one check (hardware/__init__.py): an unknown or
misspelt key, a required one missing or a value of the wrong type is one line naming the
key and the fix, never a TypeError traceback."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tavola.hardware import CheckedBackend, load_leds, load_sensor
from tavola.hardware.layout import Layout

MORRIS = Layout.shipped("morris")
TAVOLA = [sys.executable, "-m", "tavola.cli"]


def backends() -> list[tuple[str, CheckedBackend[Any], str]]:
    return [
        ("sim", load_sensor("sim"), "[sensor.options]"),
        ("reed", load_sensor("reed"), "[sensor.options]"),
        ("serial", load_sensor("serial"), "[sensor.options]"),
        ("camera", load_sensor("camera"), "[sensor.options]"),
        ("sim", load_leds("sim"), "[leds.options]"),
        ("neopixel", load_leds("neopixel"), "[leds.options]"),
        ("serial", load_leds("serial"), "[leds.options]"),
        ("none", load_leds("none"), "[leds.options]"),
    ]


@pytest.mark.parametrize(("name", "backend", "where"), backends(),
                         ids=lambda v: v if isinstance(v, str) else "")
def test_every_backend_refuses_an_unknown_option_by_name(
    name: str, backend: CheckedBackend[Any], where: str
) -> None:
    with pytest.raises(ValueError) as error:
        backend(MORRIS, colour="red")
    message = str(error.value)
    assert message.startswith(f"{where} unknown option 'colour' for the {name} ")
    assert "\n" not in message and "(known: " in message


@pytest.mark.parametrize(("backend", "typo", "meant"), [
    (load_sensor("sim"), "debounse", "debounce"),
    (load_sensor("reed"), "scan_hzz", "scan_hz"),
    (load_sensor("serial"), "prot", "port"),
    (load_sensor("camera"), "fsp", "fps"),
    (load_leds("neopixel"), "gama", "gamma"),
    (load_leds("sim"), "brightnes", "brightness"),
])
def test_a_misspelt_option_suggests_the_right_one(backend: CheckedBackend[Any], typo: str,
                                                   meant: str) -> None:
    with pytest.raises(ValueError, match=f"unknown option '{typo}' .*did you mean '{meant}'"):
        backend(MORRIS, **{typo: 1})


@pytest.mark.parametrize(("backend", "options", "message"), [
    (load_sensor("sim"), {"debounce": "soon"}, r"debounce = 'soon': must be a number"),
    (load_sensor("sim"), {"capability": "identiy"},
     r"capability = 'identiy': must be one of 'occupancy', 'identity'"),
    (load_sensor("sim"), {"seed": 1.5}, r"seed = 1.5: must be a whole number"),
    (load_sensor("camera"), {"game": "morris", "fps": True}, r"fps = True: must be a number"),
    (load_sensor("camera"), {}, r"\[sensor.options\] game is required for the camera sensor"),
    (load_leds("neopixel"), {"driver": 3}, r"driver = 3: must be a string"),
    (load_leds("neopixel"), {"pin": 1.5}, r"pin = 1.5: must be a whole number or a string"),
])
def test_a_value_of_the_wrong_type_names_the_key(backend: CheckedBackend[Any],
                                                 options: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        backend(MORRIS, **options)


def test_the_options_offered_are_the_ones_a_config_can_set() -> None:
    assert "clock" not in load_sensor("sim").options
    assert load_sensor("serial").options == ("port", "baudrate", "heartbeat_timeout",
                                             "reconnect_interval", "reconnect_max",
                                             "snapshot_interval")


def test_good_options_build_the_backend() -> None:
    sensor = load_sensor("sim")(MORRIS, debounce=0.01, seed=3)
    assert sensor.capability == "occupancy"
    sensor.close()


@pytest.mark.parametrize("command", ["run", "selftest"])
def test_tavola_says_it_in_one_line_at_start_up(command: str, tmp_path: Path) -> None:
    env = {**os.environ, "TAVOLA_SENSOR_OPTIONS_DEBOUNSE": "0.01"}
    args = ["--journal", str(tmp_path), "--console", "off"] if command == "run" else []
    done = subprocess.run([*TAVOLA, command, *args], env=env, capture_output=True, text=True,
                          timeout=60, stdin=subprocess.DEVNULL)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1
    assert "unknown option 'debounse' for the sim sensor; did you mean 'debounce'?" in lines[0]


def test_the_cameras_game_option_must_be_the_game_played() -> None:
    # A config copied from another board ({ game = "tessere" } on a Quixo board): the
    # camera looked for tessere's pieces and the daemon recorded nothing, with no error.
    from tavola.games import new_game
    from tavola.hardware import game_options

    quixo = new_game("quixo")
    assert game_options("camera", {}, quixo)["game"] == "quixo"
    assert game_options("camera", {"game": "quixo"}, quixo)["game"] == "quixo"
    assert game_options("camera", {"game": "checkers"}, new_game("draughts"))["game"] \
        == "draughts"
    with pytest.raises(ValueError, match=r"\[sensor.options\] game = 'tessere', but the game "
                       r"played is quixo: leave the option out"):
        game_options("camera", {"game": "tessere"}, quixo)
