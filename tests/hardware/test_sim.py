"""The simulated sensor and LEDs, under virtual time, and the backend registry that finds them."""

from __future__ import annotations

import asyncio
import io
import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from tavola.hardware import SENSORS, Backend, BackendUnavailableError, load_leds, load_sensor
from tavola.hardware.base import LedBackend, SensorBackend, SensorEvent, SensorFault, Snapshot
from tavola.hardware.layout import Layout
from tavola.hardware.sim import (
    KEEP_FRAMES,
    LANGUAGE,
    NoLeds,
    SimCommandError,
    SimLeds,
    SimSensor,
    parse_script,
)

MORRIS = Layout.for_game("morris")
DRAUGHTS = Layout.for_game("draughts")
FIVE = Layout.shipped("5x5")
TRAY = Layout.shipped("5x5-tray")
DEBOUNCE = 0.005


def pieces(event: SensorEvent) -> dict[str, str]:
    """The occupied cells of a snapshot."""
    assert isinstance(event, Snapshot), event
    return {c: v for c, v in event.cells.items() if v}


def changes(sensor: SimSensor) -> list[dict[str, str]]:
    """Settle, and return the occupied cells of every snapshot queued."""
    sensor.settle()
    return [pieces(e) for e in sensor.drain()]


def started(layout: Layout = MORRIS, **kw: Any) -> SimSensor:
    """A sensor with its start snapshot already taken."""
    sensor = SimSensor(layout, **kw)
    sensor.drain()
    return sensor


# ------------------------------------------------------------------ start and readings
def test_start_snapshot_and_protocol() -> None:
    sensor = SimSensor(MORRIS, start={"d2": "W", "a1": "B"})
    assert isinstance(sensor, SensorBackend)
    assert sensor.cells == MORRIS.sensed
    [first] = sensor.drain()
    assert isinstance(first, Snapshot) and first.time == 0.0
    assert set(first.cells) == set(MORRIS.cells)
    assert pieces(first) == {"d2": "#", "a1": "#"}


def test_identity_reads_tokens_occupancy_reads_marks() -> None:
    ident = SimSensor(MORRIS, "identity", start={"d2": "W", "a1": "B"})
    assert pieces(ident.drain()[0]) == {"d2": "W", "a1": "B"}
    ident.command("d2-d3")
    assert changes(ident) == [{"a1": "B"}, {"a1": "B", "d3": "W"}]


def test_tray_slots_start_full() -> None:
    sensor = SimSensor(TRAY, "identity")
    first = pieces(sensor.drain()[0])
    assert len(first) == 25 and first["slot-RY2"] == "RY" and first["slot-K1"] == "K"


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="capability"):
        SimSensor(MORRIS, "smell")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="no cell 'z9'"):
        SimSensor(MORRIS, start={"z9": "W"})


# ------------------------------------------------------------------ debounce
def test_lift_settles_after_the_debounce_and_not_before() -> None:
    sensor = started(start={"d2": "W"})
    sensor.lift("d2")
    sensor.advance(DEBOUNCE * 0.9)
    assert sensor.drain() == []
    sensor.advance(DEBOUNCE * 0.2)
    [snap] = sensor.drain()
    assert isinstance(snap, Snapshot) and snap.time == pytest.approx(DEBOUNCE)
    assert pieces(snap) == {} and sensor.hand == ("W",)


def test_place_takes_the_lifted_piece() -> None:
    sensor = started(MORRIS, capability="identity", start={"d2": "W", "d6": "B"})
    sensor.lift("d2")
    sensor.lift("d6")
    sensor.place("d5")  # the last lifted: B
    sensor.place("d3", "W")
    assert sensor.board["d5"] == "B" and sensor.board["d3"] == "W" and sensor.hand == ()
    assert changes(sensor) == [{"d5": "B", "d3": "W"}]  # all within one debounce


def test_bounce_is_filtered_to_one_change() -> None:
    sensor = started(start={"d2": "W"})
    sensor.bounce("d2")
    sensor.bounce("d3")
    assert changes(sensor) == [{}, {"d3": "#"}]


def test_bounce_shows_through_a_debounce_shorter_than_it() -> None:
    sensor = started(start={"d2": "W"}, debounce=0.0001)
    sensor.bounce("d2")
    assert len(changes(sensor)) == 5  # every toggle of the contact


