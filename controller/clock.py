"""The move timer and the game clocks: pure arithmetic, with time passed in.

A :class:`Clock` is built from a :class:`ClockSpec` (the ``[clock]`` section of the config)
and, optionally, the game's own per-move limit (:attr:`Game.move_seconds`, tessere: 60 s).
Modes of the game clock:

- ``none``: no game clock (a per-move limit may still run);
- ``move``: only a per-move limit, ``move_seconds``, restarted every turn;
- ``sudden-death``: ``minutes`` per player for the whole game;
- ``fischer``: ``minutes`` per player plus ``increment`` seconds after every move made;
- ``moves-in-time``: ``moves`` moves in ``minutes``; completing them adds ``then_minutes``,
  for ``then_moves`` more moves each (0: the rest of the game). ``increment`` may be added.

A *move* here is a whole turn: :meth:`Clock.switch` ends one. ``move_seconds`` adds a
per-move limit to any mode; with a game limit too, the shorter one counts.

The clock only reports: :meth:`Clock.tick` returns :class:`TimeOut` once per expiry and
:class:`LowTime` once when a timer crosses :data:`WARN_SECONDS`. What a timeout does is the
game's policy, applied by the session through :meth:`Game.time_out`. A player whose game
time ran out stays at 0 (no increments, no new period), so a ``warn`` game goes on without
a second flag.

>>> c = Clock(ClockSpec("fischer", minutes=5, increment=3))
>>> c.start(0, now=100.0)
>>> c.switch(1, now=110.0)
>>> c.remaining(0, now=200.0)
293.0
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any, Literal, get_args

from tavola.feedback import AMBER, GREEN, OFF, RED, blink_on
from tavola.hardware.base import RGB

ClockMode = Literal["none", "move", "sudden-death", "fischer", "moves-in-time"]
CLOCK_MODES: tuple[str, ...] = get_args(ClockMode)
TimerKind = Literal["move", "game"]

WARN_SECONDS = 10.0  # the warning, and the timer LEDs blink, from here down
GREEN_ABOVE = 0.5  # fraction of the time left above which the timer run is green
AMBER_ABOVE = 0.2  # ... amber above this, red below


class ClockSpecError(ValueError):
    """A clock setting that cannot work; ``key`` names the :class:`ClockSpec` field."""

    def __init__(self, key: str, message: str) -> None:
        super().__init__(message)
        self.key = key


@dataclass(frozen=True)
class ClockSpec:
    """How the game is timed: the ``[clock]`` section of the config (see docs/clocks.md).

    Numbers that the mode does not use are ignored. Raises :class:`ClockSpecError` when a
    number the mode needs is missing or out of range.
    """

    mode: ClockMode = "none"
    move_seconds: float = 0.0  # a per-move limit in any mode; 0 = none (mode move needs it)
    minutes: float = 0.0  # per player: the whole game, or the first period
    increment: float = 0.0  # seconds added after each move (fischer, moves-in-time)
    moves: int = 0  # moves-in-time: moves in the first period
    then_minutes: float = 0.0  # moves-in-time: minutes added for each later period
    then_moves: int = 0  # moves-in-time: moves per later period; 0 = the rest of the game

    def __post_init__(self) -> None:
        if self.mode not in CLOCK_MODES:
            raise ClockSpecError(
                "mode", f"mode must be one of {', '.join(CLOCK_MODES)}, got {self.mode!r}"
            )
        for key in ("move_seconds", "minutes", "increment", "then_minutes"):
            value = getattr(self, key)
            if not isinstance(value, (int, float)) or isinstance(value, bool):
                raise ClockSpecError(key, f"{key} must be a number, got {value!r}")
            if not math.isfinite(value) or value < 0:
                raise ClockSpecError(key, f"{key} must be 0 or more, got {value!r}")
        for key in ("moves", "then_moves"):
            value = getattr(self, key)
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise ClockSpecError(key, f"{key} must be a whole number >= 0, got {value!r}")
        if self.mode == "move" and self.move_seconds <= 0:
            raise ClockSpecError(
                "move_seconds", "mode 'move' needs move_seconds > 0 (e.g. move_seconds = 60)"
            )
        if self.mode in ("sudden-death", "fischer", "moves-in-time") and self.minutes <= 0:
            raise ClockSpecError(
                "minutes", f"mode {self.mode!r} needs minutes > 0 (e.g. minutes = 5)"
            )
        if self.mode == "moves-in-time" and self.moves < 1:
            raise ClockSpecError("moves", "mode 'moves-in-time' needs moves >= 1 (e.g. moves = 40)")

    @property
    def has_game_clock(self) -> bool:
        """Whether each player has a time budget for the game (not just a move limit)."""
        return self.mode in ("sudden-death", "fischer", "moves-in-time")

    @property
    def uses_increment(self) -> bool:
        """Whether ``increment`` is added after each move in this mode."""
        return self.mode in ("fischer", "moves-in-time")

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe fields, for the journal header."""
        return asdict(self)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> ClockSpec:
        """The spec written by :meth:`to_dict`."""
        return cls(**dict(d))


