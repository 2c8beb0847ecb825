"""A board read by a microcontroller over USB serial: the Pico firmware in ``firmware/``,
speaking the line protocol of ``firmware/PROTOCOL.md``.

:class:`SerialBoard` is the sensor backend (``[sensor] backend = "serial"``);
:class:`SerialLeds` the LED backend for NeoPixels wired to the Pico (``[leds] backend =
"serial"``). Both use one :class:`SerialLink` per port, so one cable carries both.

The link never gives up: a board that is missing at start, unplugged, silent or garbled
becomes a :class:`~hardware.base.SensorFault` that says what to check, and the link reopens
the port after ``reconnect_interval`` seconds, doubling the wait after each try that fails
up to ``reconnect_max`` (no busy loop; a log line for each new wait, then one every twenty
tries: :class:`tavola.backoff.QuietRetries`). When the board answers
again, the handshake and a full snapshot follow, and that snapshot resynchronises the game.

I/O runs on the asyncio loop, with no thread: the port's file descriptor is non-blocking,
read from a ``loop.add_reader`` callback and written with ``os.write`` (``add_writer`` for
whatever the kernel cannot take at once). Every line is handled in the loop's thread and
in order, and a test drives the backend exactly as the daemon does. pyserial only opens the
port and sets its line (baud rate, raw mode, an exclusive lock). POSIX only (Linux, macOS),
like the daemon itself.

The protocol logic (handshake, sequence numbers, timeouts) is the pure
:class:`~hardware.serial_protocol.Conversation`; this module is its shell.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import os
import select
import time
from collections import deque
from collections.abc import AsyncIterator, Callable
from typing import Any, ClassVar

import serial

from tavola.backoff import QuietRetries

from .base import (
    EMPTY,
    OCCUPIED,
    Capability,
    Closing,
    Frame,
    SensorEvent,
    SensorFault,
    Snapshot,
    check_frame,
    option_number,
    option_whole,
)
from .layout import Layout
from .serial_protocol import SNAPSHOT_INTERVAL, Conversation, Hello, LineSplitter, Step, led_lines

__all__ = ["DEFAULT_PORT", "SerialBoard", "SerialLeds", "SerialLink"]

log = logging.getLogger(__name__)

DEFAULT_PORT = "/dev/ttyACM0"
OUT_LIMIT = 64 * 1024  # bytes queued for a board that does not read: beyond, LED data is dropped
CLOSE_FLUSH = 0.5  # seconds close() waits for the last frame to leave
RECONNECT_MAX = 8.0  # seconds: the longest wait between tries to reach a lost board


class SerialLink(Closing):
    """One connection to a board on ``port``, shared by a :class:`SerialBoard` and a
    :class:`SerialLeds`. Get it with :meth:`attach`; it runs (opens the port, talks,
    reconnects) from :meth:`start` on the running loop until its last user releases it.
    """

    open_links: ClassVar[dict[str, SerialLink]] = {}

    def __init__(
        self,
        layout: Layout,
        port: str,
        *,
        baudrate: int = 115200,
        heartbeat_timeout: float = 3.0,
        reconnect_interval: float = 1.0,
        reconnect_max: float = RECONNECT_MAX,
        snapshot_interval: float = SNAPSHOT_INTERVAL,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.layout = layout
        self.port = port
        self.baudrate = baudrate
        self.heartbeat_timeout = heartbeat_timeout
        self.reconnect_interval = reconnect_interval
        self.reconnect_max = max(reconnect_max, reconnect_interval)
        self.snapshot_interval = snapshot_interval
        self.clock = clock
        self.waits: list[float] = []  # every reconnect wait so far (diagnostics, tests)
        self._handshakes = 0
        self.events: deque[SensorEvent] = deque()
        self.listening = False  # a SerialBoard takes the events
        self.arrived = asyncio.Event()  # set when an event is queued
        self.conversation: Conversation | None = None
        places = layout.places
        self._need = (max((c.row for c in places), default=0) + 1,
                      max((c.col for c in places), default=0) + 1)
        self._cells = tuple((c.name, c.row, 1 << c.col) for c in places)
        fitted = [0] * self._need[0]
        for c in places:
            fitted[c.row] |= 1 << c.col
        self._fitted = tuple(fitted)
        self._users = 0
        self._closed = False
        self._task: asyncio.Task[None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._port: serial.Serial | None = None
        self._fd: int | None = None
        self._writing = False
        self._out = bytearray()
        self._splitter = LineSplitter()
        self._io = asyncio.Event()  # a line came in, the link hung up, or it is closing
        self._hung_up = True
        self._fault_shown: str | None = None
        self._strip: tuple[int, str] | None = None  # LED count and colour order
        self._brightness = 255
        self._wanted: Frame | None = None
        self._sent: Frame | None = None  # what the board shows; None: unknown

    # ------------------------------------------------------------ sharing
    @classmethod
    def attach(cls, layout: Layout, port: str | None, **options: Any) -> SerialLink:
        """The link for ``port``, opened by an earlier caller or made now (with
        ``options``). ``port=None``: the one link already open, else :data:`DEFAULT_PORT`.
        """
        if port is None:
            if len(cls.open_links) > 1:
                ports = ", ".join(sorted(cls.open_links))
                raise ValueError(f"several serial boards are open ({ports}): set "
                                 'options = { port = "..." } under [leds]')
            port = next(iter(cls.open_links), DEFAULT_PORT)
        link = cls.open_links.get(port)
        if link is None:
            link = cls.open_links[port] = cls(layout, port, **options)
        link._users += 1
        return link

    def release(self) -> None:
        """One user is done; the last one closes the link."""
        self._users -= 1
        if self._users <= 0:
            self.close()

    def start(self) -> None:
        """Run the link on the running loop (no-op if it runs, or if no loop runs)."""
        if self._closed or (self._task is not None and not self._task.done()):
            return
        try:
            self._loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        self._task = self._loop.create_task(self._run(), name=f"serial link {self.port}")

    def close(self) -> None:
        """Send what is queued (briefly), close the port, stop. Idempotent."""
        if self._closed:
            return
        self._closed = True
        if SerialLink.open_links.get(self.port) is self:
            del SerialLink.open_links[self.port]
        self._flush_before_close()
        self._hang_up()
        self._io.set()
        self.arrived.set()
        if self._task is not None and not self._task.done():
            self._task.cancel()

    # ------------------------------------------------------------ what the users call
    @property
    def live(self) -> bool:
        """True while a board is connected and has completed the handshake."""
        return self.conversation is not None and self.conversation.live

    def request_snapshot(self) -> None:
        """Ask the board for its whole matrix, reported even if nothing changed."""
        if self.conversation is not None:
            self._apply(self.conversation.request_snapshot(self.clock()))

    def attach_strip(self, count: int, order: str, brightness: float) -> None:
        """The board drives ``count`` NeoPixels in colour ``order``."""
        self._strip = (count, order)
        self._brightness = round(255 * brightness)

    def show(self, frame: Frame) -> None:
        """Light ``frame`` on the board's NeoPixels (now if connected, else when it is)."""
        self._wanted = tuple(frame)
        if self._lit:
            self._send_frame()

    @property
    def _lit(self) -> bool:
        """True when frames can go out: connected, and the board drives the strip."""
        board = self.conversation.board if self.conversation is not None else None
        return self.live and board is not None and board.leds and self._strip is not None

    # ------------------------------------------------------------ the supervisor
    async def _run(self) -> None:
        wait = self.reconnect_interval
        retries = QuietRetries(self.reconnect_max)  # a board away all evening: a few lines
        while not self._closed:
            handshakes = self._handshakes
            try:
                self._open()
            except Exception as exc:  # SerialException, OSError: and never a dead link
                log.debug("cannot open %s", self.port, exc_info=True)
                self._hang_up()
                self._fault(self._cannot_open(exc))
            else:
                try:
                    await self._converse()
                except Exception:  # a bug must cost a reconnection, never the board
                    log.exception("serial link %s failed", self.port)
                finally:
                    self._hang_up()
            if self._closed:
                break
            if self._handshakes != handshakes:  # it was reached: start again from the shortest
                wait = self.reconnect_interval
                retries.succeeded()
            said = retries.failed(wait)  # each step of the backoff, not each try
            if said is not None:
                log.info("the board on %s: %s", self.port, said)
            self.waits.append(wait)
            await self._pause(wait)
            wait = min(wait * 2, self.reconnect_max)

    async def _pause(self, seconds: float) -> None:
        self._io.clear()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._io.wait(), seconds)

    def _open(self) -> None:
        self._port = serial.Serial(port=self.port, baudrate=self.baudrate, timeout=0,
                                   write_timeout=0, exclusive=True)
        self._fd = self._port.fileno()
        os.set_blocking(self._fd, False)
        self._splitter = LineSplitter()
        self._hung_up = False
        assert self._loop is not None
        self._loop.add_reader(self._fd, self._readable)

    async def _converse(self) -> None:
        conversation = self.conversation = Conversation(
            self.port, heartbeat_timeout=self.heartbeat_timeout, need=self._need,
            fitted=self._fitted, snapshot_interval=self.snapshot_interval)
        self._apply(conversation.start(self.clock()))
        while not self._closed and not self._hung_up:
            deadline = conversation.deadline
            timeout = None if deadline is None else max(0.0, deadline - self.clock())
            self._io.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._io.wait(), timeout)
            if not self._closed and not self._hung_up:
                self._apply(conversation.check(self.clock()))

    def _hang_up(self) -> None:
        """Close the port (idempotent); the supervisor reconnects unless closing."""
        self._hung_up = True
        self.conversation = None
        self._sent = None
        self._out.clear()
        if self._fd is not None and self._loop is not None and not self._loop.is_closed():
            self._loop.remove_reader(self._fd)
            if self._writing:
                self._loop.remove_writer(self._fd)
        self._writing = False
        self._fd = None
        if self._port is not None:
            with contextlib.suppress(Exception):
                self._port.close()
            self._port = None
        self._io.set()

    # ------------------------------------------------------------ bytes in and out
    def _readable(self) -> None:
        if self._fd is None or self.conversation is None:
            return
        try:
            data = os.read(self._fd, 4096)
        except BlockingIOError:
            return
        except OSError as exc:
            self._lost(exc.strerror or str(exc))
            return
        if not data:
            self._lost("the device went away")
            return
        now = self.clock()
        for line in self._splitter.feed(data):
            if self.conversation is None:
                break
            self._apply(self.conversation.receive(line, now))
        self._io.set()

    def _write(self, data: bytes) -> None:
        if self._fd is None:
            return
        if len(self._out) + len(data) > OUT_LIMIT:
            log.warning("the board on %s is not reading; dropping %d queued bytes",
                        self.port, len(self._out))
            self._out.clear()
            self._sent = None  # the whole frame goes again once it reads
        self._out += data
        self._flush()

    def _flush(self) -> None:
        while self._out and self._fd is not None:
            try:
                written = os.write(self._fd, self._out)
            except BlockingIOError:
                break
            except OSError as exc:
                self._lost(exc.strerror or str(exc))
                return
            del self._out[:written]
        assert self._loop is not None
        if self._out and not self._writing and self._fd is not None:
            self._loop.add_writer(self._fd, self._flush)
            self._writing = True
        elif not self._out and self._writing and self._fd is not None:
            self._loop.remove_writer(self._fd)
            self._writing = False

    def _flush_before_close(self) -> None:
        deadline = time.monotonic() + CLOSE_FLUSH
        while self._out and self._fd is not None and time.monotonic() < deadline:
            try:
                del self._out[: os.write(self._fd, self._out)]
            except BlockingIOError:
                select.select([], [self._fd], [], max(0.0, deadline - time.monotonic()))
            except OSError:
                return

    # ------------------------------------------------------------ steps and events
    def _apply(self, step: Step) -> None:
        for line in step.send:
            self._write(line)
        for text in step.log:
            log.warning("%s", text)
        if step.hello is not None:
            self._hello(step.hello)
        if step.reading is not None:
            self._report(step.reading)
        if step.fault is not None:
            self._fault(step.fault)
        if step.hang_up:
            self._hang_up()

    def _hello(self, hello: Hello) -> None:
        self._handshakes += 1
        log.info("board on %s: firmware %s, %dx%d matrix", self.port, hello.firmware,
                 hello.rows, hello.columns)
        if self._strip is None:
            return
        if not hello.leds:
            log.error("the board on %s drives no LEDs (LED_PIN is None in the firmware's "
                      "config.py): the LEDs stay dark", self.port)
            return
        count, order = self._strip
        assert self.conversation is not None
        self._write(self.conversation.command("STRIP", str(count), order))
        self._write(self.conversation.command("BRI", str(self._brightness)))
        self._sent = None
        if self._wanted is not None:
            self._send_frame()

    def _send_frame(self) -> None:
        assert self.conversation is not None and self._wanted is not None
        runs = led_lines(self._wanted, self._sent)
        for first, colours in runs:
            self._write(self.conversation.command("LED", str(first), colours))
        if runs:
            self._write(self.conversation.command("SHOW"))
        self._sent = self._wanted

    def _report(self, reading: tuple[int, ...]) -> None:
        self._fault_shown = None
        cells = {name: OCCUPIED if reading[row] & bit else EMPTY
                 for name, row, bit in self._cells}
        self._queue(Snapshot(cells, self.clock()))

    def _fault(self, message: str) -> None:
        if message == self._fault_shown:  # the same trouble again: said already
            return
        self._fault_shown = message
        # The session logs a sensor's faults; without a sensor on this port, nobody would.
        log.log(logging.DEBUG if self.listening else logging.WARNING, "%s", message)
        self._queue(SensorFault(message, self.clock()))

    def _queue(self, event: SensorEvent) -> None:
        if self.listening:
            self.events.append(event)
            self.arrived.set()

    def _lost(self, reason: str) -> None:
        self._fault(f"lost the board on {self.port} ({reason}): check the USB cable; "
                    "reconnecting")
        self._hang_up()

    def _cannot_open(self, exc: Exception) -> str:
        code = getattr(exc, "errno", None)
        if code in (errno.ENOENT, errno.ENODEV, errno.ENXIO):
            return f"the board on {self.port} is not connected: plug in its USB cable"
        if code in (errno.EACCES, errno.EPERM):
            return (f"no permission to open {self.port}: add this user to the dialout group "
                    "(sudo usermod -aG dialout $USER, then log in again)")
        if code in (errno.EBUSY, errno.EAGAIN, errno.EWOULDBLOCK):
            return (f"{self.port} is in use by another program (mpremote, a serial terminal, "
                    "another tavola): close it")
        return (f"cannot open {self.port} ({exc}): is it the board's serial device? check "
                "the port option and the USB cable")


