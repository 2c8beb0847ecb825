"""Reed switches in a row/column matrix on the Pi's own GPIO, read through gpiozero.

Wiring (hardware/README.md): one reed switch and one diode per cell; the columns are
outputs, the rows inputs with pull-ups. A scan drives one column at a time to its active
level (low, by default) and reads every row: a row that reads active has a closed switch
at that row and column. The diode of each switch stops current flowing back through other
closed switches, so any number of cells can be closed at once with no ghost cells.

The layout says which cell sits at which matrix row and column; the config names the GPIO
pins (``[sensor.options] row_pins = [...]``, ``col_pins = [...]``, BCM numbers).

How the scan runs: :meth:`ReedMatrix.events` is an ordinary coroutine on the daemon's
event loop that scans synchronously (a few dozen pin reads, well under a millisecond on a
Pi 4 with lgpio) and then sleeps until the next scan is due. It scans fast (``scan_hz``,
500 a second) only while something changes: after ``idle_after`` seconds in which every
scan read the settled state it slows to ``idle_hz`` (25 a second), and the first scan that
reads anything else brings back the fast rate. So an idle board costs a twentieth of the
CPU, and a change that ends a quiet spell is seen at most ``1 / idle_hz`` seconds later
(40 ms), then debounced at full speed. Edge interrupts cannot replace the slow scan: with
every column driven, lifting one of two pieces in a row changes no row's level. No
thread: nothing races the loop, the debounce sees the scans in order, and tests drive the
very same code on virtual time (``clock=`` and ``sleep=``). If the loop is busy for a
while the scans simply wait; the debounce below needs several reads *and* elapsed time, so
a stalled loop can delay a change but never settle a bouncing contact early.
``bench/sensing_reed.py`` measures the scan rates and the latencies.

Debounce (:class:`Debounce`, pure): a cell changes only after it has read its new state in
``min_reads`` consecutive scans whose first and latest are at least ``debounce`` seconds
apart (default 5 ms). gpiozero's ``bounce_time`` is not used: its mock pins ignore it and
the lgpio one filters edges, not a polled matrix.

The GPIO driver is a gpiozero pin factory chosen by name (:mod:`.pin_factory`).

For tests and benchmarks, :class:`MockMatrix` simulates the switches on gpiozero's mock
pins: a row pin reads active while a driven column meets a closed switch on it.

>>> from gpiozero.pins.mock import MockFactory
>>> from hardware.layout import Layout
>>> layout = Layout.shipped("draughts")
>>> factory = MockFactory()
>>> rows, cols = [4, 5, 6, 12, 13, 16, 17, 19], [20, 21, 22, 23]
>>> board = MockMatrix(layout, factory, row_pins=rows, col_pins=cols)
>>> board.set("c1", True)
>>> with ReedMatrix(layout, row_pins=rows, col_pins=cols, pin_factory=factory) as sensor:
...     sorted(sensor.scan())
['c1']
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import (
    AsyncIterator,
    Awaitable,
    Callable,
    Iterable,
    Mapping,
    Sequence,
)
from dataclasses import dataclass
from typing import Any

import gpiozero

from .base import (
    EMPTY,
    OCCUPIED,
    Capability,
    Closing,
    SensorEvent,
    SensorFault,
    Snapshot,
    option_number,
    option_whole,
)
from .layout import Layout
from .pin_factory import QuietMockPin, open_pin_factory

__all__ = ["Debounce", "MockMatrix", "ReedMatrix"]

log = logging.getLogger("tavola.reed")

# Pins a builder can use for the matrix without losing SPI0 (GPIO 7-11, the LED data line),
# PWM on GPIO18, I2C (2, 3), the UART (14, 15) or the HAT EEPROM pins (0, 1).
SUGGESTED_PINS = (4, 5, 6, 12, 13, 16, 17, 19, 20, 21, 22, 23, 24, 25, 26, 27)
STARTUP_LIMIT = 1.0  # seconds: the first snapshot waits at most this for settled readings


# ---------------------------------------------------------------------- the debounce
@dataclass
class _Candidate:
    since: float  # time of the first read of the new state
    reads: int  # consecutive reads of it so far


class Debounce:
    """Per-cell debounce of a polled switch matrix (pure: time is passed in).

    Feed it the set of closed cells of every scan with :meth:`update`; it returns the cells
    whose settled state changed. A cell changes only after reading its new state in
    ``min_reads`` consecutive scans whose first and latest lie at least ``debounce``
    seconds apart; one read of the old state in between starts the count again.

    >>> d = Debounce({"d4": False}, debounce=0.005, min_reads=3)
    >>> [sorted(d.update({"d4"} if t != 0.004 else set(), t)) for t in (0.0, 0.002, 0.004)]
    [[], [], []]
    >>> [sorted(d.update({"d4"}, t)) for t in (0.006, 0.008, 0.010, 0.012)]
    [[], [], [], ['d4']]
    """

    def __init__(
        self, settled: Mapping[str, bool], *, debounce: float = 0.005, min_reads: int = 3
    ) -> None:
        self.debounce = debounce
        self.min_reads = min_reads
        self._closed = {cell for cell, closed in settled.items() if closed}
        self._cells = frozenset(settled)
        self._candidates: dict[str, _Candidate] = {}

    @property
    def closed(self) -> frozenset[str]:
        """The cells whose settled state is closed (occupied)."""
        return frozenset(self._closed)

    @property
    def unsettled(self) -> frozenset[str]:
        """Cells currently reading differently from their settled state."""
        return frozenset(self._candidates)

    def update(self, closed: Iterable[str], now: float) -> frozenset[str]:
        """One scan: ``closed`` is every cell read closed at ``now``; returns what settled."""
        differing = (set(closed) & self._cells) ^ self._closed
        for cell in list(self._candidates):
            if cell not in differing:  # back to its settled state: that was bounce
                del self._candidates[cell]
        changed = set()
        for cell in differing:
            candidate = self._candidates.get(cell)
            if candidate is None:
                candidate = self._candidates[cell] = _Candidate(now, 0)
            candidate.reads += 1
            # (a nanosecond's slack: 0.011 - 0.006 must count as 5 ms)
            held = now - candidate.since >= self.debounce - 1e-9
            if candidate.reads >= self.min_reads and held:
                changed.add(cell)
        for cell in changed:
            del self._candidates[cell]
            self._closed ^= {cell}
        return frozenset(changed)


# ---------------------------------------------------------------------- the backend
class ReedMatrix(Closing):
    """The ``reed`` sensor backend: a diode switch matrix on GPIO (see the module docstring).

    ``row_pins`` / ``col_pins``: GPIO numbers (or gpiozero pin names such as ``"GPIO5"``),
    one per matrix row / column of the layout, rows read, columns driven.
    ``pin_factory``: a gpiozero factory name (``"lgpio"``, ``"rpigpio"``, ``"mock"``...) or
    instance; default: ``$GPIOZERO_PIN_FACTORY``, else lgpio, else RPi.GPIO.
    ``debounce``: seconds a new reading must hold; ``min_reads``: and in how many scans.
    ``scan_hz``: full scans a second while something changes; ``idle_hz``: while nothing
    has for ``idle_after`` seconds. ``active_low``: columns are driven low and rows pulled
    up (diode cathodes towards the columns); False: the other way round. ``retry``: seconds
    between tries after a read failed. ``clock`` / ``sleep``: injectable time for tests.
    Capability: ``occupancy``; tray slots are reported like cells.
    """

    capability: Capability = "occupancy"

    def __init__(
        self,
        layout: Layout,
        *,
        row_pins: Sequence[int | str] | None = None,
        col_pins: Sequence[int | str] | None = None,
        pin_factory: str | Any = None,
        debounce: float = 0.005,
        min_reads: int = 3,
        scan_hz: float = 500.0,
        idle_hz: float = 25.0,
        idle_after: float = 1.0,
        active_low: bool = True,
        retry: float = 1.0,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self._closed = False
        self.layout = layout
        self.row_pins = _pins("row_pins", row_pins, layout.rows, "rows", layout)
        self.col_pins = _pins("col_pins", col_pins, layout.columns, "columns", layout)
        shared = set(map(str, self.row_pins)) & set(map(str, self.col_pins))
        if shared:
            raise ValueError(
                f"[sensor.options] GPIO {sorted(shared)[0]} is in both row_pins and col_pins; "
                f"each matrix line needs its own pin"
            )
        key = "[sensor.options] "
        self.debounce = option_number(key + "debounce", debounce, 0.0, 1.0,
                                      "seconds, e.g. 0.005")
        self.scan_hz = option_number(key + "scan_hz", scan_hz, 10.0, 10_000.0,
                                     "scans a second, e.g. 500")
        self.idle_hz = option_number(key + "idle_hz", idle_hz, 1.0, self.scan_hz,
                                     "scans a second on a quiet board, at most scan_hz, e.g. 25")
        self.idle_after = option_number(key + "idle_after", idle_after, 0.0, 3600.0,
                                        "seconds without a change before scanning slowly, e.g. 1")
        self.retry = option_number(key + "retry", retry, 0.01, 60.0,
                                   "seconds between tries after a fault")
        option_whole(key + "min_reads", min_reads, 1, 1000, "scans that must agree, e.g. 3")
        if not isinstance(active_low, bool):
            raise ValueError(f"[sensor.options] active_low = {active_low!r}: must be true/false")
        self.min_reads = min_reads
        self.active_low = active_low
        self._clock = clock
        self._sleep = sleep
        self._resync = False
        # Per column, the (row index, cell) of every switch fitted on it: only those are read.
        self._switches = [
            [(r, name) for r in range(layout.rows) if (name := layout.cell_at(r, c))]
            for c in range(layout.columns)
        ]
        # Raw levels for the scan loop: the Pin API is about twice as fast as the devices'.
        self._active_level = not active_low
        self._own_factory = pin_factory is None or isinstance(pin_factory, str)
        self._factory: Any = (
            open_pin_factory(pin_factory) if self._own_factory else pin_factory)
        self._rows: list[Any] = []
        self._cols: list[Any] = []
        self._row_lines: list[Any] = []
        try:
            self._open_pins()
        except BaseException:
            self.close()
            raise
        self.debounce_state = Debounce(
            dict.fromkeys(self.cells, False), debounce=self.debounce, min_reads=self.min_reads
        )

    def _open_pins(self) -> None:
        for key, pins, out in (("row_pins", self.row_pins, self._rows),
                               ("col_pins", self.col_pins, self._cols)):
            for pin in pins:
                try:
                    if key == "row_pins":
                        device = gpiozero.DigitalInputDevice(
                            pin, pull_up=self.active_low, pin_factory=self._factory)
                    else:
                        device = gpiozero.DigitalOutputDevice(
                            pin, active_high=not self.active_low, initial_value=False,
                            pin_factory=self._factory)
                except gpiozero.GPIOZeroError as exc:
                    raise ValueError(
                        f"[sensor.options] {key}: GPIO {pin!r} cannot be used: {exc}"
                    ) from exc
                out.append(device)
        self._row_lines = [device.pin for device in self._rows]

    # ------------------------------------------------------------ SensorBackend
    @property
    def cells(self) -> tuple[str, ...]:
        """Every sensed name: the layout's board cells, then its tray slots."""
        return self.layout.sensed

    def scan(self) -> frozenset[str]:
        """Read the whole matrix once: the cells whose switch is closed now (no debounce)."""
        closed = set()
        rows = self._row_lines
        active = self._active_level
        for column, switches in zip(self._cols, self._switches, strict=True):
            pin = column.pin
            pin.state = active
            try:
                for r, name in switches:
                    if rows[r].state == active:
                        closed.add(name)
            finally:
                pin.state = not active
        return frozenset(closed)

    def poll(self, now: float) -> frozenset[str]:
        """Scan once and debounce: the cells whose settled state changed at ``now``."""
        return self.debounce_state.update(self.scan(), now)

    def snapshot(self, now: float) -> Snapshot:
        """The settled reading of every cell as a :class:`Snapshot`."""
        closed = self.debounce_state.closed
        return Snapshot({c: (OCCUPIED if c in closed else EMPTY) for c in self.cells}, now)

    async def events(self) -> AsyncIterator[SensorEvent]:
        """A snapshot once the first readings have settled, then one per settled change;
        a :class:`SensorFault` if reading fails (retried every ``retry`` seconds; the next
        snapshot means it works again). Ends when closed."""
        fast, slow = 1.0 / self.scan_hz, 1.0 / self.idle_hz
        period = fast
        active = self._clock()  # the last scan that read something other than settled
        started: float | None = None  # time of the first scan since start or a fault
        scans = 0
        announced = False
        fault: str | None = None
        due = self._clock()
        while not self._closed:
            now = self._clock()
            try:
                closed = self.scan()
            except Exception as exc:  # a driver error is a fault to report, then retry
                if self._closed:
                    return
                if fault is None:
                    fault = (f"reading the reed matrix failed: {exc}; check the wiring and "
                             f"that no other program uses the GPIO pins (retrying)")
                    log.warning("%s", fault)
                    yield SensorFault(fault, now)
                started = None
                await self._sleep(self.retry)
                due = self._clock()
                continue
            if started is None:  # the first reading is the guess the debounce starts from
                self.debounce_state = Debounce(
                    {c: c in closed for c in self.cells},
                    debounce=self.debounce, min_reads=self.min_reads)
                started, scans, announced = now, 0, False
            changed = self.debounce_state.update(closed, now)
            scans += 1
            if changed or self.debounce_state.unsettled or not announced:
                active = now
                if period != fast:  # a quiet spell ends: scan fast at once
                    period, due = fast, now
            elif period == fast and now - active >= self.idle_after:
                period = slow
            if not announced:
                # Wait out the debounce once, and any bounce the first reading caught, but
                # never longer than a second: a chattering switch is reported when it settles.
                elapsed = now - started
                quiet = not self.debounce_state.unsettled
                if (elapsed >= self.debounce and scans >= self.min_reads and quiet) or (
                    elapsed >= STARTUP_LIMIT
                ):
                    announced, fault, self._resync = True, None, False
                    yield self.snapshot(now)
            elif changed or self._resync:
                self._resync = False
                yield self.snapshot(now)
            due = max(due + period, now)  # after a stall, carry on; no burst of catch-up scans
            await self._sleep(max(0.0, due - self._clock()))

    def request_snapshot(self) -> None:
        """Queue a full settled snapshot at the next scan (a resync)."""
        self._resync = True

    def close(self) -> None:
        """Release the pins (columns left undriven); ``events()`` ends. Idempotent."""
        if self._closed:
            return
        self._closed = True
        for device in (*getattr(self, "_cols", ()), *getattr(self, "_rows", ())):
            with contextlib.suppress(Exception):
                device.close()
        if getattr(self, "_own_factory", False) and getattr(self, "_factory", None) is not None:
            with contextlib.suppress(Exception):
                self._factory.close()


