"""A club event's cost: latency from a board's accepted move to the hall page, and the
broker's and the console's CPU and memory, as the boards double (25, 50, 100, 200).

Run: ``.venv/bin/python -m bench.event [--sizes 25,50,100,200] [--interval 3]
[--seconds 20]``. Needs Mosquitto (``make test`` installs it as root).

Three kinds of process: a real Mosquitto on a free loopback port with the ACL of
docs/event; ``tavola event`` (the real console) as the arbiter; and one process of
simulated boards, each a real :class:`~tavola.event.publisher.EventPublisher` with its own
broker account over a real session (morris, started 0 to 60 random plies into a game),
making a random legal move every ``interval`` seconds (random phase). A page's event
stream is read here: when a table's ply grows, the latency is now minus the board's
time of the move (one machine, one clock). It includes the console's coalescing of page
events (at most every 0.1 s). CPU is the share of one core over the measuring window
(after a warm-up), memory the resident set (VmRSS) at the end.
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
        for _ in range(rng.randint(0, 60)):  # tables in mid-game: states of every length
            game = board.session.game
            if game.outcome() is None:
                game.apply(rng.choice(game.legal_moves()))
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
    buffer = b""
    async with aiohttp.ClientSession() as http, http.get(f"{url}/events") as response:
        async for chunk in response.content.iter_any():  # an event may be megabytes long
            buffer += chunk
            *events, buffer = buffer.split(b"\n\n")
            now = time.time()
            for raw in events:
                data = next((line[6:] for line in raw.split(b"\n")
                             if line.startswith(b"data: ")), None)
                if data is None:
                    continue
                for t in json.loads(data)["tables"]:
                    if t["ply"] > plies.get(t["table"], 0) and measuring[0] and t["wall"]:
                        latencies.append(now - t["wall"])
                    plies[t["table"]] = t["ply"]


async def _subscriber(port: int, latencies: list[float], measuring: list[bool]) -> None:
    """The reference: a bare MQTT subscriber's latency for the same moves (the broker's
    hop alone, without the console and its page)."""
    import aiomqtt

    async with aiomqtt.Client("127.0.0.1", port, username="hall",
                              password=PASSWORD.format("hall")) as client:
        await client.subscribe(f"tavola/v1/{EVENT}/+/move", qos=1)
        async for message in client.messages:
            now = time.time()
            if measuring[0] and isinstance(message.payload, bytes):
                latencies.append(now - json.loads(message.payload)["wall"])


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
    bare: list[float] = []
    measuring = [False]
    try:
        await _wait_port(listen)
        stream = asyncio.create_task(_stream(f"http://127.0.0.1:{listen}", latencies,
                                             measuring))
        reference = asyncio.create_task(_subscriber(broker.port, bare, measuring))
        await asyncio.sleep(max(5.0, interval * 2))  # every board connected and moving
        pids = {"broker": broker.process.pid, "console": console.pid, "boards": players.pid}
        before = {k: _cpu(p) for k, p in pids.items()}
        start = time.monotonic()
        measuring[0] = True
        await asyncio.sleep(seconds)
        measuring[0] = False
        spent = time.monotonic() - start
        cpu = {k: (_cpu(p) - before[k]) / spent * 100 for k, p in pids.items()}
        rss = {k: _rss_mb(p) for k, p in pids.items()}
        stream.cancel()
        reference.cancel()
        await asyncio.gather(stream, reference, return_exceptions=True)
    finally:
        for process in (players, console):
            process.terminate()
            process.wait(10)
        broker.stop()
    return {"boards": boards, "moves": len(latencies), "p50_ms": _quantile(latencies, 0.5),
            "p99_ms": _quantile(latencies, 0.99), "bare_p50_ms": _quantile(bare, 0.5),
            "bare_p99_ms": _quantile(bare, 0.99), "broker_cpu": cpu["broker"],
            "console_cpu": cpu["console"], "boards_cpu": cpu["boards"],
            "broker_mb": rss["broker"], "console_mb": rss["console"]}


def _quantile(values: list[float], q: float) -> float:
    """The ``q`` quantile in milliseconds (the median for 0.5)."""
    if not values:
        return 0.0
    if q == 0.5:
        return statistics.median(values) * 1000
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))] * 1000


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
    print("to the page: board -> broker -> console -> hall page's stream; bare: board -> "
          "broker -> a plain subscriber (the reference, same moves, same run)")
    print("boards  moves/s  page p50   p99       bare p50  p99      ratio p50  "
          "broker CPU  RSS      console CPU  RSS      (boards' process CPU)")
    for size in (int(s) for s in args.sizes.split(",")):
        r = asyncio.run(measure(size, args.interval, args.seconds))
        ratio = r["p50_ms"] / r["bare_p50_ms"] if r["bare_p50_ms"] else 0.0
        print(f"{r['boards']:6.0f}  {r['moves'] / args.seconds:7.1f}  {r['p50_ms']:6.1f} ms "
              f"{r['p99_ms']:6.1f} ms  {r['bare_p50_ms']:5.1f} ms {r['bare_p99_ms']:5.1f} ms  "
              f"{ratio:6.1f}     {r['broker_cpu']:6.1f} %  {r['broker_mb']:5.1f} MB  "
              f"{r['console_cpu']:8.1f} %  {r['console_mb']:5.1f} MB  "
              f"({r['boards_cpu']:.0f} %)", flush=True)


if __name__ == "__main__":
    main()
