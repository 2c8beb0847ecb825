"""The NeoPixel backend through the real Adafruit drivers, on Blinka's OS-agnostic board.

The lowest level is recorded instead of sent: ``neopixel_write`` for the PWM/Pi 5 driver
(the bytes in strip order), the SPI bus's ``write`` for the SPI driver (each data bit
expanded to one SPI byte, decoded back here).
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import pytest

from tavola.hardware import BackendUnavailableError, load_leds
from tavola.hardware.base import LedBackend
from tavola.hardware.layout import Layout
from tavola.hardware.neopixel import (
    Correction,
    NeoPixelError,
    NeoPixelStrip,
    check_board,
    startup_error,
)

BLINKA = ("board", "busio", "digitalio", "microcontroller", "neopixel", "neopixel_spi",
          "neopixel_write", "adafruit_pixelbuf", "adafruit_bus_device", "adafruit_blinka",
          "adafruit_platformdetect")
WHITE = (255, 255, 255)


def strip_layout(count: int = 64, order: str = "GRB") -> Layout:
    return Layout.loads(
        f'name = "strip"\ngames = []\n[matrix]\nrows = 0\ncolumns = 0\n'
        f'[leds]\ncount = {count}\norder = "{order}"\n'
    )


@pytest.fixture
def blinka(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Blinka on its OS-agnostic test board, freshly imported if it was loaded without."""
    monkeypatch.setenv("BLINKA_OS_AGNOSTIC", "1")
    monkeypatch.setenv("BLINKA_SKIP_DEPENDENCY_CHECK", "1")
    agnostic = sys.modules.get("adafruit_blinka.agnostic")
    if agnostic is not None and getattr(agnostic, "chip_id", None) != "OS_AGNOSTIC":
        for name in list(sys.modules):  # pragma: no cover - only after a foreign import
            if name.partition(".")[0] in BLINKA:
                del sys.modules[name]
    yield


@pytest.fixture
def pwm_wire(blinka: None, monkeypatch: pytest.MonkeyPatch) -> list[bytes]:
    """What the PWM / Pi 5 driver would put on the data line, one entry per show()."""
    import neopixel

    sent: list[bytes] = []
    monkeypatch.setattr(neopixel, "neopixel_write", lambda pin, buf: sent.append(bytes(buf)))
    return sent


@pytest.fixture
def spi_wire(blinka: None, monkeypatch: pytest.MonkeyPatch) -> list[bytes]:
    """The strip bytes the SPI driver sends, decoded from its SPI bit patterns."""
    import board
    import busio
    from adafruit_blinka.microcontroller.generic_agnostic_board import (
        spi,
    )

    sent: list[bytes] = []

    def write(self: Any, buf: bytes, start: int = 0, end: int | None = None) -> None:
        data = bytes(buf[start:end]).strip(b"\x00")  # the reset (latch) gaps at both ends
        bits = [{0b11110000: 1, 0b11000000: 0}[b] for b in data]
        sent.append(bytes(int("".join(map(str, bits[i:i + 8])), 2)
                          for i in range(0, len(bits), 8)))

    monkeypatch.setattr(spi.SPI, "write", write)
    # The agnostic board names its SPI clock SCK, not SCLK: give board.SPI() the real bus.
    monkeypatch.setattr(board, "SPI", lambda: busio.SPI(board.SCK, board.MOSI, board.MISO))
    return sent


def pixels(wire: bytes, bpp: int = 3) -> list[tuple[int, ...]]:
    return [tuple(wire[i:i + bpp]) for i in range(0, len(wire), bpp)]


# ---------------------------------------------------------------------- the correction
def test_full_white_is_scaled_to_the_budget() -> None:
    c = Correction(brightness=1.0, gamma=2.2, max_current=2.0, milliamps_per_channel=20.0)
    frame = (WHITE,) * 64
    assert c.milliamps(frame) == pytest.approx(3840.0)
    sent = c.apply(frame)
    assert set(sent) == {(132, 132, 132)}  # 255 * 2000 / 3840 = 132.8, rounded down
    assert 1980.0 < c.milliamps(sent) <= 2000.0


def test_a_dim_frame_is_only_gamma_and_brightness() -> None:
    c = Correction(brightness=0.3, gamma=2.2, max_current=2.0)
    frame = ((255, 160, 0), (0, 0, 255), (40, 40, 40), (0, 0, 0)) * 16
    sent = c.apply(frame)
    expected = [tuple(max(1, int(255 * (v / 255) ** 2.2 * 0.3)) if v else 0 for v in rgb)
                for rgb in frame]
    assert list(sent) == expected
    assert sent[0] == (76, 27, 0)  # amber keeps its hue under gamma
    assert sent[2] == (1, 1, 1)  # a dim grey stays lit