def _pins(key: str, value: Any, want: int, what: str, layout: Layout) -> tuple[int | str, ...]:
    first = 0 if key == "row_pins" else 8  # rows and columns suggested from different pins
    example = ", ".join(map(str, SUGGESTED_PINS[first:first + want])) if want <= 8 else "..."
    fix = f"list one GPIO number per matrix {what[:-1]}, e.g. {key} = [{example}]"
    if value is None:
        raise ValueError(
            f"[sensor.options] {key} is required: layout {layout.name!r} has {want} matrix "
            f"{what}; {fix}"
        )
    if isinstance(value, str | bytes) or not isinstance(value, Sequence):
        raise ValueError(f"[sensor.options] {key} = {value!r}: must be an array; {fix}")
    pins = tuple(value)
    for pin in pins:
        number = isinstance(pin, int) and not isinstance(pin, bool) and pin >= 0
        if not (number or (isinstance(pin, str) and pin.strip())):
            raise ValueError(
                f"[sensor.options] {key}: {pin!r} is not a GPIO number (BCM numbering, "
                f"e.g. 17) or a pin name (e.g. \"GPIO17\")"
            )
    if len(pins) != want:
        raise ValueError(
            f"[sensor.options] {key} has {len(pins)} pins but layout {layout.name!r} has "
            f"{want} matrix {what} ([matrix] {what} = {want}); {fix}"
        )
    seen: set[str] = set()
    for pin in pins:
        if str(pin) in seen:
            raise ValueError(f"[sensor.options] {key} lists GPIO {pin} twice")
        seen.add(str(pin))
    return pins


