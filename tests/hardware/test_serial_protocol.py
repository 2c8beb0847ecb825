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
    crc16,
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
def test_crc16_is_crc16_ibm_3740() -> None:
    assert crc16(b"123456789") == 0x29B1
    assert crc16(b"") == 0xFFFF


def test_crc16_catches_every_error_of_up_to_three_bits_in_a_change_line() -> None:
    # The damage CRC-8 let through (1 in 256 random damages, some of them single digits).
    body = b"CHG 4 +1,2 -3,0"
    good = crc16(body)
    n = len(body) * 8
    flips = [(i,) for i in range(n)] + [(i, j) for i in range(n) for j in range(i + 1, n)]
    for bits in flips:
        damaged = bytearray(body)
        for bit in bits:
            damaged[bit // 8] ^= 1 << (bit % 8)
        assert crc16(bytes(damaged)) != good, bits


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (b"HELLO 0 tavola 2 0.2.0 10 5 1*4C45", Hello(0, 2, "0.2.0", 10, 5, True)),
        (b"SNAP 1 1F 1F 00 00 1F 1F 1F 1F 1F 1F*F425", Snap(1, (31, 31, 0, 0, 31, 31, 31, 31,
                                                              31, 31))),
        (b"CHG 4 +1,2 -3,0*FB06", Change(4, ((1, 2, True), (3, 0, False)))),
        (b"HB 5 12 200*D4A0", Heartbeat(5, 12, 200)),
        (b"ERR 6 range 7 LEDs 56..59: the strip has 58*8932",
         BoardError(6, "range", 7, "LEDs 56..59: the strip has 58")),
        (b"ERR 7 checksum - checksum mismatch: line says 0000, body gives 2D2D*B6C2",
         BoardError(7, "checksum", None, "checksum mismatch: line says 0000, body gives 2D2D")),
        (b"HB 5 12 200*d4a0", Heartbeat(5, 12, 200)),  # lower-case checksum
        (b"HB 5 12 200*D4A0\r", Heartbeat(5, 12, 200)),  # MicroPython's \r\n
        (line("DANCE", 9, "twice"), Unknown(9, "DANCE", ("twice",))),
        (line("HB", 65535, "9999999", "0"), Heartbeat(65535, 9999999, 0)),  # 115 days up
    ],
)
def test_good_lines(raw: bytes, message: object) -> None:
    assert decode(raw) == message


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        (b"HB 5 12 200*D4A1", "checksum"),  # one bit off
        (b"HB 5 13 200*D4A0", "checksum"),  # a digit changed on the way
        (b"HB 5 12 200", "syntax"),  # no checksum
        (b"HB 5 12 2", "syntax"),  # truncated
        (b"SNAP 1 1F 1F 00 00 1F 1F*", "syntax"),  # truncated in the checksum
        (b"HB 5 12 200*D4A", "syntax"),
        (b"HB 5 12 200*A0", "syntax"),  # a version 1 checksum
        (b"HB 5 12 200*XY", "syntax"),
        (b"\x00\xff\x13garbage*0000", "checksum"),
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
        (b"HB  5 12 200*" + b"%04X" % crc16(b"HB  5 12 200"), "syntax"),  # two spaces
        (b"HB 5 \xe9 200*" + b"%04X" % crc16(b"HB 5 \xe9 200"), "syntax"),  # not ASCII
        (b"X" * (MAX_LINE + 1), "overflow"),
    ],
)
def test_bad_lines(raw: bytes, reason: str) -> None:
    with pytest.raises(LineError) as caught:
        decode(raw)
    assert caught.value.reason == reason


def test_encode_formats_the_checksum_in_upper_case_hex() -> None:
    assert encode("SHOW", 5) == b"SHOW 5*A21D\n"
    assert encode("LED", 3, "0", "FF0000FF0000000000") == b"LED 3 0 FF0000FF0000000000*C4EB\n"


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
            assert int(given, 16) == crc16(body), raw
        else:  # host!: damaged on purpose
            with pytest.raises(LineError):
                decode(raw)


# ------------------------------------------------------------------ splitting
def test_lines_split_across_reads_come_out_whole() -> None:
    s = LineSplitter()
    assert s.feed(b"HB 5 1") == []
    assert s.feed(b"2 200*D4A0\r\n\nSYNC") == [b"HB 5 12 200*D4A0\r"]
    assert s.feed(b" 6*D562\n") == [b"SYNC 6*D562"]


