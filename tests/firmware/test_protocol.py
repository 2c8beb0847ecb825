"""firmware/protocol.py under the MicroPython unix port, checked against the host's
implementation (hardware/serial_protocol.py): both must speak exactly PROTOCOL.md."""

from __future__ import annotations

import random

from tavola.hardware import serial_protocol as host
from tests.firmware.unix_port import run


def test_crc16_check_value_and_agreement_with_the_host() -> None:
    rng = random.Random(7)
    samples = [b"123456789", b"", b"HELLO 0 tavola 2", b"X" * 250]
    samples += [bytes(rng.randrange(256) for _ in range(rng.randrange(1, 60))) for _ in range(40)]
    script = "import protocol\n" + "".join(
        f"print(protocol.crc16({s!r}))\n" for s in samples)
    assert run(script) == [str(host.crc16(s)) for s in samples]
    assert host.crc16(b"123456789") == 0x29B1


def test_the_firmware_encodes_lines_as_the_host_does() -> None:
    cases = [("HELLO", 0, ["tavola", "2", "0.2.0", "10", "5", "1"]), ("SYNC", 7, []),
             ("SNAP", 65535, ["1F", "00"]), ("ERR", 3, ["range", "4", "LEDs 56..59: no"])]
    script = "import protocol, sys\n" + "".join(
        f"sys.stdout.write(protocol.encode({v!r}, {s}, {f!r}))\n" for v, s, f in cases)
    assert run(script) == [host.encode(v, s, *f).decode().rstrip("\n") for v, s, f in cases]


def test_the_firmware_decodes_every_host_command() -> None:
    lines = [host.encode("HELLO", 0, "tavola", "1"), host.encode("SYNC", 12),
             host.encode("STRIP", 1, "58", "GRB"), host.encode("LED", 3, "0", "FF0000"),
             host.encode("SHOW", 4), host.encode("BRI", 65535, "77")]
    script = "import protocol\n" + "".join(
        f"print(protocol.decode({line.strip()!r}))\n" for line in lines)
    assert run(script) == [
        "('HELLO', 0, ['tavola', '1'])", "('SYNC', 12, [])", "('STRIP', 1, ['58', 'GRB'])",
        "('LED', 3, ['0', 'FF0000'])", "('SHOW', 4, [])", "('BRI', 65535, ['77'])",
    ]


def test_the_firmware_rejects_bad_lines_with_their_error_code() -> None:
    def ok(body: bytes) -> bytes:  # a right checksum on a wrong line
        return body + b"*%04X" % host.crc16(body)

    bad = [b"SYNC 6*D563", b"SYNC 6", b"SYNC 6*D56", b"SYNC 6*ZZZZ", ok(b"sync 6"), ok(b"SYNC"),
           ok(b"SYNC 70000"), b"\xff\x00garbage*1234", b"SYNC 6*5A"]
    script = (
        "import protocol\n"
        f"for line in {bad!r}:\n"
        "    try:\n"
        "        protocol.decode(line)\n"
        "        print('accepted')\n"
        "    except protocol.LineError as e:\n"
        "        print(e.code)\n"
    )
    assert run(script) == ["checksum", "syntax", "syntax", "syntax", "syntax", "syntax",
                           "syntax", "checksum", "syntax"]  # the last: a version 1 checksum


def test_the_firmware_accepts_a_carriage_return_and_lower_case_hex() -> None:
    line = host.encode("SYNC", 6).rstrip(b"\n").lower().replace(b"sync", b"SYNC") + b"\r"
    assert run(f"import protocol\nprint(protocol.decode({line!r}))") == ["('SYNC', 6, [])"]