def test_brightness_alone_and_gamma_off() -> None:
    c = Correction(brightness=0.5, gamma=1.0, max_current=10.0)
    assert c.apply(((200, 100, 2),)) == ((100, 50, 1),)
    assert Correction(brightness=1.0, gamma=1.0).apply(((1, 128, 255),)) == ((1, 128, 255),)


def test_the_cap_keeps_the_colour_and_never_exceeds_the_budget() -> None:
    c = Correction(brightness=1.0, gamma=1.0, max_current=0.5)
    frame = ((255, 128, 0),) * 60 + ((1, 1, 1),) * 300  # many dim LEDs kept lit would tip it
    sent = c.apply(frame)
    assert c.milliamps(sent) <= 500.0
    r, g, b = sent[0]
    assert b == 0 and abs(g / r - 128 / 255) < 0.02


# ---------------------------------------------------------------------- through the driver
def test_pwm_driver_sends_grb_bytes_in_strip_order(pwm_wire: list[bytes]) -> None:
    with NeoPixelStrip(strip_layout(3, "GRB"), driver="pwm", pin="NEOPIXEL", brightness=1.0,
                       gamma=1.0) as strip:
        assert pwm_wire == [bytes(9)]  # started dark
        strip.show(((255, 0, 0), (0, 255, 0), (1, 2, 3)))
    assert pixels(pwm_wire[1]) == [(0, 255, 0), (255, 0, 0), (2, 1, 3)]
    assert pwm_wire[-1] == bytes(9)  # closing turns the LEDs off


def test_pwm_driver_rgb_and_rgbw_orders(pwm_wire: list[bytes]) -> None:
    with NeoPixelStrip(strip_layout(2, "RGB"), driver="pwm", pin="NEOPIXEL", brightness=1.0,
                       gamma=1.0) as strip:
        strip.show(((255, 0, 0), (1, 2, 3)))
    assert pixels(pwm_wire[1]) == [(255, 0, 0), (1, 2, 3)]
    pwm_wire.clear()
    with NeoPixelStrip(strip_layout(2, "GRBW"), driver="pi5", pin="NEOPIXEL", brightness=1.0,
                       gamma=1.0) as strip:
        strip.show(((9, 9, 9), (1, 2, 3)))  # a grey stays on the RGB channels
    assert pixels(pwm_wire[1], bpp=4) == [(9, 9, 9, 0), (2, 1, 3, 0)]


def test_spi_driver_sends_the_same_bytes(spi_wire: list[bytes]) -> None:
    with NeoPixelStrip(strip_layout(3, "GRB"), brightness=1.0, gamma=1.0) as strip:
        assert strip.driver == "spi" and strip.pin == 10
        strip.show(((255, 0, 0), (0, 0, 255), (16, 32, 48)))
    assert spi_wire[0] == bytes(9)
    assert pixels(spi_wire[1]) == [(0, 255, 0), (0, 0, 255), (32, 16, 48)]
    assert spi_wire[-1] == bytes(9)


def test_a_full_white_frame_reaches_the_strip_within_budget(spi_wire: list[bytes]) -> None:
    with NeoPixelStrip(strip_layout(64), brightness=1.0, max_current=2.0) as strip:
        strip.show((WHITE,) * 64)
        sent = pixels(spi_wire[-1])
    assert set(sent) == {(132, 132, 132)}
    assert sum(map(sum, sent)) / 255 * 20.0 <= 2000.0


def test_default_brightness_and_gamma_on_the_wire(pwm_wire: list[bytes]) -> None:
    with NeoPixelStrip(strip_layout(1, "RGB"), driver="pwm", pin="NEOPIXEL") as strip:
        assert strip.brightness == 0.3
        strip.show(((255, 128, 0),))
    assert pixels(pwm_wire[1]) == [(76, 16, 0)]


def test_close_is_idempotent_and_show_after_close_fails(pwm_wire: list[bytes]) -> None:
    strip = NeoPixelStrip(strip_layout(2), driver="pwm", pin="NEOPIXEL")
    strip.close()
    strip.close()
    assert pwm_wire == [bytes(6), bytes(6)]
    with pytest.raises(RuntimeError, match="closed"):
        strip.show(((0, 0, 0),) * 2)


def test_bad_frames_are_refused(pwm_wire: list[bytes]) -> None:
    with NeoPixelStrip(strip_layout(2), driver="pwm", pin="NEOPIXEL") as strip:
        with pytest.raises(ValueError, match="frame has 1 LEDs, the layout has 2"):
            strip.show(((0, 0, 0),))
        with pytest.raises(ValueError, match=r"LED 1: colour must be three integers"):
            strip.show(((0, 0, 0), (0, 0, 256)))


