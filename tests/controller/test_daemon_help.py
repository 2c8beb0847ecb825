"""The daemon runs the engine off its loop: a hint, the computer's move, a restart."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest

from tavola.config import load_config
from tavola.daemon import Daemon
from tavola.feedback import BLUE
from tavola.journal import Journal
from tavola.record import HintEntry
from tests.waiting import until


def daemon_for(tmp_path: Path, **overrides: str) -> Daemon:
    config = load_config(None, {}, {"journal.directory": str(tmp_path), "leds": "sim",
                                    "hints.nodes": "300", **overrides})
    return Daemon(config, env={})





def test_a_start_says_which_game_board_and_journal_and_so_does_new(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    # A service's log (journalctl) said nothing at a fresh start: which game, under which
    # id 'tavola export' takes, on which backends, kept where. A resume said its own.
    caplog.set_level("INFO", logger="tavola")

    async def new(d: Daemon) -> None:
        d.console_line("new")
        await until(lambda: "New game of morris" in caplog.text.split("Board:")[-1])

    run(daemon_for(tmp_path), new)
    said = [r.getMessage() for r in caplog.records if r.name == "tavola"]
    first, again = [m for m in said if m.startswith("New game of morris (")]
    assert first != again and first.endswith("-morris).")
    assert f"Board: sim sensor, sim LEDs, layout morris; journal in {tmp_path}" in said
    filed = {p.stem for p in Journal(tmp_path).games.glob("*.jsonl")}
    assert first.removeprefix("New game of morris (").removesuffix(").") in filed


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


def journaled_help(path: Path) -> list[HintEntry]:
    record = Journal(path).resume()
    assert record is not None
    return [e for e in record.entries if isinstance(e, HintEntry)]


def test_a_restart_shows_the_computers_move_until_it_is_made(tmp_path: Path) -> None:
    computer = {"game.opponent": "ai", "game.opponent_level": "beginner"}
    first = daemon_for(tmp_path, **computer)

    async def play(d: Daemon) -> None:
        d.console_line("d2")
        await until(lambda: d.session.help.computer is not None)

    run(first, play)
    shown, = journaled_help(tmp_path)
    assert shown.kind == "computer" and shown.ply == 1
    second = daemon_for(tmp_path, **computer)

    async def make(d: Daemon) -> None:
        assert d.session.help.computer is not None  # from the journal, at once
        assert d.session.help.computer.text == " ".join(shown.moves)
        assert f"the computer plays {shown.moves[0]}" in d.session.status()
        assert blue(d) == {shown.moves[0]}  # a placement: its target lit blue
        wrong = next(str(m) for m in d.session.game.legal_moves()
                     if str(m) != shown.moves[0])
        d.console_line(wrong)  # put on the (simulated) board: refused, shown wrong
        await until(lambda: d.session.scene(0.0).error == {wrong})  # blinking red
        assert len(d.session.game.history) == 1
        d.console_line(f"lift {wrong}")  # taken back off the board
        await until(lambda: not d.session.scene(0.0).error)
        d.console_line(shown.moves[0])
        await until(lambda: len(d.session.game.history) == 2)
        assert str(d.session.game.history[-1]) == shown.moves[0]

    run(second, make)
    assert [e.kind for e in journaled_help(tmp_path)] == ["computer"]  # not asked again


def test_a_restart_keeps_a_blunder_flashing(tmp_path: Path) -> None:
    feedback = {"hints.feedback": "true", "hints.threshold": "50", "hints.nodes": "400"}
    first = daemon_for(tmp_path, **feedback)

    async def blunder(d: Daemon) -> None:
        for ply, move in enumerate(("a1", "b2", "a4", "b4", "g7"), 1):  # g7: Black mills
            d.console_line(move)
            await until(lambda: len(d.session.game.history) == ply)  # noqa: B023
        await until(lambda: d.session.help.review is not None
                    and d.session.help.review.at == tuple(d.session.game.history))

    run(first, blunder)
    review = journaled_help(tmp_path)[-1]
    assert (review.kind, review.ply, review.moves) == ("review", 4, ("a7", "xb2"))
    assert review.played is not None and review.played < review.score
    second = daemon_for(tmp_path, **feedback)

    async def look(d: Daemon) -> None:
        assert "blunder: White lost" in d.session.status()
        assert "better was a7 xb2" in d.session.status()
        assert d.session.scene(0.0).blunder == {"g7"}

    run(second, look)
