"""The journal: every game as an append-only file of JSON lines, replayed on start.

The game in progress is ``current.jsonl`` in the journal directory; finished games are
``games/<id>.jsonl``. Each line is one JSON object with a ``type``:

- ``start`` (always line 1): ``id``, ``game``, ``params`` (every option, variant included),
  ``start`` (a set-up position or null), ``clock`` (the :class:`ClockSpec` or null),
  ``players`` (their names), ``wall`` (Unix time);
- ``action``: ``move`` (its notation), ``player``, ``ply``, ``wall``, ``mono`` (monotonic
  time), ``clock`` (the clock state after the action, :meth:`Clock.to_dict`);
- ``illegal``: what was ``sensed``, the ``reason``, the ``player``, the ``move`` if one was
  recognised; nothing is replayed from it;
- ``undo``: a takeback of ``move`` (the last action);
- ``clock``: a checkpoint of the clock state, at least every :data:`CHECKPOINT_SECONDS`
  while it runs, so a crash costs at most that much clock time;
- ``timeout``: ``player`` ran out of time (``kind`` move or game) and the session called
  :meth:`Game.time_out` (so replay calls it too); ``played`` lists the actions the game
  played by itself in that call (tessere's ``pass`` policy), which the session must not
  journal again as ``action`` entries;
- ``result``: ``outcome`` (or null when abandoned), ``score`` (``1-0``...), ``reason``.

:meth:`Journal.append` writes one line, flushes and fsyncs before it returns: the session
confirms on the LEDs only after. Nothing here reads a clock; times are passed in.

After a crash (see docs/config.md, "The journal"): :meth:`Journal.resume` skips a torn last
line with a warning (that write never finished, so it was never confirmed) and cuts it off
the file; any other unreadable line raises :class:`JournalError` naming the line. The
daemon then keeps the file with :meth:`Journal.set_aside` and starts a fresh game; it never
deletes a journal.
"""

from __future__ import annotations

import json
import logging
import os
import re
import textwrap
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from tavola.clock import ClockSpec
from tavola.games import Game, Outcome, game_class, new_game

log = logging.getLogger(__name__)

JOURNAL_VERSION = 1
ENTRY_TYPES = ("start", "action", "illegal", "undo", "amend", "clock", "timeout", "result")
CHECKPOINT_SECONDS = 5.0  # the most clock time a crash may cost
CURRENT_FILE = "current.jsonl"
GAMES_DIR = "games"
_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")


class JournalError(ValueError):
    """A journal that cannot be read back; the message names the file and line."""


# --------------------------------------------------------------------- entries
def new_game_id(wall: float, game_name: str) -> str:
    """An id from the start time (UTC) and the game: ``20240501-143012-draughts``."""
    stamp = datetime.fromtimestamp(wall, tz=UTC).strftime("%Y%m%d-%H%M%S")
    return f"{stamp}-{game_name}"


def start_entry(
    game: Game[Any], *, game_id: str, wall: float, clock: ClockSpec | None = None
) -> dict[str, Any]:
    """The header of a new game's record (line 1), from the freshly set-up ``game``."""
    record = game.to_dict()
    return {
        "type": "start",
        "version": JOURNAL_VERSION,
        "id": game_id,
        "game": game.name,
        "params": dict(game.options),
        "start": record["start"],
        "clock": clock.to_dict() if clock is not None else None,
        "players": list(game.player_names),
        "wall": wall,
    }


