"""What the daemon must do after an input: the :class:`Effects` the pure core returns.

The session (controller/session.py) and its helpers (the coach, the computer opponent)
decide; the daemon applies the effects in order: journal entries first (fsynced), then the
LED frame, then the status and log lines, then the engine's searches off its loop.
"""

from __future__ import annotations

from dataclasses import dataclass

from tavola.games import Outcome
from tavola.hardware.base import Frame
from tavola.hints import Search
from tavola.record import Entry


@dataclass(frozen=True)
class Effects:
    """What the daemon must do, in this order."""

    journal: tuple[Entry, ...] = ()  # append and fsync before the frame, then commit
    frame: Frame | None = None  # None: the LEDs stay as they are
    status: str | None = None  # one line: sd_notify STATUS, the terminal
    log: tuple[str, ...] = ()  # human-readable events
    finished: Outcome | None = None  # the game ended with this entry: file the record
    # The reading makes no sense to the game: ask the sensor for a whole fresh reading, in
    # case the board's copy went wrong (a damaged line, a lost change) rather than a hand.
    resync: bool = False
    # Questions for the engine: run them off the loop, hand each answer to on_answer.
    searches: tuple[Search, ...] = ()

    def __add__(self, other: Effects) -> Effects:
        return Effects(
            self.journal + other.journal,
            other.frame if other.frame is not None else self.frame,
            other.status if other.status is not None else self.status,
            self.log + other.log,
            other.finished or self.finished,
            self.resync or other.resync,
            self.searches + other.searches,
        )