# ---------------------------------------------------------------------- simulation
class _RowPin(QuietMockPin):
    """A row input of a :class:`MockMatrix`: reads what the driven columns and the closed
    switches make it read."""

    def __init__(self, factory: Any, info: Any, matrix: MockMatrix | None = None,
                 row: int = 0) -> None:
        super().__init__(factory, info)
        self.matrix = matrix
        self.row = row

    def _get_state(self) -> bool:
        if self.matrix is not None and self._function == "input" and self.matrix.pulls(self.row):
            return not self.matrix.active_low
        return bool(self._state)


class MockMatrix:
    """A switch matrix with a diode per switch, simulated on gpiozero mock pins.

    Build it on a ``MockFactory`` *before* the :class:`ReedMatrix` that reads it (it
    installs its own row pins). Switch changes are scheduled in time on ``clock`` (virtual
    time in tests, ``time.monotonic`` in a benchmark): :meth:`set` closes or opens a cell's
    switch, :meth:`bounce` does so with contact bounce. A row reads active while a column
    driven to its active level meets a closed switch on that row; diodes mean no ghosts.
    """

    def __init__(
        self,
        layout: Layout,
        factory: Any,
        *,
        row_pins: Sequence[int | str],
        col_pins: Sequence[int | str],
        active_low: bool = True,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.layout = layout
        self.active_low = active_low
        self.clock = clock
        self._rows = [factory.pin(p, pin_class=_RowPin, matrix=self, row=r)
                      for r, p in enumerate(row_pins)]
        self._cols = [factory.pin(p, pin_class=QuietMockPin) for p in col_pins]
        # cell -> time-ordered (time, closed) changes; the last one at or before now holds.
        self._changes: dict[str, list[tuple[float, bool]]] = {
            c: [(float("-inf"), False)] for c in layout.sensed
        }

    def set(self, cell: str, closed: bool, at: float | None = None) -> None:
        """Close (a piece arrives) or open ``cell``'s switch at time ``at`` (default: now)."""
        when = self.clock() if at is None else at
        changes = self._changes[self.layout.cell(cell).name]
        changes.append((when, closed))
        changes.sort(key=lambda change: change[0])

    def bounce(self, cell: str, closed: bool, at: float | None = None, *, flips: int = 4,
               interval: float = 0.0005) -> float:
        """Change ``cell`` to ``closed`` with contact bounce: it flickers ``flips`` times,
        ``interval`` seconds apart, before it holds. Returns when it starts holding."""
        when = self.clock() if at is None else at
        state = closed
        for i in range(flips):
            self.set(cell, state, when + i * interval)
            state = not state
        end = when + flips * interval
        self.set(cell, closed, end)
        return end

    def closed(self, cell: str, now: float | None = None) -> bool:
        """Whether ``cell``'s switch is closed at ``now`` (default: the clock's now)."""
        t = self.clock() if now is None else now
        state = False
        for when, value in self._changes[cell]:
            if when > t:
                break
            state = value
        return state

    def pulls(self, row: int) -> bool:
        """Whether a driven column meets a closed switch on matrix row ``row`` now."""
        active = not self.active_low
        now = self.clock()
        for c, pin in enumerate(self._cols):
            if pin.function == "output" and bool(pin.state) == active:
                cell = self.layout.cell_at(row, c)
                if cell is not None and self.closed(cell, now):
                    return True
        return False