@pytest.mark.parametrize(
    ("dwell", "expected"),
    [
        (0.002, [{}, {"d5": "#"}]),  # over d3 too briefly to show
        (0.05, [{"d3": "#"}, {"d5": "#"}]),  # long enough: d3 shows on the way
    ],
)
def test_slide_shows_the_passed_cell_only_if_it_lasted(
    dwell: float, expected: list[dict[str, str]]
) -> None:
    sensor = started(start={"d2": "W"})
    sensor.slide("d2", "d3", "d5", dwell=dwell)
    assert changes(sensor) == expected


def test_slide_dwell_default_comes_from_the_sensor() -> None:
    sensor = started(start={"d2": "W"}, slide_dwell=0.05)
    sensor.command("slide d2 d3 d5")
    assert changes(sensor) == [{"d3": "#"}, {"d5": "#"}]
    sensor.command("slide d5 d3 d2 0.001")
    assert changes(sensor) == [{}, {"d2": "#"}]


def test_slide_to_a_neighbour_is_one_change() -> None:
    sensor = started(start={"d2": "W"})
    sensor.slide("d2", "d3")
    assert changes(sensor) == [{"d3": "#"}]


def test_knock_changes_several_cells_in_one_snapshot() -> None:
    sensor = started(MORRIS, capability="identity", start={"c3": "W", "d3": "B", "e3": "W"})
    sensor.knock("c3", "d3", "c4")
    assert changes(sensor) == [{"c4": "W", "e3": "W"}]  # c3's piece landed on c4
    assert sensor.hand == ("B",)  # d3's fell off the board


def test_knock_onto_an_empty_cell_needs_a_piece_for_identity() -> None:
    sensor = started(MORRIS, capability="identity")
    with pytest.raises(SimCommandError, match="which piece goes on d3"):
        sensor.knock("d3")
    occupancy = started(MORRIS)
    occupancy.knock("d3", "e4")
    assert changes(occupancy) == [{"d3": "#", "e4": "#"}]


def test_short_noise_is_filtered_completely() -> None:
    sensor = started(start={"d2": "W", "a7": "B"})
    sensor.noise(40)
    assert changes(sensor) == []
    assert sensor.settled() == {c: ("#" if c in ("d2", "a7") else "") for c in MORRIS.cells}


def test_long_noise_shows_then_settles_back() -> None:
    sensor = started(start={"d2": "W"}, seed=3)
    before = sensor.settled()
    sensor.noise(4, length=0.02)
    seen = changes(sensor)
    assert len(seen) == 8  # each glitch shows, then goes
    assert seen[-1] == {"d2": "#"} and sensor.settled() == before


def test_noise_is_reproducible_by_seed() -> None:
    runs = []
    for _ in range(2):
        sensor = started(seed=7)
        sensor.command("noise 5 0.01")
        runs.append(changes(sensor))
    assert runs[0] == runs[1] and runs[0]


def test_identity_noise_on_an_empty_cell_reads_unreadable() -> None:
    sensor = started(FIVE, capability="identity", start={c: "." for c in FIVE.cells[:-1]})
    sensor.noise(30, length=0.01)
    seen = changes(sensor)
    assert any("?" in s.values() for s in seen)


# ------------------------------------------------------------------ faults
def test_unplug_and_replug() -> None:
    sensor = started(start={"d2": "W"})
    sensor.unplug()
    sensor.unplug()  # once is enough
    sensor.command("d2-d3")
    sensor.settle()
    sensor.request_snapshot()  # nothing to read while unplugged
    [fault] = sensor.drain()
    assert isinstance(fault, SensorFault) and "unplugged" in fault.message
    sensor.replug()
    [snap] = sensor.drain()
    assert pieces(snap) == {"d3": "#"} and snap.time == sensor.now
    sensor.replug()
    assert sensor.drain() == []


def test_a_script_can_pull_the_cable() -> None:
    sensor = started(start={"d2": "W"})
    sensor.run_script("+1 unplug\nd2-d3\n+1 replug\n")
    sensor.settle()
    fault, snap = sensor.drain()
    assert isinstance(fault, SensorFault) and fault.time == 1.0
    assert pieces(snap) == {"d3": "#"} and snap.time == pytest.approx(2.4)
    assert sensor.type_line("unplug now").startswith("error: 'unplug now': unplug takes 0..0")


