"""Reed-matrix sensing: scan rate on gpiozero's mock pins, and change-to-snapshot latency.

Run: ``.venv/bin/python bench/sensing_reed.py [--changes N]``. An 8x8 board (64 switches)
is simulated by :class:`hardware.reed_matrix.MockMatrix` on a ``MockFactory``; the real
:class:`~hardware.reed_matrix.ReedMatrix` scans it, in real time:

- scan rate: full scans a second with nothing else to do (the cost of one scan), and the
  rate ``events()`` actually keeps at its default ``scan_hz = 500`` on an asyncio loop;
- latency: a switch changes (with 1.5 ms of contact bounce) at a known time; the latency
  is from the first contact to the settled snapshot arriving in the consumer that stands
  for the session. It includes the 5 ms debounce by design. p50 and p99 over N changes;
- idle: the scan rate of a board where nothing changes (``idle_hz``), and the latency of
  the first change after a quiet spell (changes 0.3-0.45 s apart with ``idle_after = 0.2``
  so that each one ends a quiet spell; the default ``idle_after`` is 1 s, which changes
  only when the slow rate starts, not the latency): bounded by ``1 / idle_hz`` + the
  debounce.

Mock pins cost less than lgpio on a Pi (no system call per read) and a Pi's core is
slower than this machine's: read the scan cost as a lower bound, and run this on the Pi
with ``pin_factory`` unchanged for its own figure of the loop overhead.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import time
from dataclasses import dataclass

from gpiozero.pins.mock import MockFactory

from tavola.hardware.base import Snapshot
from tavola.hardware.layout import Layout
from tavola.hardware.reed_matrix import MockMatrix, ReedMatrix

ROWS = [4, 5, 6, 12, 13, 16, 17, 19]
COLS = [20, 21, 22, 23, 24, 25, 26, 27]
BOUNCE_FLIPS = 3
BOUNCE_INTERVAL = 0.0005  # 1.5 ms of bounce before a switch holds


@dataclass(frozen=True)
class ReedFigures:
    """What :func:`measure` found (rates in scans a second, times in milliseconds)."""

    scans_per_second_max: float
    scans_per_second_at_500: float
    scan_ms: float
    latency_p50_ms: float
    latency_p99_ms: float
    changes: int
    scans_per_second_idle: float
    idle_p50_ms: float
    idle_max_ms: float
    idle_changes: int

    def rows(self) -> list[tuple[str, str]]:
        """(label, value) lines for a table."""
        return [
            ("reed scan, 8x8 on mock pins", f"{self.scan_ms:.3f} ms "
                                            f"({self.scans_per_second_max:,.0f} scans/s max)"),
            ("reed scan rate kept by events() at scan_hz = 500",
             f"{self.scans_per_second_at_500:,.0f} scans/s"),
            (f"reed change -> settled snapshot ({self.changes} changes, 5 ms debounce)",
             f"p50 {self.latency_p50_ms:.1f} ms, p99 {self.latency_p99_ms:.1f} ms"),
            ("reed scan rate kept on a quiet board (idle_hz = 25)",
             f"{self.scans_per_second_idle:,.1f} scans/s"),
            (f"reed first change after a quiet spell -> snapshot ({self.idle_changes} changes)",
             f"p50 {self.idle_p50_ms:.1f} ms, max {self.idle_max_ms:.1f} ms "
             f"(bound 40 ms + debounce)"),
        ]


def board_8x8() -> Layout:
    """An 8x8 board: cells a1..h8, row = rank - 1, column = file."""
    cells = "\n".join(
        f"{'abcdefgh'[f]}{r + 1} = {{ row = {r}, col = {f}, led = {r * 8 + f}, x = {f}, "
        f"y = {7 - r} }}" for r in range(8) for f in range(8))
    return Layout.loads(
        'name = "bench-8x8"\ngames = []\n[matrix]\nrows = 8\ncolumns = 8\n'
        f'[leds]\ncount = 64\n[cells]\n{cells}\n', source="bench-8x8")


def rig(layout: Layout, idle_after: float = 1.0) -> tuple[ReedMatrix, MockMatrix]:
    """A mock 8x8 matrix and the backend reading it, both on the real monotonic clock."""
    factory = MockFactory()
    board = MockMatrix(layout, factory, row_pins=ROWS, col_pins=COLS, clock=time.monotonic)
    sensor = ReedMatrix(layout, row_pins=ROWS, col_pins=COLS, pin_factory=factory,
                        idle_after=idle_after)
    return sensor, board


def scan_rate(seconds: float = 1.0) -> float:
    """Full scans a second of an 8x8 matrix, back to back, half its switches closed."""
    layout = board_8x8()
    sensor, board = rig(layout)
    with sensor:
        for cell in layout.cells[::2]:
            board.set(cell, True, at=0.0)
        scans = 0
        start = time.perf_counter()
        while time.perf_counter() - start < seconds:
            sensor.scan()
            scans += 1
        return scans / (time.perf_counter() - start)


async def _kept_rate(seconds: float, settle: float = 0.1, idle_after: float = 3600.0) -> float:
    """Scans a second kept by ``events()`` from ``settle`` seconds after start (past the
    first snapshot; past ``idle_after`` for the rate of a quiet board)."""
    layout = board_8x8()
    sensor, _ = rig(layout, idle_after)
    scans = 0
    real_scan = sensor.scan

    def counted() -> frozenset[str]:
        nonlocal scans
        scans += 1
        return real_scan()

    sensor.scan = counted  # type: ignore[method-assign]

    async def consume() -> None:
        async for _ in sensor.events():
            pass

    task = asyncio.ensure_future(consume())
    await asyncio.sleep(settle)
    scans, start = 0, time.perf_counter()
    await asyncio.sleep(seconds)
    rate = scans / (time.perf_counter() - start)
    sensor.close()
    await task
    return rate


async def _latencies(changes: int, seed: int, gap: tuple[float, float] = (0.02, 0.05),
                     idle_after: float = 1.0) -> list[float]:
    layout = board_8x8()
    sensor, board = rig(layout, idle_after)
    rng = random.Random(seed)
    state = dict.fromkeys(layout.cells, False)
    pending: dict[str, float] = {}  # cell -> time its change began
    plan: list[tuple[float, str]] = []
    at = time.monotonic() + 0.2
    for _ in range(changes):
        at += rng.uniform(*gap)  # well apart: one change settles before the next
        plan.append((at, rng.choice(layout.cells)))
    latencies: list[float] = []

    async def drive() -> None:
        for when, cell in plan:
            # Schedule each change just ahead of time, as a hand would make it.
            await asyncio.sleep(max(0.0, when - 0.01 - time.monotonic()))
            state[cell] = not state[cell]
            pending[cell] = when
            board.bounce(cell, state[cell], at=when, flips=BOUNCE_FLIPS,
                         interval=BOUNCE_INTERVAL)

    async def consume() -> None:
        before: dict[str, str] | None = None
        async for event in sensor.events():
            arrived = time.monotonic()
            if not isinstance(event, Snapshot):
                continue
            if before is not None:
                for cell, value in event.cells.items():
                    if value != before[cell] and cell in pending:
                        latencies.append(arrived - pending.pop(cell))
            before = dict(event.cells)
            if len(latencies) >= changes:
                return

    driver = asyncio.ensure_future(drive())
    try:
        await asyncio.wait_for(consume(), timeout=plan[-1][0] - time.monotonic() + 5.0)
    finally:
        driver.cancel()
        sensor.close()
    return latencies


def measure(changes: int = 200, seed: int = 1) -> ReedFigures:
    """Run the benchmark and return its figures."""
    best = scan_rate()
    kept = asyncio.run(_kept_rate(2.0))
    latencies = sorted(asyncio.run(_latencies(changes, seed)))
    cuts = statistics.quantiles(latencies, n=100, method="inclusive")
    idle_rate = asyncio.run(_kept_rate(2.0, settle=1.2, idle_after=1.0))
    quiet = sorted(asyncio.run(_latencies(max(10, changes // 8), seed, gap=(0.3, 0.45),
                                          idle_after=0.2)))
    return ReedFigures(
        scans_per_second_max=best,
        scans_per_second_at_500=kept,
        scan_ms=1000.0 / best,
        latency_p50_ms=1000.0 * statistics.median(latencies),
        latency_p99_ms=1000.0 * cuts[98],
        changes=len(latencies),
        scans_per_second_idle=idle_rate,
        idle_p50_ms=1000.0 * statistics.median(quiet),
        idle_max_ms=1000.0 * quiet[-1],
        idle_changes=len(quiet),
    )


def main() -> None:
    """Print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--changes", type=int, default=200, help="switch changes to time")
    args = parser.parse_args()
    figures = measure(changes=args.changes)
    width = max(len(label) for label, _ in figures.rows())
    for label, value in figures.rows():
        print(f"{label:<{width}}  {value}")


if __name__ == "__main__":
    main()
