"""The board's half of the conversation (PROTOCOL.md), with no I/O: bytes from the host and
readings of the matrix go in, lines to send come out. ``now`` is always given, in
milliseconds (``time.ticks_ms()`` on the Pico), and compared with ``ticks_diff`` so the
heartbeat survives the tick counter wrapping around.

    board = Board(rows=8, columns=8)
    out = board.boot(now, settled)      # HELLO and SNAP
    out = board.scanned(raw, now)       # CHG (or SNAP) when switches settle
    out = board.received(data, now)     # replies to host commands
    out = board.tick(now)               # HB once a second
"""

import protocol
from matrix import Debouncer
from protocol import LineError, encode, number, unhex

try:
    from time import ticks_diff
except ImportError:  # CPython, should anyone import this there

    def ticks_diff(a, b):
        return a - b


FIRMWARE = "0.2.0"
HEARTBEAT_MS = 1000
MAX_CHANGES = 24  # more cells than this settling at once: a SNAP instead of a long CHG
MAX_LEDS = 1024
MAX_LED_RUN = 32
ORDERS = ("RGB", "RBG", "GRB", "GBR", "BRG", "BGR")
_OVERFLOW = f"line longer than {protocol.MAX_LINE} bytes"


class Board:
    """The protocol engine of one board: ``rows`` x ``columns`` switches, debounced over
    ``debounce`` scans, and an LED strip made by ``make_strip(count, bpp)`` (a
    ``neopixel.NeoPixel``; None when the board drives no LEDs)."""

    def __init__(self, rows, columns, make_strip=None, debounce=4, firmware=FIRMWARE):
        self.rows = rows
        self.columns = columns
        self.debouncer = Debouncer(rows, columns, debounce)
        self.make_strip = make_strip
        self.firmware = firmware
        self.seq = 0
        self.talking = True  # False after a host HELLO with another protocol version
        self.buffer = b""
        self.discarding = False
        self.last_beat = None
        self.uptime_ms = 0
        self.scans = 0
        self.scans_per_s = 0
        self.strip = None
        self.colours = bytearray()
        self.brightness = 255

    # ------------------------------------------------------------ what the shell calls
    def boot(self, now, settled=None):
        """Start talking: HELLO and SNAP. ``settled`` is the first reading, trusted as is."""
        if settled is not None:
            self.debouncer = Debouncer(self.rows, self.columns, self.debouncer.count, settled)
        self.last_beat = now
        return self._hello()

    def scanned(self, raw, now):
        """One raw reading of the matrix; the lines that report what settled."""
        self.scans += 1
        changes = self.debouncer.feed(raw)
        if not changes or not self.talking:
            return []
        if len(changes) > MAX_CHANGES:
            return [self._snap()]
        return [self._line("CHG", [f"{'+' if closed else '-'}{r},{c}"
                                   for r, c, closed in changes])]

    def tick(self, now):
        """A heartbeat line when one is due (every second), else nothing."""
        if self.last_beat is None:
            self.last_beat = now
        gap = ticks_diff(now, self.last_beat)
        if gap < HEARTBEAT_MS:
            return []
        self.last_beat = now
        self.uptime_ms += gap
        self.scans_per_s = self.scans * 1000 // gap
        self.scans = 0
        return [self._line("HB", [str(self.uptime_ms // 1000), str(self.scans_per_s)])]

    def received(self, data, now):
        """Bytes from the host; the reply lines to every complete line among them."""
        out = []
        self.buffer += data
        while True:
            end = self.buffer.find(b"\n")
            if end < 0:
                break
            line, self.buffer = self.buffer[:end], self.buffer[end + 1 :]
            if self.discarding:  # the tail of an overlong line
                self.discarding = False
                continue
            out += self.command(line)
        if len(self.buffer) > protocol.MAX_LINE:
            self.buffer = b""
            if not self.discarding:
                self.discarding = True
                out.append(self._error("overflow", None, _OVERFLOW))
        return out

    # ------------------------------------------------------------ commands
    def command(self, line):
        """The reply lines to one complete line from the host (no newline)."""
        line = line.strip()
        if not line:
            return []
        if len(line) > protocol.MAX_LINE:
            return [self._error("overflow", None, _OVERFLOW)]
        ref = None
        try:
            verb, ref, fields = protocol.decode(line)
            handler = getattr(self, "_do_" + verb, None)
            if handler is None:
                raise LineError("unknown", "unknown command " + verb)
            return handler(ref, fields)
        except LineError as exc:
            return [self._error(exc.code, ref, exc.text)]
        except Exception as exc:  # a firmware bug must not stop the board
            return [self._error("internal", ref, f"{type(exc).__name__}: {exc}")]

    def _do_HELLO(self, ref, fields):
        if len(fields) != 2 or fields[0] != "tavola":
            raise LineError("syntax", "HELLO takes: tavola PROTOCOL")
        theirs = number(fields[1], protocol.MAX_SEQ)
        self.talking = theirs == protocol.PROTOCOL
        out = self._hello()
        if not self.talking:
            out.append(self._error(
                "version", ref, f"host speaks protocol {theirs}, this firmware "
                f"{self.firmware} speaks {protocol.PROTOCOL}"))
        return out

    def _do_SYNC(self, ref, fields):
        self._arity("SYNC", fields, 0)
        return [self._snap()] if self.talking else []

    def _do_STRIP(self, ref, fields):
        self._arity("STRIP", fields, 2)
        if self.make_strip is None:
            raise LineError("noleds", "this board drives no LEDs (config.py LED_PIN is None)")
        count = number(fields[0], MAX_LEDS)
        order = fields[1]
        bpp = len(order)
        if order not in ORDERS and order not in _rgbw():
            raise LineError("range", "colour order must be like GRB or GRBW, got " + order)
        self.strip = None
        self.colours = bytearray(3 * count)
        if count:
            strip = self.make_strip(count, bpp)
            # neopixel puts v[i] at byte ORDER[i] of each LED, v being (r, g, b[, w]).
            strip.ORDER = tuple(order.index(ch) for ch in "RGBW"[:bpp])
            self.strip = strip
            self._show()
        return []

    def _do_LED(self, ref, fields):
        self._arity("LED", fields, 2)
        self._need_strip()
        first = number(fields[0], MAX_LEDS)
        colours = unhex(fields[1])
        run = len(colours) // 3
        if len(colours) % 3 or not 1 <= run <= MAX_LED_RUN:
            raise LineError("syntax", f"LED takes 1..{MAX_LED_RUN} colours of 6 hex digits")
        if first + run > len(self.colours) // 3:
            raise LineError("range", f"LEDs {first}..{first + run - 1}: the strip has "
                            f"{len(self.colours) // 3}")
        self.colours[3 * first : 3 * (first + run)] = colours
        return []

    def _do_SHOW(self, ref, fields):
        self._arity("SHOW", fields, 0)
        self._need_strip()
        self._show()
        return []

    def _do_BRI(self, ref, fields):
        self._arity("BRI", fields, 1)
        self.brightness = number(fields[0], 255)
        if self.strip is not None:
            self._show()
        return []

    # ------------------------------------------------------------ lines out
    def _line(self, verb, fields):
        self.seq = 0 if self.seq >= protocol.MAX_SEQ else self.seq + 1
        return encode(verb, self.seq, fields)

    def _hello(self):
        self.seq = 0
        hello = encode("HELLO", 0, ["tavola", str(protocol.PROTOCOL), self.firmware,
                                    str(self.rows), str(self.columns),
                                    "1" if self.make_strip is not None else "0"])
        return [hello, self._snap()] if self.talking else [hello]

    def _snap(self):
        width = (self.columns + 3) // 4
        return self._line("SNAP", [_hex(bits, width) for bits in self.debouncer.settled])

    def _error(self, code, ref, text):
        text = text.replace("*", "x").replace("\n", " ")
        return self._line("ERR", [code, "-" if ref is None else str(ref), text])

    # ------------------------------------------------------------ LEDs
    def _arity(self, verb, fields, count):
        if len(fields) != count:
            raise LineError("syntax", f"{verb} takes {count} fields, got {len(fields)}")

    def _need_strip(self):
        if self.make_strip is None:
            raise LineError("noleds", "this board drives no LEDs (config.py LED_PIN is None)")
        if self.strip is None:
            raise LineError("state", "no strip set up: send STRIP first")

    def _show(self):
        strip, c, level = self.strip, self.colours, self.brightness
        white = (0,) if len(strip.ORDER) == 4 else ()
        for i in range(len(c) // 3):
            r, g, b = c[3 * i], c[3 * i + 1], c[3 * i + 2]
            if level != 255:
                r, g, b = r * level // 255, g * level // 255, b * level // 255
            strip[i] = (r, g, b) + white  # noqa: RUF005 (MicroPython has no *x in a tuple)
        strip.write()


def _hex(value, width):
    digits = f"{value:X}"
    return "0" * (width - len(digits)) + digits


def _rgbw():
    out = []
    for order in ORDERS:
        for at in range(4):
            out.append(order[:at] + "W" + order[at:])
    return out
