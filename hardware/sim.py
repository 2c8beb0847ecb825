"""Simulated hardware: a sensor fed by raw physical events, and LEDs that record and draw.

:class:`SimSensor` keeps the true physical board (cell -> piece token) and a raw contact
signal per cell. Raw events (a lift, a place, contact bounce, a piece slid across
neighbouring cells, several pieces knocked at once, a burst of noise) change the raw
signals at scheduled times; the sensor's own debounce, the same rule the reed backend uses,
turns them into settled snapshots: a cell changes only after it has read the same for
``debounce`` seconds. Events come from a script file, from the test API or from a person
typing, all in one small command language (docs/simulator.md)::

    lift d2          place d4 W        bounce d4        slide d2 d3 d4 0.01
    knock c3 d4 e5   noise 8           wait 0.5         d2-d4   d2   xg7   c3xe5   RY@c3

The language and the planner live in :mod:`hardware.sim_events`; this module keeps the
time, the debounce and the event stream.

Time is virtual by default: the test advances it (:meth:`SimSensor.advance`,
:meth:`SimSensor.settle`) and nothing sleeps. Pass ``clock=time.monotonic`` to run in real
time, as the daemon does when a person types commands.

>>> from hardware.layout import Layout
>>> sensor = SimSensor(Layout.for_game("morris"), start={"d2": "W"})
>>> sensor.command("bounce d2")     # lifted, with contact bounce
>>> sensor.settle()
>>> [dict(s.cells)["d2"] for s in sensor.drain()]   # start, then one change
['#', '']
"""

from __future__ import annotations

import asyncio
import contextlib
import heapq
import math
import os
import re
import sys
import time
from collections import deque
from collections.abc import AsyncIterator, Callable, Collection, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from .base import (
    EMPTY,
    OFF,
    RGB,
    Capability,
    Closing,
    Frame,
    SensorEvent,
    SensorFault,
    Snapshot,
    check_frame,
    option_number,
)
from .layout import Layout
from .sim_events import (
    CABLE,
    LANGUAGE,
    Command,
    Physics,
    Plan,
    SimCommandError,
    locate,
    parse_command,
    parse_script,
)

__all__ = [
    "LANGUAGE",
    "Command",
    "NoLeds",
    "ShownFrame",
    "SimCommandError",
    "SimLeds",
    "SimSensor",
    "parse_command",
    "parse_script",
]  # the language's names are re-exported for convenience


# ---------------------------------------------------------------------- the sensor
GRID_CELL = re.compile(r"-?\d+,-?\d+")  # "x,y": a cell of an unbounded grid (Quinque)


class _OpenGrid(Collection[str]):
    """The cell names of a layout without cells: those seen so far, and any "x,y"."""

    def __init__(self, known: Mapping[str, str]) -> None:
        self.known = known

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and (name in self.known or bool(GRID_CELL.fullmatch(name)))

    def __iter__(self) -> Iterator[str]:
        return iter(self.known)

    def __len__(self) -> int:
        return len(self.known)