def test_an_overlong_line_is_cut_short_and_the_next_line_survives() -> None:
    s = LineSplitter()
    out = [*s.feed(b"Z" * 400), *s.feed(b"Z" * 400 + b"\nHB 5 12 200*D4A0\n")]
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
    assert sent(c.start(0.0)) == [b"HELLO 0 tavola 2"]
    assert not c.live
    step = c.receive(HELLO, 0.1)
    assert step.hello == Hello(0, 2, "0.1.0", 3, 4, True) and c.live
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
    step = c.receive(b"CHG 2 +0,1*0000", 1.0)
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
    steps = [c.receive(b"HB 9 1 1*0000", 1.0 + i * 0.1) for i in range(STORM_LINES)]
    assert all(s.fault is None for s in steps[:-1])
    assert steps[-1].hang_up and steps[-1].fault is not None
    assert steps[-1].fault.startswith(f"the line from the board on {PORT} is garbled")


def test_bad_lines_spread_out_are_no_storm() -> None:
    c = connected()
    for i in range(3 * STORM_LINES):
        c.receive(line("HB", 2 + i, "1", "1"), i * 1.0)  # keep the heartbeat going
        assert c.receive(b"HB 9 1 1*0000", i * 1.0).fault is None


def test_a_missing_heartbeat_is_a_fault_that_says_what_to_check() -> None:
    c = connected(now=10.0)
    c.receive(line("HB", 2, "1", "200"), 11.0)
    assert c.deadline == 14.0
    assert c.check(13.9) == Step()
    step = c.check(14.0)
    assert step.fault == f"no heartbeat from the board on {PORT} for 3 s: check the USB cable"
    assert step.hang_up and not c.live


def test_heartbeats_without_an_answer_to_sync_are_a_fault_and_sync_goes_on() -> None:
    # The board's line from the host is lost: its heartbeats come, its SNAP never does.
    c = connected()
    c.receive(line("HB", 3, "1", "200"), 1.0)  # HB 2 lost: SYNC 1 goes out
    seq, t, syncs = 4, 1.0, 1
    faults: list[tuple[float, Step]] = []
    while t < 10.0:
        t = round(t + 0.25, 2)
        steps = [c.check(t)]
        if t % 1.0 == 0:  # the board's heartbeat, every second
            steps.append(c.receive(line("HB", seq, str(int(t)), "200"), t))
            seq += 1
        for step in steps:
            syncs += len([s for s in sent(step) if s.startswith(b"SYNC")])
            faults += [(t, step)] if step.fault is not None else []
        assert c.deadline is not None and c.deadline > t  # never a busy loop
    ((when, fault),) = faults  # reported once, when heartbeat_timeout has passed
    assert when == 4.0 and not fault.hang_up and fault.fault is not None
    assert "has not answered a request for its matrix for 3 s" in fault.fault
    assert syncs >= 8 and c.live  # asked again every second, heartbeats still trusted
    step = c.receive(line("SNAP", seq, "1", "0", "8"), 10.1)
    assert step.reading == (1, 0, 8) and c.state == "live"  # the fault ends with a reading
    assert c.check(10.2).fault is None


def test_the_copy_of_the_matrix_is_checked_every_snapshot_interval() -> None:
    c = Conversation(PORT, heartbeat_timeout=3.0, need=(3, 4), snapshot_interval=10.0)
    c.start(0.0)
    c.receive(HELLO, 0.0)
    c.receive(line("SNAP", 1, "1", "0", "8"), 0.0)
    seq = 2
    for t in range(1, 10):  # heartbeats keep the board alive; no SYNC yet
        step = c.receive(line("HB", seq, str(t), "200"), float(t))
        seq += 1
        assert c.check(float(t)).send == () and step.send == ()
    assert c.deadline == 10.0
    assert sent(c.check(10.0)) == [b"SYNC 1"]
    # A CHG damaged in a way no check caught said +0,1 where the board had +0,2.
    c.receive(line("CHG", seq, "+0,1"), 10.05)
    step = c.receive(line("SNAP", seq + 1, "5", "0", "8"), 10.1)
    assert step.reading == (5, 0, 8) and "differed" in step.log[0]
    assert c.deadline == 13.1  # the heartbeat; the next check is due at 20.1
    for n, beat in enumerate((13.0, 16.0, 19.0)):
        assert c.receive(line("HB", seq + 2 + n, str(int(beat)), "200"), beat) == Step()
    assert c.deadline == 20.1
    assert sent(c.check(20.1)) == [b"SYNC 2"]
    # The same matrix: nothing to report, nothing to log.
    assert c.receive(line("SNAP", seq + 5, "5", "0", "8"), 20.2) == Step()


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
    step = c.receive(line("HELLO", 0, "tavola", str(PROTOCOL_VERSION), "0.2.0", "8", "8", "1"), 0.1)
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
