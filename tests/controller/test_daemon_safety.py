"""The daemon's failure paths: a failed start, an unresumable game, a game switch, a journal
that cannot be written, a sensor that dies. Each bug lived in the daemon, so most of these
run it as a process (`tavola run` on the simulator)."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
import threading
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tavola import journal as journal_module
from tavola.config import load_config
from tavola.daemon import Daemon
from tavola.feedback import DIM_RED
from tavola.games import new_game
from tavola.hardware.base import SensorEvent
from tavola.hardware.sim import SimSensor
from tavola.journal import Journal
from tavola.record import ActionEntry, StartEntry
from tests.controller.test_daemon import start as spawn
from tests.controller.test_daemon import wait_for
from tests.waiting import until

TAVOLA = [sys.executable, "-m", "tavola.cli"]
ROOT = Path(__file__).resolve().parents[2]
MORRIS_LAYOUT = ROOT / "hardware" / "layouts" / "morris.toml"


def run(tmp_path: Path, script: str, *args: str, env: dict[str, str] | None = None,
        timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """``tavola run`` on the simulator playing ``script``, to its end (a failed start)."""
    (tmp_path / "moves.txt").write_text(script)
    return subprocess.run(
        [*TAVOLA, "run", "--journal", str(tmp_path / "state"), "--leds", "none",
         "--console", "off", "--script", str(tmp_path / "moves.txt"), *args],
        env={**os.environ, **(env or {})}, stdin=subprocess.DEVNULL, capture_output=True,
        text=True, timeout=timeout,
    )


def actions(tmp_path: Path) -> list[str]:
    path = tmp_path / "state" / "current.jsonl"
    if not path.exists():
        return []
    return [e["move"] for e in map(json.loads, path.read_text().splitlines())
            if e["type"] == "action"]


def play_until(tmp_path: Path, script: str, moves: list[str], *args: str,
               env: dict[str, str] | None = None) -> str:
    """Run the daemon until the game in progress has ``moves``; its stderr."""
    proc = spawn(tmp_path, script + "wait 60\n", *args, env=env)
    try:
        wait_for(lambda: actions(tmp_path) == moves, 30)
        proc.terminate()
        _, err = proc.communicate(timeout=20)
        assert proc.returncode == 0, err
        return err
    finally:
        proc.kill()


def unfinished(tmp_path: Path, game: str, *moves: str) -> str:
    """A game in progress in the journal, as a daemon left it; its id."""
    journal = Journal(tmp_path / "state")
    played = new_game(game)
    journal.begin(StartEntry.of(played, game_id=f"20240501-143012-{game}", wall=1714573812.0))
    for text in moves:
        player = played.current_player
        played.apply(played.parse_move(text))
        journal.append(ActionEntry(text, player, len(played.history), 1714573812.0, 0.0))
    return f"20240501-143012-{game}"


# --------------------------------------------------------------------- starting
def test_a_failed_start_writes_nothing_and_the_next_start_plays(tmp_path: Path) -> None:
    # Draughts on a morris board: the layout lacks its squares.
    done = run(tmp_path, "", "--game", "draughts", env={"TAVOLA_LAYOUT_FILE":
                                                          str(MORRIS_LAYOUT)})
    assert done.returncode == 2 and "cannot start" in done.stderr
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "state" / "current.jsonl").exists()  # no game left behind
    play_until(tmp_path, "d2\n", ["d2"])  # the plain start plays the configured game


def test_a_journal_directory_that_is_a_file_is_named_with_its_key_and_fix(
    tmp_path: Path,
) -> None:
    # Before: "tavola: cannot start: [Errno 17] File exists: '.../state'", which says
    # neither that the journal is at fault nor how to set it.
    (tmp_path / "state").write_text("not a directory\n")
    done = run(tmp_path, "")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith("tavola: cannot start: the journal cannot be kept in "
                           f"{tmp_path / 'state'}"), line
    assert "is a file, not a directory" in line and "--journal" in line, line
    assert (tmp_path / "state").read_text() == "not a directory\n"  # nothing lost


def test_a_full_disk_at_start_is_shown_and_the_game_recorded_once_there_is_space(
        tmp_path: Path) -> None:
    """The disk refuses the new game's first line: the board starts all the same, in its
    "cannot record" state, naming the journal and the fix, and the game (and the move
    played meanwhile) is written once there is space. It exited, which left the board
    dark, and systemd gave up after ten restarts."""
    state = tmp_path / "state"
    state.mkdir()
    fault = state / "FAULT"
    fault.touch()  # every journal write fails: no space left
    (tmp_path / "moves.txt").write_text("d2\nwait 60\n")
    log = tmp_path / "stderr.txt"
    with log.open("w") as err:
        proc = subprocess.Popen(
            [sys.executable, "-m", "tests.controller.faulty_journal", "run", "--journal",
             str(state), "--leds", "none", "--console", "off", "--script",
             str(tmp_path / "moves.txt")],
            cwd=ROOT, env={**os.environ, "TAVOLA_LOG_LEVEL": "info"},
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err, text=True)
    try:
        wait_for(lambda: "Cannot record the game" in log.read_text(), 30)
        line = next(x for x in log.read_text().splitlines() if "Cannot record the game" in x)
        assert f"the journal cannot be kept in {state}" in line, line
        assert "No space left on device; free some space on its disk" in line, line
        assert not (state / "current.jsonl").exists() and proc.poll() is None
        fault.unlink()  # space again: the game and its move are written, play goes on
        wait_for(lambda: actions(tmp_path) == ["d2"], 30)
        assert "The journal can be written again; play on." in log.read_text()
    finally:
        proc.terminate()
        proc.wait(20)
    assert proc.returncode == 0, log.read_text()
    assert "Traceback" not in log.read_text()


@pytest.mark.parametrize("resuming", [False, True])
def test_a_backends_oserror_at_start_is_its_own_not_the_journals(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, resuming: bool,
) -> None:
    """NeoPixel LEDs that Blinka cannot drive raise an OSError: the start says so, as the
    backend put it, and keeps the unfinished game to resume (neither blames the journal
    nor files the game as abandoned). Before, the journal was blamed: "the journal cannot
    be kept in ...: LED backend 'neopixel': ...; set [journal] directory ..."."""
    from tavola import daemon as daemon_module
    from tavola.hardware.neopixel import NeoPixelError
    from tavola.session import StartupError

    def no_strip(name: str) -> object:
        def build(*args: object, **kwargs: object) -> object:
            raise NeoPixelError("LED backend 'neopixel': Adafruit Blinka knows no SPI bus")
        return build

    monkeypatch.setattr(daemon_module, "load_leds", no_strip)
    state = tmp_path / "state"
    if resuming:
        unfinished(tmp_path, "morris", "d2")
    before = (state / "current.jsonl").read_bytes() if resuming else None
    config = load_config(None, {}, {"journal.directory": str(state), "leds.backend": "none"})
    with pytest.raises(OSError) as raised:
        Daemon(config, env={})._start()
    assert not isinstance(raised.value, StartupError)
    assert str(raised.value) == "LED backend 'neopixel': Adafruit Blinka knows no SPI bus"
    if resuming:  # the game waits, as it was, for LEDs that work
        assert (state / "current.jsonl").read_bytes() == before
        assert Journal(state).records() == []
    else:
        assert not (state / "current.jsonl").exists()


