"""The event as the console knows it: every table from the messages it received. Pure.

A table's retained ``state`` is the truth; a ``move`` whose ``prev`` ply is the one the
console has is applied at once (the page moves before the state arrives), any other is a
gap, counted, and the table waits for the next state, which every action is followed by.
A finished game's last state is kept, for the results and the records.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from typing import Any

from tavola.event.topics import MAX_LAYOUT_CHARS, OFFLINE, ONLINE, decode, parse_topic
from tavola.export import export_record
from tavola.games import Game, Outcome
from tavola.hardware.layout import Layout, LayoutError
from tavola.record import ActionEntry, Record, ResultEntry, StartEntry, set_up
from tavola.web.view import board_svg

MAX_ALERTS = 20  # a table's recent alerts kept for the page


@dataclass
class Table:
    """One table: its newest state, moves, clocks, presence and recent alerts."""

    name: str
    state: dict[str, Any] = field(default_factory=dict)
    moves: list[str] = field(default_factory=list)
    clocks: str = ""
    online: bool | None = None  # None: no presence message yet
    alerts: list[dict[str, Any]] = field(default_factory=list)
    gaps: int = 0
    stale: bool = False  # a gap was seen: the page waits for the next state
    last_wall: float = 0.0  # the board's time of the newest message (latency)
    svg: str = ""  # the position, drawn here from the header and moves (docs/event.md)
    version: int = 0  # the hall's version when this table last changed
    game: Game[Any] | None = None  # the position drawn, moved on by the next state

    def standing(self) -> list[str]:
        """What the arbiter should look at now: offline, the board's standing alerts."""
        out = ["board offline"] if self.online is False else []
        return out + list(self.state.get("alerts", []))

    def view(self) -> dict[str, Any]:
        """The table for the hall page, JSON-safe."""
        state = self.state
        return {"table": self.name, "game": state.get("game", ""),
                "game_id": state.get("game_id", ""), "players": state.get("players", []),
                "svg": self.svg, "turn": state.get("turn", ""),
                "result": state.get("result", ""), "score": state.get("score", ""),
                "clocks": self.clocks, "status": state.get("status", ""),
                "moves": list(self.moves), "ply": len(self.moves),
                "last": self.moves[-1] if self.moves else "",
                "online": self.online, "standing": self.standing(),
                "alerts": [a.get("text", "") for a in self.alerts[-5:]], "gaps": self.gaps,
                "wall": self.last_wall}


