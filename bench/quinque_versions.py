"""Quinque's engine now against the engine at an earlier commit, in one process.

Run: ``nice -n 5 .venv/bin/python bench/quinque_versions.py [COMMIT] [--rounds N]
[--games N]``. The three files of the engine at COMMIT (``controller/games/quinque.py``,
``quinque_geometry.py``, ``quinque_moves.py``; read with ``git show``) are loaded as a
package of their own beside the working tree's, so both run in the same process on the same
seeds. Both list their actions in the canonical order, so a seed plays the same game on
each: the playouts are paired game by game (the games' moves are checked equal).

Per round, the same random games are played on each engine alternately, each engine first
in every other game (``legal_moves()`` then ``apply(random choice)``, the bench's playout),
and a perft of depth 3 from the start;
every figure is CPU time, printed as the median of the rounds with their min-max, and the
ratio new / old is the median of the rounds' ratios; the steadier figure under load is the
median of the games' own ratios (each game timed on both engines), with its quartiles.
Figures under load swing: compare the ratios, which the load hits alike.
"""

from __future__ import annotations

import argparse
import functools
import importlib
import random
import statistics
import subprocess
import sys
import tempfile
import time
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tavola.games import new_game, perft

ROOT = Path(__file__).resolve().parents[1]
FILES = ("quinque.py", "quinque_geometry.py", "quinque_moves.py")


def engine_at(commit: str, into: Path) -> type[Any]:
    """The Quinque class of the engine at ``commit``, loaded from a copy of its files
    under ``into`` (its one relative import of the game base made absolute)."""
    name = "quinque_at_" + commit.replace("~", "_").replace("^", "_")
    package = into / name
    package.mkdir(parents=True, exist_ok=True)
    (package / "__init__.py").write_text("")
    for file in FILES:
        text = subprocess.run(
            ["git", "show", f"{commit}:controller/games/{file}"], cwd=ROOT, check=True,
            capture_output=True, text=True,
        ).stdout
        absolute = text.replace("from .base import", "from tavola.games.base import")
        (package / file).write_text(absolute)
    if str(into) not in sys.path:
        sys.path.insert(0, str(into))
    module: types.ModuleType = importlib.import_module(f"{name}.quinque")
    cls: type[Any] = module.Quinque
    return cls


def playout(game: Any, rng: random.Random, cap: int = 400) -> list[str]:
    """Play ``game`` out at random (the bench's playout); the actions played, as text."""
    played: list[str] = []
    for _ in range(cap):
        moves = game.legal_moves()
        if not moves:
            break
        move = rng.choice(moves)
        game.apply(move)
        played.append(str(move))
    return played


def playout_new(make: Callable[[], Any], rng: random.Random) -> list[str]:
    """:func:`playout` of a new game from ``make``."""
    return playout(make(), rng)


def cpu(run: Callable[[], Any]) -> tuple[Any, float]:
    """(what ``run`` returns, the CPU seconds it took)."""
    start = time.process_time()
    out = run()
    return out, time.process_time() - start


def spread(values: list[float], fmt: str = ",.0f") -> str:
    """Median (min-max)."""
    return (f"{statistics.median(values):{fmt}} "
            f"({min(values):{fmt}}-{max(values):{fmt}})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("commit", nargs="?", default="HEAD", help="the old engine's commit")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--games", type=int, default=10, help="random games per round")
    parser.add_argument("--perft", type=int, default=3, help="perft depth (0: none)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        old_class = engine_at(args.commit, Path(tmp))
        for params in ({}, {"advanced": True}):
            label = ",".join(f"{k}={v}" for k, v in params.items()) or "basic"

            def make_new(params: dict[str, Any] = params) -> Any:
                return new_game("quinque", **params)

            def make_old(params: dict[str, Any] = params) -> Any:
                return old_class(**params)

            new_rates: list[float] = []
            old_rates: list[float] = []
            ratios: list[float] = []
            perft_ratios: list[float] = []
            game_ratios: list[float] = []
            for r in range(args.rounds):
                seconds = [0.0, 0.0]
                actions = 0
                for g in range(args.games):
                    seed = r * 1000 + g
                    runs = [(make_new, 0), (make_old, 1)]
                    if g % 2:
                        runs.reverse()  # each engine plays first in every other game
                    out: list[tuple[list[str], float]] = [([], 0.0), ([], 0.0)]
                    for make, side in runs:
                        out[side] = cpu(functools.partial(playout_new, make, random.Random(seed)))
                    (played_new, t_new), (played_old, t_old) = out
                    if played_new != played_old:
                        sys.exit(f"seed {seed}: the engines played different games")
                    game_ratios.append(t_old / t_new)
                    seconds[0] += t_new
                    seconds[1] += t_old
                    actions += len(played_new)
                new_rates.append(actions / seconds[0])
                old_rates.append(actions / seconds[1])
                ratios.append(seconds[1] / seconds[0])
                if args.perft:
                    n_new, t_new = cpu(lambda: perft(make_new(), args.perft))
                    n_old, t_old = cpu(lambda: perft(make_old(), args.perft))
                    if n_new != n_old:
                        sys.exit(f"perft {args.perft}: {n_new} v {n_old} leaves")
                    perft_ratios.append(t_old / t_new)
            print(f"quinque {label}: new v {args.commit}, {args.rounds} rounds of "
                  f"{args.games} games, CPU time")
            print(f"  playouts actions/s: new {spread(new_rates)}, old {spread(old_rates)}, "
                  f"ratio {spread(ratios, '.2f')}; µs an action new "
                  f"{1e6 / statistics.median(new_rates):.1f}, old "
                  f"{1e6 / statistics.median(old_rates):.1f}")
            quarters = statistics.quantiles(game_ratios, n=4)
            print(f"  the games' ratios (each game on both engines): median "
                  f"{statistics.median(game_ratios):.2f}, quartiles {quarters[0]:.2f}-"
                  f"{quarters[2]:.2f}, {len(game_ratios)} games")
            if perft_ratios:
                print(f"  perft d{args.perft}: ratio {spread(perft_ratios, '.2f')}")


if __name__ == "__main__":
    main()
