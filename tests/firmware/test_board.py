"""firmware/board.py under the MicroPython unix port: the board's half of PROTOCOL.md,
fed host bytes, matrix readings and the time, asserting the lines it sends. Each line it
sends is also decoded by the host's parser, so both sides agree on every message."""

from __future__ import annotations

from tavola.hardware import serial_protocol as host
from tavola.hardware.serial_protocol import BoardError, Change, Heartbeat, Hello, Message, Snap
from tests.firmware.unix_port import run

PRELUDE = """
import sys, neopixel
from board import Board
def out(lines):
    for line in lines:
        sys.stdout.write(line)
def strip(count, bpp):
    return neopixel.NeoPixel(None, count, bpp=bpp)
"""


def board(script: str, *, rows: int = 3, columns: int = 5, leds: bool = True,
          debounce: int = 2) -> list[Message]:
    """Run ``script`` after making ``b``, a Board; the messages it sent, decoded by the host."""
    make = (f"b = Board({rows}, {columns}, strip if {leds} else None, debounce={debounce})\n")
    lines = run(PRELUDE + make + script)
    return [host.decode(line.encode()) for line in lines]


def cmd(verb: str, seq: int, *fields: str) -> bytes:
    return host.encode(verb, seq, *fields)


def test_boot_says_hello_then_the_whole_matrix() -> None:
    sent = board("out(b.boot(0, [1, 0, 16]))")
    assert sent == [Hello(0, host.PROTOCOL_VERSION, "0.2.0", 3, 5, True), Snap(1, (1, 0, 16))]


def test_a_board_without_leds_says_so_in_its_hello() -> None:
    sent = board("out(b.boot(0))", leds=False)
    assert isinstance(sent[0], Hello) and not sent[0].leds


def test_changes_are_sent_once_debounced_with_consecutive_numbers() -> None:
    sent = board("""
out(b.boot(0))
out(b.scanned([1, 0, 0], 5))
out(b.scanned([1, 0, 0], 10))
out(b.scanned([0, 4, 0], 15))
out(b.scanned([0, 4, 0], 20))
""")
    assert sent[2:] == [Change(2, ((0, 0, True),)),
                        Change(3, ((0, 0, False), (1, 2, True)))]


def test_bounce_shorter_than_the_debounce_is_never_sent() -> None:
    sent = board("out(b.boot(0))\nfor raw in ([1,0,0], [0,0,0]) * 5:\n    out(b.scanned(raw, 0))")
    assert len(sent) == 2


def test_more_than_24_cells_at_once_come_as_a_snapshot() -> None:
    sent = board("out(b.boot(0))\nout(b.scanned([31]*5, 1))\nout(b.scanned([31]*5, 2))",
                 rows=5, columns=5)
    assert sent[2:] == [Snap(2, (31,) * 5)]


def test_a_heartbeat_every_second_even_when_the_tick_counter_wraps() -> None:
    sent = board("""
import time
period = time.ticks_add(0, -1) + 1
start = period - 400
b.boot(start)
out(b.tick(time.ticks_add(start, 999)))
out(b.tick(time.ticks_add(start, 1000)))
out(b.tick(time.ticks_add(start, 2500)))
""")
    assert [type(m) for m in sent] == [Heartbeat, Heartbeat]
    assert isinstance(sent[1], Heartbeat) and sent[1].uptime == 2


def test_hello_restarts_the_numbering_and_sync_sends_the_matrix() -> None:
    script = f"""
out(b.boot(0, [0, 2, 0]))
b.scanned([0, 2, 0], 1)
out(b.tick(1000))
out(b.received({cmd("HELLO", 0, "tavola", "2")!r}, 1001))
out(b.received({cmd("SYNC", 1)!r}, 1002))
"""
    sent = board(script)
    assert [m.seq for m in sent] == [0, 1, 2, 0, 1, 2]
    assert sent[3:] == [Hello(0, 2, "0.2.0", 3, 5, True), Snap(1, (0, 2, 0)),
                        Snap(2, (0, 2, 0))]


def test_a_host_with_another_version_gets_an_error_and_no_more_readings() -> None:
    script = f"""
b.boot(0)
out(b.received({cmd("HELLO", 0, "tavola", "3")!r}, 1))
out(b.scanned([1, 0, 0], 2))
out(b.scanned([1, 0, 0], 3))
out(b.received({cmd("SYNC", 1)!r}, 4))
out(b.tick(2000))
out(b.received({cmd("HELLO", 0, "tavola", "2")!r}, 2001))
"""
    sent = board(script)
    assert isinstance(sent[1], BoardError) and sent[1].code == "version" and sent[1].ref == 0
    assert "protocol 3" in sent[1].text and "speaks 2" in sent[1].text
    assert isinstance(sent[2], Heartbeat)
    assert sent[3:] == [Hello(0, 2, "0.2.0", 3, 5, True), Snap(1, (1, 0, 0))]


