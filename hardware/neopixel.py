"""NeoPixels (WS2812/SK6812) on a Raspberry Pi, through Adafruit's CircuitPython drivers.

Three drivers, chosen with ``[leds.options] driver``, each imported only when the strip is
built (so the rest of tavola runs anywhere):

- ``spi`` (default): ``neopixel_spi`` on SPI0, data out of GPIO10 (MOSI). No root; needs
  SPI enabled and the user in group ``spi``. Works on every Pi, the Pi 5 included.
- ``pwm``: ``neopixel`` via rpi_ws281x on GPIO18 (PWM). Needs root; Pi 1-4 only.
- ``pi5``: ``neopixel`` via the Pi 5's RP1 PIO (``Adafruit-Blinka-Raspberry-Pi5-Neopixel``),
  on GPIO18 by default. Pi 5 only.

Every frame goes through :class:`Correction` before it is sent:

1. gamma: each channel ``v`` becomes ``255 * (v / 255) ** gamma``, so that the palette's
   mid tones (amber, dim hints) look the same on every strip instead of washed out;
2. brightness: times ``brightness`` (0..1), the cap set in ``[leds] brightness``;
3. current budget: a WS2812 channel draws about ``milliamps_per_channel`` (20 mA) at 255
   and proportionally less below, so a frame draws about
   ``sum over LEDs of (r + g + b) / 255 * milliamps_per_channel``. If that is above
   ``max_current`` (amps, what the 5 V supply can spare for the LEDs), every channel of
   every LED is scaled by ``budget / estimate`` (rounded down), which keeps the colours and
   the frame within budget: 64 LEDs at full white would draw 64 x 3 x 20 = 3840 mA; with
   a 2 A budget each channel is sent at 255 x 2000 / 3840 = 132, about 1988 mA.

The layout gives the LED count and the strip's colour order (``[leds] order``, GRB for
most WS2812B; RGBW strips get their white channel at 0).
"""

from __future__ import annotations

import logging
import math
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from . import BackendUnavailableError
from .base import RGB, Closing, Frame, check_frame, option_number
from .layout import Layout

__all__ = ["DRIVERS", "Correction", "NeoPixelError", "NeoPixelStrip"]

log = logging.getLogger("tavola.leds")

DRIVERS = ("spi", "pwm", "pi5")
SPI_PIN = 10  # SPI0 MOSI: the only pin the SPI driver can use
DEFAULT_PIN = 18
_PI = "pip install 'tavola[pi]'"
_PI5 = "pip install Adafruit-Blinka-Raspberry-Pi5-Neopixel"
_HINTS = {
    "spi": "enable SPI ('sudo raspi-config nonint do_spi 0', or dtparam=spi=on in "
    "/boot/firmware/config.txt, then reboot) and add the user to group spi",
    "pwm": "the PWM driver (rpi_ws281x) needs root and a Raspberry Pi 1-4; driver = \"spi\" "
    "runs without root on any Pi",
    "pi5": f"the pi5 driver needs a Raspberry Pi 5 with current Raspberry Pi OS and {_PI5}",
}


class NeoPixelError(OSError):
    """The strip could not be started or driven; the message says what to change."""


