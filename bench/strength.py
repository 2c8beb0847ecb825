"""Playing strength: matches of tavola.ai against random, greedy and other engines.

Run: ``.venv/bin/python bench/strength.py [-n GAMES] [--jobs J] [--parts ...] [GAME ...]``.

1. ``random``: every level against a random player, per game, at the levels' node budgets
   (node counts, so the machine's load does not change a single move): target >= 99 % won.
   In morris the levels that use the endgame tables in play (``strongest``) use them here
   too: from the cache (``--endgames DIR``), built first when missing; ``--no-endgames``
   plays search alone.
2. ``greedy``: ``strongest`` against a greedy one-ply player (the best turn by the same
   static evaluation, ties at random): target >= 90 % won.
3. ``peers``: against other programs at equal time per move (``--seconds``): morris and
   checkers (English draughts) against OpenSpiel's MCTS (pip ``open-spiel``; its simulations
   are re-sized after every move to use the same time), Russian draughts against
   py-draughts' ``SimpleEngine``. Skipped with a note when the package is missing.
4. ``before`` (with ``--before REV``): ``club`` with this evaluation against ``club`` with
   the evaluation of git revision REV, the same node budget (``--before-nodes``): shows
   what a change of evaluation is worth. ``--evaluation REV`` instead makes every player
   of the run use REV's evaluations (a baseline of the other parts).
5. ``luck``: the greedy one-ply player against random play, no search at all: how much of
   a game luck decides, which the ``random`` targets are judged against. In a game with
   hidden cards (Sequence for Kids) also ``club`` *seeing every card*, the other hands and
   the deck's order (its MCTS searches the true deal instead of random deals of the unseen
   cards; a benchmark's oracle, never a player): what search wins when nothing is hidden,
   an estimate from above of what a player who cannot see the cards may hope for; and
   ``strongest`` seeing every card against greedy, the same ceiling for the greedy target.

Colours alternate between games; game k is seeded with 1000 + k, so a row replays exactly
(the peers and time budgets aside), and ``--first K`` plays on from game K: a longer row in
parts, each part new games. ``--seat first|second`` plays only the games where
tavola.ai moves first (even numbers) or second (odd). Prints win/draw/loss tables from
tavola.ai's side, the lower end of the 95 % confidence interval of its winning rate,
nodes per second of CPU time, seconds per move of both sides against the peers, and how
long each row took.
tavola's rules engine referees every match; a game the other program's rules end earlier
(its move cap) or a move it does not know counts as drawn and is reported.
"""

from __future__ import annotations

import argparse
import contextlib
import math
import multiprocessing
import random
import subprocess
import sys
import time
import types
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from tavola.ai import LEVELS, analyse, evaluate, morris_endgames, pick
from tavola.ai import evaluation as ai_evaluation
from tavola.games import Game, legal_turns, new_game

Turn = tuple[Any, ...]
PLY_CAP = 400

GAMES: list[tuple[str, dict[str, Any]]] = [
    ("morris", {}),
    ("draughts", {"variant": "dame"}),
    ("draughts", {"variant": "russian"}),
    ("draughts", {"variant": "english"}),
    ("quixo", {}),
    ("tessere", {}),
    ("sequence-kids", {}),
    ("quinque", {}),
]
PARTS = ("random", "greedy", "peers", "before", "luck")


@dataclass(frozen=True)
class Side:
    """A player, described so that a worker process can build it: ``kind`` is tavola,
    random, greedy, openspiel or py-draughts; ``seconds`` a time budget a move (else the
    level's nodes); ``before``: tavola with the evaluation of that git revision."""

    kind: str  # tavola, random, greedy, openspiel, py-draughts, or all-seeing (tavola peeking)
    level: str = "strongest"
    seconds: float | None = None
    before: str = ""
    nodes: int | None = None  # instead of the level's node budget
    endgames: str = ""  # morris: the directory of the endgame tables its level uses


@dataclass
class Player:
    """A named turn chooser: ``choose(game, rng) -> turn``; ``nodes`` searched (tavola)."""

    name: str
    choose: Callable[[Game[Any], random.Random], Turn]
    reset: Callable[[], None] = lambda: None
    nodes: int = 0


@dataclass(frozen=True)
class Pairing:
    """``games`` games of tavola (``ai``) against ``other`` in one game."""

    label: str
    game: str
    params: dict[str, Any]
    ai: Side
    other: Side
    games: int
    evaluation: str = ""  # a git revision whose evaluations every player uses (a baseline)


