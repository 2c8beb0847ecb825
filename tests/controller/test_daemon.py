"""The daemon as a process: sd_notify, SIGTERM, SIGKILL and resuming, start-up errors.

These run `tavola run` for real (on the simulator, real time), so each takes a second or two.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from tavola.config import load_config
from tavola.daemon import Daemon
from tavola.feedback import GREEN, OFF
from tavola.journal import Journal
from tavola.record import ActionEntry, UndoEntry, replay
from tavola.web.referee import Request, perform
from tests.waiting import until

TAVOLA = [sys.executable, "-m", "tavola.cli"]


def start(tmp_path: Path, script: str, *args: str, env: dict[str, str] | None = None,
          ) -> subprocess.Popen[str]:
    (tmp_path / "moves.txt").write_text(script)
    return subprocess.Popen(
        [*TAVOLA, "run", "--journal", str(tmp_path / "state"), "--leds", "none",
         "--console", "off", "--script", str(tmp_path / "moves.txt"), *args],
        env={**os.environ, **(env or {})}, stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )


def current(tmp_path: Path) -> list[dict[str, Any]]:
    path = tmp_path / "state" / "current.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.endswith("}")]


def wait_for(predicate: Any, seconds: float = 10.0) -> None:
    end = time.monotonic() + seconds
    while not predicate():
        if time.monotonic() > end:
            raise AssertionError("timed out")
        time.sleep(0.02)


def messages(sock: socket.socket, until: bytes) -> list[bytes]:
    got = []
    while True:
        data = sock.recv(4096)
        got.append(data)
        if data.startswith(until):
            return got


def test_ready_status_and_a_clean_stop_on_sigterm(
    tmp_path: Path, notify_socket: tuple[socket.socket, str]
) -> None:
    sock, path = notify_socket
    proc = start(tmp_path, "d2\nwait 0.3\na1\nwait 30\n", env={"NOTIFY_SOCKET": path,
                                                      "WATCHDOG_USEC": "2000000"})
    try:
        ready = messages(sock, b"READY=1")
        assert ready[-1] == b"READY=1\nSTATUS=morris: White to move"
        wait_for(lambda: len([e for e in current(tmp_path) if e["type"] == "action"]) == 2)
        assert b"WATCHDOG=1" in messages(sock, b"WATCHDOG=1")  # the loop is alive
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(10) == 0
        assert b"STOPPING=1" in messages(sock, b"STOPPING=1")
    finally:
        proc.kill()
    kinds = [e["type"] for e in current(tmp_path)]
    assert kinds[:3] == ["start", "action", "action"]


def test_sigkill_mid_game_then_restart_resumes_position_clocks_and_history(
    tmp_path: Path, notify_socket: tuple[socket.socket, str]
) -> None:
    sock, path = notify_socket
    env = {"NOTIFY_SOCKET": path, "TAVOLA_CLOCK_MODE": "fischer", "TAVOLA_CLOCK_MINUTES": "5",
           "TAVOLA_CLOCK_INCREMENT": "3"}
    up_since = time.monotonic()
    proc = start(tmp_path, "d2\nwait 0.3\na1\nwait 0.3\nd6\nwait 30\n", env=env)
    try:
        messages(sock, b"READY=1")
        wait_for(lambda: len([e for e in current(tmp_path) if e["type"] == "action"]) == 3)
        time.sleep(0.3)
        up_before = time.monotonic() - up_since  # the most Black's clock may have run
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
    finally:
        proc.kill()
    before = current(tmp_path)
    record = Journal(tmp_path / "state").resume()
    assert record is not None
    replayed = replay(record)
    assert [str(m) for m in replayed.game.history] == ["d2", "a1", "d6"]
    left_before = replayed.clock["left"] if replayed.clock else None
    assert left_before is not None and 290 < left_before[1] <= 300 + 3  # one increment

    time.sleep(2.0)  # the daemon is down for two seconds: nobody's clock may run

    # Restart: Black's reply is played on the board that was left as it was.
    up_since = time.monotonic()
    proc = start(tmp_path, "wait 0.5\ng7\nwait 30\n", env=env)
    try:
        ready = messages(sock, b"READY=1")
        assert ready[-1].startswith(b"READY=1\nSTATUS=morris: Black to move, White 5:0")
        wait_for(lambda: len([e for e in current(tmp_path) if e["type"] == "action"]) == 4)
        up_after = time.monotonic() - up_since
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(10) == 0
    finally:
        proc.kill()
        proc.communicate()  # closes the pipes
    after = current(tmp_path)
    assert after[: len(before)] == before  # nothing lost or rewritten
    moves = [e["move"] for e in after if e["type"] == "action"]
    assert moves == ["d2", "a1", "d6", "g7"]
    # Black's clock was paused while the daemon was down: it lost at most the time the
    # daemons ran (measured here, whatever the machine's speed), never the 2 s downtime.
    black_move = [e for e in after if e["type"] == "action"][-1]
    spent = left_before[1] + 3 - black_move["clock"]["left"][1]  # 3: Fischer increment
    assert 0 < spent < up_before + up_after


def test_a_game_the_sensor_cannot_follow_stops_start_up_with_the_fix(tmp_path: Path) -> None:
    done = subprocess.run(
        [*TAVOLA, "run", "--game", "quixo", "--journal", str(tmp_path), "--console", "off"],
        env={**os.environ, "TAVOLA_SENSOR_OPTIONS_CAPABILITY": "occupancy"},
        capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 2
    assert "quixo needs a sensor that tells pieces apart" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_bad_config_names_the_key(tmp_path: Path) -> None:
    config = tmp_path / "tavola.toml"
    config.write_text('[inference]\nsettle = "soon"\n')
    done = subprocess.run([*TAVOLA, "run", "--config", str(config), "--console", "off"],
                          capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL)
    assert done.returncode == 2 and "inference.settle" in done.stderr
    assert "Traceback" not in done.stderr


def test_in_process_console_commands_frames_and_shutdown(tmp_path: Path) -> None:
    config = load_config(None, {}, {"journal.directory": str(tmp_path), "leds": "sim"})
    daemon = Daemon(config, env={})

    async def scenario() -> int:
        task = asyncio.create_task(daemon.run())
        while not daemon.ready:
            await asyncio.sleep(0.01)
        daemon.console_line("d2")  # a sensor event typed at the console (the simulator)
        while not daemon.session.game.history:
            await asyncio.sleep(0.01)
        daemon.console_line("undo")  # a session command: the board must follow
        daemon.console_line("lift d2")
        while daemon.session.game.history or daemon.session.result.changed:  # type: ignore[union-attr]
            await asyncio.sleep(0.01)
        daemon.console_line("quit")
        return await task

    assert asyncio.run(scenario()) == 0
    frames = [f.frame for f in daemon.leds.frames]  # type: ignore[attr-defined]
    d2 = daemon.layout.led_of("d2")
    assert any(f[d2] == GREEN for f in frames)  # the accepted move was lit
    assert frames[-1] == (OFF,) * daemon.leds.count  # cleared on the way out
    entries = Journal(tmp_path).resume()
    assert entries is not None
    assert [type(e) for e in entries.entries if isinstance(e, (ActionEntry, UndoEntry))] == [
        ActionEntry, UndoEntry]


async def tessere_won_by_black(daemon: Daemon) -> None:
    """Once the daemon is ready, tessere played on its simulated board to Black's line."""
    await until(lambda: daemon.ready)
    for n, line in enumerate(["place a1 G", "place e5 YG", "place e1 GB", "place a5 RYGB"]):
        daemon.console_line(line)
        plies = n + 1
        await until(lambda: len(daemon.session.game.history) == plies)  # noqa: B023