def test_request_snapshot_repeats_the_reading() -> None:
    sensor = started(start={"d2": "W"})
    sensor.request_snapshot()
    assert [pieces(e) for e in sensor.drain()] == [{"d2": "#"}]


# ------------------------------------------------------------------ move shortcuts
def test_move_lifts_then_places_after_the_hand_time() -> None:
    sensor = started(start={"d2": "W"}, hand_time=0.3)
    sensor.command("d2-d3")
    sensor.settle()
    lifted, placed = sensor.drain()
    assert pieces(lifted) == {} and pieces(placed) == {"d3": "#"}
    assert placed.time - lifted.time == pytest.approx(0.3)


def test_place_and_remove_shortcuts() -> None:
    sensor = started(MORRIS, capability="identity", start={"g7": "B"})
    sensor.command("d2 W")
    sensor.command("xg7")
    assert changes(sensor) == [{"d2": "W"}]
    assert sensor.hand == ()  # a removed piece goes to the box, not the hand


def test_capture_chain_removes_the_jumped_pieces() -> None:
    sensor = started(DRAUGHTS, capability="identity", start={"c3": "W", "d4": "B", "f6": "B"})
    sensor.command("c3xe5xg7")
    assert changes(sensor) == [
        {"d4": "B", "f6": "B"},  # lifted from c3
        {"d4": "B", "e5": "W", "f6": "B"},  # landed on e5
        {"e5": "W", "f6": "B"},  # d4 taken off
        {"f6": "B"},
        {"f6": "B", "g7": "W"},
        {"g7": "W"},
    ]


def test_quixo_push_shifts_the_row() -> None:
    start = {c: "." for c in FIVE.cells} | {"a1": "X", "c1": "O"}
    sensor = started(FIVE, capability="identity", start=start)
    sensor.command("a1>e1 X")
    lifted, pushed = changes(sensor)
    assert "a1" not in lifted
    row = [pushed[c] for c in ("a1", "b1", "c1", "d1", "e1")]
    assert row == [".", "O", ".", ".", "X"]
    with pytest.raises(SimCommandError, match="not on one row or column"):
        sensor.command("a1>e5")


def test_piece_at_cell_comes_from_its_tray_slot() -> None:
    sensor = started(TRAY, capability="occupancy")
    sensor.command("RY@c3")
    lifted, placed = changes(sensor)
    assert "slot-RY1" not in lifted and placed["c3"] == "#"
    assert sensor.board["c3"] == "RY" and sensor.board["slot-RY2"] == "RY"


# ------------------------------------------------------------------ language and scripts
SCRIPT = """\
# a short morris opening
d2          # White places
+0.5 d6
wait 1
lift d2
place d3
"""


def test_script_timing_and_comments() -> None:
    sensor = started(MORRIS, capability="identity")
    sensor.run_script(SCRIPT.replace("d2 ", "d2 W ").replace("d6", "d6 B"))
    sensor.settle()
    times = [round(e.time, 4) for e in sensor.drain()]
    assert times == [0.005, 0.505, 1.505]  # lift and place at once: one change
    assert sensor.board["d3"] == "W" and sensor.board["d6"] == "B"


def test_script_file(tmp_path: Path) -> None:
    path = tmp_path / "opening.txt"
    path.write_text(SCRIPT, encoding="utf-8")
    sensor = SimSensor(MORRIS, script=path)
    assert changes(sensor)[-1] == {"d3": "#", "d6": "#"}


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("lfit d2", "line 2: 'lfit d2': unknown command or cell 'lfit'"),
        ("lift z9", "line 2: 'lift z9': unknown cell 'z9'"),
        ("lift", "line 2: 'lift': lift takes 1..1 arguments, got 0"),
        ("wait soon", "line 2: 'wait soon': wait must be a number of seconds, got 'soon'"),
        ("+x lift d2", "line 2: '+x lift d2': the delay after '+' must be a number"),
        ("noise 0", "line 2: 'noise 0': noise count must be a whole number >= 1"),
        ("slide d2", "line 2: 'slide d2': slide needs a start and an end cell"),
        ("knock d2 d2", "line 2: 'knock d2 d2': knock names a cell twice"),
        ("wait -1", "wait must be a number of seconds >= 0"),
    ],
)
def test_script_parse_errors_name_line_and_command(line: str, message: str) -> None:
    with pytest.raises(SimCommandError) as info:
        parse_script(f"d2\n{line}   # comment\n", MORRIS.sensed, "game.txt")
    assert message in str(info.value)
    assert str(info.value).startswith("game.txt line 2")


