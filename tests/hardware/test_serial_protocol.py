"""The host's pure protocol code: lines from byte fixtures (good, damaged, truncated,
garbage), the examples of PROTOCOL.md, and the Conversation under virtual time."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tavola.hardware.serial_protocol import (
    MAX_LINE,
    PROTOCOL_VERSION,
    STORM_LINES,
    SYNC_RETRY,
    BoardError,
    Change,
    Conversation,
    Heartbeat,
    Hello,
    LineError,
    LineSplitter,
    Snap,
    Step,
    Unknown,
    crc8,
    decode,
    encode,
    led_lines,
)

PROTOCOL_MD = Path(__file__).resolve().parents[2] / "firmware" / "PROTOCOL.md"
PORT = "/dev/ttyACM0"


def line(verb: str, seq: int, *fields: str) -> bytes:
    """A board line without its newline."""
    return encode(verb, seq, *fields).rstrip(b"\n")


# ------------------------------------------------------------------ lines
def test_crc8_is_crc8_smbus() -> None:
    assert crc8(b"123456789") == 0xF4
    assert crc8(b"") == 0


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (b"HELLO 0 tavola 1 0.1.0 10 5 1*D4", Hello(0, 1, "0.1.0", 10, 5, True)),
        (b"SNAP 1 1F 1F 00 00 1F 1F 1F 1F 1F 1F*9F", Snap(1, (31, 31, 0, 0, 31, 31, 31, 31,
                                                              31, 31))),
        (b"CHG 4 +1,2 -3,0*49", Change(4, ((1, 2, True), (3, 0, False)))),
        (b"HB 5 12 200*9F", Heartbeat(5, 12, 200)),
        (b"ERR 6 range 7 LEDs 56..59: the strip has 58*82",
         BoardError(6, "range", 7, "LEDs 56..59: the strip has 58")),
        (b"ERR 7 checksum - checksum mismatch: line says 00, body gives 2D*51",
         BoardError(7, "checksum", None, "checksum mismatch: line says 00, body gives 2D")),
        (b"HB 5 12 200*9f", Heartbeat(5, 12, 200)),  # lower-case checksum
        (b"HB 5 12 200*9F\r", Heartbeat(5, 12, 200)),  # MicroPython's \r\n
        (line("DANCE", 9, "twice"), Unknown(9, "DANCE", ("twice",))),
        (line("HB", 65535, "9999999", "0"), Heartbeat(65535, 9999999, 0)),  # 115 days up
    ],
)
def test_good_lines(raw: bytes, message: object) -> None:
    assert decode(raw) == message


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        (b"HB 5 12 200*9E", "checksum"),  # one bit off
        (b"HB 5 13 200*9F", "checksum"),  # a digit changed on the way
        (b"HB 5 12 200", "syntax"),  # no checksum
        (b"HB 5 12 2", "syntax"),  # truncated
        (b"SNAP 1 1F 1F 00 00 1F 1F*", "syntax"),  # truncated in the checksum
        (b"HB 5 12 200*9", "syntax"),
        (b"HB 5 12 200*XY", "syntax"),
        (b"\x00\xff\x13garbage*00", "checksum"),
        (b"*", "syntax"),
        (line("hb", 5, "12", "200"), "syntax"),  # lower-case verb
        (line("HB", 70000, "1", "1"), "syntax"),  # sequence number out of range
        (line("HB", 5, "1"), "syntax"),  # a field missing
        (line("HB", 5, "1", "x"), "syntax"),
        (line("HELLO", 0, "arduino", "1", "0.1", "10", "5", "1"), "syntax"),
        (line("HELLO", 0, "tavola", "1", "0.1", "17", "5", "1"), "syntax"),  # 17 rows
        (line("SNAP", 1, "1G"), "syntax"),
        (line("CHG", 3), "syntax"),
        (line("CHG", 3, "*1,2"), "syntax"),
        (line("CHG", 3, "+1;2"), "syntax"),
        (line("ERR", 3, "range"), "syntax"),
        (b"HB  5 12 200*" + b"%02X" % crc8(b"HB  5 12 200"), "syntax"),  # two spaces
        (b"HB 5 \xe9 200*" + b"%02X" % crc8(b"HB 5 \xe9 200"), "syntax"),  # not ASCII
        (b"X" * (MAX_LINE + 1), "overflow"),
    ],
)
def test_bad_lines(raw: bytes, reason: str) -> None:
    with pytest.raises(LineError) as caught:
        decode(raw)
    assert caught.value.reason == reason


def test_encode_formats_the_checksum_in_upper_case_hex() -> None:
    assert encode("SHOW", 5) == b"SHOW 5*1C\n"
    assert encode("LED", 3, "0", "FF0000FF0000000000") == b"LED 3 0 FF0000FF0000000000*02\n"


def examples() -> list[tuple[str, bytes]]:
    """Every example line in PROTOCOL.md: (who, line)."""
    text = PROTOCOL_MD.read_text(encoding="utf-8")
    blocks = re.findall(r"```\n(.*?)```", text, flags=re.S)
    found = re.findall(r"^(host!?|board) +(.+)$", "".join(blocks), flags=re.M)
    return [(who, raw.encode("ascii")) for who, raw in found]


def test_every_example_in_protocol_md_checks_out() -> None:
    found = examples()
    assert len(found) > 20
    for who, raw in found:
        if who == "board":
            decode(raw)  # parses, checksum and all
        elif who == "host":
            body, _, given = raw.rpartition(b"*")
            assert int(given, 16) == crc8(body), raw
        else:  # host!: damaged on purpose
            with pytest.raises(LineError):
                decode(raw)


# ------------------------------------------------------------------ splitting
def test_lines_split_across_reads_come_out_whole() -> None:
    s = LineSplitter()
    assert s.feed(b"HB 5 1") == []
    assert s.feed(b"2 200*9F\r\n\nSYNC") == [b"HB 5 12 200*9F\r"]
    assert s.feed(b" 6*5A\n") == [b"SYNC 6*5A"]


def test_an_overlong_line_is_cut_short_and_the_next_line_survives() -> None:
    s = LineSplitter()
    out = [*s.feed(b"Z" * 400), *s.feed(b"Z" * 400 + b"\nHB 5 12 200*9F\n")]
    assert len(out) == 2 and len(out[0]) == MAX_LINE + 1
    with pytest.raises(LineError, match="longer"):
        decode(out[0])
    assert decode(out[1]) == Heartbeat(5, 12, 200)


# ------------------------------------------------------------------ LED frames
def test_a_whole_frame_goes_in_runs_of_32() -> None:
    frame = [(i, 0, 0) for i in range(70)]
    runs = led_lines(frame, None)
    assert [first for first, _ in runs] == [0, 32, 64]
    assert [len(colours) // 6 for _, colours in runs] == [32, 32, 6]
    assert runs[2][1].startswith("400000")  # LED 64: red 0x40


def test_only_the_changed_leds_go_again() -> None:
    before = [(0, 0, 0)] * 70
    after = list(before)
    after[3], after[5], after[40] = (255, 0, 0), (0, 0, 255), (1, 2, 3)
    assert led_lines(after, before) == [(3, "FF0000" "000000" "0000FF"), (40, "010203")]
    assert led_lines(after, after) == []


# ------------------------------------------------------------------ the conversation
HELLO = line("HELLO", 0, "tavola", str(PROTOCOL_VERSION), "0.1.0", "3", "4", "1")


def connected(now: float = 0.0, rows: tuple[int, ...] = (1, 0, 8)) -> Conversation:
    """A conversation past its handshake and first snapshot."""
    c = Conversation(PORT, heartbeat_timeout=3.0, need=(3, 4))
    c.start(now)
    c.receive(HELLO, now)
    step = c.receive(line("SNAP", 1, *(f"{r:X}" for r in rows)), now)
    assert step.reading == rows
    return c


def sent(step: Step) -> list[bytes]:
    return [s.split(b"*")[0] for s in step.send]


def test_start_says_hello_and_the_first_snapshot_is_reported() -> None:
    c = Conversation(PORT, need=(3, 4))
    assert sent(c.start(0.0)) == [b"HELLO 0 tavola 1"]
    assert not c.live
    step = c.receive(HELLO, 0.1)
    assert step.hello == Hello(0, 1, "0.1.0", 3, 4, True) and c.live
    assert c.receive(line("SNAP", 1, "1", "0", "8"), 0.2).reading == (1, 0, 8)


def test_lines_before_the_hello_reply_are_ignored() -> None:
    c = Conversation(PORT, need=(3, 4))
    c.start(0.0)
    assert c.receive(line("CHG", 41, "+0,0"), 0.1) == Step()
    assert c.receive(line("HB", 42, "9", "200"), 0.2) == Step()


def test_changes_update_the_matrix() -> None:
    c = connected()
    assert c.receive(line("CHG", 2, "-0,0", "+2,1"), 1.0).reading == (0, 0, 10)
    assert c.receive(line("CHG", 3, "+1,3"), 1.1).reading == (0, 8, 10)
    assert c.receive(line("HB", 4, "1", "200"), 1.2).reading is None


def test_a_lost_line_asks_for_a_snapshot_and_ignores_changes_until_it_comes() -> None:
    c = connected()
    step = c.receive(line("CHG", 3, "+1,1"), 1.0)  # CHG 2 was lost
    assert sent(step) == [b"SYNC 1"] and step.reading is None
    assert "lost 1 line" in step.log[0]
    assert c.receive(line("CHG", 4, "+1,2"), 1.1).reading is None
    step = c.receive(line("SNAP", 5, "1", "6", "8"), 1.2)
    assert step.reading == (1, 6, 8) and c.state == "live"


def test_a_resync_reports_the_snapshot_even_when_nothing_changed() -> None:
    c = connected()
    c.receive(line("HB", 3, "1", "200"), 1.0)  # 2 lost
    assert c.receive(line("SNAP", 4, "1", "0", "8"), 1.1).reading == (1, 0, 8)


def test_request_snapshot_forces_a_report() -> None:
    c = connected()
    assert sent(c.request_snapshot(1.0)) == [b"SYNC 1"]
    assert c.receive(line("SNAP", 2, "1", "0", "8"), 1.1).reading == (1, 0, 8)
    assert c.receive(line("SNAP", 3, "1", "0", "8"), 1.2).reading is None


def test_sequence_numbers_wrap_without_a_gap() -> None:
    c = connected()
    c._expect = 65535
    assert c.receive(line("HB", 65535, "1", "200"), 1.0).send == ()
    assert c.receive(line("HB", 0, "1", "200"), 1.1).send == ()


def test_a_bad_line_is_logged_and_a_snapshot_requested_once() -> None:
    c = connected()
    step = c.receive(b"CHG 2 +0,1*00", 1.0)
    assert sent(step) == [b"SYNC 1"] and "checksum" in step.log[0] and step.fault is None
    step = c.receive(b"\x00garbage\xff", 1.1)
    assert step.send == () and step.log  # a SYNC is on its way already
    assert sent(c.check(1.0 + SYNC_RETRY)) == [b"SYNC 2"]  # unanswered: again


def test_a_change_outside_the_matrix_is_a_bad_line() -> None:
    c = connected()
    step = c.receive(line("CHG", 2, "+3,0"), 1.0)
    assert "outside the matrix" in step.log[0] and sent(step) == [b"SYNC 1"]


def test_a_storm_of_bad_lines_is_a_fault() -> None:
    c = connected()
    steps = [c.receive(b"HB 9 1 1*00", 1.0 + i * 0.1) for i in range(STORM_LINES)]
    assert all(s.fault is None for s in steps[:-1])
    assert steps[-1].hang_up and steps[-1].fault is not None
    assert steps[-1].fault.startswith(f"the line from the board on {PORT} is garbled")


def test_bad_lines_spread_out_are_no_storm() -> None:
    c = connected()
    for i in range(3 * STORM_LINES):
        c.receive(line("HB", 2 + i, "1", "1"), i * 1.0)  # keep the heartbeat going
        assert c.receive(b"HB 9 1 1*00", i * 1.0).fault is None


def test_a_missing_heartbeat_is_a_fault_that_says_what_to_check() -> None:
    c = connected(now=10.0)
    c.receive(line("HB", 2, "1", "200"), 11.0)
    assert c.deadline == 14.0
    assert c.check(13.9) == Step()
    step = c.check(14.0)
    assert step.fault == f"no heartbeat from the board on {PORT} for 3 s: check the USB cable"
    assert step.hang_up and not c.live


def test_the_last_board_error_is_named_in_the_heartbeat_fault() -> None:
    c = connected()
    step = c.receive(line("ERR", 2, "internal", "-", "firmware stopped: OSError: EIO"), 1.0)
    assert step.log == (f"the board on {PORT} answered: internal: firmware stopped: "
                        "OSError: EIO",)
    fault = c.check(4.0).fault
    assert fault is not None and "its last error: firmware stopped" in fault


def test_no_answer_to_hello_is_a_fault() -> None:
    c = Conversation(PORT, heartbeat_timeout=2.0)
    c.start(0.0)
    assert c.deadline == 2.0
    step = c.check(2.0)
    assert step.hang_up and step.fault is not None
    assert "does not answer" in step.fault and "make firmware" in step.fault


@pytest.mark.parametrize(
    ("theirs", "fix"), [(PROTOCOL_VERSION + 1, "update tavola"), (0, "make firmware")]
)
def test_a_version_mismatch_names_both_versions_and_the_fix(theirs: int, fix: str) -> None:
    c = Conversation(PORT)
    c.start(0.0)
    step = c.receive(line("HELLO", 0, "tavola", str(theirs), "9.9.9", "8", "8", "1"), 0.1)
    assert step.hang_up and step.fault is not None
    assert f"speaks protocol {theirs}" in step.fault
    assert f"this tavola speaks protocol {PROTOCOL_VERSION}" in step.fault
    assert "9.9.9" in step.fault and fix in step.fault


def test_a_matrix_smaller_than_the_layout_is_a_fault() -> None:
    c = Conversation(PORT, need=(10, 5))
    c.start(0.0)
    step = c.receive(line("HELLO", 0, "tavola", "1", "0.1.0", "8", "8", "1"), 0.1)
    assert step.fault is not None and "needs a 10x5" in step.fault and "scans 8x8" in step.fault


def test_a_board_that_restarts_is_resynchronised() -> None:
    c = connected()
    step = c.receive(HELLO, 5.0)
    assert step.hello is not None and step.fault is None  # the LEDs go again
    assert c.receive(line("CHG", 1, "+1,1"), 5.1).reading is None  # not before the SNAP
    assert c.receive(line("SNAP", 1, "1", "0", "8"), 5.2).reading is None  # unchanged
    c.receive(HELLO, 6.0)
    assert c.receive(line("SNAP", 1, "1", "2", "8"), 6.1).reading == (1, 2, 8)


def test_host_commands_are_numbered_from_the_hello() -> None:
    c = connected()
    assert c.command("STRIP", "58", "GRB") == encode("STRIP", 1, "58", "GRB")
    assert c.command("SHOW") == encode("SHOW", 2)
    c.start(9.0)
    assert c.command("SHOW") == encode("SHOW", 1)  # HELLO took 0