def test_clearing_the_board_after_a_game_starts_the_next_one(tmp_path: Path) -> None:
    config = load_config(None, {}, {"journal.directory": str(tmp_path), "leds": "sim",
                                    "game": "tessere"})
    daemon = Daemon(config, env={})

    async def scenario() -> int:
        task = asyncio.create_task(daemon.run())
        await tessere_won_by_black(daemon)
        first = daemon.session.game
        assert first.outcome() is not None and first.outcome().reason == "line"  # type: ignore[union-attr]
        # The winning piece first: after the end that is clearing up, not a takeback.
        for cell in ("a5", "e1", "e5", "a1"):
            daemon.console_line(f"lift {cell}")
        await until(lambda: daemon.session.game is not first)
        daemon.console_line("quit")
        return await task

    assert asyncio.run(scenario()) == 0
    records = Journal(tmp_path).records()
    assert [(r.game, r.score, r.reason) for r in records] == [("tessere", "0-1", "line")]
    assert Journal(tmp_path).in_progress()  # the new game's journal is open


def test_new_files_an_unfinished_game_as_abandoned(tmp_path: Path) -> None:
    config = load_config(None, {}, {"journal.directory": str(tmp_path), "leds": "none"})
    daemon = Daemon(config, env={})

    async def scenario() -> int:
        task = asyncio.create_task(daemon.run())
        while not daemon.ready:
            await asyncio.sleep(0.01)
        first = daemon.session.game
        daemon.console_line("new")
        assert daemon.session.game is not first
        daemon.console_line("quit")
        return await task

    assert asyncio.run(scenario()) == 0
    assert [(r.score, r.reason) for r in Journal(tmp_path).records()] == [
        ("*", "abandoned for a new game")]


