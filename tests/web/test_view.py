"""The board as SVG, for every game from its own geometry, with the LEDs mirrored."""

from __future__ import annotations

import pytest

from tavola.games import new_game
from tavola.hardware.layout import Layout
from tavola.session import Session
from tavola.web.view import board_svg, public_state, seat_state


@pytest.mark.parametrize(("game", "cells", "extra"), [
    ("morris", 24, ("<line", 16)),  # the 16 lines of its mills
    ("draughts", 32, ('fill="#f0dcb0"', 64)),  # the light squares under the board
    ("quixo", 25, ("<line", 0)),
    ("tessere", 25, ("<line", 0)),
    ("sequence-kids", 42, ("gorilla</text>", 2)),  # the animals, each printed twice
])
def test_every_game_is_drawn_from_its_layout(game: str, cells: int,
                                             extra: tuple[str, int]) -> None:
    g = new_game(game)
    svg = board_svg(g, Layout.for_game(game), None)
    assert svg.count('class="cell') == cells
    assert svg.count(extra[0]) == extra[1]


def test_quinque_tiles_lie_on_an_open_plane() -> None:
    g = new_game("quinque")
    svg = board_svg(g, Layout.for_game("quinque"), None)
    assert svg.count('class="cell') == len(g.view()) and 'data-cell="1,1"' in svg


def test_the_led_frame_and_the_last_move_are_mirrored() -> None:
    g = new_game("morris")
    layout = Layout.for_game("morris")
    session = Session(g, layout, "occupancy", cells=layout.cells)
    session.start(0.0, 0.0)
    session.command("d2", 1.0, 1.0)
    svg = board_svg(g, layout, session.frame(2.0), session.last_move)
    d2 = svg.split('data-cell="d2"', 1)[1].split("</g>", 1)[0]
    assert 'class="led"' in d2 and 'stroke="#00ff00"' in d2 and "piece" in d2
    assert svg.count('class="led"') == 1
    assert 'class="cell last lit" data-cell="d2"' in svg


def test_the_public_state_has_no_hand_and_a_seat_only_its_own() -> None:
    g = new_game("sequence-kids")
    layout = Layout.for_game("sequence-kids")
    session = Session(g, layout, "identity", cells=layout.cells)
    public = str(public_state(session, layout, 0.0))
    for seat in range(g.num_players):
        assert g.private_text(seat) not in public
        assert seat_state(session, seat, layout, 0.0)["hand"] == g.private_text(seat)


def test_board_health_reads_the_sensors_status_defensively() -> None:
    from tavola.web.view import board_health

    class Broken:
        def health(self) -> dict[str, int]:
            raise RuntimeError("camera gone")

    class Lost:
        def health(self) -> dict[str, object]:
            return {"camera": "no frame for 5 s", "markers_seen": 0, "markers_expected": 4}

    class Serial:
        health = "firmware 1.2, 12 ms scans"

    class CameraSensor:  # the camera's backend before it reports its markers
        pass

    assert board_health(None, Broken()) == "board connected"
    assert board_health(None, Lost()) == \
        "board connected; camera: no frame for 5 s, 0 of 4 markers seen"
    assert board_health(None, Serial()) == "board connected; firmware 1.2, 12 ms scans"
    assert board_health(None, CameraSensor()) == "board connected; camera: markers not reported"
    assert board_health(None, object()) == "board connected"
    assert board_health("unplugged", Lost()) == "board disconnected: unplugged"
