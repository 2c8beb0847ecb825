"""firmware/matrix.py under the MicroPython unix port: scanning the stub's switch matrix,
and the debouncer's N-consecutive-reads rule."""

from __future__ import annotations

from tests.firmware.unix_port import run

SETUP = """
import machine
from machine import Pin
from matrix import Matrix, Debouncer
ROWS = (12, 13, 14)
COLS = (2, 3, 4, 5)
rows = [Pin(n, Pin.IN, Pin.PULL_UP) for n in ROWS]
cols = [Pin(n, Pin.OUT, value=1) for n in COLS]
m = Matrix(rows, cols)
"""


def test_an_open_matrix_reads_all_zero() -> None:
    assert run(SETUP + "print(m.scan())") == ["[0, 0, 0]"]


def test_each_closed_switch_sets_its_row_bit_and_nothing_else() -> None:
    script = SETUP + """
machine.press(12, 2)   # row 0, column 0
machine.press(13, 5)   # row 1, column 3
machine.press(14, 5)   # row 2, column 3: same column, no ghost on row 0
machine.press(14, 3)   # row 2, column 1
print(m.scan())
machine.release(13, 5)
print(m.scan())
"""
    assert run(script) == ["[1, 8, 10]", "[1, 0, 10]"]


def test_the_scan_leaves_every_column_high() -> None:
    script = SETUP + "machine.press(12, 3)\nm.scan()\nprint([c.value() for c in cols])"
    assert run(script) == ["[1, 1, 1, 1]"]


DEBOUNCE = """
from matrix import Debouncer
d = Debouncer(2, 3, count=3)
def feed(*readings):
    for raw in readings:
        print(d.feed(list(raw)), d.settled)
"""


def test_a_change_settles_after_count_equal_readings() -> None:
    out = run(DEBOUNCE + "feed((1, 0), (1, 0), (1, 0), (1, 0))")
    assert out == ["[] [0, 0]", "[] [0, 0]", "[(0, 0, True)] [1, 0]", "[] [1, 0]"]


def test_contact_bounce_never_settles() -> None:
    out = run(DEBOUNCE + "feed((1, 0), (0, 0), (1, 0), (1, 0), (0, 0), (1, 0))")
    assert all(line.endswith("[0, 0]") for line in out)


def test_several_cells_settle_in_one_reading_and_release_too() -> None:
    out = run(DEBOUNCE + "feed((5, 2), (5, 2), (5, 2), (4, 2), (4, 2), (4, 2))")
    assert out[2] == "[(0, 0, True), (0, 2, True), (1, 1, True)] [5, 2]"
    assert out[5] == "[(0, 0, False)] [4, 2]"


def test_a_debouncer_can_start_from_a_trusted_reading() -> None:
    script = "from matrix import Debouncer\nd = Debouncer(1, 2, 4, [3])\n"
    script += "print(d.feed([3]), d.settled)"
    assert run(script) == ["[] [3]"]
