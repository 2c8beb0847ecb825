"""Help on the board: the engine's questions and answers, and where a turn shows on the LEDs.

The session (pure) asks; the daemon answers off its event loop. A :class:`Search` is one
question for :mod:`tavola.ai` (a hint for the player to move, the computer opponent's turn,
or a review of the turn just played), carrying a copy of the game and the history it was
asked at, so an answer that comes back after the position changed is known as stale.
:func:`answer` runs it (blocking: the daemon calls it in a worker process; tests call it
directly) and returns an :class:`Answer`.

:func:`turn_cells` says where a turn shows on the board: the cell a piece leaves (origin),
the cells it fills or changes (targets), the pieces it removes. A :class:`ShownTurn` is a
turn on display: it stays lit while the player makes it action by action (a mill, then its
removal) and goes out once the game leaves it.

:class:`Gesture` recognises the hint gesture that needs no screen: the same piece lifted and
put back twice within a second.

>>> from tavola.games import new_game
>>> g = new_game("morris")
>>> for text in ("a1", "b2", "a4", "b4"):
...     g.apply(g.parse_move(text))
>>> found = answer(Search("hint", g.copy(), g.history, nodes=2000))
>>> found.best.text, sorted(turn_cells(g, found.best.turn).removed)
('a7 xb2', ['b2'])
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from tavola import ai
from tavola.games import Game

Purpose = Literal["hint", "opponent", "review"]
_NOTATION_CELL = re.compile(r"[a-z][0-9]+|-?[0-9]+,-?[0-9]+")
GESTURE_SECONDS = 1.0  # lift and put back the same piece twice within this: a hint


@dataclass(frozen=True)
class Search:
    """One question for the engine about ``game`` (a copy, never the live one) as it stood
    at ``at`` (its history). ``played``: for a review, the turn played from ``game``;
    ``exclude``: turns already shown as hints this turn (the next one is asked for)."""

    purpose: Purpose
    game: Game[Any]
    at: tuple[Any, ...]
    level: str = "strongest"
    nodes: int | None = None
    seconds: float | None = None
    seed: int = 0
    exclude: tuple[ai.search.Turn, ...] = ()
    played: ai.search.Turn = ()
    threshold: int = 150


@dataclass(frozen=True)
class Answer:
    """The engine's answer to ``search``: the turn found (None: no turn, the game is over
    or every turn was shown) and, for a review, the verdict on the turn played."""

    search: Search
    best: ai.ScoredTurn | None
    verdict: ai.Verdict | None = None


def answer(search: Search, *, endgames: Any = None,
           clock: Callable[[], float] | None = None) -> Answer:
    """Run ``search`` (blocking; the engine's budget bounds it). ``clock`` is needed only
    when the search has a budget in ``seconds``; ``endgames``: morris endgame tables."""
    game = search.game
    if game.outcome() is not None:
        return Answer(search, None)
    seconds = search.seconds if clock is not None else None
    if search.purpose == "review":
        verdict = ai.blunder_check(game, search.played, threshold=search.threshold,
                                   level=search.level, nodes=search.nodes, seed=search.seed,
                                   endgames=endgames)
        return Answer(search, verdict.best, verdict)
    if search.purpose == "opponent":
        level = ai.level_named(search.level)
        ranked = ai.analyse(game, level, nodes=search.nodes, seconds=seconds, clock=clock,
                            seed=search.seed, count=1, endgames=endgames).ranked
        if not ranked:
            return Answer(search, None)
        turn = ai.pick(ranked, level, search.seed)
        chosen = next((r for r in ranked if r.turn == turn), ranked[0])
        return Answer(search, chosen)
    ranked = ai.hint(game, search.level, nodes=search.nodes, seconds=seconds, clock=clock,
                     seed=search.seed, count=1, exclude=search.exclude, endgames=endgames)
    return Answer(search, ranked[0] if ranked else None)


# --------------------------------------------------------------------- cells of a turn
@dataclass(frozen=True)
class TurnCells:
    """Where a turn shows on the board."""

    origin: frozenset[str] = frozenset()  # a piece leaves (or a Quixo cube is taken)
    targets: frozenset[str] = frozenset()  # a piece arrives or changes
    removed: frozenset[str] = frozenset()  # a piece is taken off (a capture, a removal)

    @property
    def all(self) -> frozenset[str]:
        """Every cell the turn touches."""
        return self.origin | self.targets | self.removed


def _first_cell(move: Any) -> str | None:
    m = _NOTATION_CELL.search(str(move))
    return m[0] if m else None


def turn_cells(game: Game[Any], turn: Sequence[Any]) -> TurnCells:
    """The cells ``turn`` changes in ``game`` (which is left as it was), by kind.

    Per action: the cell its notation names first is the origin when it holds a piece and
    the action puts a piece elsewhere; other cells it empties are removals; cells it
    fills or changes are targets. A cell a piece passes through in a chain (a draughts
    jump's landing that it jumps on from) counts only as what it is at the end.
    """
    work = game.copy()
    start = work.view("identity")
    origin: set[str] = set()
    removed: set[str] = set()
    for move in turn:
        before = work.view("identity")
        work.apply(move)
        after = work.view("identity")
        changed = {c for c in set(before) | set(after) if before.get(c, "") != after.get(c, "")}
        emptied = {c for c in changed if not after.get(c, "")}
        filled = changed - emptied
        first = _first_cell(move)
        # A Quixo push can leave its origin reading the same (a blank row shifts): the
        # piece there is still the one to take.
        moves_piece = first is not None and bool(before.get(first)) and bool(filled - {first})
        if moves_piece and first is not None:
            origin.add(first)
        removed |= emptied - ({first} if moves_piece else set())
    final = work.view("identity")
    changed_overall = {c for c in set(start) | set(final) if start.get(c, "") != final.get(c, "")}
    targets = {c for c in changed_overall if final.get(c, "")} - origin
    origin &= changed_overall | {c for c in origin if start.get(c, "")}
    removed = (removed & changed_overall) - origin - targets
    return TurnCells(frozenset(origin), frozenset(targets), frozenset(removed))


@dataclass(frozen=True)
class ShownTurn:
    """A turn on display: found at history ``at``, with the cells of what remains of it
    after each of its actions (``steps[k]``: the cells of ``turn[k:]``)."""

    at: tuple[Any, ...]
    turn: tuple[Any, ...]
    text: str
    steps: tuple[TurnCells, ...] = field(default=(), repr=False)

    @classmethod
    def of(cls, game: Game[Any], scored: ai.ScoredTurn) -> ShownTurn:
        """``scored`` as shown in ``game``'s position (the game is left as it was)."""
        work = game.copy()
        steps = []
        for k, move in enumerate(scored.turn):
            steps.append(turn_cells(work, scored.turn[k:]))
            work.apply(move)
        return cls(tuple(game.history), tuple(scored.turn), scored.text, tuple(steps))

    def played(self, history: Sequence[Any]) -> int | None:
        """How many of its actions ``history`` has played since it was found; None when
        the game has left it (another action, a takeback, the whole turn played)."""
        n = len(self.at)
        if len(history) < n or tuple(history[:n]) != self.at:
            return None
        done = tuple(history[n:])
        if len(done) >= len(self.turn) or done != self.turn[:len(done)]:
            return None
        return len(done)

    def remaining(self, history: Sequence[Any]) -> TurnCells | None:
        """The cells of what is left of it to play, or None when it no longer applies."""
        k = self.played(history)
        return None if k is None else self.steps[k]

    def expects(self, history: Sequence[Any], moves: Sequence[Any]) -> bool:
        """Whether playing ``moves`` now follows this turn exactly."""
        k = self.played(history)
        return k is not None and tuple(moves) == self.turn[k:k + len(moves)]


# --------------------------------------------------------------------- the gesture
@dataclass
class Gesture:
    """Recognises the hint gesture from raw readings: one piece lifted and put back, twice,
    the second time back down within :data:`GESTURE_SECONDS` of the first lift."""

    seconds: float = GESTURE_SECONDS
    _lifts: list[tuple[str, float]] = field(default_factory=list)  # (cell, when lifted)
    _lifted: str | None = None

    def feed(self, expected: Mapping[str, str], sensed: Mapping[str, str], now: float) -> bool:
        """A reading of the board; True when it completes the gesture. ``expected``: the
        position in play (cell -> reading), ``sensed``: the reading."""
        diff = [c for c in expected if sensed.get(c, "") != expected[c]]
        diff += [c for c, v in sensed.items() if v and c not in expected]
        if len(diff) == 1 and expected.get(diff[0]) and not sensed.get(diff[0]):
            if self._lifted != diff[0]:
                self._lifted = diff[0]
                self._lifts = [(c, t) for c, t in self._lifts if now - t <= self.seconds]
                self._lifts.append((diff[0], now))
            return False
        if diff:  # anything else on the board: not the gesture
            self._lifts, self._lifted = [], None
            return False
        if self._lifted is None:
            return False
        cell, self._lifted = self._lifted, None
        recent = [t for c, t in self._lifts if c == cell and now - t <= self.seconds]
        if len(recent) >= 2:
            self._lifts = []
            return True
        return False


# --------------------------------------------------------------------- settings
@dataclass(frozen=True)
class HintSettings:
    """``[hints]``: how the board helps (docs/config.md).

    ``per_turn`` hints a turn at most; ``level``, ``nodes`` (None: the level's budget) and
    ``seconds`` (a cap on a slow machine) size the search; ``gesture``: lifting and putting
    back one piece twice within a second asks for a hint; ``cell``: a sensed cell outside
    the game whose piece put down asks for one; ``arbiter``: the referee allows hints under
    the arbiter policy; ``feedback``: in ``teaching``, every turn played is reviewed and a
    blunder (a loss of more than ``threshold`` hundredths of a man, or a won position thrown
    away) is shown.
    """

    level: str = "strongest"
    per_turn: int = 3
    nodes: int | None = None
    seconds: float | None = 1.0
    gesture: bool = True
    cell: str = ""
    arbiter: bool = False
    feedback: bool = False
    threshold: int = 150


@dataclass(frozen=True)
class ComputerPlayer:
    """``[game] opponent = "ai"``: the engine plays ``side`` (0 = the first player) at
    ``level``; its turn is shown on the board for a player to make there."""

    side: int = 1
    level: str = "club"
    nodes: int | None = None
