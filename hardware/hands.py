"""A model of real hands on the board: the ordinary club-table ways pieces get moved.

A person does not lift a piece and set it down cleanly on its target in one instant. The
piece is slid and rests a moment on free cells on its way; it is set on the wrong cell and
moved to the right one; a finger or a piece brushes a neighbour cell; a reed switch drops
out for a few milliseconds under a resting piece. :class:`Hands` turns one change of the
board (the pieces before and after an action, or a takeback) into such a stream of raw
contact changes, with random timings drawn from :class:`Habits` and a seeded generator, so
tests and ``bench/inference.py`` can play thousands of noisy games (docs/simulator.md).

:func:`settled` then filters the raw changes the way the sensor backends debounce them and
returns the snapshots the daemon would hand to the session. Pure: no clock, no I/O, and no
game rules (hardware never imports the controller): the caller says which change to make.

>>> hands = Hands({"d2": "", "d3": "", "d4": ""}, random.Random(1), Habits.tidy())
>>> hands.move({"d2": "", "d3": "", "d4": ""}, {"d2": "", "d3": "", "d4": "W"})
>>> [(cell, token) for _, cell, token in hands.raw]
[('d4', 'W')]
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace

__all__ = ["Habits", "Hands", "Raw", "neighbours", "settled"]

Raw = tuple[float, str, str]  # (time, cell, piece token or "" for empty)
Span = tuple[float, float]  # seconds, drawn uniformly

_LETTERED = re.compile(r"([a-z])([0-9]+)")
_COORDS = re.compile(r"(-?[0-9]+),(-?[0-9]+)")


@dataclass(frozen=True)
class Habits:
    """How often people do each thing, and how long it takes (seconds).

    Probabilities are per action; spans are drawn uniformly. The defaults are the
    behaviours of issue 11, at rates a club table sees.
    """

    slide: float = 0.3  # a piece slid in, resting on free cells on its way
    slide_rest: Span = (0.02, 0.12)
    wrong_cell: float = 0.06  # set on a neighbour cell first, then moved to the right one
    wrong_fast: Span = (0.03, 0.19)  # how long it stays there: a blink ...
    wrong_slow: Span = (1.0, 2.0)  # ... or a second or two
    wrong_slow_share: float = 0.5
    lift_off_first: float = 0.5  # the correction lifts the piece off (else slides it over)
    carry: Span = (0.1, 0.25)  # a piece in the air between two cells
    touch: float = 0.1  # a finger or piece on a neighbour cell
    touch_span: Span = (0.02, 0.15)
    dropout: float = 0.1  # a reed switch opening under a resting piece
    dropout_span: Span = (0.01, 0.03)
    between: Span = (0.01, 0.06)  # one piece after another in a push or a removal
    think: Span = (0.6, 2.5)  # between two players' actions

    @classmethod
    def tidy(cls) -> Habits:
        """A careful player: no slides, no wrong cells, no touches, no dropouts."""
        return cls(slide=0.0, wrong_cell=0.0, touch=0.0, dropout=0.0)

    def but(self, **changes: float | Span) -> Habits:
        """These habits with some changed (``habits.but(wrong_cell=1.0)``)."""
        return replace(self, **changes)  # type: ignore[arg-type]


def neighbours(cell: str, cells: Iterable[str]) -> list[str]:
    """The cells of ``cells`` one step from ``cell`` along a row, column or diagonal.

    Cells are named ``d4`` (file letter, rank) or ``3,-1`` (Quinque's coordinates).
    """
    here = _position(cell)
    if here is None:
        return []
    found = []
    for other in cells:
        there = _position(other)
        if there is not None and other != cell and max(
            abs(there[0] - here[0]), abs(there[1] - here[1])
        ) == 1:
            found.append(other)
    return sorted(found)


def _position(cell: str) -> tuple[int, int] | None:
    if m := _LETTERED.fullmatch(cell):
        return ord(m[1]) - ord("a"), int(m[2])
    if m := _COORDS.fullmatch(cell):
        return int(m[1]), int(m[2])
    return None


class Hands:
    """The physical board (cell -> token) and the raw changes hands make to it.

    Every method starts at :attr:`now` and moves it on; :attr:`raw` collects the changes
    ``(time, cell, token)``. :attr:`board` may be read at any time (it is the board after
    everything scheduled so far). Cells named in a change that are not on the board yet
    (a Quinque tile laid down) are added.
    """

    def __init__(
        self, board: Mapping[str, str], rng: random.Random, habits: Habits | None = None,
        now: float = 0.0,
    ) -> None:
        self.board = dict(board)
        self.rng = rng
        self.habits = habits or Habits()
        self.now = now
        self.raw: list[Raw] = []
        self.last_placed: str | None = None

    # ------------------------------------------------------------- primitives
    def draw(self, span: Span) -> float:
        """A duration drawn from ``span``."""
        return self.rng.uniform(*span)

    def chance(self, p: float) -> bool:
        """True with probability ``p``."""
        return self.rng.random() < p

    def wait(self, seconds: float) -> None:
        """Let time pass."""
        self.now += seconds

    def set(self, cell: str, token: str) -> None:
        """Change ``cell`` to ``token`` now."""
        self.board[cell] = token
        self.raw.append((self.now, cell, token))
        if token:
            self.last_placed = cell

    def take_raw(self) -> list[Raw]:
        """The raw changes made since the last call, in time order."""
        out, self.raw = sorted(self.raw, key=lambda r: r[0]), []
        return out

    def free_neighbours(self, cell: str, avoid: Iterable[str] = ()) -> list[str]:
        """Empty board cells next to ``cell`` (not in ``avoid``)."""
        skip = set(avoid)
        return [c for c in neighbours(cell, self.board) if not self.board[c] and c not in skip]

    # ------------------------------------------------------------- actions
    def move(
        self, before: Mapping[str, str], after: Mapping[str, str], *,
        first: str | None = None, keep: Iterable[str] = (), quiet: bool = False,
    ) -> None:
        """Change the board from ``before`` to ``after`` the way a hand does.

        One piece arriving from off the board is a placement; one piece leaving one cell
        for another is a move; only pieces leaving is a removal; anything else (a push, a
        tile with its skydivers, a crowned man) lifts what changes, ``first`` first, and
        sets the new pieces down. Cells in ``keep`` are left as they are (captured pieces
        the player will lift later). ``quiet``: no wrong cell, no slide (a takeback).
        """
        cells = set(before) | set(after)
        old = {c: before.get(c, "") for c in cells}
        new = {c: after.get(c, "") for c in cells}
        for c in cells:
            self.board.setdefault(c, old[c])
        skip = set(keep)
        leaving = sorted(c for c in cells if old[c] and not new[c] and c not in skip)
        arriving = sorted(c for c in cells if new[c] and not old[c])
        turning = sorted(c for c in cells if old[c] and new[c] and old[c] != new[c])
        if not turning and len(arriving) == 1 and not leaving:
            self._place(arriving[0], new[arriving[0]], quiet)
        elif not turning and len(arriving) == 1 and leaving:
            token = new[arriving[0]]
            mover = next((c for c in leaving if old[c] == token), leaving[0])
            if first in leaving:
                mover = first
            self._carry(mover, arriving[0], token, quiet)
            self.remove([c for c in leaving if c != mover])
        elif not arriving and not turning:
            self.remove(leaving)
        else:
            lifted = sorted(leaving + turning, key=lambda c: c != first)
            if first is not None and first not in lifted and self.board.get(first):
                # The cube taken reads the same after the push (a blank along blanks): it
                # is still lifted first, and set back by the push.
                lifted.insert(0, first)
                turning.append(first)
            for c in lifted:
                self.set(c, "")
                self.wait(self.draw(self.habits.between))
            self.wait(self.draw(self.habits.carry))
            for c in sorted(arriving + turning, key=lambda c: c != first):
                self.set(c, new[c])
                self.wait(self.draw(self.habits.between))

    def remove(self, cells: Iterable[str]) -> None:
        """Lift pieces off the board for good, one after another."""
        for i, c in enumerate(cells):
            if i:
                self.wait(self.draw((0.05, 0.3)))
            self.set(c, "")

    def lift_together(self, cells: Iterable[str]) -> None:
        """Sweep several pieces off at once (captured men after the last jump)."""
        for c in cells:
            self.set(c, "")
            self.wait(self.draw((0.0, 0.03)))

    def _approach(self, target: str, token: str, avoid: Iterable[str]) -> None:
        """Slide in over one or two free cells, resting 20-120 ms on each."""
        path = self.free_neighbours(target, avoid)
        self.rng.shuffle(path)
        for c in path[: self.rng.choice((1, 2))]:
            self.set(c, token)
            self.wait(self.draw(self.habits.slide_rest))
            self.set(c, "")

    def _wrong_first(self, target: str, token: str, avoid: Iterable[str]) -> str | None:
        """Set the piece on a free neighbour of ``target`` first; the cell, or None."""
        options = self.free_neighbours(target, avoid)
        if not options or not self.chance(self.habits.wrong_cell):
            return None
        wrong = self.rng.choice(options)
        self.set(wrong, token)
        slow = self.chance(self.habits.wrong_slow_share)
        self.wait(self.draw(self.habits.wrong_slow if slow else self.habits.wrong_fast))
        return wrong

    def _place(self, cell: str, token: str, quiet: bool) -> None:
        if not quiet:
            wrong = self._wrong_first(cell, token, ())
            if wrong is not None:
                self._carry(wrong, cell, token, quiet=True)
                return
            if self.chance(self.habits.slide):
                self._approach(cell, token, ())
        self.set(cell, token)

    def _carry(self, src: str, dst: str, token: str, quiet: bool) -> None:
        self.set(src, "")
        if not quiet:
            wrong = self._wrong_first(dst, token, (src,))
            if wrong is not None:
                src = wrong
                if self.chance(self.habits.lift_off_first):
                    self.set(src, "")
                    self.wait(self.draw(self.habits.carry))
                    self.set(dst, token)
                else:  # slid over: the two cells change almost together
                    self.set(src, "")
                    self.wait(self.draw((0.0, 0.02)))
                    self.set(dst, token)
                return
            if self.chance(self.habits.slide):
                self._approach(dst, token, (src,))
            else:
                self.wait(self.draw(self.habits.carry))
        else:
            self.wait(self.draw(self.habits.carry))
        self.set(dst, token)

    # ------------------------------------------------------------- noise
    def fidget(self) -> None:
        """Maybe brush a neighbour cell, maybe a reed dropout under a resting piece."""
        h = self.habits
        if self.chance(h.touch):
            full = [c for c, t in self.board.items() if t]
            if full:
                near = self.rng.choice(full)
                free = self.free_neighbours(near)
                if free:
                    cell = self.rng.choice(free)
                    self.set(cell, self.board[near])
                    self.wait(self.draw(h.touch_span))
                    self.set(cell, "")
        if self.chance(h.dropout):
            full = [c for c, t in self.board.items() if t]
            if full:
                last = self.last_placed
                cell = last if last and self.board.get(last) and self.chance(0.5) else (
                    self.rng.choice(full))
                token = self.board[cell]
                self.set(cell, "")
                self.wait(self.draw(h.dropout_span))
                self.set(cell, token)
                self.last_placed = last


def settled(raw: Iterable[Raw], start: Mapping[str, str], debounce: float,
            occupancy: bool = False) -> list[tuple[float, dict[str, str]]]:
    """The snapshots a debouncing sensor reports for ``raw`` changes from ``start``.

    A cell's reading changes once its raw value has held for ``debounce`` seconds (the
    reed and simulated backends' rule). With ``occupancy`` every piece reads ``"#"``,
    else its token (an identity sensor).

    >>> [cells for _, cells in settled([(0.0, "d2", "W"), (0.002, "d2", "")], {"d2": ""}, 0.005)]
    []
    """
    def read(token: str) -> str:
        return "#" if occupancy and token else token

    now_raw = {c: read(t) for c, t in start.items()}
    since = dict.fromkeys(now_raw, float("-inf"))
    shown = dict(now_raw)
    out: list[tuple[float, dict[str, str]]] = []
    events = sorted(raw, key=lambda r: r[0])
    i = 0
    while True:
        due = min((since[c] + debounce for c in now_raw if now_raw[c] != shown[c]),
                  default=float("inf"))
        nxt = events[i][0] if i < len(events) else float("inf")
        if due == float("inf") and nxt == float("inf"):
            return out
        if due <= nxt:  # held for exactly the debounce counts as settled
            for c in [c for c in now_raw if now_raw[c] != shown[c] and since[c] + debounce == due]:
                shown[c] = now_raw[c]
            out.append((due, dict(shown)))
        else:
            at, cell, token = events[i]
            i += 1
            value = read(token)
            shown.setdefault(cell, "")
            if now_raw.get(cell, "") != value:
                now_raw[cell], since[cell] = value, at