def test_an_unfinished_game_that_cannot_go_on_is_kept_and_the_configured_one_starts(
    tmp_path: Path,
) -> None:
    """A board set up for morris today finds yesterday's draughts game unfinished: that
    game waits in paused/ for a board that can play it (it was filed as abandoned, which
    no one could take up again), and morris starts."""
    game_id = unfinished(tmp_path, "draughts", "c3-d4")
    err = play_until(tmp_path, "d2\n", ["d2"], env={"TAVOLA_LAYOUT_FILE": str(MORRIS_LAYOUT),
                                               "TAVOLA_LOG_LEVEL": "info"})
    said = [line for line in err.splitlines() if game_id in line and "cannot resume" in line]
    assert len(said) == 1 and "Starting morris" in said[0], err
    assert f"resume it with: tavola run --resume {game_id}" in said[0]
    assert Journal(tmp_path / "state").records() == []  # not filed as finished
    assert actions(tmp_path) == ["d2"]  # the configured game is the one in progress
    kept = Journal(tmp_path / "state").paused / f"{game_id}.jsonl"
    assert [json.loads(line)["move"] for line in kept.read_text().splitlines()[1:]] == ["c3-d4"]


def test_a_layout_file_that_cannot_be_read_leaves_the_unfinished_game_as_it_was(
    tmp_path: Path,
) -> None:
    # A typo in [layout] file: the start stops naming the setting, and the game in progress
    # is not touched (it was filed as abandoned, as if the board could not play it).
    unfinished(tmp_path, "morris", "d2")
    state = tmp_path / "state"
    before = (state / "current.jsonl").read_bytes()
    proc = run(tmp_path, "d6\n", env={"TAVOLA_LAYOUT_FILE": str(tmp_path / "nope.toml")})
    assert proc.returncode == 2
    assert (f"TAVOLA_LAYOUT_FILE: layout.file: cannot read layout file {tmp_path / 'nope.toml'}"
            in proc.stderr), proc.stderr
    assert (state / "current.jsonl").read_bytes() == before
    assert not Journal(state).paused.exists() and Journal(state).records() == []


