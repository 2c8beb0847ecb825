"""How a retry loop that keeps failing speaks in the log: each step of its growing pause
once, then, at the longest pause, one try in twenty (ten minutes at 30 s). A camera
unplugged or a broker down for the evening is then a few lines in the log, not 120 an
hour; one that comes back starts the count again. Pure: the caller logs."""

from __future__ import annotations

REMINDER_TRIES = 20


class QuietRetries:
    """The tries of one retry loop whose pause grows to ``longest`` seconds."""

    def __init__(self, longest: float, every: int = REMINDER_TRIES) -> None:
        self.longest = longest
        self.every = every
        self._at_longest = 0  # tries failed in a row with the longest pause after them

    def failed(self, pause: float) -> int | None:
        """A try failed, the next in ``pause`` s. Log it? None: no; else how many tries in
        a row have now failed at the longest pause (0: a step of the backoff, say it so).

        >>> retries = QuietRetries(30.0)
        >>> [retries.failed(p) for p in (1, 2, 4, 30, 30, 30)]
        [0, 0, 0, 1, None, None]
        >>> [n for n in (retries.failed(30) for _ in range(40)) if n]
        [21, 41]
        """
        if pause < self.longest:
            self._at_longest = 0
            return 0
        self._at_longest += 1
        n = self._at_longest
        return n if n == 1 or (n - 1) % self.every == 0 else None

    def succeeded(self) -> None:
        """The loop got through: the next failure is a first again."""
        self._at_longest = 0
