"""The web view's cost: the daemon's memory with the web on, and the latency from a board
event to 10 open event streams.

Run: ``.venv/bin/python bench/web.py [--moves N] [--pages P]``. Two ``tavola run``
processes on the simulator (morris, no clock, settle 0): one with ``[web]`` off, the
reference, and one with it on and P pages' event streams open. Memory is each process's
resident set (VmRSS) after start-up; with the web on, also after the moves.

Latency: a console line puts a man on the simulated board (or lifts it: a takeback), and
the time runs from writing that line to the moment every open stream has received the
state that shows it. It includes the simulator's reading of the board, the inference and
the journal's fsync, so it is also measured with the web off (the time until the journal
has the entry), in the same run, as the reference.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import aiohttp

TAVOLA = [sys.executable, "-m", "tavola.cli", "run", "--leds", "none", "--console", "on"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def start(journal: Path, web_port: int | None) -> subprocess.Popen[str]:
    env = {**os.environ, "TAVOLA_INFERENCE_SETTLE": "0"}
    if web_port is not None:
        env.update(TAVOLA_WEB_ENABLED="true", TAVOLA_WEB_LISTEN=f"127.0.0.1:{web_port}")
    return subprocess.Popen([*TAVOLA, "--journal", str(journal)], env=env, text=True,
                            stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)


def journal_moves(journal: Path) -> int:
    path = journal / "current.jsonl"
    if not path.exists():
        return -1
    kinds = [json.loads(line)["type"] for line in path.read_text().splitlines()
             if line.endswith("}")]
    return kinds.count("action") - kinds.count("undo")


def lines(n: int) -> list[tuple[str, int]]:
    """(console line, the number of moves after it): a man down, lifted again, ..."""
    return [("d2", 1) if i % 2 == 0 else ("lift d2", 0) for i in range(n)]


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))]


async def reference(moves: int, journal: Path) -> tuple[list[float], float]:
    proc = start(journal, None)
    assert proc.stdin is not None
    try:
        while journal_moves(journal) < 0:
            await asyncio.sleep(0.05)
        await asyncio.sleep(0.5)
        memory = rss_mib(proc.pid)
        times = []
        for line, want in lines(moves):
            t0 = time.perf_counter()
            proc.stdin.write(line + "\n")
            proc.stdin.flush()
            while journal_moves(journal) != want:
                await asyncio.sleep(0.001)
            times.append(time.perf_counter() - t0)
        return times, memory
    finally:
        proc.terminate()
        proc.wait(10)


async def with_web(moves: int, pages: int, journal: Path) -> tuple[list[float], float, float]:
    port = free_port()
    proc = start(journal, port)
    assert proc.stdin is not None
    url = f"http://127.0.0.1:{port}/events"
    try:
        async with aiohttp.ClientSession() as http:
            for _ in range(200):
                try:
                    (await http.get(f"http://127.0.0.1:{port}/")).release()
                    break
                except aiohttp.ClientError:
                    await asyncio.sleep(0.05)
            await asyncio.sleep(0.5)
            memory = rss_mib(proc.pid)
            streams = [await http.get(url) for _ in range(pages)]
            latest = [0] * pages

            async def follow(n: int) -> None:
                data = ""
                async for raw in streams[n].content:
                    line = raw.decode().rstrip("\n")
                    if line.startswith("data: "):
                        data = line[6:]
                    elif not line and data:
                        latest[n] = len(json.loads(data)["moves"])
                        data = ""

            readers = [asyncio.create_task(follow(n)) for n in range(pages)]
            times = []
            for line, want in lines(moves):
                t0 = time.perf_counter()
                proc.stdin.write(line + "\n")
                proc.stdin.flush()
                while any(m != want for m in latest):
                    await asyncio.sleep(0.001)
                times.append(time.perf_counter() - t0)
            after = rss_mib(proc.pid)
            for task in readers:
                task.cancel()
            for stream in streams:
                stream.close()
        return times, memory, after
    finally:
        proc.terminate()
        proc.wait(10)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=100)
    parser.add_argument("--pages", type=int, default=10)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        base, base_mem = asyncio.run(reference(args.moves, Path(tmp) / "off"))
        web, web_mem, web_after = asyncio.run(with_web(args.moves, args.pages, Path(tmp) / "on"))
    ms = 1000.0
    print(f"daemon RSS: web off {base_mem:.1f} MiB, web on {web_mem:.1f} MiB "
          f"(+{web_mem - base_mem:.1f}), after {args.moves} moves with {args.pages} pages "
          f"{web_after:.1f} MiB")
    print(f"board -> journal (web off), {len(base)} events: p50 "
          f"{statistics.median(base) * ms:.1f} ms, p99 {percentile(base, 99) * ms:.1f} ms")
    print(f"board -> all {args.pages} pages (web on), {len(web)} events: p50 "
          f"{statistics.median(web) * ms:.1f} ms, p99 {percentile(web, 99) * ms:.1f} ms "
          f"(ratio of medians {statistics.median(web) / statistics.median(base):.2f})")


if __name__ == "__main__":
    main()