def test_an_explicit_game_keeps_the_unfinished_one_to_resume_later(tmp_path: Path) -> None:
    game_id = unfinished(tmp_path, "morris", "d2")
    err = play_until(tmp_path, "place a1 G\n", ["G@a1"], "--game", "tessere",
                     env={"TAVOLA_LOG_LEVEL": "info"})
    assert f"tavola run --resume {game_id}" in err
    assert (tmp_path / "state" / "paused" / f"{game_id}.jsonl").is_file()
    assert actions(tmp_path) == ["G@a1"]

    # Back to the morris game: the tessere game waits in its turn.
    err = play_until(tmp_path, "a1\n", ["d2", "a1"], "--resume", game_id,
                     env={"TAVOLA_LOG_LEVEL": "info"})
    assert actions(tmp_path) == ["d2", "a1"]
    assert "tavola run --resume 20" in err and "tessere" in err


def test_resume_with_a_mistyped_id_leaves_the_game_in_progress_where_it_is(
        tmp_path: Path) -> None:
    # The game in progress was put aside "to resume nope" before 'nope' was found missing:
    # the next plain start began a new game beside it.
    game_id = unfinished(tmp_path, "morris", "d2")
    state = tmp_path / "state"
    before = (state / "current.jsonl").read_bytes()
    proc = run(tmp_path, "d6\n", "--resume", "nope")
    assert proc.returncode == 2
    assert "no paused game 'nope'" in proc.stderr and "paused: none" in proc.stderr
    assert (state / "current.jsonl").read_bytes() == before and not Journal(state).paused.exists()
    # Its own id is no mistake: the game in progress goes on.
    play_until(tmp_path, "d6\n", ["d2", "d6"], "--resume", game_id)


def test_a_second_daemon_on_the_same_journal_is_refused(tmp_path: Path) -> None:
    # The service and a `tavola run` in a terminal on one journal: both resumed the game
    # in progress and appended to it, and one filed it under the other's feet.
    first = spawn(tmp_path, "d2\nwait 60\n")
    try:
        wait_for(lambda: actions(tmp_path) == ["d2"], 30)
        second = run(tmp_path, "d6\n")
        assert second.returncode == 2
        (line,) = second.stderr.strip().splitlines()
        assert line == (f"tavola: cannot start: the journal {tmp_path / 'state'} is in use by "
                        f"another tavola run (pid {first.pid}): stop it first (sudo systemctl "
                        f"stop tavola, or Ctrl-C in its terminal), or give this one another "
                        f"directory with --journal"), line
        assert actions(tmp_path) == ["d2"] and first.poll() is None  # the first goes on
    finally:
        first.terminate()
        first.communicate(timeout=20)
    play_until(tmp_path, "d6\n", ["d2", "d6"])  # once it has stopped, the next one plays