def test_a_script_that_fails_schedules_nothing() -> None:
    sensor = started(start={"d2": "W"})
    with pytest.raises(SimCommandError, match=r"s\.txt line 3: 'lift d3': no piece on d3 to lift"):
        sensor.run_script("d2-d3\nxd3\nlift d3\n", "s.txt")
    assert sensor.board["d2"] == "W"
    assert changes(sensor) == []


def test_execution_errors_name_the_command() -> None:
    sensor = started(start={"d2": "W"})
    with pytest.raises(SimCommandError, match="'place d2': d2 is not empty"):
        sensor.place("d2")
    with pytest.raises(SimCommandError, match="unknown cell 'q1'"):
        sensor.lift("q1")
    ident = started(capability="identity")
    with pytest.raises(SimCommandError, match="which piece goes on d3"):
        ident.command("place d3")


def test_missing_script_file(tmp_path: Path) -> None:
    with pytest.raises(SimCommandError, match="cannot read script"):
        SimSensor(MORRIS, script=tmp_path / "none.txt")


def test_typed_lines_reply_instead_of_raising() -> None:
    sensor = started(start={"d2": "W"})
    assert sensor.type_line("help") == LANGUAGE
    assert sensor.type_line("   # just a comment") == ""
    assert sensor.type_line("lift d5").startswith("error: 'lift d5': no piece on d5")
    assert sensor.type_line("d2-d3") == ""
    assert changes(sensor)[-1] == {"d3": "#"}


def test_commands_queue_one_after_another() -> None:
    sensor = started(start={"d2": "W"}, hand_time=0.2)
    sensor.command("d2-d3")  # ends 0.2 s from now
    sensor.command("d3-d2")  # starts when the first ends
    assert sensor.board["d2"] == "W"
    seen = changes(sensor)
    assert seen == [{}, {"d3": "#"}, {}, {"d2": "#"}]


# ------------------------------------------------------------------ async stream
def test_events_stream_until_closed() -> None:
    sensor = SimSensor(MORRIS, start={"d2": "W"})

    async def main() -> list[SensorEvent]:
        got: list[SensorEvent] = []
        stream = sensor.events()
        got.append(await anext(stream))
        sensor.lift("d2")
        sensor.advance(0.01)
        got.append(await anext(stream))
        sensor.place("d3")
        sensor.advance(0.01)
        sensor.close()
        got.extend([e async for e in stream])
        return got

    got = asyncio.run(main())
    assert [pieces(e) for e in got] == [{"d2": "#"}, {}, {"d3": "#"}]
    sensor.close()  # idempotent


def test_events_wake_on_advance() -> None:
    sensor = started(start={"d2": "W"})

    async def main() -> SensorEvent:
        async def later() -> None:
            await asyncio.sleep(0)
            sensor.command("xd2")
            sensor.advance(0.01)

        task = asyncio.create_task(later())
        event = await anext(sensor.events())
        await task
        return event

    assert pieces(asyncio.run(main())) == {}


def test_real_clock_mode_runs_the_debounce_on_that_clock() -> None:
    clock = [100.0]
    sensor = SimSensor(MORRIS, clock=lambda: clock[0], start={"d2": "W"})
    with pytest.raises(RuntimeError, match="virtual time"):
        sensor.advance(1)

    async def main() -> list[SensorEvent]:
        stream = sensor.events()
        first = await anext(stream)
        sensor.lift("d2")
        clock[0] += 0.01  # time passed
        second = await anext(stream)
        return [first, second]

    first, second = asyncio.run(main())
    assert first.time == 100.0 and pieces(second) == {}
    assert second.time == pytest.approx(100.005)


