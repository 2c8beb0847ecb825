"""What the LEDs show: one palette, one meaning per colour, the same in every game.

:func:`render` turns a :class:`Scene` (what the session wants shown) into a frame, one RGB
triple per physical LED, with the LED index of every cell and timer LED from the layout.
Pure: blinking is computed from the ``now`` passed in.

Colour meanings (DESIGN.md): legal target white, lifted origin cyan, last move green, hint
blue, mismatch or illegal red (blinking), winning line gold, the move timer a run draining
green -> amber -> red. Two more states use the same colours in a way that stays readable:
an ambiguous move blinks its candidate cells white, and a lost sensor ("board
disconnected") or a journal that cannot be written ("cannot record") shows every cell dim
red, steady, until it is back.

The engine's help (coach.py, opponent.py, board_help.py) keeps to the palette: a hint lights
its turn's cells blue; the computer opponent's turn, to be made on the board, blinks its
origin cyan (a piece to lift), lights its target blue and the pieces it removes red, steady
(an error blinks).
A blunder in ``teaching`` is told by a pattern, not by a colour, so that it reads for the
colour-blind too: the last move's cells flash twice, then pause (:func:`double_flash_on`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Protocol

from tavola.hardware.base import OFF as OFF  # one "LED off" for backends and scenes
from tavola.hardware.base import RGB, Frame

WHITE: RGB = (255, 255, 255)
CYAN: RGB = (0, 255, 255)
GREEN: RGB = (0, 255, 0)
BLUE: RGB = (0, 64, 255)
RED: RGB = (255, 0, 0)
GOLD: RGB = (255, 170, 0)
AMBER: RGB = (255, 110, 0)
DIM_RED: RGB = (48, 0, 0)

BLINK_HZ = 2.0


class LedMap(Protocol):
    """What feedback needs of a layout (``hardware.layout.Layout`` is one)."""

    @property
    def led_count(self) -> int: ...

    @property
    def timer_leds(self) -> tuple[int, ...]: ...

    @property
    def sensed(self) -> tuple[str, ...]: ...

    def led_of(self, cell: str) -> int: ...


@dataclass(frozen=True)
class Strip:
    """A layout's LED wiring as plain lookups: cell -> LED index, the timer run, the count."""

    count: int
    leds: Mapping[str, int]
    timer: tuple[int, ...]

    @classmethod
    def of(cls, layout: LedMap) -> Strip:
        return cls(layout.led_count, {c: layout.led_of(c) for c in layout.sensed},
                   tuple(layout.timer_leds))


@dataclass(frozen=True)
class Scene:
    """What the board should show now; each field a set of cell names."""

    lifted: frozenset[str] = frozenset()
    targets: frozenset[str] = frozenset()
    last_move: frozenset[str] = frozenset()
    hint: frozenset[str] = frozenset()
    error: frozenset[str] = frozenset()
    candidates: frozenset[str] = frozenset()
    winning: frozenset[str] = frozenset()
    computer_from: frozenset[str] = frozenset()  # the computer's turn: lift here (blinks)
    computer_to: frozenset[str] = frozenset()  # ... put a piece here
    computer_removes: frozenset[str] = frozenset()  # ... take these off
    blunder: frozenset[str] = frozenset()  # the last move, a blunder: flashes twice, pauses
    timer: tuple[RGB, ...] = ()  # colours of the timer run, from controller.clock
    disconnected: bool = False
    unrecorded: bool = False  # the journal cannot be written: nothing else is shown


def blink_on(now: float, hz: float = BLINK_HZ) -> bool:
    """The on half of a blink cycle at ``hz``."""
    return (now * hz) % 1.0 < 0.5


def double_flash_on(now: float, period: float = 1.2) -> bool:
    """Two short flashes, then a pause, every ``period`` seconds: the blunder cue."""
    phase = (now % period) / period
    return phase < 0.125 or 0.25 <= phase < 0.375


def cell_colours(scene: Scene, now: float) -> dict[str, RGB]:
    """Cell -> colour, the most important meaning winning where several apply."""
    colours: dict[str, RGB] = {}
    on = blink_on(now)

    def paint(cells: Iterable[str], colour: RGB) -> None:
        for cell in cells:
            colours[cell] = colour

    # Least important first; later layers overwrite.
    paint(scene.last_move, GREEN)
    paint(scene.blunder, GREEN if double_flash_on(now) else OFF)
    paint(scene.hint, BLUE)  # asked for: over the last move (a capture of the piece moved)
    paint(scene.computer_to, BLUE)
    paint(scene.computer_removes, RED)
    paint(scene.computer_from, CYAN if on else OFF)
    paint(scene.targets, WHITE)
    paint(scene.candidates, WHITE if on else OFF)
    paint(scene.lifted, CYAN)
    paint(scene.winning, GOLD)
    paint(scene.error, RED if on else OFF)
    return colours


def render(strip: Strip, scene: Scene, now: float) -> Frame:
    """The frame for ``scene``; cells the strip has no LED for are left out."""
    frame = [OFF] * strip.count
    leds = strip.leds
    if scene.disconnected or scene.unrecorded:
        for led in leds.values():
            frame[led] = DIM_RED
        if scene.unrecorded:
            return tuple(frame)
    for cell, colour in cell_colours(scene, now).items():
        at = leds.get(cell)
        if at is not None:
            frame[at] = colour
    for led, colour in zip(strip.timer, scene.timer, strict=False):
        frame[led] = colour
    return tuple(frame)
