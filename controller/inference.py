"""From a sensed board to a game action: match, do not interpret.

For the position in play, :class:`~tavola.expectations.Expectations` lists what the board
should read after every legal action (as a *change* from the current position: cell -> new
reading), and after every run of actions one player makes in a row (a mill and its removal,
the jumps of a capture chain). A reading is then *explained* in one of three ways:

- a **new action** (or run of actions) of the player to move;
- a **takeback** of the last 1-8 actions (the board shows an earlier position);
- an **amendment**: the last actions of the player who moved last, replaced by others
  while the next player has not acted yet (a piece set one cell off and moved on).

The explanation with the fewest actions wins: a new action counts its actions, a takeback
the actions it undoes, an amendment the actions it undoes plus those it plays; positions a
takeback made one action at a time already showed (held as long as a takeback waits) are
not counted again. A new action of the player to move is looked for first and an amendment
only when nothing cheaper explains the board, so a piece the opponent just placed and the
player to move now moves is that player's move. Two explanations of different kinds at the
same cost are **Ambiguous**: the board cannot tell, the LEDs show it and the player
resolves it at the console (typing the move, or ``undo``); nothing is ever chosen
silently. The board can tell when the sensor saw it: a new action and a takeback are told
apart by the cell emptied first (a piece leaves its cell before anything moves into it),
and a piece is never read as carried to a cell that held a piece for the settle time
before it left.

An explanation is confirmed only once the reading has been unchanged for ``settle``
seconds: a piece slid across the board rests on free cells on its way, a finger brushes a
neighbour, a reed switch drops out under a resting piece. Where a piece is off the board and
could still be in a hand (a takeback that lifted a piece, a captured man lifted before the
jump), the reading must hold for :data:`LIFT_HOLD` instead, and so must a removed piece
put back by the player who removed it (they may take another: an amendment). Until then
it is:

- **Pending**: a known intermediate (a piece lifted, a captured piece removed first, half a
  push) with ``targets`` where the lifted pieces may go; or no change at all; or a reading
  not understood yet, inside the ``grace`` time (a hand adjusting pieces is not an error).
- **Mismatch**: anything else, once it has lasted ``grace`` seconds; ``cells`` are the cells
  that differ from the position in play.

Captured pieces may stay on the board until the capture chain ends (the FMJD practice):
a jump whose only difference from the reading is its captured pieces still standing is
accepted, and those pieces are then ignored until they are lifted (``leftovers``).

Actions that change nothing on the board (stopping a draughts chain early, declining
Quinque's second action) cannot be sensed; they are taken implicitly when the next sensed
change is an action that may follow them. Actions that leave the very same position (a
blank Quixo cube pushed along blanks) count as one; the one recorded is the one whose
origin the sensor saw lifted first, the push the player made. Time is passed in; nothing
here reads a clock.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tavola.expectations import Change, Expectations, Seq, change_between, shows_ranks
from tavola.games import Capability, Game

LIFT_HOLD = 1.0  # seconds a piece must stay off before it counts as taken off for good
GLITCH = 0.05  # seconds: a cell empty for less was a reed dropout or a misread frame
_NOTATION_CELL = re.compile(r"[a-z][0-9]+|-?[0-9]+,-?[0-9]+")


@dataclass(frozen=True)
class Accepted:
    """Play these actions (usually one; a silent action may come first)."""

    moves: Seq
    cells: frozenset[str]  # the cells that changed
    leftovers: frozenset[str] = frozenset()  # captured pieces still standing


@dataclass(frozen=True)
class Amended:
    """Replace the last ``replaced`` actions (the last mover's) by ``moves``."""

    replaced: int
    moves: Seq
    cells: frozenset[str]


@dataclass(frozen=True)
class Pending:
    """Nothing to do yet.

    With nothing ``changed`` the board reads the position in play (where it reads surely:
    ``unread`` names the doubted cells that differ, held past the grace time). Otherwise ``known``
    says whether the reading is on the way to a legal action (pieces ``lifted`` that may
    go to ``targets``), or not understood but still inside the grace time.
    """

    lifted: frozenset[str] = frozenset()
    targets: frozenset[str] = frozenset()
    changed: frozenset[str] = frozenset()
    known: bool = True
    # Cells that differ from the position in play but were read with doubt (a camera under
    # a lamp's reflection), held past the grace time: nothing surely changed, so a move
    # there waits; they are named so that the players can see why.
    unread: frozenset[str] = frozenset()

    @property
    def in_position(self) -> bool:
        """The board reads exactly the position in play."""
        return not self.changed


@dataclass(frozen=True)
class Ambiguous:
    """Several explanations of the reading at the same cost: the player says which.

    ``candidates`` are new action runs; ``takeback`` > 0 means undoing that many actions
    explains it as well.
    """

    candidates: tuple[Seq, ...]
    cells: frozenset[str]
    takeback: int = 0


@dataclass(frozen=True)
class Takeback:
    """The board shows an earlier position: undo the last ``plies`` actions."""

    plies: int


@dataclass(frozen=True)
class Mismatch:
    """A reading no legal or earlier position explains, held past the grace time."""

    cells: frozenset[str]  # where the board differs from the position in play
    since: float


Result = Accepted | Amended | Pending | Ambiguous | Takeback | Mismatch


def _origin(seq: Seq) -> str | None:
    """The cell a run of actions starts from: the first cell its notation names."""
    m = _NOTATION_CELL.search(str(seq[0]))
    return m[0] if m else None


@dataclass(frozen=True)
class _Explanation:
    kind: str  # "new", "takeback", "amend"
    cost: int
    seqs: tuple[Seq, ...] = ()
    plies: int = 0  # takeback: actions undone; amend: actions replaced


SETTLE_SECONDS = 0.3  # the default settle time ([inference] settle)
GRACE_SECONDS = 3.0  # the default grace time before a mismatch ([inference] grace)


class Inference:
    """Explains settled readings for one game; keeps the timers for settle and grace."""

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
        self.leftovers: dict[str, str] = {}  # captured pieces still standing: cell -> reading
        self._expect: Expectations | None = None
        self._expect_key: tuple[int, str, bool] | None = None
        self._bases: dict[int, Expectations] = {}
        self._reading: dict[str, str] | None = None
        self._uncertain: frozenset[str] = frozenset()
        self._since = 0.0  # when the current reading was first seen
        self._lifted_at: dict[str, float] = {}  # cells seen empty since the position changed
        self._set_back: set[str] = set()  # cells lifted and then filled again
        self._filled_at: dict[str, float] = {}  # empty cells of the position, since filled
        # How many actions back an earlier reading showed, held as long as a takeback
        # waits: a takeback made one action at a time (each step a position of the game).
        # ``_showing``: the same for the reading in hand, counted once the reading changes.
        self._shown_back = 0
        self._showing = 0
        # The one new action the reading explained, and the one the reading before did: a
        # next reading that is a legal reply to it confirms it before it settled.
        self._candidate: Seq | None = None
        self._previous: Seq | None = None
        self._rankless = False  # the reading shows no draughts kings (a colour camera)

    def expectations(self, game: Game[Any]) -> Expectations:
        """The expectations of the game's position (cached until the game changes)."""
        # The outcome too: a result declared or withdrawn (a loss on time taken back)
        # changes what is legal without a move, and a game over expects nothing.
        key = (len(game.history), str(game.history[-1]) if game.history else "",
               game.outcome() is None)
        if self._expect is None or self._expect_key != key:
            self._expect = Expectations.of(game, self.capability)
            self._expect_key = key
            self._bases = {}
            self._lifted_at = {}
            self._set_back = set()
            self._filled_at = {}
            self._shown_back = self._showing = 0
            self._candidate = self._previous = None  # they were actions of another position
        return self._expect

    def reset(self) -> None:
        """Forget the cached position (call after the game changed other than by apply)."""
        self._candidate = self._previous = None
        self._expect = None
        self._expect_key = None
        self._bases = {}
        self.leftovers = {}

    def update(
        self,
        game: Game[Any],
        cells: Mapping[str, str] | None,
        now: float,
        uncertain: frozenset[str] = frozenset(),
        window: int = 0,
    ) -> Result:
        """Explain a new settled reading (``cells``), or the last one again (None) as time
        passes, so a settled action is accepted and a lasting mismatch reported. The last
        ``window`` actions (the last mover's, the next player has not acted) may be
        amended."""
        if cells is not None:
            reading = dict(cells)
            if reading != self._reading or uncertain != self._uncertain:
                self._reading, self._uncertain, self._since = reading, uncertain, now
                self._shown_back, self._showing = max(self._shown_back, self._showing), 0
                self._previous, self._candidate = self._candidate, None
        if self._reading is None:
            return Pending()
        return self._classify(game, self._reading, self._uncertain, now, window)

    # ------------------------------------------------------------- the reading
    def _seen(self, expect: Expectations) -> Expectations:
        """The expectations as this reading can show them: without kings when the sensor
        reads no kings (the camera)."""
        return expect.rankless if self._rankless else expect

    def _sensed(self, expect: Expectations, reading: dict[str, str]) -> dict[str, str]:
        """The reading of the game's cells, with captured pieces still standing masked.

        The game's cells, any cell a legal action would fill (Quinque's cluster grows), and
        any piece seen elsewhere; not the layout's extra sensors (a reserve tray)."""
        sensed = {
            c: v for c, v in reading.items()
            if c not in self.ignore and (v or c in expect.current or c in expect.touched)
        }
        for cell in expect.current:
            sensed.setdefault(cell, "")
        for cell, value in list(self.leftovers.items()):
            if sensed.get(cell) == value:
                sensed[cell] = expect.current.get(cell, "")
            elif not sensed.get(cell):
                del self.leftovers[cell]  # lifted at last
        return sensed

    def _classify(
        self, game: Game[Any], reading: dict[str, str], uncertain: frozenset[str], now: float,
        window: int,
    ) -> Result:
        self._rankless = not shows_ranks(reading)
        expect = self._seen(self.expectations(game))
        sensed = self._sensed(expect, reading)
        change = change_between(expect.current, sensed)
        changed = frozenset(c for c, _ in change)
        for cell, value in change:
            if not value:
                self._lifted_at.setdefault(cell, now)
        for cell, since in list(self._lifted_at.items()):
            if sensed.get(cell) and cell not in self._set_back:
                if now - since < GLITCH:
                    del self._lifted_at[cell]  # a dropout, not a piece lifted
                else:
                    self._set_back.add(cell)
        for cell, value in change:
            if value and not expect.current.get(cell):
                self._filled_at.setdefault(cell, now)
        for cell in [c for c in self._filled_at if not sensed.get(c)]:
            del self._filled_at[cell]  # filled for a moment only: a touch, a slide
        stable = now - self._since
        if not changed - uncertain:
            return Pending(unread=changed if stable >= self.grace else frozenset())

        found: list[_Explanation] = []
        new = [s for s in self._matching(expect, change, uncertain)
               if not self._arrived_first(s, change)]
        leftovers: frozenset[str] = frozenset()
        if not new:
            new, leftovers = self._with_leftovers(expect, change, sensed)
        if new:
            shortest = min(len(seq) for seq in new)  # a move, not a silent action and a reply
            found.append(_Explanation("new", shortest,
                                      tuple(s for s in new if len(s) == shortest)))
        shown = self._shown_back
        for plies, earlier in enumerate(expect.earlier, 1):
            if change_between(earlier, sensed) <= {(c, sensed[c]) for c in uncertain}:
                # The steps back the board already showed are not counted again.
                cost = plies - shown if plies > shown else plies
                found.append(_Explanation("takeback", cost, plies=plies))
                pieces_off = sum(1 for _, v in change if not v) > sum(1 for _, v in change if v)
                if stable >= (max(self.settle, LIFT_HOLD) if pieces_off else self.settle):
                    self._showing = plies  # as long as a takeback waits
                break
        if window and (shown or min((e.cost for e in found), default=99) > 1):
            found += self._amendments(game, sensed, window, shown)
        if not found:
            if self._previous is not None:
                overtaken = self._overtaken(game, expect, sensed, self._previous)
                if overtaken is not None:
                    return overtaken
            return self._unexplained(expect, change, changed, now, window, game, sensed)

        cost = min(e.cost for e in found)
        best = self._by_first_lift(game, expect, [e for e in found if e.cost == cost])
        lifted = frozenset(c for c, v in change if not v)
        placed = sum(1 for _, v in change if v)
        off = len(lifted) > placed  # fewer pieces on the board
        hold = self.settle
        chosen = best[0]
        if off and chosen.kind != "new":
            hold = max(self.settle, LIFT_HOLD)  # the piece may still be in a hand
        elif (len(best) == 1 and chosen.kind == "takeback" and chosen.plies <= window
              and placed > len(lifted)):
            # A removed piece put back by the player who removed it: they may take
            # another one instead (an amendment, not an undo and a new removal).
            hold = max(self.settle, LIFT_HOLD)
        if len(best) == 1 and chosen.kind == "new" and len(chosen.seqs) == 1 and not leftovers:
            self._candidate = self._as_played(expect, chosen.seqs[0])
        if stable < hold:
            return self._intermediate(expect, change, changed) or Pending(changed=changed)
        if len(best) > 1 or (best[0].kind == "new" and len(best[0].seqs) > 1):
            news = tuple(s for e in best if e.kind == "new" for s in e.seqs)
            back = next((e.plies for e in best if e.kind == "takeback"), 0)
            return Ambiguous(news, changed, back)
        if chosen.kind == "takeback":
            return Takeback(chosen.plies)
        if chosen.kind == "amend":
            return Amended(chosen.plies, chosen.seqs[0], changed)
        seq = self._as_played(expect, chosen.seqs[0])
        if leftovers:
            self.leftovers.update({c: reading.get(c, "") for c in leftovers})
        return Accepted(seq, changed, leftovers)

    def _by_first_lift(self, game: Game[Any], expect: Expectations,
                       best: list[_Explanation]) -> list[_Explanation]:
        """Of a new action and a takeback that explain the reading equally, the one whose
        piece the sensor saw lifted first, when it saw that.

        A piece leaves its cell before anything moves into it: a Quixo push empties the
        cell of the cube taken (its origin) first, and pushing the last push back empties
        the cell that push filled (the last cell its notation names) first. When the
        first cell seen empty is the origin of one explanation and not of the other, the
        board has told them apart; otherwise (emptied in the same reading, never emptied,
        one origin for both) they stay ambiguous.
        """
        kinds = {e.kind for e in best}
        takeback = next((e for e in best if e.kind == "takeback"), None)
        if kinds != {"new", "takeback"} or takeback is None or takeback.plies != 1:
            return best
        named = _NOTATION_CELL.findall(str(game.history[-1]))
        undo_origin = named[-1] if named else None
        new_origins = {_origin(option) for e in best if e.kind == "new" for seq in e.seqs
                       for option in expect.equivalent.get(seq, [seq])}  # the same push
        watched = new_origins | {undo_origin}
        seen = sorted((at, c) for c, at in self._lifted_at.items() if c in watched)
        if undo_origin is None or None in new_origins or not seen or (
                len(seen) > 1 and seen[0][0] == seen[1][0]):
            return best
        first = seen[0][1]
        if first == undo_origin and first not in new_origins:
            return [takeback]
        if first in new_origins and first != undo_origin:
            return [e for e in best if e.kind == "new"]
        return best

    def _arrived_first(self, seq: Seq, change: Change, replaced: Seq = ()) -> bool:
        """Whether ``seq`` would have a piece arrive before it left, which no hand does.

        ``seq`` is one action that carries a piece from the first cell its notation names
        to the last (a slide, a flight), or, replacing the one action ``replaced``, one that
        puts the piece that action put down on another cell (an amendment). If the sensor
        saw the arrival cell filled, and filled ever since, before the departure cell was
        first seen empty, two pieces were handled (a removed man put back, then another
        one taken), not one carried. "Before" means by the settle time at least: a finger
        brushing the arrival cell just before the piece comes is not a piece there.
        """
        if len(seq) != 1 or len(replaced) > 1 or len(change) != 2:
            return False
        named = _NOTATION_CELL.findall(str(seq[0]))
        if replaced:
            before = _NOTATION_CELL.findall(str(replaced[0]))
            if not before or not named:
                return False
            src, dst = before[-1], named[-1]
        elif len(named) == 2:
            src, dst = named
        else:
            return False
        if {(src, ""), dst} != {(c, "") if not v else c for c, v in change}:
            return False
        arrived, left = self._filled_at.get(dst), self._lifted_at.get(src)
        return arrived is not None and left is not None and (
            arrived < left - max(self.settle, GLITCH))  # not the same reading

    def _overtaken(self, game: Game[Any], expect: Expectations, sensed: dict[str, str],
                   previous: Seq) -> Accepted | None:
        """The previous reading's action, if this reading is a legal reply to it: the
        next player acted before it had settled (two placements in quick succession)."""
        self._previous = None
        probe = game.copy()
        for move in previous:
            probe.push(move)
        if probe.outcome() is not None or probe.current_player == game.current_player:
            return None
        after = self._seen(Expectations.of(probe, self.capability))
        reply = after.by_change.get(change_between(after.current, self._sensed(after, sensed)))
        if not reply or len(reply) != 1:
            return None
        cells = frozenset(c for c, _ in change_between(expect.current, after.current))
        return Accepted(previous, cells)

    def _unexplained(
        self, expect: Expectations, change: Change, changed: frozenset[str], now: float,
        window: int, game: Game[Any], sensed: dict[str, str],
    ) -> Result:
        on_the_way = self._intermediate(expect, change, changed)
        if on_the_way is not None:
            return on_the_way
        for k in range(1, window + 1):  # a piece lifted to be set down elsewhere
            base = self._base(game, k)
            if base is None:
                break
            base_change = change_between(base.current, self._sensed(base, sensed))
            if base_change and self._intermediate(
                    base, base_change, frozenset(c for c, _ in base_change)) is not None:
                lifted = frozenset(c for c, v in change if not v)
                return Pending(lifted, frozenset(), changed)
        if now - self._since < self.grace:
            return Pending(changed=changed, known=False)
        return Mismatch(changed, self._since)

    # ------------------------------------------------------------- explanations
    @staticmethod
    def _matching(expect: Expectations, change: Change, uncertain: frozenset[str]) -> list[Seq]:
        exact = expect.by_change.get(change)
        if exact:
            return list(exact)
        if not uncertain:
            return []
        # A doubtful cell may read anything: prefer the legal positions that agree elsewhere.
        certain = frozenset(item for item in change if item[0] not in uncertain)
        found: list[Seq] = []
        for candidate, seqs in expect.by_change.items():
            if frozenset(i for i in candidate if i[0] not in uncertain) == certain:
                found += seqs
        return found

    @staticmethod
    def _with_leftovers(expect: Expectations, change: Change, sensed: Mapping[str, str]) -> (
            tuple[list[Seq], frozenset[str]]):
        """Captures whose jumped pieces still stand: one piece arrived where the run puts
        it, and every other difference is a captured piece not lifted yet."""
        arrivals = [c for c, v in change if v and not expect.current.get(c)]
        if len(arrivals) != 1:
            return [], frozenset()
        found: list[tuple[list[Seq], frozenset[str]]] = []
        for candidate, seqs in expect.by_change.items():
            if not change <= candidate:
                continue
            rest = candidate - change
            if rest and all(not v and sensed.get(c) == expect.current.get(c) for c, v in rest):
                # A jump: the mover's origin (the first cell its notation names) is empty,
                # only captured pieces still stand.
                standing = frozenset(c for c, _ in rest)
                origins = {_origin(seq) for seq in seqs}
                if origins.isdisjoint(standing) and None not in origins:
                    found.append((seqs, standing))
        if len(found) != 1:  # none, or several: wait for the pieces to be lifted
            return [], frozenset()
        return found[0]

    def _base(self, game: Game[Any], k: int) -> Expectations | None:
        """The expectations of the position ``k`` actions back (for amendments)."""
        if k > len(game.history):
            return None
        if k not in self._bases:
            probe = game.copy()
            for _ in range(k):
                probe.undo()
            self._bases[k] = Expectations.of(probe, self.capability)
        return self._seen(self._bases[k])

    def _amendments(self, game: Game[Any], sensed: dict[str, str], window: int,
                    shown: int = 0) -> list[_Explanation]:
        """Amendments of the last ``window`` actions; none that replaces fewer actions
        than the board has already shown taken back (``shown``), and those steps back are
        not counted again."""
        expect = self._seen(self.expectations(game))
        found = []
        for k in range(1, window + 1):
            base = self._base(game, k)
            if base is None:
                break
            if k < shown:
                continue
            undone = tuple(game.history[-k:])
            change = change_between(base.current, self._sensed(base, sensed))
            moved = change_between(expect.current, sensed)
            seqs = [s for s in base.by_change.get(change, [])
                    if s != undone and not self._arrived_first(s, moved, undone)]
            emptied = {c for c, v in change_between(base.current, expect.current) if not v}
            arriving = {c for c, v in change_between(expect.current, sensed) if v}
            if seqs and arriving <= emptied and self._movable_lifted(expect, sensed) and (
                    not self._put_back_first(arriving, sensed, expect)):
                # Pieces appear only where the replaced actions took some off, and a piece
                # the player to move may move is off its cell: that player is on the way
                # (set down one cell off for a moment), not the last mover swapping a removal
                # (unless the pieces were put back before that piece was lifted).
                seqs = []
            if seqs:
                shortest = min(len(s) for s in seqs)
                found.append(_Explanation("amend", k - min(k, shown) + shortest,
                                          tuple(s for s in seqs if len(s) == shortest), k))
        return found

    def _put_back_first(self, arriving: set[str], sensed: dict[str, str],
                        expect: Expectations) -> bool:
        """Whether every piece that arrived was seen there, and there ever since, the
        settle time before any piece now off its cell was first seen lifted: nothing was
        carried."""
        lifted = [c for c, v in change_between(expect.current, sensed) if not v]
        times = [self._filled_at.get(c) for c in arriving]
        left = [self._lifted_at.get(c) for c in lifted]
        if not times or not left or None in times or None in left:
            return False
        return max(t for t in times if t is not None) < min(
            t for t in left if t is not None) - max(self.settle, GLITCH)

    @staticmethod
    def _movable_lifted(expect: Expectations, sensed: dict[str, str]) -> bool:
        """Whether a piece the player to move may move on its own is off its cell."""
        lifted = {c for c, v in change_between(expect.current, sensed) if not v}
        return any(
            not v and c in lifted and any(len(seq) == 1 for seq in seqs)
            for change, seqs in expect.by_change.items() for c, v in change
            if any(w for _, w in change))  # a move: something arrives too

    def _as_played(self, expect: Expectations, seq: Seq) -> Seq:
        """Of actions that leave the same position, the one whose origin was lifted first."""
        options = expect.equivalent.get(seq)
        if not options or len(options) == 1:
            return seq

        def lifted_first(option: Seq) -> tuple[float, ...]:
            # The cells the notation names (origin first), by when they were seen lifted.
            named = _NOTATION_CELL.findall(str(option[-1]))
            return tuple(self._lifted_at.get(c, float("inf")) for c in named)

        return min(options, key=lifted_first)

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
