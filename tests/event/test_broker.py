"""A club event over a real Mosquitto (started by the test on a free loopback port with a
generated config and the ACL docs/event ships): twenty boards playing random games, the
broker killed and restarted mid-game, a console started late, the ACL refusing a board's
command, a repeated command applied once."""

from __future__ import annotations

import asyncio
import json
import os
import random
import sys
from pathlib import Path
from typing import Any

import aiohttp
import aiomqtt

from tavola.daemon import Daemon
from tavola.event.topics import Command, Topics, encode
from tavola.record import RefereeEntry
from tavola.web.referee import ACTIONS
from tests.event.broker import PASSWORD, Broker
from tests.event.tables import (
    EVENT,
    board_env,
    boards,
    console,
    journal_moves,
    play_random,
    until,
)

BOARDS = 20
PIN = "4711"


def test_twenty_boards_survive_a_broker_restart_and_a_late_console_sees_them(
        tmp_path: Path) -> None:
    broker = Broker(tmp_path / "broker", BOARDS)
    broker.start()

    async def scenario() -> None:
        rngs = [random.Random(16 + n) for n in range(BOARDS)]  # each board its own

        async def play(daemons: list[Daemon], plies: int) -> None:
            await asyncio.gather(*(play_random(d, plies, r)
                                   for d, r in zip(daemons, rngs, strict=True)))

        async with boards(tmp_path, broker, BOARDS, "morris,draughts") as daemons, \
                console(broker) as hall:
            await until(lambda: all(d.event is not None and d.event.connected.is_set()
                                    for d in daemons))
            await play(daemons, 4)
            broker.kill()  # mid-game: no will, no goodbye, nothing saved
            played = [len(d.session.game.history) for d in daemons]
            await play(daemons, 3)
            # Play went on without the broker; the journal has it all.
            assert all(len(d.session.game.history) > n for d, n in zip(daemons, played,
                                                                         strict=True))
            assert any(d.event is not None and d.event.queue for d in daemons)
            broker.start()
            await play(daemons, 3)

            def caught_up() -> bool:
                return all(d.event is not None and not d.event.queue and d.event.state_sent
                           and hall.hall.tables.get(str(n)) is not None
                           and hall.hall.tables[str(n)].moves == journal_moves(d)
                           for n, d in enumerate(daemons, 1))
            await until(caught_up, 30)
            assert all(d.event is not None and d.event.dropped == 0 for d in daemons)
            # The hall page's stream carries every table with the journal's moves.
            async with aiohttp.ClientSession() as http, http.get(f"{hall.url}/events") as r:
                data = await _first_event(r)
            shown = {t["table"]: t["moves"] for t in data["tables"]}
            assert shown == {str(n): journal_moves(d) for n, d in enumerate(daemons, 1)}
            assert all(t["online"] for t in data["tables"])
            # A console started now gets every table from the retained states at once.
            async with console(broker, "hall") as late:
                await until(lambda: len(late.hall.tables) == BOARDS and all(
                    t.moves == journal_moves(daemons[int(n) - 1])
                    for n, t in late.hall.tables.items()))
                async with aiohttp.ClientSession() as http:
                    page = await (await http.get(f"{late.url}/results")).text()
                    record = await (await http.get(
                        f"{late.url}/record/1/{late.hall.tables['1'].state['game_id']}")).text()
                    pdn = await (await http.get(
                        f"{late.url}/record/2/{late.hall.tables['2'].state['game_id']}")).text()
                assert page.count("in play") == BOARDS
                first = journal_moves(daemons[0])
                assert '[Table "1"]' in record and '[Game "morris"]' in record
                assert f"1. {first[0]} {first[1]}" in record
                assert '[Table "2"]' in pdn and '[Result "*"]' in pdn  # draughts: PDN

    try:
        asyncio.run(scenario())
    finally:
        broker.stop()


async def _first_event(response: aiohttp.ClientResponse) -> dict[str, list[dict[str, Any]]]:
    while True:
        line = (await asyncio.wait_for(response.content.readline(), 10)).decode()
        if line.startswith("data: "):
            data: dict[str, list[dict[str, Any]]] = json.loads(line[6:])
            return data


