"""sd_notify datagrams, received on a real unix socket as systemd would."""

from __future__ import annotations

import os
import socket
from pathlib import Path

from tavola.notify import Notifier


def test_ready_status_watchdog_reach_the_socket(notify_socket: tuple[socket.socket, str]) -> None:
    sock, path = notify_socket
    n = Notifier({"NOTIFY_SOCKET": path, "WATCHDOG_USEC": "10000000"})
    assert n.enabled and n.watchdog_interval == 5.0
    n.ready("morris, White to move")
    assert sock.recv(4096) == b"READY=1\nSTATUS=morris, White to move"
    n.watchdog()
    assert sock.recv(4096) == b"WATCHDOG=1"
    n.status("Black to move")
    n.status("Black to move")  # unchanged: not sent again
    n.status("board disconnected")
    assert sock.recv(4096) == b"STATUS=Black to move"
    assert sock.recv(4096) == b"STATUS=board disconnected"
    n.close()


def test_abstract_socket_names() -> None:
    name = f"tavola-test-{os.getpid()}"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind("\0" + name)
    sock.settimeout(2)
    try:
        Notifier({"NOTIFY_SOCKET": "@" + name}).ready()
        assert sock.recv(4096) == b"READY=1"
    finally:
        sock.close()


def test_outside_systemd_nothing_happens_and_a_dead_socket_is_not_fatal(tmp_path: Path) -> None:
    n = Notifier({})
    assert not n.enabled and n.watchdog_interval is None and not n.send("READY=1")
    gone = Notifier({"NOTIFY_SOCKET": str(tmp_path / "nobody.sock")})
    assert gone.send("WATCHDOG=1") is False


def test_watchdog_for_another_pid_is_not_ours() -> None:
    n = Notifier({"NOTIFY_SOCKET": "/x", "WATCHDOG_USEC": "4000000", "WATCHDOG_PID": "1"})
    assert n.watchdog_interval is None
