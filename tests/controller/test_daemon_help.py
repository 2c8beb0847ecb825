"""The daemon runs the engine off its loop: a hint, the computer's move, a restart."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

from tavola.config import load_config
from tavola.daemon import Daemon
from tavola.feedback import BLUE
from tavola.journal import Journal
from tavola.record import HintEntry


def daemon_for(tmp_path: Path, **overrides: str) -> Daemon:
    config = load_config(None, {}, {"journal.directory": str(tmp_path), "leds": "sim",
                                    "hints.nodes": "300", **overrides})
    return Daemon(config, env={})


async def until(check: Callable[[], bool]) -> None:
    for _ in range(2000):  # the search runs in a thread: wait for its answer
        if check():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("the daemon never got there")


def run(daemon: Daemon, steps: Callable[[Daemon], Awaitable[None]]) -> None:
    async def scenario() -> int:
        task = asyncio.create_task(daemon.run())
        await until(lambda: daemon.ready)
        await steps(daemon)
        daemon.console_line("quit")
        return await task

    assert asyncio.run(scenario()) == 0


def blue(daemon: Daemon) -> set[str]:
    frame = daemon.session.frame(0.0)
    return {c for c in daemon.layout.cells if frame[daemon.layout.led_of(c)] == BLUE}


def test_a_console_hint_is_found_off_the_loop_and_resumed_after_a_restart(
        tmp_path: Path) -> None:
    first = daemon_for(tmp_path)

    async def ask(d: Daemon) -> None:
        d.console_line("hint")
        await until(lambda: d.session.help.hint is not None)
        assert len(blue(d)) == 1  # a placement

    run(first, ask)
    record = Journal(tmp_path).resume()
    assert record is not None
    hinted, = [e for e in record.entries if isinstance(e, HintEntry)]
    assert hinted.kind == "hint" and hinted.ply == 0
    second = daemon_for(tmp_path)

    async def look(d: Daemon) -> None:
        assert blue(d) == {hinted.moves[0]}

    run(second, look)


def test_the_computer_plays_through_the_board(tmp_path: Path) -> None:
    daemon = daemon_for(tmp_path, **{"game.opponent": "ai", "game.opponent_level": "beginner"})

    async def play(d: Daemon) -> None:
        d.console_line("d2")
        await until(lambda: d.session.help.computer is not None)
        shown = d.session.help.computer
        assert shown is not None
        d.console_line(str(shown.turn[0]))  # a player makes it on the (simulated) board
        await until(lambda: len(d.session.game.history) == 2)
        assert d.session.game.history[1] == shown.turn[0]

    run(daemon, play)


def test_the_referee_at_the_console_allows_hints_under_the_arbiter_policy(
        tmp_path: Path) -> None:
    daemon = daemon_for(tmp_path, **{"game.policy": "arbiter"})

    async def referee(d: Daemon) -> None:
        d.console_line("hint")
        assert "unless the referee allows them" in d._log_tail[-1]
        d.console_line("hints on")
        d.console_line("hint")
        await until(lambda: d.session.help.hint is not None)

    run(daemon, referee)
    record = Journal(tmp_path).resume()
    assert record is not None
    assert [getattr(e, "action", None) for e in record.entries
            if e.TYPE == "referee"] == ["allow hints"]


def test_tavola_run_plays_the_computer_from_its_flags(tmp_path: Path) -> None:
    (tmp_path / "moves.txt").write_text("wait 20\n")
    proc = subprocess.Popen(
        [sys.executable, "-m", "tavola.cli", "run", "--journal", str(tmp_path / "state"),
         "--leds", "none", "--console", "off", "--script", str(tmp_path / "moves.txt"),
         "--opponent", "ai", "--level", "beginner", "--ai-plays", "0"],
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    journal = tmp_path / "state" / "current.jsonl"
    try:
        for _ in range(3000):
            if journal.exists() and '"kind":"computer"' in journal.read_text():
                break
            time.sleep(0.01)
        lines = [json.loads(x) for x in journal.read_text().splitlines() if x.endswith("}")]
    finally:
        proc.terminate()
        proc.wait(10)
    shown = [e for e in lines if e["type"] == "hint"]
    assert shown and shown[0]["kind"] == "computer" and shown[0]["player"] == 0


def test_without_the_web_a_hint_of_hidden_cards_is_refused_at_the_console(
        tmp_path: Path) -> None:
    daemon = daemon_for(tmp_path, game="sequence-kids")

    async def ask(d: Daemon) -> None:
        d.console_line("hint")
        await until(lambda: any("need the seat page" in line for line in d._log_tail))
        assert d.session.help.hint is None and not blue(d)

    run(daemon, ask)
