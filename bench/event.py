"""A club event's cost: latency from a board's accepted move to the hall page, and the
broker's and the console's CPU and memory, as the boards double (25, 50, 100, 200).

Run: ``.venv/bin/python -m bench.event [--sizes 25,50,100,200] [--interval 3]
[--seconds 20]``. Needs Mosquitto (``make test`` installs it as root).

Three kinds of process: a real Mosquitto on a free loopback port with the ACL of
docs/event; ``tavola event`` (the real console) as the arbiter; and one process of
simulated boards, each a real :class:`~tavola.event.publisher.EventPublisher` with its own
broker account over a real session (morris), making a random legal move every
``interval`` seconds (random phase). A page's event stream is read here: when a table's
ply grows, the latency is now minus the board's time of the move (one machine, one
clock). It includes the console's coalescing of page events (at most every 0.1 s).
CPU is the share of one core over the measuring window (after a warm-up), memory the
resident set (VmRSS) at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import aiohttp

from tests.event.broker import PASSWORD, Broker, free_port

EVENT = "bench"
TICKS = os.sysconf("SC_CLK_TCK")


# ------------------------------------------------------------------ the boards' process
class _Journal:
    """Just the header file the publisher reads the game's id from."""

    def __init__(self, path: Path) -> None:
        self.current = path


class _Board:
    """A board without hardware: a real session whose game is moved directly."""

    def __init__(self, table: int, folder: Path) -> None:
        from tavola.hardware.layout import Layout

        self.table = table
        self.layout = Layout.for_game("morris")
        self.journal = _Journal(folder / f"{table}.jsonl")
        self.clock: Callable[[], float] = time.monotonic
        self.wall: Callable[[], float] = time.time
        self.games = 0
        self.session = self.fresh()

    def fresh(self) -> Any:
        """A new game: its header in the journal file, a new session."""
        from tavola.games import new_game
        from tavola.record import StartEntry
        from tavola.session import Session

        self.games += 1
        header = StartEntry.of(new_game("morris"), game_id=f"g{self.table}-{self.games}",
                               wall=time.time())
        self.journal.current.write_text(json.dumps(header.to_json()) + "\n")
        return Session(new_game("morris"), self.layout, "occupancy", cells=self.layout.cells)

    def apply(self, fx: Any) -> None:
        """Not used: the bench sends no commands."""

    def new_game(self, note: Any) -> None:
        """Not used: the bench sends no commands."""


async def _boards(count: int, port: int, interval: float) -> None:
    from tavola.config import load_config
    from tavola.event.publisher import EventPublisher

    folder = Path(tempfile.mkdtemp(prefix="tavola-bench-boards-"))
    rng = random.Random(16)
    publishers = []
    for table in range(1, count + 1):
        config = load_config(None, {
            "TAVOLA_EVENT_ENABLED": "true", "TAVOLA_EVENT_BROKER": f"127.0.0.1:{port}",
            "TAVOLA_EVENT_EVENT": EVENT, "TAVOLA_EVENT_TABLE": str(table),
            "TAVOLA_EVENT_USERNAME": str(table),
            "TAVOLA_EVENT_PASSWORD": PASSWORD.format(table)}, {}).event
        board = _Board(table, folder)
        publisher = EventPublisher(board, config)  # type: ignore[arg-type]
        await publisher.start()
        publishers.append((board, publisher))

    async def play(board: _Board, publisher: EventPublisher) -> None:
        await asyncio.sleep(rng.uniform(0, interval))
        while True:
            game = board.session.game
            if game.outcome() is not None or len(game.history) > 150:
                board.session = board.fresh()
            else:
                game.apply(rng.choice(game.legal_moves()))
            publisher.publish()
            await asyncio.sleep(interval)

    await asyncio.gather(*(play(b, p) for b, p in publishers))


