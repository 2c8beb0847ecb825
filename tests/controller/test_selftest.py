"""``tavola selftest`` on the simulator and on a mock reed matrix, on virtual time."""

from __future__ import annotations

import asyncio
import io
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from gpiozero.pins.mock import MockFactory

import tavola.selftest
from tavola.config import Config, load_config
from tavola.feedback import BLUE, GREEN, OFF, RED, WHITE
from tavola.hardware.base import Frame, SensorBackend
from tavola.hardware.layout import Layout
from tavola.hardware.reed_matrix import MockMatrix, ReedMatrix
from tavola.hardware.sim import SimLeds, SimSensor
from tavola.selftest import (
    DIM,
    change_text,
    diagnose,
    led_plan,
    listen_frame,
    run_selftest,
    selftest,
)

MORRIS = Layout.for_game("morris")
DRAUGHTS = Layout.for_game("draughts")


def sim_sleep(sensor: SimSensor) -> Callable[[float], Awaitable[None]]:
    """Sleeping lets the simulator's virtual time pass, then lets the listener catch up."""

    async def sleep(seconds: float) -> None:
        sensor.advance(seconds)
        for _ in range(20):
            await asyncio.sleep(0)

    return sleep


def run(sensor: SensorBackend | None, leds: SimLeds | None, layout: Layout, *,
        sleep: Callable[[float], Awaitable[None]], **options: object
        ) -> tuple[tavola.selftest.Report, str]:
    out = io.StringIO()
    report = asyncio.run(selftest(sensor, leds, layout, out=out, sleep=sleep,
                                  **options))  # type: ignore[arg-type]
    return report, out.getvalue()


def lit(frame: Frame) -> dict[int, tuple[int, int, int]]:
    return {i: rgb for i, rgb in enumerate(frame) if rgb != OFF}


# ---------------------------------------------------------------------- pure parts
def test_led_plan_cells_then_timer_then_spare_leds() -> None:
    plan = led_plan(MORRIS)
    assert [s.label for s in plan[:3]] == ["a1", "d1", "g1"]
    assert [s.led for s in plan] == [MORRIS.led_of(c) for c in MORRIS.cells] + list(
        MORRIS.timer_leds)
    assert plan[-1].label == "timer 8 of 8"
    spare = led_plan(MORRIS, count=34)
    assert [str(s) for s in spare[-2:]] == ["LED 32  (not in the layout)",
                                            "LED 33  (not in the layout)"]
    assert len(led_plan(MORRIS, count=10)) == 10  # a shorter strip: only what exists


def test_led_plan_names_tray_slots() -> None:
    tray = Layout.shipped("5x5-tray")
    labels = [s.label for s in led_plan(tray)]
    assert labels[25] == f"tray {tray.tray[0]}"
    assert len(labels) == tray.led_count


def test_change_text() -> None:
    assert change_text("d4", "#") == "d4 occupied"
    assert change_text("d4", "") == "d4 empty"
    assert change_text("d4", "RY", "identity") == "d4 RY"


def test_diagnose_whole_rows_and_columns() -> None:
    row0 = [c.name for c in DRAUGHTS.places if c.row == 0]
    col3 = [c.name for c in DRAUGHTS.places if c.col == 3]
    hints = diagnose(DRAUGHTS, row0 + col3)
    assert len(hints) == 2
    assert hints[0].startswith("all 4 cells of matrix row 0 (a1, c1, e1, g1) read occupied")
    assert hints[1].startswith("all 8 cells of matrix column 3 (")
    assert diagnose(DRAUGHTS, ["a1", "c1", "d2"]) == []
    assert "every cell reads occupied" in diagnose(DRAUGHTS, DRAUGHTS.sensed)[0]


def test_listen_frame() -> None:
    frame = listen_frame(MORRIS, 32, {"a1": "#", "d1": "", "g1": "#"}, ("d1", False))
    assert lit(frame) == {MORRIS.led_of("a1"): DIM, MORRIS.led_of("g1"): DIM,
                          MORRIS.led_of("d1"): RED}
    frame = listen_frame(MORRIS, 32, {"a1": "#", "zz": "#"}, ("a1", True))
    assert lit(frame) == {MORRIS.led_of("a1"): GREEN}