def test_the_acl_refuses_a_boards_command_and_a_repeated_command_is_applied_once(
        tmp_path: Path) -> None:
    broker = Broker(tmp_path / "broker", 3)
    broker.start()
    clock = {"TAVOLA_CLOCK_MODE": "fischer", "TAVOLA_CLOCK_MINUTES": "5"}

    async def scenario() -> None:
        async with boards(tmp_path, broker, 3, **clock) as daemons, \
                console(broker, pin=PIN) as hall:
            await until(lambda: all(d.event is not None and d.event.connected.is_set()
                                    for d in daemons) and len(hall.hall.tables) == 3)
            target = Topics(EVENT, "2")
            acks: list[dict[str, object]] = []
            async with aiomqtt.Client("127.0.0.1", broker.port, username="arbiter",
                                      password=PASSWORD.format("arbiter")) as spy:
                await spy.subscribe(target.cmd, qos=1)
                await spy.subscribe(target.ack, qos=1)
                # Board 3 tries to command board 2: the broker drops it (ACL).
                async with aiomqtt.Client("127.0.0.1", broker.port, username="3",
                                          password=PASSWORD.format("3")) as intruder:
                    forged = Command("forged-1", "result", {"kind": "win", "winner": "1"},
                                     "board 3")
                    await intruder.publish(target.cmd, encode(forged.to_message(0)), qos=1)
                # The arbiter sends one command twice (a resend after a lost ack).
                add = Command("once-1", "clock", {"player": "0", "seconds": "30"}, "arbiter")
                # White's clock runs meanwhile (a loaded machine takes seconds here): compare
                # the time left before and after, less what ran between.
                white = daemons[1].session.clock
                assert white is not None
                started = daemons[1].clock()
                before = white.remaining(0, started)
                async with aiomqtt.Client("127.0.0.1", broker.port, username="arbiter",
                                          password=PASSWORD.format("arbiter")) as arbiter:
                    for _ in range(2):
                        await arbiter.publish(target.cmd, encode(add.to_message(0)), qos=1)
                seen_cmds: list[str] = []

                async def listen() -> None:
                    async for message in spy.messages:
                        data = json.loads(bytes(message.payload))
                        if str(message.topic).endswith("/cmd"):
                            seen_cmds.append(str(data["id"]))
                        elif str(message.topic).endswith("/ack"):
                            acks.append(data)
                listening = asyncio.create_task(listen())
                await until(lambda: len(acks) == 2)
                listening.cancel()
            assert seen_cmds == ["once-1", "once-1"]  # the forged one never got through
            assert [a["id"] for a in acks] == ["once-1", "once-1"]
            assert acks[0]["done"] is True and "repeat" not in acks[0]
            assert acks[1]["repeat"] is True and acks[1]["said"] == acks[0]["said"]
            record = daemons[1].journal.resume()
            assert record is not None
            notes = [e for e in record.entries if isinstance(e, RefereeEntry)]
            assert [n.action for n in notes] == ["clock +30 s White"]
            assert daemons[1].session.game.outcome() is None  # the forged result: not applied
            ended = daemons[1].clock()
            after = white.remaining(0, ended)
            assert before is not None and after is not None
            assert 30 - (ended - started) - 0.01 <= after - before <= 30.01  # added once
            # The console's own referee action goes the same way and shows the answer.
            answer = await hall.command("2", "play", {"move": "zz9"}, "arbiter (test)")
            assert answer["done"] is False and str(answer["said"]).startswith("Refused")
            # From the table's page: the PIN login, then the board console's very forms.
            daemons[1].console_line("d2")  # the first move starts the clocks paused below
            await until(lambda: len(daemons[1].session.game.history) == 1)
            async with aiohttp.ClientSession() as http:
                view = await (await http.get(f"{hall.url}/table/2")).text()
                assert "Log in</a> to referee" in view
                await http.post(f"{hall.url}/referee/login", data={"pin": PIN})
                view = await (await http.get(f"{hall.url}/table/2")).text()
                csrf = view.split('name="csrf" value="', 1)[1].split('"', 1)[0]
                assert view.count('action="/table/2/action"') == len(ACTIONS)  # all of them
                done = await http.post(f"{hall.url}/table/2/action", data={
                    "csrf": csrf, "action": "pause", "reason": "a player is ill"})
                assert "Done: pause clocks" in await done.text()
                stale = await http.post(f"{hall.url}/table/2/action", data={
                    "csrf": "wrong", "action": "resume"})
                assert stale.status == 403
            record = daemons[1].journal.resume()
            assert record is not None
            assert [(e.action, e.reason) for e in record.entries if isinstance(
                e, RefereeEntry)][-1] == ("pause clocks", "a player is ill")

    try:
        asyncio.run(scenario())
    finally:
        broker.stop()


def test_a_board_killed_is_shown_offline_by_its_last_will_and_one_stopped_too(
        tmp_path: Path) -> None:
    broker = Broker(tmp_path / "broker", 2)
    broker.start()

    async def scenario() -> None:
        async with console(broker) as hall:
            # Board 1 as a real process, killed without a goodbye.
            env = {**os.environ, **board_env(broker, 1)}
            env.pop("TAVOLA_CONFIG", None)
            process = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "tavola.cli", "run", "--console", "off", "--leds",
                "none", "--journal", str(tmp_path / "board1"), env=env,
                stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL)
            try:
                await until(lambda: "1" in hall.hall.tables and hall.hall.tables["1"].online
                            is True)
                process.kill()
                await process.wait()
                await until(lambda: hall.hall.tables["1"].online is False)
                assert hall.hall.view()[0]["standing"] == ["board offline"]
            finally:
                if process.returncode is None:
                    process.kill()
                    await process.wait()
            # Board 2 stops as a service does: it says offline itself.
            async with boards(tmp_path, broker, 2) as daemons:
                await until(lambda: "2" in hall.hall.tables and hall.hall.tables["2"].online
                            is True)
                assert daemons[1].event is not None
            await until(lambda: hall.hall.tables["2"].online is False)

    try:
        asyncio.run(scenario())
    finally:
        broker.stop()