# ------------------------------------------------------------------ the measuring side
def _cpu(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


async def _stream(url: str, latencies: list[float], measuring: list[bool]) -> None:
    plies: dict[str, int] = {}
    async with aiohttp.ClientSession() as http, http.get(f"{url}/events") as response:
        data = ""
        async for raw in response.content:
            line = raw.decode().rstrip("\n")
            if line.startswith("data: "):
                data = line[6:]
            elif not line and data:
                now = time.time()
                for t in json.loads(data)["tables"]:
                    if t["ply"] > plies.get(t["table"], 0) and measuring[0] and t["wall"]:
                        latencies.append(now - t["wall"])
                    plies[t["table"]] = t["ply"]
                data = ""


async def _wait_port(port: int) -> None:
    for _ in range(500):
        try:
            _, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.close()
            return
        except OSError:
            await asyncio.sleep(0.02)
    raise RuntimeError(f"nothing listens on {port}")


async def measure(boards: int, interval: float, seconds: float) -> dict[str, float]:
    """One size: start everything, warm up, measure for ``seconds``, stop everything."""
    folder = Path(tempfile.mkdtemp(prefix="tavola-bench-event-"))
    broker = Broker(folder, boards)
    broker.start()
    assert broker.process is not None
    listen = free_port()
    env = {**os.environ, "TAVOLA_EVENT_BROKER": f"127.0.0.1:{broker.port}",
           "TAVOLA_EVENT_EVENT": EVENT, "TAVOLA_EVENT_USERNAME": "arbiter",
           "TAVOLA_EVENT_PASSWORD": PASSWORD.format("arbiter"),
           "TAVOLA_EVENT_CONSOLE_LISTEN": f"127.0.0.1:{listen}"}
    env.pop("TAVOLA_CONFIG", None)
    console = subprocess.Popen([sys.executable, "-m", "tavola.cli", "event"], env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    players = subprocess.Popen([sys.executable, "-m", "bench.event", "--play", str(boards),
                                "--port", str(broker.port), "--interval", str(interval)],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    latencies: list[float] = []
    measuring = [False]
    try:
        await _wait_port(listen)
        stream = asyncio.create_task(_stream(f"http://127.0.0.1:{listen}", latencies,
                                             measuring))
        await asyncio.sleep(max(5.0, interval * 2))  # every board connected and moving
        pids = {"broker": broker.process.pid, "console": console.pid}
        before = {k: _cpu(p) for k, p in pids.items()}
        start = time.monotonic()
        measuring[0] = True
        await asyncio.sleep(seconds)
        measuring[0] = False
        spent = time.monotonic() - start
        cpu = {k: (_cpu(p) - before[k]) / spent * 100 for k, p in pids.items()}
        rss = {k: _rss_mb(p) for k, p in pids.items()}
        stream.cancel()
    finally:
        for process in (players, console):
            process.terminate()
            process.wait(10)
        broker.stop()
    latencies.sort()
    p99 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))] if latencies else 0
    return {"boards": boards, "moves": len(latencies),
            "p50_ms": statistics.median(latencies) * 1000 if latencies else 0,
            "p99_ms": p99 * 1000, "broker_cpu": cpu["broker"], "console_cpu": cpu["console"],
            "broker_mb": rss["broker"], "console_mb": rss["console"]}


def main() -> None:
    """Measure every size and print one line each."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else "")
    parser.add_argument("--sizes", default="25,50,100,200")
    parser.add_argument("--interval", type=float, default=3.0,
                        help="seconds between one board's moves")
    parser.add_argument("--seconds", type=float, default=20.0, help="measuring window")
    parser.add_argument("--play", type=int, help=argparse.SUPPRESS)  # the boards' process
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.play:
        asyncio.run(_boards(args.play, args.port, args.interval))
        return
    print(f"a move every {args.interval:g} s per board, {args.seconds:g} s measured; "
          f"{os.cpu_count()} cores shared by the boards' process, the broker, the console "
          f"and this reader")
    print("boards  moves/s  latency p50  p99     broker CPU  RSS      console CPU  RSS")
    for size in (int(s) for s in args.sizes.split(",")):
        r = asyncio.run(measure(size, args.interval, args.seconds))
        print(f"{r['boards']:6.0f}  {r['moves'] / args.seconds:7.1f}  {r['p50_ms']:8.1f} ms "
              f"{r['p99_ms']:6.1f} ms  {r['broker_cpu']:6.1f} %  {r['broker_mb']:5.1f} MB  "
              f"{r['console_cpu']:8.1f} %  {r['console_mb']:5.1f} MB", flush=True)


if __name__ == "__main__":
    main()
