"""The journal: every game as an append-only file of JSON lines, replayed on start.

The game in progress is ``current.jsonl`` in the journal directory; finished games are
``games/<id>.jsonl``; a game put aside unfinished (another game was asked for) waits in
``paused/<id>.jsonl`` until ``tavola run --resume <id>``. A finished game whose result the
referee withdraws while it is still the board's game (no new game started) is moved back
from ``games/`` to ``current.jsonl`` (:meth:`Journal.reopen`). The format of a line is
:mod:`tavola.record`'s; this module stores it.

:meth:`Journal.append` writes a batch of entries in one write, flushes and fsyncs before it
returns: the session confirms on the LEDs only after. A write that fails leaves the file as
it was before the batch (the partial write is cut off, now or before the next write), so a
failed write never leaves half an action behind. :meth:`Journal.begin` creates the file
with its header atomically. Nothing here reads a clock; times are passed in.

Reading back after a crash (see docs/config.md, "The journal"): blank lines and a UTF-8
byte-order mark are skipped; a torn last line (that write never finished, so it was never
confirmed) is cut off the file with a warning. An unreadable line inside the file (a block
of NULs a power cut left, say) keeps the game up to it: the whole file is kept as
``current.corrupt-<time>.jsonl`` and the game goes on from the lines before it. A record
that does not replay is kept aside with :meth:`Journal.set_aside`; nothing is ever deleted.
"""

from __future__ import annotations

import contextlib
import dataclasses
import fcntl
import json
import logging
import os
import re
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from tavola.config import read_file_params
from tavola.record import (
    Entry,
    Record,
    RecordError,
    ResultEntry,
    StartEntry,
    entry_from_json,
    final_line,
    new_game_id,
)

log = logging.getLogger(__name__)

CURRENT_FILE = "current.jsonl"
GAMES_DIR = "games"
PAUSED_DIR = "paused"
LOCK_FILE = ".tavola.lock"  # held by the one daemon that writes here (Journal.hold)
_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
_BOM = "\ufeff"


class JournalError(RecordError):
    """A journal file that cannot be read back; the message names the file and line."""


class JournalBusyError(ValueError):
    """Another ``tavola run`` writes this journal; the message names it and the way out."""


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


def encode(entries: Sequence[Entry]) -> bytes:
    """The journal lines of ``entries``, each a compact JSON object and a newline."""
    return b"".join(
        (json.dumps(e.to_json(), ensure_ascii=False, separators=(",", ":"), allow_nan=False)
         + "\n").encode() for e in entries)


