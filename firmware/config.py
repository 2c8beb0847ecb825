"""Pins and timing of this board: edit to match the wiring (README.md), copy to the Pico.

Matrix row ``r`` of the layout file (hardware/layouts/*.toml) is ROW_PINS[r]; column ``c``
is COLUMN_PINS[c]. Up to 16 of each; rows or columns with no switch fitted do no harm.
"""

# Inputs with the Pico's internal pull-ups: matrix rows 0, 1, 2, ...
ROW_PINS = (12, 13, 14, 15, 16, 17, 18, 19, 20, 21)

# Outputs, driven low one at a time: matrix columns 0, 1, 2, ...
COLUMN_PINS = (2, 3, 4, 5, 6, 7, 8, 9, 10, 11)

# The NeoPixel data line (through a 330 ohm resistor), or None when the Pico drives no
# LEDs (the Raspberry Pi drives them itself, or the board has none).
LED_PIN = 22

# Scan the matrix every SCAN_MS milliseconds; a switch counts as changed after
# DEBOUNCE_SCANS scans in a row agree (4 x 5 ms: 20 ms of contact bounce filtered).
SCAN_MS = 5
DEBOUNCE_SCANS = 4
