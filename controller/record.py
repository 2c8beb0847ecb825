"""The game record's format: one typed entry per journal line, and replaying them. Pure.

A game's record is a :class:`StartEntry` (line 1) and then, one per line, what happened:

- :class:`ActionEntry`: an accepted action (``move`` in the game's notation, ``player``,
  ``ply`` its 1-based index in the history, the clock state after it);
- :class:`IllegalEntry`: an illegal position as ``sensed`` (cell -> reading) and why;
  nothing is replayed from it;
- :class:`UndoEntry`: a takeback of ``move``, the last action;
- :class:`AmendEntry`: the last mover's last actions ``replaced`` by ``moves`` (a piece set
  one cell off and moved on before the next player acted);
- :class:`ClockEntry`: a checkpoint of the clock state, at least every
  :data:`CHECKPOINT_SECONDS` while it runs, so a crash costs at most that much clock time;
- :class:`TimeoutEntry`: ``player`` ran out of time and :meth:`Game.time_out` was called;
  ``played`` lists the actions the game played by itself in that call (Tessere's ``pass``
  policy), which are not journaled again as actions;
- :class:`ResultEntry`: how the game ended; ``outcome`` None means abandoned.
- :class:`WithdrawnEntry`: the referee withdrew the result before it (the move that ended
  the game was misread and is corrected, or a declared result is taken back); the game
  goes on, and the entries after it are replayed as usual. :attr:`Record.result` is the
  last result not withdrawn.
- :class:`RefereeEntry`: an action of the referee (web console): who, what, why; the
  entries it caused (an undo, a result, a clock checkpoint) follow it in the same write.
- :class:`HintEntry`: help the engine gave on the board (a hint asked for, the computer's
  turn shown, a blunder reviewed); nothing is replayed from it, but a resumed session
  shows the hint or the computer's turn again and counts the hints of the turn.

Each entry is a frozen dataclass; :meth:`to_json` gives the JSON object of its line (with a
``type`` key) and :func:`entry_from_json` reads one back. The JSON keys are those of the
journal's first version, so every record ever written still reads. Storage (files, fsync)
is :mod:`tavola.journal`'s business; the text export is :mod:`tavola.export`'s.

>>> line = ActionEntry(move="d2", player=0, ply=1, wall=0.0, mono=0.0).to_json()
>>> line["type"], entry_from_json(line) == ActionEntry("d2", 0, 1, 0.0, 0.0)
('action', True)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, ClassVar

from tavola.clock import ClockSpec
from tavola.games import Game, Outcome, new_game

JOURNAL_VERSION = 1
CHECKPOINT_SECONDS = 5.0  # the most clock time a crash may cost


class RecordError(ValueError):
    """A record that cannot be read back or replayed; the message names the line."""


def _clock(value: Any) -> dict[str, Any] | None:
    return None if value is None else dict(value)


@dataclass(frozen=True)
class StartEntry:
    """The header of a game's record (line 1): everything needed to set the game up."""

    TYPE: ClassVar[str] = "start"
    id: str
    game: str
    params: Mapping[str, Any]  # every option, the variant included
    start: Mapping[str, Any] | None  # a set-up position, or None for the usual one
    clock: Mapping[str, Any] | None  # the ClockSpec, or None
    players: tuple[str, ...]
    wall: float  # Unix time
    version: int = JOURNAL_VERSION

    @classmethod
    def of(cls, game: Game[Any], *, game_id: str, wall: float,
           clock: ClockSpec | None = None) -> StartEntry:
        """The header for the freshly set-up ``game``."""
        return cls(id=game_id, game=game.name, params=dict(game.options),
                   start=game.to_dict()["start"],
                   clock=clock.to_dict() if clock is not None else None,
                   players=tuple(game.player_names), wall=wall)

    def to_json(self) -> dict[str, Any]:
        """The JSON object of this line."""
        return {"type": self.TYPE, "version": self.version, "id": self.id, "game": self.game,
                "params": dict(self.params), "start": self.start, "clock": _clock(self.clock),
                "players": list(self.players), "wall": self.wall}

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> StartEntry:
        """The entry from its JSON object."""
        return cls(id=str(d["id"]), game=str(d["game"]), params=dict(d.get("params") or {}),
                   start=d.get("start"), clock=_clock(d.get("clock")),
                   players=tuple(d.get("players") or ()), wall=float(d["wall"]),
                   version=int(d.get("version", JOURNAL_VERSION)))


