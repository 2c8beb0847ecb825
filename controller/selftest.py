"""``tavola selftest``: find a swapped wire in a minute.

Phase 1, the LEDs: every LED red, then green, then blue (a strip whose colour order is not
the layout's shows red as green), then each LED in turn, white, while the terminal names
what the layout says it lights: a cell, a tray slot, a step of the timer, or nothing. An
LED that lights under the wrong cell is a wrong ``led`` in the layout or a strip laid in
another order.

Phase 2, the sensor: for a while every settled change is named ("d4 occupied",
"d4 empty") and lights that cell's LED (green when a piece arrives, red when it leaves;
the occupied cells glow dim). Put a piece or a magnet on each cell in turn: if e4 lights
when you touch d4, two row or column wires are swapped. A whole matrix row or column that
reads occupied at the start points at a short or at diodes the wrong way round; the cells
never seen changing are listed at the end. A camera ends with what its first clear frame
showed of its setup (markers, tilt, a lamp's reflection, focus: ``tavola vision check``).

The timing is injected (``sleep``), so the tests run it instantly on the simulator.

>>> from hardware.layout import Layout
>>> [str(step) for step in led_plan(Layout.for_game("morris"))[22:26]]
['LED 22  d7', 'LED 23  g7', 'LED 24  timer 1 of 8', 'LED 25  timer 2 of 8']
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TextIO

from tavola.config import Config
from tavola.feedback import BLUE, GREEN, OFF, RED, WHITE
from tavola.hardware.base import (
    RGB,
    Capability,
    Frame,
    LedBackend,
    SensorBackend,
    SensorFault,
    Snapshot,
)
from tavola.hardware.layout import Layout

__all__ = [
    "LedStep",
    "Report",
    "change_text",
    "diagnose",
    "led_plan",
    "listen_frame",
    "run_selftest",
    "selftest",
]

DIM: RGB = (24, 24, 24)  # an occupied cell while listening
COLOUR_CHECK: tuple[tuple[str, RGB], ...] = (("red", RED), ("green", GREEN), ("blue", BLUE))

Sleep = Callable[[float], Awaitable[None]]


@dataclass(frozen=True)
class LedStep:
    """One LED of phase 1 and what the layout says it lights."""

    led: int
    label: str

    def __str__(self) -> str:
        return f"LED {self.led:2d}  {self.label}"


@dataclass(frozen=True)
class Report:
    """What a self test saw: the LEDs lit in turn, the sensor changes ``(cell, text)``,
    the sensor faults, and the sensed cells never seen changing."""

    lit: tuple[LedStep, ...] = ()
    changes: tuple[tuple[str, str], ...] = ()
    faults: tuple[str, ...] = ()
    silent: tuple[str, ...] = ()


# ---------------------------------------------------------------------- pure parts
def led_plan(layout: Layout, count: int | None = None) -> tuple[LedStep, ...]:
    """Every LED in the order phase 1 lights them: the cells and tray slots in layout
    order, then the timer run, then any LED of the strip the layout does not use."""
    total = layout.led_count if count is None else count
    steps = [LedStep(c.led, c.name if not c.in_tray else f"tray {c.name}")
             for c in layout.places]
    run = layout.timer_leds
    steps += [LedStep(led, f"timer {i} of {len(run)}") for i, led in enumerate(run, 1)]
    used = {s.led for s in steps}
    steps += [LedStep(i, "(not in the layout)") for i in range(total) if i not in used]
    return tuple(s for s in steps if s.led < total)


def change_text(cell: str, reading: str, capability: Capability = "occupancy") -> str:
    """How a change is named: ``"d4 occupied"``, ``"d4 empty"``, or the piece (identity)."""
    if not reading:
        return f"{cell} empty"
    return f"{cell} occupied" if capability == "occupancy" or reading == "#" else \
        f"{cell} {reading}"


def diagnose(layout: Layout, occupied: Iterable[str]) -> list[str]:
    """Hints for a first reading: whole matrix rows or columns reading occupied."""
    full = set(occupied)
    if layout.sensed and full >= set(layout.sensed):
        return ["every cell reads occupied: are the diodes the wrong way round, or should "
                "[sensor.options] active_low be the other way?"]
    hints = []
    for axis, count in (("row", layout.rows), ("column", layout.columns)):
        for i in range(count):
            cells = [c.name for c in layout.places if (c.row if axis == "row" else c.col) == i]
            if len(cells) >= 2 and set(cells) <= full:
                hints.append(
                    f"all {len(cells)} cells of matrix {axis} {i} ({', '.join(cells)}) read "
                    f"occupied: a {axis} wire touching ground or another line, or its diodes "
                    f"the wrong way round?"
                )
    return hints


def listen_frame(layout: Layout, count: int, reading: Mapping[str, str],
                 last: tuple[str, bool] | None = None) -> Frame:
    """Phase 2's frame: occupied cells dim, the last changed cell green (a piece arrived)
    or red (it left)."""
    frame = [OFF] * count
    for cell, value in reading.items():
        led = _led(layout, cell)
        if value and led is not None and led < count:
            frame[led] = DIM
    if last is not None:
        led = _led(layout, last[0])
        if led is not None and led < count:
            frame[led] = GREEN if last[1] else RED
    return tuple(frame)


def _led(layout: Layout, cell: str) -> int | None:
    try:
        return layout.led_of(cell)
    except ValueError:  # a camera may name cells the layout does not have
        return None


# ---------------------------------------------------------------------- the test
async def selftest(
    sensor: SensorBackend | None,
    leds: LedBackend | None,
    layout: Layout,
    *,
    out: TextIO,
    step: float = 0.3,
    listen: float = 60.0,
    sleep: Sleep = asyncio.sleep,
    light_each: bool = True,
) -> Report:
    """Run phase 1 on ``leds`` (unless ``light_each`` is False) and phase 2 on ``sensor``
    for ``listen`` seconds (skipped if ``sensor`` is None); ``step`` is how long each LED
    stays lit. ``leds`` may be None for a board without LEDs."""
    lit: tuple[LedStep, ...] = ()
    if leds is not None and light_each:
        lit = await _light_each(leds, layout, out, step, sleep)
    if sensor is None:
        return Report(lit=lit)
    changes, faults, seen = await _listen(sensor, leds, layout, out, listen, sleep)
    silent = tuple(c for c in sensor.cells if c not in seen)
    if changes:
        _say(out, f"{len(changes)} changes on {len(seen)} of {len(sensor.cells)} cells.")
        if silent:
            _say(out, f"never seen changing: {', '.join(silent)} (a switch not fitted, a "
                      f"broken wire, or a diode the wrong way round)")
    else:
        _say(out, "No change seen: is the sensor wired and configured ([sensor] options)?")
    setup = getattr(sensor, "setup", None)  # a camera judges its setup (vision.setup_check)
    if setup is not None:
        _say(out, str(setup))
    return Report(lit=lit, changes=tuple(changes), faults=tuple(faults), silent=silent)


async def _light_each(leds: LedBackend, layout: Layout, out: TextIO, step: float,
                      sleep: Sleep) -> tuple[LedStep, ...]:
    count = leds.count
    _say(out, f"LEDs: {count} on the strip, colour order {layout.color_order} (layout "
              f"{layout.name!r}).")
    for name, colour in COLOUR_CHECK:
        _say(out, f"  all {name}")
        leds.show((colour,) * count)
        await sleep(2 * step)
    _say(out, f"  (if red and green looked swapped, the strip is not {layout.color_order}: "
              f"set [leds] order in the layout file)")
    plan = led_plan(layout, count)
    for s in plan:
        _say(out, f"  {s}")
        leds.show(tuple(WHITE if i == s.led else OFF for i in range(count)))
        await sleep(step)
    leds.show((OFF,) * count)
    return plan


async def _listen(sensor: SensorBackend, leds: LedBackend | None, layout: Layout,
                  out: TextIO, listen: float, sleep: Sleep
                  ) -> tuple[list[tuple[str, str]], list[str], set[str]]:
    changes: list[tuple[str, str]] = []
    faults: list[str] = []
    seen: set[str] = set()
    _say(out, f"Sensor: listening for {listen:g} s. Put a piece (or a magnet) on each cell "
              f"and lift it again; each change is named here and lights its cell (green "
              f"placed, red lifted). Ctrl-C stops.")

    async def consume() -> None:
        before: dict[str, str] | None = None
        async for event in sensor.events():
            if isinstance(event, SensorFault):
                faults.append(event.message)
                _say(out, f"  sensor fault: {event.message}")
                continue
            assert isinstance(event, Snapshot)
            reading = dict(event.cells)
            last = None
            if before is None:
                full = [c for c in sensor.cells if reading.get(c)]
                _say(out, f"  board reads {len(full)} occupied" +
                          (f": {', '.join(full)}" if full else ""))
                if sensor.capability == "occupancy":
                    for hint in diagnose(layout, full):
                        _say(out, f"  check: {hint}")
            else:
                for cell in sensor.cells:
                    if reading.get(cell, "") != before.get(cell, ""):
                        text = change_text(cell, reading.get(cell, ""), sensor.capability)
                        changes.append((cell, text))
                        seen.add(cell)
                        last = (cell, bool(reading.get(cell)))
                        _say(out, f"  {text}")
            before = reading
            if leds is not None:
                leds.show(listen_frame(layout, leds.count, reading, last))

    task = asyncio.ensure_future(consume())
    try:
        await sleep(listen)
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
    if leds is not None:
        leds.show((OFF,) * leds.count)
    return changes, faults, seen


def _say(out: TextIO, line: str) -> None:
    print(line, file=out, flush=True)


# ---------------------------------------------------------------------- the command
def run_selftest(
    config: Config,
    *,
    out: TextIO | None = None,
    console: TextIO | None = None,
    step: float = 0.3,
    listen: float = 60.0,
    leds_phase: bool = True,
    sensor_phase: bool = True,
) -> int:
    """``tavola selftest``: build the layout and the backends ``config`` names, run
    :func:`selftest`, release them.

    ``leds_phase`` / ``sensor_phase``: run phase 1 / phase 2 (the LEDs still answer the
    sensor in phase 2). ``console``: with the simulated sensor, a stream to type sensor
    events into. Returns the exit status: 0; 2 if the board cannot be started (one line on
    stderr, as ``tavola run``); 130 on Ctrl-C. The LEDs are off when it returns.
    """
    from tavola.hardware import game_options, load_leds, load_sensor

    stream = out or sys.stdout
    sensor: SensorBackend | None = None
    leds: LedBackend | None = None
    try:
        game = config.game.new_game()
        file = config.layout.file
        layout = Layout.load(file) if file else Layout.for_game(game.name)
        leds = load_leds(config.leds.backend)(
            layout, brightness=config.leds.brightness, **dict(config.leds.options))
        if sensor_phase:
            options = dict(config.sensor.options)
            if config.sensor.backend == "sim":  # an empty board to put each piece on
                options.setdefault("start", {})
            options = game_options(config.sensor.backend, options, game)
            if config.sensor.backend == "sim":  # a person types the sensor events
                options.setdefault("clock", time.monotonic)
                if console is not None:
                    options.setdefault("console", console)
                    options.setdefault("echo", stream)
            sensor = load_sensor(config.sensor.backend)(layout, **options)
        asyncio.run(selftest(sensor, leds, layout, out=stream, step=step, listen=listen,
                             light_each=leds_phase))
        return 0
    except KeyboardInterrupt:
        return 130
    except (ImportError, ValueError, OSError) as exc:
        print(f"tavola selftest: cannot start: {exc}", file=sys.stderr)
        return 2
    finally:
        for backend in (sensor, leds):  # closing the LEDs turns them off
            if backend is not None:
                with contextlib.suppress(Exception):
                    backend.close()
