"""The arbiter's commands over a real Mosquitto: applied once across a board's restart (the
ids are journaled and read back), and not lost while the board is offline (its persistent
session: the broker keeps them and delivers them when it is back)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import aiohttp
import aiomqtt

from tavola.daemon import Daemon
from tavola.event.console import ACK_SECONDS, EventConsole
from tavola.event.publisher import applied_commands
from tavola.event.topics import Command, Topics, encode
from tavola.record import RefereeEntry
from tests.event.broker import PASSWORD, Broker
from tests.event.tables import EVENT, boards, console_config, until

CLOCK = {"TAVOLA_CLOCK_MODE": "fischer", "TAVOLA_CLOCK_MINUTES": "5"}
ADD = Command("add-30", "clock", {"player": "0", "seconds": "30"}, "arbiter")


@asynccontextmanager
async def arbiter(broker: Broker, table: str) -> AsyncIterator[
        tuple[aiomqtt.Client, list[dict[str, Any]]]]:
    """The arbiter's account on the broker, and the acks of ``table`` as they come."""
    acks: list[dict[str, Any]] = []
    async with aiomqtt.Client("127.0.0.1", broker.port, username="arbiter",
                              password=PASSWORD.format("arbiter")) as client:
        await client.subscribe(Topics(EVENT, table).ack, qos=1)

        async def listen() -> None:
            async for message in client.messages:
                acks.append(json.loads(bytes(message.payload)))
        listening = asyncio.create_task(listen())
        try:
            yield client, acks
        finally:
            listening.cancel()


def referee_entries(daemon: Daemon) -> list[RefereeEntry]:
    """The referee's entries of the board's game in play, as its journal holds them."""
    record = daemon.journal.resume()
    assert record is not None
    return [e for e in record.entries if isinstance(e, RefereeEntry)]


def white_left(board: Daemon) -> float:
    """White's time left on ``board``, in seconds. Its clock runs while a test waits (some
    seconds on a loaded machine), so a test compares ranges, not the clock's text."""
    clock = board.session.clock
    assert clock is not None
    left = clock.remaining(0, board.clock())
    assert left is not None
    return left


async def connected(daemons: list[Daemon]) -> None:
    """Wait until every board is connected to the broker."""
    await until(lambda: all(d.event is not None and d.event.connected.is_set()
                            for d in daemons))


def test_a_command_repeated_after_the_board_restarted_is_answered_not_applied_again(
        tmp_path: Path) -> None:
    broker = Broker(tmp_path / "broker", 1)
    broker.start()
    cmd = Topics(EVENT, "1").cmd

    async def scenario() -> None:
        async with arbiter(broker, "1") as (client, acks):
            async with boards(tmp_path, broker, 1, **CLOCK) as daemons:
                await connected(daemons)
                await client.publish(cmd, encode(ADD.to_message(0)), qos=1)
                await until(lambda: len(acks) == 1)
                assert acks[0]["done"] is True and "repeat" not in acks[0]
                assert [e.command for e in referee_entries(daemons[0])] == [ADD.id]
            # The board restarts from its journal; the arbiter resends (no ack seen, say).
            async with boards(tmp_path, broker, 1, **CLOCK) as daemons:
                await connected(daemons)
                board = daemons[0]
                assert 300 < white_left(board) <= 330  # the 30 s added once: not lost, not doubled
                await client.publish(cmd, encode(ADD.to_message(0)), qos=1)
                await until(lambda: len(acks) == 2)
                assert acks[1]["repeat"] is True and acks[1]["done"] is True
                assert acks[1]["said"] == acks[0]["said"]
                assert [e.action for e in referee_entries(board)] == ["clock +30 s White"]
                assert 300 < white_left(board) <= 330  # the 30 s added once: not lost, not doubled

    try:
        asyncio.run(scenario())
    finally:
        broker.stop()


def test_a_command_sent_while_the_board_is_offline_is_applied_when_it_is_back(
        tmp_path: Path) -> None:
    broker = Broker(tmp_path / "broker", 1)
    broker.start()
    cmd = Topics(EVENT, "1").cmd

    async def scenario() -> None:
        async with arbiter(broker, "1") as (client, acks):
            async with boards(tmp_path, broker, 1, **CLOCK) as daemons:
                await connected(daemons)  # the broker now keeps the board's session
                daemons[0].console_line("d2")  # the first move starts the clocks
                await until(lambda: len(daemons[0].session.game.history) == 1)
            # The board is off (a power cut, a restart): the arbiter sends meanwhile.
            await client.publish(cmd, encode(ADD.to_message(0)), qos=1)
            pause = Command("pause-1", "pause", {"reason": "a player is ill"}, "arbiter")
            await client.publish(cmd, encode(pause.to_message(0)), qos=1)
            await asyncio.sleep(0.2)  # not an assertion: a chance for a wrong early ack
            assert acks == []
            async with boards(tmp_path, broker, 1, **CLOCK) as daemons:
                await until(lambda: len(acks) == 2)
                board = daemons[0]
                assert [(a["id"], a["done"]) for a in acks] == [(ADD.id, True),
                                                                (pause.id, True)]
                assert [e.action for e in referee_entries(board)] == [
                    "clock +30 s White", "pause clocks"]
                assert 300 < white_left(board) <= 330  # the 30 s added once: not lost, not doubled
                # The arbiter, who saw no ack in time, sends it again: answered only.
                await client.publish(cmd, encode(pause.to_message(0)), qos=1)
                await until(lambda: len(acks) == 3)
                assert acks[2]["repeat"] is True
                assert len(referee_entries(board)) == 2

    try:
        asyncio.run(scenario())
    finally:
        broker.stop()


