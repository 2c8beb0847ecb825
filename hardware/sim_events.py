"""The simulator's raw-event language, and the planner that turns commands into contact changes.

One small language is shared by script files, the test API and a person typing
(docs/simulator.md)::

    lift d2          place d4 W        bounce d4        slide d2 d3 d4 0.01
    knock c3 d4 e5   noise 8           wait 0.5         d2-d4   d2   xg7   c3xe5   RY@c3

:func:`parse_command` / :func:`parse_script` read it; a :class:`Plan` runs commands against
the physical board (cell -> piece token) and returns the raw contact changes they cause,
each ``(time, cell, reading)``. :class:`hardware.sim.SimSensor` debounces those. Pure: no
clock, no I/O.

>>> plan = Plan(Physics("occupancy", 0.005, ("d2", "d3")), {"d2": "W", "d3": ""})
>>> plan.run(parse_command("slide d2 d3", ("d2", "d3")))
>>> plan.out, plan.board
([(0.0, 'd2', ''), (0.0, 'd3', '#')], {'d2': '', 'd3': 'W'})
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass

from .base import EMPTY, OCCUPIED, Capability
from .layout import BOARD_CELL

__all__ = [
    "CABLE",
    "LANGUAGE",
    "Command",
    "Physics",
    "Plan",
    "SimCommandError",
    "locate",
    "parse_command",
    "parse_script",
]

UNREADABLE = "?"  # what an identity sensor reads where noise closes an empty cell
CABLE = ""  # the "cell" of a raw change that pulls or plugs the cable (value: unplug/replug)
# Offsets of the contact's extra toggles after the first edge: real reed bounce is a few
# toggles within about 2 ms, each far shorter than the debounce.
BOUNCE = (0.0004, 0.0009, 0.0015, 0.0022)

LANGUAGE = """\
Raw events (one per line; '# comment'; '+SECONDS' before a command waits first):
  lift CELL               take the piece off CELL (into the hand)
  place CELL [TOKEN]      put a piece on CELL (default: the last piece lifted)
  bounce CELL [TOKEN]     lift or place on CELL with contact bounce
  slide A OVER... B [S]   slide the piece from A over the OVER cells (S seconds each) to B
  knock CELL...           knock several cells at once: pieces fall off, or land on empty ones
  noise [N] [S]           N random glitches of S seconds each that settle back
  wait SECONDS            let time pass before the next command
  unplug / replug         pull the sensor's cable out / plug it back in
Moves: d2-d4 (lift, place)  d2 [TOKEN] (place)  xg7 (remove)  c3xe5 (jump, removes the
  jumped piece)  a1>e1 [TOKEN] (quixo push)  RY@c3 (that piece, from its tray slot if any)
