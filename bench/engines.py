"""Rules-engine speed: random-playout throughput and perft speed, per game and variant.

Run: ``make bench`` (or ``.venv/bin/python bench/engines.py [GAME ...]``). Prints medians
of several runs. With py-draughts installed (a dev dependency) it also measures that
library's Russian draughts in the same process and prints our ratio against it.

Playouts call the public API a player or hint engine uses: ``legal_moves()`` then
``apply(random choice)``, on fresh games until each ends (or a ply cap). An "action" is one
atomic action (a jump, a removal); a "turn" ends when the player to move changes.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable
from functools import partial
from typing import Any

from tavola.games import GAMES, new_game, perft

RUNS = 5
SECONDS = 1.0
PLY_CAP = 400


def settings() -> list[tuple[str, dict[str, Any]]]:
    """Every game with each variant and the parameters its conformance test plays."""
    out: list[tuple[str, dict[str, Any]]] = []
    for name in GAMES:
        cls = GAMES[name]
        rows: list[dict[str, Any]] = [{"variant": v} for v in cls.variants] or [{}]
        rows += list(getattr(cls, "CONFORMANCE_PARAMS", ()))
        out += [(name, params) for params in rows]
    return out


def playout_rate(name: str, params: dict[str, Any], seed: int) -> tuple[float, float]:
    """(actions/s, turns/s) of random games played for about SECONDS."""
    rng = random.Random(seed)
    actions = turns = 0
    start = time.perf_counter()
    while time.perf_counter() - start < SECONDS:
        game = new_game(name, **params)
        for _ in range(PLY_CAP):
            moves = game.legal_moves()
            if not moves:
                break
            player = game.current_player
            game.apply(rng.choice(moves))
            actions += 1
            turns += game.current_player != player or game.outcome() is not None
    elapsed = time.perf_counter() - start
    return actions / elapsed, turns / elapsed


def perft_rate(name: str, params: dict[str, Any]) -> tuple[int, float]:
    """(depth, leaves/s) at the first depth whose perft takes at least 0.2 s (depth <= 6)."""
    depth, leaves, elapsed = 0, 1, 0.0
    while elapsed < 0.2 and depth < 6:
        depth += 1
        start = time.perf_counter()
        leaves = perft(new_game(name, **params), depth)
        elapsed = time.perf_counter() - start
    times = [elapsed]
    for _ in range(2):
        start = time.perf_counter()
        perft(new_game(name, **params), depth)
        times.append(time.perf_counter() - start)
    return depth, leaves / statistics.median(times)


def py_draughts_rate(seed: int) -> float | None:
    """py-draughts' Russian variant: random-playout moves (whole turns) per second."""
    try:
        import draughts
    except ImportError:
        return None
    rng = random.Random(seed)
    moves_done = 0
    start = time.perf_counter()
    while time.perf_counter() - start < SECONDS:
        board = draughts.RussianBoard()
        for _ in range(PLY_CAP):
            legal = list(board.legal_moves)
            if not legal or board.game_over:
                break
            board.push(rng.choice(legal))
            moves_done += 1
    return moves_done / (time.perf_counter() - start)


def median_of(fn: Callable[[int], Any]) -> Any:
    results = [fn(seed) for seed in range(RUNS)]
    if isinstance(results[0], tuple):
        return tuple(statistics.median(r[i] for r in results) for i in range(len(results[0])))
    return statistics.median(results)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("games", nargs="*", help="only these games (default: all)")
    args = parser.parse_args()
    print(f"median of {RUNS} runs of {SECONDS:.0f} s; Python {sys.version.split()[0]}")
    print(f"{'game':<15}{'actions/s':>11}{'turns/s':>10}{'perft d':>9}{'leaves/s':>11}  params")
    russian_turns = None
    for name, params in settings():
        if args.games and name not in args.games:
            continue
        actions, turns = median_of(partial(playout_rate, name, params))
        depth, leaves = perft_rate(name, params)
        label = ",".join(f"{k}={v}" for k, v in params.items()) or "-"
        print(f"{name:<15}{actions:>11,.0f}{turns:>10,.0f}{depth:>9}{leaves:>11,.0f}  {label}")
        if name == "draughts" and params.get("variant") == "russian":
            russian_turns = turns
    if russian_turns is not None:
        theirs = median_of(py_draughts_rate)
        if theirs is None:
            print("py-draughts not installed: no reference run")
        else:
            print(f"py-draughts RussianBoard: {theirs:,.0f} moves/s (whole turns); "
                  f"ours/theirs = {russian_turns / theirs:.2f} (turns/s)")


if __name__ == "__main__":
    main()
