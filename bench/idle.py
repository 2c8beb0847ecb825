"""Idle cost of ``tavola run`` per sensor backend, against a bare asyncio loop.

Run: ``.venv/bin/python -m bench.idle [--window 4] [--rounds 3] [--backends sim,reed,...]``.
Linux only (it reads ``/proc``).

For each backend the daemon is started as ``tavola run`` on a board where nothing happens
(Nine Men's Morris, ``--leds none``, its own journal), and measured once it has said
READY and has been quiet for ``--settle`` seconds (past the reed matrix's ``idle_after``):

- ``sim``: the simulator, nobody typing;
- ``reed``: the reed matrix on gpiozero's mock pins (``pin_factory = "mock"``), every
  switch open;
- ``serial``: a board on a pseudo-terminal answering as the firmware does (HELLO, SNAP,
  a heartbeat a second), played by this process;
- ``camera``: a directory of identical rendered frames of the empty board, read at the
  camera's 15 frames a second (the backend reads a directory of images as a camera).

The reference is a bare asyncio loop in its own process that does nothing but wake up as
often as the daemon does: its rate is the daemon's voluntary context switches a second
(all threads), measured first. Both run at once and are measured over the same windows,
so load from elsewhere on the machine hits both. CPU is the time on a core from
``/proc/PID/task/*/schedstat`` (nanoseconds), RSS from ``/proc/PID/status``. Printed: per
backend the daemon's CPU (% of one core), the bare loop's, their ratio (median of the
rounds, with min-max), the wake-ups a second, and both RSS.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import select
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import tty
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from tavola.hardware.layout import Layout
from tavola.hardware.serial_protocol import PROTOCOL_VERSION, LineSplitter, encode

TAVOLA = [sys.executable, "-m", "tavola.cli", "run", "--leds", "none", "--console", "off"]
BARE_LOOP = """
import asyncio, sys

async def main(period: float) -> None:
    while True:
        await asyncio.sleep(period)

asyncio.run(main(1.0 / float(sys.argv[1])))
"""
ROWS = [4, 5, 6, 12, 13, 16, 17]  # morris: a 7x7 matrix
COLS = [20, 21, 22, 23, 24, 25, 26]
BACKENDS = ("sim", "reed", "serial", "camera")


@dataclass(frozen=True)
class Sample:
    """A process's counters at one moment."""

    when: float
    cpu_ns: int
    switches: int
    rss_kib: int


def sample(pid: int) -> Sample:
    """CPU time and voluntary context switches summed over every thread, and the RSS."""
    cpu = switches = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        with contextlib.suppress(OSError):  # a thread that ended meanwhile
            cpu += int((task / "schedstat").read_text().split()[0])
            for line in (task / "status").read_text().splitlines():
                if line.startswith("voluntary_ctxt_switches:"):
                    switches += int(line.split()[1])
    rss = 0
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            rss = int(line.split()[1])
    return Sample(time.monotonic(), cpu, switches, rss)


@dataclass(frozen=True)
class Usage:
    """What a process used over one window."""

    cpu: float  # fraction of one core
    wakeups: float  # voluntary context switches a second
    rss_mib: float


def usage(before: Sample, after: Sample) -> Usage:
    """The use between two samples of one process."""
    seconds = after.when - before.when
    return Usage((after.cpu_ns - before.cpu_ns) / 1e9 / seconds,
                 (after.switches - before.switches) / seconds, after.rss_kib / 1024)


# ---------------------------------------------------------------------- the daemon's boards
class PtyBoard:
    """A board on a pseudo-terminal answering as the firmware does, on a thread: HELLO with
    HELLO and SNAP, SYNC with SNAP, a heartbeat every second. :attr:`port` is its device."""

    def __init__(self, rows: int, columns: int) -> None:
        self.master, self.slave = os.openpty()
        tty.setraw(self.slave)
        self.port = os.ttyname(self.slave)
        self.rows, self.columns = rows, columns
        self._seq = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _send(self, verb: str, *fields: str) -> None:
        os.write(self.master, encode(verb, self._seq, *fields))
        self._seq += 1

    def _serve(self) -> None:
        splitter = LineSplitter()
        next_beat = time.monotonic() + 1.0
        while not self._stop.is_set():
            ready, _, _ = select.select([self.master], [], [], 0.2)
            if ready:
                with contextlib.suppress(OSError):
                    for line in splitter.feed(os.read(self.master, 4096)):
                        verb = line.split(b" ")[0]
                        if verb == b"HELLO":
                            self._seq = 0
                            self._send("HELLO", "tavola", str(PROTOCOL_VERSION), "0.2.0",
                                       str(self.rows), str(self.columns), "0")
                        if verb in (b"HELLO", b"SYNC"):
                            self._send("SNAP", *("0" for _ in range(self.rows)))
            if time.monotonic() >= next_beat:
                next_beat += 1.0
                with contextlib.suppress(OSError):
                    self._send("HB", str(int(next_beat)), "200")

    def close(self) -> None:
        """Stop answering and close the pty."""
        self._stop.set()
        self._thread.join()
        os.close(self.master)
        os.close(self.slave)


def frame_directory(folder: Path, frames: int) -> Path:
    """``frames`` links to one rendered frame of the empty morris board (PNG)."""
    import cv2

    from tavola.vision.render import empty_board, render

    image = render("morris", empty_board("morris")).image
    first = folder / "frame-00000.png"
    cv2.imwrite(str(first), image)
    for i in range(1, frames):
        (folder / f"frame-{i:05d}.png").symlink_to(first.name)
    return folder