def _write_all(fd: int, data: bytes) -> None:
    """Write every byte and fsync (one place, so a test can make the disk fail here)."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]
    os.fsync(fd)


class Journal:
    """The journal directory: ``current.jsonl`` for the game in progress, ``games/`` after.

    The directory is created on the first write.
    """

    def __init__(self, directory: Path | str) -> None:
        self.directory = Path(directory)
        self._clean_size: int | None = None  # a failed write left bytes after this size
        self._held: int | None = None  # the lock file's descriptor while this one writes
        self._filed: Path | None = None  # the game this journal filed last, to reopen

    def hold(self) -> None:
        """Take the directory for this daemon alone (an advisory lock, released by
        :meth:`release` or when the process ends, however it ends). Two daemons on one
        journal (the service and a ``tavola run`` in a terminal) both resumed the game in
        progress and appended to it, and one filed it under the other: JournalBusyError
        names the other's pid and the way out. OSError when the directory cannot be made."""
        if self._held is not None:
            return
        self.directory.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.directory / LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            other = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
            os.close(fd)
            pid = f" (pid {other})" if other.isdigit() else ""
            raise JournalBusyError(
                f"the journal {self.directory} is in use by another tavola run{pid}: stop "
                f"it first (sudo systemctl stop tavola, or Ctrl-C in its terminal), or give "
                f"this one another directory with --journal") from None
        with contextlib.suppress(OSError):  # the pid is for the message only (a full disk)
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        self._held = fd

    def release(self) -> None:
        """Let another daemon write this journal. Idempotent."""
        if self._held is not None:
            os.close(self._held)  # closing the descriptor releases the lock
            self._held = None

    @property
    def current(self) -> Path:
        """The file of the game in progress."""
        return self.directory / CURRENT_FILE

    @property
    def games(self) -> Path:
        """The folder of finished games."""
        return self.directory / GAMES_DIR

    @property
    def paused(self) -> Path:
        """The folder of games put aside unfinished, to resume later."""
        return self.directory / PAUSED_DIR

    def in_progress(self) -> bool:
        """Whether a game in progress has been started (``current.jsonl`` is not empty)."""
        return self.current.exists() and self.current.stat().st_size > 0

    def new_id(self, wall: float, game_name: str) -> str:
        """A game id not yet used in ``games/`` or ``paused/``, nor by the game in progress
        (a ``new`` within its first second took its id: two games, one id)."""
        stem = new_game_id(wall, game_name)
        playing = self.current_id()
        n = 1
        while True:
            name = stem if n == 1 else f"{stem}-{n}"
            if name != playing and not any(
                    (d / f"{name}.jsonl").exists() for d in (self.games, self.paused)):
                return name
            n += 1

    def current_id(self) -> str | None:
        """The id in the game in progress's header; None without one that reads."""
        try:
            with self.current.open("rb") as f:
                header = _parse_line(f.readline())
        except (OSError, ValueError):
            return None
        return header.id if isinstance(header, StartEntry) else None

    # ----------------------------------------------------------------- writing
    def begin(self, header: StartEntry) -> None:
        """Create ``current.jsonl`` holding ``header``, atomically: all of it or nothing.

        ValueError if a game is in progress (finish, pause or set it aside first).
        """
        self.install(self.prepare(header))

    def prepare(self, header: StartEntry) -> Path:
        """Write a new game's header, fsynced, beside the game in progress; :meth:`install`
        makes it the game in progress. The part of starting a game that can fail for lack
        of space comes first, before the old game is filed."""
        self.directory.mkdir(parents=True, exist_ok=True)
        partial = self.directory / f".{CURRENT_FILE}.new"
        fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        try:
            _write_all(fd, encode([header]))
        except BaseException:
            partial.unlink(missing_ok=True)
            raise
        finally:
            os.close(fd)
        return partial

    def install(self, prepared: Path) -> None:
        """Make the header :meth:`prepare` wrote the game in progress (a rename)."""
        if self.in_progress():
            prepared.unlink(missing_ok=True)
            raise ValueError("a game is already in progress: finish it first")
        os.replace(prepared, self.current)
        _fsync_dir(self.directory)  # the new name must survive a power cut too
        self._clean_size = None

    def append(self, *entries: Entry) -> None:
        """Write ``entries`` and fsync them; they are on disk when this returns.

        On OSError (disk full, read-only, I/O error) the file is cut back to what it was
        (if even that fails, before the next write) and the error is raised: none of the
        batch counts as written.
        """
        if not entries:
            return
        if any(isinstance(e, StartEntry) for e in entries):
            raise ValueError("a game's header is written by begin(), not append()")
        if not self.in_progress():
            raise ValueError("no game in progress: begin() one first")
        data = encode(entries)
        fd = os.open(self.current, os.O_WRONLY | os.O_APPEND)
        try:
            if self._clean_size is not None:
                os.ftruncate(fd, self._clean_size)
                self._clean_size = None
            size = os.fstat(fd).st_size
            try:
                _write_all(fd, data)
            except OSError:
                self._clean_size = size
                try:
                    os.ftruncate(fd, size)
                    os.fsync(fd)
                    self._clean_size = None
                except OSError:
                    pass  # cut before the next write, or skipped as a torn line on resume
                raise
        finally:
            os.close(fd)

    def finish(self, result: ResultEntry) -> Path:
        """Append the ``result`` entry and file the game as ``games/<id>.jsonl``."""
        self.append(result)
        return self.file()

    def file(self) -> Path:
        """File the game in progress (its result is written) as ``games/<id>.jsonl``."""
        self._filed = self._move(self.games)
        return self._filed

    @property
    def filed_last(self) -> Path | None:
        """The file of the game this journal filed last, while it is still there."""
        return self._filed if self._filed is not None and self._filed.is_file() else None

    def reopen(self) -> None:
        """Make the game :meth:`file` filed last the game in progress again: the referee
        withdraws its result (docs/web.md) while it is still the board's game. The record
        stays append-only; only its place changes (``games/`` back to ``current.jsonl``).
        ValueError when a game is in progress or nothing was filed since the start."""
        filed, self._filed = self._filed, None
        if self.in_progress():
            raise ValueError("a game is in progress: only the board's game can be reopened")
        if filed is None or not filed.is_file():
            raise ValueError("no game filed since the start to reopen")
        os.replace(filed, self.current)
        _fsync_dir(self.directory)
        _fsync_dir(self.games)
        self._clean_size = None

    def pause(self) -> Path:
        """Put the unfinished game in progress aside as ``paused/<id>.jsonl``."""
        return self._move(self.paused)

    def paused_game(self, game_id: str) -> Path:
        """The file of the paused game ``game_id``; ValueError names the paused games when
        there is no such one."""
        path = self.paused / f"{game_id}.jsonl"
        if not _ID.match(game_id) or not path.is_file():
            waiting = sorted(p.stem for p in self.paused.glob("*.jsonl"))
            raise ValueError(f"no paused game {game_id!r} in {self.paused}; paused: "
                             f"{', '.join(waiting) or 'none'}")
        return path

    def unpause(self, game_id: str) -> None:
        """Make the paused game ``game_id`` the game in progress again.

        ValueError names the paused games when there is no such one, or when a game is
        in progress (pause it first).
        """
        path = self.paused_game(game_id)
        if self.in_progress():
            raise ValueError("a game is in progress: pause it first")
        os.replace(path, self.current)
        _fsync_dir(self.directory)
        _fsync_dir(self.paused)

    def set_aside(self) -> Path:
        """Rename ``current.jsonl`` to ``current.corrupt-<time>.jsonl`` (never delete it).

        ``<time>`` is the file's last write, UTC. Returns the new path.
        """
        target = self._aside_name()
        os.replace(self.current, target)
        _fsync_dir(self.directory)
        log.warning("kept the unreadable journal as %s", target)
        return target

    # ----------------------------------------------------------------- reading
    def resume(self) -> Record | None:
        """The game in progress read back, or None when there is none.

        See the module's docstring for what is skipped, cut and kept. A game whose last
        entry is its result (the daemon stopped while filing it) is filed under ``games/``
        and None is returned. Raises :class:`JournalError` when not even the header reads.
        """
        if not self.in_progress():
            return None
        raw = self.current.read_bytes()
        chunks = raw.splitlines(keepends=True)
        parsed: list[Entry] = []
        lines: list[int] = []
        good_bytes = 0
        for number, chunk in enumerate(chunks, 1):
            try:
                entry = _parse_line(chunk)
            except ValueError as exc:
                if number == len(chunks):
                    log.warning("%s: skipped the unfinished last line %d (a write cut short, "
                                "never confirmed): %.120r", self.current, number, chunk)
                    self._cut(good_bytes)
                elif not parsed:
                    raise JournalError(
                        f"{self.current}: line {number} is unreadable ({exc})") from exc
                else:
                    kept = self._keep_prefix(raw[:good_bytes])
                    log.warning("%s: line %d is unreadable (%s); the game goes on from the "
                                "%d lines before it; the whole file is kept as %s",
                                self.current, number, exc, len(lines), kept)
                break
            good_bytes += len(chunk)
            if entry is None:
                continue  # a blank line
            parsed.append(entry)
            lines.append(number)
        else:
            if raw and not raw.endswith(b"\n"):
                self._seal()  # a complete last line without its newline: keep it, end it
        if not parsed:
            return None
        try:
            record = Record.of(parsed, self.current, lines)
        except RecordError as exc:
            raise JournalError(str(exc)) from exc
        header = _with_file_contents(record.header, self.current)
        if header != record.header:  # an older record named a file: carry its content now
            rest = self.current.read_bytes().split(b"\n", 1)[1]
            self._replace_current(encode([header]) + rest)
            record = dataclasses.replace(record, header=header)
        if record.result is not None:
            log.info("%s: game %s had ended; filing it", self.current, record.id)
            self.file()
            return None
        return record

    def records(self) -> list[RecordSummary]:
        """The finished games, oldest first; unreadable files are logged and left out."""
        if not self.games.is_dir():
            return []
        # By start time, then by the number new_id gives a second game of the same second:
        # not by name, where "X-10" and "X-2" come before "X".
        listed: list[tuple[float, int, RecordSummary]] = []
        for path in self.games.glob("*.jsonl"):
            try:
                record = read_record(path)
                listed.append((record.header.wall, _number(path.stem), _summary(record)))
            except (RecordError, KeyError, TypeError, ValueError) as exc:
                log.warning("%s: not listed: %s", path, exc)
        return [summary for *_, summary in sorted(listed, key=lambda t: t[:2])]

    def load(self, game_id: str) -> Record:
        """A game by id: finished, put aside, or the one in progress (an arbiter's record of
        a game not over, or one waiting in ``paused/``, was refused as "no finished game");
        :class:`JournalError` says how to find the ids."""
        if _ID.match(game_id):
            for path in (self.games / f"{game_id}.jsonl", self.paused / f"{game_id}.jsonl"):
                if path.is_file():
                    return read_record(path)
            if self.current_id() == game_id:
                return read_record(self.current)
        raise JournalError(f"no game {game_id!r} in {self.directory} (finished, put aside "
                           f"or in progress); 'tavola games' lists them")

    def unfinished(self) -> str:
        """What the directory holds besides finished games, in a few words ('' if nothing):
        the game in progress and the games put aside, for a listing that has none."""
        parts = []
        if self.in_progress():
            parts.append(f"a game in progress ({self.current.name}; listed once it ends)")
        paused = sorted(p.stem for p in self.paused.glob("*.jsonl")) if self.paused.is_dir() \
            else []
        if paused:
            parts.append(f"{len(paused)} put aside unfinished (tavola run --resume "
                         f"{paused[0]}{', ...' if len(paused) > 1 else ''})")
        return "; ".join(parts)

    # ----------------------------------------------------------------- inside
    def _aside_name(self) -> Path:
        stamp = datetime.fromtimestamp(self.current.stat().st_mtime, tz=UTC)
        return _free(self.directory, f"current.corrupt-{stamp:%Y%m%d-%H%M%S}", ".jsonl")

    def _keep_prefix(self, prefix: bytes) -> Path:
        """Keep the whole file aside and make ``prefix`` the game in progress."""
        aside = self._aside_name()
        try:
            os.link(self.current, aside)
        except OSError:  # a file system without hard links
            shutil.copyfile(self.current, aside)
        self._replace_current(prefix)
        return aside

    def _replace_current(self, data: bytes) -> None:
        """Make ``data`` the content of ``current.jsonl`` atomically."""
        partial = self.directory / f".{CURRENT_FILE}.new"
        fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        try:
            _write_all(fd, data)
        finally:
            os.close(fd)
        os.replace(partial, self.current)
        _fsync_dir(self.directory)

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

    def _move(self, folder: Path) -> Path:
        with self.current.open("rb") as f:
            first = f.readline()
        header = _parse_line(first)
        if not isinstance(header, StartEntry):
            raise JournalError(f"{self.current}: line 1 is not the 'start' header")
        folder.mkdir(parents=True, exist_ok=True)
        target = _free(folder, header.id, ".jsonl")
        os.replace(self.current, target)  # atomic: the game is in one place or the other
        _fsync_dir(folder)
        _fsync_dir(self.directory)
        return target