@dataclass(frozen=True)
class Correction:
    """What the strip is sent for a frame: gamma, brightness, then the current budget.

    ``max_current`` is in amps, ``milliamps_per_channel`` what one channel draws at 255.

    >>> c = Correction(brightness=1.0, gamma=1.0, max_current=2.0)
    >>> c.apply(((255, 255, 255),) * 64)[0]       # 3840 mA asked, 2000 mA allowed
    (132, 132, 132)
    >>> c.apply(((255, 0, 0),) * 4)                # 80 mA: untouched
    ((255, 0, 0), (255, 0, 0), (255, 0, 0), (255, 0, 0))
    >>> round(c.milliamps(((255, 255, 255),) * 64))
    3840
    """

    brightness: float = 0.3
    gamma: float = 2.2
    max_current: float = 2.0
    milliamps_per_channel: float = 20.0
    _levels: tuple[float, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        levels = tuple(255.0 * (v / 255.0) ** self.gamma * self.brightness for v in range(256))
        object.__setattr__(self, "_levels", levels)

    @property
    def budget(self) -> float:
        """The LEDs' current budget in milliamps."""
        return self.max_current * 1000.0

    def milliamps(self, sent: Sequence[RGB]) -> float:
        """The estimated current of channel values as sent to the strip, in milliamps."""
        return sum(r + g + b for r, g, b in sent) / 255.0 * self.milliamps_per_channel

    def apply(self, frame: Sequence[RGB]) -> Frame:
        """The channel values to send for ``frame``: within the budget, colours kept."""
        levels = self._levels
        wanted = [(levels[r], levels[g], levels[b]) for r, g, b in frame]
        estimate = sum(r + g + b for r, g, b in wanted) / 255.0 * self.milliamps_per_channel
        if estimate <= self.budget:
            # A channel that was lit stays lit (1 of 255), or dim hues would lose a colour.
            return tuple((_lit(r), _lit(g), _lit(b)) for r, g, b in wanted)
        scale = self.budget / estimate
        scaled = tuple((_lit(r * scale), _lit(g * scale), _lit(b * scale)) for r, g, b in wanted)
        if self.milliamps(scaled) <= self.budget:
            return scaled
        # Keeping dim channels lit tipped it over (hundreds of nearly dark LEDs): round down.
        return tuple((_floor(r * scale), _floor(g * scale), _floor(b * scale))
                     for r, g, b in wanted)


def _lit(value: float) -> int:
    return max(1, math.floor(value)) if value > 0 else 0


def _floor(value: float) -> int:
    return max(0, math.floor(value))


class NeoPixelStrip(Closing):
    """The ``neopixel`` LED backend (see the module docstring); implements ``LedBackend``.

    ``brightness``: 0..1 (from ``[leds] brightness``). ``driver``: ``"spi"``, ``"pwm"`` or
    ``"pi5"``. ``pin``: the data pin, a GPIO number (``18``) or a Blinka ``board`` name
    (``"D18"``); the SPI driver always uses GPIO10. ``max_current``: amps the LEDs may
    draw; ``milliamps_per_channel``: one channel at full; ``gamma``: 1 turns it off.
    """

    def __init__(
        self,
        layout: Layout,
        *,
        brightness: float = 0.3,
        driver: str = "spi",
        pin: int | str | None = None,
        max_current: float = 2.0,
        milliamps_per_channel: float = 20.0,
        gamma: float = 2.2,
    ) -> None:
        self._closed = True  # until the strip is open: close() then has nothing to do
        self.layout = layout
        if driver not in DRIVERS:
            raise ValueError(
                f"[leds.options] driver = {driver!r}: must be one of {', '.join(DRIVERS)} "
                f"(spi: GPIO10, no root; pwm: GPIO18, root, Pi 1-4; pi5: Raspberry Pi 5)"
            )
        self.driver = driver
        self.correction = Correction(
            brightness=option_number("[leds] brightness", brightness, 0.0, 1.0, "e.g. 0.3"),
            gamma=option_number("[leds.options] gamma", gamma, 0.2, 5.0, "2.2; 1 turns it off"),
            max_current=option_number("[leds.options] max_current", max_current, 0.05, 100.0,
                                      "amps the LEDs may draw, e.g. 2.0"),
            milliamps_per_channel=option_number("[leds.options] milliamps_per_channel",
                                                milliamps_per_channel, 1.0, 100.0,
                                                "20 for WS2812B"),
        )
        self.pin = _pin(driver, pin)
        self.color_order = layout.color_order
        self._spi: Any = None
        self._pixels: Any = None
        try:
            self._pixels = self._open()
            self._send((0, 0, 0) for _ in range(self.count))  # fail now, not at the first move
        except BaseException:
            self._release()
            raise
        self._closed = False

    @property
    def count(self) -> int:
        """The number of LEDs on the strip (``[leds] count`` of the layout)."""
        return self.layout.led_count

    @property
    def brightness(self) -> float:
        """The brightness cap, 0..1."""
        return self.correction.brightness

    def show(self, frame: Frame) -> None:
        """Send ``frame`` (one RGB triple per LED), corrected and within the budget."""
        if self._closed:
            raise RuntimeError("NeoPixelStrip is closed")
        check_frame(frame, self.count)
        self._send(self.correction.apply(frame))

    def close(self) -> None:
        """Turn every LED off and release the data line. Idempotent."""
        if self._closed:
            return
        self._closed = True
        try:
            self._pixels.deinit()  # fills with 0, shows, releases the pin
            if self._spi is not None:
                self._spi.deinit()
        except Exception as exc:  # closing must not mask what stopped the daemon
            log.warning("could not turn the LEDs off: %s", exc)

    # ------------------------------------------------------------ internals
    def _release(self) -> None:
        """Free the data line of a strip that failed to start, sending nothing."""
        for thing in (getattr(self._pixels, "pin", None), self._spi):
            if thing is not None:
                try:
                    thing.deinit()
                except Exception as exc:  # the start-up error is the one to report
                    log.debug("releasing the LED data line: %s", exc)

    def _send(self, values: Any) -> None:
        if len(self.color_order) == 4:  # RGBW strip: white channel off, colours as given
            values = [(r, g, b, 0) for r, g, b in values]
        pixels = self._pixels
        pixels[:] = list(values)
        try:
            pixels.show()
        except OverflowError as exc:  # spidev refuses a write longer than its buffer
            raise NeoPixelError(
                f"{self.count} LEDs need a bigger SPI buffer than the kernel's ({exc}): add "
                f"spidev.bufsiz=65536 to /boot/firmware/cmdline.txt and reboot"
            ) from exc
        except (OSError, RuntimeError) as exc:
            raise NeoPixelError(
                f"NeoPixel driver {self.driver!r} could not write to the strip: {exc}; "
                f"{_HINTS[self.driver]}"
            ) from exc

    def _open(self) -> Any:
        # Blinka offers to pip-install drivers at import when run in a terminal; a board
        # daemon must not stop to ask. Missing drivers are reported below instead.
        os.environ.setdefault("BLINKA_SKIP_DEPENDENCY_CHECK", "1")
        bpp = len(self.color_order)
        try:
            import board
            from adafruit_blinka.agnostic import detector
        except Exception as exc:
            raise startup_error(self.driver, exc) from exc
        check_board(self.driver, detector.board)
        if self.driver == "spi":
            if not hasattr(board, "SPI"):
                raise NeoPixelError(
                    f"LED backend 'neopixel': Adafruit Blinka knows no SPI bus on this "
                    f"computer ({board.board_id}); on a Raspberry Pi check that Blinka "
                    f"detects it, elsewhere use [leds] backend = \"sim\" or \"none\"")
            try:
                import neopixel_spi

                self._spi = board.SPI()
                return neopixel_spi.NeoPixel_SPI(
                    self._spi, self.count, bpp=bpp, pixel_order=self.color_order,
                    brightness=1.0, auto_write=False)
            except Exception as exc:
                raise startup_error(self.driver, exc) from exc
        name = f"D{self.pin}" if isinstance(self.pin, int) else str(self.pin)
        if not hasattr(board, name):
            raise ValueError(f"[leds.options] pin = {self.pin!r}: this board has no pin {name}")
        try:
            import neopixel

            return neopixel.NeoPixel(getattr(board, name), self.count, bpp=bpp,
                                     pixel_order=self.color_order, brightness=1.0,
                                     auto_write=False)
        except Exception as exc:
            raise startup_error(self.driver, exc) from exc


def check_board(driver: str, board: Any) -> None:
    """Refuse a driver that cannot work on the Pi Blinka detected (``detector.board``)."""
    if not getattr(board, "any_raspberry_pi", False):
        return  # not a Pi Blinka knows (a test board): nothing to check
    pi5 = bool(getattr(board, "any_raspberry_pi_5_board", False))
    if driver == "pwm" and pi5:
        raise NeoPixelError(
            "[leds.options] driver = \"pwm\" does not work on a Raspberry Pi 5 (rpi_ws281x "
            "cannot drive its RP1 chip): use driver = \"spi\" (GPIO10) or \"pi5\""
        )
    if driver == "pi5" and not pi5:
        raise NeoPixelError(
            "[leds.options] driver = \"pi5\" needs a Raspberry Pi 5: on this Pi use "
            "driver = \"spi\" (GPIO10, no root) or \"pwm\" (GPIO18, root)"
        )


def startup_error(driver: str, exc: BaseException) -> Exception:
    """The error to show when the ``driver`` could not be started because of ``exc``."""
    if isinstance(exc, ImportError):
        missing = getattr(exc, "name", None) or str(exc)
        install = _PI5 if driver == "pi5" or "pi5" in missing else _PI
        return BackendUnavailableError(
            f"LED backend 'neopixel' (driver {driver!r}) needs {missing!r}, which is not "
            f"installed: {install}"
        )
    if isinstance(exc, NotImplementedError):
        return NeoPixelError(
            f"LED backend 'neopixel': Adafruit Blinka does not recognise this computer as a "
            f"Raspberry Pi ({exc}); on another machine use [leds] backend = \"sim\" or \"none\""
        )
    return NeoPixelError(
        f"NeoPixel driver {driver!r} could not start: {exc}; {_HINTS[driver]}"
    )


def _pin(driver: str, pin: Any) -> int | str:
    if pin is not None and (isinstance(pin, bool) or not isinstance(pin, int | str)):
        raise ValueError(f"[leds.options] pin = {pin!r}: a GPIO number such as 18")
    if driver == "spi":
        if pin not in (None, SPI_PIN, f"D{SPI_PIN}", "MOSI"):
            raise ValueError(
                f"[leds.options] pin = {pin!r}: the SPI driver always sends on GPIO{SPI_PIN} "
                f"(MOSI); leave pin out, or use driver = \"pwm\" (or \"pi5\") for GPIO{pin}"
            )
        return SPI_PIN
    return DEFAULT_PIN if pin is None else pin