class Hall:
    """Every table of one event; :meth:`receive` takes each MQTT message."""

    def __init__(self, event: str) -> None:
        self.event = event
        self.tables: dict[str, Table] = {}
        # (table, game id) -> the game's last state; a game id is unique on its board only
        self.finished: dict[tuple[str, str], dict[str, Any]] = {}
        self.acks: list[tuple[str, dict[str, Any]]] = []  # (table, ack) not yet taken
        self.version = 0  # moves on every change of any table
        self.link = ""  # what the page says of the console's broker link ("": connected)

    def linked(self, text: str) -> bool:
        """The console's link to the broker, as the page says it ("" once connected);
        True if that changed (then the version moved, so open pages hear of it)."""
        if text == self.link:
            return False
        self.link = text
        self.version += 1
        return True

    def table(self, name: str) -> Table:
        """The table ``name`` (created empty when first heard of)."""
        if name not in self.tables:
            self.tables[name] = Table(name)
        return self.tables[name]

    def receive(self, topic: str, payload: bytes) -> bool:
        """One message; True if the hall page changed (then the version moved)."""
        parsed = parse_topic(topic)
        if parsed is None or parsed[0] != self.event or parsed[2] == "cmd":
            return False
        changed = self._receive(self.table(parsed[1]), parsed[2], payload)
        if changed:
            self.version += 1
            self.tables[parsed[1]].version = self.version
        return changed

    def _receive(self, table: Table, kind: str, payload: bytes) -> bool:
        name = table.name
        if kind == "presence":
            online = {ONLINE.encode(): True, OFFLINE.encode(): False}.get(bytes(payload))
            changed = online != table.online
            table.online = online
            return changed
        data = decode(payload)
        if data is None:
            return False
        table.last_wall = float(data.get("wall", table.last_wall))
        if kind == "state":
            same = data.get("game_id") == table.state.get("game_id")
            table.game = position(data, table.game if same else None)
            table.svg = drawing(table.game, data)
            table.state, table.moves, table.stale = data, list(data.get("moves", [])), False
            table.clocks = str(data.get("clocks", ""))
            if data.get("result") and data.get("game_id"):
                self.finished[name, str(data["game_id"])] = {**data, "table": name}
            return True
        if kind == "move":
            return self._move(table, data)
        if kind == "clock":
            if data.get("game_id") != table.state.get("game_id"):
                return False
            table.clocks = str(data.get("clocks", ""))
            return True
        if kind == "alert":
            table.alerts = [*table.alerts, data][-MAX_ALERTS:]
            return True
        if kind == "ack":
            self.acks.append((name, data))
        return False

    def _move(self, table: Table, data: dict[str, Any]) -> bool:
        same_game = data.get("game_id") == table.state.get("game_id")
        if table.stale or not same_game or data.get("prev") != len(table.moves):
            table.gaps += 1
            table.stale = True  # the state that follows every action puts it right
            return False
        if data.get("action") == "undo" and table.moves:
            table.moves.pop()
        elif data.get("action") == "play":
            table.moves.append(str(data.get("move", "")))
        # The card's board moves with its ply: the state that follows may be a while (a
        # loaded console showed "ply 2" over the drawing of ply 1). No last-move cells yet:
        # the state brings them.
        moved = {**table.state, "moves": table.moves, "last_cells": []}
        table.game = position(moved, table.game)
        table.svg = drawing(table.game, moved)
        return True

    def order(self) -> list[Table]:
        """Every table, the ones with something to look at first, then by number."""
        return sorted(self.tables.values(), key=lambda t: (not t.standing(), _natural(t.name)))

    def view(self) -> list[dict[str, Any]]:
        """Every table in :meth:`order`, for the page."""
        return [t.view() for t in self.order()]

    def changes(self, since: int) -> dict[str, Any]:
        """What the hall page needs after it had version ``since``: the tables changed
        since then (all of them for -1) and the order of them all."""
        order = self.order()
        return {"version": self.version, "order": [t.name for t in order],
                "tables": [t.view() for t in order if t.version > since], "link": self.link}

    def results(self) -> list[dict[str, Any]]:
        """Every game seen that has a result, by table, then the games in play."""
        rows = sorted(self.finished.values(), key=lambda s: (_natural(s["table"]),
                                                             s.get("wall", 0)))
        playing = [{**t.state, "table": t.name} for t in sorted(
            self.tables.values(), key=lambda t: _natural(t.name))
            if t.state and not t.state.get("result")]
        return rows + playing

    def games(self) -> dict[tuple[str, str], dict[str, Any]]:
        """Every game seen by (table, game id): finished ones and the ones in play."""
        out = dict(self.finished)
        for t in self.tables.values():
            if t.state.get("game_id"):
                out[t.name, str(t.state["game_id"])] = {**t.state, "table": t.name}
        return dict(sorted(out.items(), key=lambda kv: (_natural(kv[0][0]), kv[0][1])))


def position(state: dict[str, Any], known: Game[Any] | None = None) -> Game[Any] | None:
    """The game of a state, set up from its header and replayed; None if it cannot be
    (no header, or a game with hidden cards whose dealt set-up the board keeps). ``known``,
    the same game at an earlier ply of this state's moves, is moved on instead (a long
    game is not replayed from the start at every move); it is not changed."""
    if not state.get("header"):
        return None
    moves = [str(m) for m in state.get("moves", [])]
    played = [str(m) for m in known.history] if known is not None else None
    try:
        if known is not None and played == moves[:len(played or [])]:
            game = known.copy()
        else:
            game, played = set_up(StartEntry.from_json(state["header"])), []
        for move in moves[len(played or []):]:
            game.apply(game.parse_move(move))
    except Exception:
        return None
    return game


