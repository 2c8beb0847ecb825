"""The event's pure parts: the board's report of a session, the console's hall (gaps,
re-sync, order, records), the topics and the [event] settings."""

from __future__ import annotations

from typing import Any

import pytest

from tavola.config import ConfigError, load_config
from tavola.event.board import TableReport
from tavola.event.hall import Hall, record_text
from tavola.event.topics import Command, Topics, check_name, decode, encode, parse_topic
from tavola.games import new_game
from tavola.hardware.layout import Layout
from tavola.record import IllegalEntry
from tavola.session import Effects, Session

T = Topics("club", "3")
HEADER = {"type": "start", "version": 1, "id": "g1", "game": "morris", "params": {},
          "start": None, "clock": None, "players": ["White", "Black"], "wall": 0.0}


def session() -> Session:
    game = new_game("morris")
    layout = Layout.for_game("morris")
    return Session(game, layout, "occupancy", cells=layout.cells)


def test_the_report_says_each_action_and_takeback_with_its_ply() -> None:
    s, report = session(), TableReport()
    first = report.update(s, HEADER, Effects(), 0.0, 0.0)
    assert first.moves == [] and first.state is not None and first.state["ply"] == 0
    s.game.apply("d2")
    s.game.apply("a1")
    out = report.update(s, HEADER, Effects(), 1.0, 1.0)
    assert [(m["action"], m["move"], m["prev"], m["ply"]) for m in out.moves] == [
        ("play", "d2", 0, 1), ("play", "a1", 1, 2)]
    assert out.state is not None and out.state["moves"] == ["d2", "a1"]
    s.game.undo()
    out = report.update(s, HEADER, Effects(), 2.0, 2.0)
    assert [(m["action"], m["move"], m["prev"], m["ply"]) for m in out.moves] == [
        ("undo", "a1", 2, 1)]
    assert report.update(s, HEADER, Effects(), 3.0, 3.0).state is None  # nothing new
    resumed = TableReport().update(s, HEADER, Effects(), 4.0, 4.0)  # a restart at ply 1
    assert resumed.moves == [] and resumed.state is not None and resumed.state["ply"] == 1


def test_an_illegal_position_is_an_alert() -> None:
    s, report = session(), TableReport()
    report.update(s, HEADER, Effects(), 0.0, 0.0)
    fx = Effects(journal=(IllegalEntry({"d2": "#"}, "a man too many", 0, 1.0, 1.0),))
    out = report.update(s, HEADER, fx, 1.0, 1.0)
    assert [a["text"] for a in out.alerts] == ["illegal position: a man too many"]


def message(kind: str, **data: Any) -> tuple[str, bytes]:
    return T.of(kind), encode(data)


def test_the_hall_applies_moves_in_order_and_waits_for_the_state_after_a_gap() -> None:
    hall = Hall("club")
    assert hall.receive(*message("state", game_id="g1", header=HEADER, moves=["d2"], wall=1))
    assert hall.receive(*message("move", game_id="g1", action="play", move="a1", prev=1,
                                 ply=2, wall=2))
    assert hall.tables["3"].moves == ["d2", "a1"]
    # ply 3 lost: ply 4 is a gap, not applied; the state that follows puts it right
    assert not hall.receive(*message("move", game_id="g1", action="play", move="g7", prev=3,
                                     ply=4, wall=3))
    assert hall.tables["3"].moves == ["d2", "a1"] and hall.tables["3"].gaps == 1
    hall.receive(*message("state", game_id="g1", header=HEADER,
                          moves=["d2", "a1", "d6", "g7"], wall=3))
    table = hall.tables["3"]
    assert table.moves == ["d2", "a1", "d6", "g7"] and not table.stale
    assert table.game is not None and [str(m) for m in table.game.history] == table.moves
    assert table.svg.count('class="piece"') == 4 and "<script" not in table.svg
    hall.receive(*message("state", game_id="g1", header=HEADER, moves=["d2"], wall=4))
    assert table.game is not None and [str(m) for m in table.game.history] == ["d2"]
    hall.receive(*message("state", game_id="g1", header=HEADER,
                          moves=["d2", "a1", "d6", "g7"], wall=5))
    assert hall.receive(*message("move", game_id="g1", action="undo", move="g7", prev=4,
                                 ply=3, wall=4))
    assert table.moves == ["d2", "a1", "d6"]


def test_a_move_redraws_the_card_before_its_state_arrives() -> None:
    # A loaded console took a move and showed "ply 2" over the drawing of ply 1 until the
    # state came: the card's ply and its board must always be the same position.
    hall = Hall("club")
    hall.receive(*message("state", game_id="g1", header=HEADER, moves=["d2"], wall=1))
    table = hall.tables["3"]
    assert table.svg.count('class="piece"') == 1
    hall.receive(*message("move", game_id="g1", action="play", move="a1", prev=1, ply=2,
                          wall=2))
    assert table.view()["ply"] == 2 and table.svg.count('class="piece"') == 2
    assert table.game is not None and [str(m) for m in table.game.history] == ["d2", "a1"]
    hall.receive(*message("move", game_id="g1", action="undo", move="a1", prev=2, ply=1,
                          wall=3))
    assert table.view()["ply"] == 1 and table.svg.count('class="piece"') == 1