Console only: help"""

VERBS = ("lift", "place", "bounce", "slide", "knock", "noise", "wait", "unplug", "replug", "help")


class SimCommandError(ValueError):
    """A command the simulator cannot run; the message names the line and the command."""


@dataclass(frozen=True)
class Command:
    """One parsed command: ``verb`` is a raw event, ``move``/``capture``/``push``/``take``/
    ``remove`` (the move shortcuts) or ``help``; ``delay`` is a leading ``+SECONDS``."""

    verb: str
    cells: tuple[str, ...] = ()
    token: str | None = None
    number: float | None = None
    count: int | None = None
    delay: float = 0.0
    text: str = ""
    where: str = ""  # "script.txt line 3", for errors


def _number(word: str, what: str) -> float:
    try:
        value = float(word)
    except ValueError:
        raise SimCommandError(f"{what} must be a number of seconds, got {word!r}") from None
    if not math.isfinite(value) or value < 0:
        raise SimCommandError(f"{what} must be a number of seconds >= 0, got {word!r}")
    return value


def _is_number(word: str) -> bool:
    try:
        float(word)
    except ValueError:
        return False
    return True


def parse_command(text: str, cells: Collection[str], where: str = "") -> Command | None:
    """Parse one line of the command language; None for a blank or comment line.

    ``cells`` are the names the layout senses. Raises :class:`SimCommandError` naming
    ``where`` (e.g. ``"moves.txt line 3"``) and the command.
    """
    words: list[str] = []
    for word in text.split():
        if word.startswith("#"):
            break
        words.append(word)
    if not words:
        return None
    try:
        return _parse(words, cells, text.strip(), where)
    except SimCommandError as exc:
        raise SimCommandError(locate(where, text, str(exc))) from None


def locate(where: str, text: str, problem: str) -> str:
    """An error message that names where (a script line) and the command."""
    command = " ".join(w for w in text.split("#")[0].split())
    return f"{where}: {command!r}: {problem}" if where else f"{command!r}: {problem}"


def _parse(words: list[str], cells: Collection[str], text: str, where: str) -> Command:
    delay = 0.0
    if words[0].startswith("+"):
        delay = _number(words[0][1:], "the delay after '+'")
        words = words[1:]
        if not words:
            return Command("wait", number=delay, text=text, where=where)
    verb, args = words[0], words[1:]

    def cell(word: str) -> str:
        if word not in cells:
            raise SimCommandError(f"unknown cell {word!r}")
        return word

    def make(
        v: str,
        cs: Iterable[str] = (),
        *,
        token: str | None = None,
        number: float | None = None,
        count: int | None = None,
    ) -> Command:
        return Command(v, tuple(cs), token, number, count, delay, text, where)

    def arity(low: int, high: int) -> None:
        if not low <= len(args) <= high:
            raise SimCommandError(f"{verb} takes {low}..{high} arguments, got {len(args)}")

    if verb == "lift":
        arity(1, 1)
        return make("lift", [cell(args[0])])
    if verb in ("place", "bounce"):
        arity(1, 2)
        return make(verb, [cell(args[0])], token=args[1] if len(args) > 1 else None)
    if verb == "slide":
        dwell = None
        if args and _is_number(args[-1]):
            dwell = _number(args.pop(), "the slide's dwell time")
        if len(args) < 2:
            raise SimCommandError("slide needs a start and an end cell: slide d2 d3 d4")
        return make("slide", map(cell, args), number=dwell)
    if verb == "knock":
        if not args:
            raise SimCommandError("knock needs at least one cell")
        if len(set(args)) != len(args):
            raise SimCommandError("knock names a cell twice")
        return make("knock", map(cell, args))
    if verb == "noise":
        arity(0, 2)
        count = 5
        if args:
            if not args[0].isdigit() or int(args[0]) < 1:
                raise SimCommandError(f"noise count must be a whole number >= 1, got {args[0]!r}")
            count = int(args[0])
        length = _number(args[1], "the glitch length") if len(args) > 1 else None
        return make("noise", count=count, number=length)
    if verb == "wait":
        arity(1, 1)
        return make("wait", number=_number(args[0], "wait"))
    if verb in ("help", "unplug", "replug"):
        arity(0, 0)
        return make(verb)
    return _parse_move(verb, args, cells, make)


def _parse_move(
    word: str, args: list[str], cells: Collection[str], make: Callable[..., Command]
) -> Command:
    token = args[0] if args else None
    if len(args) > 1:
        raise SimCommandError("a move takes at most one token after it")
    if word in cells:
        return make("place", [word], token=token)
    if word.startswith("x") and word[1:] in cells and not args:
        return make("remove", [word[1:]])
    if "@" in word and not args:
        piece, _, target = word.partition("@")
        if piece and target in cells:
            return make("take", [target], token=piece)
    parts = word.split("x")
    if len(parts) >= 2 and all(p in cells for p in parts) and not args:
        return make("capture", parts)
    for sep, verb in (("-", "move"), (">", "push")):
        for i, ch in enumerate(word):
            if ch == sep and word[:i] in cells and word[i + 1 :] in cells:
                if verb == "move" and args:
                    break
                return make(verb, [word[:i], word[i + 1 :]], token=token)
    known = ", ".join(VERBS[:-1])
    raise SimCommandError(
        f"unknown command or cell {word!r}; commands: {known}; "
        "moves: d2-d4, d2, xg7, c3xe5, a1>e1, RY@c3 (type help)"
    )


def parse_script(text: str, cells: Collection[str], source: str = "<script>") -> list[Command]:
    """Parse a script: one command per line. Errors name ``source``, the line and command."""
    commands = []
    for number, line in enumerate(text.splitlines(), start=1):
        command = parse_command(line, cells, f"{source} line {number}")
        if command is not None:
            commands.append(command)
    return commands


# ---------------------------------------------------------------------- the planner
@dataclass(frozen=True)
class Physics:
    """How the simulated board behaves: what its sensor reads, how long hands take.

    ``cells`` are the sensed names (board, then tray), ``tray`` the reserve-tray slots;
    ``slide_dwell`` the seconds a slid piece spends on each cell it passes over,
    ``hand_time`` the seconds between lifting and placing in a move shortcut, ``seed`` the
    noise's random seed.
    """

    capability: Capability
    debounce: float
    cells: tuple[str, ...]
    tray: tuple[str, ...] = ()
    slide_dwell: float = 0.002
    hand_time: float = 0.2
    seed: int = 0

    def reading(self, token: str) -> str:
        """What the sensor reads for a cell holding ``token`` ("" when empty)."""
        if self.capability == "occupancy":
            return OCCUPIED if token else EMPTY
        return token


class Plan:
    """The physical board as the scheduled commands leave it, and the raw changes to come.

    Commands run in sequence from ``cursor`` (a person does one thing after another); each
    returns raw transitions ``(time, cell, reading)``. Copied for a dry run, so a script
    with an error at line 9 schedules nothing.
    """

    def __init__(self, physics: Physics, board: dict[str, str], cursor: float = 0.0) -> None:
        self.physics = physics
        self.board = board
        self.hand: list[str] = []
        self.cursor = cursor
        self.out: list[tuple[float, str, str]] = []
        self.rng = random.Random(physics.seed)

    def copy(self) -> Plan:
        """A twin to dry-run commands on."""
        twin = Plan(self.physics, dict(self.board))
        twin.hand, twin.cursor = list(self.hand), self.cursor
        twin.rng.setstate(self.rng.getstate())
        return twin

    def set(self, cell: str, token: str, at: float) -> None:
        """Put ``token`` ("" for none) on ``cell`` at time ``at``."""
        self.board[cell] = token
        self.out.append((at, cell, self.physics.reading(token)))

    def take(self, cell: str, token: str | None) -> str:
        """The piece a place puts down: named, else from the hand, else a plain disc."""
        if token is not None:
            if token in self.hand:  # the most recently lifted one of that kind
                del self.hand[max(i for i, t in enumerate(self.hand) if t == token)]
            return token
        if self.hand:
            return self.hand.pop()
        if self.physics.capability == "occupancy":
            return OCCUPIED
        raise SimCommandError(f"which piece goes on {cell}? nothing in hand: write the token")

    def occupied(self, cell: str, doing: str) -> str:
        """The piece on ``cell``; an error if there is none to ``doing`` (lift, slide...)."""
        token = self.board[cell]
        if not token:
            raise SimCommandError(f"no piece on {cell} to {doing}")
        return token

    def vacant(self, cell: str) -> None:
        """An error unless ``cell`` is empty."""
        if self.board[cell]:
            raise SimCommandError(f"{cell} is not empty ({self.board[cell]} is there)")

    def run(self, c: Command) -> None:
        """Run one command from ``cursor``, appending its raw changes to ``out``."""
        self.cursor += c.delay
        getattr(self, "_" + c.verb)(c)

    def _lift(self, c: Command) -> None:
        self.hand.append(self.occupied(c.cells[0], "lift"))
        self.set(c.cells[0], EMPTY, self.cursor)

    def _remove(self, c: Command) -> None:
        self.occupied(c.cells[0], "remove")
        self.set(c.cells[0], EMPTY, self.cursor)

    def _place(self, c: Command) -> None:
        self.vacant(c.cells[0])
        self.set(c.cells[0], self.take(c.cells[0], c.token), self.cursor)

    def _bounce(self, c: Command) -> None:
        cell, old = c.cells[0], self.board[c.cells[0]]
        if old:
            self.hand.append(old)
            new = EMPTY
        else:
            new = self.take(cell, c.token)
        self.set(cell, new, self.cursor)
        for i, offset in enumerate(BOUNCE):
            self.set(cell, old if i % 2 == 0 else new, self.cursor + offset)
        self.cursor += BOUNCE[-1]

    def _slide(self, c: Command) -> None:
        first, *over, last = c.cells
        token = self.occupied(first, "slide")
        for cell in (*over, last):
            self.vacant(cell)
        dwell = self.physics.slide_dwell if c.number is None else c.number
        self.set(first, EMPTY, self.cursor)
        for cell in over:
            self.set(cell, token, self.cursor)
            self.cursor += dwell
            self.set(cell, EMPTY, self.cursor)
        self.set(last, token, self.cursor)

    def _knock(self, c: Command) -> None:
        fallen = [self.board[cell] for cell in c.cells if self.board[cell]]
        landing = [cell for cell in c.cells if not self.board[cell]]
        for cell in c.cells:
            if self.board[cell]:
                self.set(cell, EMPTY, self.cursor)
        for cell in landing:
            self.set(cell, fallen.pop(0) if fallen else self.take(cell, None), self.cursor)
        self.hand.extend(fallen)  # knocked off the board: back in the hand

    def _noise(self, c: Command) -> None:
        length = self.physics.debounce / 2 if c.number is None else c.number
        cells = self.physics.cells
        for _ in range(c.count or 1):
            cell = self.rng.choice(cells)
            now = self.physics.reading(self.board[cell])
            glitch = (
                EMPTY
                if now
                else (OCCUPIED if self.physics.capability == "occupancy" else UNREADABLE)
            )
            self.out.append((self.cursor, cell, glitch))
            self.out.append((self.cursor + length, cell, now))
            self.cursor += 1.5 * length  # a quiet gap, so glitches never overlap

    def _wait(self, c: Command) -> None:
        self.cursor += c.number or 0.0

    def _help(self, c: Command) -> None:
        pass

    def _unplug(self, c: Command) -> None:
        self.out.append((self.cursor, CABLE, "unplug"))

    def _replug(self, c: Command) -> None:
        self.out.append((self.cursor, CABLE, "replug"))

    def _move(self, c: Command) -> None:
        a, b = c.cells
        self.vacant(b)
        self._lift(Command("lift", (a,)))
        self.cursor += self.physics.hand_time
        self._place(Command("place", (b,)))
        self.cursor += self.physics.hand_time  # the hand leaves before anything else happens

    def _take(self, c: Command) -> None:
        piece = c.token or ""
        slot = next((s for s in self.physics.tray if self.board[s] == piece), None)
        if slot is not None:
            self.vacant(c.cells[0])
            self._lift(Command("lift", (slot,)))
            self.cursor += self.physics.hand_time
        self._place(Command("place", c.cells, token=piece))
        self.cursor += self.physics.hand_time

    def _capture(self, c: Command) -> None:
        for a, b in itertools.pairwise(c.cells):
            self._move(Command("move", (a, b)))
            jumped = [cell for cell in _between(a, b, self.board) if self.board[cell]]
            for cell in jumped:
                self.set(cell, EMPTY, self.cursor)
            if jumped:
                self.cursor += self.physics.hand_time

    def _push(self, c: Command) -> None:
        a, b = c.cells
        if a == b or not _in_line(a, b):
            raise SimCommandError(f"{a} and {b} are not on one row or column")
        line = [a, *_between(a, b, self.board), b]
        token = self.occupied(a, "push")
        self.set(a, EMPTY, self.cursor)
        self.cursor += self.physics.hand_time
        moved = [self.board[cell] for cell in line[1:]]
        for cell, piece in zip(line, [*moved, c.token or token], strict=True):
            self.set(cell, piece, self.cursor)
        self.cursor += self.physics.hand_time


def _coords(cell: str) -> tuple[int, int] | None:
    return (ord(cell[0]) - ord("a"), int(cell[1:]) - 1) if BOARD_CELL.fullmatch(cell) else None


def _in_line(a: str, b: str) -> bool:
    pa, pb = _coords(a), _coords(b)
    return pa is not None and pb is not None and (pa[0] == pb[0] or pa[1] == pb[1])


def _between(a: str, b: str, cells: Collection[str]) -> list[str]:
    """The cells strictly between ``a`` and ``b`` on a row, column or diagonal."""
    pa, pb = _coords(a), _coords(b)
    if pa is None or pb is None:
        return []
    df, dr = pb[0] - pa[0], pb[1] - pa[1]
    steps = max(abs(df), abs(dr))
    if steps < 2 or (df and dr and abs(df) != abs(dr)):
        return []
    sf, sr = (df > 0) - (df < 0), (dr > 0) - (dr < 0)
    names = (f"{chr(ord('a') + pa[0] + i * sf)}{pa[1] + i * sr + 1}" for i in range(1, steps))
    return [n for n in names if n in cells]