@dataclass
class Tally:
    """One pairing's results, from tavola's side, and what both sides spent."""

    won: int = 0
    drawn: int = 0
    lost: int = 0
    cut: int = 0
    nodes: int = 0
    cpu: float = 0.0
    moves: list[int] = field(default_factory=lambda: [0, 0])
    seconds: list[float] = field(default_factory=lambda: [0.0, 0.0])
    plies: int = 0
    lost_games: list[int] = field(default_factory=list)  # their numbers, to replay them


# ----------------------------------------------------------------------------- players
_BEFORE: dict[str, types.ModuleType] = {}


def _evaluation_at(rev: str) -> types.ModuleType:
    """controller/ai/evaluation.py as it was at git revision ``rev``, loaded as a module."""
    if rev not in _BEFORE:
        source = subprocess.run(["git", "show", f"{rev}:controller/ai/evaluation.py"],
                                capture_output=True, text=True, check=True).stdout
        module = types.ModuleType(f"evaluation_at_{rev}")
        sys.modules[module.__name__] = module  # its dataclasses look their module up
        exec(compile(source, f"{rev}:evaluation.py", "exec"), module.__dict__)
        _BEFORE[rev] = module
    return _BEFORE[rev]


@contextmanager
def _knowledge_of(rev: str, game_name: str) -> Iterator[None]:
    """The engine searches with revision ``rev``'s knowledge of the game for a while."""
    if not rev:
        yield
        return
    table = ai_evaluation.KNOWLEDGE
    now = table[game_name]
    table[game_name] = _evaluation_at(rev).KNOWLEDGE[game_name]
    try:
        yield
    finally:
        table[game_name] = now


_TABLES: dict[str, Any] = {}


def endgame_tables(directory: str) -> Any:
    """The morris endgame tables in ``directory``, loaded once a process (as the daemon
    loads them once); None when none are there."""
    if directory not in _TABLES:
        _TABLES[directory] = morris_endgames.load(Path(directory))
    return _TABLES[directory]


def tavola(side: Side) -> Player:
    """tavola.ai at ``side.level``: its node budget, or ``side.seconds`` a move; with
    ``side.endgames``, the morris endgame tables as in play (levels that use them)."""
    name = f"tavola {side.level}" + (f" {side.seconds:g}s" if side.seconds else "")
    tables = endgame_tables(side.endgames) if side.endgames else None
    player = Player(name + (f" (evaluation of {side.before})" if side.before else ""),
                    lambda g, r: ())

    def choose(game: Game[Any], rng: random.Random) -> Turn:
        seed = rng.randrange(2**31)
        with _knowledge_of(side.before, game.name):
            if side.seconds is None:
                lvl = LEVELS[side.level]
                result = analyse(game, lvl, nodes=side.nodes, seed=seed, endgames=tables)
                turn = pick(result.ranked, lvl, seed)
            else:
                result = analyse(game, side.level, seconds=side.seconds,
                                 clock=time.perf_counter, seed=seed, endgames=tables)
                turn = result.ranked[0].turn
        player.nodes += result.nodes
        return turn

    player.choose = choose
    return player


@contextmanager
def _seeing_every_card() -> Iterator[None]:
    """tavola's MCTS searches the true deal for a while (the cards it may not see
    included): the oracle of the ``luck`` part."""
    from tavola.ai import mcts

    honest = mcts.determinise
    mcts.determinise = lambda game, player, rng: game.copy()
    try:
        yield
    finally:
        mcts.determinise = honest


def all_seeing(side: Side) -> Player:
    """tavola at ``side.level`` seeing every card: the other hands and the deck's order."""
    player = tavola(side)
    honest = player.choose

    def choose(game: Game[Any], rng: random.Random) -> Turn:
        with _seeing_every_card():
            return honest(game, rng)

    player.name += " seeing every card"
    player.choose = choose
    return player


def random_player() -> Player:
    """Random atomic actions until the turn passes."""

    def choose(game: Game[Any], rng: random.Random) -> Turn:
        work = game.copy()
        me = work.current_player
        turn: list[Any] = []
        while work.outcome() is None and (not turn or work.current_player == me):
            moves = work.legal_moves()
            move = moves[rng.randrange(len(moves))]
            work.apply(move)
            turn.append(move)
        return tuple(turn)

    return Player("random", choose)