def test_offline_and_alerting_tables_come_first_and_changes_carry_only_them() -> None:
    hall = Hall("club")
    for n in (1, 2, 10):
        hall.receive(f"tavola/v1/club/{n}/state", encode({"game_id": "g", "moves": []}))
        hall.receive(f"tavola/v1/club/{n}/presence", b"online")
    seen = hall.version
    hall.receive("tavola/v1/club/10/presence", b"offline")  # the broker's last will
    assert [t["table"] for t in hall.view()] == ["10", "1", "2"]
    assert hall.view()[0]["standing"] == ["board offline"]
    changes = hall.changes(seen)
    assert changes["order"] == ["10", "1", "2"] and [t["table"] for t in changes["tables"]] == [
        "10"]
    assert not hall.receive("tavola/v1/other/1/state", encode({"moves": ["x"]}))
    assert not hall.receive("tavola/v1/club/1/cmd", encode({"id": "x"}))


def test_a_record_names_the_movers_and_the_result() -> None:
    state = {"game_id": "g1", "header": HEADER, "moves": ["d2", "a1", "d6"],
             "outcome": {"winner": 1, "reason": "resignation", "cells": []}, "wall": 0}
    text = record_text(state, "3")
    assert text.startswith('[Game "morris"]') and '\n[Table "3"]\n\n' in text
    assert "1. d2 a1 2. d6 0-1" in text


def test_topics_and_commands() -> None:
    assert parse_topic(T.ack) == ("club", "3", "ack")
    assert parse_topic("tavola/v2/club/3/ack") is None
    assert decode(b"not json") is None and decode(b'{"v": 2}') is None
    with pytest.raises(ValueError, match="MQTT topic"):
        check_name("a/b", "event.table")
    with pytest.raises(ValueError, match="needs an id"):
        Command.from_message({"action": "undo"})
    cmd = Command("c1", "undo", {"ply": "3"}, "arbiter")
    assert Command.from_message(decode(encode(cmd.to_message(0))) or {}) == cmd


def test_the_event_is_off_by_default() -> None:
    event = load_config(None, {}, {}).event
    assert (event.enabled, event.host, event.port, event.console_port) == (
        False, "127.0.0.1", 1883, 8090)


@pytest.mark.parametrize(("env", "named"), [
    ({"TAVOLA_EVENT_BROKER": "1883"}, "event.broker = '1883': must be HOST:PORT"),
    ({"TAVOLA_EVENT_ENABLED": "true", "TAVOLA_EVENT_TABLE": "1"},
     "event.enabled = true needs event.event"),
    ({"TAVOLA_EVENT_ENABLED": "true", "TAVOLA_EVENT_EVENT": "c"},
     "event.enabled = true needs event.table"),
    ({"TAVOLA_EVENT_TABLE": "7/#"}, "TAVOLA_EVENT_TABLE: event.table = '7/#': use 1 to 64"),
    ({"TAVOLA_EVENT_PASSWORD": "x", "TAVOLA_EVENT_PASSWORD_FILE": "/x"}, "keep one of them"),
    ({"TAVOLA_EVENT_PASSWORD_FILE": "/nonexistent"}, "event.password_file = '/nonexistent'"),
    ({"TAVOLA_EVENT_PASSWORD": "x"}, "event.username is empty"),
    ({"TAVOLA_EVENT_CONSOLE_LISTEN": "x"}, "event.console_listen = 'x': must be HOST:PORT"),
])
def test_bad_event_settings_name_the_key(env: dict[str, str], named: str) -> None:
    with pytest.raises(ConfigError) as raised:
        load_config(None, env, {})
    assert named in str(raised.value)


def test_tavola_event_without_an_event_says_what_to_set(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    from tavola.cli import main

    monkeypatch.delenv("TAVOLA_CONFIG", raising=False)
    monkeypatch.delenv("TAVOLA_EVENT_EVENT", raising=False)
    assert main(["event"]) == 2
    assert "name the event: [event] event = " in capsys.readouterr().err


def test_a_draughts_record_is_pdn_with_chains_whole_and_english_numbered() -> None:
    from tavola.record import StartEntry

    for variant, game_type, first in (("russian", "25", "c3-d4"), ("english", "21", "11-15")):
        game = new_game("draughts", variant=variant)
        header = StartEntry.of(game, game_id="g7", wall=0.0).to_json()
        moves = ["c3-d4", "f6-e5", "d4xf6", "g7xe5"] if variant == "russian" else [
            "c3-d4", "f6-g5"]
        state = {"game_id": "g7", "game": "draughts", "header": header, "moves": moves,
                 "outcome": {"winner": 0, "reason": "resignation", "cells": []}}
        text = record_text(state, "4", "club")
        assert text.startswith('[Event "club"]'), text
        assert f'[GameType "{game_type}"]' in text and '[Table "4"]' in text
        assert f"1. {first} " in text
    assert '[Result "0-1"]' in text  # PDN: White's score first; English: Black won
