"""Sensing speed: the reed matrix on mock pins and the Pico over a pseudo-terminal.

Run: ``.venv/bin/python -m bench.sensing``. Prints the reed-matrix scan rates (busy and
on a quiet board), and from a change (a switch on the simulated matrix, a line from the
board on the pty, a switch under the firmware running in the MicroPython unix port) to the
settled snapshot reaching the session, p50 / p99; for the reed matrix also the latency of
the first change after a quiet spell, when it scans slowly. Idle CPU: ``bench/idle.py``.
The halves are ``bench/sensing_reed.py`` and ``bench/sensing_serial.py``.
"""

from __future__ import annotations

import argparse

from bench import sensing_reed, sensing_serial


def main(argv: list[str] | None = None) -> None:
    # No options; a mistyped one is refused rather than ignored by a run of a minute.
    argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0]).parse_args(argv)
    reed = sensing_reed.measure()
    rows = reed.rows()
    width = max(len(label) for label, _ in rows)
    print("reed matrix (gpiozero MockFactory, simulated diode matrix)")
    for label, value in rows:
        print(f"  {label:<{width}}  {value}")
    print("serial board: change -> settled snapshot at the session")
    for latency in sensing_serial.measure():
        print(latency.line())


if __name__ == "__main__":
    main()