class SimSensor(Closing):
    """A simulated sensor (see the module docstring); implements ``SensorBackend``.

    ``capability`` is ``"occupancy"`` (readings ``"#"``/``""``) or ``"identity"`` (the piece
    token). ``start`` is the physical board at start (cell -> token; default: empty board,
    tray slots holding their pieces). ``clock``: None for virtual time (tests), or a
    monotonic clock such as ``time.monotonic`` for real time. A layout without cells (the
    camera-only ``timer-only`` of Quinque) is an open table: any cell named ``x,y`` exists
    once a command or ``start`` names it. ``script``: a command file
    played from the start. ``console``: a stream a person types commands into (real time;
    replies and errors go to ``echo``). ``slide_dwell``: seconds a slid piece spends on each
    cell it passes over; ``hand_time``: seconds between lifting and placing in a move
    shortcut; ``seed``: for the noise.
    """

    def __init__(
        self,
        layout: Layout,
        capability: Capability = "occupancy",
        debounce: float = 0.005,
        clock: Callable[[], float] | None = None,
        *,
        start: Mapping[str, str] | None = None,
        script: str | os.PathLike[str] | None = None,
        console: TextIO | None = None,
        echo: TextIO | None = None,
        slide_dwell: float = 0.002,
        hand_time: float = 0.2,
        seed: int = 0,
    ) -> None:
        if capability not in ("occupancy", "identity"):
            raise ValueError(f"capability must be 'occupancy' or 'identity', got {capability!r}")
        option_number("[sensor.options] debounce", debounce, 0, 1, "seconds, e.g. 0.02")
        self.layout = layout
        self.capability: Capability = capability
        self.debounce = float(debounce)
        self.physics = Physics(
            capability, self.debounce, layout.sensed, layout.tray, slide_dwell, hand_time, seed
        )
        self._clock = clock
        self._virtual = 0.0
        board = {c: (layout.cell(c).piece or EMPTY) for c in layout.sensed}
        self._open = not layout.sensed
        for cell, token in (start or {}).items():
            if self._open and GRID_CELL.fullmatch(cell):
                board.setdefault(cell, EMPTY)
            if cell not in board:
                raise ValueError(f"start position: layout {layout.name!r} has no cell {cell!r}")
            board[cell] = token
        self._plan = Plan(self.physics, board, cursor=self.now)
        self._raw = {c: self.reading(t) for c, t in board.items()}
        self._settled = dict(self._raw)
        self._since = dict.fromkeys(board, self.now)
        self._unsettled: set[str] = set()
        self._pending: list[tuple[float, int, str, str]] = []
        self._seq = 0
        self._queue: deque[SensorEvent] = deque()
        self._wake = asyncio.Event()
        self._plugged = True
        self._closed = False
        self._console = console
        self._echo = echo
        self._reader: tuple[asyncio.AbstractEventLoop, int] | None = None
        self._typed = ""  # a partly typed console line
        self._emit(self.now)
        if script is not None:
            self.load_script(script)

    # ------------------------------------------------------------ SensorBackend
    @property
    def cells(self) -> tuple[str, ...]:
        """Every sensed name: the layout's board cells, then its tray slots (on an open
        table: the cells named so far)."""
        return tuple(self._raw) if self._open else self.layout.sensed

    def _names(self) -> Collection[str]:
        """The names a command may use."""
        return _OpenGrid(self._raw) if self._open else self.layout.sensed

    async def events(self) -> AsyncIterator[SensorEvent]:
        """Snapshots (one at start, then one per settled change) and faults, until closed."""
        self._attach_console()
        try:
            while True:
                if self._clock is not None:
                    self._run_until(self.now)
                while self._queue:
                    yield self._queue.popleft()
                if self._closed:
                    return
                self._wake.clear()
                timeout = None
                if self._clock is not None and (due := self._next_due()) is not None:
                    timeout = max(0.0, due - self.now)
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._wake.wait(), timeout)
        finally:
            self._detach_console()

    def request_snapshot(self) -> None:
        """Queue a full reading of the settled board now (a resync); none while unplugged."""
        self._emit(self.now)

    def close(self) -> None:
        """Stop: ``events()`` yields what is already queued, then ends. Idempotent."""
        self._closed = True
        self._detach_console()
        self._wake.set()

    # ------------------------------------------------------------ test controls
    @property
    def now(self) -> float:
        """The sensor's time: virtual, or the given clock's."""
        return self._clock() if self._clock is not None else self._virtual

    @property
    def board(self) -> dict[str, str]:
        """The physical board (cell -> token, "" empty) once every scheduled command ran."""
        return dict(self._plan.board)

    @property
    def hand(self) -> tuple[str, ...]:
        """Pieces lifted or knocked off and not put back, the last lifted last."""
        return tuple(self._plan.hand)

    def reading(self, token: str) -> str:
        """What this sensor reads for a cell holding ``token`` ("" when empty)."""
        return self.physics.reading(token)

    def settled(self) -> dict[str, str]:
        """The current settled reading of every cell."""
        return dict(self._settled)

    def command(self, text: str) -> None:
        """Schedule one line of the command language; :class:`SimCommandError` if bad."""
        parsed = parse_command(text, self._names())
        if parsed is not None:
            self._schedule([parsed])

    def run_script(self, text: str, source: str = "<script>") -> None:
        """Schedule a whole script; on any error nothing is scheduled."""
        self._schedule(parse_script(text, self._names(), source))

    def load_script(self, path: str | os.PathLike[str]) -> None:
        """Schedule the script in file ``path``."""
        p = Path(path)
        try:
            text = p.read_text(encoding="utf-8")
        except OSError as exc:
            raise SimCommandError(f"cannot read script {p}: {exc.strerror or exc}") from exc
        self.run_script(text, str(p))

    def type_line(self, text: str) -> str:
        """Run a line a person typed; return the reply ("" if none), never raise."""
        try:
            parsed = parse_command(text, self._names())
            if parsed is None:
                return ""
            if parsed.verb == "help":
                return LANGUAGE
            self._schedule([parsed])
        except SimCommandError as exc:
            return f"error: {exc}"
        return ""

    def lift(self, cell: str) -> None:
        """Take the piece off ``cell``."""
        self._schedule([Command("lift", (cell,), text=f"lift {cell}")])

    def place(self, cell: str, token: str | None = None) -> None:
        """Put ``token`` (default: the last piece lifted) on ``cell``."""
        self._schedule([Command("place", (cell,), token, text=f"place {cell}")])

    def bounce(self, cell: str, token: str | None = None) -> None:
        """Lift or place on ``cell`` with contact bounce."""
        self._schedule([Command("bounce", (cell,), token, text=f"bounce {cell}")])

    def slide(self, *cells: str, dwell: float | None = None) -> None:
        """Slide a piece from the first cell over the middle ones to the last."""
        if len(cells) < 2:
            raise SimCommandError("slide needs a start and an end cell")
        self._schedule([Command("slide", cells, number=dwell, text="slide " + " ".join(cells))])

    def knock(self, *cells: str) -> None:
        """Change several cells at once: their pieces fall off, or land on the empty ones."""
        self._schedule([Command("knock", cells, text="knock " + " ".join(cells))])

    def noise(self, count: int = 5, length: float | None = None) -> None:
        """``count`` random glitches of ``length`` seconds (default half the debounce)."""
        self._schedule([Command("noise", count=count, number=length, text="noise")])

    def wait(self, seconds: float) -> None:
        """Start the next command ``seconds`` later."""
        self._schedule([Command("wait", number=seconds, text=f"wait {seconds}")])

    def advance(self, seconds: float) -> None:
        """Let virtual time pass: raw changes happen, settled changes queue snapshots."""
        if self._clock is not None:
            raise RuntimeError("advance() needs virtual time; this sensor runs on a real clock")
        self._virtual += seconds
        self._run_until(self._virtual)
        self._wake.set()

    def settle(self) -> None:
        """Advance virtual time until every scheduled change has happened and settled."""
        last = max([self._plan.cursor, self.now, *(p[0] for p in self._pending)])
        self.advance(last + self.debounce - self.now)

    def drain(self) -> list[SensorEvent]:
        """Take every queued event (the synchronous twin of ``events()``, for tests)."""
        out = list(self._queue)
        self._queue.clear()
        return out

    def unplug(self) -> None:
        """Simulate a pulled cable now: a fault, then no snapshots until :meth:`replug`."""
        self._cable(False, self.now)

    def replug(self) -> None:
        """Plug back in now: a full snapshot of the board as it now is."""
        self._cable(True, self.now)

    # ------------------------------------------------------------ internals
    def _schedule(self, commands: list[Command]) -> None:
        plan = self._plan.copy()
        plan.cursor = max(plan.cursor, self.now)
        for c in commands:
            try:
                for cell in c.cells:
                    if cell not in self._raw and self._open and GRID_CELL.fullmatch(cell):
                        self._grow(cell, plan)
                    if cell not in self._raw:
                        raise SimCommandError(f"unknown cell {cell!r}")
                if c.verb == "noise" and not self.physics.cells:
                    raise SimCommandError("noise needs a layout with cells")
                plan.run(c)
            except SimCommandError as exc:
                raise SimCommandError(locate(c.where, c.text, str(exc))) from None
        for at, cell, value in plan.out:
            heapq.heappush(self._pending, (at, self._seq, cell, value))
            self._seq += 1
        plan.out = []
        self._plan = plan
        self._wake.set()

    def _grow(self, cell: str, plan: Plan) -> None:
        """An open table: a cell a command names starts to exist, empty."""
        for board in (self._raw, self._settled, plan.board, self._plan.board):
            board[cell] = EMPTY
        self._since[cell] = self.now

    def _cable(self, plugged: bool, at: float) -> None:
        if plugged == self._plugged:
            return
        self._plugged = plugged
        if plugged:
            self._emit(at)
        else:
            message = "simulated sensor unplugged: plug it back in (replug)"
            self._queue.append(SensorFault(message, at))
            self._wake.set()

    def _next_due(self) -> float | None:
        dues = [self._since[c] + self.debounce for c in self._unsettled]
        if self._pending:
            dues.append(self._pending[0][0])
        return min(dues, default=None)

    def _run_until(self, t: float) -> None:
        while True:
            settle_at = min(
                (self._since[c] + self.debounce for c in self._unsettled), default=math.inf
            )
            raw_at = self._pending[0][0] if self._pending else math.inf
            if min(settle_at, raw_at) > t:
                return
            if settle_at <= raw_at:  # held for exactly the debounce counts as settled
                due = [c for c in self._unsettled if self._since[c] + self.debounce == settle_at]
                for c in due:
                    self._settled[c] = self._raw[c]
                    self._unsettled.discard(c)
                self._emit(settle_at)
            else:
                at, _, cell, value = heapq.heappop(self._pending)
                if cell == CABLE:
                    self._cable(value == "replug", at)
                elif value != self._raw[cell]:
                    self._raw[cell], self._since[cell] = value, at
                    if value == self._settled[cell]:
                        self._unsettled.discard(cell)
                    else:
                        self._unsettled.add(cell)

    def _emit(self, at: float) -> None:
        if self._plugged:
            self._queue.append(Snapshot(dict(self._settled), at))
            self._wake.set()

    def _attach_console(self) -> None:
        if self._console is None or self._reader is not None:
            return
        loop = asyncio.get_running_loop()
        fd = self._console.fileno()
        loop.add_reader(fd, self._read_console)
        self._reader = (loop, fd)

    def _detach_console(self) -> None:
        if self._reader is not None:
            loop, fd = self._reader
            self._reader = None
            if not loop.is_closed():
                loop.remove_reader(fd)

    def _read_console(self) -> None:
        # Read the descriptor directly: a buffered readline() would keep a second typed
        # line in its buffer where the event loop cannot see it.
        assert self._reader is not None
        chunk = os.read(self._reader[1], 4096)
        if not chunk:  # end of input: stop listening, keep the board
            self._detach_console()
            return
        self._typed += chunk.decode("utf-8", errors="replace")
        *lines, self._typed = self._typed.split("\n")
        for line in lines:
            reply = self.type_line(line)
            if reply:
                print(reply, file=self._echo or sys.stderr, flush=True)


