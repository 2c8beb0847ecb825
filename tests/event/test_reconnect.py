"""A broker that stays away: the board keeps trying, and says so a few times, not at
every try (controller/event/publisher.py, keep_connected; tavola.backoff)."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import cast

import aiomqtt
import pytest

from tavola.config import EventConfig, load_config
from tavola.daemon import Daemon
from tavola.event import publisher
from tests.event.broker import Broker
from tests.event.tables import board_env, until

TRIES = 100  # at 30 s each, most of an hour without the broker


def test_a_broker_away_for_an_hour_is_a_few_lines_in_the_log(
        caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch) -> None:
    tries = 0
    pauses: list[float] = []
    real_sleep = asyncio.sleep

    def connect() -> aiomqtt.Client:
        nonlocal tries
        tries += 1
        if tries > TRIES:
            raise asyncio.CancelledError  # the daemon stopping: the test is over
        raise aiomqtt.MqttError("[Errno 111] Connection refused")

    async def no_wait(seconds: float) -> None:
        pauses.append(seconds)
        await real_sleep(0)

    async def serve(client: aiomqtt.Client) -> None:
        raise AssertionError("never connected")

    monkeypatch.setattr(asyncio, "sleep", no_wait)  # the pauses, not the loop's own waits
    config = EventConfig(enabled=True, host="broker.example", port=1883)
    caplog.set_level(logging.DEBUG, logger="tavola.event")
    with pytest.raises(asyncio.CancelledError):
        asyncio.run(publisher.keep_connected(connect, serve, lambda: None, config, "table"))

    said = [r.getMessage() for r in caplog.records if r.name == "tavola.event"]
    assert tries == TRIES + 1 and len(pauses) == TRIES
    assert max(pauses) <= publisher.BACKOFF_MAX * 1.2  # it kept trying, at most every 36 s
    # 0.5 ... 16 s: each step once; then the first try at 30 s and one in twenty after.
    steps = [m for m in said if "trying again in" in m]
    reminders = [m for m in said if "still trying every 30 s" in m]
    assert len(steps) == 7 and all("broker.example:1883" in m for m in steps)
    assert [m.split("(")[1] for m in reminders] == [f"{n} tries so far)" for n in (21, 41, 61, 81)]
    assert len(said) == 11  # it was one warning per try: 100


def test_two_boards_given_one_table_are_told_so(tmp_path: Path,
                                                 caplog: pytest.LogCaptureFixture) -> None:
    """A config copied to every Pi: two boards as table 1 have one MQTT client id, and the
    broker closes each one's connection when the other opens its own. They kicked each
    other off twice a second, all evening, and the log said only "Disconnected"."""
    broker = Broker(tmp_path / "broker", 1)
    broker.start()
    caplog.set_level(logging.WARNING, logger="tavola.event")

    async def scenario() -> None:
        daemons = [Daemon(load_config(None, board_env(broker, 1), {
            "journal.directory": str(tmp_path / f"board{n}"), "leds": "sim"}),
            console=None, out=None, env={}) for n in (1, 2)]
        tasks = [asyncio.create_task(d.run()) for d in daemons]
        try:
            await until(lambda: "another client has this one's id" in caplog.text, 60.0)
        finally:
            for d in daemons:
                d.console_line("quit")
            await asyncio.gather(*tasks)

    try:
        asyncio.run(scenario())
    finally:
        broker.stop()
    # (Not asserted: asyncio's "Future exception was never retrieved" from aiomqtt 2.5.1.
    # publisher._disconnection_seen reads the reason it leaves unread, which took it from
    # every run of this test to about one in six; the rest comes from a connection taken
    # over during aiomqtt's own connect, out of reach: empicano/aiomqtt#375.)
    warned = [r.getMessage() for r in caplog.records if "another client" in r.getMessage()]
    assert warned and "a second board with the same [event] event and table" in warned[0]
    assert f"127.0.0.1:{broker.port}" in warned[0]


def test_a_failure_after_a_while_of_service_retries_from_the_shortest_pause(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # A bug (not the broker) ending a connection that had served a while: the next try
    # comes after the shortest pause, as after a broker outage, not after a grown one.
    tries, pauses = 0, []
    real_sleep = asyncio.sleep

    class Connection:
        async def __aenter__(self) -> Connection:
            return self

        async def __aexit__(self, *exc: object) -> None:
            return None

    def connect() -> aiomqtt.Client:
        nonlocal tries
        tries += 1
        if tries > 6:
            raise asyncio.CancelledError
        return cast(aiomqtt.Client, Connection())

    async def serve(client: aiomqtt.Client) -> None:
        raise RuntimeError("a bug in serving")

    async def no_wait(seconds: float) -> None:
        pauses.append(seconds)
        await real_sleep(0)

    monkeypatch.setattr(asyncio, "sleep", no_wait)
    monkeypatch.setattr(publisher, "TAKEN_OVER_SECONDS", 0.0)  # every connection "a while"
    config = EventConfig(enabled=True, host="broker.example", port=1883)
    with pytest.raises(asyncio.CancelledError):
        asyncio.run(publisher.keep_connected(connect, serve, lambda: None, config, "table"))
    assert len(pauses) == 6 and max(pauses) <= publisher.BACKOFF_FIRST * 1.2