@functools.lru_cache(maxsize=16)
def _layout(game: str) -> Layout | None:
    try:
        return Layout.for_game(game)
    except LayoutError:
        return None


@functools.lru_cache(maxsize=64)
def _sent_layout(text: str) -> Layout | None:
    try:
        return Layout.loads(text, source="the board's layout")
    except (LayoutError, ValueError, TypeError):
        return None


def board_layout(game: Game[Any], state: dict[str, Any]) -> Layout | None:
    """The layout to draw ``game`` with: the board's own when its state carries one that
    fits the game (a board built with another geometry), else the game's default."""
    sent = state.get("layout")
    if isinstance(sent, dict) and isinstance(sent.get("text"), str) and \
            len(sent["text"]) <= MAX_LAYOUT_CHARS:
        layout = _sent_layout(sent["text"])
        if layout is not None:
            try:
                layout.check_cells(game.view(), game=game.name)
                return layout
            except LayoutError:
                pass  # not a layout of this game: the default below
    return _layout(game.name)


def drawing(game: Game[Any] | None, state: dict[str, Any]) -> str:
    """The web view's SVG of ``game`` (the board's layout, see :func:`board_layout`, no
    LEDs): drawn by the console, so that a board's message carries no markup into the
    arbiter's page."""
    layout = board_layout(game, state) if game is not None else None
    if game is None or layout is None:
        return ""
    return board_svg(game, layout, None, frozenset(map(str, state.get("last_cells", []))))


def record_of(state: dict[str, Any]) -> Record:
    """The game of a table's state as a record (header, actions, result), for the
    project's export; the movers are found by replaying the moves from the header."""
    header = StartEntry.from_json(state["header"]) if state.get("header") else StartEntry(
        str(state.get("game_id", "")), str(state.get("game", "")), {}, None, None,
        tuple(state.get("players", [])), float(state.get("wall", 0)))
    wall = float(state.get("wall", header.wall))
    moves = [str(m) for m in state.get("moves", [])]
    players = max(1, len(header.players))
    try:
        game = set_up(header)
        movers = []
        for move in moves:
            movers.append(game.current_player)
            game.apply(game.parse_move(move))
    except Exception:  # a set-up left out (hidden cards): the seats in turn
        movers = [i % players for i in range(len(moves))]
    entries: list[ActionEntry | ResultEntry] = [
        ActionEntry(m, p, i + 1, wall, 0.0) for i, (m, p) in enumerate(zip(moves, movers,
                                                                         strict=True))]
    if state.get("outcome"):
        entries.append(ResultEntry.of(Outcome.from_dict(state["outcome"]), players,
                                      wall=wall, now=0.0))
    return Record(header, tuple(entries))


def record_text(state: dict[str, Any], table: str, event: str = "") -> str:
    """One game's record in its game's standard notation (``tavola export``'s: PDN for
    draughts), with the event's name and a ``Table`` tag after the others."""
    text = export_record(record_of(state))
    if event:
        text = text.replace('[Event "?"]', f'[Event "{_tag(event)}"]', 1)
    tags, blank, moves = text.partition("\n\n")
    return f'{tags}\n[Table "{_tag(table)}"]{blank}{moves}'


def _tag(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"')


def record_suffix(state: dict[str, Any]) -> str:
    """The file name's suffix of :func:`record_text`."""
    return ".pdn" if state.get("game") == "draughts" else ".txt"


def _natural(name: str) -> tuple[Any, ...]:
    """Table 2 before table 10."""
    return tuple(int(p) if p.isdigit() else p for p in re.split(r"(\d+)", name))