@dataclass(frozen=True)
class TimeOut:
    """``player``'s ``kind`` timer ran out (move: this turn's limit; game: their clock)."""

    player: int
    kind: TimerKind


@dataclass(frozen=True)
class LowTime:
    """``player``'s ``kind`` timer came down to :data:`WARN_SECONDS` or less.

    Not called ``Warning``: that is a Python builtin.
    """

    player: int
    kind: TimerKind
    seconds_left: float


ClockEvent = TimeOut | LowTime


@dataclass(frozen=True)
class TimerDisplay:
    """What the timer LEDs show: the most urgent timer of the player whose clock runs."""

    player: int
    kind: TimerKind
    fraction_left: float
    seconds_left: float


class Clock:
    """The clocks of one game; mutable state, but every method takes ``now`` (monotonic s).

    ``players`` is the number of players; ``game_move_seconds`` the game's own per-move
    limit (None: none).
    """

    def __init__(
        self, spec: ClockSpec, players: int = 2, *, game_move_seconds: float | None = None
    ) -> None:
        if players < 1:
            raise ValueError(f"a clock needs at least one player, got {players}")
        self.spec = spec
        self.players = players
        limits = [s for s in (spec.move_seconds, game_move_seconds) if s]
        self.move_limit: float | None = float(min(limits)) if limits else None
        start = spec.minutes * 60.0 if spec.has_game_clock else 0.0
        self._left = [start] * players  # game time left, as of ``_since`` for the runner
        self._budget = [start] * players  # what a full timer run means, for the LEDs
        self._moves = [0] * players  # whole turns completed
        self._flagged = [False] * players
        self._warned = [False] * players
        self._turn: int | None = None  # whose clock runs (or ran, while paused)
        self._running = False
        self._since = 0.0  # when the running time was last accounted
        self._move_left = self.move_limit or 0.0
        self._move_expired = False
        self._move_warned = False
        self._pending: list[ClockEvent] = []  # found by switch, reported by the next tick

    # ----------------------------------------------------------------- state
    @property
    def turn(self) -> int | None:
        """The player whose clock runs (or would, while paused); None before start."""
        return self._turn

    @property
    def running(self) -> bool:
        """Whether time is being counted now."""
        return self._running

    @property
    def active(self) -> bool:
        """Whether there is anything to time at all (a game clock or a move limit)."""
        return self.spec.has_game_clock or self.move_limit is not None

    def moves(self, player: int) -> int:
        """Whole turns ``player`` has completed (what moves-in-time counts)."""
        return self._moves[player]

    def flagged(self, player: int) -> bool:
        """Whether ``player``'s game time has run out."""
        return self._flagged[player]

    def remaining(self, player: int, now: float) -> float | None:
        """``player``'s game time left in seconds (never below 0); None without a game clock."""
        if not self.spec.has_game_clock:
            return None
        left = self._left[player]
        if self._running and player == self._turn:
            left -= self._elapsed(now)
        return max(0.0, left)

    def move_remaining(self, now: float) -> float | None:
        """Seconds left of this turn's move limit (never below 0); None without a limit."""
        if self.move_limit is None or self._turn is None:
            return None
        left = self._move_left - (self._elapsed(now) if self._running else 0.0)
        return max(0.0, left)

    # ----------------------------------------------------------------- transitions
    def start(self, player: int, now: float) -> None:
        """Start ``player``'s clock: the game's first turn (or a fresh start)."""
        self._check_player(player)
        self._turn = player
        self._running = True
        self._since = now
        self._new_turn()

    def switch(self, to_player: int, now: float, *, completed: bool = True) -> None:
        """A turn ended: ``to_player``'s clock runs now.

        ``completed`` counts the turn for the player who made it (increment, moves-in-time);
        pass False for a takeback, which hands the clock back without rewarding anyone.
        An expiry or warning of the mover that no tick saw yet is kept for the next
        :meth:`tick`, so :meth:`tick` stays the one source of events.
        """
        self._check_player(to_player)
        found = self.tick(now)  # (tick replaces self._pending: call it first)
        self._pending.extend(found)
        mover = self._turn
        self._settle(now)
        if mover is not None and completed:
            self._moves[mover] += 1
            if self.spec.has_game_clock and not self._flagged[mover]:
                self._reward(mover)
        self._turn = to_player
        if mover is None:  # switch before start: treat as a start
            self._running = True
            self._since = now
        self._new_turn()

    def pause(self, now: float) -> None:
        """Stop counting (game paused, daemon stopping, game over). Idempotent."""
        self._settle(now)
        self._running = False

    def resume(self, now: float) -> None:
        """Count again from ``now``; the paused time is not charged to anyone."""
        if self._turn is None or self._running:
            return
        self._running = True
        self._since = now

    def add_time(self, player: int, seconds: float, now: float) -> None:
        """Give ``player`` ``seconds`` more game time (less if negative, never below 0):
        the referee's correction. A player given time back is no longer flagged."""
        self._check_player(player)
        if not self.spec.has_game_clock:
            raise ValueError("this game has no game clock to add time to")
        self._settle(now)
        self._left[player] = max(0.0, self._left[player] + seconds)
        if self._left[player] > 0:
            self._flagged[player] = False
            self._warned[player] = False

    def tick(self, now: float) -> list[ClockEvent]:
        """The events due by ``now``: each expiry once, each low-time warning once."""
        player = self._turn
        if player is None:
            return []
        events, self._pending = self._pending, []
        move_left = self.move_remaining(now)
        if move_left is not None:
            if move_left <= 0 and not self._move_expired:
                self._move_expired = self._move_warned = True
                events.append(TimeOut(player, "move"))
            elif 0 < move_left <= WARN_SECONDS < (self.move_limit or 0) and not self._move_warned:
                # (a limit of 10 s or less would warn as soon as the turn starts: noise)
                self._move_warned = True
                events.append(LowTime(player, "move", move_left))
        game_left = self.remaining(player, now)
        if game_left is not None and not self._flagged[player]:
            if game_left <= 0:
                self._flagged[player] = self._warned[player] = True
                events.append(TimeOut(player, "game"))
            elif game_left <= WARN_SECONDS and not self._warned[player]:
                self._warned[player] = True
                events.append(LowTime(player, "game", game_left))
        return events

    def display(self, now: float) -> TimerDisplay | None:
        """The timer to show on the LEDs: whichever of the running player's has less left."""
        player = self._turn
        if player is None:
            return None
        shown: TimerDisplay | None = None
        move_left = self.move_remaining(now)
        if move_left is not None and self.move_limit:
            shown = TimerDisplay(player, "move", move_left / self.move_limit, move_left)
        game_left = self.remaining(player, now)
        if game_left is not None and (shown is None or game_left < shown.seconds_left):
            budget = self._budget[player]
            fraction = min(1.0, game_left / budget) if budget > 0 else 0.0
            shown = TimerDisplay(player, "game", fraction, game_left)
        return shown

    # ----------------------------------------------------------------- records
    def to_dict(self, now: float) -> dict[str, Any]:
        """The whole state as of ``now``, JSON-safe, for the journal's clock checkpoints."""
        self._settle(now)
        return {
            "spec": self.spec.to_dict(),
            "players": self.players,
            "move_limit": self.move_limit,
            "left": list(self._left),
            "budget": list(self._budget),
            "moves": list(self._moves),
            "flagged": list(self._flagged),
            "warned": list(self._warned),
            "turn": self._turn,
            "running": self._running,
            "move_left": self._move_left,
            "move_expired": self._move_expired,
            "move_warned": self._move_warned,
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any], now: float | None = None) -> Clock:
        """The clock saved by :meth:`to_dict`, paused; resumed at ``now`` if it was running.

        The time between the save and ``now`` (the daemon was down) counts for no one.
        Raises ValueError for a state that is not one :meth:`to_dict` wrote.
        """
        try:
            clock = cls._restore(d)
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"unreadable clock state ({type(exc).__name__}: {exc})") from exc
        if now is not None and d["running"]:
            clock.resume(now)
        return clock

    @classmethod
    def _restore(cls, d: Mapping[str, Any]) -> Clock:
        clock = cls(ClockSpec.from_dict(d["spec"]), int(d["players"]))
        clock.move_limit = None if d["move_limit"] is None else float(d["move_limit"])
        n = clock.players
        clock._left = _floats(d["left"], n)
        clock._budget = _floats(d["budget"], n)
        clock._moves = [int(x) for x in d["moves"]]
        clock._flagged = [bool(x) for x in d["flagged"]]
        clock._warned = [bool(x) for x in d["warned"]]
        clock._turn = None if d["turn"] is None else int(d["turn"])
        clock._move_left = float(d["move_left"])
        clock._move_expired = bool(d["move_expired"])
        clock._move_warned = bool(d["move_warned"])
        if len(clock._moves) != n or len(clock._flagged) != n or len(clock._warned) != n:
            raise ValueError(f"clock state does not have {n} players")
        if clock._turn is not None:
            clock._check_player(clock._turn)
        return clock

    # ----------------------------------------------------------------- inside
    def _check_player(self, player: int) -> None:
        if not 0 <= player < self.players:
            raise ValueError(f"player must be 0..{self.players - 1}, got {player}")

    def _elapsed(self, now: float) -> float:
        # Monotonic time never goes back; guard anyway so bad input cannot add time.
        return max(0.0, now - self._since)

    def _settle(self, now: float) -> None:
        """Charge the time since the last settle to the running player and move timer."""
        if self._running and self._turn is not None:
            spent = self._elapsed(now)
            # Never below 0: a player out of time stays at 0, so time the referee adds
            # after a withdrawn loss on time is not eaten by the wait at 0:00.
            self._left[self._turn] = max(0.0, self._left[self._turn] - spent)
            self._move_left -= spent
        self._since = now

    def _new_turn(self) -> None:
        self._move_left = self.move_limit or 0.0
        self._move_expired = False
        self._move_warned = False

    def _reward(self, mover: int) -> None:
        """Increment and period rollover after ``mover`` completed a move in time."""
        spec = self.spec
        if spec.uses_increment:
            self._left[mover] += spec.increment
        if spec.mode == "moves-in-time" and _period_ends(self._moves[mover], spec):
            self._left[mover] += spec.then_minutes * 60.0
            self._budget[mover] = self._left[mover]
        if self._left[mover] > WARN_SECONDS:
            self._warned[mover] = False  # a fresh warning when it runs low again


