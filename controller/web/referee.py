"""The referee's actions from the web console, each one checked by the session like a
console command and journaled with who and when (a :class:`RefereeEntry` written with the
entries it caused). An impossible action is refused with the session's reason and nothing
is written.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Protocol

from tavola.games import Outcome, Reason
from tavola.record import (
    ActionEntry,
    AmendEntry,
    HintEntry,
    IllegalEntry,
    Record,
    RefereeEntry,
    ResultEntry,
    TimeoutEntry,
    UndoEntry,
)
from tavola.session import Effects, Session

ACTIONS = ("undo", "correct", "play", "clock", "pause", "resume", "result", "withdraw", "new",
           "hints")
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
    command: str = ""  # a club event's command id, journaled with the action (docs/event.md)


def perform(host: Host, request: Request) -> str:
    """Carry out ``request``; returns what the console shows (done, or why not)."""
    fields, now, wall = request.fields, host.clock(), host.wall()
    session = host.session
    reason = fields.get("reason", "").strip()[:200]
    action = request.action
    try:
        if action == "new":
            host.new_game(RefereeEntry("new game", request.who, reason, wall, now,
                                      request.command))
            return "New game started."
        if action == "hints":  # under the arbiter policy, hints only when allowed here
            allow = fields.get("allow", "")
            if allow not in ("on", "off"):
                return f"Refused: allow must be on or off, got {allow!r}."
            allowed = allow == "on"
            fx = session.allow_hints(allowed, now)
            what = "allow hints" if allowed else "forbid hints"
            host.apply(Effects(journal=(RefereeEntry(what, request.who, reason, wall, now),))
                       + fx)
            return " ".join(fx.log)
        if action in ("undo", "correct"):
            ply = _whole(fields, "ply")
            moves = fields.get("moves", "").split() if action == "correct" else []
            if action == "correct" and not moves:
                return "Refused: name the intended move(s) played after that ply."
            fx = session.correct(ply, moves, now, wall)
            what = f"correct to ply {ply}: {' '.join(moves)}" if moves else f"undo to ply {ply}"
        elif action == "play":
            move = fields.get("move", "").strip()
            fx = session.command(move, now, wall) if move else Effects(log=("Name a move.",))
            what = f"play {move}"
        elif action == "clock":
            player = _whole(fields, "player")
            seconds = _seconds(fields.get("seconds", ""))
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
            said = ("draw" if outcome.winner is None else
                    f"{fields.get('kind')} {session.game.player_names[outcome.winner]}")
            what = f"result {said}"
        elif action == "withdraw":  # the referee's declared result, taken back
            fx = session.withdraw_result(now, wall)
            what = "withdraw result"
        else:
            return f"Unknown action {action!r}; actions are {', '.join(ACTIONS)}."
    except ValueError as exc:
        return f"Refused: {exc}"
    return _journaled(host, fx, RefereeEntry(what, request.who, reason, wall, now,
                                              request.command))


def _journaled(host: Host, fx: Effects, note: RefereeEntry) -> str:
    """Apply ``fx`` with ``note`` before its entries; an action that wrote nothing was
    refused, and its log says why."""
    if not fx.journal:
        host.apply(fx)
        return "Refused: " + (" ".join(fx.log) or "nothing to do.")
    host.apply(Effects(journal=(note,)) + fx)
    return " ".join(fx.log) or f"Done: {note.action}."


_CORRECTION = re.compile(r"(?:undo|correct) to ply (\d+)(?:: (.*))?")


def clocks_paused_by_referee(record: Record) -> bool:
    """Whether the referee's last word on the clocks was "pause clocks": a game resumed
    after a restart keeps them paused (a player is ill) until the referee resumes them."""
    said = [e.action for e in record.entries
            if isinstance(e, RefereeEntry) and e.action in ("pause clocks", "resume clocks")]
    return bool(said) and said[-1] == "pause clocks"


def pending_correction(record: Record) -> int | None:
    """The ply of a referee's correction the board may not show yet: when the record's
    last change of the game is a correction (nothing played or taken back after it), the
    resumed session must wait for the board to show it again, as before the restart. (If
    the board was set right before the restart, its first reading ends the wait.)"""
    pending: int | None = None
    own = 0  # entries still to come that the correction itself wrote
    length = 0  # the game's history length as the record goes
    for entry in record.entries:
        if isinstance(entry, RefereeEntry):
            match = _CORRECTION.fullmatch(entry.action)
            if match:
                ply, moves = int(match[1]), (match[2] or "").split()
                pending, own = ply + len(moves), (length - ply) + len(moves)
            continue
        if isinstance(entry, (ActionEntry, UndoEntry, AmendEntry, TimeoutEntry)):
            if isinstance(entry, ActionEntry):
                length += 1
            elif isinstance(entry, UndoEntry):
                length -= 1
            elif isinstance(entry, AmendEntry):
                length += len(entry.moves) - len(entry.replaced)
            else:
                length += len(entry.played)
            if own > 0:
                own -= 1
            else:
                pending = None  # play went on from the corrected position
        elif isinstance(entry, ResultEntry):
            pending = None
    return pending


def _whole(fields: Mapping[str, str], key: str) -> int:
    text = fields.get(key, "").strip()
    try:
        return int(text)
    except ValueError:
        raise ValueError(f"{key} must be a whole number, got {text!r}") from None


# An hour a step is far more than any correction (a phone call, a clock knocked over):
# a larger figure is a slip of the keyboard, and nan or inf would break the clock.
MAX_CLOCK_STEP = 3600.0


def _seconds(text: str) -> float:
    try:
        seconds = float(text.strip())
    except ValueError:
        seconds = math.nan
    if not math.isfinite(seconds) or abs(seconds) > MAX_CLOCK_STEP:
        raise ValueError(f"seconds must be a number of seconds from {-MAX_CLOCK_STEP:g} to "
                         f"{MAX_CLOCK_STEP:g} (negative takes time away), e.g. 60; got "
                         f"{text!r}")
    return seconds


def _outcome(kind: str, winner: str, players: int) -> Outcome:
    if kind == "draw":
        return Outcome(None, Reason.ADJUDICATION)
    if kind not in RESULT_KINDS:
        raise ValueError(f"kind must be one of {', '.join(RESULT_KINDS)}, got {kind!r}")
    index = _whole({"winner": winner}, "winner")
    if not 0 <= index < players:
        raise ValueError(f"winner must be a player 0..{players - 1}, got {winner!r}")
    return Outcome(index, Reason.FORFEIT if kind == "forfeit" else Reason.ADJUDICATION,
                   (index,))


REFEREE = -1  # an incident's player when the referee acted


@dataclass(frozen=True)
class Incident:
    """One line of the referee's log: an illegal position, a takeback, a correction, a
    referee's action (``player`` :data:`REFEREE`)."""

    wall: float
    player: int
    what: str


