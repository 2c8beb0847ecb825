"""Does a search for a hint stall the daemon's loop? Tick lateness with and without one.

Run: ``.venv/bin/python bench/hint_loop.py [--seconds S] [GAME ...]``. An asyncio loop ticks
every 0.05 s as the daemon's does and records how late each tick wakes. First idle, then
while searches run back to back (``strongest`` with its node budget and the 1 s cap of
``[hints] seconds``, on mid-game positions of each game): in a worker thread, then in a
worker process as the daemon runs them (:func:`tavola.daemon.answer_in_worker`). Printed:
per phase the median, 99th percentile and worst tick lateness in milliseconds, and the
ratio of the busy median to the idle one (same process, same load); per game the median
search time.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import random
import statistics
import time
from concurrent.futures import Executor, ProcessPoolExecutor
from typing import Any

from tavola.daemon import answer_in_worker
from tavola.games import Game, new_game
from tavola.hints import Search, answer

TICK = 0.05
GAMES = ("morris", "draughts", "quixo", "tessere", "sequence-kids")


def position(name: str, seed: int) -> Game[Any]:
    game = new_game(name)
    rng = random.Random(seed)
    for _ in range(24):
        if game.outcome() is not None:
            break
        game.apply(rng.choice(game.legal_moves()))
    return game


async def ticks(seconds: float) -> list[float]:
    """Lateness of each tick over ``seconds``, in seconds."""
    late: list[float] = []
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        due = time.monotonic() + TICK
        await asyncio.sleep(TICK)
        late.append(time.monotonic() - due)
    return late


async def searching(names: list[str], stop: asyncio.Event, spent: dict[str, list[float]],
                    pool: Executor | None) -> None:
    loop = asyncio.get_running_loop()
    seed = 0
    while not stop.is_set():
        for name in names:
            game = position(name, seed)
            if game.outcome() is not None:
                continue
            search = Search("hint", game.copy(), game.history, "strongest", seconds=1.0)
            start = time.monotonic()
            if pool is None:
                await asyncio.to_thread(answer, search, clock=time.monotonic)
            else:
                await loop.run_in_executor(pool, answer_in_worker, search)
            spent.setdefault(name, []).append(time.monotonic() - start)
            if stop.is_set():
                return
        seed += 1


def row(label: str, late: list[float]) -> str:
    ms = sorted(x * 1000 for x in late)
    p99 = ms[min(len(ms) - 1, int(len(ms) * 0.99))]
    return (f"{label:<22} ticks {len(ms):>4}  median {statistics.median(ms):6.2f} ms  "
            f"p99 {p99:6.2f} ms  worst {ms[-1]:6.2f} ms")


async def main(seconds: float, names: list[str]) -> None:
    idle = await ticks(seconds)
    print(row("idle loop", idle))
    pool = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"))
    await asyncio.get_running_loop().run_in_executor(pool, time.sleep, 0)  # started
    for label, executor in (("search in a thread", None), ("search in a process", pool)):
        stop = asyncio.Event()
        spent: dict[str, list[float]] = {}
        worker = asyncio.create_task(searching(names, stop, spent, executor))
        busy = await ticks(seconds * 3)
        stop.set()
        await worker
        ratio = statistics.median(busy) / max(statistics.median(idle), 1e-6)
        print(row(label, busy) + f"  median x{ratio:.1f} idle")
        for name, times in spent.items():
            print(f"  {name:<14} searches {len(times):>3}  median "
                  f"{statistics.median(times):.2f} s")
    pool.shutdown()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=4.0)
    parser.add_argument("games", nargs="*", default=list(GAMES))
    args = parser.parse_args()
    asyncio.run(main(args.seconds, args.games))
