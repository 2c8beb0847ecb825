"""What the LEDs show: one palette, one meaning per colour, the same in every game.

:func:`render` turns a :class:`Scene` (what the session wants shown) into a frame, one RGB
triple per physical LED, with the LED index of every cell and timer LED from the layout.
Pure: blinking is computed from the ``now`` passed in.

Colour meanings (DESIGN.md): legal target white, lifted origin cyan, last move green, hint
blue, mismatch or illegal red (blinking), winning line gold, the move timer a run draining
green -> amber -> red. Two more states use the same colours in a way that stays readable:
an ambiguous move blinks its candidate cells white, and a lost sensor ("board
disconnected") shows every cell dim red, steady, until it is back.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol

RGB = tuple[int, int, int]
Frame = tuple[RGB, ...]

OFF: RGB = (0, 0, 0)
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
    """What feedback needs of a layout."""

    @property
    def led_count(self) -> int: ...

    @property
    def timer_leds(self) -> tuple[int, ...]: ...

    def led_of(self, cell: str) -> int | None: ...


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
    timer: tuple[RGB, ...] = ()  # colours of the timer run, from controller.clock
    disconnected: bool = False


def blink_on(now: float, hz: float = BLINK_HZ) -> bool:
    """The on half of a blink cycle at ``hz``."""
    return (now * hz) % 1.0 < 0.5


def cell_colours(scene: Scene, now: float) -> dict[str, RGB]:
    """Cell -> colour, the most important meaning winning where several apply."""
    colours: dict[str, RGB] = {}
    on = blink_on(now)

    def paint(cells: Iterable[str], colour: RGB) -> None:
        for cell in cells:
            colours[cell] = colour

    # Least important first; later layers overwrite.
    paint(scene.hint, BLUE)
    paint(scene.last_move, GREEN)
    paint(scene.targets, WHITE)
    paint(scene.candidates, WHITE if on else OFF)
    paint(scene.lifted, CYAN)
    paint(scene.winning, GOLD)
    paint(scene.error, RED if on else OFF)
    return colours


def render(layout: LedMap, scene: Scene, now: float, cells: Iterable[str] = ()) -> Frame:
    """The frame for ``scene``. ``cells`` lists every cell (for the disconnected state)."""
    frame = [OFF] * layout.led_count
    if scene.disconnected:
        for cell in cells:
            led = layout.led_of(cell)
            if led is not None:
                frame[led] = DIM_RED
    for cell, colour in cell_colours(scene, now).items():
        led = layout.led_of(cell)
        if led is not None:
            frame[led] = colour
    for led, colour in zip(layout.timer_leds, scene.timer, strict=False):
        frame[led] = colour
    return tuple(frame)