# ---------------------------------------------------------------------- phase 1
def test_phase_one_checks_colours_then_lights_each_led_in_turn() -> None:
    sensor = SimSensor(MORRIS)
    leds = SimLeds(MORRIS, clock=lambda: sensor.now)
    report, out = run(None, leds, MORRIS, sleep=sim_sleep(sensor), step=0.25)
    frames = [f.frame for f in leds.frames]
    assert [set(f) for f in frames[:3]] == [{RED}, {GREEN}, {BLUE}]
    walk = frames[3:-1]
    assert [lit(f) for f in walk] == [{s.led: WHITE} for s in report.lit]
    assert len(walk) == 32 and frames[-1] == (OFF,) * 32
    assert "LED  0  a1" in out and "LED 24  timer 1 of 8" in out
    assert "set [leds] order in the layout file" in out
    times = [f.time for f in leds.frames]
    assert times[3] == pytest.approx(1.5) and times[4] - times[3] == pytest.approx(0.25)


# ---------------------------------------------------------------------- phase 2
def test_phase_two_names_each_change_and_lights_its_cell() -> None:
    sensor = SimSensor(MORRIS, start={"d2": "W"})
    leds = SimLeds(MORRIS, clock=lambda: sensor.now)
    sensor.run_script("wait 1\nbounce d2\nwait 1\nplace c3\nwait 1\nlift c3\n")
    report, out = run(sensor, leds, MORRIS, sleep=sim_sleep(sensor), listen=5.0,
                      light_each=False)
    assert report.changes == (("d2", "d2 empty"), ("c3", "c3 occupied"), ("c3", "c3 empty"))
    assert "board reads 1 occupied: d2" in out
    assert out.index("  d2 empty") < out.index("  c3 occupied") < out.index("  c3 empty")
    frames = [f.frame for f in leds.frames]
    assert lit(frames[0]) == {MORRIS.led_of("d2"): DIM}
    assert lit(frames[1]) == {MORRIS.led_of("d2"): RED}
    assert lit(frames[2]) == {MORRIS.led_of("c3"): GREEN}
    assert lit(frames[3]) == {MORRIS.led_of("c3"): RED}
    assert frames[-1] == (OFF,) * 32
    assert "3 changes on 2 of 24 cells" in out
    assert "never seen changing: a1, d1," in out and "d2" not in report.silent


def test_phase_two_reports_faults_and_a_dead_board() -> None:
    sensor = SimSensor(MORRIS)
    sensor.run_script("wait 1\nunplug\nwait 1\nreplug\n")
    report, out = run(sensor, None, MORRIS, sleep=sim_sleep(sensor), listen=3.0)
    assert len(report.faults) == 1 and "sensor fault: simulated sensor unplugged" in out
    assert report.changes == ()
    assert "No change seen" in out


def test_a_shorted_row_is_pointed_out_at_the_start() -> None:
    row0 = {c.name: "W" for c in DRAUGHTS.places if c.row == 0}
    sensor = SimSensor(DRAUGHTS, start=row0)
    _, out = run(sensor, None, DRAUGHTS, sleep=sim_sleep(sensor), listen=0.5)
    assert "check: all 4 cells of matrix row 0 (a1, c1, e1, g1) read occupied" in out


def test_swapped_row_wires_light_the_wrong_cell() -> None:
    """The builder swapped the wires of rows 0 and 1: touching a1 names and lights b2."""
    now = [0.0]

    async def scan_sleep(seconds: float) -> None:  # the sensor's own sleep: virtual
        now[0] += seconds
        await asyncio.sleep(0)

    async def listen_sleep(seconds: float) -> None:  # let the sensor's loop run that long
        end = now[0] + seconds
        for _ in range(1_000_000):
            if now[0] >= end:
                return
            await asyncio.sleep(0)
        raise AssertionError("the sensor stopped scanning")

    rows = [4, 5, 6, 12, 13, 16, 17, 19]
    cols = [20, 21, 22, 23]
    factory = MockFactory()
    wired = [5, 4, *rows[2:]]  # as soldered
    board = MockMatrix(DRAUGHTS, factory, row_pins=wired, col_pins=cols, clock=lambda: now[0])
    board.bounce("a1", True, at=0.2)
    sensor = ReedMatrix(DRAUGHTS, row_pins=rows, col_pins=cols, pin_factory=factory,
                        clock=lambda: now[0], sleep=scan_sleep)
    leds = SimLeds(DRAUGHTS, clock=lambda: now[0])
    with sensor:
        report, out = run(sensor, leds, DRAUGHTS, sleep=listen_sleep, listen=0.5,
                          light_each=False)
    assert report.changes == (("b2", "b2 occupied"),)
    assert "  b2 occupied" in out
    assert lit(leds.frames[-2].frame) == {DRAUGHTS.led_of("b2"): GREEN}