def greedy_player() -> Player:
    """The turn whose resulting position the static evaluation likes best (one ply)."""

    def choose(game: Game[Any], rng: random.Random) -> Turn:
        me = game.current_player
        if game.hidden_information or game.name == "quinque":  # one action: too many turns
            turns: list[Turn] = [(m,) for m in game.legal_moves()]
        else:
            turns = legal_turns(game)
        best: list[Turn] = []
        best_score = None
        for turn in turns:
            work = game.copy()
            for move in turn:
                work.apply(move)
            outcome = work.outcome()
            if outcome is not None:
                score = 10**9 if me in outcome.winners else -(10**9) if outcome.winners else 0
            else:
                score = evaluate(work)
                if work.current_player != me:
                    score = -score
            if best_score is None or score > best_score:
                best, best_score = [turn], score
            elif score == best_score:
                best.append(turn)
        return best[rng.randrange(len(best))]

    return Player("greedy one-ply", choose)


class GameEnded(Exception):
    """The other program's rules ended the game (its move cap) or it did not know a move."""


# OpenSpiel's point numbers: the board read row by row from the top.
MORRIS_POINTS = (
    "a7", "d7", "g7", "b6", "d6", "f6", "c5", "d5", "e5", "a4", "b4", "c4",
    "e4", "f4", "g4", "c3", "d3", "e3", "b2", "d2", "f2", "a1", "d1", "g1",
)  # fmt: skip


def _spiel_text(game_name: str, text: str) -> str:
    """Our action's notation in OpenSpiel's action strings."""
    if game_name == "morris":
        if "-" in text:
            a, b = text.split("-")
            return f"Move {MORRIS_POINTS.index(a)} -> {MORRIS_POINTS.index(b)}"
        return f"Point {MORRIS_POINTS.index(text.lstrip('x'))}"
    return text.replace("-", "").replace("x", "")


def openspiel_mcts(game_name: str, seconds: float) -> Player:
    """OpenSpiel's MCTS (random rollouts, UCT c = 2, MCTS-solver), its simulations re-sized
    after every move so that it spends ``seconds`` a move on average, like tavola."""
    import numpy as np
    import pyspiel
    from open_spiel.python.algorithms import mcts

    spiel_name = "nine_mens_morris" if game_name == "morris" else "checkers"
    sgame = pyspiel.load_game(spiel_name)
    rs = np.random.RandomState(0)
    evaluator = mcts.RandomRolloutEvaluator(1, rs)
    state: dict[str, Any] = {"sims": 100}
    player = Player(f"OpenSpiel MCTS {seconds:g}s", lambda g, r: ())

    def reset() -> None:
        state["s"] = sgame.new_initial_state()
        state["done"] = 0

    def sync(game: Game[Any]) -> Any:
        s = state["s"]
        for move in game.history[state["done"]:]:
            want = _spiel_text(game_name, str(move))
            legal = {s.action_to_string(a): a for a in s.legal_actions()}
            if want not in legal:
                raise GameEnded
            s.apply_action(legal[want])
        state["done"] = len(game.history)
        if s.is_terminal():
            raise GameEnded
        return s

    def step(s: Any) -> int:
        bot = mcts.MCTSBot(sgame, 2.0, state["sims"], evaluator, random_state=rs)
        start = time.perf_counter()
        action: int = bot.step(s)
        spent = max(1e-4, time.perf_counter() - start)
        # Re-size for the next action: halfway toward the count that fits the time.
        state["sims"] = max(10, int(state["sims"] * math.sqrt(seconds / spent)))
        return action

    def choose(game: Game[Any], rng: random.Random) -> Turn:
        s = sync(game)
        me = s.current_player()
        ours = {_spiel_text(game_name, str(m)): m for m in game.legal_moves()}
        work = game.copy()
        turn: list[Any] = []
        while not s.is_terminal() and s.current_player() == me:
            action = step(s)
            text = s.action_to_string(action)
            if text not in ours:
                raise GameEnded
            s.apply_action(action)
            work.apply(ours[text])
            turn.append(ours[text])
            ours = {_spiel_text(game_name, str(m)): m for m in work.legal_moves()}
        state["done"] += len(turn)
        return tuple(turn)

    player.choose, player.reset = choose, reset
    return player


