"""The game-playing engine: hints, a computer opponent and move-quality checks, every game.

Pure: a question is a game (never changed: the engine works on a copy), a level, a budget
(nodes, or seconds with an injected clock) and a seed; the answer is data. The same
question with a node budget always gets the same answer.

>>> from tavola.games import new_game
>>> from tavola.ai import hint
>>> g = new_game("morris")
>>> for text in ("a1", "b2", "a4", "b4"):
...     g.apply(g.parse_move(text))
>>> best = hint(g, "club", nodes=2000)[0]
>>> best.text  # closes the mill a1-a4-a7 and takes a man
'a7 xb2'

Levels (:data:`LEVELS`): ``beginner`` (a shallow search that picks among the near-best
turns and now and then plays a random one), ``club`` and ``strongest`` (the full budget and,
in morris, the endgame database). Sequence for Kids' hidden cards are searched by
information-set MCTS (:mod:`tavola.ai.mcts`); every other game by alpha-beta
(:mod:`tavola.ai.search`).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from tavola.games import Game
from tavola.games.tessere import Tessere

from .evaluation import WIN, knowledge
from .mcts import InformationSetMCTS
from .search import AlphaBeta, Budget, Oracle, ScoredTurn, SearchResult, Turn
from .tessere_endgame import Solution
from .tessere_endgame import solve as solve_tessere

__all__ = [
    "LEVELS",
    "WIN",
    "Budget",
    "Level",
    "ScoredTurn",
    "SearchResult",
    "Verdict",
    "analyse",
    "blunder_check",
    "choose_turn",
    "evaluate",
    "hint",
    "level_named",
    "pick",
]


@dataclass(frozen=True)
class Level:
    """A playing strength: the node budget per move and the deliberate imperfection.

    ``slack``: the level picks at random among the turns scored within ``slack`` of the
    best (hundredths of a man); ``mistake``: the chance of a random legal turn instead;
    ``contempt``: a position met again scores worse than an even game where play can cycle
    (Quixo), so the level looks for another plan rather than shuffling to a draw.
    """

    name: str
    nodes: int
    max_depth: int
    slack: int = 0
    mistake: float = 0.0
    endgames: bool = False
    contempt: bool = False
    # Games whose nodes cost less than the others' get more of them for the same time:
    # (game name, nodes) pairs that replace ``nodes`` for those games.
    game_nodes: tuple[tuple[str, int], ...] = ()

    def nodes_for(self, game_name: str) -> int:
        """The node budget per move in the game called ``game_name``."""
        return dict(self.game_nodes).get(game_name, self.nodes)


# Tessere's node budget at ``strongest`` (the other games': 12 000).
TESSERE_STRONGEST_NODES = 48000
# Node budgets sized for about a second per move on a Raspberry Pi 4 at ``strongest``.
LEVELS: dict[str, Level] = {
    # 600: two plies of Quixo with its threat checks (300 finished one, and lost 3 of 200
    # games to random play).
    "beginner": Level("beginner", nodes=600, max_depth=2, slack=30, mistake=0.05),
    "club": Level("club", nodes=2500, max_depth=8, slack=10),
    # contempt: without it strongest shuffled the same Quixo pushes against greedy to the
    # 400-ply cap (8-32-0 over 40 games; with it 40-0-0). Not for the levels with slack:
    # beginner read the contempt as a real deficit and picked a weak push within it.
    # Tessere's nodes cost about a quarter of what they did before its evaluation read
    # bitboards (48 000 now take 11 % more CPU than 12 000 did), so it keeps about the time
    # and takes the nodes: 32-0-3 against greedy instead of 29-0-6 (docs/ai.md, "Tessere
    # endgames").
    "strongest": Level("strongest", nodes=12000, max_depth=64, endgames=True, contempt=True,
                       game_nodes=(("tessere", TESSERE_STRONGEST_NODES),)),
}


# Tessere's exact endgame is tried from this many empty cells on: from 10 it is solved in
# about a thousand solver nodes, from 12 in 20 000-150 000. From 14 on 45 000 solver nodes
# (counted as 9 000 search nodes) it lost 8 of 35 games to greedy (27-0-8; 29-0-6 from 12).
TESSERE_SOLVE_EMPTIES = 12
# Solver nodes counted as one search node in the budget and the result. The search's nodes
# now cost about what the solver's do (docs/ai.md, "Tessere endgames").
TESSERE_SOLVER_NODES_PER_NODE = 1
# The share of the move's budget the solver may spend (the search gets what it leaves).
TESSERE_SOLVER_SHARE = 0.5


def level_named(name: str | Level) -> Level:
    """The level called ``name``; ValueError naming the levels otherwise."""
    if isinstance(name, Level):
        return name
    try:
        return LEVELS[name]
    except KeyError:
        raise ValueError(
            f"unknown level {name!r}; levels: {', '.join(LEVELS)}"
        ) from None


def _budget(level: Level, game: Game[Any], nodes: int | None, seconds: float | None,
            clock: Callable[[], float] | None) -> Budget:
    if nodes is None and seconds is None:
        nodes = level.nodes_for(game.name)
    return Budget(nodes=nodes, seconds=seconds, clock=clock)


def _oracle(game: Game[Any], level: Level, endgames: Any) -> Oracle | None:
    if endgames is None or not level.endgames or game.name != "morris":
        return None
    probe: Oracle = endgames.probe
    return probe


def analyse(
    game: Game[Any],
    level: str | Level = "strongest",
    *,
    nodes: int | None = None,
    seconds: float | None = None,
    clock: Callable[[], float] | None = None,
    seed: int = 0,
    count: int = 1,
    exclude: Sequence[Turn] = (),
    endgames: Any = None,
) -> SearchResult:
    """Search the position: every turn of the player to move, best first, the best
    ``count`` scored exactly. ``exclude``: turns already shown (the next hint).

    ``endgames``: a :class:`tavola.ai.morris_endgames.Endgames` for exact morris endgames.
    """
    lvl = level_named(level)
    info = knowledge(game)
    budget = _budget(lvl, game, nodes, seconds, clock)
    work = game.copy()
    if info.hidden:
        return InformationSetMCTS(work, info, budget, random.Random(seed)).run(
            count, tuple(exclude)
        )
    solved = _solve_tessere(work, lvl, budget, exclude)
    if solved is not None and solved.wins and count == 1:
        return _won(solved, work, [], 0)
    if solved is not None and budget.nodes is not None:
        budget = replace(budget, nodes=max(1, budget.nodes - solved.nodes))
    search = AlphaBeta(work, info, budget, _oracle(game, lvl, endgames), max_depth=lvl.max_depth,
                       contempt=lvl.contempt)
    # A level that picks among the near-best (``slack``) needs their exact scores.
    result = search.run(count, exclude, margin=lvl.slack)
    if solved is not None:
        result.nodes += solved.nodes
        if solved.wins:
            return _won(solved, work, result.ranked, result.nodes)
    return result


def _solve_tessere(game: Game[Any], level: Level, budget: Budget,
                   exclude: Sequence[Turn]) -> Solution | None:
    """Tessere's endgame solved exactly (:func:`tavola.ai.tessere_endgame.solve`) at the levels
    with ``endgames``, once at most ``TESSERE_SOLVE_EMPTIES`` cells are empty, on
    ``TESSERE_SOLVER_SHARE`` of the node budget (the search gets what it leaves); its
    ``nodes`` are in search nodes (``TESSERE_SOLVER_NODES_PER_NODE`` solver nodes each), as
    the budget and the result count them. None when not asked."""
    if not isinstance(game, Tessere) or not level.endgames:
        return None
    if sum(1 for token in game.view().values() if not token) > TESSERE_SOLVE_EMPTIES:
        return None
    share = int((budget.nodes if budget.nodes is not None else level.nodes_for(game.name))
                * TESSERE_SOLVER_SHARE)
    rate = TESSERE_SOLVER_NODES_PER_NODE
    solved = solve_tessere(game, max(1, share) * rate)
    solved = replace(solved, nodes=max(1, -(-solved.nodes // rate)))
    if solved.wins and (solved.move,) in {tuple(t) for t in exclude}:
        # The winning move was already shown: rank the others by search.
        return replace(solved, wins=None, move=None)
    return solved


def _won(solved: Solution, game: Game[Any], ranked: list[ScoredTurn], nodes: int) -> SearchResult:
    """The search's ranking with the solver's winning move first, scored as a win."""
    turn = (solved.move,)
    # The distance to the win is not known: the cells left bound it.
    plies = sum(1 for token in game.view().values() if not token)
    first = ScoredTurn(turn, WIN - plies, game.turn_notation([str(solved.move)]))
    rest = [r for r in ranked if r.turn != turn]
    return SearchResult([first, *rest], plies, nodes or solved.nodes)


def hint(
    game: Game[Any],
    level: str | Level = "strongest",
    *,
    nodes: int | None = None,
    seconds: float | None = None,
    clock: Callable[[], float] | None = None,
    seed: int = 0,
    count: int = 3,
    exclude: Sequence[Turn] = (),
    endgames: Any = None,
) -> list[ScoredTurn]:
    """The best ``count`` turns for the player to move, best first, with their scores.

    A turn is a tuple of the game's atomic actions (a mill and its removal; a whole
    capture chain); ``ScoredTurn.text`` is its notation. Empty once the game is over.
    """
    result = analyse(game, level, nodes=nodes, seconds=seconds, clock=clock, seed=seed,
                     count=count, exclude=exclude, endgames=endgames)
    return result.ranked[:count]


def choose_turn(
    game: Game[Any],
    level: str | Level = "club",
    *,
    nodes: int | None = None,
    seconds: float | None = None,
    clock: Callable[[], float] | None = None,
    seed: int = 0,
    endgames: Any = None,
) -> Turn:
    """The computer opponent's turn at ``level``: the best one, or at the low levels one
    of the near-best (and now and then any), drawn with ``seed``."""
    lvl = level_named(level)
    ranked = analyse(game, lvl, nodes=nodes, seconds=seconds, clock=clock, seed=seed,
                     count=1, endgames=endgames).ranked
    return pick(ranked, lvl, seed)


def pick(ranked: Sequence[ScoredTurn], level: str | Level, seed: int = 0) -> Turn:
    """The turn ``level`` plays from a search's ranking (:func:`choose_turn`'s last step).

    The low levels' imperfection never picks a turn the search proved lost while another
    is left: a beginner's opponent should win by playing well, not by waiting."""
    lvl = level_named(level)
    rng = random.Random(seed)
    if not ranked:
        raise ValueError("the game is over: there is no turn to choose")
    best = ranked[0]
    if lvl.mistake and rng.random() < lvl.mistake and not best.wins:
        # A deliberate mistake is a weaker turn, never one the search proved lost.
        playable = [r for r in ranked if r.score > -WIN // 2] or list(ranked)
        return playable[rng.randrange(len(playable))].turn
    if lvl.slack and not best.wins:
        near = [r for r in ranked if r.score >= best.score - lvl.slack]
        return near[rng.randrange(len(near))].turn
    return best.turn


def evaluate(game: Game[Any]) -> int:
    """The static evaluation for the player to move (hundredths of a man; ``WIN`` won)."""
    outcome = game.outcome()
    if outcome is not None:
        if outcome.winner is None:
            return 0
        info = knowledge(game)
        me = info.side(game, game.current_player)
        return WIN if any(info.side(game, w) == me for w in outcome.winners) else -WIN
    return knowledge(game).evaluate(game)


def _score_after(game: Game[Any], turn: Turn, level: Level, nodes: int, seed: int,
                 endgames: Any) -> int:
    """The mover's score of the position after ``turn``, by a search from there."""
    info = knowledge(game)
    mover = info.side(game, game.current_player)
    after = game.copy()
    for move in turn:
        after.apply(move)
    outcome = after.outcome()
    if outcome is not None:
        if outcome.winner is None:
            return 0
        won = any(info.side(after, w) == mover for w in outcome.winners)
        return WIN - len(turn) if won else -WIN + len(turn)
    ranked = analyse(after, level, nodes=nodes, seed=seed, count=1, endgames=endgames).ranked
    value = ranked[0].score
    same = info.side(after, after.current_player) == mover
    # One turn further from the root: move a proved result one step toward zero.
    if abs(value) > WIN // 2:
        value += -1 if value > 0 else 1
    return value if same else -value


@dataclass(frozen=True)
class Verdict:
    """How good a played turn was: its score against the best one's, for the mover."""

    played: int
    best: ScoredTurn
    loss: int
    blunder: bool
    threw_win: bool  # a won position thrown away


def blunder_check(
    game_before: Game[Any],
    turn: Turn,
    *,
    threshold: int = 150,
    level: str | Level = "strongest",
    nodes: int | None = None,
    seed: int = 0,
    endgames: Any = None,
) -> Verdict:
    """Whether playing ``turn`` in ``game_before`` was a blunder: the evaluation dropped by
    more than ``threshold`` (hundredths of a man), or a won position was thrown away."""
    lvl = level_named(level)
    budget = nodes if nodes is not None else lvl.nodes_for(game_before.name)
    result = analyse(game_before, lvl, nodes=max(1, budget // 2), seed=seed, count=1,
                     endgames=endgames)
    best = result.ranked[0]
    turn = tuple(turn)
    if turn == best.turn:
        return Verdict(best.score, best, 0, False, False)
    if knowledge(game_before).hidden:  # MCTS ranks first actions, in per mille
        score = next((r.score for r in result.ranked if r.turn[:1] == turn[:1]), -WIN)
    else:
        score = _score_after(game_before, turn, lvl, max(1, budget // 2), seed, endgames)
    loss = max(0, best.score - score)
    threw = best.score > WIN // 2 and score <= WIN // 2
    return Verdict(score, best, loss, loss > threshold or threw, threw)
