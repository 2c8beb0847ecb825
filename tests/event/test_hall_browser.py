"""The hall page in a real browser (Debian's chromium through Playwright, as the web
tests): every table's card appears, a move on a board moves its card, and an offline
board's card comes first; skipped, saying what to install, without chromium or Mosquitto."""

from __future__ import annotations

import asyncio
import json
import random
import shutil
from pathlib import Path

import pytest

from tests.event.broker import Broker
from tests.event.tables import boards, console, play_random, until
from tests.web.test_browser import ARGS, CHROMIUM

try:
    from playwright.async_api import async_playwright
except ImportError:  # pragma: no cover - the dev extra installs it
    async_playwright = None  # type: ignore[assignment]

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(async_playwright is None,
                       reason="browser tests: pip install playwright (the dev extra)"),
    pytest.mark.skipif(shutil.which(CHROMIUM) is None,
                       reason=f"browser tests: no {CHROMIUM}; install Debian's chromium "
                              f"(sudo apt-get install chromium)"),
]


def test_the_hall_page_shows_every_table_live(tmp_path: Path) -> None:
    broker = Broker(tmp_path / "broker", 3)
    broker.start()

    async def scenario() -> None:
        async with boards(tmp_path, broker, 3) as daemons, console(broker) as hall, \
                async_playwright() as p:
            await until(lambda: len(hall.hall.tables) == 3)
            browser = await p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            try:
                page = await browser.new_page(viewport={"width": 1000, "height": 700})
                await page.goto(f"{hall.url}/")
                await page.locator("a.table svg.board").nth(2).wait_for()
                await play_random(daemons[1], 2, random.Random(2))
                card = page.locator('a.table[data-table="2"]', has_text="ply 2")
                await card.wait_for()  # the stream moved the card on
                assert await card.locator("circle.piece").count() == 2
                cards = page.locator("a.table")
                assert [await cards.nth(i).get_attribute("data-table") for i in range(3)] == [
                    "1", "2", "3"]
                # Table 3 stops: its card (offline) comes first, in red.
                assert daemons[2].event is not None
                await daemons[2].event.stop()
                await page.locator("a.table.alert", has_text="board offline").wait_for()
                assert await cards.first.get_attribute("data-table") == "3"
                plies = json.loads(await page.locator("body").get_attribute("data-plies")
                                   or "{}")
                assert plies == {"1": 0, "2": 2, "3": 0}
            finally:
                await browser.close()

    try:
        asyncio.run(scenario())
    finally:
        broker.stop()
