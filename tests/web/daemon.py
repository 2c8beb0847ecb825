"""A daemon with the web on, in this process on the simulator, for the web tests."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import aiohttp

from tavola.config import load_config
from tavola.daemon import Daemon
from tests.waiting import until as until  # the web and event tests use it from here

PIN = "4711"


@asynccontextmanager
async def web_daemon(tmp_path: Path, game: str = "morris", **env: str,
                     ) -> AsyncIterator[tuple[Daemon, str]]:
    """The daemon running ``game`` with its web server on a free loopback port."""
    config = load_config(None, {
        "TAVOLA_WEB_ENABLED": "true", "TAVOLA_WEB_LISTEN": "127.0.0.1:0",
        "TAVOLA_WEB_PIN": PIN, "TAVOLA_INFERENCE_SETTLE": "0.05", **env,
    }, {"journal.directory": str(tmp_path / "journal"), "leds": "sim", "game": game})
    daemon = Daemon(config, console=None, out=None, env={})
    task = asyncio.create_task(daemon.run())
    while daemon.web is None or not daemon.web.listening.is_set():
        if task.done():
            task.result()
        await asyncio.sleep(0.01)
    try:
        yield daemon, daemon.web.url
    finally:
        daemon.stopping.set()
        assert await task == 0


async def next_event(response: aiohttp.ClientResponse) -> tuple[int, dict[str, Any]]:
    """The next ``state`` event of a stream: (its version, its data)."""
    event_id, data = -1, ""
    while True:
        raw = await asyncio.wait_for(response.content.readline(), 10)
        if not raw:
            raise AssertionError("the stream ended")
        line = raw.decode().rstrip("\n")
        if line.startswith("id: "):
            event_id = int(line[4:].partition(".")[2])
        elif line.startswith("data: "):
            data = line[6:]
        elif not line and data:
            return event_id, json.loads(data)


async def login(session: aiohttp.ClientSession, url: str, pin: str = PIN) -> str:
    """Log in as the referee; returns the console's CSRF token."""
    response = await session.post(f"{url}/referee/login", data={"pin": pin})
    page = await response.text()
    assert response.status == 200 and "Referee console" in page
    return page.split('name="csrf" value="', 1)[1].split('"', 1)[0]


async def referee_act(session: aiohttp.ClientSession, url: str, csrf: str, **form: str) -> str:
    """One referee action from the console's form; returns the message the console shows."""
    response = await session.post(f"{url}/referee/action", data={"csrf": csrf, **form})
    assert response.status == 200
    page = await response.text()
    return page.split('id="message">', 1)[1].split("</p>", 1)[0]
