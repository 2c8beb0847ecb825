"""Quinque on the simulated board: an open table (no layout cells), tiles put down and moved
as raw sensor events, a whole game followed by the session; and at the daemon's console,
moves typed in Quinque's notation."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path
from typing import Any

from tavola.config import load_config
from tavola.daemon import Daemon, board_events
from tavola.games import new_game
from tavola.hardware.layout import Layout
from tavola.hardware.sim import SimSensor
from tavola.session import Session
from tests.waiting import until

TICK = 0.05


def test_a_whole_quinque_game_on_the_simulated_table() -> None:
    rng = random.Random(7)
    layout = Layout.for_game("quinque")  # timer-only: no cells
    referee = new_game("quinque")  # the game the players have in mind
    sensor = SimSensor(layout, "identity", start=referee.view("identity"))
    session = Session(new_game("quinque"), layout, "identity", cells=layout.cells,
                      settle=0.25, grace=1.0)
    session.start(0.0, 0.0)
    logs: list[str] = []

    def run(seconds: float) -> None:
        end = sensor.now + seconds
        while sensor.now < end - 1e-9:
            sensor.advance(TICK)
            for event in sensor.drain():
                fx = session.on_snapshot(event.cells, sensor.now, sensor.now)  # type: ignore[union-attr]
                logs.extend(fx.log)
            logs.extend(session.tick(sensor.now, sensor.now).log)

    run(0.1)
    while referee.outcome() is None and len(referee.history) < 300:
        move = rng.choice(referee.legal_moves())
        script = board_events(referee.view("identity"), _after(referee, move))
        referee.apply(move)
        if script:
            sensor.run_script(script)
            run(0.5)
            if "ambiguous" in session.status():
                logs.extend(session.command(str(move), sensor.now, sensor.now).log)
        else:  # a pass: the board cannot show it, the player says it
            logs.extend(session.command(str(move), sensor.now, sensor.now).log)
        assert session.game.history == referee.history, (logs[-3:], session.status())
    assert referee.outcome() is not None
    assert session.game.outcome() == referee.outcome()
    run(1.0)  # the result waits the grace time for a correction of the last action
    assert any(line.startswith("Game over") for line in logs)


def _after(game: Any, move: Any) -> dict[str, str]:
    probe = game.copy()
    probe.apply(move)
    view: dict[str, str] = probe.view("identity")
    return view


def test_quinque_starts_and_takes_typed_moves_at_the_console(tmp_path: Path) -> None:
    config = load_config(None, {"TAVOLA_INFERENCE_SETTLE": "0.05"},
                         {"journal.directory": str(tmp_path), "leds": "sim",
                          "game": "quinque"})
    daemon = Daemon(config, env={})
    answers: list[str] = []

    def status() -> str:  # what the daemon says if it never gets there
        return daemon.session.status()

    async def scenario() -> int:
        task = asyncio.create_task(daemon.run())
        await until(lambda: daemon.ready, why=status)
        daemon.console_line("m 0,0")  # Red's opening backpack
        await until(lambda: len(daemon.session.game.history) == 1, why=status)
        daemon.console_line("t 2,1")  # Orange adds tile (1,0) and marks 2,1
        await until(lambda: len(daemon.session.game.history) == 2, why=status)
        daemon.console_line("pass")
        answers.append(daemon._reply[0])
        daemon.console_line("m 9,9")
        answers.append(daemon._reply[0])
        daemon.console_line("quit")
        return await task

    assert asyncio.run(scenario()) == 0
    assert [str(m) for m in daemon.session.game.history] == ["m 0,0", "t 2,1"]
    assert answers[0] == "pass changes nothing on the board: type play pass"
    assert answers[1].startswith("Illegal: m 9,9: ")


def test_a_typed_move_the_simulated_board_cannot_make_is_one_answer(tmp_path: Path) -> None:
    config = load_config(None, {}, {"journal.directory": str(tmp_path), "leds": "sim",
                                    "game": "quinque"})
    daemon = Daemon(config, env={})
    answers: list[str] = []

    async def scenario() -> int:
        task = asyncio.create_task(daemon.run())
        while not daemon.ready:
            await asyncio.sleep(0.01)
        daemon.console_line("lift 0,0")  # the board no longer holds what the game has
        daemon.console_line("m 0,0")
        answers.extend(daemon._reply)
        daemon.console_line("quit")
        return await task

    assert asyncio.run(scenario()) == 0
    assert len(answers) == 1 and answers[0].startswith("error: ")
    assert "put it right first" in answers[0]
