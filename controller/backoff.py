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

    def failed(self, pause: float) -> str | None:
        """A try failed, the next in ``pause`` s: what to say after the failure in the log,
        or None when this try is one to keep quiet about.

        >>> retries = QuietRetries(30.0)
        >>> [retries.failed(p) for p in (1, 2, 30, 30)]
        ['trying again in 1 s', 'trying again in 2 s', 'trying again in 30 s', None]
        >>> [said for said in (retries.failed(30) for _ in range(40)) if said]
        ['still trying every 30 s (21 tries so far)', 'still trying every 30 s (41 tries so far)']
        """
        if pause < self.longest:
            self._at_longest = 0
            return f"trying again in {pause:g} s"
        self._at_longest += 1
        n = self._at_longest
        if n == 1:
            return f"trying again in {pause:g} s"
        if (n - 1) % self.every == 0:
            return f"still trying every {self.longest:g} s ({n} tries so far)"
        return None

    def succeeded(self) -> None:
        """The loop got through: the next failure is a first again."""
        self._at_longest = 0
