"""gpiozero pin factories chosen by name, never by silent fallback.

gpiozero reads GPIO through a *pin factory*: ``lgpio`` (the default on current Raspberry Pi
OS and the only one that works on a Pi 5), ``rpigpio`` (the older RPi.GPIO, still common
on 32-bit Pi OS), ``native`` (gpiozero's own pure-Python driver: no library, but no edge
interrupts and not on a Pi 5), ``pigpio`` (needs the pigpiod daemon) and ``mock`` (no
hardware; for tests and benchmarks). tavola picks one from ``[sensor.options]
pin_factory``, else ``$GPIOZERO_PIN_FACTORY``, else lgpio then RPi.GPIO. Unlike gpiozero's
own default it never slips to a driver that was not asked for: an unknown name, or a
factory whose library is missing, stops start-up with one line saying what to install.

lgpio's working directory: when imported, lgpio creates a notification pipe (``.lgd-nfy*``)
in ``$LG_WD`` or, without it, in the current directory, and changes the process's working
directory to it. Run from a read-only directory it fails. The service sets
``LG_WD=/var/lib/tavola``; for a manual run :func:`lgpio_working_directory` points
``LG_WD`` at a writable runtime directory when it is unset, and changes the working
directory back afterwards.

>>> type(open_pin_factory("mock")).__name__
'MockFactory'
>>> open_pin_factory("lgpoi")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
ValueError: [sensor.options] pin_factory = 'lgpoi' is not a GPIO pin factory; choose one of: ...
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator, Mapping, MutableMapping
from dataclasses import dataclass
from typing import Any

from gpiozero.pins.mock import MockFactory, MockPin

from . import BackendUnavailableError

__all__ = ["DEFAULT_FACTORIES", "FACTORIES", "QuietMockPin", "lgpio_working_directory",
           "open_pin_factory"]


@dataclass(frozen=True)
class Factory:
    """A pin factory: the module it needs (None: none) and how a user gets it."""

    module: str | None
    install: str = ""


FACTORIES: Mapping[str, Factory] = {
    "lgpio": Factory("lgpio", "pip install 'tavola[pi]' in tavola's venv (PyPI has wheels for "
                              "64-bit and armv7l Pi OS; Pi Zero/1: piwheels, as Pi OS's pip is "
                              "set up), or sudo apt install python3-lgpio with a venv made "
                              "with --system-site-packages"),
    "rpigpio": Factory("RPi", "pip install 'tavola[rpigpio]' (piwheels has wheels; from PyPI it "
                              "builds: sudo apt install gcc python3-dev), or sudo apt install "
                              "python3-rpi.gpio with a --system-site-packages venv; not on a Pi 5"),
    "native": Factory(None),
    "pigpio": Factory("pigpio", "pip install pigpio and run the pigpiod daemon"),
    "mock": Factory(None),
}
# gpiozero's default order, less its silent fallbacks to pigpio and the native driver: a
# service must say what is missing instead of limping on with another driver.
DEFAULT_FACTORIES = ("lgpio", "rpigpio")


def open_pin_factory(name: str | None = None, env: Mapping[str, str] | None = None) -> Any:
    """A gpiozero pin factory by name (one of :data:`FACTORIES`), or by default
    ``$GPIOZERO_PIN_FACTORY``, else lgpio, else RPi.GPIO.

    Raises ValueError for a name that is no pin factory, and
    :class:`~tavola.hardware.BackendUnavailableError` saying what to install when the
    factory's library is missing or its driver fails to start.
    """
    env = os.environ if env is None else env
    if name is not None and not isinstance(name, str):
        raise ValueError(f"[sensor.options] pin_factory = {name!r}: must be a name, one of: "
                         f"{', '.join(FACTORIES)}")
    where = "[sensor.options] pin_factory"
    chosen = name
    if not chosen and env.get("GPIOZERO_PIN_FACTORY"):
        where, chosen = "GPIOZERO_PIN_FACTORY", env["GPIOZERO_PIN_FACTORY"]
    if chosen:
        key = chosen.strip().lower()
        if key not in FACTORIES:
            raise ValueError(f"{where} = {chosen!r} is not a GPIO pin factory; choose one of: "
                             f"{', '.join(FACTORIES)}")
        try:
            return _load(key)
        except Exception as exc:  # any driver error: say which and what to do
            raise BackendUnavailableError(_cannot_load(key, exc)) from exc
    failures = []
    for key in DEFAULT_FACTORIES:
        try:
            return _load(key)
        except Exception as exc:
            failures.append(f"{key}: {exc}")
    raise BackendUnavailableError(
        f"reed sensor: no GPIO driver could be loaded ({'; '.join(failures)}). On a Raspberry "
        f"Pi install lgpio: {FACTORIES['lgpio'].install}; elsewhere use [sensor] backend = "
        "\"sim\" or [sensor.options] pin_factory = \"mock\""
    )


def _cannot_load(key: str, exc: Exception) -> str:
    factory = FACTORIES[key]
    missing = exc.name if isinstance(exc, ModuleNotFoundError) else None
    if missing and factory.module and missing.split(".")[0] == factory.module:
        return (f"reed sensor: GPIO pin factory {key!r} needs the {factory.module} library "
                f"(module {missing!r} is missing): {factory.install}")
    return (f"reed sensor: GPIO pin factory {key!r} could not start ({exc}): is this a "
            f"Raspberry Pi, and is the driver installed? {factory.install or ''}").rstrip()


def _load(key: str) -> Any:
    if key == "mock":
        return MockFactory(pin_class=QuietMockPin)
    from importlib.metadata import entry_points

    for entry in entry_points(group="gpiozero_pin_factories"):
        if entry.name == key:
            if key == "lgpio":
                with lgpio_working_directory():
                    return entry.load()()
            return entry.load()()
    raise ValueError(f"this gpiozero has no pin factory called {key!r}: pip install -U gpiozero")


@contextlib.contextmanager
def lgpio_working_directory(env: MutableMapping[str, str] | None = None) -> Iterator[None]:
    """Around the first use of lgpio: give it a writable ``$LG_WD`` if none is set, and
    restore the working directory it changes (relative paths elsewhere keep working)."""
    environ: MutableMapping[str, str] = os.environ if env is None else env
    if not environ.get("LG_WD"):
        environ["LG_WD"] = _runtime_directory(environ)
    cwd = os.getcwd()
    try:
        yield
    finally:
        with contextlib.suppress(OSError):
            os.chdir(cwd)


def _runtime_directory(env: Mapping[str, str]) -> str:
    """A directory the user can write: systemd's state or runtime dir, XDG, or /tmp."""
    for key in ("STATE_DIRECTORY", "RUNTIME_DIRECTORY", "XDG_RUNTIME_DIR"):
        folder = env.get(key, "").split(":")[0]
        if folder and os.access(folder, os.W_OK):
            return folder
    return tempfile.gettempdir()


class QuietMockPin(MockPin):  # type: ignore[misc, unused-ignore]  # MockPin is untyped: Any
    """A gpiozero mock pin that keeps no history of its states (gpiozero's records every
    change, which a matrix scanned 500 times a second would turn into a memory leak)."""

    _state: bool

    def _change_state(self, value: bool) -> bool:
        if self._state != value:
            self._state = value
            return True
        return False