@pytest.mark.skipif(sys.platform == "win32", reason="add_reader needs a Unix event loop")
def test_console_lines_are_typed_commands() -> None:
    read_fd, write_fd = os.pipe()
    echo = io.StringIO()
    with os.fdopen(read_fd, "r") as console:
        sensor = SimSensor(MORRIS, start={"d2": "W"}, console=console, echo=echo)

        async def main() -> list[SensorEvent]:
            stream = sensor.events()
            first = await anext(stream)  # the console is attached now
            os.write(write_fd, b"lfit d3\nlift d2\nhel")
            for _ in range(20):  # let the loop poll the pipe (no real sleep)
                await asyncio.sleep(0)
                if sensor.board["d2"] == "":
                    break
            os.write(write_fd, b"p\n")
            os.close(write_fd)
            for _ in range(20):
                await asyncio.sleep(0)
            sensor.advance(0.01)
            second = await anext(stream)
            sensor.close()
            return [first, second]

        _, second = asyncio.run(main())
    assert pieces(second) == {}
    assert "error: 'lfit d3': unknown command or cell 'lfit'" in echo.getvalue()
    assert "Raw events" in echo.getvalue()  # "hel" + "p": a line typed in two pieces


# ------------------------------------------------------------------ LEDs
GREEN = (0, 255, 0)
RED = (200, 0, 0)


def frame_with(
    layout: Layout, colours: Mapping[int, tuple[int, int, int]]
) -> tuple[tuple[int, int, int], ...]:
    return tuple(colours.get(i, (0, 0, 0)) for i in range(layout.led_count))


def test_sim_leds_record_every_frame_with_its_time() -> None:
    now = [5.0]
    leds = SimLeds(MORRIS, clock=lambda: now[0])
    assert isinstance(leds, LedBackend) and leds.count == 32
    first = frame_with(MORRIS, {MORRIS.led_of("d2"): GREEN})
    leds.show(first)
    now[0] = 6.5
    leds.show(first)
    assert [(f.time, f.frame) for f in leds.frames] == [(5.0, first), (6.5, first)]
    assert leds.colour_of("d2") == GREEN and leds.colour_of("a1") == (0, 0, 0)


def test_sim_leds_reject_bad_frames() -> None:
    leds = SimLeds(MORRIS)
    with pytest.raises(ValueError, match="frame has 3 LEDs, the layout has 32"):
        leds.show(((0, 0, 0),) * 3)
    with pytest.raises(ValueError, match="LED 0: colour must be three integers"):
        leds.show(((256, 0, 0),) + ((0, 0, 0),) * 31)


def test_render_draws_colours_at_the_cells_and_the_timer() -> None:
    sensor = started(MORRIS, capability="identity", start={"d2": "W"})
    leds = SimLeds(MORRIS, sensor=sensor)
    timer = MORRIS.timer_leds
    frame = frame_with(
        MORRIS, {MORRIS.led_of("d2"): GREEN, MORRIS.led_of("a7"): RED, timer[0]: GREEN}
    )
    text = leds.render(frame)
    lines = text.splitlines()
    assert len(lines) == 8  # 7 rows of the grid, then the timer
    d2_row = lines[MORRIS.cell("d2").y]
    assert "\x1b[48;2;0;255;0m\x1b[38;2;0;0;0m  W  " in d2_row  # green under White's piece
    a7_row = lines[MORRIS.cell("a7").y]
    assert a7_row.startswith("\x1b[48;2;200;0;0m\x1b[38;2;255;255;255m a7  ")  # empty: its name
    assert lines[-1].startswith("timer \x1b[48;2;0;255;0m")
    assert lines[-1].count("\x1b[48;2;") == 1  # the other timer LEDs are off
    assert "\x1b[48;2" not in lines[MORRIS.cell("d3").y]  # nothing lit on rank 3


def test_render_with_explicit_pieces_and_default_frame() -> None:
    leds = SimLeds(FIVE)
    text = leds.render(pieces={"c3": "RY"})
    assert " RY  " in text.splitlines()[FIVE.cell("c3").y]
    assert "\x1b[48;2" not in text  # nothing shown yet: all off


