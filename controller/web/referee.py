"""The referee's actions from the web console, each one checked by the session like a
console command and journaled with who and when (a :class:`RefereeEntry` written with the
entries it caused). An impossible action is refused with the session's reason and nothing
is written.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Protocol

from tavola.games import Outcome, Reason
from tavola.record import AmendEntry, HintEntry, IllegalEntry, RefereeEntry, UndoEntry
from tavola.session import Effects, Session

ACTIONS = ("undo", "play", "clock", "pause", "resume", "result", "new", "hints")
RESULT_KINDS = ("win", "forfeit", "draw")


class Host(Protocol):
    """What the console needs of the daemon: the session, the time, and a way to apply
    effects exactly as the daemon applies its own (journal first)."""

    session: Session
    clock: Callable[[], float]
    wall: Callable[[], float]

    def apply(self, fx: Effects) -> None:
        """Write the journal entries, then show the effects (the daemon's ``_apply``)."""

    def new_game(self, note: RefereeEntry) -> None:
        """Journal ``note`` and start the configured game afresh."""


@dataclass(frozen=True)
class Request:
    """One action of the console's form: ``action`` and its fields, by ``who``."""

    action: str
    fields: Mapping[str, str]
    who: str


def perform(host: Host, request: Request) -> str:
    """Carry out ``request``; returns what the console shows (done, or why not)."""
    fields, now, wall = request.fields, host.clock(), host.wall()
    session = host.session
    reason = fields.get("reason", "").strip()[:200]
    action = request.action
    try:
        if action == "new":
            host.new_game(RefereeEntry("new game", request.who, reason, wall, now))
            return "New game started."
        if action == "undo":
            return _undo_to(host, int(fields.get("ply", "")), request.who, reason)
        if action == "hints":  # under the arbiter policy, hints only when allowed here
            allowed = fields.get("allow", "") == "on"
            fx = session.allow_hints(allowed, now)
            what = "allow hints" if allowed else "forbid hints"
            host.apply(Effects(journal=(RefereeEntry(what, request.who, reason, wall, now),))
                       + fx)
            return " ".join(fx.log)
        if action == "play":
            move = fields.get("move", "").strip()
            fx = session.command(move, now, wall) if move else Effects(log=("Name a move.",))
            what = f"play {move}"
        elif action == "clock":
            player = int(fields.get("player", ""))
            seconds = float(fields.get("seconds", ""))
            fx = session.adjust_clock(player, seconds, now, wall)
            name = session.game.player_names[player] if 0 <= player < len(
                session.game.player_names) else str(player)
            what = f"clock {seconds:+g} s {name}"
        elif action in ("pause", "resume"):
            fx = session.run_clock(action == "resume", now, wall)
            what = f"{action} clocks"
        elif action == "result":
            outcome = _outcome(fields.get("kind", ""), fields.get("winner", ""),
                               session.game.num_players)
            fx = session.declare(outcome, now, wall)
            what = f"result {fields.get('kind')} {fields.get('winner', '')}".strip()
        else:
            return f"Unknown action {action!r}; actions are {', '.join(ACTIONS)}."
    except ValueError as exc:
        return f"Refused: {exc}"
    return _journaled(host, fx, RefereeEntry(what, request.who, reason, wall, now))


def _journaled(host: Host, fx: Effects, note: RefereeEntry) -> str:
    """Apply ``fx`` with ``note`` before its entries; an action that wrote nothing was
    refused, and its log says why."""
    if not fx.journal:
        host.apply(fx)
        return "Refused: " + (" ".join(fx.log) or "nothing to do.")
    host.apply(Effects(journal=(note,)) + fx)
    return " ".join(fx.log) or f"Done: {note.action}."


def _undo_to(host: Host, ply: int, who: str, reason: str) -> str:
    """Take back actions until ``ply`` actions remain, one journaled undo at a time (each
    checked like the console's ``undo``); stops at the first refusal."""
    played = len(host.session.game.history)
    if not 0 <= ply < played:
        raise ValueError(f"ply must be 0..{played - 1} (now at ply {played})")
    said = []
    while len(host.session.game.history) > ply:
        now, wall = host.clock(), host.wall()
        fx = host.session.command("undo", now, wall)
        said.append(_journaled(host, fx, RefereeEntry(f"undo to ply {ply}", who, reason,
                                                      wall, now)))
        if said[-1].startswith("Refused"):
            break
    return " ".join(said)


def _outcome(kind: str, winner: str, players: int) -> Outcome:
    if kind == "draw":
        return Outcome(None, Reason.ADJUDICATION)
    if kind not in RESULT_KINDS:
        raise ValueError(f"kind must be one of {', '.join(RESULT_KINDS)}, got {kind!r}")
    index = int(winner)
    if not 0 <= index < players:
        raise ValueError(f"winner must be a player 0..{players - 1}, got {winner!r}")
    return Outcome(index, Reason.FORFEIT if kind == "forfeit" else Reason.ADJUDICATION,
                   (index,))


@dataclass(frozen=True)
class Incident:
    """One line of the referee's log: an illegal position, a takeback, a correction."""

    wall: float
    player: int
    what: str


def incidents(entries: list[object]) -> list[Incident]:
    """The illegal positions, takebacks, corrections and the engine's help (hints, the
    computer's turns, blunders) of a record, in order."""
    out = []
    for entry in entries:
        if isinstance(entry, IllegalEntry):
            out.append(Incident(entry.wall, entry.player, f"illegal: {entry.reason}"))
        elif isinstance(entry, UndoEntry):
            out.append(Incident(entry.wall, entry.player, f"takeback of {entry.move}"))
        elif isinstance(entry, AmendEntry):
            out.append(Incident(entry.wall, entry.player, f"corrected {' '.join(entry.replaced)}"
                                                          f" to {' '.join(entry.moves)}"))
        elif isinstance(entry, HintEntry):
            said = {"hint": f"hint {entry.rank}", "computer": "computer's move shown",
                    "review": "blunder; better was"}.get(entry.kind, entry.kind)
            out.append(Incident(entry.wall, entry.player,
                                f"{said}: {' '.join(entry.moves)} (ply {entry.ply})"))
    return out