def test_the_applied_ids_are_read_back_from_journal_lines_old_and_new() -> None:
    old = RefereeEntry("undo to ply 3", "referee@10.0.0.2", "", 1.0, 1.0)
    new = RefereeEntry("pause clocks", "arbiter", "ill", 2.0, 2.0, "c-7")
    lines = [json.dumps(e.to_json()).encode() for e in (old, new)]
    assert "command" not in old.to_json()  # a console's entry reads as before
    assert RefereeEntry.from_json(json.loads(lines[0])) == old
    assert RefereeEntry.from_json(json.loads(lines[1])) == new
    answers = applied_commands([*lines, b'{"type":"referee","command":', b""])
    assert dict(answers) == {"c-7": {"id": "c-7", "done": True,
                                     "said": "Done: pause clocks."}}


def with_console(broker: Broker, steps: Callable[[EventConsole], Awaitable[None]],
                 ack_seconds: float = ACK_SECONDS) -> None:
    """Run ``steps`` against an arbiter's console of ``broker`` (started or not), then stop
    the console and the broker."""
    async def scenario() -> None:
        hall = EventConsole(console_config(broker), "4711", ack_seconds=ack_seconds)
        await hall.start()
        try:
            await steps(hall)
        finally:
            await hall.stop()

    try:
        asyncio.run(scenario())
    finally:
        broker.stop()


def test_the_console_offers_an_unanswered_command_for_resending_with_its_own_id(
        tmp_path: Path) -> None:
    """The arbiter's page sends +30 s to a board that is off: no answer in time. The page
    offers it again; the resend keeps the id, so when the board is back (the broker kept
    both copies for it) the clock gains 30 s once, and the offer goes away."""
    broker = Broker(tmp_path / "broker", 1)
    broker.start()

    async def steps(hall: EventConsole) -> None:
        async with boards(tmp_path, broker, 1, **CLOCK) as daemons:
            await connected(daemons)  # the broker now keeps the board's session
        await until(lambda: "1" in hall.hall.tables and hall.connected.is_set())
        async with aiohttp.ClientSession() as http:
            await http.post(f"{hall.url}/referee/login", data={"pin": "4711"})
            view = await (await http.get(f"{hall.url}/table/1")).text()
            csrf = view.split('name="csrf" value="', 1)[1].split('"', 1)[0]
            assert 'id="resend"' not in view
            sent = await http.post(f"{hall.url}/table/1/action", data={
                "csrf": csrf, "action": "clock", "player": "0", "seconds": "30"})
            page = await sent.text()
            assert "No answer from table 1" in page and 'id="resend"' in page
            first = hall.unanswered["1"].id
            again = await http.post(f"{hall.url}/table/1/resend", data={"csrf": csrf})
            assert "No answer from table 1" in await again.text()
            assert hall.unanswered["1"].id == first  # the same command, not a new one
            async with boards(tmp_path, broker, 1, **CLOCK) as daemons:
                board = daemons[0]
                await until(lambda: "1" not in hall.unanswered)  # its ack came late
                await until(lambda: len(referee_entries(board)) == 1)
                await asyncio.sleep(0.3)  # not an assertion: a chance for a double
                assert [e.command for e in referee_entries(board)] == [first]
                assert 300 < white_left(board) <= 330  # added once
                view = await (await http.get(f"{hall.url}/table/1")).text()
                assert 'id="resend"' not in view
                nothing = await http.post(f"{hall.url}/table/1/resend",
                                          data={"csrf": csrf})
                assert "Nothing to resend" in await nothing.text()

    with_console(broker, steps, ack_seconds=0.3)


def test_a_post_that_is_not_a_form_is_a_bad_request(tmp_path: Path) -> None:
    """Bytes that are not UTF-8 posted to the arbiter's console were a 500 and a traceback
    (aiohttp's form parser raised UnicodeDecodeError); now a 400 that says what to do."""
    broker = Broker(tmp_path / "broker", 1)
    broker.start()

    async def steps(hall: EventConsole) -> None:
        async with aiohttp.ClientSession() as http:
            await http.post(f"{hall.url}/referee/login", data={"pin": "4711"})
            form = {"Content-Type": "application/x-www-form-urlencoded"}
            for path in ("/referee/login", "/table/1/action"):
                response = await http.post(f"{hall.url}{path}", data=b"\xff\xfe pin",
                                           headers=form, allow_redirects=False)
                assert response.status == 400, path
                assert "the form could not be read" in await response.text()

    with_console(broker, steps)


def test_the_hall_says_when_the_console_has_no_broker(tmp_path: Path) -> None:
    """A broker not started yet, or gone: the hall showed "0 tables" (or tables frozen at
    what was last heard) and nothing else, which an arbiter reads as boards gone quiet."""
    broker = Broker(tmp_path / "broker", 1)  # its port chosen, the broker not started yet

    async def page(http: aiohttp.ClientSession, url: str) -> str:
        return await (await http.get(url)).text()

    async def first_event(http: aiohttp.ClientSession, url: str) -> dict[str, Any]:
        async with http.get(f"{url}/events") as stream:
            async for line in stream.content:
                if line.startswith(b"data: "):
                    data: dict[str, Any] = json.loads(line[6:])
                    return data
        raise AssertionError("no event")

    async def steps(hall: EventConsole) -> None:
        async with aiohttp.ClientSession() as http:
            down = f"Not connected to the broker 127.0.0.1:{broker.port}"
            await until(lambda: hall.hall.link.startswith(down))
            assert down in await page(http, hall.url)
            assert (await first_event(http, hall.url))["link"].startswith(down)
            broker.start()
            await until(lambda: hall.connected.is_set(), 30.0)
            assert (await first_event(http, hall.url))["link"] == ""
            assert '<p class="msg" id="link"></p>' in await page(http, hall.url)

    with_console(broker, steps)
