"""From a sensed board to a game action: match, do not interpret.

For the position in play, :class:`Expectations` lists what the board should read after
every legal action (as a *change* from the current position: cell -> new reading). A
settled reading is then classified by :class:`Inference`:

- **Accepted**: it equals the change of exactly one legal action. If the reading could
  still be on its way to another action (the moved piece has other legal targets: a king
  sliding across the board, a piece dragged over a neighbouring cell; or another action
  changes these cells and more: half a Quixo push), it must first stay unchanged for
  ``settle`` seconds.
- **Ambiguous**: several legal actions produce that reading and leave different positions
  (the LEDs show the candidates and the player resolves it at the console). Actions that
  leave the very same position (a blank Quixo cube pushed along blanks) count as one.
- **Pending**: a known intermediate: every changed cell agrees with some legal action's
  change (a piece lifted, a captured piece removed first). ``targets`` are where the lifted
  pieces may go. No change at all is Pending too, with nothing lifted.
- **Takeback**: it equals an earlier position of this game (the last actions undone).
- **Mismatch**: anything else, once it has lasted ``grace`` seconds (a hand adjusting pieces
  is not an error); ``cells`` are the cells that differ from the position in play.

Actions that change nothing on the board (stopping a draughts chain early, declining
Quinque's second action) cannot be sensed; they are taken implicitly when the next sensed
change is an action that may follow them. Time is passed in; nothing here reads a clock.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from tavola.games import Capability, Game

Change = frozenset[tuple[str, str]]  # (cell, new reading) pairs
MAX_TAKEBACK = 8  # actions: about two whole turns of a compound game


@dataclass(frozen=True)
class Accepted:
    """Play these actions (usually one; a silent action may come first)."""

    moves: tuple[Any, ...]
    cells: frozenset[str]  # the cells that changed


@dataclass(frozen=True)
class Pending:
    """Nothing to do yet.

    With nothing ``changed`` the board reads the position in play. Otherwise ``known``
    says whether the reading is on the way to a legal action (pieces ``lifted`` that may
    go to ``targets``), or not understood but still inside the grace time.
    """

    lifted: frozenset[str] = frozenset()
    targets: frozenset[str] = frozenset()
    changed: frozenset[str] = frozenset()
    known: bool = True

    @property
    def in_position(self) -> bool:
        """The board reads exactly the position in play."""
        return not self.changed


@dataclass(frozen=True)
class Ambiguous:
    candidates: tuple[tuple[Any, ...], ...]
    cells: frozenset[str]


@dataclass(frozen=True)
class Takeback:
    plies: int  # how many actions to undo


@dataclass(frozen=True)
class Mismatch:
    cells: frozenset[str]  # where the board differs from the position in play
    since: float


Result = Accepted | Pending | Ambiguous | Takeback | Mismatch


_RANKED = {"WK": "W", "BK": "B"}  # a draughts king's token -> its colour


def _unranked(cells: Mapping[str, str]) -> dict[str, str]:
    return {c: _RANKED.get(v, v) for c, v in cells.items()}


def change_between(before: Mapping[str, str], after: Mapping[str, str]) -> Change:
    """The cells whose reading differs, with their reading in ``after``."""
    cells = set(before) | set(after)
    return frozenset(
        (c, after.get(c, "")) for c in cells if before.get(c, "") != after.get(c, "")
    )


@dataclass
class Expectations:
    """What the board should read after each legal action of one position."""

    current: dict[str, str]
    by_change: dict[Change, list[tuple[Any, ...]]]
    vacates: dict[tuple[Any, ...], frozenset[str]]
    earlier: list[dict[str, str]] = field(default_factory=list)  # 1, 2, ... actions back

    @cached_property
    def touched(self) -> frozenset[str]:
        """Every cell some legal action changes."""
        return frozenset(c for change in self.by_change for c, _ in change)

    @cached_property
    def rankless(self) -> Expectations:
        """These expectations as a sensor that reads colour only sees them: a draughts king
        (``WK``, ``BK``) as its colour (RULES.md: the engine tracks kings; the camera does
        not read them, so a misread crown never becomes a mismatch). Itself if no king."""
        if not any(v in _RANKED for v in self.current.values()) and not any(
                v in _RANKED for change in self.by_change for _, v in change):
            return self
        current = _unranked(self.current)
        by_change: dict[Change, list[tuple[Any, ...]]] = {}
        for change, seqs in self.by_change.items():
            seen = frozenset((c, _RANKED.get(v, v)) for c, v in change
                             if _RANKED.get(v, v) != current.get(c, ""))
            if seen:
                by_change.setdefault(seen, []).extend(seqs)
        return Expectations(current, by_change, self.vacates,
                            [_unranked(e) for e in self.earlier])

    @classmethod
    def of(cls, game: Game[Any], capability: Capability) -> Expectations:
        current = game.view(capability)
        by_change: dict[Change, list[tuple[Any, ...]]] = {}
        vacates: dict[tuple[Any, ...], frozenset[str]] = {}

        def add(seq: tuple[Any, ...], after: dict[str, str]) -> None:
            change = change_between(current, after)
            if not change:
                return
            by_change.setdefault(change, []).append(seq)
            vacates[seq] = frozenset(c for c, v in change if not v)

        player = game.current_player
        for move in game.legal_moves():
            game.push(move)
            after = game.view(capability)
            if after != current or game.outcome() is not None:
                add((move,), after)
            elif game.current_player != player:
                # A silent action that ends the turn: the next player's actions follow it.
                for nxt in game.legal_moves():
                    game.push(nxt)
                    add((move, nxt), game.view(capability))
                    game.undo()
            game.undo()
        for change, seqs in by_change.items():
            if len(seqs) > 1:
                by_change[change] = _distinct_outcomes(game, seqs)
        earlier: list[dict[str, str]] = []
        probe = game.copy()  # undoing the live game would also lift an adjudication
        for _ in range(min(MAX_TAKEBACK, len(game.history))):
            probe.undo()
            earlier.append(probe.view(capability))
        return cls(current, by_change, vacates, earlier)


def _distinct_outcomes(game: Game[Any], seqs: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    """One action sequence per distinct resulting position.

    Different actions can leave the very same position: pushing a blank Quixo cube along a
    line of blanks looks, and is, the same whichever blank was taken. The board cannot tell
    them apart and the game does not need to: the first is taken.
    """
    seen: dict[str, tuple[Any, ...]] = {}
    for seq in seqs:
        for move in seq:
            game.push(move)
        key = json.dumps(game.to_dict()["state"], sort_keys=True, default=str)
        for _ in seq:
            game.undo()
        seen.setdefault(key, seq)
    return list(seen.values())


SETTLE_SECONDS = 0.3  # the default settle time ([inference] settle)
GRACE_SECONDS = 3.0  # the default grace time before a mismatch ([inference] grace)


class Inference:
    """Classifies settled readings for one game; keeps the timers for settle and grace."""

    def __init__(
        self,
        capability: Capability,
        *,
        settle: float = SETTLE_SECONDS,
        grace: float = GRACE_SECONDS,
        ignore: frozenset[str] = frozenset(),
    ) -> None:
        self.capability = capability
        self.ignore = ignore  # sensed names that are not board cells (tray slots)
        self.settle = settle
        self.grace = grace
        self._expect: Expectations | None = None
        self._expect_ply: int | None = None
        self._reading: dict[str, str] | None = None
        self._uncertain: frozenset[str] = frozenset()
        self._since = 0.0  # when the current reading was first seen

    def expectations(self, game: Game[Any]) -> Expectations:
        """The expectations of the game's position (cached until the game changes)."""
        key = len(game.history)
        if self._expect is None or self._expect_ply != key:
            self._expect = Expectations.of(game, self.capability)
            self._expect_ply = key
        return self._expect

    def reset(self) -> None:
        """Forget the cached position (call after the game changed other than by apply)."""
        self._expect = None
        self._expect_ply = None

    def update(
        self,
        game: Game[Any],
        cells: Mapping[str, str] | None,
        now: float,
        uncertain: frozenset[str] = frozenset(),
    ) -> Result:
        """Classify a new settled reading (``cells``), or the last one again (None) as time
        passes, so a settled action is accepted and a lasting mismatch reported."""
        if cells is not None:
            reading = dict(cells)
            if reading != self._reading or uncertain != self._uncertain:
                self._reading, self._uncertain, self._since = reading, uncertain, now
        if self._reading is None:
            return Pending()
        return self._classify(game, self._reading, self._uncertain, now)

    def _classify(
        self, game: Game[Any], reading: dict[str, str], uncertain: frozenset[str], now: float
    ) -> Result:
        expect = self.expectations(game)
        if not any(v in _RANKED for v in reading.values()):
            expect = expect.rankless  # a sensor that reads no kings (the camera)
        # The game's cells, any cell a legal action would fill (Quinque's cluster grows),
        # and any piece seen elsewhere; not the layout's extra sensors (a reserve tray).
        sensed = {
            c: v for c, v in reading.items()
            if c not in self.ignore and (v or c in expect.current or c in expect.touched)
        }
        for cell in expect.current:
            sensed.setdefault(cell, "")
        change = change_between(expect.current, sensed)
        changed = frozenset(c for c, _ in change)
        if not changed - uncertain:
            return Pending()

        matches = self._matching(expect, change, uncertain)
        if len(matches) > 1:  # the fewest actions explain it best: a move, not a silent
            shortest = min(len(seq) for seq in matches)  # action and then the reply
            matches = [seq for seq in matches if len(seq) == shortest]
        if len(matches) == 1:
            seq = matches[0]
            if self._could_go_on(expect, seq, change) and now - self._since < self.settle:
                return self._intermediate(expect, change, changed) or Pending(changed=changed)
            return Accepted(seq, changed)
        if len(matches) > 1:
            return Ambiguous(tuple(matches), changed)

        for plies, earlier in enumerate(expect.earlier, 1):
            if change_between(earlier, sensed) <= {(c, sensed[c]) for c in uncertain}:
                return Takeback(plies)

        on_the_way = self._intermediate(expect, change, changed)
        if on_the_way is not None:
            return on_the_way
        if now - self._since < self.grace:
            return Pending(changed=changed, known=False)
        return Mismatch(changed, self._since)

    @staticmethod
    def _matching(expect: Expectations, change: Change, uncertain: frozenset[str]) -> list[
            tuple[Any, ...]]:
        exact = expect.by_change.get(change)
        if exact:
            return list(exact)
        if not uncertain:
            return []
        # A doubtful cell may read anything: prefer the legal positions that agree elsewhere.
        certain = frozenset(item for item in change if item[0] not in uncertain)
        found: list[tuple[Any, ...]] = []
        for candidate, seqs in expect.by_change.items():
            if frozenset(i for i in candidate if i[0] not in uncertain) == certain:
                found += seqs
        return found

    @staticmethod
    def _could_go_on(expect: Expectations, seq: tuple[Any, ...], change: Change) -> bool:
        """Whether the reading may be a step on the way to another legal action.

        Either the moved piece has another legal destination (a king sliding on, a man
        dragged over a square), or another action changes these cells and more (half of a
        Quixo push read before the rest of the row has settled).
        """
        vacated = expect.vacates.get(seq, frozenset())
        if vacated and any(
            other != seq and expect.vacates[other] == vacated for other in expect.vacates
        ):
            return True
        return any(change < other for other in expect.by_change)

    @staticmethod
    def _intermediate(expect: Expectations, change: Change, changed: frozenset[str]) -> (
            Pending | None):
        """The reading as a step on the way to legal actions, or None.

        Each changed cell must either already read what some legal action leaves there, or
        be empty where that action changes it (a piece lifted, in transit).
        """
        lifted = frozenset(c for c, v in change if not v)
        targets: set[str] = set()
        found = False
        for candidate in expect.by_change:
            touched = {c for c, _ in candidate}
            if all(item in candidate or (not item[1] and item[0] in touched) for item in change):
                found = True
                arrivals = {c for c, v in candidate if v and not expect.current.get(c)}
                targets |= (arrivals or {c for c, _ in candidate}) - changed
        if not found:
            return None
        return Pending(lifted, frozenset(targets), changed)