@dataclass(frozen=True)
class ActionEntry:
    """An accepted action; ``ply`` is its 1-based index in the game's history."""

    TYPE: ClassVar[str] = "action"
    move: str
    player: int
    ply: int
    wall: float
    mono: float
    clock: Mapping[str, Any] | None = None  # the clock state after the action

    def to_json(self) -> dict[str, Any]:
        """The JSON object of this line."""
        return {"type": self.TYPE, "move": self.move, "player": self.player, "ply": self.ply,
                "wall": self.wall, "mono": self.mono, "clock": _clock(self.clock)}

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> ActionEntry:
        """The entry from its JSON object."""
        return cls(str(d["move"]), int(d["player"]), int(d.get("ply", 0)),
                   float(d.get("wall", 0.0)), float(d.get("mono", 0.0)),
                   _clock(d.get("clock")))


@dataclass(frozen=True)
class IllegalEntry:
    """An illegal position: the cells as ``sensed`` and why; ``move`` if one was named."""

    TYPE: ClassVar[str] = "illegal"
    sensed: Mapping[str, str]
    reason: str
    player: int
    wall: float
    mono: float
    move: str | None = None

    def to_json(self) -> dict[str, Any]:
        """The JSON object of this line."""
        return {"type": self.TYPE, "sensed": dict(self.sensed), "reason": self.reason,
                "player": self.player, "move": self.move, "wall": self.wall,
                "mono": self.mono}

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> IllegalEntry:
        """The entry from its JSON object."""
        move = d.get("move")
        return cls(dict(d.get("sensed") or {}), str(d.get("reason", "")), int(d["player"]),
                   float(d.get("wall", 0.0)), float(d.get("mono", 0.0)),
                   None if move is None else str(move))


