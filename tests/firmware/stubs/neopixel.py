"""Stand-in for MicroPython's ``neopixel`` module under the unix port, for the tests.

Same buffer layout as the real driver (``ORDER`` maps r, g, b, w to byte positions).
``write()`` records the buffer in ``shown`` and, when the environment variable
``TAVOLA_NEOPIXEL_LOG`` names a file, appends it there as one hex line, so that a test
outside the process sees what the strip would light.
"""

import binascii
import os

LOG = os.getenv("TAVOLA_NEOPIXEL_LOG")
shown: list[bytes] = []  # annotations: MicroPython parses and ignores them


class NeoPixel:
    """A strip of ``n`` LEDs of ``bpp`` bytes on ``pin``."""

    ORDER = (1, 0, 2, 3)  # G R B W, as the real driver

    def __init__(self, pin: object, n: int, bpp: int = 3, timing: int = 1) -> None:
        self.pin = pin
        self.n = n
        self.bpp = bpp
        self.buf = bytearray(n * bpp)

    def __len__(self) -> int:
        return self.n

    def __setitem__(self, i: int, v: tuple[int, ...]) -> None:
        offset = i * self.bpp
        for j in range(self.bpp):
            self.buf[offset + self.ORDER[j]] = v[j]

    def __getitem__(self, i: int) -> tuple[int, ...]:
        offset = i * self.bpp
        return tuple(self.buf[offset + self.ORDER[j]] for j in range(self.bpp))

    def fill(self, v: tuple[int, ...]) -> None:
        for i in range(self.n):
            self[i] = v

    def write(self) -> None:
        shown.append(bytes(self.buf))
        if LOG is not None:
            with open(LOG, "a") as f:
                f.write(binascii.hexlify(self.buf).decode() + "\n")
