"""The seat pages' QR codes: the terminal's text code and the console's SVG read back as
the address (OpenCV's QR reader, the vision extra), and where they are shown."""

from __future__ import annotations

import asyncio
import xml.etree.ElementTree as ET
from pathlib import Path

import aiohttp
import pytest

from tavola.web.qr import QUIET_ZONE, svg_qr, terminal_qr
from tests.web.daemon import login, web_daemon

LINK = "http://192.168.1.5:8080/seat/1?token=Vf3kq9Zr2xYp8LmN"
DARK = {" ": (True, True), "▄": (True, False), "▀": (False, True), "█": (False, False)}


def decoded(modules: list[list[bool]]) -> str:
    cv2 = pytest.importorskip("cv2")
    np = pytest.importorskip("numpy")
    image = np.array([[0 if m else 255 for m in row] for row in modules], dtype=np.uint8)
    image = cv2.resize(image, None, fx=8, fy=8, interpolation=cv2.INTER_NEAREST)
    text, _, _ = cv2.QRCodeDetector().detectAndDecode(image)
    return str(text)


def test_the_terminal_code_reads_back_as_the_address() -> None:
    lines = terminal_qr(LINK).splitlines()
    assert len({len(line) for line in lines}) == 1 and set("".join(lines)) <= set(DARK)
    modules: list[list[bool]] = []
    for line in lines:  # each character is two modules, one above the other
        modules.append([DARK[c][0] for c in line])
        modules.append([DARK[c][1] for c in line])
    assert not any(modules[0]) and not any(row[0] for row in modules)  # the quiet zone
    assert decoded(modules) == LINK


def test_the_svg_code_is_one_inline_element_of_the_right_size() -> None:
    svg = svg_qr(LINK, scale=4)
    root = ET.fromstring(svg)
    assert root.tag == "{http://www.w3.org/2000/svg}svg" and not svg.startswith("<?xml")
    side = int(root.attrib["width"]) // 4 - 2 * QUIET_ZONE
    assert side in range(21, 178, 4)  # a QR code's side: 21 + 4 per version
    assert LINK not in svg  # the token is in the code only, not in readable text


def test_the_console_shows_each_seats_code_and_the_terminal_too(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with web_daemon(tmp_path, "sequence-kids") as (daemon, url), \
                aiohttp.ClientSession() as http:
            assert daemon.web is not None
            await login(http, url)
            page = await (await http.get(f"{url}/referee")).text()
            for seat, token in enumerate(daemon.web.seat_tokens[:2]):
                assert f"{url}/seat/{seat}?token={token}" in page
            assert page.count('<svg xmlns="http://www.w3.org/2000/svg"') == 2
            assert 'id="seats"' not in await (await http.get(f"{url}/")).text()
            daemon.console_line("seats")
            shown = "\n".join(daemon._reply)
            assert f"{daemon.session.game.player_names[0]}: {url}/seat/0?token=" in shown
            # On loopback a phone could not follow a code: the way to let phones in instead
            # (tests/web/test_server.py::test_seat_qr_codes_only_where_a_phone_can_open_them).
            assert "▄" not in shown and "only this machine can open these pages" in shown

    asyncio.run(scenario())


@pytest.mark.parametrize("host", ["0.0.0.0", "::"])
def test_a_wildcard_listen_address_is_shown_as_one_a_phone_can_reach(host: str) -> None:
    from typing import Any, cast

    from tavola.config import WebConfig
    from tavola.web.server import WebServer

    server = WebServer(cast(Any, None), WebConfig(enabled=True, host=host, port=8080))
    shown = server.url.removeprefix("http://").rsplit(":", 1)[0].strip("[]")
    assert shown not in ("0.0.0.0", "::", "") and server.url.endswith(":8080")