@dataclass(frozen=True)
class UndoEntry:
    """A takeback of ``move``, the last action; ``player`` is to move after it."""

    TYPE: ClassVar[str] = "undo"
    move: str
    player: int
    wall: float
    mono: float
    clock: Mapping[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        """The JSON object of this line."""
        return {"type": self.TYPE, "move": self.move, "player": self.player,
                "wall": self.wall, "mono": self.mono, "clock": _clock(self.clock)}

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> UndoEntry:
        """The entry from its JSON object."""
        return cls(str(d["move"]), int(d.get("player", 0)), float(d.get("wall", 0.0)),
                   float(d.get("mono", 0.0)), _clock(d.get("clock")))


@dataclass(frozen=True)
class RefereeEntry:
    """The referee's ``action`` (``undo to 3``, ``clock +30 White``...) by ``who``, with
    the ``reason`` given; nothing is replayed from it (the entries after it are).
    ``command``: the id of the club event's ``cmd`` that asked for it (docs/event.md), so
    that a board restarted from its journal still applies each command once; ``""`` (and
    absent from older records) for the board's own console."""

    TYPE: ClassVar[str] = "referee"
    action: str
    who: str
    reason: str
    wall: float
    mono: float
    command: str = ""

    def to_json(self) -> dict[str, Any]:
        """The JSON object of this line."""
        out: dict[str, Any] = {"type": self.TYPE, "action": self.action, "who": self.who,
                               "reason": self.reason, "wall": self.wall, "mono": self.mono}
        if self.command:
            out["command"] = self.command
        return out

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> RefereeEntry:
        """The entry from its JSON object."""
        return cls(str(d["action"]), str(d.get("who", "")), str(d.get("reason", "")),
                   float(d.get("wall", 0.0)), float(d.get("mono", 0.0)),
                   str(d.get("command", "")))


@dataclass(frozen=True)
class HintEntry:
    """Help the engine gave ``player`` with ``ply`` actions played: ``kind`` ``hint`` (the
    ``rank``-th best turn, asked for), ``computer`` (the computer opponent's turn, shown to
    be made on the board) or ``review`` (the better turn after a blunder); ``moves`` is
    that turn's actions, ``score`` its value for the player (hundredths of a man), and for
    a review ``played`` the value of the turn the player made instead (None in records
    written before it was kept), so a restart shows the blunder as it was."""

    TYPE: ClassVar[str] = "hint"
    kind: str
    player: int
    ply: int
    moves: tuple[str, ...]
    wall: float
    mono: float
    rank: int = 1
    score: int = 0
    played: int | None = None

    def to_json(self) -> dict[str, Any]:
        """The JSON object of this line."""
        line = {"type": self.TYPE, "kind": self.kind, "player": self.player, "ply": self.ply,
                "moves": list(self.moves), "rank": self.rank, "score": self.score,
                "wall": self.wall, "mono": self.mono}
        if self.played is not None:
            line["played"] = self.played
        return line

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> HintEntry:
        """The entry from its JSON object."""
        return cls(str(d["kind"]), int(d["player"]), int(d["ply"]),
                   tuple(str(m) for m in d.get("moves") or ()), float(d.get("wall", 0.0)),
                   float(d.get("mono", 0.0)), int(d.get("rank", 1)), int(d.get("score", 0)),
                   None if d.get("played") is None else int(d["played"]))


@dataclass(frozen=True)
class AmendEntry:
    """A correction on the board: the last actions ``replaced`` (all by ``player``, before
    the next player acted) are replaced by ``moves``; ``ply`` is the history's length
    afterwards. Neither a takeback nor an illegal move, but on the record for the arbiter."""

    TYPE: ClassVar[str] = "amend"
    replaced: tuple[str, ...]
    moves: tuple[str, ...]
    player: int
    ply: int
    wall: float
    mono: float
    clock: Mapping[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        """The JSON object of this line."""
        return {"type": self.TYPE, "replaced": list(self.replaced), "moves": list(self.moves),
                "player": self.player, "ply": self.ply, "wall": self.wall, "mono": self.mono,
                "clock": _clock(self.clock)}

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> AmendEntry:
        """The entry from its JSON object."""
        return cls(tuple(str(m) for m in d["replaced"]), tuple(str(m) for m in d["moves"]),
                   int(d["player"]), int(d.get("ply", 0)), float(d.get("wall", 0.0)),
                   float(d.get("mono", 0.0)), _clock(d.get("clock")))


@dataclass(frozen=True)
class ClockEntry:
    """A checkpoint of the clock state (:meth:`Clock.to_dict`)."""

    TYPE: ClassVar[str] = "clock"
    clock: Mapping[str, Any]
    wall: float
    mono: float

    def to_json(self) -> dict[str, Any]:
        """The JSON object of this line."""
        return {"type": self.TYPE, "clock": dict(self.clock), "wall": self.wall,
                "mono": self.mono}

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> ClockEntry:
        """The entry from its JSON object."""
        return cls(dict(d["clock"]), float(d.get("wall", 0.0)), float(d.get("mono", 0.0)))


@dataclass(frozen=True)
class TimeoutEntry:
    """``player``'s ``kind`` timer (move or game) ran out; :meth:`Game.time_out` gave
    ``outcome`` and played ``played`` by itself."""

    TYPE: ClassVar[str] = "timeout"
    player: int
    kind: str
    wall: float
    mono: float
    outcome: Outcome | None = None
    played: tuple[str, ...] = ()
    clock: Mapping[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        """The JSON object of this line."""
        return {"type": self.TYPE, "player": self.player, "kind": self.kind,
                "outcome": self.outcome.to_dict() if self.outcome else None,
                "played": list(self.played), "wall": self.wall, "mono": self.mono,
                "clock": _clock(self.clock)}

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> TimeoutEntry:
        """The entry from its JSON object."""
        outcome = d.get("outcome")
        return cls(int(d["player"]), str(d.get("kind", "")), float(d.get("wall", 0.0)),
                   float(d.get("mono", 0.0)),
                   Outcome.from_dict(outcome) if outcome else None,
                   tuple(str(m) for m in d.get("played") or ()), _clock(d.get("clock")))


@dataclass(frozen=True)
class ResultEntry:
    """How the game ended; ``outcome`` None means abandoned and ``reason`` says why."""

    TYPE: ClassVar[str] = "result"
    outcome: Outcome | None
    score: str  # "1-0", "1/2-1/2", "*"
    reason: str
    wall: float
    mono: float

    @classmethod
    def of(cls, outcome: Outcome | None, players: int, *, wall: float, now: float,
           reason: str = "") -> ResultEntry:
        """The result for ``outcome`` (None: abandoned, for ``reason``)."""
        return cls(outcome, score(outcome, players),
                   str(outcome.reason) if outcome else (reason or "abandoned"), wall, now)

    def to_json(self) -> dict[str, Any]:
        """The JSON object of this line."""
        return {"type": self.TYPE, "outcome": self.outcome.to_dict() if self.outcome else None,
                "score": self.score, "reason": self.reason, "wall": self.wall,
                "mono": self.mono}

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> ResultEntry:
        """The entry from its JSON object."""
        outcome = d.get("outcome")
        return cls(Outcome.from_dict(outcome) if outcome else None, str(d.get("score", "*")),
                   str(d.get("reason", "")), float(d.get("wall", 0.0)),
                   float(d.get("mono", 0.0)))


@dataclass(frozen=True)
class WithdrawnEntry:
    """The result journaled before (``score``, ``reason``, as its :class:`ResultEntry`
    said) is withdrawn by the referee: the game is not over after all. Written with the
    referee's :class:`RefereeEntry` and before the correction's own entries."""

    TYPE: ClassVar[str] = "withdrawn"
    score: str
    reason: str
    wall: float
    mono: float

    def to_json(self) -> dict[str, Any]:
        """The JSON object of this line."""
        return {"type": self.TYPE, "score": self.score, "reason": self.reason,
                "wall": self.wall, "mono": self.mono}

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> WithdrawnEntry:
        """The entry from its JSON object."""
        return cls(str(d.get("score", "*")), str(d.get("reason", "")),
                   float(d.get("wall", 0.0)), float(d.get("mono", 0.0)))


Entry = (StartEntry | ActionEntry | IllegalEntry | UndoEntry | AmendEntry | ClockEntry
         | TimeoutEntry | ResultEntry | RefereeEntry | HintEntry | WithdrawnEntry)
ENTRY_TYPES: dict[str, type[Entry]] = {
    cls.TYPE: cls for cls in (StartEntry, ActionEntry, IllegalEntry, UndoEntry, AmendEntry,
                              ClockEntry, TimeoutEntry, ResultEntry, RefereeEntry, HintEntry,
                              WithdrawnEntry)
}


def entry_from_json(d: Any) -> Entry:
    """One line's JSON object as its entry; ValueError says what is wrong."""
    if not isinstance(d, dict) or d.get("type") not in ENTRY_TYPES:
        raise ValueError(f"not a journal entry: {str(d)[:80]!r}")
    try:
        return ENTRY_TYPES[d["type"]].from_json(d)
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"a {d['type']!r} entry without a valid {exc}") from exc


def new_game_id(wall: float, game_name: str) -> str:
    """An id from the start time (UTC) and the game: ``20240501-143012-draughts``."""
    stamp = datetime.fromtimestamp(wall, tz=UTC).strftime("%Y%m%d-%H%M%S")
    return f"{stamp}-{game_name}"


def score(outcome: Outcome | None, players: int) -> str:
    """The result as PGN writes it, one figure per player: ``1-0``, ``1/2-1/2``, ``*``.

    >>> score(Outcome(None, "agreement"), 2), score(Outcome(0, "line", (0, 2)), 4)
    ('1/2-1/2', '1-0-1-0')
    """
    if outcome is None:
        return "*"
    if outcome.winner is None:
        return "-".join(["1/2"] * players)
    return "-".join("1" if p in outcome.winners else "0" for p in range(players))


def describe(outcome: Outcome, player_names: Sequence[str]) -> str:
    """How a result reads: 'White wins (no legal move)', 'Draw (threefold repetition)'."""
    if outcome.winner is None:
        return f"Draw ({outcome.reason})"
    names = " and ".join(player_names[w] for w in outcome.winners)
    verb = "win" if len(outcome.winners) > 1 else "wins"
    return f"{names} {verb} ({outcome.reason})"


def checkpoint_due(last_written: float | None, now: float) -> bool:
    """Whether a running clock needs a :class:`ClockEntry` (none yet, or the last is old)."""
    return last_written is None or now - last_written >= CHECKPOINT_SECONDS


# --------------------------------------------------------------------- a game read back
@dataclass(frozen=True)
class Record:
    """One game's record: the header, then every entry with its file line number."""

    header: StartEntry
    entries: tuple[Entry, ...]
    lines: tuple[int, ...] = ()  # the file line of each entry, for error messages
    path: Path | None = None  # where it was read from

    @property
    def id(self) -> str:
        """The game's id (``games/<id>.jsonl`` once finished)."""
        return self.header.id

    @property
    def result(self) -> ResultEntry | None:
        """The result entry, if the game has ended (a result withdrawn after it is not)."""
        found: ResultEntry | None = None
        for entry in self.entries:
            if isinstance(entry, ResultEntry):
                found = entry
            elif isinstance(entry, WithdrawnEntry):
                found = None
        return found

    @classmethod
    def of(cls, parsed: Sequence[Entry], path: Path | None = None,
           lines: Sequence[int] | None = None) -> Record:
        """A record from its entries in file order; RecordError if the shape is wrong."""
        where = list(lines) if lines is not None else list(range(1, len(parsed) + 1))
        name = f"{path}: " if path is not None else ""
        if not parsed:
            raise RecordError(f"{name}empty")
        header = parsed[0]
        if not isinstance(header, StartEntry):
            raise RecordError(f"{name}line {where[0]} is {header.TYPE!r}, not the 'start' "
                              f"header")
        for entry, line in zip(parsed[1:], where[1:], strict=True):
            if isinstance(entry, StartEntry):
                raise RecordError(f"{name}line {line} starts a second game")
        return cls(header, tuple(parsed[1:]), tuple(where[1:]), path)


def final_line(entries: Sequence[Entry]) -> list[tuple[int, str]]:
    """(player, move text) of every action still on the board after the takebacks."""
    line: list[tuple[int, str]] = []
    for entry in entries:
        if isinstance(entry, ActionEntry):
            line.append((entry.player, entry.move))
        elif isinstance(entry, TimeoutEntry):
            line.extend((entry.player, m) for m in entry.played)
        elif isinstance(entry, UndoEntry) and line:
            line.pop()
        elif isinstance(entry, AmendEntry):
            del line[len(line) - len(entry.replaced):]
            line.extend((entry.player, m) for m in entry.moves)
    return line


@dataclass(frozen=True)
class Replayed:
    """A game rebuilt from its record, and what the session needs to go on."""

    game: Game[Any]
    clock: Mapping[str, Any] | None  # the last clock state written, if any
    result: ResultEntry | None  # the result entry, if the game has ended


def set_up(header: StartEntry) -> Game[Any]:
    """The game as it stood at the start of the record; RecordError if it cannot be."""
    try:
        game = new_game(header.game, **dict(header.params))
        if header.start is not None:
            game.set_position(header.start)
    except Exception as exc:  # any failure here is a bad record, never a crash
        raise RecordError(f"line 1: cannot set up {header.game!r}: {exc}") from exc
    return game


def replay(record: Record) -> Replayed:
    """Rebuild the game: set it up, then apply every action, undo and timeout in order.

    A timeout must make the game play exactly the actions the entry lists. Raises
    :class:`RecordError` naming the line of the first entry that does not apply.
    """
    game = set_up(record.header)
    lines = record.lines or tuple(range(2, len(record.entries) + 2))
    clock: Mapping[str, Any] | None = None
    result: ResultEntry | None = None
    for entry, line in zip(record.entries, lines, strict=True):
        try:
            apply_entry(game, entry)
        except Exception as exc:
            move = getattr(entry, "move", None)
            what = f"{entry.TYPE} {move!r}" if move is not None else entry.TYPE
            raise RecordError(f"line {line}: {what} does not apply: {exc}") from exc
        if isinstance(entry, ResultEntry):
            result = entry
        elif isinstance(entry, WithdrawnEntry):
            result = None
        entry_clock = getattr(entry, "clock", None)
        if entry_clock is not None:
            clock = entry_clock
    return Replayed(game, clock, result)


def apply_entry(game: Game[Any], entry: Entry) -> None:
    """Apply one entry to ``game`` as replay does; ValueError if it does not apply."""
    match entry:
        case ActionEntry(move=move, player=player):
            if player != game.current_player:
                raise ValueError(f"recorded for player {player}, but player "
                                 f"{game.current_player} is to move")
            game.apply(game.parse_move(move))
        case UndoEntry(move=move):
            undone = game.undo()
            if str(undone) != move:
                raise ValueError(f"the last action is {str(undone)!r}, not {move!r}")
        case AmendEntry(replaced=replaced, moves=moves):
            for text in reversed(replaced):
                undone = game.undo()
                if str(undone) != text:
                    raise ValueError(f"the action replaced is {str(undone)!r}, not {text!r}")
            for text in moves:
                game.apply(game.parse_move(text))
        case TimeoutEntry(player=player, played=played):
            before = len(game.history)
            game.time_out(player)
            done = tuple(str(m) for m in game.history[before:])
            if done != played:
                raise ValueError(f"the game played {list(done)} on this timeout, the record "
                                 f"says {list(played)}")
        case ResultEntry(outcome=outcome) if outcome is not None:
            if game.outcome() != outcome:
                game.adjudicate(outcome)  # resignation, agreement: outside the rules
        case WithdrawnEntry():
            game.reopen()  # a declared result; the rules' own is undone by the next entries
        case StartEntry():
            raise ValueError("a second 'start' inside a game")
        case _:
            pass  # illegal positions, clocks, hints and abandonment change no position