def test_a_write_failure_names_the_driver_and_the_fix(
    blinka: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    import neopixel

    def refuse(pin: Any, buf: Any) -> None:
        raise RuntimeError("ws2811_init failed with code -5 (mmap() failed)")

    monkeypatch.setattr(neopixel, "neopixel_write", refuse)
    with pytest.raises(NeoPixelError, match=r"driver 'pwm' could not write.*needs root"):
        NeoPixelStrip(strip_layout(2), driver="pwm", pin="NEOPIXEL")


# ---------------------------------------------------------------------- start-up errors
@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"driver": "wifi"}, r"driver = 'wifi': must be one of spi, pwm, pi5"),
        ({"brightness": 1.5}, r"\[leds\] brightness = 1.5: must be a number from 0 to 1"),
        ({"max_current": 0}, r"max_current = 0: must be a number"),
        ({"gamma": "2.2"}, r"gamma = '2.2'"),
        ({"pin": 18}, r"pin = 18: the SPI driver always sends on GPIO10"),
        ({"driver": "pwm", "pin": True}, r"pin = True: a GPIO number"),
        ({"driver": "pwm", "pin": 77}, r"pin = 77: this board has no pin D77"),
    ],
)
def test_bad_options_name_the_key(
    pwm_wire: list[bytes], options: dict[str, Any], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        NeoPixelStrip(strip_layout(2), **options)


def test_a_missing_driver_says_what_to_install(
    blinka: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "neopixel_spi", None)
    with pytest.raises(BackendUnavailableError, match=r"needs 'neopixel_spi'.*tavola\[pi\]"):
        NeoPixelStrip(strip_layout(2))
    missing = ModuleNotFoundError("no", name="adafruit_raspberry_pi5_neopixel_write")
    err = startup_error("pi5", missing)
    assert "Adafruit-Blinka-Raspberry-Pi5-Neopixel" in str(err)


def test_a_long_strip_on_a_small_spi_buffer(
    spi_wire: list[bytes], monkeypatch: pytest.MonkeyPatch
) -> None:
    from adafruit_blinka.microcontroller.generic_agnostic_board import spi

    def refuse(self: Any, buf: bytes, start: int = 0, end: int | None = None) -> None:
        raise OverflowError("Argument list size exceeds 4096 bytes.")

    monkeypatch.setattr(spi.SPI, "write", refuse)
    with pytest.raises(NeoPixelError, match=r"200 LEDs need a bigger SPI buffer.*bufsiz"):
        NeoPixelStrip(strip_layout(200))


def test_a_computer_without_spi(blinka: None, monkeypatch: pytest.MonkeyPatch) -> None:
    import board

    monkeypatch.delattr(board, "SPI")
    with pytest.raises(NeoPixelError, match=r"knows no SPI bus on this computer"):
        NeoPixelStrip(strip_layout(2))


def test_not_a_pi_and_spi_not_enabled() -> None:
    err = startup_error("spi", NotImplementedError("Board not supported"))
    assert isinstance(err, NeoPixelError) and 'backend = "sim"' in str(err)
    err = startup_error("spi", FileNotFoundError(2, "No such file", "/dev/spidev0.0"))
    assert "enable SPI" in str(err) and "group spi" in str(err)


def test_driver_must_fit_the_pi() -> None:
    pi4 = SimpleNamespace(any_raspberry_pi=True, any_raspberry_pi_5_board=False)
    pi5 = SimpleNamespace(any_raspberry_pi=True, any_raspberry_pi_5_board=True)
    other = SimpleNamespace(any_raspberry_pi=False)
    for driver in ("spi", "pwm"):
        check_board(driver, pi4)
    for driver in ("spi", "pi5"):
        check_board(driver, pi5)
    for driver in ("spi", "pwm", "pi5"):
        check_board(driver, other)
    with pytest.raises(NeoPixelError, match=r"\"pwm\" does not work on a Raspberry Pi 5"):
        check_board("pwm", pi5)
    with pytest.raises(NeoPixelError, match=r"\"pi5\" needs a Raspberry Pi 5"):
        check_board("pi5", pi4)


# ---------------------------------------------------------------------- contract
def test_registry_and_protocol(pwm_wire: list[bytes]) -> None:
    assert load_leds("neopixel").cls is NeoPixelStrip
    layout = Layout.for_game("morris")
    with NeoPixelStrip(layout, driver="pwm", pin="NEOPIXEL") as strip:
        assert isinstance(strip, LedBackend)
        assert strip.count == layout.led_count == 32
        strip.show(((0, 0, 0),) * 32)