def _period_ends(moves: int, spec: ClockSpec) -> bool:
    """Whether completing move number ``moves`` ends a moves-in-time period."""
    if moves == spec.moves:
        return True
    later = moves - spec.moves
    return spec.then_moves > 0 and later > 0 and later % spec.then_moves == 0


def _floats(values: Any, n: int) -> list[float]:
    out = [float(x) for x in values]
    if len(out) != n:
        raise ValueError(f"clock state does not have {n} players: {values!r}")
    return out


# --------------------------------------------------------------------- the timer LEDs
def timer_colours(
    fraction_left: float, seconds_left: float, n_leds: int, now: float
) -> tuple[RGB, ...]:
    """The colours of a run of ``n_leds`` timer LEDs, first LED first.

    The lit part is proportional to ``fraction_left`` (rounded up, so any time left shows
    at least one LED); green above half, amber above a fifth, red below. In the last
    :data:`WARN_SECONDS` it is red whatever the fraction, and blinks at 2 Hz (on for the
    first quarter second of every half second of ``now``); at 0 the whole run blinks red.

    >>> timer_colours(0.5, 30.0, 4, now=0.0)
    ((255, 110, 0), (255, 110, 0), (0, 0, 0), (0, 0, 0))
    """
    if n_leds <= 0:
        return ()
    fraction = min(1.0, max(0.0, fraction_left))
    if seconds_left <= 0:
        lit, colour = n_leds, RED  # time is up: the flag, visible across the room
    else:
        # round() first so float noise (0.3 * 10 = 3.0000000000000004) does not light one more
        lit = max(1, math.ceil(round(fraction * n_leds, 9)))
        if fraction > GREEN_ABOVE and seconds_left > WARN_SECONDS:
            colour = GREEN
        elif fraction > AMBER_ABOVE and seconds_left > WARN_SECONDS:
            colour = AMBER
        else:
            colour = RED
    if seconds_left <= WARN_SECONDS and not blink_on(now):
        colour = OFF
    return tuple(colour if i < lit else OFF for i in range(n_leds))
