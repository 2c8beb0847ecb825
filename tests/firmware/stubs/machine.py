"""Stand-in for MicroPython's ``machine`` module under the unix port, for the tests.

``Pin`` sits on a simulated switch matrix: a closed switch joins two pins (a row and a
column, through its diode), and an input pin with a pull-up reads 0 while a closed switch
joins it to an output driven low. The tests close switches in two ways:

- in the same process: ``press(a, b)`` / ``release(a, b)`` (pin numbers);
- from outside, while main.py runs: the file named by the environment variable
  ``TAVOLA_SWITCHES`` lists the closed switches, one ``ROW_PIN COL_PIN`` pair a line. It is
  read again at most every ``RELOAD_MS`` milliseconds; write it whole (to a temporary name,
  then rename) so that a reading never sees half a file.
"""

import os
import time

RELOAD_MS = 2
CONTROL = os.getenv("TAVOLA_SWITCHES")

# Annotations only: MicroPython parses and ignores them (no __future__ import there).
_level: dict[int, int] = {}  # output pin -> the level it drives
_output: set[int] = set()
_pull_up: set[int] = set()
_closed: set[frozenset[int]] = set()  # frozensets of two pin numbers
_loaded: int | None = None


def press(a: int, b: int) -> None:
    """Close the switch between pins ``a`` and ``b``."""
    _closed.add(frozenset((a, b)))


def release(a: int, b: int) -> None:
    """Open the switch between pins ``a`` and ``b``."""
    _closed.discard(frozenset((a, b)))


def _reload() -> None:
    global _loaded
    if CONTROL is None:
        return
    now: int = time.ticks_ms()  # type: ignore[attr-defined]  # MicroPython's time
    if _loaded is not None and time.ticks_diff(  # type: ignore[attr-defined]
            now, _loaded) < RELOAD_MS:
        return
    _loaded = now
    try:
        with open(CONTROL) as f:
            text = f.read()
    except OSError:
        return  # not written yet: nothing closed
    _closed.clear()
    for line in text.split("\n"):
        words = line.split()
        if len(words) == 2:
            press(int(words[0]), int(words[1]))


def _read(pin: int) -> int:
    if pin in _output:
        return _level.get(pin, 0)
    _reload()
    for switch in _closed:
        if pin in switch:
            for other in switch:
                if other != pin and other in _output and _level.get(other, 0) == 0:
                    return 0
    return 1 if pin in _pull_up else 0


class Pin:
    """A GPIO pin on the simulated matrix (the subset of machine.Pin main.py uses)."""

    IN = 0
    OUT = 1
    PULL_UP = 1
    PULL_DOWN = 2

    def __init__(self, id: int, mode: int = -1, pull: int = -1, value: int | None = None) -> None:
        self.id = id
        self.init(mode, pull, value)

    def init(self, mode: int = -1, pull: int = -1, value: int | None = None) -> None:
        if mode == Pin.OUT:
            _output.add(self.id)
        elif mode == Pin.IN:
            _output.discard(self.id)
        if pull == Pin.PULL_UP:
            _pull_up.add(self.id)
        elif pull != -1:
            _pull_up.discard(self.id)
        if value is not None:
            _level[self.id] = 1 if value else 0

    def value(self, v: int | None = None) -> int | None:
        if v is None:
            return _read(self.id)
        _level[self.id] = 1 if v else 0
        return None

    def __call__(self, v: int | None = None) -> int | None:
        return self.value(v)

    def on(self) -> None:
        self.value(1)

    def off(self) -> None:
        self.value(0)
