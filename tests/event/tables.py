"""Boards and consoles of a test event: daemons on the simulator publishing to a test
broker, in this process (the broker is the thing under test), and random play on them."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path

from tavola.config import EventConfig, load_config
from tavola.daemon import Daemon
from tavola.event.console import EventConsole
from tavola.journal import Journal
from tavola.record import final_line
from tests.event.broker import PASSWORD, Broker

EVENT = "club-test"


def board_env(broker: Broker, table: int, **extra: str) -> dict[str, str]:
    """The settings of board ``table`` (its account is its table number)."""
    return {"TAVOLA_EVENT_ENABLED": "true", "TAVOLA_EVENT_BROKER": f"127.0.0.1:{broker.port}",
            "TAVOLA_EVENT_EVENT": EVENT, "TAVOLA_EVENT_TABLE": str(table),
            "TAVOLA_EVENT_USERNAME": str(table),
            "TAVOLA_EVENT_PASSWORD": PASSWORD.format(table),
            "TAVOLA_INFERENCE_SETTLE": "0.05", **extra}


def console_config(broker: Broker, account: str = "arbiter", **extra: str) -> EventConfig:
    """The console's settings: ``account`` on the broker, the page on a free port."""
    return load_config(None, {
        "TAVOLA_EVENT_BROKER": f"127.0.0.1:{broker.port}", "TAVOLA_EVENT_EVENT": EVENT,
        "TAVOLA_EVENT_USERNAME": account, "TAVOLA_EVENT_PASSWORD": PASSWORD.format(account),
        "TAVOLA_EVENT_CONSOLE_LISTEN": "127.0.0.1:0", **extra}, {}).event


@asynccontextmanager
async def boards(tmp_path: Path, broker: Broker, count: int, game: str = "morris",
                 **extra: str) -> AsyncIterator[list[Daemon]]:
    """``count`` daemons (tables 1..count) running and publishing; ``game`` may name
    several games, comma-separated, which the tables take in turn."""
    games = game.split(",")
    daemons: list[Daemon] = []
    tasks: list[asyncio.Task[int]] = []
    for table in range(1, count + 1):
        config = load_config(None, board_env(broker, table, **extra), {
            "journal.directory": str(tmp_path / f"board{table}"), "leds": "sim",
            "game": games[(table - 1) % len(games)]})
        daemon = Daemon(config, console=None, out=None, env={})
        daemons.append(daemon)
        tasks.append(asyncio.create_task(daemon.run()))
    await until(lambda: all(d.event is not None for d in daemons) or any(
        t.done() for t in tasks))
    for task in tasks:
        if task.done():
            task.result()
    try:
        yield daemons
    finally:
        for daemon in daemons:
            daemon.stopping.set()
        for task in tasks:
            assert await task == 0


@asynccontextmanager
async def console(broker: Broker, account: str = "arbiter", pin: str = "",
                  **extra: str) -> AsyncIterator[EventConsole]:
    """An event console following the test event (``extra``: more settings)."""
    hall = EventConsole(console_config(broker, account, **extra), pin)
    await hall.start()
    try:
        yield hall
    finally:
        await hall.stop()


async def until(predicate: Callable[[], bool], seconds: float = 20.0) -> None:
    """Wait for ``predicate`` (a test fails on the timeout, not on a timed assertion)."""
    loop = asyncio.get_running_loop()
    end = loop.time() + seconds
    while not predicate():
        if loop.time() > end:
            raise AssertionError("timed out waiting")
        await asyncio.sleep(0.02)


async def play_random(daemon: Daemon, plies: int, rng: random.Random) -> None:
    """Play up to ``plies`` random legal actions on the simulated board, as hands do;
    one the board cannot show or reads as ambiguous is named at the console (``play``)."""
    for _ in range(plies):
        game = daemon.session.game
        if game.outcome() is not None:
            return
        move = rng.choice(game.legal_moves())
        grew = _longer(daemon, len(game.history))
        said = daemon._play_on_board(str(move))
        if said:  # an action no hand shows (a draughts chain's stop): said at the console
            assert "changes nothing on the board" in said, said
            daemon.console_line(f"play {move}")
        try:
            await until(grew, 3.0)
        except AssertionError:
            daemon.console_line(f"play {move}")
            await until(grew, 3.0)


def _longer(daemon: Daemon, plies: int) -> Callable[[], bool]:
    return lambda: len(daemon.session.game.history) > plies


def journal_moves(daemon: Daemon) -> list[str]:
    """The moves of the board's game in play as its journal holds them (the truth)."""
    record = Journal(daemon.config.journal.directory).resume()
    assert record is not None
    return [move for _, move in final_line(record.entries)]
