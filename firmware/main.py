"""tavola board firmware for a Raspberry Pi Pico (MicroPython): the hardware loop.

Scans the switch matrix every ``config.SCAN_MS``, talks to the host over the USB serial
line (sys.stdin / sys.stdout) in the protocol of PROTOCOL.md, and drives the NeoPixels
when the host sends LED frames. Everything that decides is in board.py and matrix.py; this
file only moves bytes and reads the clock. Copy the firmware folder to the Pico with
``make firmware`` (README.md); MicroPython runs main.py at power-up.

Ctrl-C from a terminal (mpremote does it before copying files) stops the loop as usual.
"""

import select
import sys
import time

import config
from board import Board
from machine import Pin
from matrix import Matrix
from protocol import encode

READ_AT_ONCE = 256  # host bytes taken per pass, so that a long LED frame never stalls a scan


def strip_maker(pin_number):
    """A function making the NeoPixel strip on ``pin_number`` (None: no LEDs)."""
    if pin_number is None:
        return None
    import neopixel

    pin = Pin(pin_number, Pin.OUT)

    def make(count, bpp):
        return neopixel.NeoPixel(pin, count, bpp=bpp)

    return make


def send(lines):
    for line in lines:
        sys.stdout.write(line)


def read_waiting(poll, stream):
    """The bytes the host has sent so far (at most READ_AT_ONCE)."""
    data = b""
    while len(data) < READ_AT_ONCE and poll.poll(0):
        byte = stream.read(1)
        if not byte:  # the host's end is gone for good (the unix port's pty): stop
            raise SystemExit(0)
        data += byte
    return data


def run():
    rows = [Pin(n, Pin.IN, Pin.PULL_UP) for n in config.ROW_PINS]
    columns = [Pin(n, Pin.OUT, value=1) for n in config.COLUMN_PINS]
    matrix = Matrix(rows, columns, time.sleep_us)
    board = Board(len(rows), len(columns), strip_maker(config.LED_PIN), config.DEBOUNCE_SCANS)
    poll = select.poll()
    poll.register(sys.stdin, select.POLLIN)
    host = sys.stdin.buffer
    send(board.boot(time.ticks_ms(), matrix.scan()))
    next_scan = time.ticks_ms()
    while True:
        wait = time.ticks_diff(next_scan, time.ticks_ms())
        if wait > 0:
            poll.poll(wait)  # returns early when the host sends something
        data = read_waiting(poll, host)
        now = time.ticks_ms()
        if data:
            send(board.received(data, now))
        if time.ticks_diff(now, next_scan) >= 0:
            send(board.scanned(matrix.scan(), now))
            next_scan = time.ticks_add(next_scan, config.SCAN_MS)
            if time.ticks_diff(now, next_scan) > 0:  # fell behind: no burst of catch-up scans
                next_scan = now
        send(board.tick(now))


try:
    run()
except Exception as exc:
    # Tell the host why before MicroPython prints its traceback and prompt.
    why = str(exc).replace("*", "x").replace("\n", " ")
    sys.stdout.write(encode("ERR", 0, ["internal", "-",
                                       f"firmware stopped: {type(exc).__name__}: {why}"]))
    raise