def _parse_line(chunk: bytes) -> Entry | None:
    """One journal line as its entry, None for a blank line; ValueError says what is
    wrong (a UnicodeDecodeError is one)."""
    text = chunk.decode("utf-8").lstrip(_BOM).strip()
    if not text:
        return None
    return entry_from_json(json.loads(text))


def _with_file_contents(header: StartEntry, path: Path) -> StartEntry:
    """The header with the files it names (Sequence for Kids' layout, in records written
    before records carried the content) read in; JournalError if one cannot be read."""
    try:
        params = read_file_params(header.game, header.params)
    except OSError as exc:
        raise JournalError(
            f"{path}: line 1: the record names a file that cannot be read "
            f"({exc.strerror or exc}: {exc.filename}); put it back to replay the game"
        ) from exc
    except ValueError:  # an unknown game: replaying it says so
        return header
    return header if params == dict(header.params) else dataclasses.replace(header,
                                                                            params=params)


def read_record(path: Path) -> Record:
    """A finished record: every line must be readable (blank lines are skipped)."""
    parsed: list[Entry] = []
    lines: list[int] = []
    for number, chunk in enumerate(path.read_bytes().splitlines(), 1):
        try:
            entry = _parse_line(chunk)
        except ValueError as exc:
            raise JournalError(f"{path}: line {number} is unreadable ({exc})") from exc
        if entry is not None:
            parsed.append(entry)
            lines.append(number)
    try:
        return Record.of(parsed, path, lines)
    except RecordError as exc:
        raise JournalError(str(exc)) from exc