def py_draughts(seconds: float) -> Player:
    """py-draughts' own engine (``SimpleEngine``: negamax, alpha-beta, quiescence) for
    Russian draughts, ``seconds`` a move."""
    import draughts as pd

    names: list[str] = pd.RussianBoard.SQUARE_NAMES
    engine_ = pd.SimpleEngine(depth_limit=30, time_limit=seconds)
    state: dict[str, Any] = {}
    player = Player(f"py-draughts SimpleEngine {seconds:g}s", lambda g, r: ())

    def reset() -> None:
        state["board"] = pd.RussianBoard()
        state["done"] = 0

    def key_of_ours(game: Game[Any], turn: Turn) -> tuple[str, str, frozenset[str]]:
        before = game.view()
        work = game.copy()
        for move in turn:
            work.apply(move)
        after = work.view()
        first = str(turn[0]).replace("x", "-").split("-")[0]
        last = str(turn[-1]).replace("x", "-").split("-")[-1]
        mine = before[first]
        taken = frozenset(c for c, t in before.items() if t and t[0] != mine[0] and not after[c])
        return first, last, taken

    def key_of_theirs(move: Any) -> tuple[str, str, frozenset[str]]:
        return (names[move.square_list[0]], names[move.square_list[-1]],
                frozenset(names[c] for c in move.captured_list))

    def choose(game: Game[Any], rng: random.Random) -> Turn:
        board = state["board"]
        history = game.history
        if state["done"] < len(history):  # the opponent's last turn, replayed there
            replay = new_game(game.name, **game.options)
            for move in history[: state["done"]]:
                replay.apply(move)
            key = key_of_ours(replay, history[state["done"]:])
            theirs = {key_of_theirs(m): m for m in board.legal_moves}
            if key not in theirs:
                raise GameEnded
            board.push(theirs[key])
        if board.game_over:
            raise GameEnded
        start = time.perf_counter()
        move = engine_.get_best_move(board)
        spent = max(1e-4, time.perf_counter() - start)
        # Its limit is soft (it finishes the iteration): re-size it toward the same time.
        limit = engine_.time_limit or seconds
        engine_.time_limit = min(seconds, limit * math.sqrt(seconds / spent))
        board.push(move)
        want = key_of_theirs(move)
        for turn in legal_turns(game):
            if key_of_ours(game, turn) == want:
                state["done"] = len(history) + len(turn)
                return turn
        raise GameEnded

    player.choose, player.reset = choose, reset
    return player


def build(side: Side, game_name: str) -> Player:
    """The player ``side`` describes, for ``game_name``."""
    if side.kind == "tavola":
        return tavola(side)
    if side.kind == "all-seeing":
        return all_seeing(side)
    if side.kind == "random":
        return random_player()
    if side.kind == "greedy":
        return greedy_player()
    if side.kind == "openspiel":
        return openspiel_mcts(game_name, side.seconds or 0.2)
    if side.kind == "py-draughts":
        return py_draughts(side.seconds or 0.2)
    raise ValueError(f"unknown player kind {side.kind!r}")


# ----------------------------------------------------------------------------- games
@dataclass(frozen=True)
class Result:
    """Game ``index`` of a pairing: tavola won (True), lost (False) or drew (None);
    ``cut``: drawn because the other program stopped; what each side (tavola first) spent."""

    pairing: int
    index: int
    ai_won: bool | None
    cut: bool
    nodes: int
    cpu: float
    moves: tuple[int, int]
    seconds: tuple[float, float]
    plies: int


@dataclass
class Played:
    """Game ``index`` of a pairing as played: the game at its end, whether tavola.ai (``ai``)
    moved first, ``cut`` (the other program stopped it), and per side (tavola first) the
    moves made and seconds spent; ``seconds[2]`` is tavola's CPU time."""

    game: Game[Any]
    ai_first: bool
    ai: Player
    cut: bool
    moves: list[int]
    seconds: list[float]


def play_game(pairing: Pairing, index: int) -> Played:
    """Play game ``index`` of ``pairing`` (seed 1000 + index; tavola moves first in even
    games)."""
    seed = 1000 + index
    rng = random.Random(seed)
    params = dict(pairing.params)
    if pairing.game == "sequence-kids":
        params["seed"] = seed
    game = new_game(pairing.game, **params)
    ai, other = build(pairing.ai, pairing.game), build(pairing.other, pairing.game)
    ai_first = index % 2 == 0
    seats = (ai, other) if ai_first else (other, ai)
    for p in seats:
        p.reset()
    moves, seconds = [0, 0], [0.0, 0.0]
    with _knowledge_of(pairing.evaluation, pairing.game):
        cut = _play_out(game, seats, ai, rng, moves, seconds)
    return Played(game, ai_first, ai, cut, moves, seconds)