def test_render_draws_the_tray_beside_the_board() -> None:
    leds = SimLeds(TRAY)
    frame = frame_with(TRAY, {TRAY.led_of("slot-K2"): RED})
    row = leds.render(frame, pieces={"slot-K2": "K"}).splitlines()[TRAY.cell("slot-K2").y]
    assert row.endswith("\x1b[48;2;200;0;0m\x1b[38;2;255;255;255m  K  \x1b[0m")
    assert "\x1b[2m gb  " in row  # an empty slot shows whose it is


def test_sim_leds_draw_on_out_only_when_the_frame_changes() -> None:
    out = io.StringIO()
    with SimLeds(MORRIS, out=out, clock=lambda: 0.0) as leds:
        dark = frame_with(MORRIS, {})
        leds.show(dark)
        leds.show(dark)
        leds.show(frame_with(MORRIS, {0: RED}))
    assert out.getvalue().count("timer") == 2
    leds.close()
    with pytest.raises(RuntimeError, match="closed"):
        leds.show(dark)


def test_timer_colours_in_order() -> None:
    leds = SimLeds(MORRIS)
    timer = MORRIS.timer_leds
    leds.show(frame_with(MORRIS, {timer[0]: GREEN, timer[1]: RED}))
    assert leds.timer_colours()[:3] == (GREEN, RED, (0, 0, 0))


def test_no_leds_checks_and_drops_frames() -> None:
    with NoLeds(MORRIS) as leds:
        assert isinstance(leds, LedBackend) and leds.count == 32
        leds.show(frame_with(MORRIS, {}))
        with pytest.raises(ValueError, match="frame has 1 LEDs"):
            leds.show(((0, 0, 0),))
    leds.close()


def test_sensor_is_a_context_manager() -> None:
    with SimSensor(MORRIS) as sensor:
        sensor.lift  # noqa: B018 - typed as SimSensor, not Closing
    assert sensor._closed


# ------------------------------------------------------------------ registry
def test_registry_loads_sim_and_none() -> None:
    assert load_sensor("sim").cls is SimSensor
    assert load_sensor(" SIM ").cls is SimSensor
    assert load_leds("sim").cls is SimLeds
    assert load_leds("none").cls is NoLeds


def test_registry_names_the_known_backends() -> None:
    with pytest.raises(ValueError, match="known sensor backends: camera, reed, serial, sim"):
        load_sensor("abacus")
    with pytest.raises(ValueError, match=r"known LED backend.*neopixel, none, serial, sim"):
        load_leds("lamp")


def test_registry_says_what_to_install(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "tavola_fake_backend.py").write_text("import tavola_no_such_driver\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setitem(
        SENSORS,
        "fake",
        Backend("tavola_fake_backend:Fake", ("tavola_no_such_driver",), "pip install 'tavola[pi]'"),
    )
    with pytest.raises(BackendUnavailableError) as info:
        load_sensor("fake")
    assert str(info.value) == (
        "sensor backend 'fake' needs tavola_no_such_driver (module 'tavola_no_such_driver' "
        "is missing): pip install 'tavola[pi]'"
    )
    assert isinstance(info.value, ImportError)


def test_registry_reports_a_backend_not_in_this_version(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(SENSORS, "ghost", Backend("tavola.hardware.ghost_xyz:Ghost"))
    with pytest.raises(BackendUnavailableError, match=r"'ghost' .* is not part of this version"):
        load_sensor("ghost")
    monkeypatch.setitem(SENSORS, "nameless", Backend("tavola.hardware.sim:Nothing"))
    with pytest.raises(BackendUnavailableError, match="has no class Nothing"):
        load_sensor("nameless")


def test_sim_leds_keep_only_the_latest_frames() -> None:
    # A daemon on the simulator all evening must not grow without bound (it kept every
    # frame: 0.75 MiB per 1,000 actions).
    layout = Layout.shipped("morris")
    leds = SimLeds(layout, clock=lambda: 0.0, keep_frames=50)
    frames = [tuple((i % 256, 0, 0) for _ in range(layout.led_count)) for i in range(120)]
    for frame in frames:
        leds.show(frame)
    assert [f.frame for f in leds.frames] == frames[-50:]
    assert leds.colour_of("d2") == (119, 0, 0)
    assert SimLeds(layout).frames.maxlen == KEEP_FRAMES
    with pytest.raises(ValueError, match="keep_frames = 0: must be a whole number >= 1"):
        SimLeds(layout, keep_frames=0)
