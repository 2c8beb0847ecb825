"""The board's side of the line protocol (PROTOCOL.md): checksum, encoding and decoding.

MicroPython (the Pico, or the unix port in the tests); plain Python with no typing so that
the same file runs there. The host has its own implementation in hardware/serial_protocol.py;
the tests run both against each other.
"""

import binascii
from array import array

PROTOCOL = 2  # the protocol version this firmware speaks (PROTOCOL.md): 2 has CRC-16
MAX_LINE = 250  # bytes before the newline, checksum included
MAX_SEQ = 65535


def _table():
    # CRC-16/IBM-3740 (CCITT-FALSE): polynomial 0x1021, initial value 0xFFFF, no
    # reflection, no final XOR. A table of 256 16-bit words: 512 bytes of the Pico's RAM
    # for a checksum over a whole line in well under a millisecond.
    table = array("H", bytes(512))
    for i in range(256):
        crc = i << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) & 0xFFFF if crc & 0x8000 else (crc << 1) & 0xFFFF
        table[i] = crc
    return table


_CRC = _table()


def crc16(data):
    """CRC-16/IBM-3740 of ``data`` (bytes); crc16(b"123456789") == 0x29B1."""
    crc = 0xFFFF
    table = _CRC
    for byte in data:
        crc = ((crc << 8) & 0xFFFF) ^ table[(crc >> 8) ^ byte]
    return crc


def encode(verb, seq, fields=()):
    """The line (str, newline included) for ``verb`` with sequence number ``seq``."""
    body = verb + " " + str(seq)
    if fields:
        body += " " + " ".join(fields)
    return f"{body}*{crc16(body.encode()):04X}\n"


class LineError(Exception):
    """A line that cannot be used; ``code`` is the ERR code (PROTOCOL.md)."""

    def __init__(self, code, text):
        super().__init__(text)
        self.code = code
        self.text = text


def decode(line):
    """``(verb, seq, fields)`` of one received line (bytes, without its newline).

    Raises :class:`LineError` with code ``checksum`` or ``syntax``. ``seq`` is None when
    the line names none that can be trusted.
    """
    if line.endswith(b"\r"):
        line = line[:-1]
    star = line.rfind(b"*")
    if star < 0 or len(line) - star != 5:
        raise LineError("syntax", "the line does not end in a checksum")
    body = line[:star]
    try:
        given = int(line[star + 1 :], 16)
    except ValueError:
        raise LineError("syntax", "checksum is not four hex digits") from None
    if crc16(body) != given:
        raise LineError("checksum", f"checksum mismatch: line says {given:04X}, body gives "
                        f"{crc16(body):04X}")
    try:
        text = body.decode()
    except UnicodeError:
        raise LineError("syntax", "line is not ASCII") from None
    words = text.split()
    if len(words) < 2 or not _is_verb(words[0]):
        raise LineError("syntax", "a line starts with a verb and a sequence number")
    seq = _number(words[1], MAX_SEQ)
    if seq is None:
        raise LineError("syntax", "sequence number must be 0..65535, got " + words[1])
    return words[0], seq, words[2:]


def number(word, top):
    """``word`` as a decimal 0..top, or raise LineError(range/syntax)."""
    value = _number(word, None)
    if value is None:
        raise LineError("syntax", "not a decimal number: " + word)
    if value > top:
        raise LineError("range", f"{value} is out of range 0..{top}")
    return value


def _number(word, top):
    if not word or not word.isdigit() or len(word) > 6:
        return None
    value = int(word)
    if top is not None and value > top:
        return None
    return value


def _is_verb(word):
    return all("A" <= ch <= "Z" for ch in word)


def unhex(text):
    """The bytes of a string of hex digit pairs, or raise LineError(syntax)."""
    try:
        return binascii.unhexlify(text)
    except ValueError:
        raise LineError("syntax", "not hex digit pairs: " + text[:16]) from None
