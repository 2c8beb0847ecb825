"""firmware/main.py, the hardware loop, running under the MicroPython unix port behind a
pseudo-terminal pair, with the stub machine's switches and the stub neopixel's log: what
a host would see on /dev/ttyACM0."""

from __future__ import annotations

import os
import select
import time
from collections.abc import Callable, Iterator

import pytest

from tavola.hardware import serial_protocol as host
from tavola.hardware.serial_protocol import Change, Heartbeat, Hello, LineSplitter, Message, Snap
from tests.firmware.unix_port import FirmwareOnPty

WAIT = 5.0  # generous: only a failure waits this long


class Host:
    """Reads and writes the pty's slave side, as tavola does through pyserial."""

    def __init__(self, firmware: FirmwareOnPty) -> None:
        self.fd = os.open(firmware.port, os.O_RDWR | os.O_NOCTTY)
        self.splitter = LineSplitter()
        self.seen: list[Message] = []
        self.unread: list[Message] = []

    def send(self, *lines: bytes) -> None:
        os.write(self.fd, b"".join(lines))

    def until(self, done: Callable[[Message], bool]) -> Message:
        """Read until a message satisfies ``done``; fail after WAIT seconds."""
        deadline = time.monotonic() + WAIT
        while time.monotonic() < deadline:
            while self.unread:
                message = self.unread.pop(0)
                self.seen.append(message)
                if done(message):
                    return message
            ready, _, _ = select.select([self.fd], [], [], 0.05)
            if ready:
                lines = self.splitter.feed(os.read(self.fd, 4096))
                self.unread += [host.decode(line) for line in lines]
        raise AssertionError(f"nothing matched within {WAIT} s; seen: {self.seen}")


@pytest.fixture
def firmware() -> Iterator[FirmwareOnPty]:
    with FirmwareOnPty(closed=[(0, 0), (9, 9)]) as fw:
        yield fw


@pytest.fixture
def pc(firmware: FirmwareOnPty) -> Iterator[Host]:
    h = Host(firmware)
    yield h
    os.close(h.fd)


def test_the_handshake_answers_with_the_shipped_config_and_the_matrix(pc: Host) -> None:
    pc.send(host.encode("HELLO", 0, "tavola", str(host.PROTOCOL_VERSION)))
    hello = pc.until(lambda m: isinstance(m, Hello))
    assert hello == Hello(0, host.PROTOCOL_VERSION, "0.2.0", 10, 10, True)
    snap = pc.until(lambda m: isinstance(m, Snap))
    assert snap == Snap(1, (1, 0, 0, 0, 0, 0, 0, 0, 0, 1 << 9))


def test_a_piece_placed_on_the_matrix_arrives_as_a_change(firmware: FirmwareOnPty,
                                                           pc: Host) -> None:
    pc.send(host.encode("HELLO", 0, "tavola", str(host.PROTOCOL_VERSION)))
    pc.until(lambda m: isinstance(m, Snap))
    firmware.set_switches([(0, 0), (9, 9), (3, 4)])
    assert pc.until(lambda m: isinstance(m, Change)) == Change(2, ((3, 4, True),))
    firmware.set_switches([(9, 9), (3, 4)])
    assert pc.until(lambda m: isinstance(m, Change)) == Change(3, ((0, 0, False),))


def test_a_led_frame_reaches_the_strip(firmware: FirmwareOnPty, pc: Host) -> None:
    pc.send(host.encode("STRIP", 1, "2", "GRB"), host.encode("LED", 2, "0", "FF0000" "000080"),
            host.encode("SHOW", 3), host.encode("SYNC", 4))
    pc.until(lambda m: isinstance(m, Snap) and m.seq > 1)  # after the LED lines
    assert firmware.frames()[-1] == bytes([0, 255, 0, 0, 0, 128])  # GRB order


def test_the_firmware_beats_once_a_second(pc: Host) -> None:
    beat = pc.until(lambda m: isinstance(m, Heartbeat))
    assert isinstance(beat, Heartbeat) and beat.scans > 0
