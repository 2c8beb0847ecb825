"""The serial backends (SerialBoard, SerialLeds) on a pseudo-terminal pair: against the
firmware itself running under the MicroPython unix port, and against a scripted fake
board for the faults (garbage, a bad checksum, a missing heartbeat, the cable pulled and
plugged back, a board missing at start, another protocol version).

Real time, kept short: heartbeats every 0.05 s, a 0.3 s heartbeat timeout, reconnection
every 0.05 s. Tests wait for events with a generous limit that only a failure reaches.
"""

from __future__ import annotations

import asyncio
import errno
import logging
import os
import select
import threading
import time
import tty
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest
import serial

from tavola.hardware import load_sensor
from tavola.hardware.base import LedBackend, SensorBackend, SensorEvent, SensorFault, Snapshot
from tavola.hardware.layout import Layout
from tavola.hardware.serial_board import SerialBoard, SerialLeds, SerialLink
from tavola.hardware.serial_protocol import PROTOCOL_VERSION, crc16, encode
from tests.firmware.unix_port import FirmwareOnPty

T = TypeVar("T")
WAIT = 5.0  # only a failing test waits this long
FAST: dict[str, Any] = {"heartbeat_timeout": 0.3, "reconnect_interval": 0.05}
LAYOUT = Layout.loads(
    """
name = "tiny"
games = []
[matrix]
rows = 3
columns = 4
[leds]
count = 40
order = "GRB"
[cells]
a1 = { row = 0, col = 0, led = 0, x = 0, y = 2 }
b1 = { row = 0, col = 1, led = 1, x = 1, y = 2 }
a2 = { row = 1, col = 0, led = 2, x = 0, y = 1 }
d3 = { row = 2, col = 3, led = 3, x = 3, y = 0 }
[tray]
slot-X = { row = 2, col = 0, led = 39, x = 5, y = 0, piece = "X" }
""",
    source="tiny.toml",
)


@pytest.fixture(autouse=True)
def no_links_left() -> Iterator[None]:
    yield
    for link in list(SerialLink.open_links.values()):
        link.close()
    assert not SerialLink.open_links


def occupied(event: SensorEvent) -> set[str]:
    assert isinstance(event, Snapshot), event
    return {cell for cell, value in event.cells.items() if value}


async def within(awaitable: Awaitable[T]) -> T:
    return await asyncio.wait_for(awaitable, WAIT)


async def until(condition: Callable[[], bool]) -> None:
    """Wait until ``condition()`` holds (polling the loop); fail after WAIT seconds."""
    async def poll() -> None:
        while not condition():
            await asyncio.sleep(0.005)

    await within(poll())


