"""The pages in a real browser: Debian's chromium driven by Playwright, against a daemon
on the simulator in the same event loop. Playwright's own browser download cannot work
here, so the tests use /usr/bin/chromium (``make test`` installs it when run as root) and
skip, saying what to install, without it. With TAVOLA_SCREENSHOTS=1 they also retake the
README's screenshots in docs/img/ (else into a temporary folder, so a run leaves the tree
clean).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tests.web.daemon import PIN, until, web_daemon

CHROMIUM = os.environ.get("TAVOLA_CHROMIUM", "/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
DOCS_IMAGES = Path(__file__).resolve().parents[2] / "docs" / "img"
IMAGES = DOCS_IMAGES  # where run_in_browser's scenario saves its screenshots
CLOCK = {"TAVOLA_CLOCK_MODE": "fischer", "TAVOLA_CLOCK_MINUTES": "5"}

try:
    from playwright.async_api import Browser, async_playwright
except ImportError:  # pragma: no cover - the dev extra installs it
    async_playwright = None  # type: ignore[assignment]

# Every browser test's marks (the event console's browser tests take them too).
BROWSER = [
    pytest.mark.browser,
    pytest.mark.skipif(async_playwright is None,
                       reason="browser tests: pip install playwright (the dev extra)"),
    pytest.mark.skipif(shutil.which(CHROMIUM) is None,
                       reason=f"browser tests: no {CHROMIUM}; install Debian's chromium "
                              f"(sudo apt-get install chromium)"),
]
pytestmark = BROWSER


def run_in_browser(tmp_path: Path, scenario: object, game: str = "morris", **env: str,
                   ) -> None:
    """Run ``scenario(browser, daemon, url)`` with the daemon and chromium in one loop."""
    import asyncio

    global IMAGES
    IMAGES = DOCS_IMAGES if os.environ.get("TAVOLA_SCREENSHOTS") == "1" else tmp_path / "img"

    async def main() -> None:
        async with web_daemon(tmp_path, game, **env) as (daemon, url), \
                async_playwright() as p:
            browser = await p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            try:
                await scenario(browser, daemon, url)  # type: ignore[operator]
            finally:
                await browser.close()

    asyncio.run(main())


def test_a_move_appears_live_and_a_late_page_sees_the_same(tmp_path: Path) -> None:
    async def scenario(browser: Browser, daemon: object, url: str) -> None:
        from tavola.daemon import Daemon
        assert isinstance(daemon, Daemon)
        page = await browser.new_page(viewport={"width": 900, "height": 640})
        await page.goto(f"{url}/")
        await page.wait_for_function("document.body.dataset.version !== ''")
        daemon.console_line("d2")
        await page.locator("#moves li", has_text="d2").wait_for()
        daemon.console_line("a1")
        await page.locator("#moves li", has_text="a1").wait_for()
        late = await browser.new_page(viewport={"width": 900, "height": 640})
        await late.goto(f"{url}/")
        await late.locator("#moves li", has_text="a1").wait_for()
        assert await late.locator("#moves").inner_text() == \
            await page.locator("#moves").inner_text()
        assert await late.locator("#last").inner_text() == "a1"
        assert await page.locator('[data-cell="d2"] .piece').count() == 1
        IMAGES.mkdir(parents=True, exist_ok=True)
        await page.screenshot(path=str(IMAGES / "web-live.png"))

    run_in_browser(tmp_path, scenario, **CLOCK)


def test_the_referee_logs_in_and_adds_30_seconds(tmp_path: Path) -> None:
    async def scenario(browser: Browser, daemon: object, url: str) -> None:
        from tavola.daemon import Daemon
        assert isinstance(daemon, Daemon)
        clock = daemon.session.clock
        assert clock is not None
        page = await browser.new_page(viewport={"width": 900, "height": 900})
        await page.goto(f"{url}/referee")
        await page.fill('input[name="pin"]', "9999")
        await page.click("text=Log in")
        assert "Wrong PIN" in await page.locator("#message").inner_text()
        await page.fill('input[name="pin"]', PIN)
        await page.click("text=Log in")
        await page.locator("h1", has_text="Referee console").wait_for()
        before = clock.remaining(1, daemon.clock()) or 0.0
        form = page.locator("form", has=page.locator('button[value="clock"]'))
        await form.locator('select[name="player"]').select_option("1")
        await form.locator('input[name="seconds"]').fill("30")
        await form.locator('input[name="reason"]').fill("clock knocked over")
        await form.locator("button").click()
        await page.locator("#message").wait_for()
        assert "Refused" not in await page.locator("#message").inner_text()
        await until(lambda: (clock.remaining(1, daemon.clock()) or 0.0) > before + 25)
        IMAGES.mkdir(parents=True, exist_ok=True)
        await page.screenshot(path=str(IMAGES / "web-referee.png"), full_page=True)

    run_in_browser(tmp_path, scenario, **CLOCK)


def test_the_referee_resolves_an_ambiguous_reading(tmp_path: Path) -> None:
    async def scenario(browser: Browser, daemon: object, url: str) -> None:
        from tavola.daemon import Daemon
        assert isinstance(daemon, Daemon)
        game = daemon.session.game
        cell = next(str(m).split("@")[1] for m in game.legal_moves()
                    if "@" in str(m) and not str(m).startswith("unicorn"))
        candidates = [str(m) for m in game.legal_moves() if str(m).endswith("@" + cell)]
        view = await browser.new_page(viewport={"width": 900, "height": 700})
        await view.goto(f"{url}/")
        daemon.console_line(f"place {cell} R")  # a chip: the animal's card, or a unicorn?
        await view.locator("#status", has_text="ambiguous").wait_for()
        IMAGES.mkdir(parents=True, exist_ok=True)
        await view.screenshot(path=str(IMAGES / "web-sequence.png"))
        page = await browser.new_page()
        await page.goto(f"{url}/referee")
        await page.fill('input[name="pin"]', PIN)
        await page.click("text=Log in")
        form = page.locator("form", has=page.locator('button[value="play"]'))
        await form.locator('input[name="move"]').fill(candidates[-1])
        await form.locator("button").click()
        await page.locator("#message").wait_for()
        await view.locator("#moves li", has_text=candidates[-1]).wait_for()
        assert [str(m) for m in daemon.session.game.history] == [candidates[-1]]
        assert "ambiguous" not in await view.locator("#status").inner_text()

    run_in_browser(tmp_path, scenario, "sequence-kids", TAVOLA_GAME_PARAMS_CARDS="declared")


def test_the_referee_corrects_a_move_and_the_view_guides_the_board_back(
        tmp_path: Path) -> None:
    async def scenario(browser: Browser, daemon: object, url: str) -> None:
        from tavola.daemon import Daemon
        assert isinstance(daemon, Daemon)
        view = await browser.new_page(viewport={"width": 900, "height": 700})
        await view.goto(f"{url}/")
        for n, move in enumerate(("d2", "a1", "d6"), 1):
            daemon.console_line(move)
            await until(lambda n=n: len(daemon.session.game.history) == n)  # type: ignore[misc]
        await view.locator("#moves li", has_text="d6").wait_for()
        page = await browser.new_page(viewport={"width": 900, "height": 1100})
        await page.goto(f"{url}/referee")
        await page.fill('input[name="pin"]', PIN)
        await page.click("text=Log in")
        assert await page.locator("#seats svg").count() == 2  # each seat's QR code
        form = page.locator("form", has=page.locator('button[value="correct"]'))
        await form.locator('input[name="ply"]').fill("1")
        await form.locator('input[name="moves"]').fill("d2")  # taken: refused, and why
        await form.locator("button").click()
        assert "Refused: Illegal after ply 1: d2" in \
            await page.locator("#message").inner_text()
        form = page.locator("form", has=page.locator('button[value="correct"]'))
        await form.locator('input[name="ply"]').fill("1")
        await form.locator('input[name="moves"]').fill("g7")
        await form.locator('input[name="reason"]').fill("Black meant g7")
        await form.locator("button").click()
        assert "Refused" not in await page.locator("#message").inner_text()
        # Every open page tells the players how to set the board to the corrected game.
        await view.locator("#status", has_text="set the board to it").wait_for()
        assert "lift a1, lift d6, put a piece on g7" in \
            await view.locator("#status").inner_text()
        assert await view.locator("#moves li").all_inner_texts() == ["d2", "g7"]
        assert "correct to ply 1: g7 (Black meant g7)" in \
            await page.locator("#incidents").inner_text()
        IMAGES.mkdir(parents=True, exist_ok=True)
        await view.screenshot(path=str(IMAGES / "web-correction.png"))
        daemon.console_line("a1-g7")
        await until(lambda: "lift d6" in daemon.session.status()
                    and "g7" not in daemon.session.status())
        daemon.console_line("lift d6")
        await view.locator("#status", has_text="set the board").wait_for(state="detached")
        assert (await view.locator("#status").inner_text()).startswith("morris: White to move")
        assert daemon.session.restoring is None
        assert [str(m) for m in daemon.session.game.history] == ["d2", "g7"]

    run_in_browser(tmp_path, scenario)


def test_the_page_says_when_the_board_is_out_of_reach(tmp_path: Path) -> None:
    # The daemon stopped: the page kept the last position up as if live; only the
    # browser's console knew. The browser retries by itself meanwhile.
    async def scenario(browser: Browser, daemon: object, url: str) -> None:
        from tavola.daemon import Daemon
        assert isinstance(daemon, Daemon) and daemon.web is not None
        page = await browser.new_page()
        await page.goto(f"{url}/")
        await page.wait_for_function("document.body.dataset.version !== ''")
        assert await page.locator("#offline").is_hidden()
        await daemon.web.stop()
        await page.locator("#offline").wait_for(state="visible")
        assert "connection to the board is lost" in await page.locator("#offline").inner_text()

    run_in_browser(tmp_path, scenario)