def _summary(record: Record) -> RecordSummary:
    header = record.header
    result = record.result
    date = datetime.fromtimestamp(header.wall, tz=UTC)
    return RecordSummary(
        id=record.id,
        game=header.game,
        variant=str(header.params.get("variant", "")),
        date=date.strftime("%Y-%m-%d %H:%M"),
        score=result.score if result else "*",
        reason=result.reason if result else "",
        actions=len(final_line(record.entries)),
    )


def _number(game_id: str) -> int:
    """The n of an id that :meth:`Journal.new_id` numbered ``<stem>-<n>``; 1 for the first."""
    *_, last = game_id.rsplit("-", 1)
    return int(last) if last.isdigit() and len(last) < 6 else 1  # not the time of day


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


def journal_to_read(directory: Path, source: str | None) -> Journal:
    """The journal in ``directory`` for listing and export; ``source`` says where the
    directory was set (``--journal``, a config file; None: the default).

    A directory that is a file, a game's folder given for its journal, or a directory set
    by hand that does not exist is a :class:`JournalError` naming it and the fix: read as
    an empty journal it would say "no finished games", which sends a user looking for lost
    games instead of at a typo.
    """
    where = f" (set by {source})" if source else " (the default)"
    fix = "give the directory 'tavola run' keeps its journal in ([journal] directory, --journal)"
    if directory.is_file():
        what = " (a game's file: 'tavola export ID' prints one)" \
            if directory.suffix == ".jsonl" else ""
        raise JournalError(f"{directory}{where} is a file, not a journal directory{what}; {fix}")
    if directory.name in (GAMES_DIR, PAUSED_DIR) and not (directory / GAMES_DIR).exists() \
            and any(directory.glob("*.jsonl")):
        raise JournalError(f"{directory}{where} is the journal's {directory.name}/ folder; "
                           f"give its parent, {directory.parent}")
    if source and not directory.exists():
        raise JournalError(f"no journal directory {directory}{where}: nothing has been kept "
                           f"there; {fix}")
    return Journal(directory)
