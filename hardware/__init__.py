"""Hardware backends, chosen by name, imported only when chosen (as gpiozero picks pin factories).

Each backend class takes the board :class:`~hardware.layout.Layout` as its first argument
and its options as keywords; it implements :class:`~hardware.base.SensorBackend` or
:class:`~hardware.base.LedBackend`.

>>> load_sensor("sim").__name__
'SimSensor'
>>> load_leds("none").__name__
'NoLeds'
>>> load_sensor("abacus")
Traceback (most recent call last):
...
ValueError: unknown sensor backend 'abacus'; known sensor backends: camera, reed, serial, sim

A backend whose driver is not installed stops start-up with what to install; there is no
silent fallback to the simulator.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from .base import LedBackend, SensorBackend

__all__ = [
    "LEDS",
    "SENSORS",
    "Backend",
    "BackendUnavailableError",
    "load_leds",
    "load_sensor",
]


@dataclass(frozen=True)
class Backend:
    """Where a backend lives and what it needs: ``target`` is ``"module:Class"``,
    ``needs`` the third-party modules it imports, ``install`` the command that provides them.
    """

    target: str
    needs: tuple[str, ...] = ()
    install: str = ""


_PI = "pip install 'tavola[pi]'"
_VISION = "pip install 'tavola[vision]'"

SENSORS: Mapping[str, Backend] = {
    "sim": Backend("tavola.hardware.sim:SimSensor"),
    "reed": Backend("tavola.hardware.reed_matrix:ReedMatrix", ("gpiozero",), _PI),
    "serial": Backend("tavola.hardware.serial_board:SerialBoard", ("serial",), _PI),
    "camera": Backend("tavola.hardware.camera:CameraSensor", ("cv2", "numpy"), _VISION),
}

LEDS: Mapping[str, Backend] = {
    "sim": Backend("tavola.hardware.sim:SimLeds"),
    "neopixel": Backend("tavola.hardware.neopixel:NeoPixelStrip", ("neopixel", "board"), _PI),
    "serial": Backend("tavola.hardware.serial_board:SerialLeds", ("serial",), _PI),
    "none": Backend("tavola.hardware.sim:NoLeds"),
}

# Import names that differ from the distribution a user installs.
_DISTRIBUTION = {
    "serial": "pyserial",
    "cv2": "opencv-python-headless",
    "neopixel": "adafruit-circuitpython-neopixel",
    "board": "adafruit-blinka",
}


class BackendUnavailableError(ImportError):
    """A known backend that cannot be loaded here: its driver is missing, or it is not
    part of this version of tavola. The message says what to install or choose instead."""


def load_sensor(name: str) -> Callable[..., SensorBackend]:
    """The sensor backend class called ``name`` (``sim``, ``reed``, ``serial``, ``camera``)."""
    cls: Callable[..., SensorBackend] = _load("sensor", SENSORS, name)
    return cls


def load_leds(name: str) -> Callable[..., LedBackend]:
    """The LED backend class called ``name`` (``sim``, ``neopixel``, ``serial``, ``none``)."""
    cls: Callable[..., LedBackend] = _load("LED", LEDS, name)
    return cls


def _load(kind: str, table: Mapping[str, Backend], name: str) -> Any:
    key = name.strip().lower()
    if key not in table:
        known = ", ".join(sorted(table))
        raise ValueError(f"unknown {kind} backend {name!r}; known {kind} backends: {known}")
    backend = table[key]
    module_name, _, class_name = backend.target.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        missing = exc.name or ""
        ours = missing == module_name or module_name.startswith(missing + ".")
        if ours or not missing:
            raise BackendUnavailableError(
                f"{kind} backend {key!r} ({backend.target}) is not part of this version of "
                f"tavola; choose one of: {', '.join(sorted(table))}"
            ) from exc
        top = missing.partition(".")[0]
        package = _DISTRIBUTION.get(top, top)
        how = backend.install or f"pip install {package}"
        raise BackendUnavailableError(
            f"{kind} backend {key!r} needs {package} (module {missing!r} is missing): {how}"
        ) from exc
    try:
        return getattr(module, class_name)
    except AttributeError:
        raise BackendUnavailableError(
            f"{kind} backend {key!r}: module {module_name} has no class {class_name}"
        ) from None
