"""Playing strength: matches of tavola.ai against random, greedy and other engines.

Run: ``.venv/bin/python bench/strength.py [--games N] [--seconds S] [GAME ...]``.

1. Every level against a random player, per game, at the levels' node budgets (node counts
   do not depend on the machine's load): target >= 99 % won.
2. ``strongest`` against a greedy one-ply player (the best turn by the same static
   evaluation, ties at random): target >= 90 % won.
3. Against other programs at equal time per move (``--seconds``): morris and checkers
   (English draughts) against OpenSpiel's MCTS (pip ``open-spiel``; its simulations are
   calibrated to the same time per move), Russian draughts against py-draughts' own
   engine. Skipped with a note when the package is missing.

Colours alternate between games; each game is seeded. Prints win/draw/loss tables from
tavola.ai's side and its nodes per second. tavola.ai's rules engine referees every match;
a game the other program's rules end earlier (a move cap) counts as drawn.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tavola.ai import LEVELS, analyse, evaluate, pick
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


@dataclass
class Stats:
    """Nodes and seconds one player spent over a match."""

    nodes: int = 0
    seconds: float = 0.0


@dataclass
class Player:
    """A named move chooser: ``choose(game, rng) -> turn``; ``stats`` for tavola.ai."""

    name: str
    choose: Callable[[Game[Any], random.Random], Turn]
    stats: Stats = field(default_factory=Stats)
    reset: Callable[[], None] = lambda: None


def engine(level: str, seconds: float | None = None) -> Player:
    """tavola.ai at ``level``: its node budget, or ``seconds`` a move by the clock."""
    player = Player(f"tavola {level}" + (f" {seconds:g}s" if seconds else ""), lambda g, r: ())

    def choose(game: Game[Any], rng: random.Random) -> Turn:
        start = time.perf_counter()
        seed = rng.randrange(2**31)
        if seconds is None:
            lvl = LEVELS[level]
            result = analyse(game, lvl, seed=seed)
            turn = pick(result.ranked, lvl, seed)
        else:
            result = analyse(game, level, seconds=seconds, clock=time.perf_counter, seed=seed)
            turn = result.ranked[0].turn
        player.stats.nodes += result.nodes
        player.stats.seconds += time.perf_counter() - start
        return turn

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
        if game.hidden_information:
            turns: list[Turn] = [(m,) for m in game.legal_moves()]
        else:
            turns = legal_turns(game)
        best: list[Turn] = []
        best_score = None
        for turn in turns:
            work = game.copy()
            for move in turn:
                work.apply(move)
            score = evaluate(work)
            if work.outcome() is None and work.current_player != me:
                score = -score
            elif work.outcome() is not None:
                winners = work.outcome().winners  # type: ignore[union-attr]
                score = 10**9 if me in winners else -(10**9) if winners else 0
            if best_score is None or score > best_score:
                best, best_score = [turn], score
            elif score == best_score:
                best.append(turn)
        return best[rng.randrange(len(best))]

    return Player("greedy", choose)


CUT = -1  # the other program's rules ended or refused the game first


def play_game(name: str, params: dict[str, Any], players: tuple[Player, Player],
              seed: int) -> int | None:
    """One game; the winner's index in ``players`` (None: a draw or the ply cap; ``CUT``:
    the other program's rules ended it or did not know a move)."""
    rng = random.Random(seed)
    if name == "sequence-kids":
        params = {**params, "seed": seed}
    game = new_game(name, **params)
    for p in players:
        p.reset()
    for _ in range(PLY_CAP):
        if game.outcome() is not None:
            break
        mover = players[game.current_player]
        try:
            turn = mover.choose(game, rng)
        except GameEnded:
            return CUT
        for move in turn:
            game.apply(move)
    outcome = game.outcome()
    return None if outcome is None else outcome.winner


class GameEnded(Exception):
    """The other program's rules ended the game (its move cap): counted as drawn."""


@dataclass
class Row:
    """Win/draw/loss of tavola.ai (``players[0]``) in one pairing."""

    label: str
    won: int = 0
    drawn: int = 0
    lost: int = 0
    cut: int = 0

    def add(self, winner_is_ai: bool | None) -> None:
        if winner_is_ai is None:
            self.drawn += 1
        elif winner_is_ai:
            self.won += 1
        else:
            self.lost += 1

    def __str__(self) -> str:
        n = self.won + self.drawn + self.lost
        pct = 100 * self.won / n if n else 0.0
        cut = f"  ({self.cut} ended by the other program's rules, counted drawn)" \
            if self.cut else ""
        return (f"{self.label:<46} {self.won:>4} {self.drawn:>4} {self.lost:>4}  "
                f"{pct:5.1f} %{cut}")


def match(name: str, params: dict[str, Any], ai: Player, other: Player, games: int,
          label: str) -> Row:
    """``games`` games, colours alternating; tavola.ai's results."""
    row = Row(label)
    for g in range(games):
        ai_first = g % 2 == 0
        pair = (ai, other) if ai_first else (other, ai)
        winner = play_game(name, params, pair, seed=1000 + g)
        if winner == CUT:
            row.cut += 1
            winner = None
        row.add(None if winner is None else (winner == 0) == ai_first)
    return row


# ----------------------------------------------------------------------------- peers
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