def play_one(task: tuple[int, Pairing, int]) -> Result:
    """Game ``index`` of a pairing, as a row's tally counts it."""
    number, pairing, index = task
    played = play_game(pairing, index)
    game, moves, seconds = played.game, played.moves, played.seconds
    outcome = game.outcome()
    won: bool | None = None
    if outcome is not None and outcome.winner is not None and not played.cut:
        won = (outcome.winner == 0) == played.ai_first
    return Result(number, index, won, played.cut, played.ai.nodes, seconds[2],
                  (moves[0], moves[1]), (seconds[0], seconds[1]), len(game.history))


def _play_out(game: Game[Any], seats: tuple[Player, Player], ai: Player, rng: random.Random,
              moves: list[int], seconds: list[float]) -> bool:
    """Play ``game`` to its end or the ply cap; ``moves`` and ``seconds`` per side (tavola
    first; ``seconds[2]``: tavola's CPU time). True when the other program stopped it."""
    seconds.append(0.0)
    for _ in range(PLY_CAP):
        if game.outcome() is not None:
            break
        mover = seats[game.current_player]
        who = 0 if mover is ai else 1
        start, start_cpu = time.perf_counter(), time.process_time()
        try:
            turn = mover.choose(game, rng)
        except GameEnded:
            return True
        seconds[who] += time.perf_counter() - start
        moves[who] += 1
        if who == 0:
            seconds[2] += time.process_time() - start_cpu
        for move in turn:
            game.apply(move)
    return False


def wilson_low(won: int, n: int, z: float = 1.96) -> float:
    """The lower end of the 95 % Wilson interval of a winning rate ``won`` of ``n``."""
    if n == 0:
        return 0.0
    p = won / n
    centre = p + z * z / (2 * n)
    spread = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return (centre - spread) / (1 + z * z / n)


def row_text(pairing: Pairing, t: Tally, wall: float) -> str:
    """One table row: label, W D L, won % (and its 95 % lower bound), speed, time."""
    n = t.won + t.drawn + t.lost
    pct = 100 * t.won / n if n else 0.0
    speed = f"{t.nodes / t.cpu:>7.0f}" if t.cpu else f"{'':>7}"
    per_move = ""
    if pairing.other.kind in ("openspiel", "py-draughts"):
        a, o = (t.seconds[i] / t.moves[i] if t.moves[i] else 0.0 for i in (0, 1))
        per_move = f"  s/move {a:.2f} v {o:.2f}"
    cut = f"  ({t.cut} stopped by the other program, drawn)" if t.cut else ""
    lost = f"  lost game(s) {', '.join(map(str, sorted(t.lost_games)))}" if t.lost_games else ""
    return (f"{pairing.label:<44} {t.won:>4} {t.drawn:>4} {t.lost:>4}  {pct:5.1f} % "
            f"(>= {100 * wilson_low(t.won, n):4.1f})  {speed}  {wall:6.0f}s{per_move}{cut}"
            f"{lost}")


def pairings(chosen: list[tuple[str, dict[str, Any]]], parts: set[str], n: int, strong: int,
             peer_games: int, seconds: float, levels: list[str], before: str,
             evaluation: str = "", before_nodes: int | None = None) -> list[Pairing]:
    """Every pairing of the run, in the order they are printed (``evaluation``: every
    player of every pairing uses that git revision's evaluations)."""
    out = _pairings(chosen, parts, n, strong, peer_games, seconds, levels, before,
                    before_nodes)
    if evaluation:
        out = [replace(p, label=f"{p.label} [{evaluation}]", evaluation=evaluation)
               for p in out]
    return out


