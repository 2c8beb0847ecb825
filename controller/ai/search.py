"""Alpha-beta search over the game contract's atomic actions, for every game.

Negamax over sides: a value is always for the side of the player to move at that node, and
it changes sign only when an action hands the turn to the other side; a turn made of several
actions (a mill and its removal, the jumps of a chain) keeps the sign and, where the game
says so, costs no depth, so a leaf never falls in the middle of a turn. Iterative deepening
orders each iteration by the last; a transposition table (keyed by the game's position key)
and a history table order the rest. The root works on whole turns (``legal_turns``) and can
rank several of them exactly (multi-PV), for hints.

Moves are played with ``Game.push`` (the contract's fast path for moves taken from
``legal_moves()`` in the same position) and taken back with ``undo``.

The budget is a node count and/or seconds read from an injected clock: without a clock the
search reads no time at all and is exactly reproducible.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any

from tavola.games import Game, Outcome, legal_turns

from .evaluation import WIN, Knowledge

INF = 10 * WIN
Turn = tuple[Any, ...]
Oracle = Callable[[Game[Any]], "int | None"]
_EXACT, _LOWER, _UPPER = 0, 1, 2
_CHECK_EVERY = 32  # nodes between budget checks: a clock read is cheap


class OutOfBudget(Exception):
    """The node or time budget ran out in the middle of an iteration."""


@dataclass
class Budget:
    """How much one search may spend: ``nodes`` and/or ``seconds`` read from ``clock``.

    ``clock`` is any callable returning seconds (``time.monotonic`` in the daemon); it is
    required with ``seconds``, so nothing inside the engine reads the time by itself.
    """

    nodes: int | None = None
    seconds: float | None = None
    clock: Callable[[], float] | None = None

    def __post_init__(self) -> None:
        if self.seconds is not None and self.clock is None:
            raise ValueError("a budget in seconds needs a clock (e.g. clock=time.monotonic)")
        if self.nodes is not None and self.nodes < 1:
            raise ValueError(f"nodes must be at least 1, got {self.nodes}")


@dataclass(frozen=True)
class ScoredTurn:
    """A whole turn with its score for the player to move (``WIN`` minus plies: a win)."""

    turn: Turn
    score: int
    text: str

    @property
    def wins(self) -> bool:
        """Whether the search proved a forced win with this turn."""
        return self.score > WIN // 2


@dataclass
class SearchResult:
    """Ranked turns (best first), the depth of the last finished iteration, nodes spent."""

    ranked: list[ScoredTurn]
    depth: int
    nodes: int
    elapsed: float | None = None  # seconds, when a clock was given


@dataclass
class _Entry:
    depth: int
    value: int
    flag: int
    move: Any


@dataclass
class AlphaBeta:
    """One search of one position; create a new one per question (its tables are its own)."""

    game: Game[Any]
    knowledge: Knowledge
    budget: Budget
    oracle: Oracle | None = None
    max_depth: int = 64
    # Whether positions met again score the game's ``Knowledge.repetition_score`` (a level
    # that plays to win; the low levels' near-best picks would read it as a real loss).
    contempt: bool = True
    nodes: int = 0
    _table: dict[Hashable, _Entry] = field(default_factory=dict)
    _history: dict[Any, int] = field(default_factory=dict)
    _deadline: float | None = None
    _enforce: bool = False
    _forcing: Callable[[Sequence[Any]], bool] | None = None
    _static_leaves: bool = False
    _wins_in_one: Callable[[Game[Any], bool], bool] | None = None
    _extend: bool = True
    # Keys of the positions played before the root and of those on the search path: met
    # again, a position scores ``Knowledge.repetition_score`` for the root's side.
    _seen: set[Hashable] = field(default_factory=set)
    _repetition: int | None = None
    _root_side: int = 0
    _partial: list[ScoredTurn] = field(default_factory=list)

    def __post_init__(self) -> None:
        # Knowledge loaded from an older revision (the strength bench's A/B) has no field.
        self._forcing = getattr(self.knowledge, "forcing", None)
        self._wins_in_one = getattr(self.knowledge, "wins_in_one", None)
        # A leaf needs its moves only to extend a lone reply, a forced exchange or an
        # answer to a threat; where the game asks for none of these, it is scored at
        # once and never generates them (tessere: 18 % of its search's time).
        self._static_leaves = not getattr(self.knowledge, "extend_lone_reply", True) and (
            self._forcing is None and self._wins_in_one is None)
        self._extend = getattr(self.knowledge, "threat_extension", True)
        if self.contempt:
            self._repetition = getattr(self.knowledge, "repetition_score", None)

    def run(self, count: int = 1, exclude: Sequence[Turn] = (), margin: int = 0) -> SearchResult:
        """Rank the turns of the player to move; the best ``count`` get exact scores, and so
        does every turn scored within ``margin`` of the best (the others' scores are upper
        bounds below that: a level choosing among the near-best needs the exact ones)."""
        game = self.game
        if game.outcome() is not None:
            return SearchResult([], 0, 0)
        clock = self.budget.clock
        start = clock() if clock else None
        if start is not None and self.budget.seconds is not None:
            self._deadline = start + self.budget.seconds
        played = self._played_keys() if self._repetition is not None else frozenset()
        self._root_side = self.knowledge.side(game, game.current_player)
        excluded = {tuple(t) for t in exclude}
        if self.knowledge.free_continuation:
            every = legal_turns(game)
        else:  # too many whole turns (Quinque): rank first actions, then follow the table
            every = [(m,) for m in game.legal_moves()]
            excluded = {t[:1] for t in excluded}
        turns = [t for t in every if t not in excluded] or every
        ranked = [ScoredTurn(t, 0, game.turn_notation([str(m) for m in t])) for t in turns]
        done = 0
        for depth in range(1, self.max_depth + 1):
            self._enforce = depth > 1  # the first iteration always finishes: a hint exists
            self._seen = set(played)  # an iteration cut by the budget leaves its path here
            try:
                ranked = self._root(ranked, depth, max(1, count), margin)
            except OutOfBudget:
                if self._partial and not self.knowledge.free_continuation:
                    ranked = self._merge(ranked, self._partial)
                break
            done = depth
            if ranked[0].wins or (ranked[0].score < -WIN // 2 and len(ranked) == 1):
                break
            if all(abs(r.score) > WIN // 2 for r in ranked[:count]):
                break
        if not self.knowledge.free_continuation:
            ranked = [self._complete(r) for r in ranked[:count]] + ranked[count:]
        elapsed = clock() - start if clock and start is not None else None
        return SearchResult(ranked, done, self.nodes, elapsed)

    @staticmethod
    def _merge(ranked: list[ScoredTurn], partial: list[ScoredTurn]) -> list[ScoredTurn]:
        """The turns an iteration cut by the budget finished, best first, ahead of the
        others (which it would have searched later: the last iteration ranked them lower).

        Where the root ranks first actions (Quinque), one iteration more is the rest of
        the turn: a position after the whole turn, which the evaluation reads far better
        than one in the middle of it, so the turns it reached are worth keeping. The
        others keep their order, their scores capped at the worst finished one's."""
        done = {s.turn for s in partial}
        floor = min(s.score for s in partial)
        rest = [ScoredTurn(r.turn, min(r.score, floor), r.text) for r in ranked
                if r.turn not in done]
        return sorted(partial, key=lambda s: -s.score) + rest

    def _complete(self, item: ScoredTurn) -> ScoredTurn:
        """The rest of the turn that ``item`` begins: the table's best replies of the
        same player (the first legal action when the table has none)."""
        game = self.game
        player = game.current_player
        turn = list(item.turn)
        for move in turn:
            game.push(move)
        try:
            while game.outcome() is None and game.current_player == player:
                key = self.knowledge.key(game)
                entry = self._table.get(key) if key is not None else None
                moves = game.legal_moves()
                if entry is not None and entry.move in moves:
                    move = entry.move
                else:
                    move = max(moves, key=lambda m: self._after(m, player))
                game.push(move)
                turn.append(move)
        finally:
            for _ in turn:
                game.undo()
        text = game.turn_notation([str(m) for m in turn])
        return ScoredTurn(tuple(turn), item.score, text)

    def _played_keys(self) -> frozenset[Hashable]:
        """The keys of the root and every position before it in the game's history
        (taken back on the search's own copy, then played again)."""
        game = self.game
        key = self.knowledge.key
        seen: set[Hashable] = set()
        taken: list[Any] = []
        while True:
            k = key(game)
            if k is not None:
                seen.add(k)
            try:
                taken.append(game.undo())
            except IndexError:
                break
        for move in reversed(taken):
            game.push(move)
        return frozenset(seen)

    # ------------------------------------------------------------------ root
    def _root(self, ranked: list[ScoredTurn], depth: int, count: int,
              margin: int = 0) -> list[ScoredTurn]:
        game = self.game
        side = self.knowledge.side
        me = side(game, game.current_player)
        scored: list[ScoredTurn] = []
        self._partial = scored  # what this iteration finished, should the budget cut it
        for item in ranked:
            for move in item.turn:
                game.push(move)
            if len(scored) < count:
                floor = -INF
            else:
                floor = sorted((s.score for s in scored), reverse=True)[count - 1]
            if margin and scored:
                floor = min(floor, max(s.score for s in scored) - margin)
            try:
                if side(game, game.current_player) == me:
                    value = self._value(depth - 1, floor, INF, len(item.turn), False)
                else:
                    value = -self._value(depth - 1, -INF, -floor, len(item.turn), False)
            finally:
                for _ in item.turn:
                    game.undo()
            scored.append(ScoredTurn(item.turn, value, item.text))
        scored.sort(key=lambda s: -s.score)  # stable: ties keep the previous order
        return scored

    def _after(self, move: Any, player: int) -> int:
        """The static value of the position after ``move``, for ``player``'s side."""
        game = self.game
        side = self.knowledge.side
        game.push(move)
        try:
            outcome = game.outcome()
            if outcome is not None:
                value = self._terminal(outcome, 0)
            else:
                value = self.knowledge.evaluate(game)
            same = side(game, game.current_player) == side(game, player)
            return value if same else -value
        finally:
            game.undo()

    # ------------------------------------------------------------------ inner nodes
    def _value(self, depth: int, alpha: int, beta: int, ply: int, mid_turn: bool) -> int:
        """The value for the side to move, ``alpha``/``beta`` bounds from its point of view."""
        game = self.game
        self.nodes += 1
        if self._enforce and self.nodes % _CHECK_EVERY == 0:
            self._check_budget()
        outcome = game.outcome()
        if outcome is not None:
            return self._terminal(outcome, ply)
        if not mid_turn and self.oracle is not None:
            exact = self.oracle(game)
            if exact is not None:
                return exact - ply if exact > 0 else exact + ply if exact < 0 else 0
        wins_in_one = self._wins_in_one
        if wins_in_one is not None and not mid_turn and wins_in_one(game, True):
            return WIN - ply - 1  # a line completed with the next action
        # A leaf is never half a turn: an action that keeps the turn costs no depth where
        # the game continues freely (step 0 below), so a turn's later actions keep its depth.
        if depth <= 0 and self._static_leaves:
            return self.knowledge.evaluate(game)  # nothing to look at past the horizon
        moves: Sequence[Any] = game.legal_moves()
        if depth <= 0 and not (mid_turn and self.knowledge.free_continuation) and (
            len(moves) != 1 or ply > self.max_depth + 16
        ) and not (ply <= self.max_depth + 16 and self._forcing is not None
                   and self._forcing(moves)) and not (
            # The opponent threatens to win at once: a static score would stand pat on a
            # lost position. Every answer is searched one ply, where the check above
            # tells whether it stopped the threat (once: depth -1 stops there).
            depth == 0 and wins_in_one is not None and self._extend
            and ply <= self.max_depth + 16 and wins_in_one(game, False)
        ):
            return self.knowledge.evaluate(game)
        key = self.knowledge.key(game)
        seen = self._seen
        repetition = self._repetition
        if key is not None and repetition is not None and not mid_turn and key in seen:
            # Met again: play could cycle here for ever.
            ours = self.knowledge.side(game, game.current_player) == self._root_side
            return repetition if ours else -repetition
        entry = self._table.get(key) if key is not None else None
        first = None
        if entry is not None:
            first = entry.move
            if entry.depth >= depth:
                if entry.flag == _EXACT:
                    return entry.value
                if entry.flag == _LOWER and entry.value >= beta:
                    return entry.value
                if entry.flag == _UPPER and entry.value <= alpha:
                    return entry.value
        history = self._history
        ordered = sorted(moves, key=lambda m: -history.get(m, 0))
        if first is not None and first in ordered:
            ordered.remove(first)
            ordered.insert(0, first)
        moves = ordered
        side = self.knowledge.side
        player = game.current_player
        me = side(game, player)
        origin = alpha
        best = -INF
        best_move = moves[0]
        on_path = key is not None and repetition is not None and not mid_turn
        if on_path:
            seen.add(key)
        for move in moves:
            game.push(move)
            try:
                nxt = game.current_player
                if nxt == player and game.outcome() is None:
                    step = 0 if self.knowledge.free_continuation else 1
                    value = self._value(depth - step, alpha, beta, ply + 1, True)
                elif side(game, nxt) == me:
                    value = self._value(depth - 1, alpha, beta, ply + 1, False)
                else:
                    value = -self._value(depth - 1, -beta, -alpha, ply + 1, False)
            finally:
                game.undo()
            if value > best:
                best, best_move = value, move
                if value > alpha:
                    alpha = value
                    if alpha >= beta:
                        history[move] = history.get(move, 0) + depth * depth
                        break
        if on_path:
            seen.discard(key)
        if key is not None:
            flag = _UPPER if best <= origin else _LOWER if best >= beta else _EXACT
            self._table[key] = _Entry(depth, best, flag, best_move)
        return best

    def _terminal(self, outcome: Outcome, ply: int) -> int:
        if outcome.winner is None:
            return 0
        game = self.game
        side = self.knowledge.side
        me = side(game, game.current_player)
        won = any(side(game, w) == me for w in outcome.winners)
        return WIN - ply if won else -WIN + ply

    def _check_budget(self) -> None:
        budget = self.budget
        if budget.nodes is not None and self.nodes >= budget.nodes:
            raise OutOfBudget
        if self._deadline is not None and budget.clock is not None and (
            budget.clock() >= self._deadline
        ):
            raise OutOfBudget