def openspiel_mcts(game_name: str, seconds: float) -> Player | None:
    """OpenSpiel's MCTS (random rollouts), simulations calibrated to ``seconds`` a move."""
    try:
        import numpy as np
        import pyspiel  # type: ignore[import-not-found]
        from open_spiel.python.algorithms import mcts  # type: ignore[import-untyped]
    except ImportError:
        return None
    spiel_name = "nine_mens_morris" if game_name == "morris" else "checkers"
    sgame = pyspiel.load_game(spiel_name)
    evaluator = mcts.RandomRolloutEvaluator(1, np.random.RandomState(0))

    def bot(sims: int) -> Any:
        return mcts.MCTSBot(sgame, 2.0, sims, evaluator, random_state=np.random.RandomState(0))

    probe = bot(100)
    start = time.perf_counter()
    probe.step(sgame.new_initial_state())
    sims = max(10, int(100 * seconds / (time.perf_counter() - start)))
    state: dict[str, Any] = {}
    player = Player(f"OpenSpiel MCTS {seconds:g}s ({sims} sims)", lambda g, r: ())

    def reset() -> None:
        state["s"] = sgame.new_initial_state()
        state["done"] = 0
        state["bot"] = bot(sims)

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

    def choose(game: Game[Any], rng: random.Random) -> Turn:
        s = sync(game)
        me = s.current_player()
        ours = {_spiel_text(game_name, str(m)): m for m in game.legal_moves()}
        work = game.copy()
        turn: list[Any] = []
        while not s.is_terminal() and s.current_player() == me:
            action = state["bot"].step(s)
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


def py_draughts(seconds: float) -> Player | None:
    """py-draughts' own engine for Russian draughts, ``seconds`` a move."""
    try:
        import draughts as pd
    except ImportError:
        return None
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
        mine = before[str(turn[0]).replace("x", "-").split("-")[0]]
        taken = frozenset(c for c, t in before.items() if t and t[0] != mine[0] and not after[c])
        first = str(turn[0]).replace("x", "-").split("-")[0]
        last = str(turn[-1]).replace("x", "-").split("-")[-1]
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
            turn = history[state["done"]:]
            key = key_of_ours(replay, turn)
            theirs = {key_of_theirs(m): m for m in board.legal_moves}
            if key not in theirs:
                raise GameEnded
            board.push(theirs[key])
        if board.game_over:
            raise GameEnded
        move = engine_.get_best_move(board)
        board.push(move)
        want = key_of_theirs(move)
        for turn in legal_turns(game):
            if key_of_ours(game, turn) == want:
                state["done"] = len(history) + len(turn)
                return turn
        raise GameEnded

    player.choose, player.reset = choose, reset
    return player


# ----------------------------------------------------------------------------- main
def main(argv: list[str] | None = None) -> int:
    """Run the three parts and print the tables."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("games", nargs="*", help="games to play (default: all)")
    parser.add_argument("--games-per-pairing", "-n", type=int, default=2)
    parser.add_argument("--peer-games", type=int, default=2,
                        help="games against each other program")
    parser.add_argument("--seconds", type=float, default=0.2,
                        help="time a move against other programs")
    parser.add_argument("--levels", default="beginner,club,strongest")
    parser.add_argument("--skip", default="", help="parts to skip: random,greedy,peers")
    args = parser.parse_args(argv)
    chosen = [(n, p) for n, p in GAMES if not args.games or n in args.games
              or p.get("variant") in args.games]
    skip = set(args.skip.split(","))
    n = args.games_per_pairing
    header = f"{'pairing (tavola.ai first)':<46} {'won':>4} {'drawn':>4} {'lost':>4}  won"
    rates: dict[str, Stats] = {}
    print(f"tavola.ai strength, {n} games a pairing, colours alternating")
    print(header)
    for name, params in chosen:
        label = name + (f" {params['variant']}" if "variant" in params else "")
        if "random" not in skip:
            for level in args.levels.split(","):
                ai = engine(level)
                print(match(name, params, ai, random_player(), n,
                            f"{label}: {level} v random"), flush=True)
                total = rates.setdefault(f"{label} {level}", Stats())
                total.nodes += ai.stats.nodes
                total.seconds += ai.stats.seconds
        if "greedy" not in skip:
            ai = engine("strongest")
            print(match(name, params, ai, greedy_player(), n,
                        f"{label}: strongest v greedy"), flush=True)
            total = rates.setdefault(f"{label} strongest", Stats())
            total.nodes += ai.stats.nodes
            total.seconds += ai.stats.seconds
    if "peers" not in skip:
        peers: list[tuple[str, dict[str, Any], Player | None, str]] = [
            ("morris", {}, openspiel_mcts("morris", args.seconds), "open-spiel"),
            ("draughts", {"variant": "english"}, openspiel_mcts("checkers", args.seconds),
             "open-spiel"),
            ("draughts", {"variant": "russian"}, py_draughts(args.seconds), "py-draughts"),
        ]
        for name, params, other, package in peers:
            label = name + (f" {params['variant']}" if "variant" in params else "")
            if not any(name == n and params == p for n, p in chosen):
                continue
            if other is None:
                print(f"{label}: skipped, pip install {package}")
                continue
            ai = engine("strongest", seconds=args.seconds)
            print(match(name, params, ai, other, args.peer_games,
                        f"{label}: {ai.name} v {other.name}"), flush=True)
            rates[f"{label} {args.seconds:g}s"] = ai.stats
    print()
    print(f"{'tavola.ai search speed':<46} {'nodes/s':>10}")
    for key, s in rates.items():
        if s.seconds:
            print(f"{key:<46} {s.nodes / s.seconds:>10.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