def _pairings(chosen: list[tuple[str, dict[str, Any]]], parts: set[str], n: int, strong: int,
              peer_games: int, seconds: float, levels: list[str], before: str,
              before_nodes: int | None) -> list[Pairing]:
    out: list[Pairing] = []
    for name, params in chosen:
        label = name + (f" {params['variant']}" if "variant" in params else "")
        if "random" in parts:
            out += [Pairing(f"{label}: {lvl} v random", name, params, Side("tavola", lvl),
                            Side("random"), strong if lvl == "strongest" else n)
                    for lvl in levels]
        if "greedy" in parts:
            out.append(Pairing(f"{label}: strongest v greedy", name, params,
                               Side("tavola", "strongest"), Side("greedy"), strong))
        if "luck" in parts:  # what a one-ply player wins against random play: the ceiling
            out.append(Pairing(f"{label}: greedy (no search) v random", name, params,
                               Side("greedy"), Side("random"), n))
            if new_game(name, **params).hidden_information:
                out.append(Pairing(f"{label}: club seeing every card v random", name, params,
                                   Side("all-seeing", "club"), Side("random"), n))
                # The ceiling of the greedy target: what search wins when no card is hidden.
                out.append(Pairing(f"{label}: strongest seeing every card v greedy", name,
                                   params, Side("all-seeing", "strongest"), Side("greedy"),
                                   strong))
        if "before" in parts and before:
            nodes = before_nodes or LEVELS["club"].nodes
            out.append(Pairing(f"{label}: club v {before}'s evaluation, {nodes} nodes", name,
                               params, Side("tavola", "club", nodes=nodes),
                               Side("tavola", "club", before=before, nodes=nodes), n))
        if "peers" in parts:
            ai = Side("tavola", "strongest", seconds)
            if name == "morris" or params.get("variant") == "english":
                out.append(Pairing(f"{label}: strongest v OpenSpiel MCTS", name, params, ai,
                                   Side("openspiel", seconds=seconds), peer_games))
            elif params.get("variant") == "russian":
                out.append(Pairing(f"{label}: strongest v py-draughts", name, params, ai,
                                   Side("py-draughts", seconds=seconds), peer_games))
    return out


def ensure_endgames(directory: Path | None) -> str:
    """The directory of the morris endgame tables (the cache by default), built there
    first when none are (a minute or two, needs numpy), as `tavola endgames build` does."""
    where = directory or morris_endgames.default_directory()
    if morris_endgames.load(where) is None:
        from tavola.ai.morris_retrograde import build as build_tables

        print(f"morris endgame tables: none in {where}; building them (a minute or two)",
              flush=True)
        built = build_tables()
        stats = {name: {"won": int((v > 0).sum()), "lost": int((v < 0).sum())}
                 for name, v in built.items()}
        morris_endgames.save(built, where, stats)
    print(f"morris endgame tables: {where} (used by the levels that use them in play)")
    return str(where)


def with_endgames(pairing: Pairing, directory: str) -> Pairing:
    """``pairing`` with its tavola sides using the morris endgame tables (morris only)."""
    if pairing.game != "morris":
        return pairing

    def side(s: Side) -> Side:
        return replace(s, endgames=directory) if s.kind == "tavola" else s

    return replace(pairing, ai=side(pairing.ai), other=side(pairing.other))


def _missing(side: Side) -> str | None:
    """The pip package a peer needs when it is not installed."""
    try:
        if side.kind == "openspiel":
            import pyspiel  # noqa: F401
        elif side.kind == "py-draughts":
            import draughts  # noqa: F401
    except ImportError:
        return "open-spiel" if side.kind == "openspiel" else "py-draughts"
    return None


def game_numbers(first: int, games: int, seat: str) -> list[int]:
    """The numbers of ``games`` games from ``first`` on; with ``seat`` "first" or
    "second", only those where tavola.ai has that seat (it moves first in even games)."""
    if seat == "both":
        return list(range(first, first + games))
    parity = 0 if seat == "first" else 1
    start = first + (parity - first) % 2  # the first game of that parity from ``first`` on
    return list(range(start, start + 2 * games, 2))