def test_bad_host_lines_get_an_error_and_the_board_carries_on() -> None:
    good = cmd("SYNC", 9)
    script = f"""
b.boot(0)
out(b.received(b"SYNC 9*0000\\n", 1))
out(b.received(b"\\x00\\xffnoise\\n", 1))
out(b.received({cmd("DANCE", 4)!r}, 1))
out(b.received({cmd("SYNC", 5, "now")!r}, 1))
out(b.received(b"X" * 300 + b"\\n", 1))
out(b.received(b"\\r\\n\\n", 1))
out(b.received({good[:4]!r}, 1))
out(b.received({good[4:]!r}, 1))
"""
    sent = board(script)
    errors = [(m.code, m.ref) for m in sent if isinstance(m, BoardError)]
    assert errors == [("checksum", None), ("syntax", None), ("unknown", 4), ("syntax", 5),
                      ("overflow", None)]
    assert isinstance(sent[-1], Snap)  # the SYNC split across two reads still works


def test_an_overlong_line_split_across_reads_is_one_overflow() -> None:
    script = f"""
b.boot(0)
for _ in range(4):
    out(b.received(b"Y" * 100, 1))
out(b.received(b"Y\\n" + {cmd("SYNC", 1)!r}, 1))
"""
    sent = board(script)
    assert [type(m) for m in sent] == [BoardError, Snap]


LEDS = """
b.boot(0)
def send(*lines):
    out(b.received(b"".join(lines), 1))
    print("strip", neopixel.shown[-1].hex() if neopixel.shown else None)
"""


def leds(*lines: bytes, leds_on: bool = True) -> list[str]:
    calls = "".join(f"send({line!r})\n" for line in lines)
    return run(PRELUDE + f"b = Board(1, 1, strip if {leds_on} else None)\n" + LEDS + calls)


def test_strip_led_and_show_light_the_strip_in_its_colour_order() -> None:
    out = leds(cmd("STRIP", 1, "3", "GRB"), cmd("LED", 2, "1", "FF8000" "0000FF"),
               cmd("SHOW", 3))
    assert out[-3:] == ["strip 000000000000000000",  # STRIP shows the strip dark
                        "strip 000000000000000000",  # LED alone shows nothing new
                        "strip 000000" "80ff00" "0000ff"]  # GRB on the wire


def test_brightness_scales_the_colours_at_once() -> None:
    out = leds(cmd("STRIP", 1, "1", "RGB"), cmd("LED", 2, "0", "FF8040"), cmd("SHOW", 3),
               cmd("BRI", 4, "51"))
    assert out[-1] == "strip 33190c"  # 255, 128, 64 at 51/255, rounded down


def test_an_rgbw_strip_gets_white_zero() -> None:
    out = leds(cmd("STRIP", 1, "2", "GRBW"), cmd("LED", 2, "0", "FF0000" "00FF00"),
               cmd("SHOW", 3))
    assert out[-1] == "strip 00ff0000" "ff000000"


def test_led_commands_out_of_turn_or_out_of_range_are_errors() -> None:
    out = leds(cmd("LED", 1, "0", "FF0000"), cmd("STRIP", 2, "2", "XYZ"),
               cmd("STRIP", 3, "2", "GRB"), cmd("LED", 4, "1", "FF0000" "FF0000"),
               cmd("LED", 5, "0", "FF00"), cmd("BRI", 6, "256"), cmd("STRIP", 7, "5000", "GRB"),
               cmd("LED", 8, "0", "GG0000"))
    codes = [host.decode(line.encode()) for line in out if not line.startswith("strip")]
    assert [(m.code, m.ref) for m in codes if isinstance(m, BoardError)] == [
        ("state", 1), ("range", 2), ("range", 4), ("syntax", 5), ("range", 6), ("range", 7),
        ("syntax", 8)]  # the refused STRIP 5000 left the 2-LED strip in place


def test_a_board_without_leds_answers_noleds() -> None:
    out = leds(cmd("STRIP", 1, "3", "GRB"), cmd("SHOW", 2), leds_on=False)
    errors = [host.decode(line.encode()) for line in out if not line.startswith("strip")]
    assert [m.code for m in errors if isinstance(m, BoardError)] == ["noleds", "noleds"]


def test_a_firmware_bug_in_a_command_is_an_internal_error_not_a_crash() -> None:
    script = f"""
def broken(count, bpp):
    raise OSError("pin in use")
b = Board(1, 1, broken)
b.boot(0)
out(b.received({cmd("STRIP", 1, "3", "GRB")!r}, 1))
out(b.received({cmd("SYNC", 2)!r}, 1))
"""
    sent = [host.decode(line.encode()) for line in run(PRELUDE + script)]
    assert isinstance(sent[0], BoardError) and sent[0].code == "internal"
    assert "pin in use" in sent[0].text
    assert isinstance(sent[1], Snap)