@contextlib.contextmanager
def daemon(backend: str, folder: Path, notify: str, window: float,
           rounds: int) -> Iterator[tuple[subprocess.Popen[bytes], str]]:
    """``tavola run`` with ``backend`` as its sensor, and a note on its set-up."""
    env = {**os.environ, "NOTIFY_SOCKET": notify}
    args = [*TAVOLA, "--journal", str(folder / "journal"), "--sensor", backend]
    board: PtyBoard | None = None
    note = ""
    if backend == "reed":
        env["TAVOLA_SENSOR_OPTIONS"] = (f'{{ pin_factory = "mock", row_pins = {ROWS}, '
                                        f"col_pins = {COLS} }}")
        note = "mock pins, 7x7 matrix, idle_hz 25"
    elif backend == "serial":
        layout = Layout.for_game("morris")
        board = PtyBoard(layout.rows, layout.columns)
        env["TAVOLA_SENSOR_OPTIONS_PORT"] = f'"{board.port}"'
        note = "fake board on a pty, 1 heartbeat/s"
    elif backend == "camera":
        # Enough frames for the whole run at 15 a second, with a margin.
        frames = int(15 * (8 + window * (rounds + 1))) + 60
        (folder / "frames").mkdir()
        source = frame_directory(folder / "frames", frames)
        env["TAVOLA_SENSOR_OPTIONS_SOURCE"] = f'"{source}"'
        note = "PNG frames of the empty board at 15 fps"
    proc = subprocess.Popen(args, env=env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        yield proc, note
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
        if board is not None:
            board.close()


def wait_ready(sock: socket.socket, proc: subprocess.Popen[bytes], seconds: float) -> None:
    """Until the daemon says READY=1 (raises with its stderr if it stops first)."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if proc.poll() is not None:
            error = proc.stderr.read().decode() if proc.stderr else ""
            raise RuntimeError(f"tavola run stopped: {error.strip()}")
        sock.settimeout(0.2)
        with contextlib.suppress(TimeoutError):
            if sock.recv(4096).startswith(b"READY=1"):
                return
    raise RuntimeError("tavola run did not say READY")


@dataclass(frozen=True)
class Result:
    """One backend's figures."""

    backend: str
    note: str
    daemon: list[Usage]
    bare: list[Usage]

    def line(self) -> str:
        """A table row."""
        ratios = [d.cpu / b.cpu for d, b in zip(self.daemon, self.bare, strict=True)
                  if b.cpu > 0]
        cpu = statistics.median(d.cpu for d in self.daemon)
        bare = statistics.median(b.cpu for b in self.bare)
        wake = statistics.median(d.wakeups for d in self.daemon)
        ratio = (f"{statistics.median(ratios):5.1f}x ({min(ratios):.1f}-{max(ratios):.1f})"
                 if ratios else "    -")
        return (f"{self.backend:<7}{cpu * 100:8.2f} %{bare * 100:8.2f} %  {ratio:<16}"
                f"{wake:7.0f}/s{self.daemon[-1].rss_mib:8.1f}{self.bare[-1].rss_mib:8.1f} MiB"
                f"   {self.note}")


def measure(backend: str, window: float, rounds: int, settle: float) -> Result:
    """The daemon with ``backend`` and its bare loop, ``rounds`` windows of ``window`` s."""
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        notify = str(folder / "notify")
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        sock.bind(notify)
        with sock, daemon(backend, folder, notify, window, rounds) as (proc, note):
            wait_ready(sock, proc, 60.0)
            time.sleep(settle)
            first = sample(proc.pid)
            time.sleep(min(window, 2.0))
            rate = usage(first, sample(proc.pid)).wakeups
            bare = subprocess.Popen([sys.executable, "-c", BARE_LOOP, f"{max(rate, 1.0)}"])
            try:
                time.sleep(1.0)
                ours: list[Usage] = []
                theirs: list[Usage] = []
                for _ in range(rounds):
                    a, b = sample(proc.pid), sample(bare.pid)
                    time.sleep(window)
                    ours.append(usage(a, sample(proc.pid)))
                    theirs.append(usage(b, sample(bare.pid)))
            finally:
                bare.terminate()
                bare.wait(10)
        return Result(backend, note, ours, theirs)


def main() -> None:
    """Print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--window", type=float, default=4.0, help="seconds a round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--settle", type=float, default=1.5,
                        help="seconds of quiet after READY before measuring")
    parser.add_argument("--backends", default=",".join(BACKENDS))
    args = parser.parse_args()
    print(f"idle tavola run vs a bare asyncio loop waking as often; {args.rounds} rounds of "
          f"{args.window:g} s, median (min-max); Python {sys.version.split()[0]}")
    print(f"{'sensor':<7}{'daemon':>10}{'bare':>10}  {'ratio':<16}{'wake-ups':>9}"
          f"{'RSS':>8}{'bare':>8}")
    for backend in args.backends.split(","):
        try:
            print(measure(backend, args.window, args.rounds, args.settle).line(), flush=True)
        except RuntimeError as exc:
            print(f"{backend:<7}not measured: {exc}", flush=True)


if __name__ == "__main__":
    main()
