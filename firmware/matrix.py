"""The switch matrix: scanning it, and debouncing what the scans read.

Wiring (README.md): a reed switch and a diode in series at each crossing of a column line
and a row line. Columns are outputs, idle high; rows are inputs with pull-ups. Driving one
column low pulls down exactly the rows whose switch on that column is closed (the diodes
stop current flowing back through other closed switches, so there is no ghosting).

A reading is a list of row bitmasks: bit ``c`` of ``rows[r]`` is set when the switch at
row ``r``, column ``c`` is closed (a piece is there).
"""


class Matrix:
    """Scans ``rows`` (input pins, pulled up) by driving each of ``columns`` (output pins)
    low in turn. ``pause_us`` is called with the microseconds to wait for a column line to
    settle before its rows are read (``time.sleep_us`` on the Pico)."""

    def __init__(self, rows, columns, pause_us=None, settle_us=10):
        self.rows = rows
        self.columns = columns
        self.pause_us = pause_us
        self.settle_us = settle_us
        for column in columns:
            column.value(1)

    def scan(self):
        """One reading of the whole matrix (a new list of row bitmasks)."""
        bits = [0] * len(self.rows)
        for c, column in enumerate(self.columns):
            column.value(0)
            if self.pause_us is not None:
                self.pause_us(self.settle_us)
            mask = 1 << c
            for r, row in enumerate(self.rows):
                if not row.value():
                    bits[r] |= mask
            column.value(1)
        return bits


class Debouncer:
    """Turns raw readings into settled ones: a switch changes its settled state only after
    ``count`` consecutive readings agree on the new state (contact bounce and a piece
    dragged across a cell do not reach the host).

    Works a row at a time with bit operations: a switch reads closed in all of the last
    ``count`` scans when its bit is set in the AND of them, open when it is clear in the OR.
    """

    def __init__(self, rows, columns, count=4, start=None):
        if count < 1:
            raise ValueError("debounce count must be >= 1")
        self.rows = rows
        self.columns = columns
        self.count = count
        self.mask = (1 << columns) - 1
        self.settled = list(start) if start is not None else [0] * rows
        self._history = [list(self.settled) for _ in range(count)]
        self._next = 0

    def feed(self, raw):
        """Take one raw reading; return ``[(row, col, closed), ...]`` that settled now."""
        self._history[self._next] = raw
        self._next = (self._next + 1) % self.count
        changes = []
        for r in range(self.rows):
            ones = self.mask
            anys = 0
            for reading in self._history:
                ones &= reading[r]
                anys |= reading[r]
            old = self.settled[r]
            new = (old | ones) & anys  # all closed -> closed; all open -> open
            if new != old:
                self.settled[r] = new
                flipped = new ^ old
                for c in range(self.columns):
                    if flipped & (1 << c):
                        changes.append((r, c, bool(new & (1 << c))))
        return changes