# ---------------------------------------------------------------------- the command
def config_for(tmp_path: Path, **flags: str) -> Config:
    return load_config(None, {"HOME": str(tmp_path)},
                       {"journal.directory": str(tmp_path), **flags})


def test_run_selftest_on_the_simulator(tmp_path: Path) -> None:
    out = io.StringIO()
    status = run_selftest(config_for(tmp_path, game="draughts"), out=out, step=0.0,
                          listen=0.0)
    text = out.getvalue()
    assert status == 0
    assert "LEDs: 40 on the strip, colour order GRB (layout 'draughts')" in text
    assert "LED 39  timer 8 of 8" in text and "board reads 0 occupied" in text


def test_run_selftest_leds_only_and_without_leds(tmp_path: Path) -> None:
    out = io.StringIO()
    assert run_selftest(config_for(tmp_path), out=out, step=0.0, sensor_phase=False) == 0
    assert "LED 31" in out.getvalue() and "Sensor:" not in out.getvalue()
    out = io.StringIO()
    assert run_selftest(config_for(tmp_path, leds="none"), out=out, listen=0.0,
                        leds_phase=False) == 0
    assert "LED " not in out.getvalue() and "Sensor:" in out.getvalue()


def test_run_selftest_names_a_bad_sensor_config(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status = run_selftest(config_for(tmp_path, sensor="reed"), out=io.StringIO(), listen=0.0)
    assert status == 2
    err = capsys.readouterr().err
    assert err.startswith("tavola selftest: cannot start: [sensor.options] row_pins is required")


def test_a_camera_selftest_ends_with_the_setup_check() -> None:
    # `tavola selftest --sensor camera`: besides each change, what the camera's first clear
    # frame showed of its setup (vision.setup_check), here a lamp's reflection to fix.
    from tavola.hardware.camera import CameraSensor
    from tavola.vision.source import FrameList, read_image

    picture = Path(__file__).parents[1] / "vision" / "data3d" / "quixo-040.jpg"
    frames = FrameList([read_image(picture)] * 4)
    layout = Layout.for_game("quixo")
    camera = CameraSensor(layout, game="quixo", source=frames, fps=0)

    async def sleep(seconds: float) -> None:
        for _ in range(200):  # let the frame thread read the four frames
            await asyncio.sleep(0.01)
            if camera.setup is not None and camera.frames >= 4:
                return

    _, out = run(camera, None, layout, sleep=sleep, listen=1.0)
    assert "camera setup for quixo, from a 960x720 picture:" in out
    assert "FIX   glare: a lamp's reflection blows out c4, c5, d3, d5, e3" in out


def test_a_camera_selftest_from_the_config_is_told_the_game(tmp_path: Path) -> None:
    # `tavola selftest` on a camera board, configured as the daemon is: the daemon tells
    # the camera the game, the selftest did not ("[sensor.options] game is required").
    picture = Path(__file__).parents[1] / "vision" / "data3d" / "quixo-000.jpg"
    file = tmp_path / "tavola.toml"
    file.write_text(f'[game]\nname = "quixo"\n[leds]\nbackend = "none"\n[sensor]\n'
                    f'backend = "camera"\n[sensor.options]\nsource = "{picture}"\nfps = 0\n')
    config = load_config(file, {"HOME": str(tmp_path)}, {"journal.directory": str(tmp_path)})
    out = io.StringIO()
    assert run_selftest(config, out=out, listen=2.0, leds_phase=False) == 0
    assert "camera setup for quixo, from a 960x720 picture:" in out.getvalue()
