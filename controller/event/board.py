"""What a board tells the event, as messages. Pure: the session and effects in, dicts out.

:class:`TableReport` remembers what it last reported and turns each change of the session
into the messages that say it: a ``move`` per action taken or taken back (with the ply, so
that a consumer sees a gap), an ``alert`` per new problem, the ``clock`` at most once a
second, and the whole retained ``state`` whenever anything but the clocks changed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tavola.inference import Mismatch
from tavola.record import IllegalEntry, RefereeEntry, describe, score
from tavola.session import Effects, Session
from tavola.web.view import public_status

CLOCK_SECONDS = 1.0  # the clocks' messages at most this often


@dataclass
class Outgoing:
    """Messages to publish, by kind (``state`` and ``clock``: only the newest counts)."""

    moves: list[dict[str, Any]] = field(default_factory=list)
    alerts: list[dict[str, Any]] = field(default_factory=list)
    state: dict[str, Any] | None = None
    clock: dict[str, Any] | None = None


def active_alerts(session: Session) -> list[str]:
    """The problems standing now, for the retained state: what a late console must see."""
    out = []
    if session.disconnected is not None:
        out.append(f"board disconnected: {session.disconnected}")
    if session.unrecorded is not None:
        out.append(f"cannot record the game: {session.unrecorded}")
    if isinstance(session.result, Mismatch) and session.game.outcome() is None:
        out.append("board does not match the game" + (
            f": {session.refusal()}" if session.refusal() else ""))
    return out


def table_state(session: Session, header: dict[str, Any], now: float, wall: float,
                layout: dict[str, str] | None = None) -> dict[str, Any]:
    """The retained state: the game's header and moves (the console draws the position
    from them), the clocks, the result, the board's health and its standing alerts, and
    ``layout`` (``name``, ``text``) when the board's layout is not the game's default, so
    that the console draws this board as it is."""
    game = session.game
    outcome = game.outcome()
    names = game.player_names
    history = [str(m) for m in game.history]
    return {
        "game_id": header.get("id", ""), "header": header, "game": game.name,
        "players": list(names), "moves": history, "ply": len(history),
        "last_cells": sorted(session.last_move),
        "status": public_status(session),
        "turn": "" if outcome else names[game.current_player],
        "result": describe(outcome, names) if outcome else "",
        "score": score(outcome, game.num_players) if outcome else "",
        "outcome": outcome.to_dict() if outcome else None,
        "clocks": session.clock_text(now), "alerts": active_alerts(session),
        "health": "board disconnected" if session.disconnected else "board connected",
        "layout": layout, "wall": wall,
    }


class TableReport:
    """The board's side of the conversation: what was last said, and what is new."""

    def __init__(self) -> None:
        self.game_id = ""
        self.moves: list[str] = []
        self.state_key: tuple[Any, ...] | None = None
        self.clocks = ""
        self.clock_sent = float("-inf")
        self.alerts: list[str] = []

    def update(self, session: Session, header: dict[str, Any], fx: Effects, now: float,
               wall: float, layout: dict[str, str] | None = None) -> Outgoing:
        """The messages that say what changed since the last call (``fx``: the effects
        just applied, whose journal entries name illegal positions and referee actions;
        ``layout``: the board's own, for the state, see :func:`table_state`)."""
        out = Outgoing()
        game_id = str(header.get("id", ""))
        history = [str(m) for m in session.game.history]
        if game_id != self.game_id:  # a game first seen (resumed at ply 40, say): its
            self.game_id, self.moves = game_id, history  # state has the moves, one message
        common = 0
        while common < min(len(history), len(self.moves)) and \
                history[common] == self.moves[common]:
            common += 1
        for ply in range(len(self.moves), common, -1):  # taken back, newest first
            out.moves.append({"game_id": game_id, "ply": ply - 1, "prev": ply,
                              "action": "undo", "move": self.moves[ply - 1], "wall": wall})
        for ply in range(common, len(history)):
            out.moves.append({"game_id": game_id, "ply": ply + 1, "prev": ply,
                              "action": "play", "move": history[ply], "wall": wall})
        self.moves = history
        for entry in fx.journal:
            if isinstance(entry, IllegalEntry):
                out.alerts.append({"game_id": game_id, "kind": "illegal",
                                   "text": f"illegal position: {entry.reason}",
                                   "player": entry.player, "wall": wall})
            elif isinstance(entry, RefereeEntry):
                out.alerts.append({"game_id": game_id, "kind": "referee",
                                   "text": f"{entry.who}: {entry.action}", "wall": wall})
        alerts = active_alerts(session)
        for text in alerts:
            if text not in self.alerts and not text.startswith("board does not match"):
                out.alerts.append({"game_id": game_id, "kind": "health", "text": text,
                                   "wall": wall})  # the mismatch's own alert is above
        self.alerts = alerts
        outcome = session.game.outcome()
        key = (game_id, tuple(history), outcome, tuple(alerts), session.game.current_player,
               type(session.result).__name__)
        if key != self.state_key or out.moves or out.alerts:
            self.state_key = key
            out.state = table_state(session, header, now, wall, layout)
            self.clocks = out.state["clocks"]
            self.clock_sent = now
        clocks = session.clock_text(now)
        if clocks != self.clocks and now - self.clock_sent >= CLOCK_SECONDS:
            self.clocks, self.clock_sent = clocks, now
            out.clock = {"game_id": game_id, "clocks": clocks, "wall": wall}
        return out
