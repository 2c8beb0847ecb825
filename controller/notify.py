"""sd_notify without a dependency: READY, WATCHDOG and STATUS datagrams to systemd.

systemd passes ``$NOTIFY_SOCKET`` (a path, or ``@name`` for the abstract namespace) to a
``Type=notify`` service and ``$WATCHDOG_USEC`` when ``WatchdogSec=`` is set. Outside systemd
both are absent and every call does nothing, so the daemon runs the same in a terminal.

The socket is non-blocking: when systemd does not read (its queue is full) a message is
dropped with one warning, and the daemon's loop never waits for it.
"""

from __future__ import annotations

import logging
import os
import socket
from collections.abc import Mapping

log = logging.getLogger(__name__)


class Notifier:
    """Sends state lines to systemd's notify socket, if there is one."""

    def __init__(self, env: Mapping[str, str] | None = None) -> None:
        env = os.environ if env is None else env
        self._address: str | None = env.get("NOTIFY_SOCKET") or None
        if self._address and self._address.startswith("@"):
            self._address = "\0" + self._address[1:]
        usec = env.get("WATCHDOG_USEC", "")
        pid = env.get("WATCHDOG_PID", "")
        mine = not pid or pid == str(os.getpid())
        self.watchdog_interval: float | None = (
            int(usec) / 1e6 / 2 if usec.isdigit() and int(usec) > 0 and mine else None
        )
        self._sock: socket.socket | None = None
        self._last_status = ""
        self._failing = False  # warned about a failure already; quiet until one succeeds

    @property
    def enabled(self) -> bool:
        return self._address is not None

    def send(self, *lines: str) -> bool:
        """Send ``KEY=value`` lines in one datagram; False if there is nobody to tell."""
        if self._address is None:
            return False
        try:
            if self._sock is None:
                self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC
                                           | socket.SOCK_NONBLOCK)
            self._sock.sendto("\n".join(lines).encode(), self._address)
        except OSError as exc:  # systemd gone or its queue full: never fatal to the game
            if not self._failing:
                log.warning("sd_notify failed (%s); dropping messages until it works", exc)
            self._failing = True
            return False
        self._failing = False
        return True

    def ready(self, status: str = "") -> None:
        self.send("READY=1", *([f"STATUS={status}"] if status else []))

    def watchdog(self) -> None:
        self.send("WATCHDOG=1")

    def status(self, text: str) -> None:
        """STATUS=text, sent only when it changed."""
        if text != self._last_status:
            self._last_status = text
            self.send(f"STATUS={text}")

    def stopping(self) -> None:
        self.send("STOPPING=1")

    def close(self) -> None:
        if self._sock is not None:
            self._sock.close()
            self._sock = None
