"""Move latency: from a settled snapshot handed to the session to the LED frame it returns.

Run: ``.venv/bin/python bench/latency.py [GAME ...] [--moves N]``. For each game, random
games are played through a Session (the daemon's pure core) on the game's default layout:
after every action the sensor reading it leaves is handed to ``Session.on_snapshot`` and
the call is timed until it returns the frame that confirms the move. Journal writes are
not included (they are the daemon's, and fsync time is the disk's); ``Session.prepare()``
(the next position's expectations, which the daemon computes after showing the frame,
before the next reading) is timed separately.

Every action is confirmed only once its reading has held for the settle time (a piece
slid across the board rests on free cells on its way), by a later tick: for those the timed
call is that tick, and the count is printed (their real latency is the settle time by
design, 0.3 s by default, plus up to one 0.05 s tick; ``bench/inference.py`` measures it
under noisy hands).
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from typing import Any

from tavola.games import GAMES, new_game
from tavola.hardware.layout import Layout
from tavola.inference import Ambiguous
from tavola.session import Session

SETTLE = 0.3


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def measure(name: str, moves: int, seed: int = 0) -> dict[str, Any]:
    rng = random.Random(seed)
    layout = Layout.for_game(name)
    confirm: list[float] = []
    prepare: list[float] = []
    waited = 0
    now = 0.0
    while len(confirm) < moves:
        game = new_game(name, **({"seed": rng.randrange(10**6)} if name == "sequence-kids"
                                 else {}))
        session = Session(game, layout, game.needs, cells=layout.cells, settle=SETTLE)
        session.start(now, now)
        session.on_snapshot(game.view(game.needs), now, now)
        while game.outcome() is None and len(confirm) < moves:
            move = rng.choice(game.legal_moves())
            probe = game.copy()
            probe.apply(move)
            reading = probe.view(game.needs)
            now += 1.0
            if reading == game.view(game.needs):  # a silent action: declared, not sensed
                session.command(str(move), now, now)
                continue
            plies = len(game.history)
            start = time.perf_counter()
            fx = session.on_snapshot(reading, now, now)
            elapsed = time.perf_counter() - start
            if len(game.history) == plies and not isinstance(session.result, Ambiguous):
                waited += 1  # could still be moving: confirmed by the tick after settling
                now += SETTLE + 0.01
                start = time.perf_counter()
                fx = session.tick(now, now)
                elapsed = time.perf_counter() - start
            if isinstance(session.result, Ambiguous):
                fx = session.command(str(move), now, now)  # the player says which
            assert fx.frame is not None, f"{name}: no frame for {move}"
            confirm.append(elapsed)
            start = time.perf_counter()
            session.prepare()
            prepare.append(time.perf_counter() - start)
    return {
        "p50": statistics.median(confirm) * 1e3,
        "p99": percentile(confirm, 0.99) * 1e3,
        "max": max(confirm) * 1e3,
        "prepare_p50": statistics.median(prepare) * 1e3,
        "prepare_p99": percentile(prepare, 0.99) * 1e3,
        "waited": waited,
        "moves": len(confirm),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("games", nargs="*")
    parser.add_argument("--moves", type=int, default=1000)
    args = parser.parse_args()
    print(f"{'game':<15}{'moves':>7}{'p50 ms':>9}{'p99 ms':>9}{'max ms':>9}"
          f"{'prepare p50':>13}{'p99':>8}{'settled':>9}")
    for name in args.games or list(GAMES):
        r = measure(name, args.moves)
        print(f"{name:<15}{r['moves']:>7}{r['p50']:>9.3f}{r['p99']:>9.3f}{r['max']:>9.2f}"
              f"{r['prepare_p50']:>13.3f}{r['prepare_p99']:>8.2f}{r['waited']:>9}")


if __name__ == "__main__":
    main()