# ---------------------------------------------------------------------- the backends
class SerialBoard(Closing):
    """Sensor backend: the switch matrix a Pico reads (``[sensor] backend = "serial"``).

    ``port``: the board's serial device (``/dev/ttyACM0``; a udev symlink such as
    ``/dev/tavola`` is steadier). ``baudrate``: for a UART (USB ignores it).
    ``heartbeat_timeout``: seconds without a line from the board before it counts as lost
    (and without an answer to a request for the matrix before that is a fault).
    ``reconnect_interval`` / ``reconnect_max``: the first and the longest wait between
    attempts to reach a lost board. ``snapshot_interval``: seconds between the full
    readings that check the host's copy of the matrix. ``clock``: the monotonic clock that
    stamps the snapshots. Senses occupancy; tray slots are cells like any other (the layout
    says where they are wired).
    """

    capability: Capability = "occupancy"

    def __init__(
        self,
        layout: Layout,
        *,
        port: str = DEFAULT_PORT,
        baudrate: int = 115200,
        heartbeat_timeout: float = 3.0,
        reconnect_interval: float = 1.0,
        reconnect_max: float = RECONNECT_MAX,
        snapshot_interval: float = SNAPSHOT_INTERVAL,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        _check_options("sensor", port, baudrate, heartbeat_timeout=heartbeat_timeout,
                       reconnect_interval=reconnect_interval, reconnect_max=reconnect_max,
                       snapshot_interval=snapshot_interval)
        self.layout = layout
        self.link = SerialLink.attach(
            layout, port, baudrate=baudrate, heartbeat_timeout=heartbeat_timeout,
            reconnect_interval=reconnect_interval, reconnect_max=reconnect_max,
            snapshot_interval=snapshot_interval, clock=clock)
        if self.link.listening:
            self.link.release()
            raise ValueError(f"the serial board on {port} is already in use by another sensor")
        self.link.listening = True
        self._closed = False

    @property
    def cells(self) -> tuple[str, ...]:
        """Every sensed name: the layout's board cells, then its tray slots."""
        return self.layout.sensed

    async def events(self) -> AsyncIterator[SensorEvent]:
        """A snapshot once the board has answered (or a fault saying why it has not), one
        per settled change, faults when it is lost and a snapshot when it is back."""
        link = self.link
        link.start()
        while True:
            while link.events:
                yield link.events.popleft()
            if self._closed:
                return
            link.arrived.clear()
            await link.arrived.wait()

    def request_snapshot(self) -> None:
        """Ask the board for a full reading (a resync); reported even if unchanged."""
        self.link.request_snapshot()

    def close(self) -> None:
        """Stop: ``events()`` yields what is queued, then ends. Idempotent."""
        if self._closed:
            return
        self._closed = True
        self.link.listening = False
        self.link.arrived.set()
        self.link.release()


class SerialLeds(Closing):
    """LED backend: NeoPixels wired to the Pico (``[leds] backend = "serial"``).

    Shares the connection of the serial sensor; ``port`` defaults to that sensor's port
    (or ``/dev/ttyACM0`` when there is none). ``brightness`` 0..1 is applied by the
    board. Frames shown while the board is away are kept; the last one goes out when it is
    back. The other options are those of :class:`SerialBoard`, used only when no serial
    sensor opened the port first.
    """

    def __init__(
        self,
        layout: Layout,
        *,
        port: str | None = None,
        brightness: float = 1.0,
        baudrate: int = 115200,
        heartbeat_timeout: float = 3.0,
        reconnect_interval: float = 1.0,
        reconnect_max: float = RECONNECT_MAX,
        snapshot_interval: float = SNAPSHOT_INTERVAL,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        _check_options("LED", port, baudrate, heartbeat_timeout=heartbeat_timeout,
                       reconnect_interval=reconnect_interval, reconnect_max=reconnect_max,
                       snapshot_interval=snapshot_interval)
        if isinstance(brightness, bool) or not isinstance(brightness, int | float) \
                or not 0 <= brightness <= 1:
            raise ValueError(f"LED brightness must be 0..1, got {brightness!r}")
        self.layout = layout
        self.link = SerialLink.attach(
            layout, port, baudrate=baudrate, heartbeat_timeout=heartbeat_timeout,
            reconnect_interval=reconnect_interval, reconnect_max=reconnect_max,
            snapshot_interval=snapshot_interval, clock=clock)
        self.link.attach_strip(layout.led_count, layout.color_order, brightness)
        self._closed = False

    @property
    def count(self) -> int:
        """The number of LEDs on the strip."""
        return self.layout.led_count

    def show(self, frame: Frame) -> None:
        """Send ``frame`` to the board (the LEDs that changed since the last one)."""
        if self._closed:
            raise RuntimeError("SerialLeds is closed")
        check_frame(frame, self.count)
        self.link.start()
        self.link.show(frame)

    def close(self) -> None:
        """Let go of the connection. Idempotent."""
        if not self._closed:
            self._closed = True
            self.link.release()


# ---------------------------------------------------------------------- options
def _check_options(kind: str, port: str | None, baudrate: int, **seconds: float) -> None:
    """The values' ranges (unknown keys are refused by the loader, as for every backend)."""
    key = f"[{'sensor' if kind == 'sensor' else 'leds'}.options] "
    if port is not None and (not isinstance(port, str) or not port):
        raise ValueError(f'{key}port = {port!r}: must be a device path (e.g. port = '
                         f'"/dev/ttyACM0", or its /dev/serial/by-id/ name)')
    option_whole(key + "baudrate", baudrate, 300, 4_000_000, "bits a second, e.g. 115200")
    for name, value in seconds.items():
        option_number(key + name, value, 0.001, 3600, "seconds, e.g. 1")
