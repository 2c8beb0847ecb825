"""The reed-switch matrix backend on gpiozero's mock pins, on virtual time."""

from __future__ import annotations

import asyncio
import importlib.util
import os
from collections.abc import Callable
from pathlib import Path

import pytest
from gpiozero.pins.mock import MockFactory

from tavola.hardware import BackendUnavailableError, load_sensor
from tavola.hardware.base import SensorBackend, SensorEvent, SensorFault, Snapshot
from tavola.hardware.layout import Layout
from tavola.hardware.pin_factory import lgpio_working_directory, open_pin_factory
from tavola.hardware.reed_matrix import Debounce, MockMatrix, ReedMatrix

DRAUGHTS = Layout.shipped("draughts")  # 8 rows x 4 columns, every position wired
MORRIS = Layout.shipped("morris")  # 7 x 7, only 24 positions wired
ROWS8 = [4, 5, 6, 12, 13, 16, 17, 19]
COLS4 = [20, 21, 22, 23]
ROWS7 = [4, 5, 6, 12, 13, 16, 17]
COLS7 = [20, 21, 22, 23, 24, 25, 26]
SCAN = 0.002  # the default 500 scans a second


class VirtualTime:
    """A clock and a sleep for the sensor: sleeping advances the clock, nothing waits."""

    def __init__(self) -> None:
        self.now = 0.0
        self.deadline = float("inf")
        self.on_deadline: Callable[[], None] = lambda: None
        self.hooks: list[tuple[float, Callable[[], None]]] = []

    def clock(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.now += seconds
        for at, hook in list(self.hooks):
            if self.now >= at:
                self.hooks.remove((at, hook))
                hook()
        if self.now >= self.deadline:
            self.on_deadline()
        await asyncio.sleep(0)


def rig(
    layout: Layout = DRAUGHTS, rows: list[int] = ROWS8, cols: list[int] = COLS4, **options: object
) -> tuple[ReedMatrix, MockMatrix, VirtualTime]:
    factory = MockFactory()
    vt = VirtualTime()
    active_low = bool(options.get("active_low", True))
    board = MockMatrix(layout, factory, row_pins=rows, col_pins=cols, active_low=active_low,
                       clock=vt.clock)
    sensor = ReedMatrix(layout, row_pins=rows, col_pins=cols, pin_factory=factory,
                        clock=vt.clock, sleep=vt.sleep, **options)  # type: ignore[arg-type]
    return sensor, board, vt


def run_for(sensor: ReedMatrix, vt: VirtualTime, seconds: float) -> list[SensorEvent]:
    """Every event ``events()`` yields in ``seconds`` of virtual time."""
    vt.deadline = vt.now + seconds
    vt.on_deadline = sensor.close

    async def main() -> list[SensorEvent]:
        return [event async for event in sensor.events()]

    return asyncio.run(main())


def occupied(event: SensorEvent) -> set[str]:
    assert isinstance(event, Snapshot), event
    return {cell for cell, value in event.cells.items() if value}


# ---------------------------------------------------------------------- the debounce
def test_debounce_needs_reads_and_time() -> None:
    d = Debounce({"a1": False, "c1": False}, debounce=0.005, min_reads=3)
    assert d.update({"a1"}, 0.000) == frozenset()
    assert d.update({"a1"}, 0.002) == frozenset()
    assert d.update({"a1"}, 0.004) == frozenset()  # three reads, but only 4 ms
    assert d.update({"a1"}, 0.005) == {"a1"}
    assert d.closed == {"a1"} and not d.unsettled


def test_debounce_one_contrary_read_starts_again() -> None:
    d = Debounce({"a1": False}, debounce=0.005, min_reads=3)
    for t in (0.000, 0.002, 0.004):
        d.update({"a1"}, t)
    assert d.update(set(), 0.006) == frozenset()  # bounced open: back to settled, forgotten
    assert not d.unsettled
    for t in (0.008, 0.010):
        assert d.update({"a1"}, t) == frozenset()
    assert d.update({"a1"}, 0.012) == frozenset()  # 4 ms since the new run began
    assert d.update({"a1"}, 0.013) == {"a1"}


def test_debounce_counts_reads_not_only_time() -> None:
    """A stalled loop: two reads far apart are not enough when three are required."""
    d = Debounce({"a1": False}, debounce=0.005, min_reads=3)
    assert d.update({"a1"}, 0.0) == frozenset()
    assert d.update({"a1"}, 0.050) == frozenset()
    assert d.update({"a1"}, 0.052) == {"a1"}


def test_debounce_several_cells_in_one_scan_and_both_directions() -> None:
    d = Debounce({"a1": True, "c1": False, "e1": False}, debounce=0.004, min_reads=2)
    for t in (0.0, 0.002):
        assert d.update({"c1", "e1"}, t) == frozenset()
    assert d.update({"c1", "e1"}, 0.004) == {"a1", "c1", "e1"}
    assert d.closed == {"c1", "e1"}


def test_debounce_zero_is_immediate_and_unknown_cells_are_ignored() -> None:
    d = Debounce({"a1": False}, debounce=0.0, min_reads=1)
    assert d.update({"a1", "zz"}, 0.0) == {"a1"}
    assert d.closed == {"a1"}


# ---------------------------------------------------------------------- one scan
def test_scan_reads_each_switch_at_its_row_and_column() -> None:
    sensor, board, _ = rig()
    with sensor:
        assert sensor.scan() == frozenset()
        for cell in DRAUGHTS.sensed:
            board.set(cell, True)
            assert sensor.scan() == {cell}, cell
            board.set(cell, False)


def test_scan_has_no_ghosts_with_three_corners_closed() -> None:
    """Diodes: a1 (row 0, col 0), c1 (0, 1) and b2 (1, 0) closed; d2 (1, 1) is not."""
    sensor, board, _ = rig()
    with sensor:
        for cell in ("a1", "c1", "b2"):
            board.set(cell, True)
        assert DRAUGHTS.cell_at(1, 1) == "d2"
        assert sensor.scan() == {"a1", "c1", "b2"}
        for cell in DRAUGHTS.sensed:
            board.set(cell, True)
        assert sensor.scan() == set(DRAUGHTS.sensed)


def test_scan_of_a_sparse_matrix_and_columns_left_idle() -> None:
    sensor, board, _ = rig(MORRIS, ROWS7, COLS7)
    with sensor:
        board.set("a1", True)
        board.set("g7", True)
        assert sensor.scan() == {"a1", "g7"}
        # between scans no column is driven: nothing pulls a row
        assert all(col.pin.state for col in sensor._cols)
        assert all(row.pin.state for row in sensor._rows)


def test_active_high_wiring() -> None:
    sensor, board, _ = rig(active_low=False)
    with sensor:
        board.set("h8", True)
        assert sensor.scan() == {"h8"}
        assert not any(row.pin.state for row in sensor._rows)  # pulled down when idle


# ---------------------------------------------------------------------- the event stream
def test_first_snapshot_after_the_debounce_with_the_board_as_it_is() -> None:
    sensor, board, vt = rig()
    board.set("a1", True, at=-1.0)
    board.set("h8", True, at=-1.0)
    events = run_for(sensor, vt, 0.1)
    assert len(events) == 1
    first = events[0]
    assert isinstance(first, Snapshot) and occupied(first) == {"a1", "h8"}
    assert 0.005 <= first.time <= 0.005 + SCAN
    assert set(first.cells) == set(DRAUGHTS.sensed)


def test_bouncing_contact_reports_one_change_after_it_holds() -> None:
    sensor, board, vt = rig()
    holds = board.bounce("d4", True, at=0.050, flips=6, interval=0.0015)
    events = run_for(sensor, vt, 0.2)
    assert [occupied(e) for e in events] == [set(), {"d4"}]
    assert holds + 0.005 <= events[1].time <= holds + 0.005 + 2 * SCAN


def test_a_glitch_shorter_than_the_debounce_is_ignored() -> None:
    sensor, board, vt = rig()
    board.set("f6", True, at=0.050)
    board.set("f6", False, at=0.054)
    events = run_for(sensor, vt, 0.2)
    assert [occupied(e) for e in events] == [set()]


def test_two_cells_changing_in_one_scan_are_one_snapshot() -> None:
    sensor, board, vt = rig()
    board.set("a1", True, at=-1.0)
    board.set("a1", False, at=0.0501)  # a piece lifted from a1 ...
    board.set("c3", True, at=0.0501)  # ... and another knocked onto c3 in the same scan
    events = run_for(sensor, vt, 0.2)
    assert [occupied(e) for e in events] == [{"a1"}, {"c3"}]


def test_a_move_with_bounce_at_both_ends() -> None:
    sensor, board, vt = rig()
    board.set("c3", True, at=-1.0)
    lifted = board.bounce("c3", False, at=0.100)
    placed = board.bounce("d4", True, at=0.400)
    events = run_for(sensor, vt, 0.6)
    assert [occupied(e) for e in events] == [{"c3"}, set(), {"d4"}]
    assert lifted < events[1].time < lifted + 0.01
    assert placed < events[2].time < placed + 0.01


def test_request_snapshot_repeats_the_settled_board() -> None:
    sensor, board, vt = rig()
    board.set("b2", True, at=-1.0)
    vt.hooks.append((0.1, sensor.request_snapshot))
    events = run_for(sensor, vt, 0.2)
    assert [occupied(e) for e in events] == [{"b2"}, {"b2"}]
    assert events[1].time >= 0.1


def test_a_read_failure_is_one_fault_then_a_full_snapshot() -> None:
    sensor, board, vt = rig(retry=0.5)
    real_scan = sensor.scan
    board.set("a1", True, at=0.2)  # changes while the matrix cannot be read

    def scan() -> frozenset[str]:
        if 0.1 <= vt.now < 1.2:
            raise OSError("GPIO chip went away")
        return real_scan()

    sensor.scan = scan  # type: ignore[method-assign]
    events = run_for(sensor, vt, 2.0)
    kinds = [type(e).__name__ for e in events]
    assert kinds == ["Snapshot", "SensorFault", "Snapshot"]
    fault = events[1]
    assert isinstance(fault, SensorFault) and "GPIO chip went away" in fault.message
    assert occupied(events[2]) == {"a1"} and events[2].time >= 1.2


def test_close_ends_the_stream_and_is_idempotent() -> None:
    sensor, _, vt = rig()
    vt.hooks.append((0.05, sensor.close))
    events = run_for(sensor, vt, 10.0)
    assert len(events) == 1 and vt.now < 1.0
    sensor.close()
    sensor.close()


def test_close_releases_the_pins() -> None:
    factory = MockFactory()
    for _ in range(2):  # the second would fail with the pins still reserved
        with ReedMatrix(DRAUGHTS, row_pins=ROWS8, col_pins=COLS4, pin_factory=factory) as s:
            assert s.scan() == frozenset()


def test_scan_rate_on_virtual_time() -> None:
    sensor, _, vt = rig(scan_hz=250)
    scans = 0
    real_scan = sensor.scan

    def scan() -> frozenset[str]:
        nonlocal scans
        scans += 1
        return real_scan()

    sensor.scan = scan  # type: ignore[method-assign]
    run_for(sensor, vt, 1.0)
    assert 249 <= scans <= 252


def counting(sensor: ReedMatrix, vt: VirtualTime) -> list[float]:
    """The virtual time of every scan ``sensor`` makes from now on."""
    times: list[float] = []
    real_scan = sensor.scan

    def scan() -> frozenset[str]:
        times.append(vt.now)
        return real_scan()

    sensor.scan = scan  # type: ignore[method-assign]
    return times


def test_a_quiet_board_is_scanned_slowly_and_a_change_brings_back_the_fast_rate() -> None:
    sensor, board, vt = rig(idle_hz=25, idle_after=1.0)
    times = counting(sensor, vt)
    board.bounce("c1", True, at=3.0)  # after two quiet seconds
    events = run_for(sensor, vt, 5.0)
    fast = [t for t in times if 0.1 <= t < 0.9]
    slow = [t for t in times if 1.1 <= t < 2.9]
    assert 390 <= len(fast) <= 410  # 500 a second while the board was just started
    assert 43 <= len(slow) <= 47  # 25 a second once nothing had changed for a second
    # The first contact after the quiet spell is seen by the next slow scan (40 ms at
    # most), then debounced at the fast rate: reported within 40 ms + the debounce.
    (arrived,) = [e for e in events[1:] if occupied(e) == {"c1"}]
    assert 3.0 < arrived.time <= 3.0 + 0.040 + 0.002 + 0.005 + 2 * SCAN
    after = [t for t in times if arrived.time <= t < arrived.time + 0.5]
    assert len(after) >= 240  # fast again until the board has been quiet for a second


def test_a_resync_request_is_answered_by_the_next_slow_scan() -> None:
    sensor, _, vt = rig(idle_hz=10, idle_after=0.5)
    vt.hooks.append((2.0, sensor.request_snapshot))
    events = run_for(sensor, vt, 3.0)
    assert len(events) == 2 and 2.0 <= events[1].time <= 2.1 + 1e-9


# ---------------------------------------------------------------------- config errors
@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"col_pins": COLS4}, r"row_pins is required: layout 'draughts' has 8 matrix rows"),
        ({"row_pins": ROWS8}, r"col_pins is required.* 4 matrix columns"),
        ({"row_pins": ROWS8[:7], "col_pins": COLS4},
         r"row_pins has 7 pins but layout 'draughts' has 8 matrix rows \(\[matrix\] rows = 8\)"),
        ({"row_pins": ROWS8, "col_pins": [20, 21, 22, 22]}, r"col_pins lists GPIO 22 twice"),
        ({"row_pins": ROWS8, "col_pins": [20, 21, 22, 4]}, r"GPIO 4 is in both row_pins"),
        ({"row_pins": ROWS8, "col_pins": "20,21,22,23"}, r"col_pins = '20,21,22,23': must be"),
        ({"row_pins": ROWS8, "col_pins": [20, 21, 22, -1]}, r"col_pins: -1 is not a GPIO"),
        ({"row_pins": ROWS8, "col_pins": [20, 21, 22, 99]}, r"col_pins: GPIO 99 cannot be used"),
        ({"row_pins": ROWS8, "col_pins": COLS4, "debounce": -0.1}, r"debounce = -0.1"),
        ({"row_pins": ROWS8, "col_pins": COLS4, "debounce": 5}, r"debounce = 5: .* 0 to 1"),
        ({"row_pins": ROWS8, "col_pins": COLS4, "min_reads": 0}, r"min_reads = 0"),
        ({"row_pins": ROWS8, "col_pins": COLS4, "scan_hz": "fast"}, r"scan_hz = 'fast'"),
        ({"row_pins": ROWS8, "col_pins": COLS4, "active_low": "yes"}, r"active_low = 'yes'"),
        ({"row_pins": ROWS8, "col_pins": COLS4, "idle_hz": 1000}, r"idle_hz = 1000: .* 1 to 500"),
        ({"row_pins": ROWS8, "col_pins": COLS4, "idle_after": -1}, r"idle_after = -1"),
    ],
)
def test_bad_options_name_the_key(options: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        ReedMatrix(DRAUGHTS, pin_factory=MockFactory(), **options)  # type: ignore[arg-type]


def test_a_failed_start_releases_the_pins_it_took() -> None:
    factory = MockFactory()
    with pytest.raises(ValueError, match="GPIO 99"):
        ReedMatrix(DRAUGHTS, row_pins=ROWS8, col_pins=[20, 21, 22, 99], pin_factory=factory)
    with ReedMatrix(DRAUGHTS, row_pins=ROWS8, col_pins=COLS4, pin_factory=factory):
        pass


# ---------------------------------------------------------------------- pin factories
def test_pin_factory_by_name_and_from_the_environment() -> None:
    assert isinstance(open_pin_factory("mock"), MockFactory)
    assert isinstance(open_pin_factory(None, {"GPIOZERO_PIN_FACTORY": "MOCK"}), MockFactory)
    with ReedMatrix(DRAUGHTS, row_pins=ROWS8, col_pins=COLS4, pin_factory="mock") as sensor:
        assert sensor.scan() == frozenset()


def test_an_unknown_or_missing_driver_says_what_to_do(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("LG_WD", str(tmp_path))  # keep the lgpio fix off the real environment
    with pytest.raises(ValueError, match=r"pin_factory = 'abacus' is not a GPIO pin factory; "
                                         r"choose one of: lgpio, rpigpio, native, pigpio, mock"):
        open_pin_factory("abacus")
    with pytest.raises(ValueError, match=r"GPIOZERO_PIN_FACTORY = 'abacus'"):
        open_pin_factory(None, {"GPIOZERO_PIN_FACTORY": "abacus"})
    with pytest.raises(ValueError, match=r"pin_factory = 3: must be a name"):
        open_pin_factory(3)  # type: ignore[arg-type]
    if importlib.util.find_spec("lgpio") or importlib.util.find_spec("RPi"):
        pytest.skip("a GPIO driver is installed here")  # pragma: no cover - on a Pi
    with pytest.raises(BackendUnavailableError, match=r"install lgpio"):
        open_pin_factory(None, {})


def test_a_factory_whose_library_is_missing_says_what_to_install() -> None:
    if importlib.util.find_spec("RPi"):
        pytest.skip("RPi.GPIO is installed here")  # pragma: no cover - on a Pi
    with pytest.raises(BackendUnavailableError,
                       match=r"'rpigpio' needs the RPi library .*pip install 'tavola\[rpigpio\]'"):
        open_pin_factory("rpigpio")


def test_a_factory_that_cannot_start_says_so() -> None:
    if Path("/proc/device-tree/model").exists():
        pytest.skip("a Raspberry Pi: the native driver may start")  # pragma: no cover
    with pytest.raises(BackendUnavailableError, match=r"'native' could not start .*Raspberry Pi"):
        open_pin_factory("native")


def test_lgpio_gets_a_writable_working_directory_and_gives_the_old_one_back(
    tmp_path: Path,
) -> None:
    env = {"XDG_RUNTIME_DIR": str(tmp_path)}
    cwd = os.getcwd()
    with lgpio_working_directory(env):
        os.chdir(tmp_path)  # what lgpio does when it is imported
    assert env["LG_WD"] == str(tmp_path)
    assert os.getcwd() == cwd
    kept = {"LG_WD": "/var/lib/tavola"}
    with lgpio_working_directory(kept):
        pass
    assert kept == {"LG_WD": "/var/lib/tavola"}


# ---------------------------------------------------------------------- contract
def test_registry_and_protocol() -> None:
    assert load_sensor("reed").cls is ReedMatrix
    sensor, _, _ = rig()
    with sensor:
        assert isinstance(sensor, SensorBackend)
        assert sensor.capability == "occupancy"
        assert sensor.cells == DRAUGHTS.sensed


def test_tray_slots_are_read_like_cells() -> None:
    tray = Layout.shipped("5x5-tray")
    rows, cols = [4, 5, 6, 12, 13, 16, 17, 19, 20, 21], [22, 23, 24, 25, 26]
    sensor, board, _ = rig(tray, rows, cols)
    with sensor:
        slot = tray.tray[0]
        board.set(slot, True)
        assert sensor.scan() == {slot}
