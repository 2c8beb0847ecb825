"""The host's side of the board protocol (firmware/PROTOCOL.md), with no I/O.

Three layers, each pure and tested from byte fixtures (as picochess tests its parsers):

- :func:`crc16`, :func:`encode`, :func:`decode`: one line to and from a message value;
- :class:`LineSplitter`: a byte stream into lines, cutting overlong ones short;
- :class:`Conversation`: the host's state machine for one connection: handshake, sequence
  checks, the board's matrix, heartbeats and faults. It takes lines and the time and
  returns a :class:`Step` (lines to send, a reading to report, a fault, log lines), so the
  whole fault logic runs under virtual time in tests.

>>> decode(b"HB 5 1 200*276E")
Heartbeat(seq=5, uptime=1, scans=200)
>>> encode("SYNC", 6)
b'SYNC 6*D562\\n'
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field

__all__ = [
    "MAX_LINE",
    "MAX_SEQ",
    "PROTOCOL_VERSION",
    "BoardError",
    "Change",
    "Conversation",
    "Heartbeat",
    "Hello",
    "LineError",
    "LineSplitter",
    "Message",
    "Snap",
    "Step",
    "Unknown",
    "crc16",
    "decode",
    "encode",
    "led_lines",
]

PROTOCOL_VERSION = 2  # 2: CRC-16 checksums (1 had CRC-8)
MAX_LINE = 250  # bytes before the newline, checksum included
MAX_SEQ = 65535
MAX_MATRIX = 16
MAX_LED_RUN = 32
STORM_LINES = 10  # this many bad lines ...
STORM_WINDOW = 5.0  # ... within this many seconds: the line is garbled
SYNC_RETRY = 1.0  # seconds before an unanswered SYNC is sent again
SNAPSHOT_INTERVAL = 60.0  # seconds between the SYNCs that check the host's copy of the matrix
CHECKSUM_DIGITS = 4


def _crc_table() -> tuple[int, ...]:
    table = []
    for i in range(256):
        crc = i << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) & 0xFFFF if crc & 0x8000 else (crc << 1) & 0xFFFF
        table.append(crc)
    return tuple(table)


_CRC = _crc_table()


def crc16(data: bytes) -> int:
    """CRC-16/IBM-3740, also called CRC-16/CCITT-FALSE (polynomial 0x1021, init 0xFFFF, no
    reflection, no final XOR): every error of up to 3 bits and every burst of up to 16 bits
    in a line is caught, and 1 random damage in 65,536 gets through (CRC-8: 1 in 256).

    >>> f"{crc16(b'123456789'):04X}"
    '29B1'
    """
    crc = 0xFFFF
    for byte in data:
        crc = ((crc << 8) & 0xFFFF) ^ _CRC[(crc >> 8) ^ byte]
    return crc


def encode(verb: str, seq: int, *fields: str) -> bytes:
    """One protocol line, checksum and newline included."""
    body = " ".join((verb, str(seq), *fields)).encode("ascii")
    return body + b"*%04X\n" % crc16(body)


# ---------------------------------------------------------------------- messages
@dataclass(frozen=True)
class Hello:
    """The board introduces itself: protocol and firmware versions, matrix size, LEDs."""

    seq: int
    protocol: int
    firmware: str
    rows: int
    columns: int
    leds: bool


@dataclass(frozen=True)
class Snap:
    """The whole settled matrix: one bitmask per row, bit ``c`` set when column ``c`` is
    closed."""

    seq: int
    rows: tuple[int, ...]


@dataclass(frozen=True)
class Change:
    """Cells that settled in a new state: ``(row, column, closed)`` triples."""

    seq: int
    cells: tuple[tuple[int, int, bool], ...]


@dataclass(frozen=True)
class Heartbeat:
    """The board is alive: seconds since power-up, matrix scans in the last second."""

    seq: int
    uptime: int
    scans: int


@dataclass(frozen=True)
class BoardError:
    """The board could not use a host line: its ``code``, the host ``ref`` number it
    answers (None if unknown) and a text for people."""

    seq: int
    code: str
    ref: int | None
    text: str


@dataclass(frozen=True)
class Unknown:
    """A well-formed line with a verb this version does not know (a later version's)."""

    seq: int
    verb: str
    fields: tuple[str, ...]


Message = Hello | Snap | Change | Heartbeat | BoardError | Unknown


class LineError(ValueError):
    """A line that cannot be used: ``reason`` is ``checksum``, ``syntax`` or ``overflow``."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


_VERB = re.compile(rb"[A-Z]+")
_NUMBER = re.compile(r"[0-9]{1,10}")
_HEX = re.compile(r"[0-9A-Fa-f]{1,4}")
_CELL = re.compile(r"([+-])([0-9]{1,2}),([0-9]{1,2})")


def decode(line: bytes) -> Message:
    """The message in one line from the board (without its ``\\n``; a ``\\r`` is allowed).

    Raises :class:`LineError` for a bad checksum, a line that does not parse, or one over
    :data:`MAX_LINE` bytes.

    >>> decode(b"CHG 4 +3,3*DA72")
    Change(seq=4, cells=((3, 3, True),))
    >>> decode(b"CHG 4 +3,3*DA73")
    Traceback (most recent call last):
    ...
    tavola.hardware.serial_protocol.LineError: checksum mismatch: line says DA73, body gives DA72
    """
    line = line.removesuffix(b"\r")
    if len(line) > MAX_LINE:
        raise LineError("overflow", f"line longer than {MAX_LINE} bytes")
    body, star, given = line.rpartition(b"*")
    if not star or len(given) != CHECKSUM_DIGITS:
        raise LineError("syntax", f"no checksum at the end of {_show(line)}")
    try:
        expected = int(given, 16)
    except ValueError:
        raise LineError("syntax", f"checksum is not four hex digits in {_show(line)}") from None
    if crc16(body) != expected:
        raise LineError(
            "checksum", f"checksum mismatch: line says {given.decode('ascii', 'replace')}, "
            f"body gives {crc16(body):04X}"
        )
    words = body.split(b" ")
    if len(words) < 2 or not _VERB.fullmatch(words[0]) or any(not w for w in words):
        raise LineError("syntax", f"not VERB SEQ FIELDS: {_show(line)}")
    try:
        text = [w.decode("ascii") for w in words]
    except UnicodeDecodeError:
        raise LineError("syntax", f"not ASCII: {_show(line)}") from None
    verb, fields = text[0], text[2:]
    seq = _number(text[1], MAX_SEQ, "sequence number")
    try:
        return _message(verb, seq, fields)
    except LineError as exc:
        raise LineError("syntax", f"{verb}: {exc}") from None


def _message(verb: str, seq: int, fields: list[str]) -> Message:
    if verb == "HELLO":
        _arity(fields, 6)
        if fields[0] != "tavola":
            raise LineError("syntax", f"not a tavola board ({fields[0]!r})")
        rows = _number(fields[3], MAX_MATRIX, "rows")
        columns = _number(fields[4], MAX_MATRIX, "columns")
        if fields[5] not in ("0", "1"):
            raise LineError("syntax", f"LEDs must be 0 or 1, got {fields[5]!r}")
        return Hello(seq, _number(fields[1], MAX_SEQ, "protocol"), fields[2], rows, columns,
                     fields[5] == "1")
    if verb == "SNAP":
        if not 1 <= len(fields) <= MAX_MATRIX:
            raise LineError("syntax", f"1 to {MAX_MATRIX} rows, got {len(fields)}")
        for word in fields:
            if not _HEX.fullmatch(word):
                raise LineError("syntax", f"row {word!r} is not hex")
        return Snap(seq, tuple(int(word, 16) for word in fields))
    if verb == "CHG":
        if not fields:
            raise LineError("syntax", "no cells")
        cells = []
        for word in fields:
            match = _CELL.fullmatch(word)
            if match is None:
                raise LineError("syntax", f"cell {word!r} is not +R,C or -R,C")
            cells.append((int(match[2]), int(match[3]), match[1] == "+"))
        return Change(seq, tuple(cells))
    if verb == "HB":
        _arity(fields, 2)
        return Heartbeat(seq, _number(fields[0], 10**10, "uptime"),
                         _number(fields[1], 10**10, "scans"))
    if verb == "ERR":
        if len(fields) < 2:
            raise LineError("syntax", "ERR takes CODE REF TEXT")
        ref = None if fields[1] == "-" else _number(fields[1], MAX_SEQ, "reference")
        return BoardError(seq, fields[0], ref, " ".join(fields[2:]))
    return Unknown(seq, verb, tuple(fields))


def _arity(fields: Sequence[str], count: int) -> None:
    if len(fields) != count:
        raise LineError("syntax", f"{count} fields expected, got {len(fields)}")


def _number(word: str, top: int, what: str) -> int:
    if not _NUMBER.fullmatch(word) or int(word) > top:
        raise LineError("syntax", f"{what} must be a number 0..{top}, got {word!r}")
    return int(word)


def _show(line: bytes) -> str:
    text = line[:40].decode("ascii", "backslashreplace")
    return repr(text + ("..." if len(line) > 40 else ""))


class LineSplitter:
    """Cuts a byte stream into lines (without their ``\\n``). A line longer than
    :data:`MAX_LINE` comes out cut to ``MAX_LINE + 1`` bytes, which :func:`decode` rejects
    as overlong, so that a stream with no newline never grows without bound.

    >>> s = LineSplitter()
    >>> s.feed(b"HB 5 1 2"), s.feed(b"00*276E\\r\\nHB")
    ([], [b'HB 5 1 200*276E\\r'])
    """

    def __init__(self) -> None:
        self._partial = bytearray()

    def feed(self, data: bytes) -> list[bytes]:
        """The non-empty lines completed by ``data``."""
        out = []
        *complete, rest = data.split(b"\n")
        for piece in complete:
            self._append(piece)
            out.append(bytes(self._partial))
            self._partial.clear()
        self._append(rest)
        return [line for line in out if line.strip()]

    def _append(self, piece: bytes) -> None:
        room = MAX_LINE + 1 - len(self._partial)
        if room > 0:
            self._partial += piece[:room]


def led_lines(frame: Sequence[tuple[int, int, int]], previous: Sequence[tuple[int, int, int]]
              | None) -> list[tuple[int, str]]:
    """The ``LED`` commands (first index, hex colours) that turn ``previous`` into
    ``frame``: the runs of at most 32 LEDs holding a change, or all of them when
    ``previous`` is None (unknown, after a handshake).

    >>> led_lines([(255, 0, 0), (0, 0, 0)], [(0, 0, 0), (0, 0, 0)])
    [(0, 'FF0000')]
    """
    out = []
    for first in range(0, len(frame), MAX_LED_RUN):
        run = frame[first : first + MAX_LED_RUN]
        if previous is not None and tuple(previous[first : first + MAX_LED_RUN]) == tuple(run):
            continue
        if previous is not None:  # trim the unchanged LEDs at both ends of the run
            changed = [i for i, rgb in enumerate(run) if previous[first + i] != rgb]
            run = run[changed[0] : changed[-1] + 1]
            first += changed[0]
        out.append((first, "".join(f"{r:02X}{g:02X}{b:02X}" for r, g, b in run)))
    return out


# ---------------------------------------------------------------------- the conversation
@dataclass(frozen=True)
class Step:
    """What the shell does after feeding the conversation a line or the time.

    ``send``: lines to write to the board. ``reading``: the whole settled matrix (row
    bitmasks) to report as a snapshot. ``fault``: a message for people: the board is lost.
    ``hang_up``: close the port and reconnect (a fault without it: the board is there but
    cannot be trusted, and the conversation goes on trying). ``hello``: the handshake just
    completed (the LED side sends its whole frame). ``log``: warnings worth a log line.
    """

    send: tuple[bytes, ...] = ()
    reading: tuple[int, ...] | None = None
    fault: str | None = None
    hang_up: bool = False
    hello: Hello | None = None
    log: tuple[str, ...] = ()


@dataclass
class _Draft:
    send: list[bytes] = field(default_factory=list)
    log: list[str] = field(default_factory=list)
    reading: tuple[int, ...] | None = None
    fault: str | None = None
    hang_up: bool = False
    hello: Hello | None = None

    def done(self) -> Step:
        return Step(tuple(self.send), self.reading, self.fault, self.hang_up, self.hello,
                    tuple(self.log))


class Conversation:
    """The host's side of one connection to a board on ``port`` (pure; times in seconds).

    Call :meth:`start` once the port is open, :meth:`receive` with each line, and
    :meth:`check` whenever :attr:`deadline` passes. ``need`` is the smallest matrix
    (rows, columns) the layout needs; ``fitted`` the bitmask of each row's switches that
    belong to a cell (None: all), so that a change elsewhere is not reported. Every
    ``snapshot_interval`` seconds it asks for a SNAP to check its copy of the matrix. A
    fault that comes with ``hang_up`` makes the shell close the port and start a new
    conversation after its reconnect wait; a SYNC that the board does not answer within
    ``heartbeat_timeout`` is a fault without it, and the SYNC goes on being retried.
    """

    def __init__(self, port: str, *, heartbeat_timeout: float = 3.0,
                 need: tuple[int, int] = (1, 1), fitted: Sequence[int] | None = None,
                 snapshot_interval: float = SNAPSHOT_INTERVAL) -> None:
        self.port = port
        self.fitted = tuple(fitted) if fitted is not None else None
        self.heartbeat_timeout = heartbeat_timeout
        self.snapshot_interval = snapshot_interval
        self.need = need
        self.state = "closed"  # -> handshake -> syncing -> live
        self.board: Hello | None = None
        self.matrix: list[int] = []
        self._seq = 0  # the host's next sequence number
        self._expect = 0  # the board's next one
        self._heard = 0.0
        self._since = 0.0  # when the handshake or the pending SYNC was sent
        self._sync_pending = False
        self._sync_started = 0.0  # when the first SYNC still unanswered was sent
        self._sync_fault = False  # the unanswered SYNC was reported as a fault
        self._checking = False  # the pending SYNC checks the copy (not a resync)
        self._last_snap = 0.0
        self._report = True  # report the next SNAP even if it matches the last reading
        self._bad: deque[float] = deque()
        self._last_error = ""

    @property
    def live(self) -> bool:
        """True once the handshake is done (LED commands may be sent)."""
        return self.state in ("syncing", "live")

    @property
    def deadline(self) -> float | None:
        """The time by which :meth:`check` must run next (None: nothing pending)."""
        if self.state == "handshake":
            return self._since + self.heartbeat_timeout
        if self.live:
            due = self._heard + self.heartbeat_timeout
            if self._sync_pending:
                due = min(due, self._since + SYNC_RETRY)
                if not self._sync_fault:
                    due = min(due, self._sync_started + self.heartbeat_timeout)
            else:
                due = min(due, self._last_snap + self.snapshot_interval)
            return due
        return None

    def command(self, verb: str, *fields: str) -> bytes:
        """A host line with the next sequence number."""
        line = encode(verb, self._seq, *fields)
        self._seq = 0 if self._seq >= MAX_SEQ else self._seq + 1
        return line

    def start(self, now: float) -> Step:
        """The port is open: say HELLO."""
        self.state, self._seq, self._since, self._heard = "handshake", 0, now, now
        self.board = None
        self._report = True
        return Step(send=(self.command("HELLO", "tavola", str(PROTOCOL_VERSION)),))

    def request_snapshot(self, now: float) -> Step:
        """Ask for the whole matrix, and report it even if nothing changed (a resync)."""
        self._report = True
        if not self.live:
            return Step()
        draft = _Draft()
        self._sync(draft, now)
        return draft.done()

    def check(self, now: float) -> Step:
        """Timeouts: a handshake unanswered, a heartbeat missing, a SYNC unanswered."""
        draft = _Draft()
        if self.state == "handshake" and now - self._since >= self.heartbeat_timeout:
            self._fail(draft, f"the board on {self.port} does not answer (no HELLO within "
                       f"{self.heartbeat_timeout:g} s): is the tavola firmware on it? "
                       "(make firmware, see firmware/README.md)")
        elif self.live and now - self._heard >= self.heartbeat_timeout:
            why = f" (its last error: {self._last_error})" if self._last_error else ""
            self._fail(draft, f"no heartbeat from the board on {self.port} for "
                       f"{self.heartbeat_timeout:g} s{why}: check the USB cable")
        elif self._sync_pending:
            waited = now - self._sync_started
            if not self._sync_fault and waited >= self.heartbeat_timeout:
                self._sync_fault, self._report = True, True
                draft.fault = (f"the board on {self.port} sends heartbeats but has not answered "
                               f"a request for its matrix for {waited:.0f} s: its line from "
                               "this computer may be broken, or its firmware stuck; asking "
                               "again (reset the Pico if it lasts)")
            if now - self._since >= SYNC_RETRY:
                self._sync(draft, now)
        elif self.state == "live" and now - self._last_snap >= self.snapshot_interval:
            self._checking = True  # a check: the board stays trusted meanwhile
            self._sync(draft, now)
        return draft.done()

    def receive(self, line: bytes, now: float) -> Step:
        """One line from the board (without its newline)."""
        draft = _Draft()
        try:
            message = decode(line)
        except LineError as exc:
            self._bad_line(draft, str(exc), now)
            return draft.done()
        self._heard = now
        if isinstance(message, Hello):
            self._hello(draft, message, now)
            return draft.done()
        if self.state == "handshake" or not self.live:
            return draft.done()  # the board still talks to an earlier conversation
        if message.seq != self._expect and not isinstance(message, Snap):
            lost = (message.seq - self._expect) % (MAX_SEQ + 1)
            draft.log.append(f"lost {lost} line(s) from the board on {self.port}; "
                             "asking for a snapshot")
            self._resync(draft, now)
        self._expect = (message.seq + 1) % (MAX_SEQ + 1)
        if isinstance(message, Snap):
            self._snap(draft, message, now)
        elif isinstance(message, Change):
            self._change(draft, message, now)
        elif isinstance(message, BoardError):
            self._board_error(draft, message)
        return draft.done()

    # ------------------------------------------------------------ internals
    def _hello(self, draft: _Draft, hello: Hello, now: float) -> None:
        if hello.protocol != PROTOCOL_VERSION:
            fix = ("update tavola on this computer (pip install -U tavola)"
                   if hello.protocol > PROTOCOL_VERSION else
                   "copy this tavola's firmware to the Pico (make firmware, see "
                   "firmware/README.md)")
            self._fail(draft, f"the board on {self.port} runs firmware {hello.firmware}, "
                       f"which speaks protocol {hello.protocol}, but this tavola speaks "
                       f"protocol {PROTOCOL_VERSION}: {fix}")
            return
        rows, columns = self.need
        if hello.rows < rows or hello.columns < columns:
            self._fail(draft, f"the layout needs a {rows}x{columns} switch matrix but the "
                       f"board on {self.port} scans {hello.rows}x{hello.columns}: add pins to "
                       "ROW_PINS / COLUMN_PINS in the firmware's config.py, or fix the layout")
            return
        # A HELLO while live: the board restarted, or it booted just as the port opened
        # and this is its answer to our HELLO after its own. Either way the SNAP that
        # follows is the truth, and worth reporting only if it differs.
        if self.state != "live":
            self.matrix = [0] * hello.rows
            self._report = True
        self.board, self.state, self._expect = hello, "syncing", 1
        self._sync_pending, self._since, self._sync_started = True, now, now
        self._checking = False
        self._bad.clear()
        draft.hello = hello

    def _snap(self, draft: _Draft, snap: Snap, now: float) -> None:
        assert self.board is not None
        limit = 1 << self.board.columns
        if len(snap.rows) != self.board.rows or any(r >= limit for r in snap.rows):
            self._bad_line(draft, f"SNAP does not fit a {self.board.rows}x"
                           f"{self.board.columns} matrix", now)
            return
        changed = self._seen(snap.rows) != self._seen(self.matrix)
        if changed and self._checking and self.state == "live":
            draft.log.append(f"the matrix of the board on {self.port} differed from this "
                             "computer's copy (a change line lost or damaged): corrected")
        self.matrix = list(snap.rows)
        self.state, self._sync_pending = "live", False
        self._sync_fault = self._checking = False
        self._last_snap = now
        if changed or self._report:
            draft.reading = tuple(self.matrix)
        self._report = False

    def _change(self, draft: _Draft, change: Change, now: float) -> None:
        assert self.board is not None
        if self.state != "live":
            return  # waiting for the SNAP that replaces what we have
        if any(r >= self.board.rows or c >= self.board.columns for r, c, _ in change.cells):
            self._bad_line(draft, "CHG names a cell outside the matrix", now)
            return
        before = list(self.matrix)
        for r, c, closed in change.cells:
            self.matrix[r] = self.matrix[r] | (1 << c) if closed else self.matrix[r] & ~(1 << c)
        if self._seen(self.matrix) != self._seen(before):
            draft.reading = tuple(self.matrix)

    def _seen(self, rows: Sequence[int]) -> list[int]:
        """The rows as the layout sees them: switches outside any cell masked out."""
        if self.fitted is None:
            return list(rows)
        return [r & (self.fitted[i] if i < len(self.fitted) else 0) for i, r in enumerate(rows)]

    def _board_error(self, draft: _Draft, error: BoardError) -> None:
        if error.code == "version":
            return  # the HELLO before it said so already
        self._last_error = error.text
        ref = "" if error.ref is None else f" to line {error.ref}"
        draft.log.append(f"the board on {self.port} answered{ref}: {error.code}: {error.text}")

    def _bad_line(self, draft: _Draft, why: str, now: float) -> None:
        draft.log.append(f"bad line from the board on {self.port}: {why}")
        self._bad.append(now)
        while self._bad and now - self._bad[0] > STORM_WINDOW:
            self._bad.popleft()
        if len(self._bad) >= STORM_LINES:
            self._fail(draft, f"the line from the board on {self.port} is garbled "
                       f"({len(self._bad)} bad lines in {STORM_WINDOW:g} s): check the USB "
                       "cable, or the baud rate of a UART")
        elif self.live:
            self._resync(draft, now)

    def _resync(self, draft: _Draft, now: float) -> None:
        self.state, self._report, self._checking = "syncing", True, False
        if not self._sync_pending:
            self._sync(draft, now)

    def _sync(self, draft: _Draft, now: float) -> None:
        if not self._sync_pending:
            self._sync_started = now
        draft.send.append(self.command("SYNC"))
        self._sync_pending, self._since = True, now

    def _fail(self, draft: _Draft, message: str) -> None:
        draft.fault, draft.hang_up = message, True
        self.state = "closed"
        self._sync_pending = self._sync_fault = False