def action_entry(
    move: object,
    *,
    player: int,
    ply: int,
    wall: float,
    now: float,
    clock: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """An accepted action: ``ply`` is its 1-based index in the game's history."""
    return {
        "type": "action",
        "move": str(move),
        "player": player,
        "ply": ply,
        "wall": wall,
        "mono": now,
        "clock": _plain(clock),
    }


def illegal_entry(
    *,
    sensed: Mapping[str, str],
    reason: str,
    player: int,
    wall: float,
    now: float,
    move: object | None = None,
) -> dict[str, Any]:
    """An illegal attempt: the cells as ``sensed`` (cell -> reading) and why it failed."""
    return {
        "type": "illegal",
        "sensed": dict(sensed),
        "reason": reason,
        "player": player,
        "move": None if move is None else str(move),
        "wall": wall,
        "mono": now,
    }


def undo_entry(
    move: object, *, player: int, wall: float, now: float, clock: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """A takeback of ``move``, the last action, made by ``player``."""
    return {
        "type": "undo",
        "move": str(move),
        "player": player,
        "wall": wall,
        "mono": now,
        "clock": _plain(clock),
    }


def amend_entry(
    replaced: Sequence[object], moves: Sequence[object], *, player: int, ply: int, wall: float,
    now: float, clock: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """A correction: the last actions ``replaced`` (all by ``player``, the next player had
    not acted) are replaced by ``moves``; ``ply`` is the history's length afterwards. Not a
    takeback and not an illegal move, but on the record for the arbiter."""
    return {
        "type": "amend",
        "replaced": [str(m) for m in replaced],
        "moves": [str(m) for m in moves],
        "player": player,
        "ply": ply,
        "wall": wall,
        "mono": now,
        "clock": _plain(clock),
    }


def clock_entry(clock: Mapping[str, Any], *, wall: float, now: float) -> dict[str, Any]:
    """A clock checkpoint (:meth:`Clock.to_dict`)."""
    return {"type": "clock", "clock": _plain(clock), "wall": wall, "mono": now}


def timeout_entry(
    player: int,
    kind: str,
    *,
    wall: float,
    now: float,
    outcome: Outcome | None = None,
    played: Sequence[object] = (),
    clock: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """``player``'s ``kind`` timer ran out and :meth:`Game.time_out` gave ``outcome``.

    ``played``: the actions that call added to the history (``game.history[before:]``).
    """
    return {
        "type": "timeout",
        "player": player,
        "kind": kind,
        "outcome": outcome.to_dict() if outcome else None,
        "played": [str(m) for m in played],
        "wall": wall,
        "mono": now,
        "clock": _plain(clock),
    }


def result_entry(
    outcome: Outcome | None, players: int, *, wall: float, now: float, reason: str = ""
) -> dict[str, Any]:
    """How the game ended; ``outcome`` None means abandoned (``reason`` says why)."""
    return {
        "type": "result",
        "outcome": outcome.to_dict() if outcome else None,
        "score": score(outcome, players),
        "reason": outcome.reason if outcome else (reason or "abandoned"),
        "wall": wall,
        "mono": now,
    }


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


def checkpoint_due(last_written: float | None, now: float) -> bool:
    """Whether a running clock needs a ``clock`` entry (none yet, or the last is too old)."""
    return last_written is None or now - last_written >= CHECKPOINT_SECONDS


def _plain(clock: Mapping[str, Any] | None) -> dict[str, Any] | None:
    return None if clock is None else dict(clock)


# --------------------------------------------------------------------- records
@dataclass(frozen=True)
class Record:
    """One game's journal read back: the header, then every entry with its line number."""

    path: Path
    header: Mapping[str, Any]
    entries: tuple[Mapping[str, Any], ...]
    lines: tuple[int, ...]  # the file line of each entry, for error messages

    @property
    def id(self) -> str:
        """The game's id (``games/<id>.jsonl`` once finished)."""
        return str(self.header["id"])

    @property
    def result(self) -> Mapping[str, Any] | None:
        """The ``result`` entry, if the game has ended."""
        found = [entry for entry in self.entries if entry["type"] == "result"]
        return found[-1] if found else None


@dataclass(frozen=True)
class RecordSummary:
    """One line of ``tavola games``."""

    id: str
    game: str
    variant: str
    date: str  # start time, UTC, "2024-05-01 14:30"
    score: str  # "1-0", "1/2-1/2", "*"
    reason: str
    actions: int  # actions on the final line of play (takebacks removed)


@dataclass(frozen=True)
class Replayed:
    """A game rebuilt from its journal, and what the session needs to go on."""

    game: Game[Any]
    clock: Mapping[str, Any] | None  # the last clock state written, if any
    result: Mapping[str, Any] | None  # the result entry, if the game has ended


def replay(
    header: Mapping[str, Any],
    entries: Sequence[Mapping[str, Any]],
    lines: Sequence[int] | None = None,
) -> Replayed:
    """Rebuild the game: ``new_game``, ``set_position``, then every action, undo, timeout.

    A ``timeout`` must make the game play exactly the actions the entry lists.

    Raises :class:`JournalError` naming the line of the first entry that does not apply.
    """
    where = list(lines) if lines is not None else list(range(2, len(entries) + 2))
    try:
        game = new_game(str(header["game"]), **dict(header.get("params") or {}))
        if header.get("start") is not None:
            game.set_position(header["start"])
    except Exception as exc:  # any failure here is a bad record, never a crash
        raise JournalError(f"line 1: cannot set up {header.get('game')!r}: {exc}") from exc
    clock: Mapping[str, Any] | None = None
    result: Mapping[str, Any] | None = None
    for entry, line in zip(entries, where, strict=True):
        kind = entry.get("type")
        try:
            if kind == "action":
                if entry["player"] != game.current_player:
                    raise ValueError(
                        f"recorded for player {entry['player']}, "
                        f"but player {game.current_player} is to move"
                    )
                game.apply(game.parse_move(str(entry["move"])))
            elif kind == "undo":
                undone = game.undo()
                if str(undone) != entry["move"]:
                    raise ValueError(f"the last action is {str(undone)!r}, not {entry['move']!r}")
            elif kind == "amend":
                for text in reversed(entry["replaced"]):
                    undone = game.undo()
                    if str(undone) != text:
                        raise ValueError(f"the action replaced is {str(undone)!r}, not {text!r}")
                for text in entry["moves"]:
                    game.apply(game.parse_move(str(text)))
            elif kind == "timeout":
                before = len(game.history)
                game.time_out(int(entry["player"]))
                played = [str(m) for m in game.history[before:]]
                if played != list(entry.get("played") or ()):
                    raise ValueError(
                        f"the game played {played} on this timeout, the record says "
                        f"{entry.get('played')}"
                    )
            elif kind == "result":
                result = entry
                if entry.get("outcome") is not None:
                    recorded = Outcome.from_dict(entry["outcome"])
                    if game.outcome() != recorded:
                        game.adjudicate(recorded)  # resignation, agreement: outside the rules
        except Exception as exc:
            what = f"{kind} {entry.get('move')!r}" if "move" in entry else str(kind)
            raise JournalError(f"line {line}: {what} does not apply: {exc}") from exc
        if entry.get("clock") is not None:
            clock = entry["clock"]
    return Replayed(game, clock, result)


def export_text(record: Record, width: int = 79) -> str:
    """The game in its notation, PGN-like: tag lines, then numbered whole turns.

    Takebacks are removed. A turn's actions are joined by the game's
    ``turn_notation(texts)`` if it has one, else by a space.
    """
    header = record.header
    params = dict(header.get("params") or {})
    result = record.result
    date = datetime.fromtimestamp(float(header["wall"]), tz=UTC)
    tags = [("Game", header["game"])]
    if "variant" in params:
        tags.append(("Variant", params.pop("variant")))
    if params:
        tags.append(("Params", " ".join(f"{k}={_param_text(v)}" for k, v in params.items())))
    tags += [
        ("Date", date.strftime("%Y.%m.%d")),
        ("Time", date.strftime("%H:%M:%S UTC")),
        ("Id", header["id"]),
    ]
    if header.get("players"):
        tags.append(("Players", ", ".join(header["players"])))
    final = result["score"] if result else "*"
    tags.append(("Result", final))
    if result:
        tags.append(("Termination", result["reason"]))
    lines = [f'[{name} "{_tag_text(value)}"]' for name, value in tags]
    body = " ".join([*_numbered_turns(_final_line(record.entries), _turn_joiner(header)), final])
    wrapped = textwrap.fill(body, width, break_on_hyphens=False, break_long_words=False)
    return "\n".join([*lines, "", wrapped, ""])


def _final_line(entries: Iterable[Mapping[str, Any]]) -> list[tuple[int, str]]:
    """(player, move text) of every action still on the board after the takebacks."""
    line: list[tuple[int, str]] = []
    for entry in entries:
        if entry["type"] == "action":
            line.append((int(entry["player"]), str(entry["move"])))
        elif entry["type"] == "timeout":
            line.extend((int(entry["player"]), str(m)) for m in entry.get("played") or ())
        elif entry["type"] == "undo" and line:
            line.pop()
        elif entry["type"] == "amend":
            player = int(entry["player"])
            del line[len(line) - len(entry["replaced"]):]
            line.extend((player, str(m)) for m in entry["moves"])
    return line


def _numbered_turns(actions: list[tuple[int, str]], join: Callable[[list[str]], str]) -> list[str]:
    turns: list[tuple[int, list[str]]] = []
    for player, text in actions:
        if turns and turns[-1][0] == player:
            turns[-1][1].append(text)
        else:
            turns.append((player, [text]))
    out: list[str] = []
    number = 0
    previous: int | None = None
    for player, texts in turns:
        # A new round when the order wraps around (skipped seats keep the count right).
        if previous is None or player <= previous:
            number += 1
            out.append(f"{number}." if previous is not None or player == 0 else f"{number}...")
        out.append(join(texts))
        previous = player
    return out


def _turn_joiner(header: Mapping[str, Any]) -> Callable[[list[str]], str]:
    try:
        hook = getattr(game_class(str(header["game"])), "turn_notation", None)
    except Exception:  # an unknown or broken game still exports, with the plain joiner
        hook = None
    if callable(hook):
        return lambda texts: str(hook(texts))
    return " ".join


def _param_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _tag_text(value: Any) -> str:
    return str(value).replace("\\", "\\\\").replace('"', '\\"')


# --------------------------------------------------------------------- the files
class Journal:
    """The journal directory: ``current.jsonl`` for the game in progress, ``games/`` after.

    The directory is created on the first write.
    """

    def __init__(self, directory: Path | str) -> None:
        self.directory = Path(directory)

    @property
    def current(self) -> Path:
        """The file of the game in progress."""
        return self.directory / CURRENT_FILE

    @property
    def games(self) -> Path:
        """The folder of finished games."""
        return self.directory / GAMES_DIR

    def in_progress(self) -> bool:
        """Whether a game in progress has been started (``current.jsonl`` is not empty)."""
        return self.current.exists() and self.current.stat().st_size > 0

    def new_id(self, wall: float, game_name: str) -> str:
        """A game id not yet used in ``games/``."""
        base = new_game_id(wall, game_name)
        return _free(self.games, base, ".jsonl").name.removesuffix(".jsonl")

    def append(self, entry: Mapping[str, Any]) -> None:
        """Write ``entry`` as one line and fsync it; it is on disk when this returns.

        The first entry of a game must be ``start``, and only the first.
        """
        kind = entry.get("type")
        if kind not in ENTRY_TYPES:
            raise ValueError(f"journal entry type must be one of {ENTRY_TYPES}, got {kind!r}")
        started = self.in_progress()
        if (kind == "start") == started:
            raise ValueError(
                "a game is already in progress: finish it first"
                if started
                else f"no game in progress: the first entry must be 'start', not {kind!r}"
            )
        data = (
            json.dumps(entry, ensure_ascii=False, separators=(",", ":"), allow_nan=False) + "\n"
        ).encode()
        self.directory.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.current, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            os.fsync(fd)
        finally:
            os.close(fd)
        if not started:
            _fsync_dir(self.directory)  # the new file's name must survive a power cut too

    def resume(self) -> Record | None:
        """The game in progress read back, or None when there is none.

        A torn last line is logged, cut off the file and skipped. A game whose last entry is
        its result (the daemon stopped inside :meth:`finish`) is filed under ``games/`` and
        None is returned. Raises :class:`JournalError` for any other bad line.
        """
        if not self.in_progress():
            return None
        raw = self.current.read_bytes()
        chunks = raw.splitlines(keepends=True)
        parsed: list[dict[str, Any]] = []
        good_bytes = 0
        for number, chunk in enumerate(chunks, 1):
            try:
                entry = _parse_line(chunk)
            except ValueError as exc:
                if number < len(chunks):
                    raise JournalError(
                        f"{self.current}: line {number} is unreadable ({exc}); the lines "
                        f"after it are intact: the file must be kept and looked at"
                    ) from exc
                log.warning(
                    "%s: skipped the unfinished last line %d (a write cut short, never "
                    "confirmed): %.120r",
                    self.current,
                    number,
                    chunk,
                )
                self._cut(good_bytes)
                break
            parsed.append(entry)
            good_bytes += len(chunk)
        else:
            if raw and not raw.endswith(b"\n"):
                self._seal()  # a complete last line without its newline: keep it, end it
        if not parsed:
            return None
        record = _record(self.current, parsed)
        if record.result is not None:
            log.info("%s: game %s had ended; filing it", self.current, record.id)
            self._file(record.id)
            return None
        return record

    def set_aside(self) -> Path:
        """Rename ``current.jsonl`` to ``current.corrupt-<time>.jsonl`` (never delete it).

        ``<time>`` is the file's last write, UTC. Returns the new path.
        """
        stamp = datetime.fromtimestamp(self.current.stat().st_mtime, tz=UTC)
        target = _free(self.directory, f"current.corrupt-{stamp:%Y%m%d-%H%M%S}", ".jsonl")
        os.replace(self.current, target)
        _fsync_dir(self.directory)
        log.warning("kept the unreadable journal as %s; starting a fresh game", target)
        return target

    def finish(self, result: Mapping[str, Any]) -> Path:
        """Append the ``result`` entry and file the game as ``games/<id>.jsonl`` (a rename)."""
        if result.get("type") != "result":
            raise ValueError(f"finish needs a 'result' entry, got {result.get('type')!r}")
        if not self.in_progress():
            raise ValueError("no game in progress to finish")
        with self.current.open("rb") as f:
            header = _parse_line(f.readline())
        self.append(result)
        return self._file(str(header["id"]))

    def records(self) -> list[RecordSummary]:
        """The finished games, oldest first; unreadable files are logged and left out."""
        if not self.games.is_dir():
            return []
        out: list[RecordSummary] = []
        for path in sorted(self.games.glob("*.jsonl")):
            try:
                out.append(_summary(_read(path)))
            except (JournalError, KeyError, TypeError, ValueError) as exc:
                log.warning("%s: not listed: %s", path, exc)
        return out

    def load(self, game_id: str) -> Record:
        """A finished game by id; :class:`JournalError` says how to find the ids."""
        path = self.games / f"{game_id}.jsonl"
        if not _ID.match(game_id) or not path.is_file():
            raise JournalError(
                f"no finished game {game_id!r} in {self.games}; 'tavola games' lists them"
            )
        return _read(path)

    def export(self, game_id: str) -> str:
        """A finished game in its notation (:func:`export_text`)."""
        return export_text(self.load(game_id))

    # ----------------------------------------------------------------- inside
    def _cut(self, size: int) -> None:
        with self.current.open("r+b") as f:
            f.truncate(size)
            f.flush()
            os.fsync(f.fileno())

    def _seal(self) -> None:
        with self.current.open("ab") as f:
            f.write(b"\n")
            f.flush()
            os.fsync(f.fileno())

    def _file(self, game_id: str) -> Path:
        self.games.mkdir(parents=True, exist_ok=True)
        target = _free(self.games, game_id, ".jsonl")
        os.replace(self.current, target)  # atomic: the game is in one place or the other
        _fsync_dir(self.games)
        _fsync_dir(self.directory)
        return target


def _parse_line(chunk: bytes) -> dict[str, Any]:
    """One journal line as a dict with a known ``type``; ValueError says what is wrong."""
    text = chunk.decode("utf-8").strip()  # UnicodeDecodeError is a ValueError
    if not text:
        raise ValueError("empty line")
    entry = json.loads(text)
    if not isinstance(entry, dict) or entry.get("type") not in ENTRY_TYPES:
        raise ValueError(f"not a journal entry: {text[:80]!r}")
    return entry


def _record(path: Path, parsed: list[dict[str, Any]]) -> Record:
    if parsed[0]["type"] != "start":
        raise JournalError(f"{path}: line 1 is {parsed[0]['type']!r}, not the 'start' header")
    for number, entry in enumerate(parsed[1:], 2):
        if entry["type"] == "start":
            raise JournalError(f"{path}: line {number} starts a second game")
    entries = tuple(parsed[1:])
    return Record(path, parsed[0], entries, tuple(range(2, len(entries) + 2)))


def _read(path: Path) -> Record:
    """A finished record: every line must be readable."""
    parsed: list[dict[str, Any]] = []
    for number, chunk in enumerate(path.read_bytes().splitlines(), 1):
        try:
            parsed.append(_parse_line(chunk))
        except ValueError as exc:
            raise JournalError(f"{path}: line {number} is unreadable ({exc})") from exc
    if not parsed:
        raise JournalError(f"{path}: empty")
    return _record(path, parsed)


def _summary(record: Record) -> RecordSummary:
    header = record.header
    result = record.result
    date = datetime.fromtimestamp(float(header["wall"]), tz=UTC)
    params = header.get("params") or {}
    return RecordSummary(
        id=record.id,
        game=str(header["game"]),
        variant=str(params.get("variant", "")),
        date=date.strftime("%Y-%m-%d %H:%M"),
        score=str(result["score"]) if result else "*",
        reason=str(result["reason"]) if result else "",
        actions=len(_final_line(record.entries)),
    )


def _free(folder: Path, stem: str, suffix: str) -> Path:
    """``folder/stem+suffix``, or with ``-2``, ``-3``... if taken: never overwrite a game."""
    path = folder / f"{stem}{suffix}"
    n = 2
    while path.exists():
        path = folder / f"{stem}-{n}{suffix}"
        n += 1
    return path


def _fsync_dir(path: Path) -> None:
    """Make a rename or a new file in ``path`` durable (POSIX: fsync the directory)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
