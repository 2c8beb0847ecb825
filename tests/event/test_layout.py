"""The console draws each board with its own layout: a board built to another geometry than
its game's default sends its layout file in the state, and the hall draws with it."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from tavola.event.hall import Hall
from tavola.event.publisher import own_layout
from tavola.event.topics import Topics, encode
from tavola.games import Game
from tavola.hardware.layout import Layout
from tavola.web.view import board_svg
from tests.event.broker import Broker
from tests.event.tables import EVENT, boards, console, until

SHIPPED = Path(__file__).parents[2] / "hardware" / "layouts"


def mirrored_morris(path: Path) -> Path:
    """The shipped morris layout drawn left to right reversed (a board seen from its other
    side): the same cells and wiring, drawn elsewhere."""
    lines = []
    for line in (SHIPPED / "morris.toml").read_text().splitlines():
        if line.startswith('name = "morris"'):
            line = 'name = "morris-mirrored"'
        elif ", x = " in line:
            head, _, tail = line.partition(", x = ")
            x, _, rest = tail.partition(",")
            line = f"{head}, x = {6 - int(x)},{rest}"
        lines.append(line)
    path.write_text("\n".join(lines) + "\n")
    return path


def test_the_default_layout_is_not_sent_and_a_board_of_its_own_is(tmp_path: Path) -> None:
    assert own_layout(Layout.for_game("morris"), "morris") is None
    mine = Layout.load(mirrored_morris(tmp_path / "mirrored.toml"))
    sent = own_layout(mine, "morris")
    assert sent is not None and sent["name"] == "morris-mirrored"
    assert Layout.loads(sent["text"]).places == mine.places


def test_the_console_draws_a_board_with_its_own_layout(tmp_path: Path) -> None:
    broker = Broker(tmp_path / "broker", 1)
    broker.start()
    file = mirrored_morris(tmp_path / "mirrored.toml")

    async def scenario() -> None:
        async with boards(tmp_path, broker, 1, TAVOLA_LAYOUT_FILE=str(file)) as daemons, \
                console(broker) as hall:
            board = daemons[0]
            game: Game[Any] = board.session.game
            own = board_svg(game, Layout.load(file), None)
            default = board_svg(game, Layout.for_game("morris"), None)
            assert own != default  # else the test would show nothing
            await until(lambda: "1" in hall.hall.tables and hall.hall.tables["1"].svg != "")
            assert hall.hall.tables["1"].svg == own
            state = dict(hall.hall.tables["1"].state)
        # A layout that does not fit the game (another game's): the game's default drawn.
        other = Hall(EVENT)
        state["layout"] = {"name": "draughts", "text": (SHIPPED / "draughts.toml").read_text()}
        assert other.receive(Topics(EVENT, "1").state, encode(state))
        assert other.tables["1"].svg == default

    try:
        asyncio.run(scenario())
    finally:
        broker.stop()
