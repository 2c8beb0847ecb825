"""The daemon itself reading a game from a camera: frames on disk in, journal out.

The other camera tests feed a Session by hand; here ``tavola run``'s Daemon loads the
``camera`` backend from its config, as on a board, with a directory of rendered frames as
the camera (played once in name order, paced at ``fps``). When the frames run out sensing
ends and the daemon exits 1 (systemd would restart it); a second daemon on the same journal
with the next frames resumes the game. Between them they check the wiring that only the
daemon does: snapshots to the session, and the accepted position offered back to the camera
(``follow_position``) so its calibration follows the light.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import cv2

from tavola.config import load_config
from tavola.daemon import Daemon
from tavola.games import Game, new_game
from tavola.hardware.camera import CameraSensor
from tavola.journal import read_record
from tavola.record import ActionEntry, IllegalEntry
from tests.hardware.test_camera import frame, transcript

FRAMES_PER_POSITION = 8  # at 20 fps: 0.4 s a position, past agree (2) and settle (0.05 s)


def write_frames(directory: Path, game: Game[Any], moves: list[str]) -> None:
    """PNG frames of ``game``'s position, then of each position after ``moves``."""
    directory.mkdir()
    positions = [game.view("identity")]
    for text in moves:
        game.apply(game.parse_move(text))
        positions.append(game.view("identity"))
    k = 0
    for cells in positions:
        image = frame(game.name, cells)
        for _ in range(FRAMES_PER_POSITION):
            cv2.imwrite(str(directory / f"{k:04d}.png"), image)
            k += 1


def config_file(tmp_path: Path, frames: Path) -> Path:
    path = tmp_path / f"tavola-{frames.name}.toml"
    path.write_text(f"""
[game]
name = "tessere"
[sensor]
backend = "camera"
options = {{ source = "{frames}", fps = 20, agree = 2, refresh_every = 0.2 }}
[leds]
backend = "sim"
[inference]
settle = 0.05
[journal]
directory = "{tmp_path / 'journal'}"
""", encoding="utf-8")
    return path


def run_daemon(config: Path) -> tuple[int, Daemon]:
    daemon = Daemon(load_config(config, {}, {}), console=None, out=None, env={})

    async def run() -> int:
        return await asyncio.wait_for(daemon.run(), 120)

    return asyncio.run(run()), daemon


def test_the_daemon_plays_and_resumes_a_game_read_by_the_camera(tmp_path: Path) -> None:
    header, moves = transcript("tessere-second-block")
    assert header["game"] == "tessere"
    first, second = moves[:3], moves[3:5]
    write_frames(tmp_path / "a", new_game("tessere"), first)
    played = new_game("tessere")
    for text in first:
        played.apply(played.parse_move(text))
    write_frames(tmp_path / "b", played, second)

    status, daemon = run_daemon(config_file(tmp_path, tmp_path / "a"))
    assert status == 1  # the frames ran out: sensing ended, the service would restart
    assert isinstance(daemon.sensor, CameraSensor)
    health = daemon.sensor.health()
    # The daemon offered the accepted positions back: the camera recalibrated from them.
    assert health.refreshed_at is not None, health
    assert [str(m) for m in daemon.session.game.history] == first

    status, daemon = run_daemon(config_file(tmp_path, tmp_path / "b"))
    assert status == 1
    assert [str(m) for m in daemon.session.game.history] == first + second  # resumed
    record = read_record(tmp_path / "journal" / "current.jsonl")
    assert [e.move for e in record.entries if isinstance(e, ActionEntry)] == first + second
    assert not [e for e in record.entries if isinstance(e, IllegalEntry)]


def test_a_new_game_of_another_kind_retargets_the_camera(tmp_path: Path) -> None:
    # The daemon's half of `new tessere` on a camera board set up for Quixo: the camera is
    # told the game (it went on reading Quixo's cubes).
    write_frames(tmp_path / "a", new_game("quixo"), [])
    config = config_file(tmp_path, tmp_path / "a")
    config.write_text(config.read_text().replace('name = "tessere"', 'name = "quixo"'))

    async def scenario() -> tuple[str, str]:
        daemon = Daemon(load_config(config, {}, {}), console=None, out=None, env={})
        running = asyncio.create_task(daemon.run())
        try:
            while not daemon.ready:
                await asyncio.sleep(0.05)
            assert isinstance(daemon.sensor, CameraSensor)
            before = daemon.sensor.recogniser.game
            daemon.console_line("new tessere")
            return before, daemon.sensor.recogniser.game
        finally:
            daemon.stopping.set()
            await asyncio.wait_for(running, 30)

    assert asyncio.run(asyncio.wait_for(scenario(), 60)) == ("quixo", "tessere")