def main(argv: list[str] | None = None) -> int:
    """Run the chosen parts and print the tables."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("games", nargs="*", help="games to play (default: all); a draughts "
                        "variant's name stands for that variant")
    parser.add_argument("-n", "--games-per-pairing", type=int, default=50)
    parser.add_argument("--strongest-games", type=int, default=None,
                        help="games for the strongest level's pairings (default: -n)")
    parser.add_argument("--peer-games", type=int, default=20,
                        help="games against each other program")
    parser.add_argument("--seconds", type=float, default=0.5,
                        help="time a move for both sides against other programs")
    parser.add_argument("--levels", default="beginner,club,strongest")
    parser.add_argument("--parts", default="random,greedy,peers",
                        help=f"comma-separated, of: {', '.join(PARTS)}")
    parser.add_argument("--before", default="", help="git revision for the 'before' part")
    parser.add_argument("--before-nodes", type=int, default=None,
                        help="node budget a move of both sides in the 'before' part "
                        "(default: club's)")
    parser.add_argument("--evaluation", default="",
                        help="git revision whose evaluations every player uses (a baseline)")
    parser.add_argument("--endgames", default="",
                        help="directory of the morris endgame tables the levels that use "
                        "them (strongest) play with, as in play; default: the cache "
                        "(`tavola endgames build`), built there first when missing")
    parser.add_argument("--no-endgames", action="store_true",
                        help="morris without the endgame tables (search alone)")
    parser.add_argument("--jobs", "-j", type=int, default=2, help="worker processes")
    parser.add_argument("--first", type=int, default=0,
                        help="the first game's number k (seeded 1000 + k): --first 35 -n 25 "
                        "plays games 35-59, the games after a run of -n 35")
    parser.add_argument("--seat", choices=("both", "first", "second"), default="both",
                        help="only the games where tavola.ai moves first (even numbers) "
                        "or second (odd): -n counts those games")
    args = parser.parse_args(argv)
    if args.first < 0:
        parser.error("--first is a game's number, 0 or more")
    if args.jobs < 1:
        parser.error("--jobs: at least 1 worker")
    parts = set(args.parts.split(",")) - {""}
    if parts - set(PARTS):
        parser.error(f"unknown part(s) {', '.join(sorted(parts - set(PARTS)))}; "
                     f"parts: {', '.join(PARTS)}")
    if "before" in parts and not args.before:
        parser.error("the 'before' part needs --before REV (a git revision)")
    chosen = [(g, p) for g, p in GAMES if not args.games or g in args.games
              or p.get("variant") in args.games]
    n = args.games_per_pairing
    strong = n if args.strongest_games is None else args.strongest_games
    plan = pairings(chosen, parts, n, strong, args.peer_games, args.seconds,
                    args.levels.split(","), args.before, args.evaluation, args.before_nodes)
    for p in [p for p in plan if _missing(p.other)]:
        print(f"{p.label}: skipped, pip install {_missing(p.other)}")
    plan = [p for p in plan if not _missing(p.other)]
    if any(p.game == "morris" for p in plan) and not args.no_endgames:
        directory = ensure_endgames(Path(args.endgames) if args.endgames else None)
        plan = [with_endgames(p, directory) for p in plan]
    games_from = f", games {args.first} on" if args.first else ""
    colours = ("colours alternating" if args.seat == "both"
               else f"only the games where tavola.ai moves {args.seat}")
    print(f"tavola.ai strength: {n} games a pairing{games_from} ({strong} for strongest, "
          f"{args.peer_games} against other programs at {args.seconds:g} s a move), "
          f"{colours}, {args.jobs} worker(s)")
    print(f"{'pairing (tavola.ai first)':<44} {'won':>4} {'drawn':>4} {'lost':>4}  "
          f"{'won':>7} (95 % low)  nodes/s   time")
    tasks = [(i, p, k) for i, p in enumerate(plan)
             for k in game_numbers(args.first, p.games, args.seat)]
    tallies = [Tally() for _ in plan]
    left = [p.games for p in plan]
    shown = 0
    t0 = last = time.perf_counter()
    # One job plays in this process (a profiler sees it; no worker to start).
    with (multiprocessing.Pool(args.jobs) if args.jobs > 1 else contextlib.nullcontext()) as pool:
        for r in (pool.imap(play_one, tasks) if pool is not None else map(play_one, tasks)):
            t = tallies[r.pairing]
            if r.ai_won is None:
                t.drawn += 1
            elif r.ai_won:
                t.won += 1
            else:
                t.lost += 1
                t.lost_games.append(r.index)
            t.cut += r.cut
            t.nodes += r.nodes
            t.cpu += r.cpu
            t.plies += r.plies
            for i in (0, 1):
                t.moves[i] += r.moves[i]
                t.seconds[i] += r.seconds[i]
            left[r.pairing] -= 1
            while shown < len(plan) and left[shown] == 0:
                now = time.perf_counter()  # rows finish in order: the time since the last
                print(row_text(plan[shown], tallies[shown], now - last), flush=True)
                last = now
                shown += 1
    print(f"total {time.perf_counter() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
