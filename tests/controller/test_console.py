"""The daemon's console and terminal view: lines read as they come, answers drawn at once,
the board redrawn whenever its state changes.

The screen tests run the daemon in this process with a clock the test moves, so what is on
the screen at each step is exact; the piped-input test runs ``tavola run`` as a process.
"""

from __future__ import annotations

import asyncio
import io
import json
import os
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from tavola.config import load_config
from tavola.daemon import Daemon

TAVOLA = [sys.executable, "-m", "tavola.cli"]


def actions(journal: Path) -> list[str]:
    path = journal / "current.jsonl"
    if not path.exists():
        return []
    entries = [json.loads(line) for line in path.read_text().splitlines() if line.endswith("}")]
    return [e["move"] for e in entries if e["type"] == "action"]


def test_two_lines_in_one_write_are_both_read(tmp_path: Path) -> None:
    proc = subprocess.Popen(
        [*TAVOLA, "run", "--journal", str(tmp_path), "--leds", "none", "--console", "on"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        assert proc.stdin is not None
        time.sleep(1.0)  # started and listening (the lines would wait in the pipe anyway)
        proc.stdin.write("d2\nwait 0.3\na1\n")  # pasted at once: one write, three lines
        proc.stdin.flush()
        end = time.monotonic() + 15
        while actions(tmp_path) != ["d2", "a1"] and time.monotonic() < end:
            time.sleep(0.05)
        assert actions(tmp_path) == ["d2", "a1"]
        proc.stdin.write("quit")  # an unterminated last line counts at the end of input
        proc.stdin.close()
        assert proc.wait(15) == 0
    finally:
        proc.kill()
        proc.wait()


class Screen:
    """The daemon on a test clock, drawing into a string."""

    def __init__(self, tmp_path: Path, **overrides: str) -> None:
        self.t = 100.0
        self.out = io.StringIO()
        config = load_config(None, {"TAVOLA_INFERENCE_GRACE": "1"},
                             {"journal.directory": str(tmp_path), "leds": "sim", **overrides})
        read, self.typing = os.pipe()  # a console nobody types into: lines come directly
        self.daemon = Daemon(config, console=open(read),  # noqa: SIM115 (closed by run)
                             out=self.out, env={},
                             clock=lambda: self.t)

    def last(self) -> str:
        """The screen as last drawn."""
        return self.out.getvalue().rsplit("\x1b[H\x1b[2J", 1)[-1]

    async def at(self, t: float) -> None:
        """Move the clock to ``t`` and let the loop run (sensor, tick)."""
        self.t = t
        await asyncio.sleep(0.15)

    def run(self, scenario: Callable[[Screen], Awaitable[None]]) -> int:
        async def main() -> int:
            task = asyncio.create_task(self.daemon.run())
            while not self.daemon.ready:
                await asyncio.sleep(0.01)
            await scenario(self)
            self.daemon.console_line("quit")
            status = await task
            os.close(self.typing)
            assert self.daemon.console is not None
            self.daemon.console.close()
            return status

        return asyncio.run(main())


def test_help_status_and_errors_show_at_once(tmp_path: Path) -> None:
    seen: dict[str, str] = {}

    async def scenario(s: Screen) -> None:
        await s.at(101.0)
        seen["first"] = s.last()
        for line in ("help", "help all", "status", "lfit d2"):
            s.daemon.console_line(line)  # no board event follows: drawn by the line itself
            seen[line] = s.last()

    assert Screen(tmp_path).run(scenario) == 0
    assert "Type sensor events (d2, lift d2, place d4, d2-d4)" in seen["first"]
    assert "play MOVE" in seen["help"] and "help all" in seen["help"]
    assert "slide A OVER... B" in seen["help all"] and "play MOVE" in seen["help all"]
    assert seen["status"].count("morris: White to move") == 2  # the status line and the answer
    assert "error: 'lfit d2': unknown command or cell 'lfit'" in seen["lfit d2"]


def test_the_board_is_redrawn_when_a_mismatch_is_put_right(tmp_path: Path) -> None:
    seen: dict[str, str] = {}

    async def scenario(s: Screen) -> None:
        d = s.daemon
        d.console_line("knock a1 a4")  # two men at once: not a legal action
        await s.at(100.1)
        await s.at(102.0)  # past the grace time: the mismatch is shown
        seen["mismatch"] = s.last()
        d.console_line("knock a1 a4")  # both off again: the board is right
        await s.at(102.1)  # the reading arrives within the redraw interval
        await s.at(103.0)
        seen["after"] = s.last()

    assert Screen(tmp_path).run(scenario) == 0
    assert "board does not match" in seen["mismatch"]
    assert "board does not match" not in seen["after"]
    assert "morris: White to move" in seen["after"]


def test_morris_men_show_their_owner_not_a_plain_disc(tmp_path: Path) -> None:
    seen: dict[str, Any] = {}

    async def scenario(s: Screen) -> None:
        s.daemon.console_line("d2")  # a plain piece on the occupancy board
        await s.at(100.1)
        await s.at(101.0)
        seen["screen"] = s.last()
        seen["reading"] = s.daemon.sensor.settled()["d2"]  # type: ignore[attr-defined]

    assert Screen(tmp_path).run(scenario) == 0
    assert "  W  " in seen["screen"] and "  #  " not in seen["screen"]
    assert seen["reading"] == "#"  # what the reed switches read is unchanged



def test_sequence_dealt_shows_the_hand_of_the_player_to_move_after_passing_the_screen(
    tmp_path: Path,
) -> None:
    seen: dict[str, str] = {}

    async def scenario(s: Screen) -> None:
        d = s.daemon
        await s.at(101.0)
        seen["start"] = s.last()
        d.console_line("")  # Enter: Red has the screen
        seen["red"] = s.last()
        game = d.session.game
        move = next(str(m) for m in game.legal_moves() if "@" in str(m))
        d.console_line(move)  # the chip goes down on the simulated board
        await s.at(101.1)
        await s.at(102.0)
        if "ambiguous" in d.session.status():
            d.console_line(f"play {move}")
        await s.at(103.0)
        seen["after"] = s.last()
        seen["hand"] = game.private_text(0)

    assert Screen(tmp_path, game="sequence-kids").run(scenario) == 0
    assert "Pass the screen to Red, then press Enter" in seen["start"]
    assert "Red's cards:" not in seen["start"]
    assert seen["hand"].split(": ")[0] == "Red's cards"
    assert "Red's cards:" in seen["red"]
    assert "Pass the screen to Yellow, then press Enter" in seen["after"]
    assert "Red's cards:" not in seen["after"] and "Yellow's cards:" not in seen["after"]


def test_a_reading_that_makes_no_sense_asks_the_sensor_for_a_fresh_one(tmp_path: Path) -> None:
    asked: list[float] = []

    async def scenario(s: Screen) -> None:
        d = s.daemon
        d.sensor.request_snapshot = lambda: asked.append(s.t)  # type: ignore[method-assign]
        d.console_line("knock a1 a4")  # two men at once: not a legal action
        await s.at(100.1)
        assert asked == []  # a hand may still be at work: no resync inside the grace time
        await s.at(102.0)  # past the grace time: the mismatch is recorded, once
        await s.at(103.0)

    assert Screen(tmp_path).run(scenario) == 0
    assert asked == [102.0]