def test_new_with_a_game_the_board_cannot_run_is_refused_before_anything_is_written(
    tmp_path: Path,
) -> None:
    unfinished(tmp_path, "morris", "d2")
    before = (tmp_path / "state" / "current.jsonl").read_bytes()
    # The configured game is draughts, but the unfinished morris game resumes first.
    proc = subprocess.Popen(
        [*TAVOLA, "run", "--journal", str(tmp_path / "state"), "--leds", "none",
         "--console", "on"], env={**os.environ, "TAVOLA_GAME": "draughts"},
        stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    guard = threading.Timer(30, proc.kill)  # a daemon that never answers fails, not hangs
    guard.start()
    try:
        assert proc.stdin is not None and proc.stderr is not None
        said: list[str] = []
        for line in proc.stderr:
            said.append(line)
            if "Type sensor events" in line:
                proc.stdin.write("new\n")
                proc.stdin.flush()
            if "Cannot start draughts" in line:
                proc.stdin.write("quit\n")
                proc.stdin.flush()
        assert proc.wait(20) == 0, "".join(said)
    finally:
        guard.cancel()
        proc.kill()
    (refusal,) = [line for line in said if "Cannot start draughts on this board" in line]
    assert "tavola run --game draughts" in refusal
    assert "Traceback" not in "".join(said)
    after = (tmp_path / "state" / "current.jsonl").read_bytes()
    assert after.startswith(before)  # nothing filed, no draughts header
    assert b'"draughts"' not in after and Journal(tmp_path / "state").records() == []


# --------------------------------------------------------------------- the journal is the truth
def test_a_journal_that_cannot_be_written_refuses_moves_and_loses_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = load_config(None, {}, {"journal.directory": str(tmp_path), "leds": "sim"})
    daemon = Daemon(config, env={})
    disk_full = False
    real = journal_module._write_all

    def write(fd: int, data: bytes) -> None:
        if disk_full:
            raise OSError(28, "No space left on device")
        real(fd, data)

    monkeypatch.setattr(journal_module, "_write_all", write)


    def recorded() -> list[str]:
        record = Journal(tmp_path).resume()
        return [] if record is None else [
            e.move for e in record.entries if isinstance(e, ActionEntry)]

    async def scenario() -> int:
        nonlocal disk_full
        task = asyncio.create_task(daemon.run())
        await until(lambda: daemon.ready)
        daemon.console_line("d2")
        await until(lambda: len(daemon.session.game.history) == 1)
        disk_full = True
        daemon.console_line("a1")  # Black moves while nothing can be written
        await until(lambda: daemon.session.unrecorded is not None)
        await asyncio.sleep(0.5)
        assert [str(m) for m in daemon.session.game.history] == ["d2"]  # not in memory
        assert recorded() == ["d2"]  # nor on disk
        frame = daemon.leds.frames[-1].frame  # type: ignore[attr-defined]
        assert {frame[daemon.layout.led_of(c)] for c in daemon.layout.cells} == {DIM_RED}
        assert daemon.session.status().startswith("cannot record the game (No space left")
        daemon.console_line("play g7")  # a typed move is refused as well
        assert [str(m) for m in daemon.session.game.history] == ["d2"]
        disk_full = False  # space again: the move on the board is taken and written
        await until(lambda: len(daemon.session.game.history) == 2)
        assert daemon.session.unrecorded is None
        daemon.console_line("quit")
        return await task

    assert asyncio.run(scenario()) == 0
    assert recorded() == ["d2", "a1"]


# --------------------------------------------------------------------- the watchdog
class DyingSensor(SimSensor):
    """The simulator, whose driver fails after the first reading."""

    async def events(self) -> AsyncIterator[SensorEvent]:
        async for event in super().events():
            yield event
            raise RuntimeError("camera unplugged: read failed")


def test_a_dead_sensor_stops_the_watchdog_and_the_daemon_exits_non_zero(
    tmp_path: Path, notify_socket: tuple[socket.socket, str], monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    sock, path = notify_socket
    monkeypatch.setattr("tavola.daemon.load_sensor", lambda name: DyingSensor)
    config = load_config(None, {}, {"journal.directory": str(tmp_path), "leds": "none"})
    daemon = Daemon(config, env={"NOTIFY_SOCKET": path, "WATCHDOG_USEC": "100000"})

    async def scenario() -> int:
        return await asyncio.wait_for(daemon.run(), 10)

    assert asyncio.run(scenario()) == 1
    assert "sensing stopped (RuntimeError: camera unplugged" in caplog.text
    sock.settimeout(0.5)
    got = []
    try:
        while True:
            got.append(sock.recv(4096))
    except TimeoutError:
        pass
    assert got[-1] == b"STOPPING=1"  # no watchdog ping after the sensing died
    assert Journal(tmp_path).in_progress()  # the game is kept for the restart


def test_a_dead_tick_stops_the_daemon_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    config = load_config(None, {}, {"journal.directory": str(tmp_path), "leds": "none"})
    daemon = Daemon(config, env={})

    def broken(force: bool = False) -> None:
        if daemon.ready:
            raise RuntimeError("drawing failed")

    monkeypatch.setattr(daemon, "_flush", broken)  # outside the tick's own safety net

    async def scenario() -> int:
        return await asyncio.wait_for(daemon.run(), 10)

    assert asyncio.run(scenario()) == 1
    assert "the periodic tick stopped (RuntimeError: drawing failed)" in caplog.text


def test_new_on_a_full_disk_keeps_the_game_in_play(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    unfinished(tmp_path, "morris", "d2")
    state = tmp_path / "state"
    before = (state / "current.jsonl").read_bytes()
    config = load_config(None, {}, {"journal.directory": str(state), "leds": "none"})
    daemon = Daemon(config, env={})
    real = journal_module._write_all

    def full(fd: int, data: bytes) -> None:
        raise OSError(28, "No space left on device")

    async def scenario() -> int:
        task = asyncio.create_task(daemon.run())
        while not daemon.ready:
            await asyncio.sleep(0.01)
        first = daemon.session.game
        monkeypatch.setattr(journal_module, "_write_all", full)
        daemon.console_line("new")  # the new header cannot be written: nothing changes
        assert daemon.session.game is first
        assert daemon.session.unrecorded == "No space left on device"
        monkeypatch.setattr(journal_module, "_write_all", real)
        daemon.console_line("quit")
        return await task

    assert asyncio.run(scenario()) == 0
    assert (state / "current.jsonl").read_bytes().startswith(before)  # still the morris game
    assert Journal(state).records() == [] and not list(state.glob(".current*"))
