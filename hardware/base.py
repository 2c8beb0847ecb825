"""The two small protocols every backend implements, and what flows through them.

A *sensor backend* reads the board and yields :class:`Snapshot` objects (cell name ->
reading), already filtered for contact bounce, plus :class:`SensorFault` when it loses the
board (a cable pulled, a camera covered) — the next snapshot means it is back. An *LED
backend* shows :data:`Frame` values: one RGB triple per physical LED, indexed as the layout
says. Neither knows anything about games; the controller does.

Backends are context managers with an idempotent ``close()`` (as in gpiozero).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any, Protocol, Self, runtime_checkable

# What a reading means is the rules' vocabulary, defined once in tavola.games.base (a
# standard-library-only module that imports nothing of ours, so no cycle, no controller).
from tavola.games.base import EMPTY as EMPTY
from tavola.games.base import OCCUPIED as OCCUPIED
from tavola.games.base import Capability as Capability

RGB = tuple[int, int, int]
Frame = tuple[RGB, ...]  # index = physical LED index from the layout
OFF: RGB = (0, 0, 0)


@dataclass(frozen=True)
class Snapshot:
    """One settled reading of the whole board.

    ``cells`` maps every sensed cell to ``""`` (empty), ``"#"`` (occupied, occupancy
    sensors) or a piece token (identity sensors, RULES.md). ``time`` is the monotonic time
    of the reading in seconds. ``uncertain`` names cells an identity sensor could not read
    with confidence (a camera's doubtful cells): inference may prefer a legal position there.
    """

    cells: Mapping[str, str]
    time: float
    uncertain: frozenset[str] = field(default_factory=frozenset)

    def occupancy(self) -> dict[str, str]:
        """The same reading as an occupancy sensor would give it."""
        return {c: (OCCUPIED if v else EMPTY) for c, v in self.cells.items()}


@dataclass(frozen=True)
class SensorFault:
    """The sensor lost the board; ``message`` says what and what to do."""

    message: str
    time: float


SensorEvent = Snapshot | SensorFault


@runtime_checkable
class SensorBackend(Protocol):
    """Reads the board.

    Must provide ``capability``, ``cells`` (the names it senses), ``events()`` (an async
    stream of :data:`SensorEvent`: a snapshot whenever the settled reading changes, and at
    least one at start), ``request_snapshot()`` and ``close()``.
    """

    capability: Capability

    @property
    def cells(self) -> tuple[str, ...]: ...

    def events(self) -> AsyncIterator[SensorEvent]: ...

    def request_snapshot(self) -> None:
        """Report the next full settled reading even if it equals the last one (a resync):
        for when a reading makes no sense to the game. A serial board is asked for its
        whole matrix; the others repeat what they read."""

    def close(self) -> None: ...


@runtime_checkable
class LedBackend(Protocol):
    """Lights the board. ``count`` LEDs; ``show(frame)`` with ``len(frame) == count``."""

    @property
    def count(self) -> int: ...

    def show(self, frame: Frame) -> None: ...

    def close(self) -> None: ...


def check_frame(frame: Frame, count: int) -> None:
    """Raise ValueError unless ``frame`` has ``count`` LEDs, each three integers 0..255.

    Every LED backend checks what it is given, so a bad frame fails the same way on the
    simulator as on the strip.
    """
    if len(frame) != count:
        raise ValueError(f"frame has {len(frame)} LEDs, the layout has {count}")
    for i, rgb in enumerate(frame):
        if len(rgb) != 3 or not all(isinstance(v, int) and 0 <= v <= 255 for v in rgb):
            raise ValueError(f"LED {i}: colour must be three integers 0..255, got {rgb!r}")


def option_number(key: str, value: Any, low: float, high: float, hint: str) -> float:
    """A backend option's number, checked: the ValueError names the option as the user
    writes it (``key``: "[sensor.options] fps"), the range and ``hint`` (what it counts,
    an example), one wording for every backend. NaN is out of every range.

    >>> option_number("[sensor.options] fov", 70, 20, 170, "degrees, e.g. 62")
    70.0
    >>> option_number("[sensor.options] fov", 0, 20, 170, "degrees, e.g. 62")
    Traceback (most recent call last):
    ValueError: [sensor.options] fov = 0: must be a number from 20 to 170 (degrees, e.g. 62)
    """
    if isinstance(value, bool) or not isinstance(value, int | float) or not low <= value <= high:
        raise ValueError(f"{key} = {value!r}: must be a number from {low:g} to {high:g} ({hint})")
    return float(value)


def option_whole(key: str, value: Any, low: int, high: int, hint: str) -> int:
    """A backend option's whole number, checked as :func:`option_number` checks."""
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ValueError(f"{key} = {value!r}: must be a whole number from {low} to {high} "
                         f"({hint})")
    return value


class Closing:
    """Mixin: context-manager support on top of an idempotent ``close()``."""

    def close(self) -> None:  # pragma: no cover - overridden
        pass

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