def incidents(entries: list[object]) -> list[Incident]:
    """The illegal positions, takebacks, corrections, referee's actions and the engine's
    help (hints, the computer's turns, blunders) of a record, in order."""
    out = []
    for entry in entries:
        if isinstance(entry, IllegalEntry):
            out.append(Incident(entry.wall, entry.player, f"illegal: {entry.reason}"))
        elif isinstance(entry, UndoEntry):
            out.append(Incident(entry.wall, entry.player, f"takeback of {entry.move}"))
        elif isinstance(entry, RefereeEntry) and entry.action != "new game":
            said = f"{entry.action} ({entry.reason})" if entry.reason else entry.action
            out.append(Incident(entry.wall, REFEREE, f"{entry.who}: {said}"))
        elif isinstance(entry, AmendEntry):
            out.append(Incident(entry.wall, entry.player, f"corrected {' '.join(entry.replaced)}"
                                                          f" to {' '.join(entry.moves)}"))
        elif isinstance(entry, HintEntry):
            said = {"hint": f"hint {entry.rank}", "computer": "computer's move shown",
                    "review": "blunder; better was"}.get(entry.kind, entry.kind)
            out.append(Incident(entry.wall, entry.player,
                                f"{said}: {' '.join(entry.moves)} (ply {entry.ply})"))
    return out