# ---------------------------------------------------------------------- LEDs
KEEP_FRAMES = 1000  # the latest frames SimLeds keeps: about 0.75 MiB


@dataclass(frozen=True)
class ShownFrame:
    """A frame an LED backend was asked to show, and when."""

    time: float
    frame: Frame


class SimLeds(Closing):
    """Simulated LEDs: records the frames shown (:attr:`frames`) and draws the board in a
    terminal.

    ``sensor``: a :class:`SimSensor` whose physical board :meth:`render` shows the pieces
    of. ``out``: a stream to draw each new frame on (None: record only). ``clock`` stamps
    the frames. ``keep_frames``: how many of the latest frames :attr:`frames` keeps (a
    daemon running all evening must not grow without bound: about 0.75 KiB a frame).
    ``brightness`` is accepted like every LED backend's and only recorded: frames and
    drawings keep the colours as given.
    """

    def __init__(
        self,
        layout: Layout,
        *,
        sensor: SimSensor | None = None,
        out: TextIO | None = None,
        clock: Callable[[], float] = time.monotonic,
        brightness: float = 1.0,
        keep_frames: int = KEEP_FRAMES,
    ) -> None:
        if isinstance(keep_frames, bool) or not isinstance(keep_frames, int) or keep_frames < 1:
            raise ValueError(f"[leds.options] keep_frames = {keep_frames!r}: must be a whole "
                             f"number >= 1 (e.g. {KEEP_FRAMES})")
        self.layout = layout
        self.brightness = brightness
        self.sensor = sensor
        self.out = out
        self.clock = clock
        self.frames: deque[ShownFrame] = deque(maxlen=keep_frames)
        self.closed = False

    @property
    def count(self) -> int:
        """The number of LEDs on the strip."""
        return self.layout.led_count

    def show(self, frame: Frame) -> None:
        """Record ``frame`` (and draw it on ``out`` if it differs from the last one)."""
        if self.closed:
            raise RuntimeError("SimLeds is closed")
        check_frame(frame, self.count)
        changed = not self.frames or self.frames[-1].frame != frame
        self.frames.append(ShownFrame(self.clock(), tuple(frame)))
        if self.out is not None and changed:
            print(self.render(frame), file=self.out, flush=True)

    def close(self) -> None:
        """Stop accepting frames. Idempotent."""
        self.closed = True

    def colour_of(self, cell: str, frame: Frame | None = None) -> RGB:
        """The colour of ``cell``'s LED in ``frame`` (default: the last frame shown)."""
        return self._frame(frame)[self.layout.led_of(cell)]

    def timer_colours(self, frame: Frame | None = None) -> tuple[RGB, ...]:
        """The timer run's colours in ``frame`` (default: the last frame shown), in order."""
        shown = self._frame(frame)
        return tuple(shown[i] for i in self.layout.timer_leds)

    def _frame(self, frame: Frame | None) -> Frame:
        if frame is not None:
            return frame
        return self.frames[-1].frame if self.frames else (OFF,) * self.count

    def render(self, frame: Frame | None = None, pieces: Mapping[str, str] | None = None) -> str:
        """The board as terminal text: each cell at its display position, its LED colour as
        an ANSI 24-bit background, its piece on top (dimmed when empty: a cell's name, a tray
        slot's piece in lower case); then the timer run as a bar. ``pieces`` defaults to the
        linked sensor's board."""
        shown = self._frame(frame)
        if pieces is None:
            pieces = self.sensor.board if self.sensor is not None else {}
        at = {(c.x, c.y): c for c in self.layout.places}
        width = max((x for x, _ in at), default=-1) + 1
        height = max((y for _, y in at), default=-1) + 1
        lines = []
        for y in range(height):
            parts = []
            for x in range(width):
                cell = at.get((x, y))
                if cell is None:
                    parts.append(" " * 5)
                    continue
                token = pieces.get(cell.name, "")
                # An empty cell shows its name, an empty tray slot its piece in lower case.
                empty = cell.piece.lower() if cell.piece is not None else cell.name
                parts.append(_block(shown[cell.led], token or empty, dim=not token))
            lines.append("".join(parts).rstrip())
        if self.layout.timer_leds:
            bar = "".join(
                _block(shown[i], "" if shown[i] != OFF else "··", dim=True, width=2)
                for i in self.layout.timer_leds
            )
            lines.append("timer " + bar)
        return "\n".join(lines)


RESET = "\x1b[0m"


def _block(rgb: RGB, label: str, *, dim: bool = False, width: int = 5) -> str:
    text = f"{label[:width]:^{width}}"
    if rgb == OFF:
        return f"\x1b[2m{text}{RESET}" if dim and label else text
    r, g, b = rgb
    # Dark text on light colours, light text on dark ones (perceived luminance).
    fg = "0;0;0" if 0.299 * r + 0.587 * g + 0.114 * b > 128 else "255;255;255"
    return f"\x1b[48;2;{r};{g};{b}m\x1b[38;2;{fg}m{text}{RESET}"


class NoLeds(Closing):
    """The ``none`` LED backend: a board without LEDs. Checks frames, shows nothing."""

    def __init__(self, layout: Layout, *, brightness: float = 1.0) -> None:
        self.layout = layout
        self.brightness = brightness

    @property
    def count(self) -> int:
        """The number of LEDs the layout declares (frames still have to fit it)."""
        return self.layout.led_count

    def show(self, frame: Frame) -> None:
        """Check ``frame`` and drop it."""
        check_frame(frame, self.count)

    def close(self) -> None:
        """Nothing to release. Idempotent."""