def test_new_names_another_game_or_variant_the_board_can_run(tmp_path: Path) -> None:
    """A club switching the 8x8 board from German to Russian draughts types `new draughts
    russian`. Before, `new tessere` started the configured game, the name silently dropped."""
    config = load_config(None, {}, {"journal.directory": str(tmp_path), "leds": "none",
                                    "game": "draughts"})
    daemon = Daemon(config, env={})

    configured = config.game.new_game().options["variant"]

    async def scenario() -> int:
        task = asyncio.create_task(daemon.run())
        await until(lambda: daemon.ready)
        daemon.console_line("new draughts russian")
        assert daemon.session.game.options["variant"] == "russian"
        daemon.console_line("new checkers")  # an alias: English draughts
        assert daemon.session.game.options["variant"] == "english"
        before = daemon.session.game
        for line, said in (("new chess", "new chess: unknown game 'chess'; known games:"),
                           ("new draughts fast", "new draughts fast: parameter 'variant' "
                                                 "must be one of"),
                           ("new tessere", "Cannot start tessere on this board")):
            daemon.console_line(line)
            assert daemon.session.game is before, line  # refused: the game in play stays
            shown = " ".join(daemon._reply or daemon._log_tail[-1:])  # a reply, or the log's
            assert said in shown, shown
        daemon.console_line("new")
        assert (daemon.session.game.name, daemon.session.game.options["variant"]) == \
            ("draughts", configured)
        daemon.console_line("quit")
        return await task

    assert asyncio.run(scenario()) == 0
    assert [r.variant for r in Journal(tmp_path).records()] == \
        [configured, "russian", "english"]


def test_a_final_move_corrected_after_the_game_was_filed_resumes_after_a_restart(
        tmp_path: Path) -> None:
    config = load_config(None, {}, {"journal.directory": str(tmp_path), "leds": "sim",
                                    "game": "tessere", "inference.grace": "0.2"})
    daemon = Daemon(config, env={})

    async def scenario() -> int:
        task = asyncio.create_task(daemon.run())
        await tessere_won_by_black(daemon)
        await until(lambda: bool(Journal(tmp_path).records()))  # the result filed the game
        said = perform(daemon, Request("undo", {"ply": "3", "reason": "a5 misread"},
                                       "referee@test"))
        assert not said.startswith("Refused"), said
        assert daemon.session.game.outcome() is None
        daemon.console_line("quit")
        return await task

    assert asyncio.run(scenario()) == 0
    assert Journal(tmp_path).records() == []  # reopened: the game is in progress again
    again = Daemon(config, env={})
    again._start()
    try:
        assert [str(m) for m in again.session.game.history] == ["G@a1", "YG@e5", "GB@e1"]
        assert again.session.game.outcome() is None and again.session.restoring == 3
    finally:
        again._close_backends()
