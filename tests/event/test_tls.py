"""The event over TLS: a real Mosquitto with a TLS listener whose certificate a CA made by
the test signed; the board and the console trust that CA (``event.ca_file``), a client
that does not is refused, and a missing CA file is a clear config error."""

from __future__ import annotations

import asyncio
import random
import ssl
from pathlib import Path

import aiomqtt
import pytest

from tavola.config import ConfigError, load_config
from tests.event.broker import PASSWORD, Broker
from tests.event.tables import boards, console, journal_moves, play_random, until


def test_a_board_and_the_console_meet_over_tls_with_the_events_own_ca(
        tmp_path: Path) -> None:
    broker = Broker(tmp_path / "broker", 1, tls=True)
    broker.start()
    assert broker.ca_file is not None
    tls = {"TAVOLA_EVENT_TLS": "true", "TAVOLA_EVENT_CA_FILE": str(broker.ca_file)}
    clock = {"TAVOLA_CLOCK_MODE": "fischer", "TAVOLA_CLOCK_MINUTES": "5"}

    async def scenario() -> None:
        async with boards(tmp_path, broker, 1, **tls, **clock) as daemons, \
                console(broker, **tls) as hall:
            board = daemons[0]
            await until(lambda: board.event is not None and board.event.connected.is_set()
                        and hall.connected.is_set())
            await play_random(board, 4, random.Random(3))
            await until(lambda: "1" in hall.hall.tables and bool(journal_moves(board))
                        and hall.hall.tables["1"].moves == journal_moves(board))
            answer = await hall.command("1", "pause", {"reason": "tls"}, "arbiter")
            assert answer["done"] is True and answer["said"] == "Done: pause clocks."
        # A client trusting only the system's CAs is refused by the certificate check.
        with pytest.raises(aiomqtt.MqttError):
            async with aiomqtt.Client("127.0.0.1", broker.port, username="hall",
                                      password=PASSWORD.format("hall"),
                                      tls_context=ssl.create_default_context()):
                pass

    try:
        asyncio.run(scenario())
    finally:
        broker.stop()


def test_a_ca_file_that_cannot_be_read_is_a_config_error(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere.crt"
    with pytest.raises(ConfigError, match=r"event\.ca_file") as caught:
        load_config(None, {"TAVOLA_EVENT_TLS": "true",
                           "TAVOLA_EVENT_CA_FILE": str(missing)}, {})
    assert "\n" not in str(caught.value) and str(missing) in str(caught.value)
    junk = tmp_path / "junk.crt"
    junk.write_text("not a certificate\n")
    with pytest.raises(ConfigError, match="PEM"):
        load_config(None, {"TAVOLA_EVENT_TLS": "true", "TAVOLA_EVENT_CA_FILE": str(junk)}, {})
