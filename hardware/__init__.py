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

The loaders return the class behind one check of the options it is called with, against
the class's own signature (:class:`CheckedBackend`): an unknown or misspelt option, a
required one missing, or a value of the wrong type (by the parameter's annotation) is a
ValueError naming the key and the fix, for every backend alike, before the backend runs:

>>> from tavola.hardware.layout import Layout
>>> load_sensor("sim")(Layout.shipped("morris"), colour="red")
Traceback (most recent call last):
...
ValueError: [sensor.options] unknown option 'colour' for the sim sensor (known: ...)
"""

from __future__ import annotations

import difflib
import importlib
import inspect
import types
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, Literal, TypeVar

from .base import LedBackend, SensorBackend

if typing.TYPE_CHECKING:
    from tavola.games.base import Game

__all__ = [
    "LEDS",
    "SENSORS",
    "Backend",
    "BackendUnavailableError",
    "CheckedBackend",
    "game_options",
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


def load_sensor(name: str) -> CheckedBackend[SensorBackend]:
    """The sensor backend class called ``name`` (``sim``, ``reed``, ``serial``, ``camera``),
    behind the check of its options."""
    cls: Callable[..., SensorBackend] = _load("sensor", SENSORS, name)
    return CheckedBackend(cls, f"the {name.strip().lower()} sensor", "[sensor.options]")


def game_options(backend: str, options: Mapping[str, Any], game: Game[Any]) -> dict[str, Any]:
    """``[sensor] options`` with what the game being played tells the sensor, where the
    config does not say it: the simulator's capability and start position, the camera's
    game, players and start (Quixo's dots, Quinque's tile names). The daemon and the
    selftest build a sensor alike (the selftest's camera asked for ``game`` in the
    config, which the daemon supplies)."""
    given = dict(options)
    if backend == "sim":
        given.setdefault("capability", game.needs)
        given.setdefault("start", game.view("identity"))
    elif backend == "camera":  # it must know which pieces to look for
        said = given.setdefault("game", game.name)
        if said != game.name and _canonical(said) != game.name:  # it read nothing, silently
            raise ValueError(f"[sensor.options] game = {said!r}, but the game played is "
                             f"{game.name}: leave the option out (the camera is told the "
                             f"game being played)")
        given["game"] = game.name  # (an alias, checkers: the camera knows the names)
        given.setdefault("players", game.num_players)
        given.setdefault("start", game.view("identity"))
    return given


def _canonical(name: Any) -> str | None:
    """The registry name of a game name or alias; None for anything else."""
    from tavola.games import game_class

    try:
        return str(game_class(str(name)).name)
    except ValueError:
        return None


def load_leds(name: str) -> CheckedBackend[LedBackend]:
    """The LED backend class called ``name`` (``sim``, ``neopixel``, ``serial``, ``none``),
    behind the check of its options."""
    cls: Callable[..., LedBackend] = _load("LED", LEDS, name)
    return CheckedBackend(cls, f"the {name.strip().lower()} LEDs", "[leds.options]")


B = TypeVar("B")  # the backend protocol: SensorBackend or LedBackend
# Keywords the daemon and the tests pass that are not for a config file: never offered.
_INTERNAL = frozenset({"clock", "sleep", "console", "echo", "sensor", "out", "start"})


class CheckedBackend(Generic[B]):
    """A backend class ``cls`` that checks the options it is called with first.

    ``what`` names the backend for people (``"the reed sensor"``), ``where`` the config
    table its options come from. Calling it with the layout and the options checks every
    option against ``cls``'s keyword parameters and their annotations (see
    :meth:`check`), then builds the backend.
    """

    def __init__(self, cls: Callable[..., B], what: str, where: str) -> None:
        self.cls = cls
        self.__name__: str = getattr(cls, "__name__", what)
        self.what = what
        self.where = where

    def __call__(self, layout: Any, /, **options: Any) -> B:
        """The backend on ``layout`` with ``options``, once they are checked."""
        self.check(options)
        return self.cls(layout, **options)

    @property
    def options(self) -> tuple[str, ...]:
        """The options a config file may set, in the order of the signature."""
        return tuple(name for name in self._keywords() or () if name not in _INTERNAL)

    def check(self, options: Mapping[str, Any]) -> None:
        """Raise ValueError naming the key and the fix for an unknown option, a required
        one missing, or a value whose type the parameter's annotation does not allow."""
        keywords = self._keywords()
        if keywords is None:
            return  # a backend that takes any keyword checks them itself
        known = ", ".join(self.options)
        for key in options:
            if key not in keywords:
                close = difflib.get_close_matches(key, self.options, 1)
                hint = f"; did you mean {close[0]!r}?" if close else ""
                raise ValueError(f"{self.where} unknown option {key!r} for {self.what}{hint} "
                                 f"(known: {known})")
        for key, parameter in keywords.items():
            if parameter.default is inspect.Parameter.empty and key not in options:
                raise ValueError(f"{self.where} {key} is required for {self.what}")
        for key, value in options.items():
            wanted = _describe_mismatch(value, keywords[key].annotation)
            if wanted:
                raise ValueError(f"{self.where} {key} = {value!r}: must be {wanted} "
                                 f"(for {self.what})")

    def _keywords(self) -> dict[str, inspect.Parameter] | None:
        try:  # annotations as types, where this module can resolve them
            signature = inspect.signature(self.cls, eval_str=True)
        except Exception:  # pragma: no cover - a name only imported for type checking
            signature = inspect.signature(self.cls)
        parameters = list(signature.parameters.values())[1:]  # after the layout
        if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters):
            return None
        return {p.name: p for p in parameters if p.kind in (
            inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)}


_SIMPLE: dict[Any, str] = {bool: "true or false", int: "a whole number", float: "a number",
                           str: "a string", type(None): ""}


def _describe_mismatch(value: Any, hint: Any) -> str:
    """What ``value`` should have been for annotation ``hint`` ("" if it fits, or if the
    annotation is not one a config value can be checked against)."""
    if hint is inspect.Parameter.empty or isinstance(hint, str):
        return ""
    origin = typing.get_origin(hint)
    members = typing.get_args(hint) if origin in (typing.Union, types.UnionType) else (hint,)
    wanted = []
    for member in members:
        if typing.get_origin(member) is Literal:
            if value in typing.get_args(member):
                return ""
            wanted.append("one of " + ", ".join(map(repr, typing.get_args(member))))
        elif member in _SIMPLE:
            if _fits(value, member):
                return ""
            if _SIMPLE[member]:
                wanted.append(_SIMPLE[member])
        else:
            return ""  # a type no config value is checked against here: the backend checks
    return " or ".join(wanted)


def _fits(value: Any, kind: type) -> bool:
    if isinstance(value, bool):
        return kind is bool
    if kind is float:
        return isinstance(value, int | float)
    return isinstance(value, kind)


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