# ---------------------------------------------------------------------- the scripted fake
class FakeBoard:
    """A scripted board on a pty: answers HELLO with HELLO and SNAP, SYNC with SNAP, beats
    every ``beat`` seconds, and can misbehave on cue. :attr:`port` is a symlink the test
    controls, so that unplugging removes the device node and replugging brings it back.
    """

    def __init__(self, folder: Path, rows: tuple[int, ...] = (1, 0, 8), columns: int = 4,
                 protocol: int = PROTOCOL_VERSION, beat: float = 0.05) -> None:
        self.port = str(folder / "ttyACM0")
        self.rows = list(rows)
        self.columns = columns
        self.protocol = protocol
        self.beat = beat
        self.beating = True
        self.answering = True
        self.received: list[bytes] = []
        self._seq = 0
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self.master = self.slave = -1

    # ------------------------------------------------------------ cable
    def plug(self) -> None:
        """Connect the cable: a new pty pair behind the port's path."""
        self.master, self.slave = os.openpty()
        tty.setraw(self.slave)
        os.symlink(os.ttyname(self.slave), self.port)
        self._stop.clear()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def unplug(self) -> None:
        """Pull the cable: the pty goes away and so does the device node."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        os.unlink(self.port)
        os.close(self.master)
        os.close(self.slave)

    # ------------------------------------------------------------ lines
    def send(self, verb: str, *fields: str) -> None:
        with self._lock:
            self._seq += 1
            self.write(encode(verb, self._seq, *fields))

    def send_damaged(self, verb: str, *fields: str) -> None:
        """A line whose checksum was hit on the way."""
        with self._lock:
            self._seq += 1
            body = encode(verb, self._seq, *fields).split(b"*")[0]
            self.write(body + b"*0000\n" if crc16(body) else body + b"*0001\n")

    def skip(self) -> None:
        """Lose the next line on the way."""
        with self._lock:
            self._seq += 1

    def write(self, data: bytes) -> None:
        os.write(self.master, data)

    def change(self, *cells: str) -> None:
        """``"+2,1"`` closes row 2 column 1, ``"-0,0"`` opens row 0 column 0."""
        for cell in cells:
            r, c = map(int, cell[1:].split(","))
            self.rows[r] = self.rows[r] | 1 << c if cell[0] == "+" else self.rows[r] & ~(1 << c)
        self.send("CHG", *cells)

    def snap(self) -> None:
        self.send("SNAP", *(f"{r:X}" for r in self.rows))

    def commands(self, verb: str) -> list[bytes]:
        return [line for line in self.received if line.startswith(verb.encode() + b" ")]

    # ------------------------------------------------------------ the board's loop
    def _serve(self) -> None:
        buffer = b""
        next_beat = time.monotonic()
        while not self._stop.is_set():
            ready, _, _ = select.select([self.master], [], [], self.beat / 2)
            if ready:
                try:
                    buffer += os.read(self.master, 4096)
                except OSError:
                    continue
                *lines, buffer = buffer.split(b"\n")
                for line in lines:
                    self._answer(line)
            if self.beating and time.monotonic() >= next_beat:
                next_beat = time.monotonic() + self.beat
                self.send("HB", "1", "200")

    def _answer(self, line: bytes) -> None:
        body, _, given = line.rpartition(b"*")
        assert int(given, 16) == crc16(body), f"host sent a bad checksum: {line!r}"
        self.received.append(line)
        if not self.answering:
            return
        verb = body.split(b" ")[0]
        if verb == b"HELLO":
            with self._lock:
                self._seq = 0
                self.write(encode("HELLO", 0, "tavola", str(self.protocol), "0.1.0",
                                  str(len(self.rows)), str(self.columns), "1"))
            if body.endswith(b" %d" % self.protocol):
                self.snap()
        elif verb == b"SYNC":
            self.snap()


@pytest.fixture
def fake(tmp_path: Path) -> Iterator[FakeBoard]:
    board = FakeBoard(tmp_path)
    board.plug()
    yield board
    if os.path.lexists(board.port):
        board.unplug()


def run(scenario: Callable[[], Coroutine[Any, Any, None]]) -> None:
    asyncio.run(scenario())


# ---------------------------------------------------------------------- the backends
def test_the_registry_finds_serial_board_and_it_follows_the_protocol(fake: FakeBoard) -> None:
    assert load_sensor("serial").cls is SerialBoard
    with SerialBoard(LAYOUT, port=fake.port) as sensor, SerialLeds(LAYOUT) as leds:
        assert isinstance(sensor, SensorBackend) and isinstance(leds, LedBackend)
        assert sensor.capability == "occupancy"
        assert sensor.cells == ("a1", "b1", "a2", "d3", "slot-X")
        assert leds.link is sensor.link and leds.count == 40


def test_a_snapshot_at_start_then_one_per_change(fake: FakeBoard) -> None:
    async def scenario() -> None:
        with SerialBoard(LAYOUT, port=fake.port, **FAST) as sensor:
            events = sensor.events()
            assert occupied(await within(anext(events))) == {"a1", "d3"}
            fake.change("-0,0", "+2,0")
            assert occupied(await within(anext(events))) == {"d3", "slot-X"}
            fake.change("+1,2")  # no switch fitted there: nothing to report
            fake.change("+0,1")
            assert occupied(await within(anext(events))) == {"b1", "d3", "slot-X"}
            assert fake.received[0] == b"HELLO 0 tavola 2*4506"

    run(scenario)


def test_garbage_bytes_are_skipped_and_a_snapshot_requested(
    fake: FakeBoard, caplog: pytest.LogCaptureFixture
) -> None:
    async def scenario() -> None:
        with SerialBoard(LAYOUT, port=fake.port, **FAST) as sensor:
            events = sensor.events()
            await within(anext(events))
            fake.write(b"\x00\xff\x13\x1b[2J garbage\r\n>>> \n")
            fake.rows[1] = 1  # the board's truth moved on meanwhile
            await until(lambda: bool(fake.commands("SYNC")))
            assert occupied(await within(anext(events))) == {"a1", "a2", "d3"}
            fake.change("-2,3")
            assert occupied(await within(anext(events))) == {"a1", "a2"}

    caplog.set_level(logging.WARNING)
    run(scenario)
    assert "bad line from the board" in caplog.text


def test_a_wrong_checksum_is_logged_and_the_board_asked_for_a_snapshot(
    fake: FakeBoard, caplog: pytest.LogCaptureFixture
) -> None:
    async def scenario() -> None:
        with SerialBoard(LAYOUT, port=fake.port, **FAST) as sensor:
            events = sensor.events()
            await within(anext(events))
            fake.rows[0] |= 2
            fake.send_damaged("CHG", "+0,1")
            snapshot = await within(anext(events))
            assert occupied(snapshot) == {"a1", "b1", "d3"}
            assert fake.commands("SYNC")

    caplog.set_level(logging.WARNING)
    run(scenario)
    assert "checksum mismatch" in caplog.text


def test_a_lost_line_is_noticed_and_resynchronised(fake: FakeBoard) -> None:
    async def scenario() -> None:
        with SerialBoard(LAYOUT, port=fake.port, **FAST) as sensor:
            events = sensor.events()
            await within(anext(events))
            fake.rows[1] = 1
            fake.skip()  # CHG +1,0 lost
            fake.change("+0,1")
            assert occupied(await within(anext(events))) == {"a1", "b1", "a2", "d3"}

    run(scenario)


def test_a_missing_heartbeat_is_a_fault_and_the_board_comes_back(fake: FakeBoard) -> None:
    async def scenario() -> None:
        with SerialBoard(LAYOUT, port=fake.port, **FAST) as sensor:
            events = sensor.events()
            await within(anext(events))
            fake.beating = fake.answering = False
            fault = await within(anext(events))
            assert isinstance(fault, SensorFault)
            assert fault.message == (f"no heartbeat from the board on {fake.port} for 0.3 s: "
                                     "check the USB cable")
            fake.beating = fake.answering = True
            back = await within(anext(events))
            assert occupied(back) == {"a1", "d3"}
            assert len(fake.commands("HELLO")) >= 2

    run(scenario)


def test_the_cable_pulled_and_plugged_back(fake: FakeBoard) -> None:
    async def scenario() -> None:
        with SerialBoard(LAYOUT, port=fake.port, **FAST) as sensor:
            events = sensor.events()
            await within(anext(events))
            fake.unplug()
            faults = [await within(anext(events)), await within(anext(events))]
            assert all(isinstance(f, SensorFault) for f in faults)
            messages = [f.message for f in faults if isinstance(f, SensorFault)]
            assert messages[0].startswith(f"lost the board on {fake.port}")
            assert messages[1] == (f"the board on {fake.port} is not connected: plug in its "
                                   "USB cable")
            fake.rows = [0, 1, 0]  # pieces moved while it was away
            fake.plug()
            assert occupied(await within(anext(events))) == {"a2"}

    run(scenario)


def test_a_board_missing_at_start_is_a_fault_until_it_is_plugged_in(tmp_path: Path) -> None:
    board = FakeBoard(tmp_path)

    async def scenario() -> None:
        with SerialBoard(LAYOUT, port=board.port, **FAST) as sensor:
            events = sensor.events()
            fault = await within(anext(events))
            assert isinstance(fault, SensorFault) and "not connected" in fault.message
            board.plug()
            assert occupied(await within(anext(events))) == {"a1", "d3"}

    run(scenario)
    board.unplug()


def test_a_lost_board_is_retried_with_backoff_logged_once_per_step(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    board = FakeBoard(tmp_path)
    caplog.set_level(logging.INFO, logger="tavola.hardware.serial_board")

    async def scenario() -> None:
        options = {**FAST, "reconnect_interval": 0.02, "reconnect_max": 0.16}
        with SerialBoard(LAYOUT, port=board.port, **options) as sensor:
            events = sensor.events()
            fault = await within(anext(events))
            assert isinstance(fault, SensorFault) and "not connected" in fault.message
            await until(lambda: len(sensor.link.waits) >= 7)
            board.plug()
            assert occupied(await within(anext(events))) == {"a1", "d3"}
            waits = sensor.link.waits
            assert waits[:7] == [0.02, 0.04, 0.08, 0.16, 0.16, 0.16, 0.16]
            tries = len(waits)
            board.unplug()  # lost again: the backoff starts again from the shortest wait
            await within(anext(events))
            await until(lambda: len(sensor.link.waits) > tries + 1)
            assert waits[tries : tries + 2] == [0.02, 0.04]

    run(scenario)
    said = [r.getMessage() for r in caplog.records if "trying again" in r.getMessage()]
    assert said[:4] == [f"the board on {board.port}: trying again in {s} s"
                        for s in ("0.02", "0.04", "0.08", "0.16")]
    assert said.count(said[3]) == 1  # four tries after waiting 0.16 s, said once


def test_heartbeats_but_no_answer_to_sync_is_a_fault_until_it_answers(fake: FakeBoard) -> None:
    async def scenario() -> None:
        with SerialBoard(LAYOUT, port=fake.port, **FAST) as sensor:
            events = sensor.events()
            await within(anext(events))
            fake.answering = False  # the host's line to the board is lost; beats go on
            fake.skip()  # a line lost: the host asks for a snapshot that never comes
            fault = await within(anext(events))
            assert isinstance(fault, SensorFault)
            assert "sends heartbeats but has not answered" in fault.message
            await until(lambda: len(fake.commands("SYNC")) >= 2)  # asked again
            fake.rows = [0, 1, 0]
            fake.answering = True
            assert occupied(await within(anext(events))) == {"a2"}

    run(scenario)


def test_the_copy_of_the_matrix_is_checked_now_and_then(fake: FakeBoard) -> None:
    async def scenario() -> None:
        with SerialBoard(LAYOUT, port=fake.port, **FAST, snapshot_interval=0.1) as sensor:
            events = sensor.events()
            assert occupied(await within(anext(events))) == {"a1", "d3"}
            fake.rows[1] |= 1  # a change whose line never said so (damage no check caught)
            assert occupied(await within(anext(events))) == {"a1", "a2", "d3"}
            assert len(fake.commands("SYNC")) >= 1

    run(scenario)


def test_another_protocol_version_is_a_fault_naming_both(tmp_path: Path) -> None:
    board = FakeBoard(tmp_path, protocol=PROTOCOL_VERSION + 1)
    board.plug()

    async def scenario() -> None:
        with SerialBoard(LAYOUT, port=board.port, **FAST) as sensor:
            fault = await within(anext(sensor.events()))
            assert isinstance(fault, SensorFault)
            assert f"speaks protocol {PROTOCOL_VERSION + 1}" in fault.message
            assert f"this tavola speaks protocol {PROTOCOL_VERSION}" in fault.message

    run(scenario)
    board.unplug()


def test_request_snapshot_reports_even_an_unchanged_board(fake: FakeBoard) -> None:
    async def scenario() -> None:
        with SerialBoard(LAYOUT, port=fake.port, **FAST) as sensor:
            events = sensor.events()
            first = await within(anext(events))
            sensor.request_snapshot()
            again = await within(anext(events))
            assert isinstance(first, Snapshot) and isinstance(again, Snapshot)
            assert again.cells == first.cells and again.time >= first.time

    run(scenario)


def test_close_ends_the_events_and_frees_the_port(fake: FakeBoard) -> None:
    async def scenario() -> None:
        sensor = SerialBoard(LAYOUT, port=fake.port, **FAST)
        events = sensor.events()
        await within(anext(events))
        sensor.close()
        sensor.close()
        with pytest.raises(StopAsyncIteration):
            await within(anext(events))
        assert not SerialLink.open_links
        again = SerialBoard(LAYOUT, port=fake.port, **FAST)  # the lock is released
        assert isinstance(await within(anext(again.events())), Snapshot)
        again.close()

    run(scenario)


# ---------------------------------------------------------------------- LEDs
def led_lines_sent(fake: FakeBoard) -> list[bytes]:
    return [line.split(b"*")[0] for line in fake.received
            if line.split(b" ")[0] in (b"STRIP", b"BRI", b"LED", b"SHOW")]


def test_leds_send_the_strip_then_only_what_changed(fake: FakeBoard) -> None:
    frame = [(0, 0, 0)] * 40

    async def scenario() -> None:
        with SerialBoard(LAYOUT, port=fake.port, **FAST) as sensor, \
                SerialLeds(LAYOUT, brightness=0.2) as leds:
            leds.show(tuple(frame))  # before the handshake: kept for later
            await within(anext(sensor.events()))
            await until(lambda: len(fake.commands("SHOW")) == 1)
            frame[3] = (255, 0, 0)
            leds.show(tuple(frame))
            await until(lambda: len(fake.commands("SHOW")) == 2)

    run(scenario)
    sent = led_lines_sent(fake)
    assert sent[:2] == [b"STRIP 1 40 GRB", b"BRI 2 51"]
    assert [s.split(b" ")[2] for s in sent[2:4]] == [b"0", b"32"]  # the whole frame
    assert sent[4].split(b" ")[0] == b"SHOW"
    assert sent[5].split(b" ")[2:] == [b"3", b"FF0000"]  # then the one LED


def test_after_a_reconnection_the_whole_frame_goes_again(fake: FakeBoard) -> None:
    async def scenario() -> None:
        with SerialBoard(LAYOUT, port=fake.port, **FAST) as sensor, SerialLeds(LAYOUT) as leds:
            events = sensor.events()
            leds.show(((9, 9, 9),) * 40)
            await within(anext(events))
            await until(lambda: len(fake.commands("SHOW")) == 1)
            fake.unplug()
            assert isinstance(await within(anext(events)), SensorFault)
            fake.received.clear()
            fake.plug()
            await until(lambda: len(fake.commands("SHOW")) == 1)
            assert len(fake.commands("LED")) == 2 and fake.commands("STRIP")

    run(scenario)


def test_leds_check_their_frames(fake: FakeBoard) -> None:
    with SerialLeds(LAYOUT, port=fake.port) as leds:
        with pytest.raises(ValueError, match="frame has 2 LEDs, the layout has 40"):
            leds.show(((0, 0, 0),) * 2)
        with pytest.raises(ValueError, match="LED 1"):
            leds.show(((0, 0, 0), (0, 0, 256), *(((0, 0, 0),) * 38)))


# ---------------------------------------------------------------------- options
@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"prot": "/dev/ttyACM1"}, "unknown option 'prot' for the serial sensor; did you mean "
                                   "'port'"),
        ({"port": ""}, "port = '': must be a device path"),
        ({"baudrate": "fast"}, "baudrate = 'fast': must be a whole number"),
        ({"heartbeat_timeout": 0}, r"\[sensor.options\] heartbeat_timeout = 0: must be a number "
                                   r"from 0.001 to 3600 \(seconds, e.g. 1\)"),
        ({"baudrate": -9600}, "baudrate = -9600: must be a whole number from 300"),
        ({"reconnect_interval": True}, "reconnect_interval = True: must be a number"),
    ],
)
def test_bad_options_name_the_option_and_the_fix(options: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        load_sensor("serial")(LAYOUT, **options)
    assert not SerialLink.open_links


def test_two_sensors_on_one_port_are_refused(fake: FakeBoard) -> None:
    with SerialBoard(LAYOUT, port=fake.port), pytest.raises(ValueError, match="already in use"):
        SerialBoard(LAYOUT, port=fake.port)


# ---------------------------------------------------------------------- the real firmware
@pytest.fixture
def firmware() -> Iterator[FirmwareOnPty]:
    # The shipped config.py (a 10x10 matrix); a1 and the tray slot closed at power-up.
    with FirmwareOnPty(closed=[(0, 0), (2, 0)]) as fw:
        yield fw


async def snapshots(sensor: SerialBoard) -> AsyncIterator[set[str]]:
    async for event in sensor.events():
        yield occupied(event)


def test_the_host_reads_the_firmware_running_on_the_pty(firmware: FirmwareOnPty) -> None:
    async def scenario() -> None:
        with SerialBoard(LAYOUT, port=firmware.port) as sensor:
            seen = snapshots(sensor)
            assert await within(anext(seen)) == {"a1", "slot-X"}
            firmware.set_switches([(0, 0), (2, 0), (2, 3)])
            assert await within(anext(seen)) == {"a1", "slot-X", "d3"}
            firmware.set_switches([(2, 0), (2, 3)])
            assert await within(anext(seen)) == {"slot-X", "d3"}
            sensor.request_snapshot()
            assert await within(anext(seen)) == {"slot-X", "d3"}

    run(scenario)


def test_the_firmware_lights_the_frames_the_host_sends(firmware: FirmwareOnPty) -> None:
    frame = [(0, 0, 0)] * 40
    frame[0], frame[39] = (255, 0, 0), (0, 0, 128)

    def shown() -> bytes | None:
        frames = firmware.frames()
        return frames[-1] if frames else None

    async def scenario() -> None:
        with SerialBoard(LAYOUT, port=firmware.port) as sensor, SerialLeds(LAYOUT) as leds:
            leds.show(tuple(frame))
            await within(anext(sensor.events()))
            want = bytearray(3 * 40)
            want[0:3] = bytes([0, 255, 0])  # GRB on the wire
            want[117:120] = bytes([0, 0, 128])
            await until(lambda: shown() == bytes(want))

    run(scenario)


# ---------------------------------------------------------------------- the daemon
def test_the_daemon_shows_the_disconnection_keeps_the_game_and_resyncs(
    tmp_path: Path,
) -> None:
    from tavola.config import load_config
    from tavola.daemon import Daemon
    from tavola.feedback import DIM_RED

    board = FakeBoard(tmp_path, rows=(0,) * 7, columns=7)  # morris: a 7x7 matrix, a1 at 0,0
    board.plug()
    config = load_config(None, {}, {"journal.directory": str(tmp_path / "state"),
                                    "sensor": "serial", "leds": "sim", "inference.settle": "0"})
    daemon = Daemon(config, env={}, sensor_options={"port": board.port, **FAST})

    def frames() -> list[Any]:
        return [f.frame for f in daemon.leds.frames]  # type: ignore[attr-defined]

    async def scenario() -> int:
        task = asyncio.create_task(daemon.run())
        await until(lambda: daemon.ready)
        board.change("+0,0")  # the first player places on a1
        await until(lambda: len(daemon.session.game.history) == 1)
        board.unplug()
        await until(lambda: daemon.session.status().startswith("board disconnected: "))
        assert DIM_RED in frames()[-1]  # every free cell dim red
        board.plug()
        await until(lambda: daemon.session.disconnected is None)
        assert len(daemon.session.game.history) == 1  # the game kept
        assert DIM_RED not in frames()[-1]
        daemon.console_line("quit")
        return await within(task)

    assert asyncio.run(scenario()) == 0
    board.unplug()


@pytest.mark.parametrize(
    ("code", "says"),
    [(errno.ENOENT, "is not connected: plug in its USB cable"),
     (errno.EACCES, "add this user to the dialout group"),
     (errno.EWOULDBLOCK, "in use by another program"),
     (None, "is it the board's serial device?")],
)
def test_why_a_port_cannot_be_opened_is_said_plainly(code: int | None, says: str) -> None:
    link = SerialLink(LAYOUT, "/dev/ttyACM9")
    exc = serial.SerialException(code, "could not open port") if code else \
        serial.SerialException("Could not configure port: (25, 'Inappropriate ioctl')")
    assert says in link._cannot_open(exc)


def test_a_file_that_is_no_serial_port_is_a_fault_not_a_crash(tmp_path: Path) -> None:
    not_a_port = tmp_path / "notes.txt"
    not_a_port.write_text("hello")

    async def scenario() -> None:
        with SerialBoard(LAYOUT, port=str(not_a_port), **FAST) as sensor:
            fault = await within(anext(sensor.events()))
            assert isinstance(fault, SensorFault) and "serial device" in fault.message

    run(scenario)
